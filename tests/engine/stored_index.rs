//! Issue 14.2: the timeline index written with the recording. A timeline
//! rebuilt from it equals the replayed one (seek, diagnostics, effects,
//! lanes, kinds) for the default options; other options, older files and
//! damaged indexes are not served from it; schema versions 1 and 2 migrate
//! to 3 (the index in pieces) when a writer appends (`record`) or on
//! `upgrade`, and never on open.

use std::path::Path;

use agui_replay::Seq;
use agui_replay::replay::{Options, Profile, Replayer};
use agui_replay::store::{
    IndexUnused, NewSession, Recording, SessionInfo, SessionStatus, import_files,
};
use agui_replay::timeline::Timeline;
use agui_replay::{EventLog, Severity};

use crate::common::files::{demo, har, manifest_path};
use crate::common::generator::{GenConfig, generate_each};
use crate::common::store::{assert_unchanged, file_state};
use crate::common::temp::TempPath;

fn v1_fixture() -> std::path::PathBuf {
    manifest_path("tests/fixtures/v1/demo-v1.rec")
}

/// The demo imported by the build before indexes were stored in pieces
/// (schema version 2, its index of format 3 whole in its row).
fn v2_fixture() -> std::path::PathBuf {
    manifest_path("tests/fixtures/v2/demo-v2.rec")
}

/// The timeline a reader replays for a session (step 0 from its stored
/// run input, the end-of-stream checks run).
fn replayed(recording: &Recording, session: &SessionInfo, options: Options) -> Timeline {
    let start = match session.run_input() {
        Some(input) => Replayer::with_run_input(options, &input),
        None => Replayer::new(options),
    };
    let events = recording.load_events(session.id).expect("events");
    Timeline::starting_from(start).replay(events)
}

/// Fails unless `stored` answers as `replayed` does at every step of
/// `steps` and in all of its derived data.
fn assert_same(stored: &Timeline, replayed: &Timeline, steps: impl Iterator<Item = u64>) {
    assert_eq!(stored.len(), replayed.len());
    assert_eq!(stored.diagnostics(), replayed.diagnostics());
    assert_eq!(stored.effects(), replayed.effects());
    assert_eq!(stored.index().lanes(), replayed.index().lanes());
    assert_eq!(stored.num_checkpoints(), replayed.num_checkpoints());
    assert!(
        stored.checkpoint_steps().eq(replayed.checkpoint_steps()),
        "checkpoints at the same steps"
    );
    for severity in [
        Severity::Error,
        Severity::Warning,
        Severity::Note,
        Severity::Info,
    ] {
        assert_eq!(
            stored.index().steps_with(severity),
            replayed.index().steps_with(severity)
        );
    }
    let last = Seq::new(replayed.len() as u64);
    assert_eq!(
        stored.index().counts(Seq::new(1)..=last),
        replayed.index().counts(Seq::new(1)..=last)
    );
    assert_eq!(stored.head().document(), replayed.head().document());
    for step in steps {
        let step = Seq::new(step);
        let (a, b) = (stored.seek(step), replayed.seek(step));
        assert_eq!(a.document(), b.document(), "document at step {step}");
        assert_eq!(a.fatal(), b.fatal(), "fatal at step {step}");
        assert_eq!(
            stored.diagnostics_until(step),
            replayed.diagnostics_until(step),
            "diagnostics at step {step}"
        );
        assert_eq!(stored.index().kind(step), replayed.index().kind(step));
    }
}

#[test]
fn the_stored_timeline_equals_the_replayed_one_for_the_demo_and_har_sessions() {
    let rec = TempPath::new("stored-demo", "demo.rec");
    import_files(&[demo(), har()], rec.path(), &mut |_| {}).expect("imports");
    let recording = Recording::open(rec.path()).expect("opens");
    assert_eq!(recording.sessions().len(), 3);
    for session in recording.sessions() {
        let options = Options::default();
        let stored = recording
            .stored_timeline(session.id, options)
            .expect("reads")
            .expect("import stored the index");
        let replayed = replayed(&recording, session, options);
        assert_same(&stored, &replayed, 0..=session.num_events);
    }
    // The HAR sessions start from their run input: step 0 is not empty.
    let har_session = &recording.sessions()[1];
    assert!(har_session.run_input().is_some());
}

