//! Recording files (`src/store`): import keeps every event byte for byte, a
//! killed writer leaves a file that opens with every committed event,
//! damaged, foreign and newer files get clear errors naming them, opening
//! never modifies a recording, and a HAR file becomes one session per event
//! stream with its request (secrets redacted) and response.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agui_replay::open::{SourceError, open_source};
use agui_replay::store::{
    APPLICATION_ID, Arrival, NewSession, REDACTED, Recording, RecordingWriter, SCHEMA_VERSION,
    SessionStatus, StoreError,
};
use agui_replay::{EventLog, Seq};
use base64::Engine as _;
use serde_json::Value;

use crate::common::store::{
    assert_names_file, assert_unchanged, demo_recording, file_state as snapshot, import,
};
use crate::common::temp::{SIDECARS, assert_no_sidecars};
use crate::common::{TempPath, code, demo, har, json_out, p, run, sidecar, stderr};

/// The events of a log, raw, in order.
fn raws(log: &EventLog) -> Vec<Vec<u8>> {
    log.iter().map(|(_, raw)| raw.to_vec()).collect()
}

/// The non-blank lines of a JSON-lines file, as the contract reads them.
fn lines_of(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .map(<[u8]>::to_vec)
        .collect()
}

fn joined_lines(events: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for event in events {
        bytes.extend_from_slice(event);
        bytes.push(b'\n');
    }
    bytes
}

// ------------------------------------------------------- import, byte for byte

#[test]
fn importing_the_demo_keeps_every_line_byte_for_byte() {
    let rec = TempPath::new("demo_bytes", "demo.rec");
    let imported = import(&[demo()], rec.path());
    let original = std::fs::read(demo()).expect("demo reads");
    let lines = lines_of(&original);
    assert_eq!(lines.len(), 45, "the demo has 45 events");
    assert_eq!(imported.len(), 1);
    assert_eq!(imported[0].num_events, 45);
    assert_no_sidecars(rec.path(), "after import");

    let recording = Recording::open(rec.path()).expect("opens");
    let sessions = recording.sessions();
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert_eq!(session.status, SessionStatus::Complete);
    assert_eq!(session.format, "jsonl");
    assert_eq!(session.num_events, 45);
    assert!(session.request.is_none() && session.response.is_none());

    let events = recording.load_events(session.id).expect("events load");
    assert_eq!(raws(&events), lines);
    assert_eq!(joined_lines(&raws(&events)), original);

    // The paged reader agrees, with the indexed columns filled in.
    let page = recording.events(session.id, 1..46).expect("page");
    assert_eq!(page.len(), 45);
    for (i, (event, line)) in page.iter().zip(&lines).enumerate() {
        assert_eq!(event.seq, Seq::new(i as u64 + 1));
        assert_eq!(&event.raw, line, "event {}", i + 1);
        let value: Value = serde_json::from_slice(line).expect("demo lines are JSON");
        assert_eq!(
            event.event_type.as_deref(),
            value["type"].as_str(),
            "type of event {}",
            i + 1
        );
        assert_eq!(
            event.message_id.as_deref(),
            value["messageId"].as_str(),
            "messageId of event {}",
            i + 1
        );
    }
    let middle = recording.events(session.id, 13..16).expect("page");
    let seqs: Vec<u64> = middle.iter().map(|e| e.seq.get()).collect();
    assert_eq!(seqs, [13, 14, 15]);

    // Arrival times come from the `timestamp`s, relative to the first one,
    // never going backwards.
    let timestamps: Vec<i64> = lines
        .iter()
        .map(|line| {
            serde_json::from_slice::<Value>(line).expect("JSON")["timestamp"]
                .as_i64()
                .expect("every demo event has a timestamp")
        })
        .collect();
    let mut latest = 0u64;
    let expected: Vec<u64> = timestamps
        .iter()
        .map(|t| {
            let nanos = u64::try_from(t - timestamps[0]).unwrap_or(0) * 1_000_000;
            latest = latest.max(nanos);
            latest
        })
        .collect();
    assert_eq!(
        recording.arrival_nanos(session.id).expect("arrival"),
        expected
    );
    let stored: Vec<u64> = page.iter().map(|e| e.arrival_nanos).collect();
    assert_eq!(stored, expected);
}

#[test]
fn importing_keeps_lines_that_are_not_events_verbatim() {
    let lines: Vec<Vec<u8>> = vec![
        br#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#.to_vec(),
        b"not json".to_vec(),
        br#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#.to_vec(),
        br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","del"#.to_vec(),
        b"\xff\xfe\x00binary \x01\x02 garbage\xc3".to_vec(),
        b"  {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m1\"}  \t".to_vec(),
        br#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}"#.to_vec(),
    ];
    let input = TempPath::with_bytes("not_events", "input.jsonl", &joined_lines(&lines));
    let rec = TempPath::new("not_events", "out.rec");
    let imported = import(&[input.path().to_owned()], rec.path());
    assert_eq!(imported[0].num_events, lines.len() as u64);

    let recording = Recording::open(rec.path()).expect("opens");
    let session = recording.pick_session(None).expect("one session").clone();
    let events = recording.load_events(session.id).expect("events load");
    assert_eq!(raws(&events), lines);
    let page = recording
        .events(session.id, 1..lines.len() as u64 + 1)
        .expect("page");
    assert_eq!(page[1].raw, b"not json");
    assert_eq!(page[1].event_type, None);
    assert_eq!(page[4].raw, lines[4]);

    // Replayed, the bad line is a diagnostic on its own step.
    let output = run(&["check", p(rec.path()), "--format", "json"]);
    let report = json_out(&output);
    assert_eq!(report["events"], lines.len());
    assert_eq!(report["diagnostics"][0]["seq"], 2, "{report}");
    assert_eq!(report["diagnostics"][0]["code"], "event.unparseable");
}

