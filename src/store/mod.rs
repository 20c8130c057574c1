//! Recording files: one SQLite database holding one or more sessions (one
//! stream each: one HTTP exchange, or one imported file), each event's raw
//! bytes exactly as received with its arrival time, and the request and
//! response of HTTP captures.
//!
//! [`RecordingWriter`] writes (WAL, batched transactions committed at least
//! every 50 ms, crash-safe, the log folded into the file every second so
//! that a killed writer's file stands alone); [`Recording`] reads, opening
//! the file read-only so that opening never modifies it (nor creates
//! anything beside it), and can follow a recording
//! that is still being written ([`Recording::refresh`],
//! [`Recording::events_after`]). Bookmarks and notes ([`add_bookmark`],
//! [`add_note`]…) are the only writes a reader makes, each in its own short
//! transaction.
//!
//! Schema version 2 stores each ended session's timeline index (issue 14):
//! `import` and `record` write it ([`RecordingWriter::store_timeline`]),
//! [`Recording::stored_timeline`] rebuilds the timeline from it without
//! replaying, and [`upgrade`] migrates a version-1 file and indexes it.
//! Version 3 stores that index in pieces ([`INDEX_PIECE_BYTES`]), so that
//! an index of any size fits (10,000,000 events make one of more than a
//! gigabyte, SQLite's largest value).

mod access;
mod annotations;
mod blocks;
mod import;
pub(crate) mod raw_json;
mod reader;
mod replace;
mod schema;
mod secrets;
mod upgrade;
mod writer;

use std::fmt;
use std::path::PathBuf;

pub use annotations::{
    Bookmark, Note, add_bookmark, add_note, delete_bookmark, delete_note, edit_note,
    rename_bookmark, save_edits,
};
pub use blocks::SessionBlocks;
pub use import::{
    ImportError, ImportOptions, ImportProgress, ImportedSession, format_name, import_files,
    import_files_with,
};
pub use reader::IndexUnused;
pub use reader::{Recording, StoredEvent, file_is_sqlite};
pub use replace::{
    ReplaceError, SIDECARS, remove_partial_files, remove_with_sidecars, replace_file,
    temporary_beside,
};
pub use schema::{
    APPLICATION_ID, INDEX_PIECE_BYTES, PAGE_BYTES, SCHEMA_VERSION, SQL_INDEX_NAMES, options_key,
};
pub use secrets::{
    MIN_HIDDEN_VALUE_BYTES, SECRET_FIELD_NAMES, SECRET_QUERY_PARAMS, StoreRedaction, hide_values,
};
pub use upgrade::{Upgraded, upgrade, upgrade_with};
pub use writer::{
    Arrival, CHECKPOINT_INTERVAL, COMMIT_INTERVAL, EncodedIndex, NewSession, RecordingWriter,
};

use crate::diagnostic::Diagnostic;
use crate::input::{HttpRequest, HttpResponse};

/// A session's id inside a recording (1, 2, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(i64);

impl SessionId {
    /// The session numbered `id` (the first is 1).
    pub const fn new(id: i64) -> Self {
        Self(id)
    }

    /// Its number.
    pub const fn get(self) -> i64 {
        self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How a session's recording ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionStatus {
    /// Not ended: still being written, or its writer died without ending
    /// it (the file cannot tell which). The file holds every event committed
    /// so far; a reader following a live recording polls while a session is
    /// `Incomplete` and stops when it turns into one of the others.
    Incomplete,
    /// The stream ended normally.
    Complete,
    /// The client went away before the stream ended.
    Truncated,
    /// The exchange failed (an error response, an unreachable upstream).
    Failed,
}

impl SessionStatus {
    /// The name stored in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Incomplete => "incomplete",
            Self::Complete => "complete",
            Self::Truncated => "truncated",
            Self::Failed => "failed",
        }
    }

    fn from_stored(name: &str) -> Self {
        match name {
            "complete" => Self::Complete,
            "truncated" => Self::Truncated,
            "failed" => Self::Failed,
            // "recording" (a writer that never finished) and "incomplete".
            _ => Self::Incomplete,
        }
    }
}

