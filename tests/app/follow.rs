//! The app follows the user (issue 13, points 1 to 3), driven headless with
//! egui_kittest: the inspector shows what the event at the cursor names
//! unless a message is pinned, and the diff's "the activity" compares the
//! same; the State tab shows the shared state with the current delta's
//! changes; the conversation scrolls to the message the event changed and
//! heads each run input's messages.

use agui_replay::app_model::command::Command;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::diff::DiffScope;
use agui_replay::ui::{ReplayApp, RightTab};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::{TempPath, demo};
use crate::panel::harness;

/// The demo (its `.jsonl` copy: nothing writes to it) at step 1.
fn demo_harness() -> Harness<'static, ReplayApp> {
    let harness = harness(ReplayApp::with_file(&demo()));
    assert!(harness.state().state.error().is_none());
    harness
}

fn go_to(harness: &mut Harness<'static, ReplayApp>, step: u64) {
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
    harness.run();
}

fn press(harness: &mut Harness<'static, ReplayApp>, key: egui::Key) {
    harness.key_press(key);
    harness.run();
}

/// Checks the inspector's header names `id`, and only it (its heading is
/// labelled "Inspecting ID").
#[track_caller]
fn assert_inspecting(harness: &Harness<'static, ReplayApp>, id: &str) {
    harness.get_by_label(&format!("Inspecting {id}"));
    assert_eq!(
        harness.query_all_by_label_contains("Inspecting ").count(),
        1,
        "one message inspected"
    );
}

// ------------------------------------------------- 13.1 the inspector follows

/// Issue 13.1: at step 16 (the failed patch of search-1) the inspector
/// shows search-1, not the first activity; at step 1 it shows what
/// RUN_STARTED brought (the user's prompt, E11), not "plan-1 does not exist
/// at this step".
#[test]
fn the_inspector_follows_the_activity_the_current_event_names() {
    let mut harness = demo_harness();
    assert_inspecting(&harness, "u-1");
    assert!(
        harness
            .query_by_label("does not exist at this step")
            .is_none()
    );
    harness.get_by_label("named by the current event");
    go_to(&mut harness, 16);
    assert_inspecting(&harness, "search-1");
    harness.get_by_label("patch failed, delta skipped (R14)");
    harness.get_by_label("Patch of search-1");
    // A text message is shown too: the tool call's arguments name the
    // assistant message holding the call.
    go_to(&mut harness, 23);
    assert_inspecting(&harness, "a-1");
    harness.get_by_label("changed by this event");
}

/// Issue 13.1: an event that names nothing (a STATE_DELTA) keeps the last
/// one named, and says so.
#[test]
fn an_event_naming_no_message_keeps_the_last_one_and_says_so() {
    let mut harness = demo_harness();
    go_to(&mut harness, 45);
    go_to(&mut harness, 20);
    assert_inspecting(&harness, "search-1");
    harness.get_by_label("step 20 names no message: the last one named, at step 19");
}

/// Issue 13.1: the pin keeps a message whatever the cursor does; unpinned,
/// the inspector follows again.
#[test]
fn a_pinned_activity_stays_as_the_cursor_moves() {
    let mut harness = demo_harness();
    go_to(&mut harness, 4);
    assert_inspecting(&harness, "plan-1");
    harness.get_by_label("Pin the inspected message").click();
    harness.run();
    assert_eq!(harness.state().state.inspected().pinned(), Some("plan-1"));
    go_to(&mut harness, 16);
    assert_inspecting(&harness, "plan-1");
    harness.get_by_label("pinned; the current event names search-1");
    harness.get_by_label("Pin the inspected message").click();
    harness.run();
    assert_eq!(harness.state().state.inspected().pinned(), None);
    assert_inspecting(&harness, "search-1");
}

/// Issue 13.1: A and B around search-1's events compare search-1 (the
/// activity the inspector follows), and a pinned plan-1 makes the diff
/// compare plan-1.
#[test]
fn the_diff_compares_the_activity_the_inspector_shows() {
    let mut harness = demo_harness();
    go_to(&mut harness, 14);
    press(&mut harness, egui::Key::A);
    go_to(&mut harness, 19);
    press(&mut harness, egui::Key::B);
    let compared = |harness: &Harness<'static, ReplayApp>| {
        harness
            .state()
            .state
            .comparison()
            .map(|view| view.key.clone())
    };
    assert_eq!(
        compared(&harness),
        Some((
            Seq::new(14),
            Seq::new(19),
            DiffScope::Message("search-1".into())
        ))
    );
    harness
        .state_mut()
        .state
        .apply(vec![Command::SelectActivity(Some("plan-1".into()))]);
    harness.run();
    assert_eq!(
        compared(&harness),
        Some((
            Seq::new(14),
            Seq::new(19),
            DiffScope::Message("plan-1".into())
        ))
    );
}