/// Issue 14's import rate: an import writes no SQL indexes unless asked
/// (nothing here queries them); with `sql_indexes` it ends with all three,
/// built while its timeline index is still replayed, for one session and
/// for several (a HAR file), and the queries that use them find the events.
/// Either way the file uses larger pages than SQLite's default.
#[test]
fn an_import_builds_the_sql_indexes_only_when_asked_for_one_session_and_several() {
    use agui_replay::store::{ImportOptions, SQL_INDEX_NAMES, import_files_with};
    for (name, input) in [("demo.rec", demo()), ("har.rec", har())] {
        for sql_indexes in [false, true] {
            let rec = TempPath::new("import_indexes", name);
            let imported = import_files_with(
                std::slice::from_ref(&input),
                rec.path(),
                ImportOptions { sql_indexes },
                &mut |_| {},
            )
            .expect("imports");
            assert!(!imported.is_empty());
            let conn = rusqlite::Connection::open_with_flags(
                rec.path(),
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .expect("opens");
            let mut statement = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'events_by_%' ORDER BY name")
                .expect("schema");
            let indexes: Vec<String> = statement
                .query_map([], |row| row.get(0))
                .expect("schema")
                .collect::<Result<_, _>>()
                .expect("schema");
            let expected: &[&str] = if sql_indexes { &SQL_INDEX_NAMES } else { &[] };
            assert_eq!(indexes, expected, "{name}, sql_indexes {sql_indexes}");
            if sql_indexes {
                let last = imported.last().expect("a session");
                let counted: i64 = conn
                    .query_row(
                        "SELECT count(*) FROM events INDEXED BY events_by_type WHERE session_id = ?1 AND type IS NOT NULL",
                        [last.id.get()],
                        |row| row.get(0),
                    )
                    .expect("the index answers");
                assert!(
                    counted > 0 && counted as u64 <= last.num_events,
                    "{name}: {counted}"
                );
            }
            let page_bytes: i64 = conn
                .query_row("PRAGMA page_size", [], |row| row.get(0))
                .expect("a page size");
            assert_eq!(page_bytes, agui_replay::store::PAGE_BYTES, "{name}");
        }
    }
}

// ------------------------------------------------------------- crash safety

/// The environment variable that turns [`crash_child_entry_point`] into a
/// writer; its value is the recording to write.
const CRASH_ENV: &str = "AGUI_REPLAY_CRASH_CHILD";

/// The name the test harness knows the child entry point by: its path
/// in this test binary (`store::crash_child_entry_point`).
fn crash_child() -> String {
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, module)| module);
    format!("{module}::crash_child_entry_point")
}

/// The committed count after which the parent kills the child.
const CRASH_AFTER: u64 = 300;

/// The bytes of event `i` of the crash test: deterministic, of varied
/// lengths, now and then not JSON at all (binary, a newline inside).
fn crash_event(i: u64) -> Vec<u8> {
    if i == 1 {
        return br#"{"type":"RUN_STARTED","threadId":"crash","runId":"crash-1"}"#.to_vec();
    }
    if i.is_multiple_of(37) {
        let mut bytes = b"\xff\xfe garbage\n\x00".to_vec();
        bytes.extend_from_slice(&i.to_le_bytes());
        return bytes;
    }
    format!(
        r#"{{"type":"CUSTOM","name":"tick","value":{{"i":{i},"pad":"{}"}}}}"#,
        "x".repeat((i % 29) as usize)
    )
    .into_bytes()
}

