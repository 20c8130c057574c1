//! `-` reads the stream from standard input (JSON lines or an SSE body).

use serde_json::json;

use crate::common::events::*;
use crate::common::*;

// ---------------------------------------------------------------- stdin

#[test]
fn dash_reads_jsonl_from_standard_input() {
    let events = [
        run_started(),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a-1", "activityType": "t",
               "content": {"n": 1}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a-1", "activityType": "t",
               "patch": [{"op": "replace", "path": "/n", "value": 2}]}),
        run_finished(),
    ];
    let output = run_with_stdin(
        &["check", "-", "--format", "json"],
        Some(jsonl(&events).as_bytes()),
    );
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["events"], 4);
    assert_eq!(report["outcome"], "ok");
    assert_eq!(report["diagnostics"], json!([]));
    let activity = message_by_id(&report["messages"], "a-1").expect("a-1");
    assert_eq!(activity["content"], json!({"n": 2}));

    // And `state -` too.
    let output = run_with_stdin(
        &["state", "-", "--at", "2", "--message", "a-1"],
        Some(jsonl(&events).as_bytes()),
    );
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output)["content"], json!({"n": 1}));
}

#[test]
fn dash_reads_an_sse_body_from_standard_input() {
    let sample_bytes = std::fs::read(sample()).expect("sample");
    let output = run_with_stdin(&["check", "-", "--format", "json"], Some(&sample_bytes));
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["events"], 13);
    assert_eq!(report["outcome"], "ok");
    assert_eq!(
        seq_codes(&report),
        [
            (6, "activity.patch.failed".to_owned()),
            (7, "activity.delta.unknown-target".to_owned())
        ]
    );

    let events = [
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"k": "v"}}),
        run_finished(),
    ];
    let output = run_with_stdin(
        &["check", "-", "--format", "json"],
        Some(sse(&events).as_bytes()),
    );
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["events"], 3);
    assert_eq!(report["state"], json!({"k": "v"}));
}

#[test]
fn dash_with_empty_standard_input_is_exit_2() {
    let output = run_with_stdin(&["check", "-"], Some(b""));
    assert_eq!(code(&output), 2);
    assert!(!stderr(&output).is_empty());
}
