//! Bookmarks and notes (`src/store/annotations.rs`): they round-trip through
//! the file, a reader opened before a write sees it, reading them never
//! modifies the file, a write touches its own table and nothing else, a
//! write succeeds while the proxy is still recording into the file, and
//! files that are not recordings or cannot be written are refused with a
//! clear error.

use std::path::Path;
use std::time::{Duration, Instant};

use agui_replay::Seq;
use agui_replay::store::{
    Arrival, Bookmark, NewSession, Recording, RecordingWriter, SessionId, SessionStatus,
    StoreError, add_bookmark, add_note, delete_bookmark, delete_note, edit_note, rename_bookmark,
};

use crate::common::store::{
    assert_names_file, assert_unchanged, demo_recording, file_state as snapshot,
};
use crate::common::temp::SIDECARS;
use crate::common::{TempPath, sidecar};

const S1: SessionId = SessionId::new(1);

/// Everything in the file a user could tell apart, table by table (rows in
/// row id order, every column as SQLite text), with the schema and the
/// pragmas stored in the file.
fn dump(path: &Path) -> Vec<(String, Vec<String>)> {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("opens");
    let mut dump = Vec::new();
    let mut pragmas = Vec::new();
    for pragma in [
        "application_id",
        "user_version",
        "journal_mode",
        "page_size",
    ] {
        let value: rusqlite::types::Value = conn
            .query_row(&format!("PRAGMA {pragma}"), [], |row| row.get(0))
            .expect("pragma");
        pragmas.push(format!("{pragma} = {value:?}"));
    }
    dump.push(("pragmas".to_owned(), pragmas));
    let mut statement = conn
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        .expect("schema");
    let schema: Vec<(String, String, Option<String>)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .expect("schema")
        .collect::<Result<_, _>>()
        .expect("schema");
    dump.push((
        "schema".to_owned(),
        schema.iter().map(|entry| format!("{entry:?}")).collect(),
    ));
    for (kind, name, _) in &schema {
        if kind != "table" {
            continue;
        }
        let mut statement = conn
            .prepare(&format!("SELECT * FROM \"{name}\" ORDER BY rowid"))
            .expect("table");
        let columns = statement.column_count();
        let rows: Vec<String> = statement
            .query_map([], |row| {
                let values: Vec<rusqlite::types::Value> =
                    (0..columns).map(|i| row.get(i)).collect::<Result<_, _>>()?;
                Ok(format!("{values:?}"))
            })
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows");
        dump.push((name.clone(), rows));
    }
    dump
}

/// The dump without one table.
fn dump_without(dump: &[(String, Vec<String>)], table: &str) -> Vec<(String, Vec<String>)> {
    dump.iter()
        .filter(|(name, _)| name != table)
        .cloned()
        .collect()
}

fn table<'a>(dump: &'a [(String, Vec<String>)], table: &str) -> &'a [String] {
    &dump
        .iter()
        .find(|(name, _)| name == table)
        .expect("the table exists")
        .1
}