/// THE CHILD ENTRY POINT of `a_killed_writer_leaves_every_committed_event`,
/// not a test of its own: without `AGUI_REPLAY_CRASH_CHILD` it returns at
/// once. With it (the parent runs this test executable with `--exact
/// crash_child_entry_point --nocapture`), it writes a recording at that path,
/// printing `committed <n>` after each commit, until the parent kills it.
#[test]
fn crash_child_entry_point() {
    let Some(path) = std::env::var_os(CRASH_ENV) else {
        return;
    };
    let path = PathBuf::from(path);
    let mut writer = RecordingWriter::create(&path, false).expect("child creates the recording");
    writer
        .begin_session(NewSession {
            source: "crash test".into(),
            format: "jsonl".into(),
            ..NewSession::default()
        })
        .expect("child begins a session");
    let started = Instant::now();
    let mut stdout = std::io::stdout();
    // Bounded, in case the parent dies without killing it.
    let mut i = 0u64;
    while started.elapsed() < Duration::from_secs(60) && i < 1_000_000 {
        i += 1;
        writer
            .append(&crash_event(i), Arrival::now())
            .expect("child appends");
        if i.is_multiple_of(10) {
            writer.flush().expect("child commits");
            writeln!(stdout, "committed {i}").expect("child prints");
            stdout.flush().expect("child flushes stdout");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs the child until it reports `CRASH_AFTER` committed events, kills it
/// (SIGKILL) and returns the last committed count it printed.
fn run_and_kill_child(path: &Path) -> u64 {
    let exe = std::env::current_exe().expect("the test executable");
    let mut child = Command::new(exe)
        .args([
            "--exact",
            &crash_child(),
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CRASH_ENV, path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the child starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut last_committed = 0;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        if let Some(n) = line.trim().strip_prefix("committed ") {
            last_committed = n.parse().expect("a count");
            if last_committed >= CRASH_AFTER {
                break;
            }
        }
    }
    child.kill().expect("kill the child");
    let status = child.wait().expect("reap the child");
    assert!(
        !status.success(),
        "the child was killed, not finished: {status:?}"
    );
    assert!(
        last_committed >= CRASH_AFTER,
        "the child stopped after {last_committed} committed events"
    );
    last_committed
}

#[test]
fn a_killed_writer_leaves_every_committed_event() {
    let rec = TempPath::new("crash", "crash.rec");
    let committed = run_and_kill_child(rec.path());

    let main_before = std::fs::read(rec.path()).expect("the recording exists");
    let wal_before = std::fs::read(sidecar(rec.path(), "-wal")).ok();
    assert!(
        wal_before.is_some(),
        "the killed writer left its write-ahead log: the reader must recover from it"
    );

    let recording = Recording::open(rec.path()).expect("the crashed recording opens");
    let sessions = recording.sessions();
    assert_eq!(sessions.len(), 1, "{}", recording.describe_sessions());
    let session = sessions[0].clone();
    assert_eq!(session.status, SessionStatus::Incomplete);
    assert_eq!(session.source, "crash test");
    assert!(
        session.num_events >= committed,
        "{} events stored, {committed} committed",
        session.num_events
    );

    let events = recording.load_events(session.id).expect("events load");
    assert_eq!(events.len() as u64, session.num_events);
    for (seq, raw) in events.iter() {
        assert_eq!(raw, crash_event(seq.get()).as_slice(), "event {seq}");
    }
    let page = recording
        .events(session.id, 1..session.num_events + 1)
        .expect("page");
    assert_eq!(page.len() as u64, session.num_events);
    for (i, event) in page.iter().enumerate() {
        let seq = i as u64 + 1;
        assert_eq!(event.seq, Seq::new(seq));
        assert_eq!(event.raw, crash_event(seq), "event {seq}");
    }
    let arrival = recording.arrival_nanos(session.id).expect("arrival");
    assert_eq!(arrival.len() as u64, session.num_events);
    assert!(
        arrival.windows(2).all(|w| w[0] <= w[1]),
        "arrival times never go backwards"
    );
    drop(recording);

    // Reading the crashed file changed neither it nor its log.
    assert_eq!(std::fs::read(rec.path()).expect("reads"), main_before);
    assert_eq!(std::fs::read(sidecar(rec.path(), "-wal")).ok(), wal_before);

    // The command line reads it too: a stream, not unreadable input.
    let output = run(&["check", p(rec.path()), "--format", "json"]);
    assert_ne!(code(&output), 2, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output)["events"], session.num_events);

    // And a writer can add a session to it afterwards, leaving the crashed
    // one as it was.
    let mut writer = RecordingWriter::open(rec.path()).expect("opens for writing");
    writer
        .begin_session(NewSession {
            source: "after the crash".into(),
            format: "jsonl".into(),
            ..NewSession::default()
        })
        .expect("begins");
    writer
        .append(
            b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}",
            Arrival::now(),
        )
        .expect("appends");
    writer.finish().expect("finishes");
    let recording = Recording::open(rec.path()).expect("reopens");
    let sessions = recording.sessions();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0].status, SessionStatus::Incomplete);
    assert_eq!(sessions[0].num_events, session.num_events);
    assert_eq!(sessions[1].status, SessionStatus::Complete);
    assert_eq!(sessions[1].num_events, 1);
    let again = recording.load_events(session.id).expect("events load");
    assert_eq!(raws(&again), raws(&events));
}

// ------------------------------------------- corrupt, foreign, newer schema

/// Opens `path` as a recording and reads everything in it; returns the first
/// error. Panics if a damaged file reads without one.
fn first_error(path: &Path) -> StoreError {
    let recording = match Recording::open(path) {
        Ok(recording) => recording,
        Err(err) => return err,
    };
    for session in recording.sessions().to_vec() {
        if let Err(err) = recording.load_events(session.id) {
            return err;
        }
        if let Err(err) = recording.events(session.id, 1..u64::MAX) {
            return err;
        }
    }
    panic!(
        "{} reads without an error: {}",
        path.display(),
        recording.describe_sessions()
    );
}

