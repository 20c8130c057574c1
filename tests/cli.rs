//! The command-line contract of `PRODUCT.md`, tested through the built
//! binary: `check` (text and JSON), `state`, exit codes, standard input,
//! profiles and `--best-effort`.

#[path = "support/generator.rs"]
mod generator;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_agui-replay");

fn manifest_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn sample() -> PathBuf {
    manifest_path("tests/samples/search-agent.sse")
}

fn demo() -> PathBuf {
    manifest_path("recordings/demo.jsonl")
}

/// Runs the binary with `args`, feeding `stdin` if given (else no input).
fn run_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(bytes).expect("write stdin");
        drop(pipe);
    }
    child.wait_with_output().expect("the binary runs")
}

fn run(args: &[&str]) -> Output {
    run_with_stdin(args, None)
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited with a code")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Parses stdout as one JSON value, with a readable failure.
fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            stdout(output),
            stderr(output)
        )
    })
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// A file under the temp dir with a name unique to this process and test,
/// removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(test: &str, name: &str, contents: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!(
            "agui-replay-cli-{}-{test}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).expect("write temp file");
        Self(path)
    }

    fn jsonl(test: &str, name: &str, events: &[Value]) -> Self {
        Self::new(test, name, jsonl(events).as_bytes())
    }

    fn path(&self) -> &str {
        p(&self.0)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn jsonl(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

fn run_started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"})
}

fn run_finished() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"})
}

/// `(seq, code)` of every diagnostic of a `check --format json` report.
fn seq_codes(report: &Value) -> Vec<(u64, String)> {
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

fn diagnostics_with_code<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics is an array")
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

fn message_by_id<'a>(messages: &'a Value, id: &str) -> Option<&'a Value> {
    messages
        .as_array()
        .expect("messages is an array")
        .iter()
        .find(|m| m["id"] == id)
}

fn check_json(args: &[&str]) -> (Output, Value) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = run(&all);
    let report = json_out(&output);
    (output, report)
}

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
    let file = TempFile::jsonl(
        "dash",
        "s.jsonl",
        &[run_started(), json!({"type": "NOT_A_TYPE"})],
    );
    let output = run(&["check", file.path()]);
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
    let file = TempFile::jsonl(
        "failsummary",
        "s.jsonl",
        &[
            json!({"type": "STEP_STARTED", "stepName": "x"}),
            run_finished(),
        ],
    );
    let output = run(&["check", file.path()]);
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
    let file = TempFile::jsonl(
        "failjson",
        "s.jsonl",
        &[
            json!({"type": "STEP_STARTED", "stepName": "x"}),
            run_finished(),
        ],
    );
    let (output, report) = check_json(&[file.path()]);
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

// ---------------------------------------------------------------- exit codes

