//! `timing`: the figures per run and the stalls on crafted streams whose
//! timings are known, and `stream.stall` in `check` (T1, issue 17.3).

use std::path::Path;

use agui_replay::store::{Arrival, NewSession, RecordingWriter, SessionStatus};
use serde_json::{Value, json};

use crate::common::events::diagnostics_with_code;
use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

const MS: u64 = 1_000_000;

/// One run, times in ms from `timestamp`: RUN_STARTED at 1000, an activity
/// at 1250, a tool call 1500–2000 with its result at 5500 (a 3.5 s gap,
/// a stall), text content at 5600, RUN_FINISHED at 6000.
fn timed_events() -> Vec<Value> {
    vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r-1", "timestamp": 1000}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "plan", "activityType": "plan",
               "content": {"steps": []}, "timestamp": 1250}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c-1", "toolCallName": "search",
               "timestamp": 1500}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c-1", "delta": "{}", "timestamp": 1700}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c-1", "timestamp": 2000}),
        json!({"type": "TOOL_CALL_RESULT", "toolCallId": "c-1", "messageId": "tool-1",
               "content": "found", "timestamp": 5500}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m-1", "role": "assistant",
               "timestamp": 5550}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-1", "delta": "Done",
               "timestamp": 5600}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m-1", "timestamp": 5700}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r-1", "timestamp": 6000}),
    ]
}

fn timing_json(args: &[&str]) -> Value {
    let mut all = vec!["timing"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = run(&all);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    json_out(&output)
}

#[test]
fn timing_figures_of_a_timed_stream_are_those_its_timestamps_give() {
    let file = TempPath::jsonl("timing-figures", "timed.jsonl", &timed_events());
    let report = timing_json(&[file.s()]);
    assert_eq!(report["times"], "timestamps");
    assert_eq!(report["startsAtRequest"], false);
    assert_eq!(report["numInventedTimes"], 0);
    assert_eq!(report["durationNanos"], 5000 * MS);
    let run = &report["runs"][0];
    assert_eq!(run["runId"], "r-1");
    assert_eq!(run["toFirstEventNanos"], 0);
    assert_eq!(run["toFirstActivity"]["nanos"], 250 * MS);
    assert_eq!(run["toFirstActivity"]["seq"], 2);
    assert_eq!(run["toFirstText"]["nanos"], 4600 * MS);
    assert_eq!(run["toFirstText"]["seq"], 8);
    assert_eq!(run["longestGap"]["nanos"], 3500 * MS);
    assert_eq!(
        (&run["longestGap"]["afterSeq"], &run["longestGap"]["seq"]),
        (&json!(5), &json!(6))
    );
    let tool = &run["toolCalls"][0];
    assert_eq!(tool["name"], "search");
    assert_eq!(tool["durationNanos"], 500 * MS);
    assert_eq!(tool["toResultNanos"], 4000 * MS);
    // 10 events in 5 s.
    assert_eq!(run["eventsPerSecond"], 2.0);
    assert_eq!(
        report["stalls"],
        json!([{"seq": 6, "afterSeq": 5, "gapNanos": 3500 * MS}])
    );
    // The waterfall: the run, the tool call, the message, the activity.
    let kinds: Vec<&str> = report["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .map(|s| s["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["run", "activity", "tool-call", "message"]);
}

#[test]
fn timing_snapshots_of_a_crafted_stream() {
    // Issue 17.3: the JSON and the text, reviewed as snapshots.
    let dir = manifest_path("target/timing-snapshot");
    std::fs::create_dir_all(&dir).expect("creates");
    let path = dir.join("timed.jsonl");
    std::fs::write(&path, crate::common::events::jsonl(&timed_events())).expect("writes");
    let relative = "target/timing-snapshot/timed.jsonl";
    assert_output!(
        "timed_json",
        transcript(&["timing", relative, "--format", "json"])
    );
    assert_output!("timed_text", transcript(&["timing", relative]));
    assert_output!(
        "timed_text_stall_after_200ms",
        transcript(&["timing", relative, "--stall-after", "200ms"])
    );
}

#[test]
fn the_stall_threshold_is_settable_on_timing_and_check() {
    let file = TempPath::jsonl("timing-threshold", "timed.jsonl", &timed_events());
    let stalls = |after: &str| timing_json(&[file.s(), "--stall-after", after])["stalls"].clone();
    assert_eq!(stalls("4s"), json!([]));
    assert_eq!(
        stalls("3500ms"),
        json!([]),
        "a stall is longer than the threshold"
    );
    assert_eq!(stalls("3.4s").as_array().map(Vec::len), Some(1));
    // 1 s: the tool result's 3.5 s wait only; 200 ms: also the two 250 ms
    // and the two 300 ms gaps (not the one of exactly 200 ms).
    assert_eq!(stalls("1s").as_array().map(Vec::len), Some(1));
    assert_eq!(stalls("200ms").as_array().map(Vec::len), Some(5));

    let (output, report) = check_json(&[file.s()]);
    assert_eq!(code(&output), 0);
    let found = diagnostics_with_code(&report, "stream.stall");
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0]["seq"], 6);
    assert_eq!(found[0]["severity"], "info");
    assert_eq!(
        found[0]["message"],
        "no event for 3.5 s after seq 5 (more than 2 s): the stream stalled"
    );
    let (_, report) = check_json(&[file.s(), "--stall-after", "10s"]);
    assert!(diagnostics_with_code(&report, "stream.stall").is_empty());
    // The text report counts it among the infos.
    let text = stdout(&run(&["check", file.s()]));
    assert!(text.contains("stream.stall"), "{text}");
    assert!(text.trim_end().ends_with("1 info"), "{text}");
}

