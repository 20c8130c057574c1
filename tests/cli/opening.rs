//! Issue 38, "nothing leaks, nothing is lost": opening a recording (the
//! library's `Recording::open`, and `check` and `state`, which open it the
//! same way) creates and changes nothing beside it, and reads the commits
//! its `-wal` holds, on read-only media too.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use agui_replay::store::{Arrival, NewSession, Recording, RecordingWriter};

use crate::common::bin::{BIN, KillOnDrop, run};
use crate::common::{TempDir, p};

/// The events every recording here holds.
const EVENTS: [&str; 5] = [
    r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hello"}"#,
    r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
];

/// Every file of a folder: its name, bytes and modification time.
fn folder_state(dir: &Path) -> Vec<(String, Vec<u8>, Option<std::time::SystemTime>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("list the folder")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let path = entry.path();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(&path).expect("read"),
                std::fs::metadata(&path).and_then(|m| m.modified()).ok(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Fails unless `dir` is exactly as `before`, naming what changed.
fn assert_folder_unchanged(
    dir: &Path,
    before: &[(String, Vec<u8>, Option<std::time::SystemTime>)],
    after: &str,
) {
    let now = folder_state(dir);
    let names = |state: &[(String, Vec<u8>, Option<std::time::SystemTime>)]| {
        state.iter().map(|f| f.0.clone()).collect::<Vec<_>>()
    };
    assert_eq!(
        names(&now),
        names(before),
        "files created or removed by {after}"
    );
    for (now, then) in now.iter().zip(before) {
        assert!(now.1 == then.1, "{} rewritten by {after}", now.0);
        assert_eq!(now.2, then.2, "{} touched by {after}", now.0);
    }
}

/// A live recording of [`EVENTS`] whose events are committed into its
/// `-wal` only (no checkpoint yet): its writer, still open.
fn writer_with_events_in_its_log(path: &Path) -> RecordingWriter {
    let mut writer = RecordingWriter::create(path, false).expect("a live recording");
    writer
        .begin_session(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            ..Default::default()
        })
        .expect("a session");
    for event in EVENTS {
        writer
            .append(event.as_bytes(), Arrival::now())
            .expect("an event");
    }
    writer.flush().expect("committed, into the log");
    writer
}

/// The events of the only session, raw.
fn events_of(path: &Path) -> Vec<String> {
    let recording = Recording::open(path).expect("opens");
    let session = recording.pick_session(None).expect("one session").id;
    let log = recording.load_events(session).expect("events");
    log.iter()
        .map(|(_, raw)| String::from_utf8_lossy(raw).into_owned())
        .collect()
}

/// A `.rec` and its `-wal` without a `-shm`, as a bug report attaches them
/// (or as read-only media hold them), in a folder of their own.
fn recording_with_log_without_index(name: &str) -> (TempDir, PathBuf) {
    let live = TempDir::new(&format!("{name}-live"));
    let rec = live.join("live.rec");
    let writer = writer_with_events_in_its_log(&rec);
    let copies = TempDir::new(name);
    let copy = copies.join("attached.rec");
    std::fs::copy(&rec, &copy).expect("copy the .rec");
    std::fs::copy(live.join("live.rec-wal"), copies.join("attached.rec-wal"))
        .expect("copy the -wal");
    drop(writer);
    (copies, copy)
}

// Issue 38, items 1 and 2 (c): a `.rec` with its `-wal` but no `-shm` was
// opened immutable, its log ignored (the events it held missing, without a
// word) where the `-shm` could not be made, and got a `-shm` beside it where
// it could.
#[test]
fn a_recording_with_its_log_but_no_index_is_read_whole_and_left_as_it_was() {
    let (dir, copy) = recording_with_log_without_index("log-no-index");
    let before = folder_state(&dir);
    assert_eq!(
        before.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["attached.rec", "attached.rec-wal"]
    );
    assert_eq!(events_of(&copy), EVENTS, "every event in the log is read");
    assert_folder_unchanged(&dir, &before, "Recording::open");
    for command in ["check", "state"] {
        let output =
            run(&[command, p(&copy), "--at", "5"][..if command == "check" { 2 } else { 4 }]);
        assert!(
            output.status.code().is_some_and(|c| c < 2),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_folder_unchanged(&dir, &before, command);
    }
}

// Issue 38, item 2 (a): a finished recording, opened, is left as it was.
#[test]
fn opening_a_finished_recording_creates_and_changes_nothing() {
    let dir = TempDir::new("finished");
    let rec = dir.join("done.rec");
    writer_with_events_in_its_log(&rec)
        .finish()
        .expect("finished");
    let before = folder_state(&dir);
    assert_eq!(events_of(&rec), EVENTS);
    run(&["check", p(&rec)]);
    run(&["state", p(&rec), "--at", "5"]);
    assert_folder_unchanged(&dir, &before, "opening");
}

/// Not a test of its own: the writer process that
/// [`opening_a_killed_recording_changes_neither_its_log_nor_its_index`]
/// kills (`kill -9`) once its events are committed into its log.
#[test]
#[ignore = "run as a child process by another test"]
fn killed_writer_child() {
    let Some(path) = std::env::var_os("AGUI_REPLAY_KILLED_WRITER") else {
        return;
    };
    let writer = writer_with_events_in_its_log(Path::new(&path));
    println!("committed");
    std::thread::sleep(Duration::from_secs(60));
    drop(writer);
}

// Issue 38, item 2 (b): opening a killed recorder's file took its `-shm`
// over and rewrote it.
#[test]
fn opening_a_killed_recording_changes_neither_its_log_nor_its_index() {
    let dir = TempDir::new("killed-writer");
    let rec = dir.join("killed.rec");
    let mut child = KillOnDrop(
        Command::new(std::env::current_exe().expect("this test binary"))
            .args([
                "--exact",
                "opening::killed_writer_child",
                "--ignored",
                "--nocapture",
            ])
            .env("AGUI_REPLAY_KILLED_WRITER", &rec)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the writer starts"),
    );
    let stdout = child.0.stdout.take().expect("stdout");
    let committed = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|line| line.contains("committed"));
    assert!(committed, "the writer committed its events");
    child.0.kill().expect("kill -9 the writer");
    child.0.wait().expect("reap it");
    let before = folder_state(&dir);
    let names: Vec<&str> = before.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["killed.rec", "killed.rec-shm", "killed.rec-wal"]);
    assert_eq!(events_of(&rec), EVENTS, "the events in the log are read");
    assert_folder_unchanged(&dir, &before, "Recording::open");
    run(&["check", p(&rec)]);
    assert_folder_unchanged(&dir, &before, "check");
    run(&["state", p(&rec), "--at", "5"]);
    assert_folder_unchanged(&dir, &before, "state");
}