/// `check` on `path`: exit 2 and a message naming the file.
fn assert_check_refuses(path: &Path) {
    let output = run(&["check", p(path)]);
    assert_eq!(
        code(&output),
        2,
        "check {}: stdout {} stderr {}",
        path.display(),
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    assert!(
        stderr(&output).contains(p(path)),
        "stderr does not name {}: {}",
        path.display(),
        stderr(&output)
    );
}

fn png_like_bytes() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    bytes.extend((0u32..2000).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    bytes
}

#[test]
fn a_text_file_is_not_a_recording() {
    let file = TempPath::with_bytes("text", "notes.rec", b"hello, these are my notes\n");
    let err = Recording::open(file.path()).err().expect("refused");
    assert!(matches!(err, StoreError::NotSqlite { .. }), "{err:?}");
    assert_names_file(&err, file.path());
    let err = RecordingWriter::open(file.path()).err().expect("refused");
    assert!(matches!(err, StoreError::NotSqlite { .. }), "{err:?}");
    assert_eq!(
        std::fs::read(file.path()).expect("reads"),
        b"hello, these are my notes\n",
        "refusing it left it as it was"
    );
}

#[test]
fn a_binary_file_is_not_a_recording() {
    let file = TempPath::with_bytes("png", "picture.rec", &png_like_bytes());
    let err = Recording::open(file.path()).err().expect("refused");
    assert!(matches!(err, StoreError::NotSqlite { .. }), "{err:?}");
    assert_names_file(&err, file.path());
}

#[test]
fn an_empty_or_missing_file_is_refused_naming_it() {
    let empty = TempPath::with_bytes("empty", "empty.rec", b"");
    let err = Recording::open(empty.path()).err().expect("refused");
    assert!(matches!(err, StoreError::NotSqlite { .. }), "{err:?}");
    assert_names_file(&err, empty.path());

    let missing = TempPath::new("missing", "missing.rec");
    let err = Recording::open(missing.path()).err().expect("refused");
    assert_names_file(&err, missing.path());
    assert!(!missing.path().exists(), "opening did not create it");
}

/// Text and binary files in which nothing reads as an event are not
/// streams (issue 12): one clear error naming the file (exit 2), saying
/// what they look like; nothing crashes.
#[test]
fn check_on_text_or_binary_files_is_one_clear_error_not_a_crash() {
    let text = TempPath::with_bytes("check_text", "notes.rec", b"hello, these are my notes\n");
    let binary = TempPath::with_bytes("check_png", "picture.rec", &png_like_bytes());
    for file in [&text, &binary] {
        let output = run(&["check", p(file.path()), "--format", "json"]);
        assert_eq!(code(&output), 2, "stderr: {}", stderr(&output));
        let message = stderr(&output);
        assert!(message.contains("not an AG-UI event stream"), "{message}");
        assert!(message.contains(p(file.path())), "{message}");
    }
}

#[test]
fn an_sqlite_database_of_another_application_is_foreign() {
    let db = TempPath::new("foreign", "other.db");
    {
        let conn = rusqlite::Connection::open(db.path()).expect("create");
        conn.execute_batch(
            "PRAGMA application_id = 1234567;
             CREATE TABLE contacts (name TEXT, phone TEXT);
             INSERT INTO contacts VALUES ('Ada', '555-0100');",
        )
        .expect("fill");
    }
    let before = std::fs::read(db.path()).expect("reads");
    let err = Recording::open(db.path()).err().expect("refused");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    assert_names_file(&err, db.path());
    let err = RecordingWriter::open(db.path()).err().expect("refused");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    assert_eq!(std::fs::read(db.path()).expect("reads"), before);
    assert_check_refuses(db.path());

    // One without any application id (the SQLite default) is foreign too.
    let plain = TempPath::new("foreign", "plain.db");
    {
        let conn = rusqlite::Connection::open(plain.path()).expect("create");
        conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .expect("fill");
    }
    let err = Recording::open(plain.path()).err().expect("refused");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    assert_names_file(&err, plain.path());
    assert_check_refuses(plain.path());
}

#[test]
fn a_recording_of_a_newer_schema_is_refused() {
    let rec = demo_recording("newer");
    {
        let conn = rusqlite::Connection::open(rec.path()).expect("open read-write");
        let id: i32 = conn
            .query_row("PRAGMA application_id", [], |row| row.get(0))
            .expect("application id");
        assert_eq!(id, APPLICATION_ID, "a recording carries its application id");
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .expect("version");
        assert_eq!(version, SCHEMA_VERSION);
        conn.execute_batch("PRAGMA user_version = 99")
            .expect("raise");
    }
    let before = std::fs::read(rec.path()).expect("reads");
    let err = Recording::open(rec.path()).err().expect("refused");
    match &err {
        StoreError::NewerSchema {
            found, supported, ..
        } => {
            assert_eq!(*found, 99);
            assert_eq!(*supported, SCHEMA_VERSION);
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    assert_names_file(&err, rec.path());
    assert!(err.to_string().contains("99"), "{err}");
    let err = RecordingWriter::open(rec.path()).err().expect("refused");
    assert!(matches!(err, StoreError::NewerSchema { .. }), "{err:?}");
    assert_eq!(
        std::fs::read(rec.path()).expect("reads"),
        before,
        "refusing it left it as it was"
    );
    assert_check_refuses(rec.path());
}

#[test]
fn a_truncated_recording_gives_a_clear_error() {
    let rec = demo_recording("truncated");
    let len = std::fs::metadata(rec.path()).expect("exists").len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(rec.path())
        .expect("open");
    file.set_len(len / 2).expect("truncate");
    drop(file);
    let err = first_error(rec.path());
    assert!(
        matches!(err, StoreError::Corrupt { .. }),
        "expected Corrupt, got {err:?}"
    );
    assert_names_file(&err, rec.path());
    assert!(
        matches!(
            open_source(rec.path(), None),
            Err(SourceError::Store(StoreError::Corrupt { .. }))
        ),
        "open_source reports the damage"
    );
    assert_check_refuses(rec.path());
}

/// Deterministic garbage.
fn garbage(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u8
        })
        .collect()
}

fn overwrite_from(path: &Path, offset: usize, seed: u64) {
    let mut bytes = std::fs::read(path).expect("reads");
    assert!(bytes.len() > offset, "{} is too small", path.display());
    let tail = garbage(bytes.len() - offset, seed);
    bytes[offset..].copy_from_slice(&tail);
    std::fs::write(path, bytes).expect("writes");
}

#[test]
fn a_recording_with_garbage_after_its_header_gives_a_clear_error() {
    // Everything after the 100-byte database header.
    let rec = demo_recording("garbage_header");
    overwrite_from(rec.path(), 100, 1);
    let err = first_error(rec.path());
    assert!(
        matches!(err, StoreError::Corrupt { .. }),
        "expected Corrupt, got {err:?}"
    );
    assert_names_file(&err, rec.path());
    assert_check_refuses(rec.path());

    // Every page after the first (the schema survives, the tables do not).
    let rec = demo_recording("garbage_pages");
    let header = std::fs::read(rec.path()).expect("reads");
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => usize::from(n),
    };
    assert!(header.len() > 2 * page_size, "several pages");
    overwrite_from(rec.path(), page_size, 2);
    let err = first_error(rec.path());
    assert!(
        matches!(err, StoreError::Corrupt { .. }),
        "expected Corrupt, got {err:?}"
    );
    assert_names_file(&err, rec.path());
    assert_check_refuses(rec.path());
}

