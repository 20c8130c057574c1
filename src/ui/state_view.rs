//! The State tab of the right panel (issue 13.2): the shared state at the
//! cursor as a JSON tree, with what the current event (a `STATE_DELTA`, a
//! `STATE_SNAPSHOT`, a run input) changed highlighted, as the inspector
//! highlights an activity's patch. Redux DevTools' "State" tab, at the
//! step.

use crate::app_model::words::thousands;
use std::sync::Arc;

use egui::{Id, Ui};

use super::json_tree::JsonTree;

use super::memo::memoized;
use crate::app_model::command::Command;
use crate::app_model::command::SearchCommand;
use crate::app_model::highlights::{Highlights, highlights_between};
use crate::app_model::state::{AppState, CursorView};
use crate::protocol::{EventBody, ParseOutcome};
use crate::replay::Effect;

/// Draws the State tab.
pub fn state_view_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    let (Some(doc), Some(view)) = (state.doc(), state.view()) else {
        ui.weak("No stream open");
        return;
    };
    ui.horizontal(|ui| {
        ui.strong("State");
        ui.label(format!("at step {}", thousands(view.step.get())));
    });
    let highlights = memoized(
        ui.ctx(),
        Id::unique("state-view-highlights"),
        view.generation,
        view.step,
        || Arc::new(state_highlights(view)),
    );
    let effect = view
        .step
        .index()
        .and_then(|i| doc.timeline.effects().get(i))
        .map(|e| e.effect);
    ui.weak(what_the_event_did(view, effect, &highlights));
    // E20 (issue 17.1): a STATE_SNAPSHOT that found the state drifted.
    super::inspector::drift_ui(ui, doc, view.step, None);
    ui.separator();
    egui::ScrollArea::both()
        .id_salt("state-view")
        .auto_shrink(false)
        .show(ui, |ui| {
            let ctx = ui.ctx().clone();
            let blame = super::blame::hook(
                &ctx,
                doc,
                view.generation,
                crate::search::Target::State,
                "",
                view.step,
            );
            let picked = JsonTree::new("state-view", view.at.state())
                .highlights(&highlights)
                .search_menu("")
                .blame(&blame)
                .show(ui);
            super::blame::go_to_clicked(&blame, commands);
            if let Some(pointer) = picked {
                commands.push(Command::Search(SearchCommand::Prefill {
                    message: None,
                    pointer,
                }));
            }
        });
}

/// What the current event changed in the state (nothing when it left the
/// state as it was: shared, or equal).
pub fn state_highlights(view: &CursorView) -> Highlights {
    let (before, at) = (view.before.state(), view.at.state());
    if std::ptr::eq(before, at) || before == at {
        return Highlights::none();
    }
    highlights_between(Some(before), at)
}

/// One line on what the current event did to the state.
fn what_the_event_did(
    view: &CursorView,
    effect: Option<Effect>,
    highlights: &Highlights,
) -> String {
    let step = thousands(view.step.get());
    let Some(ParseOutcome::Event { event, .. }) = &view.event else {
        return format!("Step {step}: the state as the stream starts");
    };
    let changed = highlights.len();
    let paths = if changed == 1 { "path" } else { "paths" };
    match (&event.body, effect) {
        (EventBody::StateDelta { delta }, Some(Effect::Applied)) => {
            let ops = if delta.ops.len() == 1 {
                "operation"
            } else {
                "operations"
            };
            format!(
                "STATE_DELTA at step {step}: {} {ops} applied, {changed} {paths} changed (highlighted)",
                delta.ops.len()
            )
        }
        (EventBody::StateDelta { .. }, Some(Effect::NotApplied)) => {
            format!("STATE_DELTA at step {step} not applied: the run failed earlier (R43)")
        }
        (EventBody::StateDelta { .. }, _) => {
            format!("STATE_DELTA at step {step} skipped: the state is as it was (E1)")
        }
        (EventBody::StateSnapshot { .. }, _) if changed > 0 => {
            format!(
                "STATE_SNAPSHOT at step {step} replaced the state: {} {paths} changed",
                thousands(changed as u64)
            )
        }
        (EventBody::StateSnapshot { .. }, _) => {
            format!("STATE_SNAPSHOT at step {step}: the same state again")
        }
        _ if changed > 0 => format!(
            "{} at step {step}: {changed} {paths} changed",
            event.event_type().as_str()
        ),
        _ => format!(
            "{} at step {step} leaves the state as it was",
            event.event_type().as_str()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::time_control::TimeCommand;
    use crate::diagnostic::Seq;

    fn demo_at(step: u64) -> AppState {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        state
    }

    #[test]
    fn a_state_delta_highlights_the_paths_it_changed() {
        // Step 20: add /steps/- "flights", replace /budget 800 by 739.
        let state = demo_at(20);
        let highlights = state_highlights(state.view().expect("a view"));
        let marks: Vec<_> = highlights.iter().collect();
        use crate::app_model::highlights::Mark;
        assert_eq!(
            marks,
            vec![("/budget", Mark::Changed), ("/steps/0", Mark::Added)]
        );
        // Step 21 (STEP_FINISHED) changes nothing.
        let state = demo_at(21);
        assert!(state_highlights(state.view().expect("a view")).is_empty());
    }
}