// Issue 38, item 1, on real read-only media: a tmpfs mounted read-only in
// a mount namespace of its own (`unshare`), holding a `.rec` and its `-wal`
// without a `-shm`. `state` must show the events the log holds (the last
// one, RUN_FINISHED, ends the run) and change nothing.
#[test]
fn a_recording_on_read_only_media_is_read_with_its_log() {
    let (dir, copy) = recording_with_log_without_index("read-only-media");
    let media = TempDir::new("read-only-mount");
    let script = r#"set -e
mount -t tmpfs tmpfs "$1"
cp "$2" "$2-wal" "$1"/
mount -o remount,ro "$1"
touch "$1/probe" 2>/dev/null && { echo "the mount is writable"; exit 3; }
before=$(ls -l --full-time "$1"; sha256sum "$1"/*)
"$3" state --at 5 --message m "$1/attached.rec" > "$4/state.json" || true
after=$(ls -l --full-time "$1"; sha256sum "$1"/*)
[ "$before" = "$after" ] || { echo "changed: $before // $after"; exit 4; }
echo "read-only and unchanged"
"#;
    let output = Command::new("unshare")
        .args(["-rm", "sh", "-c", script, "sh"])
        .args([media.path(), copy.as_path(), Path::new(BIN), dir.path()])
        .output();
    let stdout = output
        .as_ref()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !stdout.contains("read-only and unchanged") {
        // No mount namespace here: the same files in a folder without
        // write permission, and the same reading (what decides how the log
        // is read is the files there, not whether the folder is writable).
        let stderr = output
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .unwrap_or_else(|e| e.to_string());
        assert!(
            !stdout.contains("changed") && !stdout.contains("writable"),
            "{stdout}{stderr}"
        );
        eprintln!("no read-only mount here ({stderr}); reading from a read-only folder instead");
        let before = folder_state(&dir);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555))
                .expect("a read-only folder");
        }
        let output = run(&["state", "--at", "5", "--message", "m", p(&copy)]);
        std::fs::write(media.join("state.json"), &output.stdout).expect("keep the state");
        assert_folder_unchanged(&dir, &before, "state");
        crate::common::temp::make_writable(dir.path()).expect("writable again");
        std::fs::copy(media.join("state.json"), dir.join("state.json")).expect("moved");
    }
    let state = std::fs::read_to_string(dir.join("state.json")).expect("the state");
    assert!(
        state.contains("hello"),
        "the message in the log is shown: {state}"
    );
}

// Issue 38, item 3: a recording whose 100-byte SQLite header is zeroed was
// "binary data", not a damaged recording.
#[test]
fn a_recording_with_a_zeroed_header_is_a_damaged_recording() {
    let dir = TempDir::new("zeroed-header");
    let rec = dir.join("good.rec");
    writer_with_events_in_its_log(&rec)
        .finish()
        .expect("finished");
    let mut bytes = std::fs::read(&rec).expect("the recording");
    bytes[..100].fill(0);
    for name in ["zeroed.rec", "zeroed.data"] {
        let damaged = dir.write(name, &bytes);
        let output = run(&["check", p(&damaged)]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains("recording is damaged"), "{name}: {stderr}");
        assert!(!stderr.contains("binary data"), "{name}: {stderr}");
    }
}

// Issue 38, item 4: a recording with no session said "the recording holds
// no session; pick one with --session N".
#[test]
fn an_empty_recording_says_it_holds_no_session_and_several_ask_for_one() {
    let dir = TempDir::new("no-session");
    let empty = dir.join("empty.rec");
    RecordingWriter::create(&empty, false)
        .expect("a recording")
        .finish()
        .expect("finished");
    let output = run(&["check", p(&empty)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("holds no session yet"), "{stderr}");
    assert!(!stderr.contains("pick one"), "{stderr}");

    let two = dir.join("two.rec");
    let mut writer = RecordingWriter::create(&two, false).expect("a recording");
    for source in ["one", "two"] {
        writer
            .begin_session(NewSession {
                source: source.into(),
                format: "sse".into(),
                ..Default::default()
            })
            .expect("a session");
        writer
            .append(EVENTS[0].as_bytes(), Arrival::now())
            .expect("an event");
    }
    writer.finish().expect("finished");
    let output = run(&["check", p(&two)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("2 sessions"), "{stderr}");
    assert!(stderr.contains("pick one with --session N"), "{stderr}");
}

// Issue 38, item 5: an import stopped by Ctrl+C or SIGTERM left its
// `.partial` file (1.1 GB for a large input) beside the output.
#[test]
fn a_stopped_import_removes_its_partial_file() {
    let dir = TempDir::new("stopped-import");
    let mut lines = String::new();
    lines.push_str(EVENTS[0]);
    lines.push('\n');
    for i in 0..400_000 {
        lines.push_str(&format!(
            "{{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":{{\"i\":{i},\"pad\":\"{}\"}}}}\n",
            "x".repeat(64)
        ));
    }
    let input = dir.write("big.jsonl", &lines);
    drop(lines);
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let out = dir.join("big.rec");
        let mut child = KillOnDrop(
            Command::new(BIN)
                .args(["import", p(&input), "--out", p(&out)])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the import starts"),
        );
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let partial = loop {
            let found = std::fs::read_dir(dir.path())
                .expect("list")
                .filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().ends_with(".partial"));
            if found {
                break true;
            }
            if child.0.try_wait().expect("wait").is_some() || std::time::Instant::now() > deadline {
                break false;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        assert!(partial, "the import wrote its partial file before ending");
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.0.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let status = child.0.wait().expect("the import ends");
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["big.jsonl"], "nothing left after SIG{signal}");
    }
}