// --------------------------------------------------- opening is read-only

#[test]
fn reading_a_recording_never_modifies_it() {
    let rec = TempPath::new("read_only", "two.rec");
    import(&[demo(), har()], rec.path());
    assert_no_sidecars(rec.path(), "after import");
    let before = snapshot(rec.path());

    {
        let recording = Recording::open(rec.path()).expect("opens");
        assert_eq!(
            recording.sessions().len(),
            3,
            "the demo and two HAR streams"
        );
        let second = Recording::open(rec.path()).expect("opens twice at once");
        for session in recording.sessions() {
            let events = recording.load_events(session.id).expect("loads");
            assert_eq!(events.len() as u64, session.num_events);
            let page = recording.events(session.id, 2..5).expect("page");
            assert_eq!(page.len(), 3);
            let arrival = second.arrival_nanos(session.id).expect("arrival");
            assert_eq!(arrival.len() as u64, session.num_events);
            let first_page = recording.events(session.id, 1..5).expect("first page");
            assert_eq!(first_page.len(), 4);
            assert_eq!(first_page[0].raw, events.get(Seq::new(1)).expect("seq 1"));
        }
        let demo_page = recording
            .events(recording.sessions()[0].id, 1..101)
            .expect("first page");
        assert_eq!(demo_page.len(), 45, "a page past the end stops there");
        assert_eq!(demo_page[0].event_type.as_deref(), Some("RUN_STARTED"));
        assert_eq!(
            demo_page[3].event_type.as_deref(),
            Some("ACTIVITY_SNAPSHOT")
        );
        assert!(recording.pick_session(None).is_err(), "three sessions");
        assert!(recording.pick_session(Some(4)).is_err());
    }
    assert_unchanged(rec.path(), &before, "Recording::open and reads");

    let outputs = TempPath::new("read_only", "out");
    let out = |name: &str| format!("{}-{name}", p(outputs.path()));
    let commands: Vec<Vec<String>> = vec![
        vec![
            "check".into(),
            p(rec.path()).into(),
            "--session".into(),
            "1".into(),
        ],
        vec![
            "check".into(),
            p(rec.path()).into(),
            "--session".into(),
            "3".into(),
            "--format".into(),
            "json".into(),
        ],
        vec!["check".into(), p(rec.path()).into()],
        vec![
            "state".into(),
            p(rec.path()).into(),
            "--session".into(),
            "1".into(),
            "--at".into(),
            "20".into(),
        ],
        vec![
            "state".into(),
            p(rec.path()).into(),
            "--session".into(),
            "1".into(),
            "--at".into(),
            "4".into(),
            "--message".into(),
            "plan-1".into(),
        ],
        vec![
            "diff".into(),
            p(rec.path()).into(),
            "--session".into(),
            "1".into(),
            "--from".into(),
            "3".into(),
            "--to".into(),
            "30".into(),
        ],
    ];
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(&args);
        // Without `--session`, three sessions are a usage error (exit 2);
        // with one, the stream replays.
        let expected_usage_error = !args.contains(&"--session");
        assert_eq!(
            code(&output) == 2,
            expected_usage_error,
            "{args:?}: {}",
            stderr(&output)
        );
        assert_unchanged(rec.path(), &before, &args.join(" "));
    }
    let mut written = Vec::new();
    for (format, extra) in [
        ("jsonl", vec![]),
        ("sse", vec!["--to", "9"]),
        ("vector", vec!["--message", "plan-1", "--to", "40"]),
        ("recording", vec!["--from", "2", "--to", "12"]),
    ] {
        let path = out(&format!("export.{format}"));
        let mut args = vec![
            "export",
            p(rec.path()),
            "--session",
            "1",
            "--format",
            format,
            "--out",
            &path,
        ];
        args.extend(extra);
        let output = run(&args);
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
        assert_unchanged(rec.path(), &before, &args.join(" "));
        written.push(PathBuf::from(path));
    }
    // The exported recording is finished too: no log left beside it.
    assert_no_sidecars(&written[3], "after export");
    for path in written {
        let _ = std::fs::remove_file(&path);
        for suffix in SIDECARS {
            let _ = std::fs::remove_file(sidecar(&path, suffix));
        }
    }
}

