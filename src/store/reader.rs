//! Reading recordings: read-only, never modifying the file; events paged
//! lazily.

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};

use super::access::{Access, Fingerprint, OpenError, beside, open_connection, reconnect};

use super::schema::options_key;
use super::schema::{
    APPLICATION_ID, MAX_EVENTS_PER_SESSION, MAX_SESSION_ID, READABLE_VERSIONS, SCHEMA_VERSION,
    event_id, profile_key,
};
use super::{SessionId, SessionInfo, SessionStatus, StoreError, is_sqlite};
use crate::diagnostic::{Diagnostic, Seq};
use crate::input::{EventLog, HttpRequest, HttpResponse};
use crate::replay::Options;
use crate::timeline::{
    INDEX_FORMAT_VERSION, IndexPieces, StoredPieces, Timeline, index_engine, index_is_readable,
};

/// One stored event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its step.
    pub seq: Seq,
    /// When it arrived, in nanoseconds from the session's start.
    pub arrival_nanos: u64,
    /// Its bytes exactly as received.
    pub raw: Vec<u8>,
    /// Its `type`, if it had a string one.
    pub event_type: Option<String>,
    /// Its `messageId`, if it had one.
    pub message_id: Option<String>,
}

/// A recording opened read-only.
pub struct Recording {
    conn: Connection,
    path: PathBuf,
    sessions: Vec<SessionInfo>,
    /// How its connections read it without changing anything beside it
    /// (issue 38). After `conn`: a private copy outlives the connection
    /// reading it.
    access: Access,
    /// What was on disk when it was opened: [`Self::refresh`] opens it
    /// again when that changed and the connection would not see it.
    fingerprint: Fingerprint,
    /// Its schema version (`PRAGMA user_version`).
    version: i32,
}

/// Why a session's timeline is not read from its stored index (issue 14):
/// the caller replays instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexUnused {
    /// The file predates stored indexes (schema version 1):
    /// `agui-replay upgrade` adds them.
    OlderSchema(i32),
    /// The session is still being written (or its writer died): its index,
    /// if any, may not cover every event.
    SessionOpen,
    /// No index for these options (only the defaults are stored).
    NotStored,
    /// An index of another format or engine: not believed.
    Stale {
        /// Its format version.
        format_version: i64,
        /// The engine that wrote it.
        engine: String,
    },
    /// An index that does not agree with the events or cannot be read.
    Damaged(String),
}

/// A timeline rebuilt from its stored index, and the events' arrival
/// times when the index holds them.
pub type StoredTimeline = (Timeline, Option<Vec<u64>>);

impl std::fmt::Display for IndexUnused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OlderSchema(v) => write!(
                f,
                "the recording has schema version {v}, without stored indexes (`agui-replay upgrade FILE` adds them)"
            ),
            Self::SessionOpen => f.write_str("the session has not ended"),
            Self::NotStored => f.write_str("no index is stored for these replay options"),
            Self::Stale {
                format_version,
                engine,
            } => write!(
                f,
                "the stored index is of format {format_version} by {engine}, not format {INDEX_FORMAT_VERSION} by {}",
                index_engine()
            ),
            Self::Damaged(why) => write!(f, "the stored index is damaged ({why})"),
        }
    }
}

/// The largest step a session can hold (40 bits of the row id).
const MAX_SEQ: u64 = (1 << 40) - 1;

/// The most events whose room is reserved before reading them.
const INITIAL_CAPACITY_EVENTS: usize = 1 << 16;

/// The row ids of all of a session's events, as query parameters.
fn session_ids(session: SessionId) -> [i64; 2] {
    [event_id(session.0, 0), event_id(session.0, MAX_SEQ as i64)]
}

/// Checks the first bytes: an SQLite database, or not a recording at all.
pub(super) fn check_header(path: &Path) -> Result<(), StoreError> {
    match read_header(path) {
        Ok(header) if is_sqlite(&header) => Ok(()),
        Ok(_) => Err(StoreError::NotSqlite {
            path: path.to_owned(),
        }),
        Err(source) => Err(StoreError::Io {
            path: path.to_owned(),
            context: "cannot read the file".into(),
            source,
        }),
    }
}

