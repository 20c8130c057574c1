//! Recordings on disk: importing the demo, and checking that opening a
//! file left it exactly as it was.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use agui_replay::store::{ImportedSession, Recording, SessionInfo, StoreError, import_files};

use super::files::{demo, p};
use super::temp::{SIDECARS, TempPath, sidecar};

/// Imports `inputs` into `out` through the library.
pub fn import(inputs: &[PathBuf], out: &Path) -> Vec<ImportedSession> {
    import_files(inputs, out, &mut |_| {}).expect("import succeeds")
}

/// A finished recording of the demo stream (one session, 45 events).
pub fn demo_recording(test: &str) -> TempPath {
    let rec = TempPath::new(test, "demo.rec");
    import(&[demo()], rec.path());
    rec
}

/// A file's bytes and modification time.
pub struct FileState {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Its modification time.
    pub modified: SystemTime,
}

/// What `path` holds now.
pub fn file_state(path: &Path) -> FileState {
    FileState {
        bytes: std::fs::read(path).expect("reads"),
        modified: std::fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("mtime"),
    }
}

/// Fails if `path` changed (bytes, modification time, a sidecar left
/// beside it) since `before`, taken before `after`.
pub fn assert_unchanged(path: &Path, before: &FileState, after: &str) {
    let now = file_state(path);
    assert!(
        now.bytes == before.bytes,
        "{} changed after {after}",
        path.display()
    );
    assert_eq!(now.modified, before.modified, "modified after {after}");
    for suffix in SIDECARS {
        let side = sidecar(path, suffix);
        assert!(!side.exists(), "{} left after {after}", side.display());
    }
}

/// Fails if the error's message does not name `path`.
pub fn assert_names_file(err: &StoreError, path: &Path) {
    let message = err.to_string();
    assert!(
        message.contains(p(path)),
        "the message does not name {}: {message}",
        path.display()
    );
}

/// The one session of `recording` (fails if there are more or none).
pub fn only_session(recording: &Recording) -> &SessionInfo {
    let sessions = recording.sessions();
    assert_eq!(
        sessions.len(),
        1,
        "one session: {}",
        recording.describe_sessions()
    );
    &sessions[0]
}

/// The raw bytes of each event of `session`, in order.
pub fn raw_events(recording: &Recording, session: &SessionInfo) -> Vec<Vec<u8>> {
    let log = recording.load_events(session.id).expect("load events");
    log.iter().map(|(_, raw)| raw.to_vec()).collect()
}
