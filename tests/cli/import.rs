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