#[test]
fn bookmarks_and_notes_round_trip() {
    let rec = demo_recording("round_trip");
    // Opened before any write: it sees each one after it is made.
    let reader = Recording::open(rec.path()).expect("opens");
    assert!(reader.bookmarks(S1).expect("lists").is_empty());
    assert!(reader.notes(S1).expect("lists").is_empty());

    let started = agui_replay::store::now_unix_ms();
    let late = add_bookmark(rec.path(), S1, Seq::new(30), "search done").expect("saves");
    let early = add_bookmark(rec.path(), S1, Seq::new(4), "plan appears").expect("saves");
    let same_step = add_bookmark(rec.path(), S1, Seq::new(4), "second at 4").expect("saves");
    assert_eq!(late.session, S1);
    assert_eq!(late.seq, Seq::new(30));
    assert_eq!(late.label, "search done");
    assert!(late.created_at_unix_ms >= started);
    assert_ne!(late.id, early.id);
    // By step, then in the order they were made.
    assert_eq!(
        reader.bookmarks(S1).expect("lists"),
        vec![early.clone(), same_step.clone(), late.clone()]
    );

    let note = add_note(
        rec.path(),
        S1,
        Seq::new(12),
        Some("plan-1"),
        "why is step 2 gone?",
    )
    .expect("saves");
    let general =
        add_note(rec.path(), S1, Seq::new(0), None, "before the first event").expect("saves");
    assert_eq!(note.message_id.as_deref(), Some("plan-1"));
    assert_eq!(
        reader.notes(S1).expect("lists"),
        vec![general.clone(), note.clone()]
    );

    rename_bookmark(rec.path(), early.id, "plan (renamed)").expect("renames");
    edit_note(rec.path(), note.id, "step 2 was removed by a patch").expect("edits");
    let bookmarks = reader.bookmarks(S1).expect("lists");
    assert_eq!(bookmarks[0].label, "plan (renamed)");
    assert_eq!(bookmarks[0].created_at_unix_ms, early.created_at_unix_ms);
    let notes = reader.notes(S1).expect("lists");
    assert_eq!(notes[1].text, "step 2 was removed by a patch");
    assert_eq!(notes[1].message_id.as_deref(), Some("plan-1"));

    delete_bookmark(rec.path(), same_step.id).expect("deletes");
    delete_note(rec.path(), general.id).expect("deletes");
    let labels: Vec<String> = reader
        .bookmarks(S1)
        .expect("lists")
        .into_iter()
        .map(|b: Bookmark| b.label)
        .collect();
    assert_eq!(labels, ["plan (renamed)", "search done"]);
    assert_eq!(reader.notes(S1).expect("lists").len(), 1);
    drop(reader);

    // A fresh reader agrees; the events are as they were.
    let reader = Recording::open(rec.path()).expect("reopens");
    assert_eq!(reader.bookmarks(S1).expect("lists").len(), 2);
    assert_eq!(reader.notes(S1).expect("lists")[0].id, note.id);
    assert_eq!(reader.load_events(S1).expect("loads").len(), 45);
    // A finished recording stays one file.
    for suffix in SIDECARS {
        assert!(
            !sidecar(rec.path(), suffix).exists(),
            "{suffix} left behind"
        );
    }

    // Rows that are gone, sessions that never were: clear errors.
    let err = rename_bookmark(rec.path(), same_step.id, "x").expect_err("deleted");
    assert!(
        matches!(
            err,
            StoreError::NoSuchAnnotation {
                what: "bookmark",
                ..
            }
        ),
        "{err:?}"
    );
    assert_names_file(&err, rec.path());
    assert!(matches!(
        delete_note(rec.path(), general.id),
        Err(StoreError::NoSuchAnnotation { what: "note", .. })
    ));
    assert!(matches!(
        edit_note(rec.path(), 12345, "x"),
        Err(StoreError::NoSuchAnnotation { .. })
    ));
    let err =
        add_bookmark(rec.path(), SessionId::new(7), Seq::new(1), "x").expect_err("no session 7");
    assert!(
        matches!(err, StoreError::NoSuchSession { session: 7, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("1 session: 1"), "{err}");
    assert_names_file(&err, rec.path());
    assert!(add_note(rec.path(), SessionId::new(2), Seq::new(1), None, "x").is_err());
    assert_eq!(
        Recording::open(rec.path())
            .expect("opens")
            .bookmarks(S1)
            .expect("lists")
            .len(),
        2,
        "refused writes wrote nothing"
    );
}

#[test]
fn opening_and_listing_annotations_never_modifies_the_file() {
    let rec = demo_recording("read_only");
    add_bookmark(rec.path(), S1, Seq::new(5), "a bookmark").expect("saves");
    add_note(rec.path(), S1, Seq::new(6), Some("plan-1"), "a note").expect("saves");
    let before = snapshot(rec.path());
    {
        let recording = Recording::open(rec.path()).expect("opens");
        let second = Recording::open(rec.path()).expect("opens twice");
        assert_eq!(recording.bookmarks(S1).expect("lists").len(), 1);
        assert_eq!(recording.notes(S1).expect("lists").len(), 1);
        assert!(
            second
                .bookmarks(SessionId::new(9))
                .expect("lists")
                .is_empty()
        );
        assert!(second.notes(SessionId::new(9)).expect("lists").is_empty());
    }
    assert_unchanged(rec.path(), &before, "listing bookmarks and notes");
}

#[test]
fn a_bookmark_changes_only_the_bookmarks_table_and_a_note_only_the_notes() {
    let rec = demo_recording("only_bookmarks");
    let before = dump(rec.path());
    let bookmark = add_bookmark(rec.path(), S1, Seq::new(9), "here").expect("saves");
    rename_bookmark(rec.path(), bookmark.id, "there").expect("renames");
    let after = dump(rec.path());
    assert_eq!(
        dump_without(&after, "bookmarks"),
        dump_without(&before, "bookmarks"),
        "a bookmark changed something else (events, sessions, schema, journal mode…)"
    );
    assert!(table(&before, "bookmarks").is_empty());
    assert_eq!(table(&after, "bookmarks").len(), 1);
    assert!(table(&after, "bookmarks")[0].contains("there"));

    let before = after;
    let note = add_note(rec.path(), S1, Seq::new(9), None, "a note").expect("saves");
    edit_note(rec.path(), note.id, "edited").expect("edits");
    let after = dump(rec.path());
    assert_eq!(
        dump_without(&after, "notes"),
        dump_without(&before, "notes")
    );
    assert_eq!(table(&after, "notes").len(), 1);

    let before = after;
    delete_note(rec.path(), note.id).expect("deletes");
    delete_bookmark(rec.path(), bookmark.id).expect("deletes");
    let after = dump(rec.path());
    assert_eq!(
        dump_without(&dump_without(&after, "notes"), "bookmarks"),
        dump_without(&dump_without(&before, "notes"), "bookmarks")
    );
    assert!(table(&after, "notes").is_empty() && table(&after, "bookmarks").is_empty());
}

/// The proxy is still recording (WAL, a commit every 100 ms) when the user
/// bookmarks a step: the bookmark waits for the write lock instead of
/// failing, and the writer keeps going (it waits for the bookmark's short
/// transaction in turn).
#[test]
fn a_bookmark_is_saved_while_a_writer_keeps_appending() {
    let rec = TempPath::new("live", "live.rec");
    let path = rec.path().to_owned();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let writer = std::thread::spawn(move || {
        let mut writer = RecordingWriter::create(&path, false).expect("creates");
        let session = writer
            .begin_session(NewSession {
                source: "proxy".into(),
                format: "sse".into(),
                ..NewSession::default()
            })
            .expect("begins");
        writer.flush().expect("commits");
        started_tx.send(session).expect("the test waits");
        let started = Instant::now();
        let mut appended = 0u64;
        while started.elapsed() < Duration::from_millis(1500) {
            for _ in 0..20 {
                appended += 1;
                let raw = format!(r#"{{"type":"CUSTOM","name":"n","value":{appended}}}"#);
                writer
                    .append(raw.as_bytes(), Arrival::now())
                    .expect("appends during bookmarks");
            }
            writer.flush_if_due().expect("commits during bookmarks");
            std::thread::sleep(Duration::from_millis(2));
        }
        writer
            .end_session(SessionStatus::Complete)
            .expect("ends during bookmarks");
        writer.finish().expect("finishes");
        appended
    });
    let session = started_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the writer started");
    let reader = Recording::open(rec.path()).expect("opens the live recording");
    let mut saved = Vec::new();
    for i in 0..25u64 {
        let bookmark = add_bookmark(rec.path(), session, Seq::new(i), &format!("live {i}"))
            .unwrap_or_else(|e| panic!("bookmark {i} while recording: {e}"));
        if i % 5 == 0 {
            rename_bookmark(rec.path(), bookmark.id, &format!("renamed {i}")).expect("renames");
            add_note(rec.path(), session, Seq::new(i), None, "live note").expect("notes");
        }
        saved.push(bookmark.id);
        assert_eq!(reader.bookmarks(session).expect("lists").len(), saved.len());
        std::thread::sleep(Duration::from_millis(30));
    }
    drop(reader);
    let appended = writer.join().expect("the writer was never refused");

    let recording = Recording::open(rec.path()).expect("opens");
    let info = recording.pick_session(None).expect("one session");
    assert_eq!(info.status, SessionStatus::Complete);
    assert_eq!(info.num_events, appended, "every appended event is there");
    let events = recording.load_events(info.id).expect("loads");
    for (seq, raw) in events.iter() {
        let expected = format!(r#"{{"type":"CUSTOM","name":"n","value":{}}}"#, seq.get());
        assert_eq!(raw, expected.as_bytes(), "event {seq}");
    }
    let bookmarks = recording.bookmarks(info.id).expect("lists");
    assert_eq!(bookmarks.iter().map(|b| b.id).collect::<Vec<_>>(), saved);
    assert_eq!(bookmarks[5].label, "renamed 5");
    assert_eq!(recording.notes(info.id).expect("lists").len(), 5);
}

#[test]
fn files_that_are_not_recordings_are_refused_unchanged() {
    let db = TempPath::new("foreign", "other.db");
    {
        let conn = rusqlite::Connection::open(db.path()).expect("creates");
        conn.execute_batch(
            "CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, session_id, seq, label, created_at_unix_ms);
             CREATE TABLE sessions (id INTEGER PRIMARY KEY);
             INSERT INTO sessions VALUES (1);",
        )
        .expect("fills");
    }
    let before = snapshot(db.path());
    let err = add_bookmark(db.path(), S1, Seq::new(1), "x").expect_err("refused");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err:?}");
    assert_names_file(&err, db.path());
    assert!(matches!(
        add_note(db.path(), S1, Seq::new(1), None, "x"),
        Err(StoreError::Foreign { .. })
    ));
    assert!(matches!(
        delete_bookmark(db.path(), 1),
        Err(StoreError::Foreign { .. })
    ));
    assert_unchanged(db.path(), &before, "refusing to bookmark it");

    let text = TempPath::new("text", "notes.rec");
    std::fs::write(text.path(), b"my own notes\n").expect("writes");
    let err = add_note(text.path(), S1, Seq::new(1), None, "x").expect_err("refused");
    assert!(matches!(err, StoreError::NotSqlite { .. }), "{err:?}");
    assert_eq!(
        std::fs::read(text.path()).expect("reads"),
        b"my own notes\n"
    );

    let missing = TempPath::new("missing", "missing.rec");
    let err = add_bookmark(missing.path(), S1, Seq::new(1), "x").expect_err("refused");
    assert_names_file(&err, missing.path());
    assert!(
        !missing.path().exists(),
        "a bookmark does not create a file"
    );

    // A recording of a newer schema is not written to either.
    let newer = demo_recording("newer");
    {
        let conn = rusqlite::Connection::open(newer.path()).expect("opens");
        conn.execute_batch("PRAGMA user_version = 99")
            .expect("raises");
    }
    let before = snapshot(newer.path());
    let err = add_bookmark(newer.path(), S1, Seq::new(1), "x").expect_err("refused");
    assert!(
        matches!(err, StoreError::NewerSchema { found: 99, .. }),
        "{err:?}"
    );
    assert_unchanged(newer.path(), &before, "refusing a newer schema");
}

#[test]
fn a_read_only_recording_gives_an_error_not_a_panic() {
    let rec = demo_recording("read_only_file");
    let mut permissions = std::fs::metadata(rec.path()).expect("exists").permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(rec.path(), permissions.clone()).expect("chmod");
    let before = snapshot(rec.path());

    let err = add_bookmark(rec.path(), S1, Seq::new(3), "x").expect_err("a read-only file");
    assert!(matches!(err, StoreError::NotSaved { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with("the bookmark could not be saved (the file is read-only"),
        "{message}"
    );
    assert_names_file(&err, rec.path());
    let err = add_note(rec.path(), S1, Seq::new(3), None, "x").expect_err("a read-only file");
    assert!(
        err.to_string().starts_with("the note could not be saved"),
        "{err}"
    );
    let err = delete_bookmark(rec.path(), 1).expect_err("a read-only file");
    assert!(
        err.to_string()
            .starts_with("the bookmark could not be deleted"),
        "{err}"
    );
    // Still readable.
    let recording = Recording::open(rec.path()).expect("opens");
    assert!(recording.bookmarks(S1).expect("lists").is_empty());
    drop(recording);
    assert_unchanged(rec.path(), &before, "refused writes");

    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(rec.path(), permissions).expect("chmod back");
    add_bookmark(rec.path(), S1, Seq::new(3), "x").expect("writable again");
}