/// The first bytes of a file, up to the end of SQLite's header fields this
/// module reads (fewer if it is shorter).
fn read_header(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut header = vec![0u8; 20];
    let mut file = std::fs::File::open(path)?;
    let mut n = 0;
    while n < header.len() {
        match file.read(&mut header[n..])? {
            0 => break,
            read => n += read,
        }
    }
    header.truncate(n);
    Ok(header)
}

/// Whether an SQLite header says the database uses a write-ahead log
/// (its file format write and read versions, bytes 18 and 19, are 2).
fn header_says_wal(header: &[u8]) -> bool {
    header.get(18..20) == Some(&[2, 2][..])
}

/// Whether the file's header says it is in WAL mode (unreadable: no).
pub(super) fn file_says_wal(path: &Path) -> bool {
    read_header(path).is_ok_and(|header| header_says_wal(&header))
}

/// Refuses a database another application made, or a newer version of
/// this one.
pub(super) fn check_identity(
    path: &Path,
    application_id: i32,
    version: i32,
) -> Result<(), StoreError> {
    if application_id != APPLICATION_ID {
        return Err(StoreError::Foreign {
            path: path.to_owned(),
        });
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: path.to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

/// Refuses what [`check_identity`] refuses, and a schema version this
/// build cannot read.
pub(super) fn check_readable(
    path: &Path,
    application_id: i32,
    version: i32,
) -> Result<(), StoreError> {
    check_identity(path, application_id, version)?;
    if !READABLE_VERSIONS.contains(&version) {
        return Err(StoreError::Corrupt {
            path: path.to_owned(),
            reason: format!("unknown schema version {version}"),
        });
    }
    Ok(())
}

/// Whether a file starts like an SQLite database (unreadable: no).
pub fn file_is_sqlite(path: &Path) -> bool {
    read_header(path).is_ok_and(|header| is_sqlite(&header))
}

/// `(application_id, user_version)`.
pub(super) fn versions(conn: &Connection) -> rusqlite::Result<(i32, i32)> {
    let application_id = conn.query_row("PRAGMA application_id", [], |row| row.get(0))?;
    let version = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    Ok((application_id, version))
}

/// Whether an SQLite error means the file is damaged.
pub(super) fn is_corruption(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

impl Recording {
    /// Opens a recording read-only. Opening never modifies the file.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        check_header(path)?;
        let fail = |context: &str| {
            let path = path.to_owned();
            let context = context.to_owned();
            move |source: rusqlite::Error| {
                if is_corruption(&source) {
                    StoreError::Corrupt {
                        path,
                        reason: source.to_string(),
                    }
                } else {
                    StoreError::Sqlite {
                        path,
                        context,
                        source,
                    }
                }
            }
        };
        let hot_journal = |source: rusqlite::Error| {
            let journal = beside(path, "-journal");
            let left = std::fs::metadata(&journal).is_ok_and(|m| m.len() > 0);
            if left && source.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) {
                Err(StoreError::HotJournal {
                    path: path.to_owned(),
                    journal,
                })
            } else {
                Ok(source)
            }
        };
        let fingerprint = Fingerprint::of(path);
        let (conn, access) = match open_connection(path, file_says_wal(path)) {
            Ok(opened) => opened,
            Err(OpenError::Sqlite(e)) => {
                return Err(fail("cannot open the recording")(hot_journal(e)?));
            }
            Err(OpenError::Copy { log, reason }) => {
                return Err(StoreError::UnreadLog {
                    path: path.to_owned(),
                    log,
                    reason,
                });
            }
        };
        let (application_id, version) = match versions(&conn) {
            Ok(versions) => versions,
            Err(e) => return Err(fail("cannot read the recording")(hot_journal(e)?)),
        };
        check_readable(path, application_id, version)?;
        let mut recording = Self {
            conn,
            path: path.to_owned(),
            sessions: Vec::new(),
            access,
            fingerprint,
            version,
        };
        recording.sessions = recording
            .read_sessions()
            .map_err(fail("cannot read the sessions"))?;
        recording.check_sessions()?;
        Ok(recording)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its schema version (1 has no stored indexes; see `upgrade`).
    pub fn schema_version(&self) -> i32 {
        self.version
    }

    /// Whether the file has the [SQL indexes](super::schema::SQL_INDEXES)
    /// (`import --sql-indexes`, `upgrade --sql-indexes`).
    pub fn has_sql_indexes(&self) -> Result<bool, StoreError> {
        super::schema::has_sql_indexes(&self.conn)
            .map_err(|source| self.error("cannot read the recording's schema", source))
    }

    /// The stored timeline index of a session for `options`, as written
    /// (see [`Self::stored_timeline`]), once its key says it may be
    /// believed: this format, this engine, the session ended, as many
    /// events as the session holds, every piece there. The blob itself is
    /// checked only when decoded.
    pub fn stored_index(
        &self,
        session: SessionId,
        options: Options,
    ) -> Result<Result<Vec<u8>, IndexUnused>, StoreError> {
        Ok(match self.stored_pieces(session, options)? {
            Ok(pieces) => pieces
                .read_all()
                .map_err(|e| IndexUnused::Damaged(e.to_string())),
            Err(why) => Err(why),
        })
    }

    /// [`Self::stored_index`] as its pieces, none read yet (issue 14): a
    /// version-3 file stores an index in pieces, which must be numbered
    /// from 0 without a gap, each of the first one's size but the last,
    /// as many bytes in all as the index's row says; a version-2 file
    /// stores it whole in its row.
    pub fn stored_pieces(
        &self,
        session: SessionId,
        options: Options,
    ) -> Result<Result<StoredPieces, IndexUnused>, StoreError> {
        if self.version < 2 {
            return Ok(Err(IndexUnused::OlderSchema(self.version)));
        }
        let Some(info) = self.sessions.iter().find(|s| s.id == session) else {
            return Ok(Err(IndexUnused::NotStored));
        };
        if info.is_open() {
            return Ok(Err(IndexUnused::SessionOpen));
        }
        let key = options_key(options);
        // Version 2 has no pieces: its rows hold the whole index.
        let sql = if self.version == 2 {
            "SELECT format_version, engine, num_events, 0, 0 FROM timeline_index
             WHERE session_id = ?1 AND options = ?2"
        } else {
            "SELECT format_version, engine, num_events, num_pieces, num_bytes FROM timeline_index
             WHERE session_id = ?1 AND options = ?2"
        };
        let row = self.conn.query_row(sql, params![session.0, key], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, i64>(3)?,
                row.get::<_, i64>(4)?,
            ))
        });
        let damaged = |why: &str| Ok(Err(IndexUnused::Damaged(why.to_owned())));
        let (format_version, engine, num_events, num_pieces, num_bytes) = match row {
            Ok(row) => row,
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(Err(IndexUnused::NotStored)),
            // A column of another type: a damaged row, not a damaged file.
            Err(rusqlite::Error::InvalidColumnType(..)) => {
                return damaged("a column holds a value of the wrong type");
            }
            Err(e) => return Err(self.error("cannot read the timeline index", e)),
        };
        if !index_is_readable(format_version, &engine) {
            return Ok(Err(IndexUnused::Stale {
                format_version,
                engine,
            }));
        }
        if u64::try_from(num_events).ok() != Some(info.num_events) {
            return Ok(Err(IndexUnused::Damaged(format!(
                "it covers {num_events} events, the session holds {}",
                info.num_events
            ))));
        }
        if num_pieces == 0 {
            let data = self.conn.query_row(
                "SELECT data FROM timeline_index WHERE session_id = ?1 AND options = ?2",
                params![session.0, key],
                |row| match row.get_ref(0)? {
                    rusqlite::types::ValueRef::Blob(blob) => Ok(Some(blob.to_vec())),
                    _ => Ok(None),
                },
            );
            return match data {
                Ok(Some(blob)) => Ok(Ok(StoredPieces::whole(blob))),
                Ok(None) => damaged("a column holds a value of the wrong type"),
                Err(e) => Err(self.error("cannot read the timeline index", e)),
            };
        }
        let pieces = (|| -> rusqlite::Result<Vec<(i64, i64, bool)>> {
            let mut statement = self.conn.prepare(
                "SELECT piece, length(data), typeof(data) = 'blob' FROM timeline_index_piece
                 WHERE session_id = ?1 AND options = ?2 ORDER BY piece",
            )?;
            let rows = statement.query_map(params![session.0, key], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?;
            rows.collect()
        })();
        let pieces = match pieces {
            Ok(pieces) => pieces,
            Err(rusqlite::Error::InvalidColumnType(..)) => {
                return damaged("a piece's column holds a value of the wrong type");
            }
            Err(e) => return Err(self.error("cannot read the timeline index", e)),
        };
        let piece_bytes = pieces.first().map_or(0, |p| p.1);
        let numbered = pieces
            .iter()
            .enumerate()
            .all(|(n, p)| p.0 == n as i64 && p.2);
        let sized = pieces.split_last().is_some_and(|(last, rest)| {
            rest.iter().all(|p| p.1 == piece_bytes) && (1..=piece_bytes).contains(&last.1)
        });
        let total: i64 = pieces.iter().map(|p| p.1).sum();
        if pieces.len() as i64 != num_pieces || !numbered || !sized || total != num_bytes {
            return Ok(Err(IndexUnused::Damaged(format!(
                "its pieces are not whole ({} of {num_pieces}, {total} bytes of {num_bytes})",
                pieces.len()
            ))));
        }
        let source = FilePieces {
            path: self.path.clone(),
            access: self.access.clone(),
            session,
            options: key,
            conn: None,
        };
        let split = StoredPieces::new(
            Box::new(source),
            usize::try_from(piece_bytes).unwrap_or(0),
            usize::try_from(num_bytes).unwrap_or(0),
        );
        Ok(split.ok_or_else(|| IndexUnused::Damaged("its pieces are empty".into())))
    }

    /// The timeline of a session replayed with `options`, rebuilt from the
    /// index stored with the recording (issue 14) without replaying, with
    /// `events` (the session's events, as [`Self::load_events`] gives them).
    /// `Err(why)` when there is none to believe (an older file, other
    /// options, a session still open, an index that does not agree): the
    /// caller replays. Never panics on a damaged index.
    pub fn stored_timeline_of(
        &self,
        session: SessionId,
        options: Options,
        events: impl Into<crate::timeline::Events>,
    ) -> Result<Result<Timeline, IndexUnused>, StoreError> {
        Ok(self
            .stored_timeline_and_arrivals_of(session, options, events)?
            .map(|(timeline, _)| timeline))
    }

    /// [`Self::stored_timeline_of`] with the events' arrival times when the
    /// index holds them (written by `import`, `record`, `export` and
    /// `upgrade`): opening then reads no event's row (issue 14). Only the
    /// pieces of the index's front are read now; the others in the
    /// background.
    pub fn stored_timeline_and_arrivals_of(
        &self,
        session: SessionId,
        options: Options,
        events: impl Into<crate::timeline::Events>,
    ) -> Result<Result<StoredTimeline, IndexUnused>, StoreError> {
        let pieces = match self.stored_pieces(session, options)? {
            Ok(pieces) => pieces,
            Err(why) => return Ok(Err(why)),
        };
        Ok(Timeline::from_stored_pieces(events, pieces, options)
            .map_err(|e| IndexUnused::Damaged(e.to_string())))
    }

    /// [`Self::stored_timeline_of`] with the session's events left in the
    /// file (read when needed), and without the reason: `Ok(None)` when there is no index to
    /// believe.
    pub fn stored_timeline(
        &self,
        session: SessionId,
        options: Options,
    ) -> Result<Option<Timeline>, StoreError> {
        if let Err(_why) = self.stored_index(session, options)? {
            return Ok(None);
        }
        // The events stay in the file (issue 14, point 3).
        let num_events = self
            .sessions
            .iter()
            .find(|s| s.id == session)
            .map_or(0, |s| s.num_events as usize);
        let events = self.file_events(session)?.with_len(num_events);
        Ok(self.stored_timeline_of(session, options, events)?.ok())
    }

    /// A new connection reading the file as this one does, and how it
    /// reads (which keeps a private copy alive as long as it is held).
    pub(super) fn connect_again(&self) -> Result<(Connection, Access), StoreError> {
        reconnect(&self.path, &self.access).map_err(|e| match e {
            OpenError::Sqlite(e) => self.error("cannot open the recording", e),
            OpenError::Copy { log, reason } => StoreError::UnreadLog {
                path: self.path.clone(),
                log,
                reason,
            },
        })
    }

    /// Every session, in order.
    pub fn sessions(&self) -> &[SessionInfo] {
        &self.sessions
    }

    /// Reads the session list again: a recording still being written grows
    /// (more events, new sessions, a session's end). Polling it with
    /// [`Self::events_after`] follows a live recording; each read sees the
    /// writer's last commit, never half of one.
    pub fn refresh(&mut self) -> Result<(), StoreError> {
        let now = Fingerprint::of(&self.path);
        let stale = match self.access {
            Access::Direct => false,
            // SQLite notices a writer's commits through the index itself.
            Access::ReadOnlyIndex => !now.has_log_and_index(),
            Access::Immutable | Access::Copy(_) => now != self.fingerprint,
        };
        if stale {
            // A writer came, wrote or went: a connection opened immutable,
            // or on a private copy, would not see what it did, and one
            // reading a log through a read-only index must not read a log
            // its writer removed.
            if let Ok((conn, access)) = open_connection(&self.path, file_says_wal(&self.path)) {
                self.conn = conn;
                self.access = access;
                self.fingerprint = now;
            }
        }
        self.sessions = self
            .read_sessions()
            .map_err(|e| self.error("cannot read the sessions", e))?;
        self.check_sessions()
    }

    /// Refuses sessions whose rows cannot be addressed or whose row ids
    /// declare more events than a session may hold (issue 12): their
    /// counts are never believed, nor anything sized from them.
    fn check_sessions(&self) -> Result<(), StoreError> {
        for session in &self.sessions {
            if !(1..=MAX_SESSION_ID).contains(&session.id.0) {
                return Err(StoreError::Corrupt {
                    path: self.path.clone(),
                    reason: format!(
                        "session id {} is out of range (1 to {MAX_SESSION_ID})",
                        session.id
                    ),
                });
            }
            if session.num_events > MAX_EVENTS_PER_SESSION {
                return Err(StoreError::Corrupt {
                    path: self.path.clone(),
                    reason: format!(
                        "the row ids of session {} declare {} events, more than the {MAX_EVENTS_PER_SESSION} a session may hold",
                        session.id, session.num_events
                    ),
                });
            }
        }
        Ok(())
    }

    /// The profile a session declares (an imported vector document's
    /// `profile`), if it declares one: the default profile of its replay.
    pub fn declared_profile(&self, session: SessionId) -> Option<String> {
        self.conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [profile_key(session.0)],
                |row| row.get(0),
            )
            .ok()
    }

    /// Runs `read` on a connection that sees what was written since the
    /// recording was opened (bookmarks and notes saved meanwhile): its own,
    /// or a fresh one for a file opened immutable, whose connection does
    /// not see changes.
    pub(super) fn read_current<T>(
        &self,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let unchanged = Fingerprint::of(&self.path) == self.fingerprint;
        if self.access.follows_changes() || (unchanged && matches!(self.access, Access::Copy(_))) {
            read(&self.conn)
        } else {
            let (conn, _) = open_connection(&self.path, file_says_wal(&self.path))
                .map_err(OpenError::into_sqlite)?;
            read(&conn)
        }
    }

    pub(super) fn error(&self, context: &str, source: rusqlite::Error) -> StoreError {
        if is_corruption(&source) {
            StoreError::Corrupt {
                path: self.path.clone(),
                reason: source.to_string(),
            }
        } else {
            StoreError::Sqlite {
                path: self.path.clone(),
                context: context.to_owned(),
                source,
            }
        }
    }

    /// The session asked for: `Some(n)` is session `n`; `None` is the only
    /// session, and an error listing them when there are several.
    pub fn pick_session(&self, requested: Option<i64>) -> Result<&SessionInfo, StoreError> {
        let found = match requested {
            Some(id) => self.sessions.iter().find(|s| s.id.0 == id),
            None if self.sessions.len() == 1 => self.sessions.first(),
            None => None,
        };
        found.ok_or_else(|| match requested {
            Some(session) => StoreError::NoSuchSession {
                path: self.path.clone(),
                session,
                available: self.describe_sessions(),
            },
            None if self.sessions.is_empty() => StoreError::NoSession {
                path: self.path.clone(),
            },
            None => StoreError::SessionNeeded {
                path: self.path.clone(),
                available: self.describe_sessions(),
            },
        })
    }

    /// The sessions in words, for messages.
    pub fn describe_sessions(&self) -> String {
        if self.sessions.is_empty() {
            return "no session".to_owned();
        }
        let list: Vec<String> = self
            .sessions
            .iter()
            .map(|s| {
                format!(
                    "{}: {}, {} events, {}",
                    s.id,
                    s.source,
                    s.num_events,
                    s.status.as_str()
                )
            })
            .collect();
        format!("{} sessions: {}", self.sessions.len(), list.join("; "))
    }

    /// What was hidden of each session's request, from the `meta` table.
    fn read_redacted(&self) -> rusqlite::Result<rustc_hash::FxHashMap<String, Vec<String>>> {
        let mut statement = self
            .conn
            .prepare("SELECT key, value FROM meta WHERE key LIKE 'redacted:session:%'")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?;
        let mut redacted = rustc_hash::FxHashMap::default();
        for row in rows {
            let (key, value) = row?;
            if let Ok(list) = serde_json::from_str::<Vec<String>>(&value) {
                redacted.insert(key, list);
            }
        }
        Ok(redacted)
    }

    fn read_sessions(&self) -> rusqlite::Result<Vec<SessionInfo>> {
        let mut redacted = self.read_redacted()?;
        let mut statement = self.conn.prepare(
            "SELECT id, source, format, started_at_unix_ms, ended_at_unix_ms, status,
                    request_method, request_url, request_headers, request_body,
                    response_status, response_headers, reader_diagnostics,
                    (SELECT max(id) - (sessions.id << 40) FROM events WHERE id BETWEEN sessions.id << 40 AND (sessions.id << 40) + 1099511627775)
             FROM sessions ORDER BY id",
        )?;
        let rows = statement.query_map([], |row| {
            let headers = |text: Option<String>| -> Vec<(String, String)> {
                text.and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default()
            };
            let method: Option<String> = row.get(6)?;
            let url: Option<String> = row.get(7)?;
            let request = match (method, url) {
                (Some(method), Some(url)) => Some(HttpRequest {
                    method,
                    url,
                    headers: headers(row.get(8)?),
                    body: row.get(9)?,
                }),
                _ => None,
            };
            let status: Option<u16> = row.get(10)?;
            let response = status.map(|status| HttpResponse {
                status,
                headers: Vec::new(),
            });
            let response = match response {
                Some(mut response) => {
                    response.headers = headers(row.get(11)?);
                    Some(response)
                }
                None => None,
            };
            let diagnostics: Option<String> = row.get(12)?;
            let reader_diagnostics: Vec<Diagnostic> = diagnostics
                .and_then(|text| serde_json::from_str::<Vec<StoredDiagnostic>>(&text).ok())
                .unwrap_or_default()
                .into_iter()
                .filter_map(StoredDiagnostic::into_diagnostic)
                .collect();
            let status: String = row.get(5)?;
            let max_seq: Option<i64> = row.get(13)?;
            let id = SessionId(row.get(0)?);
            Ok(SessionInfo {
                id,
                redacted: redacted
                    .remove(&super::redacted_key(id))
                    .unwrap_or_default(),
                source: row.get(1)?,
                format: row.get(2)?,
                started_at_unix_ms: row.get(3)?,
                ended_at_unix_ms: row.get(4)?,
                status: SessionStatus::from_stored(&status),
                request,
                response,
                reader_diagnostics,
                num_events: max_seq.map_or(0, |n| n.max(0) as u64),
            })
        })?;
        rows.collect()
    }

    /// Every event of a session, raw, in order: what a replay reads.
    pub fn load_events(&self, session: SessionId) -> Result<EventLog, StoreError> {
        let load = || -> rusqlite::Result<EventLog> {
            let num_events = self
                .sessions
                .iter()
                .find(|s| s.id == session)
                .map_or(0, |s| s.num_events as usize);
            // The count comes from row ids, which a damaged file may move:
            // a hint, capped, never a size to reserve (issue 12).
            let hint = num_events.min(INITIAL_CAPACITY_EVENTS);
            let mut log = EventLog::with_capacity(hint * 200, hint);
            let mut statement = self
                .conn
                .prepare("SELECT raw FROM events WHERE id BETWEEN ?1 AND ?2 ORDER BY id")?;
            let mut rows = statement.query(session_ids(session))?;
            while let Some(row) = rows.next()? {
                log.push(row.get_ref(0)?.as_bytes()?);
            }
            Ok(log)
        };
        load().map_err(|e| self.error("cannot read the events", e))
    }

    /// The events of a session at steps `seqs` (a page of the list).
    pub fn events(
        &self,
        session: SessionId,
        seqs: Range<u64>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let load = || -> rusqlite::Result<Vec<StoredEvent>> {
            let mut statement = self.conn.prepare_cached(
                "SELECT seq, arrival_nanos, raw, type, message_id FROM events
                 WHERE id >= ?1 AND id < ?2 ORDER BY id",
            )?;
            let clamp = |seq: u64| i64::try_from(seq.min(MAX_SEQ)).unwrap_or(0);
            let start = event_id(session.0, clamp(seqs.start));
            let end = event_id(session.0, clamp(seqs.end.max(seqs.start)));
            let rows = statement.query_map(params![start, end], |row| {
                let seq: i64 = row.get(0)?;
                let arrival: i64 = row.get(1)?;
                Ok(StoredEvent {
                    seq: Seq::new(seq.max(0) as u64),
                    arrival_nanos: arrival.max(0) as u64,
                    raw: row.get(2)?,
                    event_type: row.get(3)?,
                    message_id: row.get(4)?,
                })
            })?;
            rows.collect()
        };
        load().map_err(|e| self.error("cannot read the events", e))
    }

    /// The events of a session after step `after`, up to the last one
    /// committed: what a reader following a live recording asks for at each
    /// poll (with the last step it has).
    pub fn events_after(
        &self,
        session: SessionId,
        after: Seq,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.events(session, after.get().saturating_add(1)..MAX_SEQ + 1)
    }

    /// The arrival time of every event of a session (index 0 is seq 1).
    pub fn arrival_nanos(&self, session: SessionId) -> Result<Vec<u64>, StoreError> {
        let load = || -> rusqlite::Result<Vec<u64>> {
            let mut statement = self.conn.prepare(
                "SELECT arrival_nanos FROM events WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
            )?;
            let rows = statement.query_map(session_ids(session), |row| {
                row.get::<_, i64>(0).map(|n| n.max(0) as u64)
            })?;
            rows.collect()
        };
        load().map_err(|e| self.error("cannot read arrival times", e))
    }
}

