//! The conversation at the cursor (the centre panel): the messages of the
//! thread as the replay holds them at the step, with what the current event
//! changed highlighted. Activity messages are cards; clicking one selects it
//! for the inspector.
//!
//! Only the visible messages are drawn. Rows keep their measured heights
//! between frames (estimated until first drawn), so a conversation of
//! thousands of messages costs what its visible part costs; a message is
//! compared with its previous version only when it is visible, and only by
//! pointer when the replay shares it.
//!
//! This file draws the panel; the rows are built in
//! [`self::rows`] and drawn by [`self::virtual_rows`], each
//! message as a card of [`self::cards`].

mod cards;
mod rows;
mod virtual_rows;

use crate::app_model::words::thousands;
use egui::{RichText, Ui};

use self::cards::{activity_card_ui, other_message_ui};
use self::rows::{Row, change_of, removal_rows, touched_row};
use self::virtual_rows::virtual_rows_ui;
use crate::app_model::command::Command;
use crate::app_model::state::AppState;
use crate::diagnostic::Seq;
use crate::protocol::{EventBody, ParseOutcome, parse_event};
use crate::replay::Message;

pub use self::cards::content_preview;

/// What the current event did to a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing.
    Same,
    /// It appeared.
    New,
    /// Its JSON differs.
    Changed,
    /// It is gone (shown struck through where it was).
    Removed,
}

/// Draws the conversation panel.
pub fn conversation_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    let Some(view) = state.view() else {
        empty_hint_ui(ui, state);
        return;
    };
    let at = view.at.conversation();
    let before = view.before.conversation();
    let rows = removal_rows(ui.ctx(), view);
    let num_rows = rows.as_ref().as_ref().map_or(at.len(), Vec::len);
    let row = |i: usize| rows.as_ref().as_ref().map_or(Row::At(i), |rows| rows[i]);

    ui.horizontal(|ui| {
        ui.strong("Conversation");
        let plural = if at.len() == 1 { "" } else { "s" };
        ui.label(format!(
            "{} message{plural} at step {}",
            thousands(at.len() as u64),
            thousands(view.step.get())
        ));
        if num_rows > at.len() {
            ui.weak(format!(
                "({} removed by this event)",
                thousands((num_rows - at.len()) as u64)
            ));
        }
    });
    ui.separator();
    if num_rows == 0 {
        ui.weak("No messages at this step");
        return;
    }

    // When the cursor moves, bring what the event touched into view (issue
    // 13.3); again on the next frames while the rows above it are measured
    // (their heights were estimates), so it lands where it is.
    let list_id = ui.make_persistent_id("conversation");
    let step_id = list_id.with("step");
    let pending_id = list_id.with("pending");
    let key = (view.step.get(), view.generation);
    let moved = ui.ctx().data(|d| d.get_temp::<(u64, u64)>(step_id)) != Some(key);
    ui.ctx().data_mut(|d| d.insert_temp(step_id, key));
    let target = if moved {
        touched_row(view, num_rows, row).map(|row| (row, SCROLL_FRAMES))
    } else {
        ui.ctx()
            .data(|d| d.get_temp::<Option<(usize, u8)>>(pending_id))
            .flatten()
    };

    let selected = state.selected_activity();
    let doc = state.doc();
    let remeasured = virtual_rows_ui(ui, list_id, num_rows, target.map(|t| t.0), |ui, i| {
        let (message, change, input, previous) = match row(i) {
            Row::At(i) => match at.at(i) {
                Some(message) => (
                    message,
                    change_of(before, message),
                    at.from_input(message.id()),
                    i.checked_sub(1)
                        .and_then(|p| at.at(p))
                        .map(|p| at.from_input(p.id())),
                ),
                None => return,
            },
            Row::Removed(j) => match before.at(j) {
                Some(message) => (
                    message,
                    Change::Removed,
                    before.from_input(message.id()),
                    None,
                ),
                None => return,
            },
        };
        // The first message of a run input opens its group (E11).
        if let (Some(step), Some(doc)) = (input, doc)
            && previous.flatten() != Some(step)
        {
            run_input_heading_ui(ui, doc, step);
        }
        ui.push_id(message.id(), |ui| match message {
            Message::Activity(activity) => {
                let is_selected = selected == Some(activity.id.as_str());
                activity_card_ui(ui, activity, change, input, is_selected, commands);
            }
            Message::Other(other) => other_message_ui(ui, other, change, input),
        });
    });
    let pending = target
        .filter(|&(_, frames)| remeasured && frames > 1)
        .map(|(row, frames)| (row, frames - 1));
    ui.ctx().data_mut(|d| d.insert_temp(pending_id, pending));
}

