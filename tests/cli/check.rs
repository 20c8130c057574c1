//! `check`: the text and JSON reports (PRODUCT.md), the demo's showcase
//! diagnostics, profiles, `--best-effort`, `--protocol`, and no crash on a
//! failing move.

use serde_json::{Value, json};

use crate::common::events::*;
use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

// ---------------------------------------------------------------- check text

#[test]
fn check_text_on_the_sample_lists_each_diagnostic_and_a_summary() {
    let output = run(&["check", p(&sample())]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "two diagnostics and a summary:\n{text}");

    // The messages as the JSON report gives them, to match the text lines.
    let (_, report) = check_json(&[p(&sample())]);
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 2);

    let expected = [
        ("6", "warning", "activity.patch.failed", "search-1"),
        ("7", "warning", "activity.delta.unknown-target", "plan-9"),
    ];
    for ((line, want), d) in lines.iter().zip(expected).zip(diagnostics) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(fields.len() >= 5, "too few fields: {line:?}");
        assert_eq!(&fields[..4], &[want.0, want.1, want.2, want.3], "{line:?}");
        let message = d["message"].as_str().expect("message");
        assert!(!message.is_empty());
        assert!(
            line.trim_end().ends_with(message),
            "line {line:?} does not end with the message {message:?}"
        );
    }

    let summary = lines[2];
    for part in [
        "13 events",
        "outcome ok",
        "0 errors",
        "2 warnings",
        "0 notes",
        "0 info",
    ] {
        assert!(summary.contains(part), "summary {summary:?} lacks {part:?}");
    }
}

#[test]
fn check_text_prints_a_dash_for_a_missing_message_id() {
    // An unknown event type has no messageId; the open run is truncated.
    let file = TempPath::jsonl(
        "dash",
        "s.jsonl",
        &[run_started(), json!({"type": "NOT_A_TYPE"})],
    );
    let output = run(&["check", file.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let first: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        &first[..4],
        &["2", "warning", "event.unknown-type", "-"],
        "{text}"
    );
    let second: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        &second[..4],
        &["2", "warning", "stream.truncated", "-"],
        "{text}"
    );
    assert!(lines[2].contains("2 events"), "{text}");
    assert!(lines[2].contains("2 warnings"), "{text}");
    assert!(lines[2].contains("outcome ok"), "{text}");
}