#[test]
fn a_finished_recording_stands_alone_without_a_log() {
    let rec = TempPath::new("standalone", "w.rec");
    let mut writer = RecordingWriter::create(rec.path(), false).expect("creates");
    writer
        .begin_session(NewSession {
            source: "test".into(),
            format: "jsonl".into(),
            ..NewSession::default()
        })
        .expect("begins");
    for i in 1..=50 {
        writer
            .append(&crash_event(i), Arrival::now())
            .expect("appends");
    }
    writer.flush().expect("commits");
    assert!(
        sidecar(rec.path(), "-wal").exists(),
        "a recording being written keeps a write-ahead log"
    );
    writer.finish().expect("finishes");
    assert_no_sidecars(rec.path(), "after finish");
    let recording = Recording::open(rec.path()).expect("opens");
    let session = &recording.sessions()[0];
    assert_eq!(session.status, SessionStatus::Complete);
    assert!(session.ended_at_unix_ms.is_some());
    let events = recording.load_events(session.id).expect("loads");
    let expected: Vec<Vec<u8>> = (1..=50).map(crash_event).collect();
    assert_eq!(raws(&events), expected);

    // Through the command line as well.
    let cli = TempPath::new("standalone", "cli.rec");
    let output = run(&["import", p(&demo()), "--out", p(cli.path())]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_no_sidecars(cli.path(), "after agui-replay import");
}

// ---------------------------------------------- following a live recording

/// Event `i` of session `session` in the live tests: small and distinct.
fn live_event(session: u64, i: u64) -> Vec<u8> {
    format!(r#"{{"type":"CUSTOM","name":"live","value":{{"session":{session},"i":{i}}}}}"#)
        .into_bytes()
}

/// What the writer of [`a_reader_follows_a_recording_being_written`] does:
/// session 1 in batches, session 2 begun midway, both appended to until the
/// end, then ended (complete and truncated) and the file finished. Returns
/// the events it wrote for each session.
fn write_live(path: &Path, started: std::sync::mpsc::Sender<()>) -> [Vec<Vec<u8>>; 2] {
    const BATCHES: u64 = 24;
    const PER_BATCH: u64 = 7;
    let mut writer = RecordingWriter::create(path, false).expect("creates");
    let first = writer
        .begin_session(NewSession {
            source: "live one".into(),
            format: "sse".into(),
            ..NewSession::default()
        })
        .expect("begins session 1");
    writer.flush().expect("commits the session");
    started.send(()).expect("the reader waits");
    let mut written: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
    let mut second = None;
    for batch in 0..BATCHES {
        if batch == BATCHES / 2 {
            second = Some(
                writer
                    .begin_session(NewSession {
                        source: "live two".into(),
                        format: "sse".into(),
                        ..NewSession::default()
                    })
                    .expect("begins session 2"),
            );
        }
        for _ in 0..PER_BATCH {
            let i = written[0].len() as u64 + 1;
            let raw = live_event(1, i);
            writer
                .append(&raw, Arrival::at(i * 1000).in_session(first))
                .expect("appends");
            written[0].push(raw);
            if let Some(second) = second {
                let i = written[1].len() as u64 + 1;
                let raw = live_event(2, i);
                writer
                    .append(&raw, Arrival::at(i * 1000).in_session(second))
                    .expect("appends");
                written[1].push(raw);
            }
        }
        // What a proxy's timer does between chunks.
        writer.flush_if_due().expect("commits when due");
        std::thread::sleep(Duration::from_millis(25));
    }
    writer
        .end(first, SessionStatus::Complete, Some(1))
        .expect("ends session 1");
    writer
        .end(
            second.expect("session 2 began"),
            SessionStatus::Truncated,
            Some(2),
        )
        .expect("ends session 2");
    writer
        .finish()
        .expect("finishes with a reader following it");
    written
}

#[test]
fn a_reader_follows_a_recording_being_written() {
    let rec = TempPath::new("follow", "live.rec");
    let path = rec.path().to_owned();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let writer = std::thread::spawn(move || write_live(&path, started_tx));
    started_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the writer started");

    let mut recording = Recording::open(rec.path()).expect("a live recording opens read-only");
    let mut seen: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
    let mut polls_with_news = 0;
    let mut second_seen_while_first_open = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // Whether the writer was done before this poll: then this poll sees
        // everything, and is the last.
        let writer_done = writer.is_finished();
        recording.refresh().expect("refreshes");
        let sessions = recording.sessions().to_vec();
        assert!(sessions.len() <= 2, "{}", recording.describe_sessions());
        let mut news = false;
        for (index, session) in sessions.iter().enumerate() {
            let last = Seq::new(seen[index].len() as u64);
            let events = recording
                .events_after(session.id, last)
                .expect("reads new events");
            for (offset, event) in events.iter().enumerate() {
                assert_eq!(
                    event.seq,
                    Seq::new(last.get() + offset as u64 + 1),
                    "session {}: events arrive once, in order, without gaps",
                    session.id
                );
                seen[index].push(event.raw.clone());
                news = true;
            }
            assert!(
                session.num_events <= seen[index].len() as u64,
                "the session list never runs ahead of the events"
            );
        }
        if sessions.len() == 2 && sessions[0].is_open() {
            second_seen_while_first_open = true;
        }
        polls_with_news += usize::from(news);
        if writer_done {
            break;
        }
        assert!(Instant::now() < deadline, "the writer never finished");
        std::thread::sleep(Duration::from_millis(15));
    }
    let written = writer.join().expect("the writer succeeds");
    assert_eq!(seen, written, "the reader saw every event exactly once");
    // The reader kept the file from leaving WAL mode, but every event was
    // folded into the main file: its log is empty.
    let wal = std::fs::metadata(sidecar(rec.path(), "-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "the finished recording left events in its log");
    assert!(
        polls_with_news >= 4,
        "the events arrived over several polls ({polls_with_news}), not all at the end"
    );
    assert!(
        second_seen_while_first_open,
        "the second session appeared while the first was still being written"
    );
    let sessions = recording.sessions();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0].status, SessionStatus::Complete);
    assert_eq!(sessions[1].status, SessionStatus::Truncated);
    assert!(sessions.iter().all(|s| !s.is_open()));
    assert_eq!(sessions[0].num_events, written[0].len() as u64);
    assert_eq!(sessions[1].num_events, written[1].len() as u64);
    assert_eq!(sessions[1].source, "live two");
    // Nothing new after the end.
    assert!(
        recording
            .events_after(sessions[0].id, Seq::new(sessions[0].num_events))
            .expect("reads")
            .is_empty()
    );
    drop(recording);
    let recording = Recording::open(rec.path()).expect("reopens");
    let events = recording
        .load_events(recording.sessions()[1].id)
        .expect("loads");
    assert_eq!(raws(&events), written[1]);
}

#[test]
fn opening_a_live_recording_reads_it_without_modifying_it() {
    let rec = TempPath::new("live_open", "live.rec");
    let mut writer = RecordingWriter::create(rec.path(), false).expect("creates");
    let session = writer
        .begin_session(NewSession {
            source: "live".into(),
            format: "sse".into(),
            ..NewSession::default()
        })
        .expect("begins");
    for i in 1..=40 {
        writer
            .append(&live_event(1, i), Arrival::now())
            .expect("appends");
    }
    writer.flush().expect("commits");
    let wal = sidecar(rec.path(), "-wal");
    assert!(wal.exists(), "a live recording has a write-ahead log");
    let before = snapshot(rec.path());
    let wal_before = std::fs::read(&wal).expect("the log reads");

    {
        let recording = Recording::open(rec.path()).expect("opens while being written");
        let info = recording.pick_session(None).expect("one session");
        assert!(info.is_open(), "still being written");
        assert_eq!(info.num_events, 40);
        let events = recording.load_events(session).expect("loads");
        assert_eq!(events.len(), 40);
        assert_eq!(
            recording
                .events_after(session, Seq::new(38))
                .expect("reads")
                .len(),
            2
        );
        assert!(recording.bookmarks(session).expect("lists").is_empty());
        assert!(recording.notes(session).expect("lists").is_empty());
    }
    let now = snapshot(rec.path());
    assert!(now.bytes == before.bytes, "opening changed the main file");
    assert_eq!(
        now.modified, before.modified,
        "opening touched the main file"
    );
    assert_eq!(
        std::fs::read(&wal).expect("the log reads"),
        wal_before,
        "opening changed the write-ahead log"
    );

    // The writer goes on, unaware of the reader.
    for i in 41..=45 {
        writer
            .append(&live_event(1, i), Arrival::now())
            .expect("appends after the reader");
    }
    writer.finish().expect("finishes");
    let recording = Recording::open(rec.path()).expect("opens");
    assert_eq!(recording.sessions()[0].num_events, 45);
    assert_eq!(recording.sessions()[0].status, SessionStatus::Complete);
}

/// A writer dropped without finishing (a proxy stopped in the middle) leaves
/// a file still in WAL mode but without its log: it opens read-only all the
/// same, without being modified.
#[test]
fn a_recording_left_in_wal_mode_without_its_log_opens_unmodified() {
    let rec = TempPath::new("wal_no_log", "left.rec");
    {
        let mut writer = RecordingWriter::create(rec.path(), false).expect("creates");
        writer
            .begin_session(NewSession {
                source: "left".into(),
                format: "sse".into(),
                ..NewSession::default()
            })
            .expect("begins");
        for i in 1..=10 {
            writer
                .append(&live_event(1, i), Arrival::now())
                .expect("appends");
        }
    }
    let before = snapshot(rec.path());
    assert_no_sidecars(rec.path(), "after the writer closed");
    {
        let recording = Recording::open(rec.path()).expect("opens");
        let info = recording.pick_session(None).expect("one session");
        assert_eq!(
            info.num_events, 10,
            "the dropped writer committed its batch"
        );
        assert_eq!(info.status, SessionStatus::Incomplete);
        assert_eq!(recording.load_events(info.id).expect("loads").len(), 10);
    }
    let now = snapshot(rec.path());
    assert!(now.bytes == before.bytes, "opening changed the file");
    assert_eq!(now.modified, before.modified, "opening touched the file");
    // SQLite gives a read-only connection to a WAL-mode file an empty log
    // (and its index) beside it; the recording itself is untouched.
    let wal = std::fs::metadata(sidecar(rec.path(), "-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "reading wrote to the log");
}

// ------------------------------------------------------------------ HAR

/// One event-stream exchange of the HAR file, read independently of the
/// library: request, response status and headers, and the SSE `data:`
/// payloads of its body.
struct HarStream {
    started: String,
    method: String,
    url: String,
    request_headers: Vec<(String, String)>,
    body: String,
    status: u64,
    response_headers: Vec<(String, String)>,
    events: Vec<Vec<u8>>,
}

fn headers_of(value: &Value) -> Vec<(String, String)> {
    value
        .as_array()
        .expect("headers")
        .iter()
        .map(|h| {
            (
                h["name"].as_str().expect("name").to_owned(),
                h["value"].as_str().expect("value").to_owned(),
            )
        })
        .collect()
}

/// The `data:` payloads of an SSE body, one per event.
fn sse_payloads(body: &[u8]) -> Vec<Vec<u8>> {
    let text = String::from_utf8(body.to_vec()).expect("UTF-8 body");
    let text = text.replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|rest| rest.strip_prefix(' ').unwrap_or(rest))
                .collect();
            (!data.is_empty()).then(|| data.join("\n").into_bytes())
        })
        .collect()
}