#[test]
fn exit_0_when_the_run_is_ok() {
    let file = TempFile::jsonl("exit0", "s.jsonl", &[run_started(), run_finished()]);
    let output = run(&["check", file.path()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
}

#[test]
fn exit_1_when_the_first_event_is_not_run_started() {
    let file = TempFile::jsonl(
        "exit1",
        "s.jsonl",
        &[
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            run_finished(),
        ],
    );
    let output = run(&["check", file.path()]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert!(stdout(&output).contains("lifecycle.before-run"));
}

#[test]
fn exit_1_on_an_unparseable_line() {
    let text = format!(
        "{}not json at all\n{}\n",
        jsonl(&[run_started()]),
        run_finished()
    );
    let file = TempFile::new("exit1garbage", "s.jsonl", text.as_bytes());
    let (output, report) = check_json(&[file.path()]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert_eq!(report["fatal"]["code"], "event.unparseable");
    assert_eq!(report["fatal"]["seq"], 2);
}

#[test]
fn exit_2_for_a_missing_file_naming_it() {
    let missing = std::env::temp_dir().join(format!(
        "agui-replay-cli-{}-no-such-file.jsonl",
        std::process::id()
    ));
    let output = run(&["check", p(&missing)]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains(p(&missing)),
        "stderr does not name the file: {}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
}

#[test]
fn exit_2_for_an_empty_file() {
    for (name, contents) in [("empty.jsonl", &b""[..]), ("blank.sse", b"\n  \n")] {
        let file = TempFile::new("exit2empty", name, contents);
        let output = run(&["check", file.path()]);
        assert_eq!(code(&output), 2, "{name}");
        assert!(
            stderr(&output).contains(file.path()),
            "{name}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn exit_2_for_an_unknown_flag() {
    let output = run(&["check", p(&sample()), "--no-such-flag"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("--no-such-flag"),
        "{}",
        stderr(&output)
    );
    let output = run(&["state", p(&sample()), "--at", "1", "--no-such-flag"]);
    assert_eq!(code(&output), 2);
}

#[test]
fn exit_2_for_bad_flag_values() {
    for args in [
        &["check", p(&sample()), "--format", "xml"][..],
        &["check", p(&sample()), "--profile", "nope"],
        &["state", p(&sample()), "--at", "-1"],
        &["state", p(&sample())],
    ] {
        let output = run(args);
        assert_eq!(code(&output), 2, "{args:?}");
    }
}

#[test]
fn exit_2_for_a_session_that_does_not_exist() {
    let output = run(&["check", p(&sample()), "--session", "2"]);
    assert_eq!(code(&output), 2);
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    assert!(!stderr(&output).is_empty());
    // Session 1 is the one stream of a file.
    let output = run(&["check", p(&sample()), "--session", "1"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
}

#[test]
fn exit_2_for_state_past_the_end() {
    let output = run(&["state", p(&sample()), "--at", "14"]);
    assert_eq!(code(&output), 2);
    assert!(!stderr(&output).is_empty());
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    // The last step itself is fine.
    let output = run(&["state", p(&sample()), "--at", "13"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
}

#[test]
fn exit_2_for_state_of_a_message_that_does_not_exist() {
    let output = run(&["state", p(&sample()), "--at", "13", "--message", "nope-42"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("nope-42"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    // search-1 does not exist yet at step 1.
    let output = run(&["state", p(&sample()), "--at", "1", "--message", "search-1"]);
    assert_eq!(code(&output), 2);
}

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
    let file = TempFile::jsonl("profile", "s.jsonl", &unknown_target_stream());
    let (output, spec) = check_json(&[file.path()]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        severity_of(&spec, "activity.delta.unknown-target"),
        ["warning"]
    );
    let (output, explicit_spec) = check_json(&[file.path(), "--profile", "spec"]);
    assert_eq!(code(&output), 0);
    assert_eq!(explicit_spec, spec);

    let (output, client) = check_json(&[file.path(), "--profile", "ag-ui-client-1.0"]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        severity_of(&client, "activity.delta.unknown-target"),
        ["note"]
    );
    assert_eq!(client["messages"], json!([]));

    // The text summary changes too.
    let text = stdout(&run(&["check", file.path()]));
    assert!(text.contains("1 warning,"), "{text}");
    let text = stdout(&run(&[
        "check",
        file.path(),
        "--profile",
        "ag-ui-client-1.0",
    ]));
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
    let file = TempFile::jsonl("profilecollision", "s.jsonl", &events);
    let (_, spec) = check_json(&[file.path()]);
    assert_eq!(
        spec["messages"],
        json!([{"id": "m-1", "role": "assistant", "content": "hello"}])
    );
    assert_eq!(
        severity_of(&spec, "activity.snapshot.id-collision"),
        ["warning"]
    );
    let (_, client) = check_json(&[file.path(), "--profile", "ag-ui-client-1.0"]);
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
    let file = TempFile::new(
        "vectorprofile",
        "client.json",
        client_vector.to_string().as_bytes(),
    );
    let (output, declared) = check_json(&[file.path()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(declared["events"], 3);
    assert_eq!(
        severity_of(&declared, "activity.delta.unknown-target"),
        ["note"]
    );
    // The flag wins over the declaration.
    let (_, overridden) = check_json(&[file.path(), "--profile", "spec"]);
    assert_eq!(
        severity_of(&overridden, "activity.delta.unknown-target"),
        ["warning"]
    );

    let spec_vector = json!({
        "name": "declared-spec",
        "profile": "spec",
        "events": unknown_target_stream(),
    });
    let file = TempFile::new(
        "vectorprofile",
        "spec.json",
        spec_vector.to_string().as_bytes(),
    );
    let (_, declared) = check_json(&[file.path()]);
    assert_eq!(
        severity_of(&declared, "activity.delta.unknown-target"),
        ["warning"]
    );
    let (_, overridden) = check_json(&[file.path(), "--profile", "ag-ui-client-1.0"]);
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
    let file = TempFile::jsonl("besteffort", "s.jsonl", &events);

    let (output, strict) = check_json(&[file.path()]);
    assert_eq!(code(&output), 1, "stderr: {}", stderr(&output));
    assert_eq!(strict["outcome"], "failed");
    assert_eq!(strict["fatal"]["seq"], 2);
    assert_eq!(strict["fatal"]["code"], "event.malformed");
    assert_eq!(strict["messages"], json!([]));
    assert_eq!(strict["state"], json!({}));

    let (output, lenient) = check_json(&[file.path(), "--best-effort"]);
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
    let output = run(&["check", file.path(), "--best-effort"]);
    assert_eq!(code(&output), 1);
    assert!(
        stdout(&output).contains("outcome failed"),
        "{}",
        stdout(&output)
    );
}

// ---------------------------------------------------------------- state

#[test]
fn state_at_step_zero_is_empty() {
    let output = run(&["state", p(&sample()), "--at", "0"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output), json!({"messages": [], "state": {}}));
}

#[test]
fn state_at_n_prints_messages_and_state_of_that_step() {
    let at = |n: &str| {
        let output = run(&["state", p(&sample()), "--at", n]);
        assert_eq!(code(&output), 0, "--at {n}: {}", stderr(&output));
        json_out(&output)
    };
    let step3 = at("3");
    let object = step3.as_object().expect("an object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["messages", "state"]);
    assert_eq!(step3["state"], json!({}));
    let search = message_by_id(&step3["messages"], "search-1").expect("search-1");
    assert_eq!(search["content"]["found"], 1);
    assert_eq!(search["content"]["results"], json!([{"title": "result 0"}]));

    let step4 = at("4");
    let search = message_by_id(&step4["messages"], "search-1").expect("search-1");
    assert_eq!(search["content"]["found"], 2);

    // Step 1 has no messages yet; the text message only appears at step 8.
    assert_eq!(at("1")["messages"], json!([]));
    assert!(message_by_id(&at("7")["messages"], "msg-1").is_none());
    let step9 = at("9");
    let text = message_by_id(&step9["messages"], "msg-1").expect("msg-1");
    assert_eq!(text["content"], "Found ");
}

#[test]
fn state_at_n_follows_the_shared_state() {
    // demo.jsonl: STATE_SNAPSHOT at seq 2 (budget 800), STATE_DELTA at seq 20
    // (budget 739).
    let at = |n: &str| {
        let output = run(&["state", p(&demo()), "--at", n]);
        assert_eq!(code(&output), 0, "--at {n}: {}", stderr(&output));
        json_out(&output)
    };
    assert_eq!(at("1")["state"], json!({}));
    assert_eq!(at("2")["state"]["budget"], 800);
    assert_eq!(at("19")["state"]["budget"], 800);
    let step20 = at("20");
    assert_eq!(step20["state"]["budget"], 739);
    assert_eq!(step20["state"]["steps"], json!(["flights"]));
}

#[test]
fn state_message_prints_one_message() {
    let output = run(&["state", p(&sample()), "--at", "5", "--message", "search-1"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let message = json_out(&output);
    assert_eq!(message["id"], "search-1");
    assert_eq!(message["role"], "activity");
    assert_eq!(message["activityType"], "web_search");
    assert_eq!(message["content"]["found"], 3);
    assert_eq!(
        message["content"]["results"]
            .as_array()
            .expect("results")
            .len(),
        3
    );
    assert!(message.get("messages").is_none());

    let output = run(&["state", p(&sample()), "--at", "13", "--message", "msg-1"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(
        json_out(&output),
        json!({"id": "msg-1", "role": "assistant", "content": "Found three results."})
    );
}

#[test]
fn state_of_a_failed_run_shows_the_last_applied_step() {
    let events = [
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
        json!({"type": "STATE_DELTA", "delta": "not a patch"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 2}}),
        run_finished(),
    ];
    let file = TempFile::jsonl("statefailed", "s.jsonl", &events);
    let output = run(&["state", file.path(), "--at", "4"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output)["state"], json!({"n": 1}));
    let output = run(&["state", file.path(), "--at", "4", "--best-effort"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output)["state"], json!({"n": 2}));
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
    let file = TempFile::jsonl("movepanic", "s.jsonl", &events);
    let output = run(&["check", file.path(), "--format", "json"]);
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
    let file = TempFile::jsonl("movelost", "s.jsonl", &events);
    let (output, report) = check_json(&[file.path()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(
        seq_codes(&report),
        [(3, "activity.patch.failed".to_owned())]
    );
    let activity = message_by_id(&report["messages"], "act").expect("act");
    assert_eq!(activity["content"], json!({"x": 1}));
}

// ---------------------------------------------------------------- bench

/// Runs `bench gen` into a fresh temp file and returns it with its bytes.
fn bench_gen(test: &str, name: &str, args: &[&str]) -> (TempFile, Vec<u8>) {
    let file = TempFile::new(test, name, b"");
    let mut all = vec!["bench", "gen", "--out", file.path()];
    all.extend_from_slice(args);
    let output = run(&all);
    assert_eq!(code(&output), 0, "bench gen {args:?}: {}", stderr(&output));
    let bytes = std::fs::read(&file.0).expect("bench gen wrote the file");
    (file, bytes)
}

#[test]
fn bench_gen_writes_exactly_n_lines_of_events() {
    for (events, activities) in [("1", "1"), ("300", "7"), ("2500", "20")] {
        let (_file, bytes) = bench_gen(
            "benchlines",
            &format!("{events}.jsonl"),
            &["--events", events, "--activities", activities],
        );
        let n: usize = events.parse().expect("a number");
        let text = String::from_utf8(bytes).expect("UTF-8");
        assert!(text.ends_with('\n'), "the last line ends");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), n, "--events {events}");
        assert_eq!(text.matches('\n').count(), n, "--events {events}");
        for line in &lines {
            let event: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert!(event["type"].is_string(), "{line}");
        }
        assert_eq!(
            serde_json::from_str::<Value>(lines[0]).expect("json")["type"],
            "RUN_STARTED"
        );
    }
}

#[test]
fn bench_gen_is_deterministic_by_seed() {
    let args = ["--events", "2000", "--activities", "15", "--seed", "42"];
    let (_a, first) = bench_gen("benchseed", "a.jsonl", &args);
    let (_b, second) = bench_gen("benchseed", "b.jsonl", &args);
    assert!(!first.is_empty());
    assert!(first == second, "the same seed gives the same bytes");
    let (_c, other) = bench_gen(
        "benchseed",
        "c.jsonl",
        &["--events", "2000", "--activities", "15", "--seed", "43"],
    );
    assert!(first != other, "another seed gives other bytes");
    assert_eq!(
        other.iter().filter(|&&b| b == b'\n').count(),
        2000,
        "as many events"
    );
}

#[test]
fn a_generated_stream_checks_ok() {
    let (file, bytes) = bench_gen(
        "benchcheck",
        "s.jsonl",
        &["--events", "3000", "--activities", "25", "--seed", "9"],
    );
    let (output, report) = check_json(&[file.path()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(report["outcome"], "ok");
    assert_eq!(report["events"], 3000);
    assert!(report["fatal"].is_null(), "{}", report["fatal"]);
    // The generator's deliberate failures are warnings, not errors.
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert!(
        diagnostics.iter().all(|d| d["severity"] != "error"),
        "{diagnostics:?}"
    );
    assert!(
        !diagnostics_with_code(&report, "activity.patch.failed").is_empty(),
        "the generator fails some patches on purpose"
    );
    // The library reads the same file to the same outcome.
    let stream = agui_replay::read_bytes(&bytes, Path::new("s.jsonl")).expect("reads");
    assert_eq!(stream.events.len(), 3000);
    let replayer = agui_replay::replay_log(&stream.events, agui_replay::Options::default());
    assert_eq!(replayer.outcome(), agui_replay::Outcome::Ok);
    assert_eq!(report["messages"], replayer.conversation().to_json());
}

#[test]
fn bench_replay_prints_its_figures_as_one_json_object() {
    let output = run(&[
        "bench",
        "replay",
        "--events",
        "5000",
        "--activities",
        "20",
        "--seeks",
        "50",
    ]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let figures = json_out(&output);
    let figures = figures.as_object().expect("one JSON object");
    for key in [
        "events",
        "stream_bytes",
        "parse_events_per_sec",
        "replay_events_per_sec",
        "seek_p50_ms",
        "seek_p99_ms",
        "seek_max_ms",
        "checkpoint_bytes",
        "peak_rss_bytes",
    ] {
        assert!(figures.contains_key(key), "no `{key}` in {figures:?}");
    }
    assert_eq!(figures["events"], 5000);
    assert!(
        figures["stream_bytes"].as_u64().expect("a count") > 5000,
        "{figures:?}"
    );
    for key in ["parse_events_per_sec", "replay_events_per_sec"] {
        assert!(
            figures[key].as_f64().expect("a rate") > 0.0,
            "{key}: {figures:?}"
        );
    }
    let ms = |key: &str| {
        figures[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} is a number: {figures:?}"))
    };
    let (p50, p99, max) = (ms("seek_p50_ms"), ms("seek_p99_ms"), ms("seek_max_ms"));
    assert!(p50 >= 0.0, "{figures:?}");
    assert!(p50 <= p99, "p50 {p50} > p99 {p99}");
    assert!(p99 <= max, "p99 {p99} > max {max}");
}

// ------------------------------------------------ recordings and HAR files

/// An output path under the temp dir, unique to this process and test, that
/// does not exist yet; it and its SQLite sidecars are removed when dropped.
struct TempOut(PathBuf);

impl TempOut {
    fn new(test: &str, name: &str) -> Self {
        let out = Self(std::env::temp_dir().join(format!(
            "agui-replay-cli-{}-{test}-{name}",
            std::process::id()
        )));
        out.remove();
        out
    }

    fn path(&self) -> &str {
        p(&self.0)
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = self.0.as_os_str().to_owned();
            name.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(name));
        }
    }
}

impl Drop for TempOut {
    fn drop(&mut self) {
        self.remove();
    }
}

fn har() -> PathBuf {
    manifest_path("tests/samples/two-streams.har")
}

/// Imports `inputs` into a new recording through the binary.
fn import_rec(test: &str, inputs: &[&str]) -> TempOut {
    let rec = TempOut::new(test, "import.rec");
    let mut args = vec!["import"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--out", rec.path()]);
    let output = run(&args);
    assert_eq!(code(&output), 0, "import {inputs:?}: {}", stderr(&output));
    rec
}

#[test]
fn import_of_a_har_file_lists_one_session_per_event_stream() {
    let rec = TempOut::new("harimport", "har.rec");
    let output = run(&["import", p(&har()), "--out", rec.path()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("session 1: 7 events"), "{text}");
    assert!(text.contains("session 2: 9 events"), "{text}");
    assert!(text.contains("2 sessions, 16 events"), "{text}");

    // Importing again over it needs --force.
    let again = run(&["import", p(&har()), "--out", rec.path()]);
    assert_eq!(code(&again), 2);
    assert!(stderr(&again).contains(rec.path()), "{}", stderr(&again));
    let forced = run(&["import", p(&demo()), "--out", rec.path(), "--force"]);
    assert_eq!(code(&forced), 0, "{}", stderr(&forced));
    let (_, report) = check_json(&[rec.path()]);
    assert_eq!(report["events"], 45, "the forced import replaced the file");
}

#[test]
fn check_on_a_recording_with_several_sessions_needs_one() {
    let rec = import_rec("harcheck", &[p(&har())]);
    let output = run(&["check", rec.path()]);
    assert_eq!(code(&output), 2, "stdout: {}", stdout(&output));
    let message = stderr(&output);
    assert!(message.contains(rec.path()), "names the file: {message}");
    assert!(message.contains("--session"), "says how to pick: {message}");
    assert!(
        message.contains("1: ") && message.contains("2: ") && message.contains("2 sessions"),
        "lists the sessions: {message}"
    );

    let output = run(&["check", rec.path(), "--session", "3"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains(rec.path()), "{}", stderr(&output));
}

#[test]
fn check_session_n_replays_that_session_of_a_recording_or_har_file() {
    let rec = import_rec("harsession", &[p(&har())]);
    for (session, num_events) in [("1", 7), ("2", 9)] {
        let (output, from_rec) = check_json(&[rec.path(), "--session", session]);
        assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
        assert_eq!(from_rec["events"], num_events, "session {session}");
        let (output, from_har) = check_json(&[p(&har()), "--session", session]);
        assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
        assert_eq!(
            from_rec, from_har,
            "session {session} replays the same from the recording and the HAR file"
        );
    }
    // The second exchange: its run input's messages come first, then what
    // the stream added; the failed patch is reported.
    let (_, second) = check_json(&[rec.path(), "--session", "2"]);
    let ids: Vec<&str> = second["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["msg-u1", "msg-a1", "msg-u2", "plan-1", "msg-a2"]);
    assert_eq!(second["state"], json!({"theme": "dark"}));
    assert_eq!(
        seq_codes(&second),
        [(4, "activity.patch.failed".to_owned())]
    );

    // Step 0 of a session is its run input.
    let output = run(&["state", rec.path(), "--session", "2", "--at", "0"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let at_zero = json_out(&output);
    assert_eq!(at_zero["messages"].as_array().expect("messages").len(), 3);
    assert_eq!(at_zero["state"], json!({"theme": "dark"}));

    // A HAR file with several streams needs --session too.
    let output = run(&["check", p(&har())]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains(p(&har())), "{}", stderr(&output));
}

// ---------------------------------------------------------------- diff

/// Parses a `diff` output as an RFC 6902 patch.
fn patch_out(output: &Output) -> json_patch::Patch {
    assert_eq!(code(output), 0, "diff: {}", stderr(output));
    serde_json::from_value(json_out(output))
        .unwrap_or_else(|e| panic!("not an RFC 6902 patch ({e}): {}", stdout(output)))
}

fn state_at(source: &[&str], at: u64, message: Option<&str>) -> Value {
    let at = at.to_string();
    let mut args = vec!["state"];
    args.extend_from_slice(source);
    args.extend_from_slice(&["--at", &at]);
    if let Some(id) = message {
        args.extend_from_slice(&["--message", id]);
    }
    let output = run(&args);
    assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
    json_out(&output)
}

fn diff_of(source: &[&str], from: u64, to: u64, message: Option<&str>) -> json_patch::Patch {
    let (from, to) = (from.to_string(), to.to_string());
    let mut args = vec!["diff"];
    args.extend_from_slice(source);
    args.extend_from_slice(&["--from", &from, "--to", &to]);
    if let Some(id) = message {
        args.extend_from_slice(&["--message", id]);
    }
    patch_out(&run(&args))
}

/// Applies `diff --from a --to b` to `state --at a` and compares with
/// `state --at b`.
fn assert_diff_takes_a_to_b(source: &[&str], a: u64, b: u64, message: Option<&str>) {
    let patch = diff_of(source, a, b, message);
    let mut document = state_at(source, a, message);
    json_patch::patch(&mut document, &patch.0)
        .unwrap_or_else(|e| panic!("{source:?} {a}→{b} {message:?}: the patch fails: {e}"));
    assert_eq!(
        document,
        state_at(source, b, message),
        "{source:?} diff {a}→{b} {message:?}"
    );
}

#[test]
fn diff_is_the_patch_from_state_at_a_to_state_at_b() {
    let demo = demo();
    let source = [p(&demo)];
    for (a, b) in [
        (0, 45),
        (3, 20),
        (20, 3),
        (13, 19),
        (15, 16),
        (16, 17),
        (38, 40),
        (44, 45),
        (1, 39),
    ] {
        assert_diff_takes_a_to_b(&source, a, b, None);
    }
    // Nothing changes: an empty patch.
    assert!(diff_of(&source, 10, 10, None).0.is_empty());
    assert!(
        !diff_of(&source, 13, 14, None).0.is_empty(),
        "a delta changes the document"
    );
}

#[test]
fn diff_message_is_the_patch_of_one_message() {
    let demo = demo();
    let source = [p(&demo)];
    for (id, a, b) in [
        ("plan-1", 4, 27),
        ("plan-1", 27, 40),
        ("plan-1", 39, 40),
        ("plan-1", 4, 45),
        ("search-1", 13, 19),
        ("search-1", 17, 18),
        ("search-1", 19, 13),
        ("hotels-1", 35, 38),
        ("a-2", 28, 32),
    ] {
        assert_diff_takes_a_to_b(&source, a, b, Some(id));
    }
    // A message absent at A diffs from `null`.
    let patch = diff_of(&source, 5, 14, Some("search-1"));
    let mut document = Value::Null;
    json_patch::patch(&mut document, &patch.0).expect("applies to null");
    assert_eq!(document, state_at(&source, 14, Some("search-1")));
}

#[test]
fn diff_on_a_recording_session_starts_from_its_run_input() {
    let rec = import_rec("diffrec", &[p(&har())]);
    let source = [rec.path(), "--session", "2"];
    assert_diff_takes_a_to_b(&source, 0, 9, None);
    assert_diff_takes_a_to_b(&source, 2, 5, Some("plan-1"));
    let patch = diff_of(&source, 0, 9, None);
    let touches_run_input = patch.0.iter().any(|op| {
        let path = serde_json::to_value(op).expect("op")["path"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        path == "/messages/0" || path.starts_with("/state")
    });
    assert!(
        !touches_run_input,
        "the run input is step 0 already: {}",
        serde_json::to_string(&patch).expect("json")
    );
}

#[test]
fn diff_refuses_bad_steps_and_unknown_messages() {
    let demo = demo();
    for args in [
        vec!["diff", p(&demo), "--from", "0", "--to", "46"],
        vec!["diff", p(&demo), "--from", "46", "--to", "1"],
        vec![
            "diff",
            p(&demo),
            "--from",
            "1",
            "--to",
            "45",
            "--message",
            "nope",
        ],
        vec!["diff", p(&demo), "--from", "1"],
    ] {
        let output = run(&args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stdout(&output));
        assert!(!stderr(&output).is_empty(), "{args:?} says why");
    }
}

mod diff_properties {
    use crate::generator::{GenConfig, generate};
    use agui_replay::timeline::{CheckpointPolicy, Timeline};
    use agui_replay::{EventLog, Options, Replayer, Seq, read_path, replay_to};
    use proptest::prelude::*;
    use serde_json::Value;

    /// A timeline that keeps a checkpoint every few events, so that seeks
    /// start from many different ones.
    fn timeline(events: &EventLog) -> Timeline {
        Timeline::replaying(
            Replayer::new(Options::default()),
            events.clone(),
            CheckpointPolicy {
                max_cost: 2_000,
                op_cost: 48,
            },
        )
    }

    fn demo_events() -> EventLog {
        read_path(&super::demo()).expect("the demo reads").events
    }

    fn generated_events() -> EventLog {
        generate(GenConfig {
            events: 3_000,
            activities: 12,
            seed: 11,
        })
    }

    fn message_json(replayer: &Replayer, id: &str) -> Value {
        replayer
            .conversation()
            .get(id)
            .map_or(Value::Null, |m| m.to_json())
    }

    /// diff(A, B) applied to the document at A gives the document at B, for
    /// the whole document and for each of a few messages; seeking agrees
    /// with replaying from the start.
    fn check(events: &EventLog, timeline: &Timeline, ids: &[String], a: u64, b: u64) {
        let (at_a, at_b) = (timeline.seek(Seq(a)), timeline.seek(Seq(b)));
        let (doc_a, doc_b) = (at_a.document(), at_b.document());
        assert_eq!(
            doc_b,
            replay_to(events, Options::default(), Seq(b)).document(),
            "seek({b}) is the replay to {b}"
        );
        let patch = json_patch::diff(&doc_a, &doc_b);
        let mut patched = doc_a.clone();
        json_patch::patch(&mut patched, &patch.0).expect("the patch applies");
        assert_eq!(patched, doc_b, "{a}→{b}");
        for id in ids {
            let (msg_a, msg_b) = (message_json(&at_a, id), message_json(&at_b, id));
            let patch = json_patch::diff(&msg_a, &msg_b);
            let mut patched = msg_a;
            json_patch::patch(&mut patched, &patch.0).expect("the patch applies");
            assert_eq!(patched, msg_b, "{id} {a}→{b}");
        }
    }

    fn ids_of(timeline: &Timeline) -> Vec<String> {
        timeline
            .head()
            .conversation()
            .iter()
            .map(|m| m.id().to_owned())
            .take(6)
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn diff_then_patch_goes_from_a_to_b_on_the_demo(a in 0u64..=45, b in 0u64..=45) {
            thread_local! {
                static DEMO: (EventLog, Timeline) = {
                    let events = demo_events();
                    let timeline = timeline(&events);
                    (events, timeline)
                };
            }
            DEMO.with(|(events, timeline)| {
                assert_eq!(events.len(), 45);
                assert!(timeline.num_checkpoints() > 2, "seeks use checkpoints");
                check(events, timeline, &ids_of(timeline), a, b);
            });
        }

        #[test]
        fn diff_then_patch_goes_from_a_to_b_on_a_generated_stream(
            a in 0u64..=3_000,
            b in 0u64..=3_000,
        ) {
            thread_local! {
                static GENERATED: (EventLog, Timeline) = {
                    let events = generated_events();
                    let timeline = timeline(&events);
                    (events, timeline)
                };
            }
            GENERATED.with(|(events, timeline)| {
                assert_eq!(events.len(), 3_000);
                assert!(timeline.num_checkpoints() > 10, "seeks use checkpoints");
                check(events, timeline, &ids_of(timeline), a, b);
            });
        }
    }
}

#[test]
fn diff_scope_state_and_conversation_diff_one_part_of_the_document() {
    let demo = demo();
    for (scope, member) in [("state", "state"), ("conversation", "messages")] {
        for (a, b) in [(0, 45), (19, 20), (13, 19), (20, 3)] {
            let (from, to) = (a.to_string(), b.to_string());
            let args = [
                "diff",
                p(&demo),
                "--from",
                &from,
                "--to",
                &to,
                "--scope",
                scope,
            ];
            let patch = patch_out(&run(&args));
            let mut document = state_at(&[p(&demo)], a, None)[member].clone();
            json_patch::patch(&mut document, &patch.0).expect("the patch applies");
            assert_eq!(
                document,
                state_at(&[p(&demo)], b, None)[member],
                "{scope} {a}→{b}"
            );
        }
    }
    // The state changes at 20 (a delta), not at 27 (an activity delta).
    let state_only = |from: &str, to: &str| {
        patch_out(&run(&[
            "diff",
            p(&demo),
            "--from",
            from,
            "--to",
            to,
            "--scope",
            "state",
        ]))
    };
    assert!(!state_only("19", "20").0.is_empty());
    assert!(state_only("26", "27").0.is_empty());
    // --message and --scope do not go together.
    let output = run(&[
        "diff",
        p(&demo),
        "--from",
        "1",
        "--to",
        "2",
        "--message",
        "plan-1",
        "--scope",
        "state",
    ]);
    assert_eq!(code(&output), 2);
}

#[test]
fn an_export_that_fails_leaves_the_file_it_would_replace() {
    let demo = demo();
    for (format, name) in [("jsonl", "keep.jsonl"), ("recording", "keep.rec")] {
        let out = TempOut::new("failed-export", name);
        std::fs::write(&out.0, "precious\n").expect("written");
        for bad in [
            vec!["--to", "999"],
            vec!["--redact", "content/title"],
            vec!["--message", "no-such-activity", "--to", "10"],
        ] {
            let mut args = vec!["export", p(&demo), "--format", format, "--out", out.path()];
            args.push("--force");
            args.extend(bad.iter().copied());
            let output = run(&args);
            assert_eq!(code(&output), 2, "{args:?}");
            assert_eq!(
                std::fs::read_to_string(&out.0).expect("still there"),
                "precious\n",
                "{args:?}"
            );
        }
        // A good export replaces it, and leaves nothing beside it.
        let output = run(&[
            "export",
            p(&demo),
            "--format",
            format,
            "--out",
            out.path(),
            "--force",
        ]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_ne!(std::fs::read(&out.0).expect("written"), b"precious\n");
        let dir = out.0.parent().unwrap();
        let partial = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.contains("failed-export") && name.ends_with(".partial")
            });
        assert!(!partial, "no partial file is left");
    }
}

#[test]
fn export_refuses_to_write_over_its_input() {
    let copy = TempOut::new("over-input", "demo.jsonl");
    std::fs::copy(demo(), &copy.0).expect("copied");
    let before = std::fs::read(&copy.0).unwrap();
    let output = run(&["export", copy.path(), "--out", copy.path(), "--force"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("the output is the input"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&copy.0).unwrap(), before);
}

// ------------------------------------------------------------- conformance

/// A folder of fixtures under the temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str, name: &str) -> Self {
        let path = std::env::temp_dir()
            .join(format!("agui-replay-cli-{}-{test}", std::process::id()))
            .join(name);
        std::fs::create_dir_all(&path).expect("temp dir");
        Self(path)
    }

    fn copy_fixture(&self, folder: &str, name: &str) {
        let from = manifest_path(&format!("tests/conformance/{folder}/{name}.json"));
        std::fs::copy(from, self.0.join(format!("{name}.json"))).expect("copy fixture");
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(parent) = self.0.parent() {
            let _ = std::fs::remove_dir_all(parent);
        }
    }
}

#[test]
fn conformance_prints_the_table_and_exits_by_result() {
    // Issue 11: `conformance DIR...` judges the corpus; exit 0 when all pass.
    let dir = TempDir::new("conformance-pass", "1.1");
    dir.copy_fixture("1.1", "triad-assembles-message");
    dir.copy_fixture("1.1", "current-peer-declares-protocol-version");
    let output = run(&["conformance", p(&dir.0), "--profile", "spec"]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    let row = text
        .lines()
        .find(|l| l.contains("spec") && l.contains("1.1"))
        .unwrap_or_else(|| panic!("no table row:\n{text}"));
    let numbers: Vec<&str> = row.split_whitespace().skip(3).collect();
    assert_eq!(numbers, ["2", "2", "6", "1"], "{row}");

    // The client profile is a 1.0 consumer: a 1.1 declaration warns, so
    // the quiet fixtures fail, and the exit code says so.
    let output = run(&[
        "conformance",
        p(&dir.0),
        "--profile",
        "ag-ui-client-1.0",
        "--format",
        "json",
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["passed"], json!(false));
    assert_eq!(report["folders"][0]["protocol"], json!("1.0"));
    let failed: Vec<&str> = report["folders"][0]["fixtures"][0]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["verdict"] == json!("failed"))
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["noWarnings"], "{report}");
}

#[test]
fn conformance_without_fixtures_is_a_usage_error() {
    let dir = TempDir::new("conformance-empty", "none");
    let output = run(&["conformance", p(&dir.0)]);
    assert_eq!(code(&output), 2, "{}", stdout(&output));
    assert!(
        stderr(&output).contains("no fixtures"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn protocol_option_decides_the_version_warning() {
    // Issue 11, §11: a 1.1 declaration is quiet for a 1.1 consumer (the
    // default) and warns for a 1.0 one, naming both versions.
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}),
        run_finished(),
    ];
    let file = TempFile::jsonl("protocol", "s.jsonl", &events);
    let (_, default) = check_json(&[file.path()]);
    assert_eq!(seq_codes(&default), vec![]);
    let (_, old) = check_json(&[file.path(), "--protocol", "1.0"]);
    assert_eq!(
        seq_codes(&old),
        vec![(1, "protocol.version.newer".to_owned())]
    );
    let message = old["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("1.1") && message.contains("1.0"),
        "{message}"
    );
    let output = run(&["check", file.path(), "--protocol", "2.0"]);
    assert_eq!(code(&output), 2);
}

// ---------------------------------------------------------------------------
// `rules` (issue 11): the rules reference built into the binary.

#[test]
fn rules_prints_one_rule_by_its_id() {
    let output = run(&["rules", "R14"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with(
            "R14: A patch that does not apply skips the event (§4. Activity deltas)\n"
        ),
        "{text}"
    );
    assert!(text.contains("the whole event is skipped"), "{text}");
    assert!(
        text.contains("codes: activity.patch.failed (warning)"),
        "{text}"
    );
    assert!(!text.contains("R15:"), "one rule only: {text}");
    // Ids are case-blind.
    assert_eq!(stdout(&run(&["rules", "r14"])), text);
}

#[test]
fn rules_prints_the_rule_behind_a_diagnostic_code() {
    let output = run(&["rules", "activity.delta.unknown-target"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("activity.delta.unknown-target (warning): "),
        "{text}"
    );
    assert!(text.contains("\nR12: "), "{text}");
}

#[test]
fn rules_without_an_id_prints_every_rule_and_every_code() {
    let output = run(&["rules"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    for heading in ["\nR1: ", "\nR64: ", "\nD3: ", "\nP6: ", "\nC4: ", "\nE8: "] {
        assert!(text.contains(heading), "{heading} in the listing");
    }
    for code in agui_replay::Code::ALL {
        assert!(
            text.lines()
                .any(|line| line.starts_with(code.as_str())
                    && line.contains(code.severity().as_str())),
            "{code} and its severity in the code list"
        );
    }
    // A section alone.
    let section = stdout(&run(&["rules", "§11"]));
    assert!(section.starts_with("§11. "), "{section}");
    assert!(section.contains("\nC1: ") && !section.contains("\nR14: "));
}

#[test]
fn rules_with_an_unknown_id_is_a_usage_error_saying_how_to_list_them() {
    // Shaped like a rule id, defined nowhere (spelled so that the scan of
    // cited rule ids does not take it for one).
    let unknown = format!("R{}", 99);
    let output = run(&["rules", &unknown]);
    assert_eq!(code(&output), 2);
    assert!(stdout(&output).is_empty());
    let error = stderr(&output);
    assert!(
        error.contains(&format!("no rule or diagnostic code named {unknown:?}"))
            && error.contains("`agui-replay rules` prints them all"),
        "{error}"
    );
}
