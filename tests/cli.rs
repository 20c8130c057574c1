//! The command-line contract of `PRODUCT.md`, tested through the built
//! binary: `check` (text and JSON), `state`, exit codes, standard input,
//! profiles and `--best-effort`.

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
