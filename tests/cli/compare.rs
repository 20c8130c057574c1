//! `compare A B`: two streams aligned by type, `messageId`, `toolCallId`
//! and order, their first divergence in events and in state (issue 17,
//! point 4). The pairs are the demo and crafted copies of it in
//! `tests/fixtures/compare/`, whose answers are known:
//!
//! - `retimed.jsonl`: every `timestamp` a minute later (agrees);
//! - `inserted.jsonl`: a `CUSTOM` event inserted as step 13;
//! - `fixed.jsonl`: the failing delta of step 16 fixed (it adds `/stats`
//!   instead of replacing `/stats/total`, which does not exist);
//! - `two-changes.jsonl`: the step named `planning` (steps 3 and 11, no
//!   effect on the document) and a text delta changed at step 30.

use serde_json::Value;

use crate::common::snapshot::{assert_output, run_here, transcript};
use crate::common::*;
use crate::import::import_rec;

const DEMO: &str = "recordings/demo.jsonl";

fn fixture(name: &str) -> String {
    format!("tests/fixtures/compare/{name}")
}

/// `compare A B --format json` from the checkout's folder: the exit code
/// and the JSON.
fn compare_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = run_here(&all);
    let value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{all:?}: not JSON ({e}): {}", stderr(&output)));
    (code(&output), value)
}

#[test]
fn the_same_stream_agrees_with_exit_0() {
    for b in [DEMO.to_owned(), fixture("retimed.jsonl")] {
        let (code, value) = compare_json(&[DEMO, &b]);
        assert_eq!(code, 0, "{b}: {value:#}");
        assert_eq!(value["agree"], true);
        assert_eq!(value["aligned"], 45);
        assert_eq!(value["differences"], serde_json::json!([]));
        assert_eq!(value["first_event_divergence"], Value::Null);
        assert_eq!(value["first_state_divergence"], Value::Null);
        assert_eq!(value["final_state"], Value::Null);
    }
    // The recording of the demo holds the same events as its JSON lines.
    let (code, _) = compare_json(&["recordings/demo.rec", DEMO]);
    assert_eq!(code, 0);
}

#[test]
fn an_inserted_event_is_aligned_not_a_cascade_of_differences() {
    let (code, value) = compare_json(&[DEMO, &fixture("inserted.jsonl")]);
    assert_eq!(code, 1, "{value:#}");
    assert_eq!(value["b"]["events"], 46);
    assert_eq!(value["aligned"], 45, "every event of A is aligned");
    assert_eq!(value["changed"], 0);
    assert_eq!(value["only_in_b"], 1);
    let differences = value["differences"].as_array().unwrap();
    assert_eq!(differences.len(), 1, "{differences:#?}");
    let only = &differences[0];
    assert_eq!(only["kind"], "only_in_b");
    assert_eq!(only["type"], "CUSTOM");
    assert_eq!(
        (only["a"].as_u64(), only["b"].as_u64()),
        (Some(12), Some(13))
    );
    // A custom event changes no document: the states agree all along.
    assert_eq!(value["first_state_divergence"], Value::Null);
    assert_eq!(value["state_divergences"], serde_json::json!([]));
}

#[test]
fn a_changed_delta_is_the_first_divergence_in_events_and_in_state() {
    let (code, value) = compare_json(&[DEMO, &fixture("fixed.jsonl")]);
    assert_eq!(code, 1);
    let first = &value["first_event_divergence"];
    assert_eq!(first["kind"], "changed");
    assert_eq!(
        (first["a"].as_u64(), first["b"].as_u64()),
        (Some(16), Some(16))
    );
    assert_eq!(first["messageId"], "search-1");
    assert_eq!(first["type"], "ACTIVITY_DELTA");
    let state = &value["first_state_divergence"];
    assert_eq!(
        (state["a"].as_u64(), state["b"].as_u64()),
        (Some(16), Some(16))
    );
    assert_eq!(state["messages"], serde_json::json!(["search-1"]));
    assert_eq!(state["state"], false);
    // A's delta failed (R14: the whole event is skipped), B's applied.
    assert_eq!(value["a"]["outcome"], "ok");
    assert!(
        state["patch"]
            .as_array()
            .unwrap()
            .iter()
            .any(|op| op["path"] == "/messages/search-1/content/stats"),
        "{state:#}"
    );
}

#[test]
fn the_first_state_divergence_can_come_after_the_first_event_divergence() {
    let (code, value) = compare_json(&[DEMO, &fixture("two-changes.jsonl")]);
    assert_eq!(code, 1);
    let steps = |d: &Value| (d["a"].as_u64(), d["b"].as_u64());
    let kinds: Vec<(Option<u64>, &str)> = value["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["a"].as_u64(), d["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some(3), "STEP_STARTED"),
            (Some(11), "STEP_FINISHED"),
            (Some(30), "TEXT_MESSAGE_CONTENT")
        ]
    );
    assert_eq!(steps(&value["first_event_divergence"]), (Some(3), Some(3)));
    assert_eq!(
        steps(&value["first_state_divergence"]),
        (Some(30), Some(30))
    );
    assert_eq!(
        value["first_state_divergence"]["messages"],
        serde_json::json!(["a-2"])
    );
    let spans = value["state_divergences"].as_array().unwrap();
    assert_eq!(spans.len(), 1);
    assert_eq!(spans[0]["to"]["a"], 45, "still different at the end");
}

#[test]
fn two_sessions_of_one_recording_are_compared_with_session_b() {
    let rec = import_rec(
        "compare-sessions",
        &[p(&demo()), p(&manifest_path(&fixture("fixed.jsonl")))],
    );
    let (exit, value) = compare_json(&[rec.s(), rec.s(), "--session", "1", "--session-b", "2"]);
    assert_eq!(exit, 1, "{value:#}");
    assert_eq!(value["a"]["session"], 1);
    assert_eq!(value["b"]["session"], 2);
    assert_eq!(value["first_event_divergence"]["a"], 16);
    // The same answer as the two files.
    let (_, files) = compare_json(&[DEMO, &fixture("fixed.jsonl")]);
    assert_eq!(value["differences"], files["differences"]);
    assert_eq!(value["state_divergences"], files["state_divergences"]);
    // One session with itself agrees; without --session it is ambiguous.
    let (same, _) = compare_json(&[rec.s(), rec.s(), "--session", "2"]);
    assert_eq!(same, 0);
    let output = run(&["compare", rec.s(), rec.s()]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
}

#[test]
fn bad_usage_exits_2() {
    for args in [
        vec!["compare", DEMO],
        vec!["compare", "-", "-"],
        vec!["compare", DEMO, "tests/fixtures/compare/no-such-file.jsonl"],
        vec!["compare", DEMO, DEMO, "--format", "yaml"],
    ] {
        let output = run_here(&args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        assert!(!stderr(&output).is_empty(), "{args:?} says why");
    }
}

#[test]
fn compare_json_snapshot() {
    let fixed = fixture("fixed.jsonl");
    assert_output!(
        "fixed_json",
        transcript(&["compare", DEMO, &fixed, "--format", "json"])
    );
}

#[test]
fn compare_text_snapshot() {
    let inserted = fixture("inserted.jsonl");
    assert_output!("inserted_text", transcript(&["compare", DEMO, &inserted]));
    let two = fixture("two-changes.jsonl");
    assert_output!("two_changes_text", transcript(&["compare", DEMO, &two]));
}
