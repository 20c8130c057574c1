//! Counts in the app are grouped by thousands (issue 13, point 12, the
//! leftover): the time control's "of N", the step field, the event list's
//! filter count, the diagnostics' count, as `ui::words::thousands` writes
//! them.

use agui_replay::Seq;
use agui_replay::app_model::command::Command;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::ui::ReplayApp;
use egui_kittest::kittest::Queryable;

use crate::common::TempPath;
use crate::panel::{harness, wait_for_loading};

/// A stream of `n` events: a run with one message of `n - 4` deltas.
fn long_stream(n: usize) -> Vec<u8> {
    let mut lines = vec![
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned(),
    ];
    for i in 0..n - 4 {
        lines.push(format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{i} "}}"#
        ));
    }
    lines.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#.to_owned());
    lines.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned());
    lines.join("\n").into_bytes()
}

#[test]
fn the_time_control_groups_the_step_count_by_thousands() {
    let file = TempPath::with_bytes("counts", "long.jsonl", &long_stream(12_345));
    let mut harness = harness(ReplayApp::with_file(file.path()));
    wait_for_loading(&mut harness);
    assert_eq!(
        harness.state().state.doc().map(|d| d.num_events()),
        Some(12_345)
    );
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(10_001)))]);
    harness.run();
    // Before issue 13's leftover: "of 12345" and a field showing 10001.
    assert!(harness.query_by_label("of 12345").is_none());
    harness.get_by_label("of 12,345");
    harness.get_by_value("10,001");
    harness.get_by_label("12,345 of 12,345");
}
