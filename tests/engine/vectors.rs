//! The conformance vectors of `../shared/vectors` (copied to `tests/vectors`),
//! replayed through the library API and through the `check` binary.
//!
//! How a vector passes (vectors/README.md): the outcome matches; every
//! expected `(seq, code)` is reported; every reported `error` or `warning` is
//! expected (extra notes and infos are allowed); `messages` and `state`, when
//! given, equal the engine's.

use std::process::Command;

use agui_replay::{Options, Profile, read_path, replay_log};
use serde_json::Value;

use crate::common::events::seq_codes;
use crate::common::{load, vector_paths};

/// Checks an observed `{outcome, diagnostics, messages, state}` against a
/// vector's `expect`; returns the mismatches.
fn mismatches(expect: &Value, observed: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if expect["outcome"] != observed["outcome"] {
        problems.push(format!(
            "outcome: expected {}, got {}",
            expect["outcome"], observed["outcome"]
        ));
    }
    let reported: Vec<(u64, String, String)> = observed["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["seq"].as_u64().expect("seq"),
                d["code"].as_str().expect("code").to_owned(),
                d["severity"].as_str().expect("severity").to_owned(),
            )
        })
        .collect();
    let expected: Vec<(u64, String)> = seq_codes(expect);
    for (seq, code) in &expected {
        if !reported.iter().any(|(s, c, _)| s == seq && c == code) {
            problems.push(format!("missing diagnostic {code} at seq {seq}"));
        }
    }
    for (seq, code, severity) in &reported {
        let serious = severity == "error" || severity == "warning";
        if serious && !expected.iter().any(|(s, c)| s == seq && c == code) {
            problems.push(format!("unexpected {severity} {code} at seq {seq}"));
        }
    }
    for key in ["messages", "state"] {
        if let Some(value) = expect.get(key)
            && value != &observed[key]
        {
            problems.push(format!("{key}: expected {value}, got {}", observed[key]));
        }
    }
    problems
}

#[test]
fn there_are_vectors() {
    assert!(
        vector_paths().len() >= 35,
        "tests/vectors holds the shared vectors"
    );
}

#[test]
fn every_vector_passes_through_the_library() {
    let mut failures = Vec::new();
    for path in vector_paths() {
        let vector = load(&path);
        let profile: Profile = vector["profile"]
            .as_str()
            .unwrap_or("spec")
            .parse()
            .expect("profile");
        let stream = read_path(&path).expect("vector reads");
        assert_eq!(
            stream.events.len(),
            vector["events"].as_array().expect("events").len(),
            "{}",
            path.display()
        );
        let replayer = replay_log(
            &stream.events,
            Options {
                profile,
                best_effort: false,
                ..Options::default()
            },
        );
        let observed = serde_json::json!({
            "outcome": replayer.outcome().as_str(),
            "diagnostics": replayer.diagnostics(),
            "messages": replayer.conversation().to_json(),
            "state": replayer.state(),
        });
        for problem in mismatches(&vector["expect"], &observed) {
            failures.push(format!(
                "{}: {problem}",
                path.file_name().expect("name").to_string_lossy()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_vector_passes_through_the_check_binary() {
    let mut failures = Vec::new();
    for path in vector_paths() {
        let vector = load(&path);
        let output = Command::new(env!("CARGO_BIN_EXE_agui-replay"))
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .expect("runs");
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let observed: Value = match serde_json::from_slice(&output.stdout) {
            Ok(value) => value,
            Err(e) => {
                failures.push(format!("{name}: stdout is not JSON ({e})"));
                continue;
            }
        };
        // The contract's shape.
        for key in [
            "events",
            "outcome",
            "fatal",
            "diagnostics",
            "messages",
            "state",
        ] {
            if observed.get(key).is_none() {
                failures.push(format!("{name}: no `{key}` in the report"));
            }
        }
        let expected_code = if vector["expect"]["outcome"] == "failed" {
            1
        } else {
            0
        };
        if output.status.code() != Some(expected_code) {
            failures.push(format!(
                "{name}: exit code {:?}, expected {expected_code}",
                output.status.code()
            ));
        }
        if (observed["outcome"] == "failed") != observed["fatal"].is_object() {
            failures.push(format!(
                "{name}: `fatal` must be set exactly when the run failed"
            ));
        }
        for problem in mismatches(&vector["expect"], &observed) {
            failures.push(format!("{name}: {problem}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
