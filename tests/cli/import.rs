//! `import`: recordings and HAR files, one session per event stream, and
//! `--session` to pick one.

use serde_json::json;

use crate::common::events::*;
use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

// ------------------------------------------------ recordings and HAR files

/// Imports `inputs` into a new recording through the binary.
pub(crate) fn import_rec(test: &str, inputs: &[&str]) -> TempPath {
    let rec = TempPath::new(test, "import.rec");
    let mut args = vec!["import"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--out", rec.s()]);
    let output = run(&args);
    assert_eq!(code(&output), 0, "import {inputs:?}: {}", stderr(&output));
    rec
}

#[test]
fn import_of_a_har_file_lists_one_session_per_event_stream() {
    let rec = TempPath::new("harimport", "har.rec");
    let output = run(&["import", p(&har()), "--out", rec.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("session 1: 7 events"), "{text}");
    assert!(text.contains("session 2: 9 events"), "{text}");
    assert!(text.contains("2 sessions, 16 events"), "{text}");

    // Importing again over it needs --force.
    let again = run(&["import", p(&har()), "--out", rec.s()]);
    assert_eq!(code(&again), 2);
    assert!(stderr(&again).contains(rec.s()), "{}", stderr(&again));
    let forced = run(&["import", p(&demo()), "--out", rec.s(), "--force"]);
    assert_eq!(code(&forced), 0, "{}", stderr(&forced));
    let (_, report) = check_json(&[rec.s()]);
    assert_eq!(report["events"], 45, "the forced import replaced the file");
}

#[test]
fn check_on_a_recording_with_several_sessions_needs_one() {
    let rec = import_rec("harcheck", &[p(&har())]);
    let output = run(&["check", rec.s()]);
    assert_eq!(code(&output), 2, "stdout: {}", stdout(&output));
    let message = stderr(&output);
    assert!(message.contains(rec.s()), "names the file: {message}");
    assert!(message.contains("--session"), "says how to pick: {message}");
    assert!(
        message.contains("1: ") && message.contains("2: ") && message.contains("2 sessions"),
        "lists the sessions: {message}"
    );

    let output = run(&["check", rec.s(), "--session", "3"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains(rec.s()), "{}", stderr(&output));
}

#[test]
fn check_session_n_replays_that_session_of_a_recording_or_har_file() {
    let rec = import_rec("harsession", &[p(&har())]);
    for (session, num_events) in [("1", 7), ("2", 9)] {
        let (output, from_rec) = check_json(&[rec.s(), "--session", session]);
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
    let (_, second) = check_json(&[rec.s(), "--session", "2"]);
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
    let output = run(&["state", rec.s(), "--session", "2", "--at", "0"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let at_zero = json_out(&output);
    assert_eq!(at_zero["messages"].as_array().expect("messages").len(), 3);
    assert_eq!(at_zero["state"], json!({"theme": "dark"}));

    // A HAR file with several streams needs --session too.
    let output = run(&["check", p(&har())]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains(p(&har())), "{}", stderr(&output));
}

// ---------------------------------------------------------------- snapshots

#[test]
fn import_outputs_are_the_snapshots() {
    let rec = TempPath::new("snapshot", "import.rec");
    let import = [
        "import",
        "recordings/demo.jsonl",
        "tests/samples/two-streams.har",
        "--out",
        rec.s(),
    ];
    assert_output!("demo_and_har_summary", transcript(&import));
    assert_output!("over_an_existing_file", transcript(&import));
    assert_output!("check_without_session", transcript(&["check", rec.s()]));
    assert_output!(
        "check_session_3",
        transcript(&["check", rec.s(), "--session", "3"])
    );
}

// ------------------------------------------------ secrets (issue 38)

/// A secret an agent echoes: never to be stored by an import.
const ECHOED_SECRET: &str = "sk-import-echo-0123456789";
/// A secret a stream file carries in its `RUN_STARTED.input` alone.
const FILE_SECRET: &str = "sk-import-file-9876543210";

/// A HAR file of one exchange: a request body with a secret in
/// `forwardedProps`, and an agent that echoes the run input in
/// `RUN_STARTED.input` and the secret's value in a `CUSTOM` event.
fn har_with_an_echoed_secret() -> String {
    let input = json!({"threadId": "t", "runId": "r", "messages": [], "state": {},
        "forwardedProps": {"apiKey": ECHOED_SECRET, "model": "m"}});
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": input}),
        json!({"type": "CUSTOM", "name": "echo", "value": {"key": ECHOED_SECRET}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
    "entries": [{
        "startedDateTime": "2026-03-14T09:26:50.001Z",
        "request": {"method": "POST", "url": "https://agent.example/run",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"},
                        {"name": "Authorization", "value": "Bearer header-secret-1"}],
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": input.to_string()}},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
            "cookies": [], "redirectURL": "", "headersSize": -1, "bodySize": -1,
            "content": {"size": -1, "mimeType": "text/event-stream", "text": sse(&events)}},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 1}
    }]}})
    .to_string()
}

fn holds(bytes: &[u8], secret: &str) -> bool {
    bytes.windows(secret.len()).any(|w| w == secret.as_bytes())
}

/// Issue 38: `import` hides what `record` hides. The run input an agent
/// echoes in `RUN_STARTED.input` (of a HAR exchange, or of a stream file
/// with no request at all) and any copy of a value the request body hid
/// are stored `[redacted]`, the recording says what was hidden, and no
/// export of it (nor a recording imported again) holds the secret.
#[test]
fn import_hides_the_secrets_of_an_echoed_run_input_as_record_does() {
    let har = TempPath::with_bytes(
        "importsecret",
        "echo.har",
        har_with_an_echoed_secret().as_bytes(),
    );
    let file = TempPath::jsonl(
        "importsecret",
        "echo.jsonl",
        &[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": {
                "threadId": "t", "runId": "r", "messages": [],
                "forwardedProps": {"nested": {"access_token": FILE_SECRET}, "model": "m"}}}),
            run_finished(),
        ],
    );
    let rec = import_rec("importsecret", &[har.s(), file.s()]);
    let bytes = rec.read();
    assert!(
        !holds(&bytes, ECHOED_SECRET),
        "the .rec holds the echoed secret"
    );
    assert!(
        !holds(&bytes, FILE_SECRET),
        "the .rec holds the stream file's secret"
    );
    assert!(
        !holds(&bytes, "header-secret-1"),
        "the .rec holds the header"
    );

    let recording = agui_replay::store::Recording::open(rec.path()).expect("opens");
    let sessions = recording.sessions();
    assert_eq!(sessions.len(), 2);
    for (session, hidden) in [
        (&sessions[0], "event /input/forwardedProps/apiKey"),
        (&sessions[0], "event (a value the request body hid)"),
        (
            &sessions[1],
            "event /input/forwardedProps/nested/access_token",
        ),
    ] {
        assert!(
            session.redacted.iter().any(|h| h == hidden),
            "{hidden} in {:?}",
            session.redacted
        );
    }
    let events = crate::common::store::raw_events(&recording, &sessions[0]);
    let started: serde_json::Value = serde_json::from_slice(&events[0]).expect("JSON");
    assert_eq!(started["input"]["forwardedProps"]["apiKey"], "[redacted]");
    assert_eq!(
        started["input"]["forwardedProps"]["model"], "m",
        "the rest is kept"
    );
    let custom: serde_json::Value = serde_json::from_slice(&events[1]).expect("JSON");
    assert_eq!(custom["value"]["key"], "[redacted]");
    drop(recording);

    // What a reader sees of it: the stored index and the exports.
    for session in ["1", "2"] {
        let (output, report) = check_json(&[rec.s(), "--session", session]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert!(!holds(&output.stdout, ECHOED_SECRET) && !holds(&output.stdout, FILE_SECRET));
        assert_eq!(report["outcome"], "ok");
        let jsonl = TempPath::new("importsecret", &format!("out{session}.jsonl"));
        run_ok(&["export", rec.s(), "--session", session, "--out", jsonl.s()]);
        let exported = jsonl.read();
        assert!(!holds(&exported, ECHOED_SECRET) && !holds(&exported, FILE_SECRET));
    }
    // Imported again, the recording stays without them.
    let again = import_rec("importsecret-again", &[rec.s()]);
    let bytes = again.read();
    assert!(!holds(&bytes, ECHOED_SECRET) && !holds(&bytes, FILE_SECRET));
}