#[test]
fn the_stored_timeline_equals_the_replayed_one_for_a_generated_stream() {
    let dir = TempPath::new("stored-gen", "gen.jsonl");
    let mut text = String::new();
    let config = GenConfig {
        events: 30_000,
        activities: 30,
        seed: 11,
    };
    generate_each(config, |line| {
        text.push_str(line);
        text.push('\n');
    });
    std::fs::write(dir.path(), text).expect("writes");
    let rec = TempPath::new("stored-gen", "gen.rec");
    import_files(&[dir.path().to_owned()], rec.path(), &mut |_| {}).expect("imports");
    let recording = Recording::open(rec.path()).expect("opens");
    let session = &recording.sessions()[0];
    let options = Options::default();
    let stored = recording
        .stored_timeline(session.id, options)
        .expect("reads")
        .expect("stored");
    let replayed = replayed(&recording, session, options);
    assert!(replayed.num_checkpoints() > 3, "several checkpoints");
    assert!(
        !replayed.diagnostics().is_empty(),
        "the stream has problems"
    );
    // Every checkpoint, the steps around each, and a spread in between.
    let mut steps: Vec<u64> = (0..=config.events as u64).step_by(997).collect();
    for at in replayed.checkpoint_steps() {
        steps.extend([at.get().saturating_sub(1), at.get(), at.get() + 1]);
    }
    steps.push(config.events as u64);
    assert_same(&stored, &replayed, steps.into_iter());
}

#[test]
fn other_options_are_not_served_from_the_store() {
    let rec = TempPath::new("stored-options", "demo.rec");
    import_files(&[demo()], rec.path(), &mut |_| {}).expect("imports");
    let recording = Recording::open(rec.path()).expect("opens");
    let session = recording.sessions()[0].id;
    for options in [
        Options {
            best_effort: true,
            ..Options::default()
        },
        Options::for_profile(Profile::AgUiClient10),
        Options {
            protocol: agui_replay::protocol::ProtocolVersion::V1_0,
            ..Options::default()
        },
    ] {
        assert!(
            recording
                .stored_timeline(session, options)
                .expect("reads")
                .is_none(),
            "{options:?}"
        );
        assert_eq!(
            recording.stored_index(session, options).expect("reads"),
            Err(IndexUnused::NotStored)
        );
    }
}

#[test]
fn a_version_1_file_opens_unchanged_without_a_stored_index() {
    let rec = TempPath::new("stored-v1", "v1.rec");
    std::fs::copy(v1_fixture(), rec.path()).expect("copies");
    let before = file_state(rec.path());
    let recording = Recording::open(rec.path()).expect("a version-1 file opens");
    assert_eq!(recording.schema_version(), 1);
    for session in recording.sessions() {
        assert!(
            recording
                .stored_timeline(session.id, Options::default())
                .expect("reads")
                .is_none()
        );
        assert_eq!(
            recording
                .stored_index(session.id, Options::default())
                .expect("reads"),
            Err(IndexUnused::OlderSchema(1))
        );
        assert_eq!(
            recording.load_events(session.id).expect("events").len() as u64,
            session.num_events
        );
    }
    drop(recording);
    assert_unchanged(rec.path(), &before, "opening a version-1 recording");
}

#[test]
fn a_version_2_file_opens_unchanged_its_one_blob_read_and_upgrading_stores_pieces() {
    // Issue 14: a version-2 file's index is one blob in its row; it is
    // read as it is, and refused with a reason since its format (3) is
    // older (the reader then indexes in the background); `upgrade`
    // migrates the file to version 3 and stores a new index in pieces.
    let rec = TempPath::new("stored-v2", "v2.rec");
    std::fs::copy(v2_fixture(), rec.path()).expect("copies");
    let before = file_state(rec.path());
    let recording = Recording::open(rec.path()).expect("a version-2 file opens");
    assert_eq!(recording.schema_version(), 2);
    let session = recording.sessions()[0].clone();
    match recording
        .stored_index(session.id, Options::default())
        .expect("reads")
    {
        Err(IndexUnused::Stale {
            format_version: 3, ..
        }) => {}
        other => panic!("the version-2 blob is read and judged stale: {other:?}"),
    }
    let why = recording
        .stored_timeline_of(
            session.id,
            Options::default(),
            recording.load_events(session.id).expect("events"),
        )
        .expect("reads")
        .expect_err("not believed");
    assert!(why.to_string().contains("format 3"), "{why}");
    drop(recording);
    assert_unchanged(rec.path(), &before, "opening a version-2 recording");

    assert_eq!(
        agui_replay::store::upgrade(rec.path()).expect("upgrades"),
        agui_replay::store::Upgraded::Upgraded {
            from: 2,
            to: 3,
            indexed: 1,
            sql_indexes: false,
        }
    );
    let recording = Recording::open(rec.path()).expect("opens");
    assert_eq!(recording.schema_version(), 3);
    let stored = recording
        .stored_timeline(session.id, Options::default())
        .expect("reads")
        .expect("indexed in pieces");
    assert_same(
        &stored,
        &replayed(&recording, &session, Options::default()),
        0..=session.num_events,
    );
    drop((stored, recording));
    let conn = rusqlite::Connection::open(rec.path()).expect("opens");
    let (pieces, whole): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM timeline_index_piece),
                    (SELECT length(data) FROM timeline_index)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .expect("counts");
    assert_eq!((pieces, whole), (1, 0), "the new index is in a piece");
}

