//! Small streams written in tests: JSON lines, SSE bodies, the events every
//! run starts and ends with.

use serde_json::{Value, json};

/// `events` as JSON lines.
pub fn jsonl(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

/// `events` as an SSE body, one `data:` frame each.
pub fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// `RUN_STARTED` of thread `t1`, run `r1`.
pub fn run_started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"})
}

/// `RUN_FINISHED` of thread `t1`, run `r1`.
pub fn run_finished() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"})
}

/// `(seq, code)` of every diagnostic of a `check --format json` report.
pub fn seq_codes(report: &Value) -> Vec<(u64, String)> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics is an array")
        .iter()
        .map(|d| {
            (
                d["seq"].as_u64().expect("seq is a number"),
                d["code"].as_str().expect("code is a string").to_owned(),
            )
        })
        .collect()
}

/// The code of every diagnostic of a `check --format json` report.
pub fn codes(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect()
}

/// The diagnostics of a report with `code`.
pub fn diagnostics_with_code<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics is an array")
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

/// The message `id` of a `messages` array.
pub fn message_by_id<'a>(messages: &'a Value, id: &str) -> Option<&'a Value> {
    messages
        .as_array()
        .expect("messages is an array")
        .iter()
        .find(|m| m["id"] == id)
}

/// Replays `events` (each serialised to its JSON text) under `options` and
/// runs the end-of-stream checks.
pub fn replay_with(options: agui_replay::Options, events: &[Value]) -> agui_replay::Replayer {
    let mut replayer = agui_replay::Replayer::new(options);
    for event in events {
        replayer.apply_bytes(event.to_string().as_bytes());
    }
    replayer.finish();
    replayer
}