/// Frames a scroll to the touched message is asked again while the rows
/// above it are measured.
const SCROLL_FRAMES: u8 = 4;

/// The line above the messages of a run input: which run they were the
/// input of (the `RUN_STARTED`'s `runId`), or the recorded request body.
fn run_input_heading_ui(ui: &mut Ui, doc: &crate::ui::Doc, step: Seq) {
    let run = doc.raw(step).and_then(|raw| match parse_event(&raw) {
        ParseOutcome::Event { event, .. } => match event.body {
            EventBody::RunStarted { run_id, .. } => Some(run_id),
            _ => None,
        },
        _ => None,
    });
    let from = match (step, run) {
        (Seq::START, _) => "the recorded request body".to_owned(),
        (_, Some(run)) => format!("run {run}, RUN_STARTED at step {}", thousands(step.get())),
        (_, None) => format!("RUN_STARTED at step {}", thousands(step.get())),
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new("Run input").strong());
        ui.weak(from);
    })
    .response
    .on_hover_text("What the agent received when the run started (E11)");
}

/// The hint shown without a document.
fn empty_hint_ui(ui: &mut Ui, state: &AppState) {
    ui.vertical_centered(|ui| {
        ui.add_space(ui.available_height() / 3.0);
        match state.loading() {
            Some(loading) => {
                ui.spinner();
                ui.label(format!("Opening {}…", loading.path.display()));
            }
            None => {
                ui.heading("No recording open");
                ui.label("File › Open… or drop a recording here");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::time_control::TimeCommand;
    use egui_kittest::Harness;

    use crate::ui::test_harness::panel_harness;
    use egui_kittest::kittest::Queryable;

    fn demo_state(step: u64) -> AppState {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        state
    }

    fn harness(state: AppState) -> Harness<'static, AppState> {
        panel_harness(conversation_ui, egui::vec2(700.0, 900.0), state)
    }

    #[test]
    fn clicking_a_card_selects_its_activity() {
        let mut harness = harness(demo_state(14));
        harness.run();
        harness.get_by_label("Activity search-1");
        harness.get_by_label("Activity plan-1").click();
        harness.run();
        assert_eq!(harness.state().selected_activity(), Some("plan-1"));
        harness.get_by_label("Activity search-1").click();
        harness.run();
        assert_eq!(harness.state().selected_activity(), Some("search-1"));
    }

    #[test]
    fn the_current_events_change_is_marked() {
        let mut harness = harness(demo_state(13));
        harness.run();
        harness.get_by_label("new");
        harness
            .state_mut()
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(14)))]);
        harness.run();
        harness.get_by_label("changed");
        assert!(harness.query_by_label("new").is_none());
    }

    #[test]
    fn messages_joined_from_the_run_input_are_marked() {
        // issue 18 (E11): RUN_STARTED.input's messages join, labelled "input".
        let path = std::env::temp_dir().join(format!(
            "agui-replay-input-label-{}.jsonl",
            std::process::id()
        ));
        let stream = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","state":{},"tools":[],"context":[],"forwardedProps":{},"messages":[{"id":"u1","role":"user","content":"hello"}]}}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ];
        std::fs::write(&path, stream.join("\n")).expect("temp file");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(3)))]);
        let _ = std::fs::remove_file(&path);
        let mut harness = harness(state);
        harness.run();
        harness.get_by_label("hello");
        assert_eq!(harness.query_all_by_label("input").count(), 1);
    }

    #[test]
    fn without_a_document_a_hint_is_shown() {
        let mut harness = harness(AppState::default());
        harness.run();
        harness.get_by_label("File › Open… or drop a recording here");
    }
}