// ------------------------------------------------------ 13.2 the State tab

/// Issue 13.2: `s` shows the State tab: the shared state at the cursor,
/// with the STATE_DELTA's replaced budget shown with its old value and the
/// count of changed paths; `i` goes back to the inspector.
#[test]
fn the_state_tab_shows_the_state_with_the_deltas_changes() {
    let mut harness = demo_harness();
    go_to(&mut harness, 20);
    press(&mut harness, egui::Key::S);
    assert_eq!(harness.state().right_tab, RightTab::State);
    harness.get_by_label(
        "STATE_DELTA at step 20: 2 operations applied, 2 paths changed (highlighted)",
    );
    harness.get_by_label("budget:");
    harness.get_by_label("739");
    harness.get_by_label("was 800");
    harness.get_by_label(r#""flights""#);
    // One step on, nothing changed: no old value shown.
    go_to(&mut harness, 21);
    harness.get_by_label("STEP_FINISHED at step 21 leaves the state as it was");
    assert!(harness.query_by_label("was 800").is_none());
    press(&mut harness, egui::Key::I);
    assert_eq!(harness.state().right_tab, RightTab::Inspector);
}

// --------------------------------------------- 13.3 the conversation scrolls

/// The rect of the conversation's list: below its header, above the
/// timeline's toolbar.
fn list_y_range(harness: &Harness<'static, ReplayApp>) -> (f32, f32) {
    let top = harness
        .get_by_label_contains("messages at step")
        .rect()
        .bottom();
    let bottom = harness.get_by_label("Zoom in").rect().top();
    (top, bottom)
}

fn shown_in_list(harness: &Harness<'static, ReplayApp>, label: &str) -> bool {
    let (top, bottom) = list_y_range(harness);
    harness
        .query_all_by_label(label)
        .any(|node| node.rect().top() >= top - 1.0 && node.rect().bottom() <= bottom + 1.0)
}

/// Issue 13.3: stepping to an event scrolls the conversation to the message
/// it changed: from the end (a-3 in view, plan-1 scrolled away) to plan-1's
/// delta, then to the tool call's arguments (a-1).
#[test]
fn the_conversation_scrolls_to_the_message_the_event_changed() {
    let mut harness = demo_harness();
    go_to(&mut harness, 42);
    assert!(shown_in_list(&harness, "a-3"), "a-3 scrolled into view");
    assert!(
        !shown_in_list(&harness, "Activity plan-1"),
        "the demo's conversation is taller than the window at step 42"
    );
    go_to(&mut harness, 40);
    assert!(shown_in_list(&harness, "Activity plan-1"));
    go_to(&mut harness, 42);
    go_to(&mut harness, 23);
    assert!(shown_in_list(&harness, "→ book_flight"));
    assert!(shown_in_list(&harness, "a-1"));
}

/// Issue 13.3 (E11): the messages a run input added head their run, under
/// a "Run input" line naming the run, each marked "input"; a message the
/// conversation held already is not repeated.
#[test]
fn run_input_messages_head_their_run_marked_as_input() {
    let stream = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1","input":{"threadId":"t","runId":"r1","state":{},"tools":[],"context":[],"forwardedProps":{},"messages":[{"id":"u1","role":"user","content":"first question"}]}}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"first answer"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r2","input":{"threadId":"t","runId":"r2","state":{},"tools":[],"context":[],"forwardedProps":{},"messages":[{"id":"u1","role":"user","content":"first question"},{"id":"m1","role":"assistant","content":"first answer"},{"id":"u2","role":"user","content":"second question"}]}}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"second answer"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}"#,
    ];
    let file = TempPath::with_bytes(
        "follow-input",
        "two-runs.jsonl",
        stream.join("\n").as_bytes(),
    );
    let mut harness = harness(ReplayApp::with_file(file.path()));
    go_to(&mut harness, 10);
    let y = |label: &str| harness.get_by_label(label).rect().top();
    harness.get_by_label("run r1, RUN_STARTED at step 1");
    harness.get_by_label("run r2, RUN_STARTED at step 6");
    assert_eq!(harness.query_all_by_label("Run input").count(), 2);
    assert_eq!(harness.query_all_by_label("input").count(), 2, "u1 and u2");
    // In the order of the runs, each input under its heading.
    let order = [
        y("run r1, RUN_STARTED at step 1"),
        y("first question"),
        y("first answer"),
        y("run r2, RUN_STARTED at step 6"),
        y("second question"),
        y("second answer"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // The inspector says where an input message came from.
    go_to(&mut harness, 6);
    assert_inspecting(&harness, "u2");
    harness.get_by_label("joined from the input of RUN_STARTED at step 6 (E11)");
}