/// The pieces of a stored index, read from the recording on a connection
/// of their own (opened on first use): the index's front when it is
/// opened, its checkpoints' pieces later, in the background.
struct FilePieces {
    path: PathBuf,
    session: SessionId,
    options: String,
    conn: Option<Connection>,
    /// How the recording was opened (after `conn`: a private copy outlives
    /// the connection reading it).
    access: Access,
}

impl IndexPieces for FilePieces {
    fn read(&mut self, piece: usize, at: usize, out: &mut [u8]) -> Result<(), String> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => {
                let (conn, _) =
                    reconnect(&self.path, &self.access).map_err(|e| e.into_sqlite().to_string())?;
                self.conn.insert(conn)
            }
        };
        // Read through SQLite's incremental I/O, straight into `out`: no
        // copy of the piece in between.
        let mut read = || -> rusqlite::Result<()> {
            let row: i64 = conn.query_row(
                "SELECT rowid FROM timeline_index_piece
                 WHERE session_id = ?1 AND options = ?2 AND piece = ?3",
                params![self.session.0, self.options, piece as i64],
                |row| row.get(0),
            )?;
            let blob =
                conn.blob_open(rusqlite::MAIN_DB, "timeline_index_piece", "data", row, true)?;
            blob.read_at_exact(out, at)
        };
        read().map_err(|e| e.to_string())
    }

    fn another(&self) -> Option<Box<dyn IndexPieces>> {
        Some(Box::new(FilePieces {
            path: self.path.clone(),
            access: self.access.clone(),
            session: self.session,
            options: self.options.clone(),
            conn: None,
        }))
    }
}

/// A diagnostic as stored (the reader's, serialized at import).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredDiagnostic {
    seq: u64,
    code: String,
    #[serde(default)]
    message_id: Option<String>,
    #[serde(default)]
    path: Option<String>,
    message: String,
}

impl StoredDiagnostic {
    fn into_diagnostic(self) -> Option<Diagnostic> {
        let code = crate::diagnostic::Code::from_name(&self.code)?;
        let mut diagnostic = Diagnostic::new(Seq::new(self.seq), code, self.message);
        diagnostic.message_id = self.message_id;
        diagnostic.path = self.path;
        Some(diagnostic)
    }
}