/// Corrupts the stored index of session 1 with `sql` and returns why it is
/// not used.
fn unused_after(path: &Path, sql: &str) -> IndexUnused {
    let conn = rusqlite::Connection::open(path).expect("opens for writing");
    conn.execute_batch(sql).expect("corrupts");
    drop(conn);
    let recording = Recording::open(path).expect("opens");
    let session = recording.sessions()[0].id;
    assert!(
        recording
            .stored_timeline(session, Options::default())
            .expect("a damaged index is not an error")
            .is_none()
    );
    let events = recording.load_events(session).expect("events");
    match recording
        .stored_timeline_of(session, Options::default(), events)
        .expect("reads")
    {
        Ok(_) => panic!("a damaged index was believed"),
        Err(why) => why,
    }
}

/// What a case expects of the reason.
type Expected = fn(&IndexUnused) -> bool;

/// Issue 39: format 7 (engine 8) stores what is open otherwise (a chunk
/// lane per owner, the starts E4 skipped) and replays id collisions
/// otherwise, so the indexes of the builds before (format 5 by engine 5,
/// format 6 by engines 6 and 7) are no longer believed: they are rebuilt.
/// (Issue 14 read them, when only checkpoints' weights and spacing had
/// changed.) Issue 38: format 8 stores the long texts of checkpoints
/// otherwise, so format 7 (by engine 8) is not believed either; issue 43's
/// format 9 stores the entities' lanes, so format 8 is not; issue 40's
/// format 10 lays the checkpoints out first, so format 9 (engine 9) is not;
/// format 11 stores each checkpoint's own drift layer with it, so format 10
/// (engine 10) is not.
#[test]
fn indexes_of_the_builds_before_are_not_believed() {
    let this_engine = format!(" engine {}", agui_replay::timeline::REPLAY_ENGINE_VERSION);
    for (format, engine) in [(5u8, 5), (6, 6), (6, 7), (7, 8), (8, 8), (9, 9), (10, 10)] {
        let rec = TempPath::new(&format!("stored-format-{format}-{engine}"), "demo.rec");
        import_files(&[demo()], rec.path(), &mut |_| {}).expect("imports");
        let conn = rusqlite::Connection::open(rec.path()).expect("opens for writing");
        conn.execute(
            "UPDATE timeline_index SET format_version = ?1, engine = replace(engine, ?2, ?3)",
            rusqlite::params![format, this_engine, format!(" engine {engine}")],
        )
        .expect("rewrites");
        drop(conn);
        let recording = Recording::open(rec.path()).expect("opens");
        let session = recording.sessions()[0].id;
        let stored = recording
            .stored_timeline(session, Options::default())
            .expect("reads");
        assert!(
            stored.is_none(),
            "format {format} by engine {engine} believed"
        );
    }
}

#[test]
fn a_damaged_or_foreign_index_is_ignored() {
    let cases: [(&str, Expected); 6] = [
        // Bytes flipped in the middle of the blob.
        (
            "UPDATE timeline_index_piece SET data = substr(data, 1, 40) || x'ffffffffff' || substr(data, 46)",
            |why| matches!(why, IndexUnused::Damaged(_)),
        ),
        // Cut short.
        (
            "UPDATE timeline_index_piece SET data = substr(data, 1, length(data) / 2)",
            |why| matches!(why, IndexUnused::Damaged(_)),
        ),
        // Not a blob at all.
        ("UPDATE timeline_index_piece SET data = 7", |why| {
            matches!(why, IndexUnused::Damaged(_))
        }),
        // The wrong count of events.
        (
            "UPDATE timeline_index SET num_events = num_events + 1",
            |why| matches!(why, IndexUnused::Damaged(_)),
        ),
        // Another engine.
        (
            "UPDATE timeline_index SET engine = 'agui-replay 0.0.9'",
            |why| matches!(why, IndexUnused::Stale { .. }),
        ),
        // Another format.
        ("UPDATE timeline_index SET format_version = 99", |why| {
            matches!(why, IndexUnused::Stale { .. })
        }),
    ];
    for (sql, expected) in cases {
        let rec = TempPath::new("stored-damaged", "demo.rec");
        import_files(&[demo()], rec.path(), &mut |_| {}).expect("imports");
        let why = unused_after(rec.path(), sql);
        assert!(expected(&why), "{sql}: {why}");
        assert!(!why.to_string().is_empty());
    }
}