#[test]
fn check_text_summary_of_a_failed_run_counts_the_error() {
    let file = TempPath::jsonl(
        "failsummary",
        "s.jsonl",
        &[
            json!({"type": "STEP_STARTED", "stepName": "x"}),
            run_finished(),
        ],
    );
    let output = run(&["check", file.s()]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let first: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(&first[..4], &["1", "error", "lifecycle.before-run", "-"]);
    let summary = lines.last().expect("a summary line");
    assert!(summary.contains("outcome failed"), "{summary}");
    assert!(summary.contains("1 error"), "{summary}");
    assert!(!summary.contains("1 errors"), "{summary}");
}

// ---------------------------------------------------------------- check json

#[test]
fn check_json_has_the_contract_shape() {
    let (output, report) = check_json(&[p(&sample())]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let object = report.as_object().expect("one JSON object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "diagnostics",
            "events",
            "fatal",
            "messages",
            "outcome",
            "state"
        ]
    );
    assert_eq!(report["events"], 13);
    assert_eq!(report["outcome"], "ok");
    assert_eq!(report["fatal"], Value::Null);
    assert_eq!(report["state"], json!({}));
    assert!(report["messages"].is_array());
    for d in report["diagnostics"].as_array().expect("array") {
        assert!(d["seq"].is_u64(), "{d}");
        assert!(d["severity"].is_string(), "{d}");
        assert!(d["code"].is_string(), "{d}");
        assert!(d["message"].is_string(), "{d}");
    }
    assert_eq!(
        seq_codes(&report),
        [
            (6, "activity.patch.failed".to_owned()),
            (7, "activity.delta.unknown-target".to_owned())
        ]
    );
    let patch_failed = &report["diagnostics"][0];
    assert_eq!(patch_failed["severity"], "warning");
    assert_eq!(patch_failed["messageId"], "search-1");
    let unknown = &report["diagnostics"][1];
    assert_eq!(unknown["severity"], "warning");
    assert_eq!(unknown["messageId"], "plan-9");
}

#[test]
fn check_json_final_messages_of_the_sample() {
    let (_, report) = check_json(&[p(&sample())]);
    let messages = &report["messages"];
    assert_eq!(messages.as_array().expect("array").len(), 2, "{messages}");

    let search = message_by_id(messages, "search-1").expect("search-1");
    assert_eq!(search["role"], "activity");
    assert_eq!(search["activityType"], "web_search");
    assert_eq!(search["content"]["found"], 3);
    assert_eq!(search["content"]["query"], "egui timeline");
    assert_eq!(
        search["content"]["results"],
        json!([{"title": "result 0"}, {"title": "result 1"}, {"title": "result 2"}])
    );
    // The failed patch (seq 6) left nothing behind (R11, R14).
    assert!(search["content"].get("stats").is_none(), "{search}");

    let text = message_by_id(messages, "msg-1").expect("msg-1");
    assert_eq!(text["role"], "assistant");
    assert_eq!(text["content"], "Found three results.");

    // Arrival order: the activity first, then the text message.
    assert_eq!(messages[0]["id"], "search-1");
    assert_eq!(messages[1]["id"], "msg-1");
    // The delta to plan-9 invented nothing (R12).
    assert!(message_by_id(messages, "plan-9").is_none());
}

#[test]
fn check_json_of_a_failed_run_names_the_fatal_diagnostic() {
    let file = TempPath::jsonl(
        "failjson",
        "s.jsonl",
        &[
            json!({"type": "STEP_STARTED", "stepName": "x"}),
            run_finished(),
        ],
    );
    let (output, report) = check_json(&[file.s()]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert_eq!(report["outcome"], "failed");
    assert_eq!(report["events"], 2);
    assert_eq!(report["fatal"]["seq"], 1);
    assert_eq!(report["fatal"]["severity"], "error");
    assert_eq!(report["fatal"]["code"], "lifecycle.before-run");
}

// ---------------------------------------------------------------- the demo

#[test]
fn the_demo_recording_replays_ok_with_its_showcase_diagnostics() {
    let output = run(&["check", p(&demo())]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert!(
        stdout(&output).contains("outcome ok"),
        "{}",
        stdout(&output)
    );

    let (output, report) = check_json(&[p(&demo())]);
    assert_eq!(code(&output), 0);
    assert_eq!(report["outcome"], "ok");
    assert_eq!(report["fatal"], Value::Null);
    for code in [
        "activity.patch.failed",
        "activity.delta.unknown-target",
        "activity.snapshot.declined",
    ] {
        assert!(
            !diagnostics_with_code(&report, code).is_empty(),
            "the demo has no {code}: {}",
            report["diagnostics"]
        );
    }
    for d in report["diagnostics"].as_array().expect("array") {
        assert_ne!(d["severity"], "error", "{d}");
    }
}

// ---------------------------------------------------------------- profiles

fn unknown_target_stream() -> Vec<Value> {
    vec![
        run_started(),
        json!({"type": "ACTIVITY_DELTA", "messageId": "ghost", "activityType": "t",
               "patch": [{"op": "add", "path": "/x", "value": 1}]}),
        run_finished(),
    ]
}

fn severity_of(report: &Value, code: &str) -> Vec<String> {
    diagnostics_with_code(report, code)
        .iter()
        .map(|d| d["severity"].as_str().expect("severity").to_owned())
        .collect()
}

#[test]
fn profile_changes_the_severity_of_a_delta_to_an_unknown_id() {
    let file = TempPath::jsonl("profile", "s.jsonl", &unknown_target_stream());
    let (output, spec) = check_json(&[file.s()]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        severity_of(&spec, "activity.delta.unknown-target"),
        ["warning"]
    );
    let (output, explicit_spec) = check_json(&[file.s(), "--profile", "spec"]);
    assert_eq!(code(&output), 0);
    assert_eq!(explicit_spec, spec);

    let (output, client) = check_json(&[file.s(), "--profile", "ag-ui-client-1.0"]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        severity_of(&client, "activity.delta.unknown-target"),
        ["note"]
    );
    assert_eq!(client["messages"], json!([]));

    // The text summary changes too.
    let text = stdout(&run(&["check", file.s()]));
    assert!(text.contains("1 warning,"), "{text}");
    let text = stdout(&run(&["check", file.s(), "--profile", "ag-ui-client-1.0"]));
    assert!(text.contains("0 warnings"), "{text}");
    assert!(text.contains("1 note"), "{text}");
}

#[test]
fn profile_changes_the_messages_of_a_snapshot_on_a_text_id() {
    let events = [
        run_started(),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m-1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-1", "delta": "hello"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m-1"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "m-1", "activityType": "t",
               "content": {"hijack": 1}}),
        run_finished(),
    ];
    let file = TempPath::jsonl("profilecollision", "s.jsonl", &events);
    let (_, spec) = check_json(&[file.s()]);
    assert_eq!(
        spec["messages"],
        json!([{"id": "m-1", "role": "assistant", "content": "hello"}])
    );
    assert_eq!(
        severity_of(&spec, "activity.snapshot.id-collision"),
        ["warning"]
    );
    let (_, client) = check_json(&[file.s(), "--profile", "ag-ui-client-1.0"]);
    assert_eq!(
        client["messages"],
        json!([{"id": "m-1", "role": "activity", "activityType": "t",
                "content": {"hijack": 1}}])
    );
    assert!(
        !client["diagnostics"]
            .as_array()
            .expect("array")
            .iter()
            .any(|d| d["severity"] == "warning" || d["severity"] == "error"),
        "{}",
        client["diagnostics"]
    );
}

#[test]
fn a_vector_document_declares_its_profile() {
    let client_vector = json!({
        "name": "declared-client",
        "profile": "ag-ui-client-1.0",
        "events": unknown_target_stream(),
        "expect": {"outcome": "ok", "diagnostics": []}
    });
    let file = TempPath::with_bytes(
        "vectorprofile",
        "client.json",
        client_vector.to_string().as_bytes(),
    );
    let (output, declared) = check_json(&[file.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(declared["events"], 3);
    assert_eq!(
        severity_of(&declared, "activity.delta.unknown-target"),
        ["note"]
    );
    // The flag wins over the declaration.
    let (_, overridden) = check_json(&[file.s(), "--profile", "spec"]);
    assert_eq!(
        severity_of(&overridden, "activity.delta.unknown-target"),
        ["warning"]
    );

    let spec_vector = json!({
        "name": "declared-spec",
        "profile": "spec",
        "events": unknown_target_stream(),
    });
    let file = TempPath::with_bytes(
        "vectorprofile",
        "spec.json",
        spec_vector.to_string().as_bytes(),
    );
    let (_, declared) = check_json(&[file.s()]);
    assert_eq!(
        severity_of(&declared, "activity.delta.unknown-target"),
        ["warning"]
    );
    let (_, overridden) = check_json(&[file.s(), "--profile", "ag-ui-client-1.0"]);
    assert_eq!(
        severity_of(&overridden, "activity.delta.unknown-target"),
        ["note"]
    );
}

// ---------------------------------------------------------------- best effort

#[test]
fn best_effort_applies_events_after_a_fatal_error() {
    let events = [
        run_started(),
        // R40: content must be an object.
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "bad", "activityType": "t",
               "content": "not an object"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "later", "activityType": "t",
               "content": {"v": 7}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"after": true}}),
        run_finished(),
    ];
    let file = TempPath::jsonl("besteffort", "s.jsonl", &events);

    let (output, strict) = check_json(&[file.s()]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert_eq!(strict["outcome"], "failed");
    assert_eq!(strict["fatal"]["seq"], 2);
    assert_eq!(strict["fatal"]["code"], "event.malformed");
    assert_eq!(strict["messages"], json!([]));
    assert_eq!(strict["state"], json!({}));

    let (output, lenient) = check_json(&[file.s(), "--best-effort"]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert_eq!(lenient["outcome"], "failed");
    assert_eq!(lenient["fatal"]["seq"], 2);
    assert_eq!(lenient["fatal"]["code"], "event.malformed");
    let later = message_by_id(&lenient["messages"], "later").expect("later is applied");
    assert_eq!(later["role"], "activity");
    assert_eq!(later["content"], json!({"v": 7}));
    assert!(message_by_id(&lenient["messages"], "bad").is_none());
    assert_eq!(lenient["state"], json!({"after": true}));

    // The text output says failed as well.
    let output = run(&["check", file.s(), "--best-effort"]);
    assert_eq!(code(&output), 1);
    assert!(
        stdout(&output).contains("outcome failed"),
        "{}",
        stdout(&output)
    );
}

// ---------------------------------------------------------------- no crash

#[test]
fn check_does_not_crash_on_a_patch_whose_move_fails_after_an_applied_op() {
    // R11 + "No panic on any input" (PRODUCT.md): the delta is skipped with
    // a warning and the state is left as it was; the run is ok.
    let events = [
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"x": 1}}),
        json!({"type": "STATE_DELTA", "delta": [
            {"op": "replace", "path": "/x", "value": 2},
            {"op": "move", "from": "/x", "path": "/a/0"}
        ]}),
        run_finished(),
    ];
    let file = TempPath::jsonl("movepanic", "s.jsonl", &events);
    let output = run(&["check", file.s(), "--format", "json"]);
    assert_eq!(
        code(&output),
        0,
        "check must not crash; stderr:\n{}",
        stderr(&output)
    );
    let report = json_out(&output);
    assert_eq!(report["outcome"], "ok");
    assert_eq!(seq_codes(&report), [(3, "state.patch.failed".to_owned())]);
    assert_eq!(report["state"], json!({"x": 1}));
}

