//! The table of actions, driven (issue 43, points 1 and 2): the command
//! palette, ↑/↓ through the event list, Ctrl+F into its filter.

use agui_replay::app_model::actions::ACTIONS;
use agui_replay::app_model::command::Command;
use agui_replay::app_model::state::EventFilter;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::event_list::filter_text_id;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::demo;
use crate::panel::{harness, settle, step};

/// The demo as JSON lines: its bookmarks stay in memory, so a key that
/// adds one writes no file.
fn demo_harness() -> Harness<'static, ReplayApp> {
    harness(ReplayApp::with_file(&demo()))
}

fn press(harness: &mut Harness<'static, ReplayApp>, modifiers: Modifiers, key: Key) {
    harness.key_press_modifiers(modifiers, key);
    settle(harness);
}

fn focused(harness: &Harness<'static, ReplayApp>) -> Option<egui::Id> {
    harness.ctx.memory(|memory| memory.focused())
}

#[test]
fn ctrl_k_opens_the_palette_with_every_action_and_its_keys() {
    let mut harness = demo_harness();
    assert!(harness.query_by_label("Command palette").is_none());
    press(&mut harness, Modifiers::COMMAND, Key::K);
    assert!(harness.state().palette.open);
    for action in ACTIONS {
        assert!(
            harness.query_all_by_label(action.name).next().is_some(),
            "{} is not in the palette",
            action.name
        );
        if !action.triggers.is_empty() {
            assert!(
                harness
                    .query_all_by_label(&action.triggers_label())
                    .next()
                    .is_some(),
                "{}: {} is not in the palette",
                action.name,
                action.triggers_label()
            );
        }
    }
    // Esc closes it (the field has the keyboard: the modal closes).
    press(&mut harness, Modifiers::NONE, Key::Escape);
    assert!(!harness.state().palette.open);
    // Ctrl+Shift+P opens it too.
    press(&mut harness, Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    assert!(harness.state().palette.open);
}

#[test]
fn the_palette_filters_moves_with_the_arrows_and_runs_the_selected_action_on_enter() {
    let mut harness = demo_harness();
    assert_eq!(step(&harness), 1);
    press(&mut harness, Modifiers::COMMAND, Key::K);
    harness.event(egui::Event::Text("step".to_owned()));
    settle(&mut harness);
    assert_eq!(harness.state().palette.filter, "step");
    // "Next step", "Previous step", "First step", "Last step", "Diff with
    // previous step": ↓ selects the second, typed ↓ does not step.
    let names: Vec<_> = harness
        .state()
        .palette
        .matches()
        .iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names[..2], ["Next step", "Previous step"]);
    assert!(harness.query_by_label("Open…").is_none(), "filtered out");
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    press(&mut harness, Modifiers::NONE, Key::ArrowUp);
    assert_eq!(harness.state().palette.selected, 1);
    assert_eq!(step(&harness), 1, "the arrows moved the palette's row only");
    harness.key_press(Key::Enter);
    settle(&mut harness);
    assert!(!harness.state().palette.open, "Enter runs and closes");
    // Previous step from step 1: step 0.
    assert_eq!(step(&harness), 0);
}

#[test]
fn a_click_in_the_palette_runs_that_action() {
    let mut harness = demo_harness();
    press(&mut harness, Modifiers::COMMAND, Key::K);
    harness.event(egui::Event::Text("about".to_owned()));
    settle(&mut harness);
    harness.get_by_label("About agui-replay").click();
    settle(&mut harness);
    assert!(!harness.state().palette.open);
    assert!(harness.state().show_about);
    harness.get_by_label_contains(env!("CARGO_PKG_VERSION"));
    harness.get_by_label("docs/app.md");
}

// Issue 43, point 2: ↑/↓ walk the event list as filtered, like the
// browser's network panel.
#[test]
fn up_and_down_walk_the_filtered_event_list() {
    let mut harness = demo_harness();
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(step(&harness), 2);
    press(&mut harness, Modifiers::NONE, Key::ArrowUp);
    assert_eq!(step(&harness), 1);
    harness
        .state_mut()
        .state
        .apply(vec![Command::SetEventFilter(EventFilter {
            text: "ACTIVITY_DELTA".to_owned(),
            ..EventFilter::default()
        })]);
    settle(&mut harness);
    let rows = harness.state().state.event_rows().to_vec();
    assert!(rows.len() >= 3 && rows[0].get() > 2, "{rows:?}");
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(step(&harness), rows[0].get());
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(step(&harness), rows[1].get());
    press(&mut harness, Modifiers::NONE, Key::ArrowUp);
    assert_eq!(step(&harness), rows[0].get());
    // Before the first row, ↑ stays.
    press(&mut harness, Modifiers::NONE, Key::ArrowUp);
    assert_eq!(step(&harness), rows[0].get());
}

// Issue 43, point 2: Ctrl+F gives the event filter the keyboard, and ↑/↓
// typed there move the text cursor, not the timeline's.
#[test]
fn ctrl_f_focuses_the_event_filter_and_arrows_typed_there_do_not_step() {
    let mut harness = demo_harness();
    assert_ne!(focused(&harness), Some(filter_text_id()));
    press(&mut harness, Modifiers::COMMAND, Key::F);
    assert_eq!(focused(&harness), Some(filter_text_id()));
    let before = step(&harness);
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    press(&mut harness, Modifiers::NONE, Key::ArrowUp);
    press(&mut harness, Modifiers::NONE, Key::ArrowRight);
    assert_eq!(step(&harness), before, "the arrows stayed in the field");
    harness.event(egui::Event::Text("TOOL_CALL".to_owned()));
    settle(&mut harness);
    assert_eq!(harness.state().state.event_filter().text, "TOOL_CALL");
    // Esc leaves the field; ↓ steps again.
    press(&mut harness, Modifiers::NONE, Key::Escape);
    assert_ne!(focused(&harness), Some(filter_text_id()));
    let rows = harness.state().state.event_rows().to_vec();
    press(&mut harness, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(
        Some(step(&harness)),
        rows.iter().map(|r| r.get()).find(|&r| r > before)
    );
}

// Issue 43, point 4: `d` kept the last scope, so with "the state" chosen it
// said "no difference" on an ACTIVITY_DELTA; it compares what the event
// changes.
#[test]
fn d_compares_what_the_current_event_changes() {
    use agui_replay::app_model::command::{CentralTab, DiffScopeChoice};
    use agui_replay::app_model::time_control::TimeCommand;
    let mut harness = demo_harness();
    harness.state_mut().state.apply(vec![
        Command::SetDiffScope(DiffScopeChoice::State),
        // An ACTIVITY_DELTA of search-1.
        Command::Time(TimeCommand::Set(agui_replay::Seq::new(14))),
    ]);
    settle(&mut harness);
    press(&mut harness, Modifiers::NONE, Key::D);
    let state = &harness.state().state;
    assert_eq!(state.central_tab(), CentralTab::Diff);
    assert_eq!(state.diff_scope_choice(), DiffScopeChoice::Activity);
    assert!(
        harness
            .query_all_by_label_contains("no difference")
            .next()
            .is_none()
    );
    // A STATE_DELTA: the state.
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(
            agui_replay::Seq::new(20),
        ))]);
    settle(&mut harness);
    press(&mut harness, Modifiers::NONE, Key::D);
    assert_eq!(
        harness.state().state.diff_scope_choice(),
        DiffScopeChoice::State
    );
}