fn har_streams() -> Vec<HarStream> {
    let document: Value =
        serde_json::from_slice(&std::fs::read(har()).expect("HAR reads")).expect("HAR is JSON");
    document["log"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|entry| {
            entry["response"]["content"]["mimeType"]
                .as_str()
                .is_some_and(|m| m.to_ascii_lowercase().starts_with("text/event-stream"))
        })
        .map(|entry| {
            let content = &entry["response"]["content"];
            let text = content["text"].as_str().expect("body");
            let body = if content["encoding"] == "base64" {
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .expect("base64")
            } else {
                text.as_bytes().to_vec()
            };
            HarStream {
                started: entry["startedDateTime"].as_str().expect("date").to_owned(),
                method: entry["request"]["method"]
                    .as_str()
                    .expect("method")
                    .to_owned(),
                url: entry["request"]["url"].as_str().expect("url").to_owned(),
                request_headers: headers_of(&entry["request"]["headers"]),
                body: entry["request"]["postData"]["text"]
                    .as_str()
                    .expect("request body")
                    .to_owned(),
                status: entry["response"]["status"].as_u64().expect("status"),
                response_headers: headers_of(&entry["response"]["headers"]),
                events: sse_payloads(&body),
            }
        })
        .collect()
}

#[test]
fn a_har_file_becomes_one_session_per_event_stream() {
    let streams = har_streams();
    assert_eq!(streams.len(), 2, "the sample holds two event streams");
    let rec = TempPath::new("har", "har.rec");
    let imported = import(&[har()], rec.path());
    assert_eq!(imported.len(), 2);

    let recording = Recording::open(rec.path()).expect("opens");
    let sessions = recording.sessions().to_vec();
    assert_eq!(sessions.len(), 2);
    for ((session, stream), imported) in sessions.iter().zip(&streams).zip(&imported) {
        let label = format!("session {}", session.id);
        assert_eq!(imported.id, session.id);
        assert_eq!(imported.num_events, stream.events.len() as u64, "{label}");
        assert_eq!(session.format, "har", "{label}");
        assert_eq!(session.status, SessionStatus::Complete, "{label}");
        let started: jiff::Timestamp = stream.started.parse().expect("a date");
        assert_eq!(
            session.started_at_unix_ms,
            started.as_millisecond(),
            "{label}: started at the entry's startedDateTime"
        );

        let request = session.request.as_ref().expect("the request is stored");
        assert_eq!(request.method, stream.method, "{label}");
        assert_eq!(request.url, stream.url, "{label}");
        assert_eq!(
            request.body.as_deref(),
            Some(stream.body.as_bytes()),
            "{label}: the request body"
        );
        let input: Value = serde_json::from_str(&stream.body).expect("the body is JSON");
        assert_eq!(session.run_input(), Some(input), "{label}: the run input");
        let expected_headers: Vec<(String, String)> = stream
            .request_headers
            .iter()
            .map(|(name, value)| {
                let secret =
                    ["authorization", "cookie"].contains(&name.to_ascii_lowercase().as_str());
                let value = if secret {
                    REDACTED.to_owned()
                } else {
                    value.clone()
                };
                (name.clone(), value)
            })
            .collect();
        assert_eq!(
            request.headers, expected_headers,
            "{label}: request headers"
        );
        for secret in ["Authorization", "Cookie"] {
            assert!(
                request
                    .headers
                    .iter()
                    .any(|(n, v)| n == secret && v == "[redacted]"),
                "{label}: {secret} is stored as [redacted]"
            );
        }

        let response = session.response.as_ref().expect("the response is stored");
        assert_eq!(u64::from(response.status), stream.status, "{label}");
        assert_eq!(response.headers, stream.response_headers, "{label}");

        let events = recording.load_events(session.id).expect("loads");
        assert_eq!(raws(&events), stream.events, "{label}: the events");
    }
    drop(recording);

    // The secrets are nowhere in the file.
    let bytes = std::fs::read(rec.path()).expect("reads");
    for secret in ["not-a-real-signature", "fake-session-id", "Bearer "] {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the recording stores {secret:?}"
        );
    }
}