#[test]
fn a_failed_move_leaves_the_activity_as_it_was() {
    // R11, R14: a failed patch leaves the content exactly as before.
    let events = [
        run_started(),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "t",
               "content": {"x": 1}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "t",
               "patch": [{"op": "move", "from": "/x", "path": "/a/0"}]}),
        run_finished(),
    ];
    let file = TempPath::jsonl("movelost", "s.jsonl", &events);
    let (output, report) = check_json(&[file.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(
        seq_codes(&report),
        [(3, "activity.patch.failed".to_owned())]
    );
    let activity = message_by_id(&report["messages"], "act").expect("act");
    assert_eq!(activity["content"], json!({"x": 1}));
}

#[test]
fn protocol_option_decides_the_version_warning() {
    // Issue 11, §11: a 1.1 declaration is quiet for a 1.1 consumer (the
    // default) and warns for a 1.0 one, naming both versions.
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}),
        run_finished(),
    ];
    let file = TempPath::jsonl("protocol", "s.jsonl", &events);
    let (_, default) = check_json(&[file.s()]);
    assert_eq!(seq_codes(&default), vec![]);
    let (_, old) = check_json(&[file.s(), "--protocol", "1.0"]);
    assert_eq!(
        seq_codes(&old),
        vec![(1, "protocol.version.newer".to_owned())]
    );
    let message = old["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("1.1") && message.contains("1.0"),
        "{message}"
    );
    let output = run(&["check", file.s(), "--protocol", "2.0"]);
    assert_eq!(code(&output), 2);
}