/// What a recording knows of one session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// Its id.
    pub id: SessionId,
    /// Where it came from (`import: path`, `proxy`, `run: url`).
    pub source: String,
    /// How its events were framed (`sse`, `jsonl`, `json`, `har`).
    pub format: String,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at_unix_ms: i64,
    /// When it ended, if it did.
    pub ended_at_unix_ms: Option<i64>,
    /// How it ended.
    pub status: SessionStatus,
    /// The HTTP request, for captures (headers with secrets redacted).
    pub request: Option<HttpRequest>,
    /// The HTTP response status and headers, for captures.
    pub response: Option<HttpResponse>,
    /// What the reader noticed about the framing (CRLF and the like).
    pub reader_diagnostics: Vec<Diagnostic>,
    /// The number of events.
    pub num_events: u64,
    /// What was hidden of its request and response when it was stored
    /// (`header authorization`, `query api_key`, `url password`,
    /// `body /forwardedProps/apiKey`), in the recording's `meta` table under
    /// `redacted:session:ID`; empty if nothing was.
    pub redacted: Vec<String>,
}

impl SessionInfo {
    /// Whether its writer has not ended it yet, so that it may still grow
    /// (see [`SessionStatus::Incomplete`]).
    pub fn is_open(&self) -> bool {
        self.status == SessionStatus::Incomplete
    }

    /// The run input the request carried (its JSON body), if any: step 0 of
    /// the replay.
    pub fn run_input(&self) -> Option<serde_json::Value> {
        let body = self.request.as_ref()?.body.as_ref()?;
        match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(value @ serde_json::Value::Object(_)) => Some(value),
            _ => None,
        }
    }
}

/// Why a recording could not be opened, read or written. Messages put the
/// cause first and the file last.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Not an SQLite database at all.
    #[error("not a recording (not an SQLite database): {path}")]
    NotSqlite {
        /// The file.
        path: PathBuf,
    },
    /// An SQLite database, but not one of ours.
    #[error("not a recording (an SQLite database of another application): {path}")]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// Written by a newer agui-replay.
    #[error(
        "recording schema version {found} is newer than this agui-replay reads (up to {supported}); upgrade agui-replay: {path}"
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i32,
        /// The newest this build reads.
        supported: i32,
    },
    /// The file is damaged.
    #[error("recording is damaged ({reason}): {path}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// The recording holds as many sessions as a recording may (issue 12).
    #[error("recording is full ({reason}): {path}")]
    Full {
        /// The file.
        path: PathBuf,
        /// Which limit, in words.
        reason: String,
    },
    /// No session at all: nothing was recorded into the file yet (issue 38:
    /// this was "the recording holds no session; pick one with --session N").
    #[error("the recording holds no session yet: nothing was recorded into it: {path}")]
    NoSession {
        /// The file.
        path: PathBuf,
    },
    /// Several sessions and none picked.
    #[error("the recording holds {available}; pick one with --session N: {path}")]
    SessionNeeded {
        /// The file.
        path: PathBuf,
        /// The sessions there are, in words.
        available: String,
    },
    /// No such session.
    #[error("session {session} does not exist (the recording holds {available}): {path}")]
    NoSuchSession {
        /// The file.
        path: PathBuf,
        /// The session asked for.
        session: i64,
        /// The sessions there are, in words.
        available: String,
    },
    /// A bookmark or note could not be written (a read-only file, a full
    /// disk, a file kept locked).
    #[error("the {what} could not be {done} ({reason}): {path}")]
    NotSaved {
        /// The file.
        path: PathBuf,
        /// `bookmark` or `note`.
        what: &'static str,
        /// `saved` or `deleted`.
        done: &'static str,
        /// Why, in words.
        reason: String,
    },
    /// No bookmark or note with that id (deleted meanwhile).
    #[error("{what} {id} does not exist: {path}")]
    NoSuchAnnotation {
        /// The file.
        path: PathBuf,
        /// `bookmark` or `note`.
        what: &'static str,
        /// The id asked for.
        id: i64,
    },
    /// A new recording was asked for where a database already is.
    #[error("the file already exists and is not empty; not overwriting it: {path}")]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// A write named a session that is not open (ended, or never begun).
    #[error("no such open session in the recording: {path}")]
    NoOpenSession {
        /// The file.
        path: PathBuf,
    },
    /// The file could not be read or written outside SQLite.
    #[error("{context} ({}): {path}", crate::error::io_cause(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The recording's last commits are in its `-wal`, without the `-shm`
    /// that reading it in place would create, and the private copy to read
    /// it from could not be made (issue 38).
    #[error(
        "the recording's last commits are in its log {log}, which cannot be read without \
         creating a file beside it, and opening a recording never does; a private copy to \
         read them from could not be made ({reason}); copy the recording and its log to a \
         writable folder and open the copy: {path}"
    )]
    UnreadLog {
        /// The file.
        path: PathBuf,
        /// Its `-wal`.
        log: PathBuf,
        /// Why the copy failed.
        reason: String,
    },
    /// A writer stopped in the middle of a transaction and left its rollback
    /// journal: the file must be rolled back before it can be read, which a
    /// read-only open cannot do.
    #[error(
        "the recording was left half-written by a writer that stopped in the middle of a \
         transaction: its rollback journal {journal} must be applied before the file can be \
         read, and opening a recording never modifies it; open it once for writing to roll \
         it back to its last commit (for instance with `sqlite3 FILE 'PRAGMA quick_check'`), \
         keeping the journal beside it: {path}"
    )]
    HotJournal {
        /// The file.
        path: PathBuf,
        /// The journal beside it.
        journal: PathBuf,
    },
    /// The writer thread of a live recording died (a bug): what it held
    /// last may not be in the file.
    #[error("the recording writer stopped unexpectedly ({reason}): {path}")]
    WriterPanicked {
        /// The file.
        path: PathBuf,
        /// The panic's message, if it had one.
        reason: String,
    },
    /// Another SQLite failure (disk full, permissions, a locked file).
    #[error("{context} ({source}): {path}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What was being done.
        context: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
}

