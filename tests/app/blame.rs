//! Issue 17: blame on hover of a value in the inspector, the state view
//! and the Diff view ("set at step 3 by op 1 of ACTIVITY_DELTA; 2
//! changes"), a click on the value going to that step; and drift marked in
//! the inspector.

use agui_replay::Seq;
use agui_replay::app_model::command::CentralTab;
use agui_replay::app_model::command::Command;
use agui_replay::app_model::command::MarkCommand;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diff::DiffScope;
use agui_replay::ui::{ReplayApp, RightTab};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::json;

use crate::common::TempPath;
use crate::panel::{harness, step, wait_for_loading};

/// Activity `a1`'s `/status` is set at 2, then by op 1 of the delta at 3
/// (op 0 sets `/n`); the delta at 4 leaves it. The state's `/phase` is set at 5,
/// by op 0 of the delta at 6. The snapshot at 7 says `/n` is 9 where the
/// deltas built 2, none failing: an unexplained drift.
fn stream() -> TempPath {
    TempPath::jsonl(
        "appblame",
        "blame.jsonl",
        &[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
                   "content": {"status": "queued-up", "n": 0}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan",
                   "patch": [{"op": "replace", "path": "/n", "value": 1},
                             {"op": "replace", "path": "/status", "value": "running-now"}]}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan",
                   "patch": [{"op": "replace", "path": "/n", "value": 2}]}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"phase": "alpha-phase"}}),
            json!({"type": "STATE_DELTA",
                   "delta": [{"op": "replace", "path": "/phase", "value": "beta-phase"}]}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
                   "content": {"status": "running-now", "n": 9}}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ],
    )
}

fn open_at(file: &TempPath, at: u64) -> Harness<'static, ReplayApp> {
    let mut harness = harness(ReplayApp::with_file(file.path()));
    wait_for_loading(&mut harness);
    harness.state_mut().state.apply(vec![
        Command::SelectActivity(Some("a1".into())),
        Command::Time(TimeCommand::Set(Seq::new(at))),
    ]);
    harness.run();
    harness
}

/// Hovers the value labelled `value` and returns whether `hint` showed.
fn hover_shows(harness: &mut Harness<'static, ReplayApp>, value: &str, hint: &str) -> bool {
    harness.get_by_label(value).hover();
    for _ in 0..60 {
        harness.step();
        if harness.query_by_label_contains(hint).is_some() {
            return true;
        }
    }
    false
}

#[test]
fn hovering_an_activity_value_says_which_op_set_it_and_a_click_goes_there() {
    let file = stream();
    let mut harness = open_at(&file, 4);
    harness.state_mut().right_tab = RightTab::Inspector;
    harness.run();
    assert!(
        hover_shows(
            &mut harness,
            "\"running-now\"",
            "set at step 3 by op 1 of ACTIVITY_DELTA; 2 changes"
        ),
        "no blame tooltip on the activity's value"
    );
    harness.get_by_label_contains("Click to go to step 3");
    harness.get_by_label("\"running-now\"").click();
    harness.run();
    assert_eq!(step(&harness), 3, "the click goes to the step that set it");
}

#[test]
fn hovering_a_state_value_says_which_delta_set_it() {
    let file = stream();
    let mut harness = open_at(&file, 8);
    harness.state_mut().right_tab = RightTab::State;
    harness.run();
    assert!(
        hover_shows(
            &mut harness,
            "\"beta-phase\"",
            "set at step 6 by op 0 of STATE_DELTA; 2 changes"
        ),
        "no blame tooltip on the state's value"
    );
    harness.get_by_label("\"beta-phase\"").click();
    harness.run();
    assert_eq!(step(&harness), 6);
}

/// Issue 17.2: each side of the Diff view has blame at its own step: B's
/// value (step 4) was set at step 3, and a click there goes to it.
#[test]
fn hovering_a_value_in_the_diff_view_says_which_op_set_it() {
    let file = stream();
    let mut harness = open_at(&file, 4);
    // Not the inspector: it would show the same value a second time.
    harness.state_mut().right_tab = RightTab::Diagnostics;
    harness
        .state_mut()
        .state
        .apply(vec![Command::Mark(MarkCommand::SetBoth(
            Seq::new(2),
            Seq::new(4),
        ))]);
    harness.run();
    let state = &harness.state().state;
    assert_eq!(state.central_tab(), CentralTab::Diff);
    let view = state.comparison().expect("a comparison");
    assert_eq!(view.comparison.scope, DiffScope::Message("a1".into()));
    assert_eq!(
        (view.comparison.from, view.comparison.to),
        (Seq::new(2), Seq::new(4))
    );
    assert!(
        hover_shows(
            &mut harness,
            "\"running-now\"",
            "set at step 3 by op 1 of ACTIVITY_DELTA; 2 changes"
        ),
        "no blame tooltip on B's value in the Diff view"
    );
    // The value, then the tooltip below it, which shows it again.
    harness
        .query_all_by_label("\"running-now\"")
        .next()
        .expect("B's value")
        .click();
    harness.run();
    assert_eq!(step(&harness), 3, "the click goes to the step that set it");
}

#[test]
fn the_inspector_names_an_unexplained_drift_and_its_paths() {
    let file = stream();
    let mut harness = open_at(&file, 7);
    harness.state_mut().right_tab = RightTab::Inspector;
    harness.run();
    harness.get_by_label("Unexplained drift");
    harness.get_by_label("replace /content/n");
    // Not at the step before: no drift there.
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(6)))]);
    harness.run();
    assert!(harness.query_by_label("Unexplained drift").is_none());
}

#[test]
fn the_inspector_names_a_change_without_a_delta_apart_from_an_unexplained_drift() {
    // Issue 39: the delta set `/n`; the snapshot also adds `/extra`, which
    // no delta set: two boxes, each with its own paths.
    let file = TempPath::jsonl(
        "appblame",
        "unstreamed.jsonl",
        &[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
                   "content": {"n": 0}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan",
                   "patch": [{"op": "replace", "path": "/n", "value": 1}]}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
                   "content": {"n": 9, "extra": true}}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ],
    );
    let mut harness = open_at(&file, 4);
    harness.state_mut().right_tab = RightTab::Inspector;
    harness.run();
    harness.get_by_label("Unexplained drift");
    harness.get_by_label("replace /content/n");
    harness.get_by_label("Changed without a delta");
    harness.get_by_label("add /content/extra");
}