#[test]
fn a_recording_or_har_with_several_streams_needs_a_session() {
    let streams = har_streams();
    let rec = TempPath::new("har_pick", "har.rec");
    import(&[har()], rec.path());

    let err = open_source(rec.path(), None).expect_err("a session is needed");
    let message = err.to_string();
    assert!(
        matches!(err, SourceError::Store(StoreError::SessionNeeded { .. })),
        "{err:?}"
    );
    assert!(message.contains(p(rec.path())), "{message}");
    assert!(
        message.contains("1: ") && message.contains("2: "),
        "lists the sessions: {message}"
    );
    let err = open_source(rec.path(), Some(3)).expect_err("no session 3");
    assert!(
        matches!(
            err,
            SourceError::Store(StoreError::NoSuchSession { session: 3, .. })
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains(p(rec.path())), "{err}");

    for (n, stream) in (1..).zip(&streams) {
        let from_rec = open_source(rec.path(), Some(n)).expect("session opens");
        assert_eq!(
            raws(&from_rec.events),
            stream.events,
            "recording session {n}"
        );
        assert_eq!(from_rec.num_sessions, 2);
        let input: Value = serde_json::from_str(&stream.body).expect("JSON");
        assert_eq!(from_rec.run_input.as_ref(), Some(&input), "session {n}");

        let from_har = open_source(&har(), Some(n)).expect("exchange opens");
        assert_eq!(raws(&from_har.events), stream.events, "HAR exchange {n}");
        assert_eq!(from_har.run_input.as_ref(), Some(&input), "exchange {n}");
        assert_eq!(from_har.num_sessions, 2);
    }
    let err = open_source(&har(), None).expect_err("an exchange is needed");
    assert!(err.to_string().contains(p(&har())), "{err}");
    assert!(open_source(&har(), Some(3)).is_err());
    assert!(open_source(&har(), Some(0)).is_err());
}