/// The `meta` key under which a recording lists what was hidden of a
/// session's request (a JSON array of strings).
pub(crate) fn redacted_key(session: SessionId) -> String {
    format!("redacted:session:{session}")
}

pub use crate::input::is_sqlite;

/// The options a session is replayed with unless told otherwise, the ones
/// its stored index is built for (issue 14): the profile it declares (an
/// imported vector's), or `spec`; the default protocol version; not best
/// effort. `None` for a declared profile this build does not know (the
/// commands refuse it, so nothing is stored for it).
pub fn default_options(declared_profile: Option<&str>) -> Option<crate::replay::Options> {
    let profile = match declared_profile {
        Some(name) => name.parse().ok()?,
        None => crate::replay::Profile::Spec,
    };
    Some(crate::replay::Options::for_profile(profile))
}

/// Milliseconds since the Unix epoch, now.
pub fn now_unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The headers whose values a recording never stores: credentials.
pub fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || ["api-key", "apikey", "token", "secret"]
        .iter()
        .any(|part| name.contains(part))
}

/// The placeholder stored instead of a secret header's value.
pub const REDACTED: &str = "[redacted]";

/// Headers with the values of secret ones replaced by [`REDACTED`].
pub fn redact_headers(headers: &[(String, String)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            if is_secret_header(name) {
                (name.clone(), REDACTED.to_owned())
            } else {
                (name.clone(), value.clone())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_recognised_by_name() {
        for name in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "Set-Cookie",
            "X-API-Key",
            "x-apikey",
            "X-Auth-Token",
            "client-secret",
        ] {
            assert!(is_secret_header(name), "{name}");
        }
        for name in ["Content-Type", "Accept", "User-Agent", "Cache-Control"] {
            assert!(!is_secret_header(name), "{name}");
        }
        let redacted = redact_headers(&[
            ("Authorization".into(), "Bearer abc".into()),
            ("Accept".into(), "text/event-stream".into()),
        ]);
        assert_eq!(redacted[0].1, REDACTED);
        assert_eq!(redacted[1].1, "text/event-stream");
    }

    /// Issue 16.6: an imported file plays as the file opened directly, so
    /// the store gives events without timestamps the arrival times the app
    /// derives for a stream file (100 ms apart until the first timestamp),
    /// not all 0.
    #[test]
    fn imported_events_without_timestamps_arrive_as_in_the_file_opened_directly() {
        let dir = std::env::temp_dir().join(format!("agui-replay-arrivals-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let input = dir.join("untimed.jsonl");
        let recording = dir.join("untimed.rec");
        let lines = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"STEP_STARTED","stepName":"a"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"a","timestamp":1000}"#,
            r#"{"type":"STEP_STARTED","stepName":"b","timestamp":1500}"#,
            r#"{"type":"STEP_FINISHED","stepName":"b"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":1200}"#,
        ];
        std::fs::write(&input, lines.join("\n")).expect("write input");
        import_files(std::slice::from_ref(&input), &recording, &mut |_| {}).expect("imports");
        let opened = Recording::open(&recording).expect("opens");
        let session = opened.sessions()[0].id;
        let stored = opened.arrival_nanos(session).expect("arrivals");
        let mut rule = crate::input::Arrivals::default();
        let timestamps = [None, None, Some(1000), Some(1500), None, Some(1200)];
        let expected: Vec<u64> = timestamps.iter().map(|t| rule.next(*t)).collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(stored, expected);
        assert_eq!(
            &stored[..2],
            &[0, crate::input::UNTIMED_STEP_NANOS],
            "untimed events are spaced, not all at 0"
        );
    }
}