#[test]
fn recording_into_a_version_1_file_migrates_it_and_indexes_the_new_session() {
    let rec = TempPath::new("stored-record-v1", "v1.rec");
    std::fs::copy(v1_fixture(), rec.path()).expect("copies");
    let old = Recording::open(rec.path()).expect("opens");
    let old_events: Vec<EventLog> = old
        .sessions()
        .iter()
        .map(|s| old.load_events(s.id).expect("events"))
        .collect();
    drop(old);
    // What `record` does: the writer thread appends a session.
    let writer = agui_replay::record::WriterThread::start(rec.path()).expect("starts");
    let handle = writer.handle();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let input = br#"{"threadId":"t","runId":"r","state":{"mode":"draft"},"messages":[{"id":"u1","role":"user","content":"hi"}]}"#;
    let session = runtime
        .block_on(handle.begin(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            request: Some(agui_replay::input::HttpRequest {
                method: "POST".into(),
                url: "http://agent/run".into(),
                headers: Vec::new(),
                body: Some(input.to_vec()),
            }),
            ..NewSession::default()
        }))
        .expect("begins");
    let demo_text = std::fs::read_to_string(demo()).expect("demo");
    for (i, line) in demo_text.lines().enumerate() {
        handle.event(session, line.as_bytes().to_vec(), i as u64 * 1000);
    }
    handle.end(session, SessionStatus::Complete);
    drop(handle);
    writer.finish().expect("finishes");

    let recording = Recording::open(rec.path()).expect("opens");
    assert_eq!(recording.schema_version(), 3, "appending migrated the file");
    assert_eq!(recording.sessions().len(), 4);
    for (info, before) in recording.sessions().iter().zip(&old_events) {
        let now = recording.load_events(info.id).expect("events");
        assert!(now.iter().eq(before.iter()), "session {} kept", info.id);
        // Sessions from before the migration have no index until `upgrade`.
        assert_eq!(
            recording
                .stored_index(info.id, Options::default())
                .expect("reads"),
            Err(IndexUnused::NotStored)
        );
    }
    let new = &recording.sessions()[3];
    assert_eq!(new.id, session);
    let stored = recording
        .stored_timeline(new.id, Options::default())
        .expect("reads")
        .expect("the recorded session has its index");
    let replayed = replayed(&recording, new, Options::default());
    assert_eq!(
        stored.seek(Seq::START).state(),
        &serde_json::json!({"mode": "draft"}),
        "step 0 is the recorded run input"
    );
    assert_same(&stored, &replayed, 0..=new.num_events);
}

#[test]
fn upgrading_a_version_1_file_indexes_every_session_as_a_replay_would() {
    let rec = TempPath::new("stored-upgrade", "v1.rec");
    std::fs::copy(v1_fixture(), rec.path()).expect("copies");
    let upgraded = agui_replay::store::upgrade(rec.path()).expect("upgrades");
    assert_eq!(
        upgraded,
        agui_replay::store::Upgraded::Upgraded {
            from: 1,
            to: 3,
            indexed: 3,
            sql_indexes: false,
        }
    );
    let recording = Recording::open(rec.path()).expect("opens");
    assert_eq!(recording.schema_version(), 3);
    for session in recording.sessions() {
        let stored = recording
            .stored_timeline(session.id, Options::default())
            .expect("reads")
            .expect("indexed");
        assert_same(
            &stored,
            &replayed(&recording, session, Options::default()),
            0..=session.num_events,
        );
    }
    drop(recording);
    let before = file_state(rec.path());
    assert_eq!(
        agui_replay::store::upgrade(rec.path()).expect("upgrades"),
        agui_replay::store::Upgraded::UpToDate { version: 3 }
    );
    assert_unchanged(rec.path(), &before, "upgrading an up-to-date file");

    // Issue 14's import rate: a version-1 file was written with the SQL
    // indexes; upgrading keeps them, so asking for them writes nothing (a
    // file without them gets them: tests/cli/upgrade.rs).
    assert!(
        Recording::open(rec.path())
            .expect("opens")
            .has_sql_indexes()
            .expect("schema")
    );
    assert_eq!(
        agui_replay::store::upgrade_with(rec.path(), true).expect("upgrades"),
        agui_replay::store::Upgraded::UpToDate { version: 3 }
    );
    assert_unchanged(rec.path(), &before, "asking again for the SQL indexes");
}
