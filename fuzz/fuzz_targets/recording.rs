//! The SQLite recording reader: the input is written to a file and opened
//! as a recording, every session read as a replay and the list view read
//! it. Opening must never modify the file (the recording is the user's),
//! and nothing in a damaged or foreign database may panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use agui_replay::store::{Recording, file_is_sqlite};
use libfuzzer_sys::{Corpus, fuzz_target};

#[path = "common.rs"]
mod common;

/// A directory of this process's own (fork mode runs several at once).
fn file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("agui-replay-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir.join("fuzz.rec")
    })
}

fn remove_side_files(path: &std::path::Path) {
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let _ = std::fs::remove_file(side);
    }
}

/// Reads everything a replay and the event list read.
fn read_all(path: &std::path::Path) {
    let Ok(recording) = Recording::open(path) else {
        return;
    };
    let _ = recording.describe_sessions();
    let _ = recording.pick_session(None);
    let _ = recording.pick_session(Some(1));
    for session in recording.sessions().iter().take(8) {
        let _ = session.run_input();
        let _ = recording.declared_profile(session.id);
        let _ = recording.events(session.id, 0..64);
        let _ = recording.arrival_nanos(session.id);
        if let Ok(log) = recording.load_events(session.id) {
            common::parse_all(&log);
            let _ = recording.events_after(session.id, agui_replay::Seq::new(log.len() as u64 / 2));
        }
    }
    drop(recording);
    // What `check FILE.rec` does: the source layer and a replay.
    if let Ok(source) = agui_replay::open::open_source(path, None) {
        let _ = agui_replay::replay_log(&source.events, agui_replay::Options::default());
    }
}

fuzz_target!(|data: &[u8]| -> Corpus {
    if !data.starts_with(b"SQLite format 3\0") {
        // Not a database: the stream targets read such files.
        return Corpus::Reject;
    }
    let path = file();
    remove_side_files(path);
    std::fs::write(path, data).expect("write the recording");
    assert!(file_is_sqlite(path));
    read_all(path);
    let after = std::fs::read(path).expect("read the recording back");
    assert!(after == data, "opening the recording modified it");
    remove_side_files(path);
    Corpus::Keep
});