#[test]
fn check_protocol_draft_fails_a_truncated_stream() {
    // Issue 39, C12: under the draft a truncated stream fails the run, an
    // error at the last event, exit 1 (PRODUCT.md: the run failed); under
    // 1.1 it warns and exits 0.
    let events = [
        run_started(),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
    ];
    let file = TempPath::jsonl("draft-truncated", "s.jsonl", &events);
    let (output, report) = check_json(&[file.s(), "--protocol", "draft"]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert_eq!(seq_codes(&report), vec![(3, "stream.truncated".to_owned())]);
    assert_eq!(report["diagnostics"][0]["severity"], json!("error"));
    let (output, report) = check_json(&[file.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(report["diagnostics"][0]["severity"], json!("warning"));
}

#[test]
fn check_protocol_draft_fails_a_run_on_another_thread() {
    // Issue 39, C12: every run of a stream carries one threadId; a second
    // run naming another fails under the draft (exit 1), not under 1.1.
    let events = [
        run_started(),
        run_finished(),
        json!({"type": "RUN_STARTED", "threadId": "t2", "runId": "r2"}),
        json!({"type": "RUN_FINISHED", "threadId": "t2", "runId": "r2"}),
    ];
    let file = TempPath::jsonl("draft-thread", "s.jsonl", &events);
    let (output, report) = check_json(&[file.s(), "--protocol", "draft"]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    // The client profile (a 1.0 consumer) goes on: P13 says so at event 3.
    assert_eq!(
        seq_codes(&report),
        vec![
            (3, "lifecycle.thread-mismatch".to_owned()),
            (3, "profile.divergence".to_owned())
        ]
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("'t2'") && message.contains("'t1'"),
        "{message}"
    );
    let (output, _) = check_json(&[file.s(), "--protocol", "1.1"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
}

#[test]
fn every_command_that_takes_protocol_takes_draft_and_replays_by_it() {
    // Issue 39, item 6: `--protocol draft` is accepted wherever `--protocol`
    // is, and the replay each command makes follows it (R62 fatal under the
    // draft: a truncated stream fails the run at its last event).
    let events = [
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
    ];
    let file = TempPath::jsonl("draft-everywhere", "s.jsonl", &events);
    let f = file.s();
    let commands: [&[&str]; 7] = [
        &["check", f],
        &["state", f, "--at", "2"],
        &["diff", f, "--from", "1", "--to", "2"],
        &["find", f, "--state", "--pointer", "/n"],
        &["blame", f, "--state", "--pointer", "/n"],
        &["timing", f],
        &["compare", f, f],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.extend(["--protocol", "draft"]);
        let output = run(&args);
        assert_ne!(code(&output), 2, "{args:?}: {}", stderr(&output));
        assert!(!stderr(&output).contains("invalid value"), "{args:?}");
    }
    // Where the outcome shows, it is the draft's.
    let output = run(&["state", f, "--at", "2", "--protocol", "draft"]);
    assert!(
        stderr(&output).contains("stream.truncated"),
        "{}",
        stderr(&output)
    );
    let output = run(&["compare", f, f, "--protocol", "draft"]);
    assert!(
        stdout(&output).contains("failed at step 2"),
        "{}",
        stdout(&output)
    );
    let output = run(&["compare", f, f, "--protocol", "1.1"]);
    assert!(
        !stdout(&output).contains("failed at step 2"),
        "{}",
        stdout(&output)
    );
    let vector = TempPath::new("draft-everywhere", "v.json");
    run_ok(&[
        "export",
        f,
        "--format",
        "vector",
        "--out",
        vector.s(),
        "--protocol",
        "draft",
    ]);
    let document: serde_json::Value =
        serde_json::from_slice(&vector.read()).expect("a vector is JSON");
    assert_eq!(document["expect"]["outcome"], json!("failed"));
    let output = run(&[
        "conformance",
        &format!("{}/tests/conformance/draft", env!("CARGO_MANIFEST_DIR")),
        "--protocol",
        "draft",
    ]);
    assert_ne!(code(&output), 2, "{}", stderr(&output));
    assert!(stdout(&output).contains("draft"), "{}", stdout(&output));
}

// ---------------------------------------------------------------------------

// ---------------------------------------------------------------- snapshots
// What `check` prints, one snapshot file per output (issue 16): a changed
// message is a reviewed diff.

#[test]
fn check_outputs_are_the_snapshots() {
    for (name, args) in [
        (
            "sample_text",
            &["check", "tests/samples/search-agent.sse"][..],
        ),
        (
            "sample_json",
            &[
                "check",
                "tests/samples/search-agent.sse",
                "--format",
                "json",
            ],
        ),
        (
            "sample_text_client_profile",
            &[
                "check",
                "tests/samples/search-agent.sse",
                "--profile",
                "ag-ui-client-1.0",
            ],
        ),
        ("demo_text", &["check", "recordings/demo.jsonl"]),
        (
            "demo_json",
            &["check", "recordings/demo.jsonl", "--format", "json"],
        ),
        (
            "har_session_2_text",
            &["check", "tests/samples/two-streams.har", "--session", "2"],
        ),
        (
            "har_without_session",
            &["check", "tests/samples/two-streams.har"],
        ),
        (
            "vector_fatal_text",
            &[
                "check",
                "tests/vectors/tagged-delta-owner-mismatch-is-fatal.json",
            ],
        ),
        (
            "vector_fatal_best_effort_json",
            &[
                "check",
                "tests/vectors/tagged-delta-owner-mismatch-is-fatal.json",
                "--best-effort",
                "--format",
                "json",
            ],
        ),
        (
            "missing_file",
            &["check", "tests/samples/no-such-file.jsonl"],
        ),
    ] {
        assert_output!(name, transcript(args));
    }
}

#[test]
fn check_of_a_written_stream_is_the_snapshot() {
    // The temporary path is redacted in the summary line.
    let file = TempPath::jsonl(
        "snapshot",
        "s.jsonl",
        &[
            json!({"type": "STEP_STARTED", "stepName": "x"}),
            run_finished(),
        ],
    );
    assert_output!("failed_run_text", transcript(&["check", file.s()]));
}
