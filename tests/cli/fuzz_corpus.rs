//! The committed fuzz corpus (`fuzz/corpus/TARGET/`), replayed through the
//! normal binary: every seed and every input a fuzz run kept is checked with
//! `agui-replay check`, read as the file type its target reads, and must end
//! with a verdict (exit 0, 1 or 2), never a panic (101), a signal or a hang.
//! Issue 12, item 15: the fuzzers' findings stay as regression inputs.
//!
//! Inputs listed in `fuzz/known-crashes` crash the engine today because of
//! another item of issue 12, fixed on another branch; they are skipped here
//! (and by `fuzz/run`) until their line is removed from that file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::bin::BIN;
use crate::common::{TempDir, manifest_path};

/// Longer than any verdict takes on this corpus (a debug build).
const TIME_LIMIT: Duration = Duration::from_secs(120);

fn fuzz_dir() -> PathBuf {
    manifest_path("fuzz")
}

/// `corpus/TARGET/FILE` (or `regressions/TARGET/FILE`) paths from `fuzz/known-crashes` (first column).
fn known_crashes() -> BTreeSet<String> {
    let text = std::fs::read_to_string(fuzz_dir().join("known-crashes")).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// How a target's input becomes a file for `check`: its extension, or the
/// bytes on standard input (`None`) where the target reads by content.
fn extension(target: &str) -> Option<&'static str> {
    match target {
        "json_lines" => Some("jsonl"),
        "json_array" | "vector" => Some("json"),
        "sse" => Some("sse"),
        "proto" => Some("pb"),
        "har" => Some("har"),
        "recording" => Some("rec"),
        "patch" => Some("jsonl"),
        _ => None,
    }
}

/// The stream the patch target replays: the document as an activity's
/// content and as the state, the patch as deltas of each (see
/// `fuzz/fuzz_targets/patch.rs`). `None` for an input that target rejects.
fn patch_stream(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let (Some(Ok(doc)), Some(Ok(ops))) = (values.next(), values.next()) else {
        return None;
    };
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": doc}),
        json!({"type": "STATE_DELTA", "delta": ops}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "k", "content": doc}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "k", "patch": ops}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a", "patch": ops}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let mut stream = Vec::new();
    for event in &events {
        stream.extend(serde_json::to_vec(event).ok()?);
        stream.push(b'\n');
    }
    Some(stream)
}

/// Runs `check` on one input; `Err` says how it ended when it did not end
/// with a verdict.
fn check(target: &str, name: &str, bytes: &[u8], scratch: &Path) -> Result<(), String> {
    let contents = if target == "patch" {
        match patch_stream(bytes) {
            Some(stream) => stream,
            None => return Ok(()),
        }
    } else {
        bytes.to_vec()
    };
    let mut command = Command::new(BIN);
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env("NO_COLOR", "1");
    let file = match extension(target) {
        Some(ext) => {
            let file = scratch.join(format!("{target}-{name}.{ext}"));
            std::fs::write(&file, &contents).expect("write the input");
            command.arg("check").arg(&file).stdin(Stdio::null());
            Some(file)
        }
        None => {
            command.args(["check", "-"]).stdin(Stdio::piped());
            None
        }
    };
    let mut child = command.spawn().expect("the binary starts");
    if file.is_none() {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // The binary may stop reading early (a verdict before the end).
        let _ = stdin.write_all(&contents);
    }
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the binary") {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("no verdict after {} s", TIME_LIMIT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(file) = &file {
        if target == "recording" {
            let after = std::fs::read(file).expect("read the recording back");
            if after != contents {
                return Err("checking the recording modified it".into());
            }
        }
        let _ = std::fs::remove_file(file);
    }
    match status.code() {
        Some(0..=2) => Ok(()),
        Some(code) => Err(format!("exit code {code}")),
        None => Err(format!("killed by a signal ({status})")),
    }
}

/// Issue 12, item 15: no input of the committed fuzz corpus crashes the
/// binary.
#[test]
fn every_fuzz_corpus_input_gets_a_verdict() {
    let known = known_crashes();
    let scratch = TempDir::new("fuzz-corpus");
    let mut targets: Vec<PathBuf> = std::fs::read_dir(fuzz_dir().join("corpus"))
        .expect("fuzz/corpus exists")
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.is_dir())
        .collect();
    assert!(targets.len() >= 8, "a corpus per fuzz target: {targets:?}");
    // The minimized inputs of crashes the fuzzers found, by target.
    if let Ok(entries) = std::fs::read_dir(fuzz_dir().join("regressions")) {
        targets.extend(
            entries
                .map(|entry| entry.expect("a regressions entry").path())
                .filter(|path| path.is_dir()),
        );
    }
    targets.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in &targets {
        let target = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a target name");
        let root = dir
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .expect("corpus or regressions");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("a target's corpus")
            .map(|entry| entry.expect("a corpus file").path())
            .filter(|path| path.is_file())
            .collect();
        files.sort();
        for file in files {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a file name");
            if known.contains(&format!("{root}/{target}/{name}")) {
                continue;
            }
            let bytes = std::fs::read(&file).expect("read a corpus file");
            if let Err(how) = check(target, name, &bytes, &scratch) {
                failures.push(format!("fuzz/{root}/{target}/{name}: {how}"));
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} corpus inputs were checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} corpus inputs crashed the binary:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every line of `fuzz/known-crashes` names a file of the corpus, so that a
/// stale entry (a renamed seed) does not silently skip nothing.
#[test]
fn known_crashes_name_corpus_files() {
    for path in known_crashes() {
        assert!(
            fuzz_dir().join(&path).is_file(),
            "fuzz/known-crashes lists {path}, which is not in fuzz/"
        );
    }
}
