//! Exit codes: 0 when the run is ok, 1 when it failed, 2 on bad usage or
//! unreadable input, naming what was wrong.

use serde_json::json;

use crate::common::events::*;
use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

// ---------------------------------------------------------------- exit codes

#[test]
fn exit_0_when_the_run_is_ok() {
    let file = TempPath::jsonl("exit0", "s.jsonl", &[run_started(), run_finished()]);
    let output = run(&["check", file.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
}

#[test]
fn exit_1_when_the_first_event_is_not_run_started() {
    let file = TempPath::jsonl(
        "exit1",
        "s.jsonl",
        &[
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            run_finished(),
        ],
    );
    let output = run(&["check", file.s()]);
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
    let file = TempPath::with_bytes("exit1garbage", "s.jsonl", text.as_bytes());
    let (output, report) = check_json(&[file.s()]);
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
        let file = TempPath::with_bytes("exit2empty", name, contents);
        let output = run(&["check", file.s()]);
        assert_eq!(code(&output), 2, "{name}");
        assert!(
            stderr(&output).contains(file.s()),
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

// ---------------------------------------------------------------- snapshots

#[test]
fn usage_outputs_are_the_snapshots() {
    for (name, args) in [
        ("help", &["--help"][..]),
        ("check_help", &["check", "--help"]),
        (
            "unknown_flag",
            &["check", "recordings/demo.jsonl", "--no-such-flag"],
        ),
        (
            "bad_format_value",
            &["check", "recordings/demo.jsonl", "--format", "xml"],
        ),
    ] {
        assert_output!(name, transcript(args));
    }
}