#[test]
fn bad_stall_thresholds_are_usage_errors() {
    let file = TempPath::jsonl("timing-bad", "timed.jsonl", &timed_events());
    for command in ["timing", "check"] {
        let output = run(&[command, file.s(), "--stall-after", "soon"]);
        assert_eq!(code(&output), 2, "{command}");
        assert!(
            stderr(&output).contains("not a duration"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn invented_times_are_marked_and_never_stall() {
    // T1: no timestamp, so the times are invented (100 ms apart): marked,
    // and no stall even at a threshold of zero.
    let events: Vec<Value> = timed_events()
        .into_iter()
        .map(|mut e| {
            e.as_object_mut().expect("object").remove("timestamp");
            e
        })
        .collect();
    let file = TempPath::jsonl("timing-invented", "untimed.jsonl", &events);
    let report = timing_json(&[file.s(), "--stall-after", "0s"]);
    assert_eq!(report["times"], "invented");
    assert_eq!(report["numInventedTimes"], 10);
    assert_eq!(report["stalls"], json!([]));
    assert_eq!(report["runs"][0]["toFirstText"]["invented"], true);
    assert!(
        report["spans"]
            .as_array()
            .expect("spans")
            .iter()
            .all(|s| s["invented"] == true)
    );
    let text = stdout(&run(&["timing", file.s()]));
    assert!(text.contains("invented times"), "{text}");
    assert!(text.contains("~700 ms (invented)"), "{text}");
    let (_, report) = check_json(&[file.s(), "--stall-after", "0s"]);
    assert!(diagnostics_with_code(&report, "stream.stall").is_empty());
}

#[test]
fn no_conformance_vector_stalls_even_at_a_zero_threshold() {
    // T1: the vectors' events carry no timestamp; their times are
    // invented, so the vectors' expected diagnostics stay as they are.
    for path in vector_paths() {
        let (_, report) = check_json(&[p(&path), "--stall-after", "0s"]);
        assert!(
            diagnostics_with_code(&report, "stream.stall").is_empty(),
            "{}",
            path.display()
        );
    }
}

/// A recording made live: its events arrived at `arrivals_ms` (from the
/// request), with no timestamps.
fn live_recording(path: &Path, arrivals_ms: &[u64]) {
    let mut writer = RecordingWriter::create(path, false).expect("creates");
    writer
        .begin_session(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            ..NewSession::default()
        })
        .expect("begins");
    let mut events = timed_events();
    for (event, ms) in events.iter_mut().zip(arrivals_ms) {
        event.as_object_mut().expect("object").remove("timestamp");
        let raw = serde_json::to_vec(event).expect("serializes");
        writer.append(&raw, Arrival::at(ms * MS)).expect("appends");
    }
    writer.end_session(SessionStatus::Complete).expect("ends");
    writer.finish().expect("finishes");
}

#[test]
fn a_live_recordings_arrival_times_count_from_the_request() {
    let dir = TempDir::new("timing-live");
    let path = dir.path().join("live.rec");
    // The first event 800 ms after the request, a 2.5 s wait before seq 4.
    live_recording(
        &path,
        &[800, 900, 1000, 3500, 3600, 3700, 3800, 3900, 4000, 4100],
    );
    let report = timing_json(&[path.to_str().expect("utf-8")]);
    assert_eq!(report["times"], "recorded");
    assert_eq!(report["startsAtRequest"], true);
    let run = &report["runs"][0];
    assert_eq!(run["toFirstEventNanos"], 800 * MS);
    assert_eq!(run["toFirstText"]["nanos"], 3900 * MS);
    assert_eq!(run["toFirstText"]["invented"], false);
    // Seq 3 at 1000 ms to seq 5 at 3600 ms.
    assert_eq!(run["toolCalls"][0]["durationNanos"], 2600 * MS);
    assert_eq!(
        report["stalls"],
        json!([{"seq": 4, "afterSeq": 3, "gapNanos": 2500 * MS}])
    );
    let (_, report) = check_json(&[path.to_str().expect("utf-8")]);
    let found = diagnostics_with_code(&report, "stream.stall");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["seq"], 4);
}

#[test]
fn timing_of_the_demo_recording_picks_a_session_and_finds_no_stall() {
    let report = timing_json(&[p(&demo_rec()), "--session", "1"]);
    assert_eq!(report["events"], 45);
    assert_eq!(report["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["stalls"], json!([]));
    let output = run(&["timing", p(&demo_rec()), "--session", "9"]);
    assert_eq!(code(&output), 2);
}
