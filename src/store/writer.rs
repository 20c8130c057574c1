//! Writing recordings: WAL, batched transactions, crash-safe.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::blob::ZeroBlob;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use rustc_hash::FxHashMap;

use super::schema;
use super::secrets::StoreRedaction;
use super::{SessionId, SessionStatus, StoreError, is_secret_header, now_unix_ms, redact_headers};
use crate::diagnostic::{Diagnostic, Seq};
use crate::input::{Arrivals, EventKeys, EventLog, HttpRequest, HttpResponse};
use crate::replay::Options;
use crate::timeline::{ArrivalTimes, INDEX_FORMAT_VERSION, IndexEncoder, Timeline, index_engine};

/// Events are committed at least this often while they arrive: a killed
/// writer loses at most the events of the last interval. Half the 100 ms a
/// killed recorder may lose (PRODUCT.md, docs/LIMITS.md), so that the time
/// a commit itself takes, a checkpoint's and a loaded machine's delays stay
/// inside the promise (issue 38: at 100 ms, 3 kills in 24 lost 104-108 ms).
pub const COMMIT_INTERVAL: Duration = Duration::from_millis(50);

/// The write-ahead log of a live recording is folded into the main file at
/// least this often: a killed writer leaves a file that stands alone, with
/// at most about this much of its events only in the `-wal` beside it.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

/// How long a write waits for another connection to release the file.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A batch is committed early when it holds this many events (bounds the
/// memory of a fast import).
const MAX_BATCH_EVENTS: usize = 20_000;

const INSERT_EVENT: &str = "INSERT INTO events
    (id, session_id, seq, arrival_nanos, raw, type, message_id, run_id)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

/// What a new session is.
#[derive(Clone, Debug, Default)]
pub struct NewSession {
    /// Where it comes from (`import: path`, `proxy`, `run: url`).
    pub source: String,
    /// How its events are framed (`sse`, `jsonl`, `json`, `har`).
    pub format: String,
    /// When it started (now, if `None`).
    pub started_at_unix_ms: Option<i64>,
    /// The HTTP request, for captures; secret headers are redacted on write.
    pub request: Option<HttpRequest>,
    /// The HTTP response, for captures; secret headers are redacted on write.
    pub response: Option<HttpResponse>,
    /// What the reader noticed about the framing.
    pub reader_diagnostics: Vec<Diagnostic>,
}

/// One event waiting for the next commit.
struct Pending {
    session: i64,
    seq: i64,
    arrival_nanos: i64,
    raw: Vec<u8>,
    keys: Keys,
}

/// The indexed columns of an event (`type`, `messageId`, `runId`).
#[derive(Default)]
struct Keys {
    event_type: Option<String>,
    message_id: Option<String>,
    run_id: Option<String>,
}

impl Keys {
    fn of(raw: &[u8]) -> Self {
        let keys = EventKeys::of(raw);
        Self {
            event_type: keys.event_type.map(|s| s.into_owned()),
            message_id: keys.message_id.map(|s| s.into_owned()),
            run_id: keys.run_id.map(|s| s.into_owned()),
        }
    }
}

/// A timeline's index, encoded to be stored ([`RecordingWriter::store_encoded_index`]).
pub struct EncodedIndex {
    /// The options it was replayed with (its key in the recording).
    options: Options,
    /// Its number of events (its last step).
    num_events: u64,
    /// The encoded index, in the parts whose concatenation it is
    /// ([`Timeline::encode_index_parts`]); `None` when it cannot be read
    /// back (a value nested too deeply), which is then not stored.
    parts: Option<Vec<Vec<u8>>>,
    /// The pieces stored before the parts, as they were encoded
    /// ([`RecordingWriter::store_index_piece`], issue 40), each
    /// [`RecordingWriter::index_piece_bytes`] long.
    pieces_before: usize,
}

impl EncodedIndex {
    /// Encodes `timeline`'s index, with the events' arrival times when
    /// known ([`Timeline::encode_index_parts`]).
    pub fn of(timeline: &Timeline, arrivals: Option<&[u64]>) -> Self {
        Self {
            options: timeline.options(),
            num_events: timeline.last_step().get(),
            parts: timeline.encode_index_parts(arrivals).ok(),
            pieces_before: 0,
        }
    }

    /// The end of an index whose pieces were stored as `encoder` handed
    /// them out (issue 40: an import stores each checkpoint as it is
    /// made), in this writer's piece size; `timeline` is the encoder's own.
    pub fn finished(
        encoder: IndexEncoder,
        timeline: Timeline,
        arrivals: Option<ArrivalTimes>,
    ) -> Self {
        let pieces_before = encoder.pieces_handed_out();
        Self {
            options: timeline.options(),
            num_events: timeline.last_step().get(),
            parts: encoder.finish_taking(timeline, arrivals).ok(),
            pieces_before,
        }
    }
}

/// When an appended event arrived, and in which session
/// ([`RecordingWriter::append`]): by default now, in the current session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    session: Option<SessionId>,
    nanos: Option<u64>,
}

impl Arrival {
    /// Now (the time since its session started), in the current session.
    pub fn now() -> Self {
        Self::default()
    }

    /// `nanos` nanoseconds after its session started, in the current
    /// session.
    pub fn at(nanos: u64) -> Self {
        Self {
            session: None,
            nanos: Some(nanos),
        }
    }

    /// The same arrival in `session` rather than the current one.
    pub fn in_session(self, session: SessionId) -> Self {
        Self {
            session: Some(session),
            ..self
        }
    }
}

/// Writes sessions and events into a recording file.
///
/// Several sessions may be open at once (a proxy serving concurrent
/// requests); the simple calls (`append`, `end_session`…) act on the one
/// begun last. Events are buffered and committed in one transaction at least
/// every [`COMMIT_INTERVAL`] while they arrive (appending checks the clock; a
/// writer fed by a network stream also calls [`Self::flush_if_due`] on a
/// timer). A killed writer loses at most the last uncommitted batch, and the
/// file opens afterwards with its sessions reported incomplete.
pub struct RecordingWriter {
    conn: Connection,
    path: PathBuf,
    sessions: FxHashMap<SessionId, Session>,
    current: Option<SessionId>,
    pending: Vec<Pending>,
    last_commit: Instant,
    /// Whether the file uses a write-ahead log (a live recording).
    live: bool,
    /// When the log was last folded into the main file.
    last_checkpoint: Instant,
    /// Whether something was committed since.
    uncheckpointed: bool,
    /// What the requests it stores hide.
    redaction: StoreRedaction,
    /// Per open session, the values its stored request body hid, as
    /// written: hidden wherever its events echo them (issue 38).
    hidden_values: FxHashMap<SessionId, Vec<Vec<u8>>>,
    /// The size of an index's pieces, when not the default (tests).
    index_piece_bytes: Option<usize>,
}

struct Session {
    next_seq: u64,
    started: Instant,
    /// For imports: the first event's `timestamp`, and the last arrival.
    /// Arrival times of imported events (the rule a file opened directly
    /// follows too).
    arrivals: Arrivals,
}

/// Wraps an SQLite error with what was being done and the file.
fn sqlite_error(path: &Path, context: &str) -> impl FnOnce(rusqlite::Error) -> StoreError + use<> {
    let path = path.to_owned();
    let context = context.to_owned();
    move |source| StoreError::Sqlite {
        path,
        context,
        source,
    }
}

fn no_session(path: &Path) -> StoreError {
    StoreError::NoOpenSession {
        path: path.to_owned(),
    }
}

impl RecordingWriter {
    /// Creates a new recording file; fails if `path` exists. With
    /// `for_import` it is written for a bulk import (a rollback journal
    /// with `synchronous = OFF`, the file renamed into place once whole);
    /// otherwise for a live recording (a write-ahead log). Either way it has
    /// no [`schema::SQL_INDEXES`] until [`Self::build_sql_indexes`].
    pub fn create(path: &Path, for_import: bool) -> Result<Self, StoreError> {
        let sqlite = |context: &str| sqlite_error(path, context);
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sqlite("cannot create the recording"))?;
        let existing: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
            .map_err(sqlite("cannot create the recording"))?;
        if existing > 0 {
            return Err(StoreError::Exists {
                path: path.to_owned(),
            });
        }
        // The schema, the application id and the version are written with
        // a rollback journal, into the main file itself: a live recording
        // switches to its write-ahead log only afterwards, so that the file
        // says "recording" on its own from the start, whatever happens to
        // its `-wal` (issue 12). The page cache is sized once the schema
        // has set the page size (issue 40, see `configure`).
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(sqlite("cannot set up the recording"))?;
        schema::create(&conn).map_err(sqlite("cannot create the recording schema"))?;
        configure(&conn, !for_import).map_err(sqlite("cannot set up the recording"))?;
        Ok(Self::with_connection(conn, path, !for_import))
    }

    /// Opens an existing recording to add sessions (migrating an older
    /// schema).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let sqlite = |context: &str| sqlite_error(path, context);
        super::reader::check_header(path)?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sqlite("cannot open the recording for writing"))?;
        let (application_id, version) =
            super::reader::versions(&conn).map_err(sqlite("cannot read the recording"))?;
        super::reader::check_identity(path, application_id, version)?;
        schema::migrate(&conn, version).map_err(|reason| StoreError::Corrupt {
            path: path.to_owned(),
            reason,
        })?;
        configure(&conn, true).map_err(sqlite("cannot set up the recording"))?;
        Ok(Self::with_connection(conn, path, true))
    }

    /// Opens `path` to add sessions if it exists, or creates it.
    pub fn open_or_create(path: &Path) -> Result<Self, StoreError> {
        if path.exists() && std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            Self::open(path)
        } else {
            Self::create(path, false)
        }
    }

    fn with_connection(conn: Connection, path: &Path, live: bool) -> Self {
        Self {
            conn,
            path: path.to_owned(),
            sessions: FxHashMap::default(),
            current: None,
            pending: Vec::new(),
            last_commit: Instant::now(),
            live,
            last_checkpoint: Instant::now(),
            uncheckpointed: false,
            redaction: StoreRedaction::default(),
            hidden_values: FxHashMap::default(),
            index_piece_bytes: None,
        }
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sqlite(&self, context: &str, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            context: context.to_owned(),
            source,
        }
    }

    fn current(&self) -> Result<SessionId, StoreError> {
        self.current.ok_or_else(|| no_session(&self.path))
    }

    /// Sets what the requests of the sessions begun from now on hide,
    /// beyond the defaults (see [`StoreRedaction`]).
    pub fn set_redaction(&mut self, redaction: StoreRedaction) {
        self.redaction = redaction;
    }

    /// Starts a session (others stay open) and makes it the current one.
    /// Its request is stored without its secrets (see [`StoreRedaction`]),
    /// and the recording says what was hidden
    /// ([`SessionInfo::redacted`](super::SessionInfo::redacted)).
    pub fn begin_session(&mut self, session: NewSession) -> Result<SessionId, StoreError> {
        let headers_json = |headers: &[(String, String)]| {
            serde_json::to_string(&redact_headers(headers)).unwrap_or_else(|_| "[]".into())
        };
        let (stored_request, mut hidden) = match &session.request {
            Some(request) => {
                let (stored, hidden) = self.redaction.request(request);
                (Some(stored), hidden)
            }
            None => (None, Vec::new()),
        };
        if let Some(response) = &session.response {
            hidden.extend(
                response
                    .headers
                    .iter()
                    .filter(|(name, _)| is_secret_header(name))
                    .map(|(name, _)| format!("response header {}", name.to_ascii_lowercase())),
            );
            hidden.dedup();
        }
        let request = stored_request.as_ref();
        let response = session.response.as_ref();
        let diagnostics = if session.reader_diagnostics.is_empty() {
            None
        } else {
            serde_json::to_string(&session.reader_diagnostics).ok()
        };
        // Row ids hold the session in 23 bits (issue 12): refuse the one
        // session too many rather than wrap into another's rows.
        let last: i64 = self
            .conn
            .query_row("SELECT coalesce(max(id), 0) FROM sessions", [], |row| {
                row.get(0)
            })
            .map_err(|e| self.sqlite("cannot start a session", e))?;
        if last >= schema::MAX_SESSION_ID {
            return Err(StoreError::Full {
                path: self.path.clone(),
                reason: format!(
                    "it holds session {last}, and a recording holds at most {} sessions",
                    schema::MAX_SESSION_ID
                ),
            });
        }
        self.conn
            .execute(
                "INSERT INTO sessions (source, format, started_at_unix_ms, status,
                    request_method, request_url, request_headers, request_body,
                    response_status, response_headers, reader_diagnostics)
                 VALUES (?1, ?2, ?3, 'recording', ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    session.source,
                    session.format,
                    session.started_at_unix_ms.unwrap_or_else(now_unix_ms),
                    request.map(|r| r.method.as_str()),
                    request.map(|r| r.url.as_str()),
                    request.map(|r| headers_json(&r.headers)),
                    request.and_then(|r| r.body.as_deref()),
                    response.map(|r| r.status),
                    response.map(|r| headers_json(&r.headers)),
                    diagnostics,
                ],
            )
            .map_err(|e| self.sqlite("cannot start a session", e))?;
        self.uncheckpointed = true;
        let id = SessionId(self.conn.last_insert_rowid());
        if !hidden.is_empty() {
            let list = serde_json::to_string(&hidden).unwrap_or_else(|_| "[]".into());
            self.conn
                .execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                    params![super::redacted_key(id), list],
                )
                .map_err(|e| self.sqlite("cannot start a session", e))?;
        }
        self.sessions.insert(
            id,
            Session {
                next_seq: 1,
                started: Instant::now(),
                arrivals: Arrivals::default(),
            },
        );
        self.current = Some(id);
        if let Some(body) = session.request.as_ref().and_then(|r| r.body.as_deref()) {
            let values = self.redaction.hidden_values(body);
            if !values.is_empty() {
                self.hidden_values.insert(id, values);
            }
        }
        Ok(id)
    }

    /// Keeps the profile a session declares (an imported vector document's
    /// `profile`), the default profile of its replay (issue 12).
    pub fn set_declared_profile(
        &mut self,
        session: SessionId,
        profile: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![schema::profile_key(session.0), profile],
            )
            .map_err(|e| self.sqlite("cannot keep the session's profile", e))?;
        Ok(())
    }

    /// Step 0 of the replay a session's stored index is built from (issue
    /// 14): the run input as stored, under the options a reader uses by
    /// default ([`super::default_options`] of the profile it declares).
    /// `None` when nothing is stored for that profile.
    pub fn index_start(
        &self,
        session: SessionId,
        declared_profile: Option<&str>,
    ) -> Result<Option<crate::replay::Replayer>, StoreError> {
        let Some(options) = super::default_options(declared_profile) else {
            return Ok(None);
        };
        Ok(Some(match self.stored_run_input(session)? {
            Some(input) => crate::replay::Replayer::with_run_input(options, &input),
            None => crate::replay::Replayer::new(options),
        }))
    }

    /// The run input of a session as stored (its request body without its
    /// secrets, when it is a JSON object): step 0 of its replay, as a reader
    /// sees it ([`SessionInfo::run_input`](super::SessionInfo::run_input)).
    pub fn stored_run_input(
        &self,
        session: SessionId,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let body: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT request_body FROM sessions WHERE id = ?1",
                [session.0],
                |row| row.get(0),
            )
            .map_err(|e| self.sqlite("cannot read the session's request", e))?;
        Ok(body.and_then(
            |body| match serde_json::from_slice::<serde_json::Value>(&body) {
                Ok(value @ serde_json::Value::Object(_)) => Some(value),
                _ => None,
            },
        ))
    }

    /// Stores the timeline index of a session (issue 14), keyed by the
    /// options `timeline` was replayed with, replacing one stored before.
    /// The timeline must be the session's whole stream, replayed from its
    /// [stored run input](Self::stored_run_input) with the end-of-stream
    /// checks ([`index_of`](crate::timeline::TimelineBuilder::index_of)).
    /// The index is stored in pieces of
    /// [`INDEX_PIECE_BYTES`](super::INDEX_PIECE_BYTES) (or less, under a
    /// lower SQLite length limit), so that an index of any size fits
    /// (10,000,000 events make more than SQLite's largest value). Returns
    /// whether it was stored: a state nested too deeply to be read back is
    /// not, nor one whose pieces SQLite refuses as too big (a length limit
    /// lowered to a few bytes); that recording then opens with its index
    /// built in the background, as one without.
    pub fn store_timeline(
        &mut self,
        session: SessionId,
        timeline: &Timeline,
    ) -> Result<bool, StoreError> {
        self.store_timeline_with(session, timeline, None)
    }

    /// [`Self::store_timeline`] with the events' arrival times, which a
    /// reader then takes from the index instead of every event's row.
    pub fn store_timeline_with(
        &mut self,
        session: SessionId,
        timeline: &Timeline,
        arrivals: Option<&[u64]>,
    ) -> Result<bool, StoreError> {
        let encoded = EncodedIndex::of(timeline, arrivals);
        self.store_encoded_index(session, &encoded)
    }

    /// Stores indexes in pieces of `n` bytes (tests: an index of many
    /// pieces from a small stream).
    pub(crate) fn set_index_piece_bytes(&mut self, n: usize) {
        self.index_piece_bytes = Some(n.max(1));
    }

    /// The size of the pieces an index is stored in: at most
    /// [`schema::INDEX_PIECE_BYTES`], and half SQLite's length limit, which
    /// leaves room for the piece row's other columns.
    pub fn index_piece_bytes(&self) -> usize {
        if let Some(n) = self.index_piece_bytes {
            return n;
        }
        let limit = self
            .conn
            .limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH)
            .unwrap_or(i32::MAX);
        schema::INDEX_PIECE_BYTES
            .min(usize::try_from(limit / 2).unwrap_or(0))
            .max(1)
    }

    /// Stores piece `n` of the index of `session` replayed with `options`
    /// as it is encoded (issue 40), before the index is ended
    /// ([`EncodedIndex::finished`], [`Self::store_encoded_index`], which
    /// stores the rest and makes it an index a reader believes, or removes
    /// the pieces). The first stored for a session and options removes
    /// those of an index stored before.
    pub fn store_index_piece(
        &mut self,
        session: SessionId,
        options: crate::replay::Options,
        n: usize,
        piece: &[u8],
    ) -> Result<(), StoreError> {
        let options = schema::options_key(options);
        let conn = &self.conn;
        let store = || -> rusqlite::Result<()> {
            let tx = conn.unchecked_transaction()?;
            if n == 0 {
                tx.execute(
                    "DELETE FROM timeline_index WHERE session_id = ?1 AND options = ?2",
                    params![session.0, options],
                )?;
                delete_index_pieces(&tx, session, &options)?;
            }
            write_piece(&tx, session, &options, n, &[piece])?;
            tx.commit()
        };
        store().map_err(|e| self.sqlite("cannot store the timeline index", e))?;
        self.uncheckpointed = true;
        Ok(())
    }

    /// Stores a timeline index encoded beforehand ([`EncodedIndex::of`], on
    /// another thread while this writer builds the recording's own
    /// indexes: issue 14's import). Returns whether it was stored, as
    /// [`Self::store_timeline`] does.
    pub fn store_encoded_index(
        &mut self,
        session: SessionId,
        encoded: &EncodedIndex,
    ) -> Result<bool, StoreError> {
        let options = schema::options_key(encoded.options);
        let Some(parts) = &encoded.parts else {
            // What was stored of it goes too.
            if encoded.pieces_before > 0 {
                delete_index_pieces(&self.conn, session, &options)
                    .map_err(|e| self.sqlite("cannot store the timeline index", e))?;
            }
            return Ok(false);
        };
        let piece_bytes = self.index_piece_bytes();
        let first_piece = encoded.pieces_before;
        let num_bytes = first_piece * piece_bytes + parts.iter().map(Vec::len).sum::<usize>();
        let conn = &self.conn;
        let store = || -> rusqlite::Result<()> {
            if first_piece == 0 {
                delete_index_pieces(conn, session, &options)?;
            }
            conn.execute(
                "INSERT OR REPLACE INTO timeline_index
                        (session_id, options, format_version, engine, num_events, data,
                         num_pieces, num_bytes)
                     VALUES (?1, ?2, ?3, ?4, ?5, x'', ?6, ?7)",
                params![
                    session.0,
                    options,
                    INDEX_FORMAT_VERSION,
                    index_engine(),
                    encoded.num_events as i64,
                    num_bytes.div_ceil(piece_bytes) as i64,
                    num_bytes as i64,
                ],
            )?;
            for (n, piece) in (first_piece..).zip(pieces(parts, piece_bytes)) {
                write_piece(conn, session, &options, n, &piece)?;
            }
            Ok(())
        };
        // All the pieces, or none.
        conn.execute_batch("SAVEPOINT store_timeline")
            .map_err(|e| self.sqlite("cannot store the timeline index", e))?;
        let stored = store();
        let end = match stored {
            Ok(()) => "RELEASE store_timeline",
            Err(_) => "ROLLBACK TO store_timeline; RELEASE store_timeline",
        };
        conn.execute_batch(end)
            .map_err(|e| self.sqlite("cannot store the timeline index", e))?;
        match stored {
            Ok(()) => {}
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::TooBig) => {
                // What was stored of it before goes too.
                if first_piece > 0 {
                    delete_index_pieces(conn, session, &options)
                        .map_err(|e| self.sqlite("cannot store the timeline index", e))?;
                }
                return Ok(false);
            }
            Err(e) => return Err(self.sqlite("cannot store the timeline index", e)),
        }
        self.uncheckpointed = true;
        Ok(true)
    }

    /// Records the response of the current session once it is known.
    pub fn set_response(&mut self, response: &HttpResponse) -> Result<(), StoreError> {
        let session = self.current()?;
        self.set_response_of(session, response)
    }

    /// Records the response of a session once it is known.
    pub fn set_response_of(
        &mut self,
        session: SessionId,
        response: &HttpResponse,
    ) -> Result<(), StoreError> {
        let headers = serde_json::to_string(&redact_headers(&response.headers))
            .unwrap_or_else(|_| "[]".into());
        self.conn
            .execute(
                "UPDATE sessions SET response_status = ?1, response_headers = ?2 WHERE id = ?3",
                params![response.status, headers, session.0],
            )
            .map_err(|e| self.sqlite("cannot record the response", e))?;
        self.uncheckpointed = true;
        Ok(())
    }

    /// Appends one event, arriving when and in the session `arrival` says
    /// ([`Arrival::now`] in the current session unless told otherwise).
    /// Commits if the last commit is older than [`COMMIT_INTERVAL`].
    pub fn append(&mut self, raw: &[u8], arrival: Arrival) -> Result<Seq, StoreError> {
        let session = match arrival.session {
            Some(session) => session,
            None => self.current()?,
        };
        let nanos = match arrival.nanos {
            Some(nanos) => nanos,
            None => self.sessions.get(&session).map_or(0, |s| {
                u64::try_from(s.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
            }),
        };
        self.push(session, raw, nanos, Keys::of(raw))
    }

    /// Appends every event of an imported file to the current session, in
    /// transactions of many events straight from the file's bytes.
    /// `arrivals[i]` is the arrival time of the event at index `i` when it
    /// is known (as a recording holds them); without them, or past their
    /// end, an event's arrival is taken from its `timestamp`
    /// (milliseconds), relative to the session's first one, and never goes
    /// backwards; events without one are 100 ms apart before the first
    /// timestamp and arrive with the one before after it ([`Arrivals`]).
    /// `progress` is called after each transaction with the number of
    /// events written so far. Returns the arrival times stored, one per
    /// event.
    pub fn import_events(
        &mut self,
        events: &EventLog,
        arrivals: Option<&[u64]>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, StoreError> {
        self.flush()?;
        let id = self.current()?;
        let mut stored_arrivals = Vec::with_capacity(events.len());
        let Some(session) = self.sessions.get_mut(&id) else {
            return Err(no_session(&self.path));
        };
        let mut written = 0u64;
        let mut index = 0usize;
        let mut all = events.iter().map(|(_, raw)| raw);
        while index < events.len() {
            let chunk = all.by_ref().take(MAX_BATCH_EVENTS);
            let before = index;
            let result = (|| {
                let tx = self.conn.unchecked_transaction()?;
                {
                    let mut insert = tx.prepare_cached(INSERT_EVENT)?;
                    for raw in chunk {
                        let keys = EventKeys::of(raw);
                        let arrival = match arrivals.and_then(|a| a.get(index)) {
                            Some(&known) => {
                                session.arrivals.known(known);
                                known
                            }
                            None => session.arrivals.next(keys.timestamp),
                        };
                        index += 1;
                        stored_arrivals.push(arrival);
                        let seq = i64::try_from(session.next_seq).unwrap_or(i64::MAX);
                        session.next_seq += 1;
                        insert.execute(params![
                            schema::event_id(id.0, seq),
                            id.0,
                            seq,
                            i64::try_from(arrival).unwrap_or(i64::MAX),
                            raw,
                            keys.event_type.as_deref(),
                            keys.message_id.as_deref(),
                            keys.run_id.as_deref(),
                        ])?;
                    }
                }
                tx.commit()
            })();
            result.map_err(|e| StoreError::Sqlite {
                path: self.path.clone(),
                context: "cannot write events".into(),
                source: e,
            })?;
            written += (index - before) as u64;
            progress(written);
        }
        self.last_commit = Instant::now();
        self.uncheckpointed = true;
        Ok(stored_arrivals)
    }

    /// An event of a live session as it is to be stored: with the run
    /// input it echoes (`RUN_STARTED.input`) hiding what the stored request
    /// hides ([`StoreRedaction::event`]), any other copy of a value the
    /// request body hid hidden too ([`hide_values`](super::hide_values)),
    /// and the session's list of what was hidden saying so (`event
    /// /input/forwardedProps/apiKey`). A live
    /// writer stores what this returns, so that no secret reaches the file,
    /// nor its write-ahead log (issue 38).
    pub fn stored_event<'a>(
        &mut self,
        session: SessionId,
        raw: &'a [u8],
    ) -> Result<std::borrow::Cow<'a, [u8]>, StoreError> {
        let (stored, pointers) = self.redacted_event(session, raw);
        self.note_hidden(session, pointers)?;
        Ok(stored)
    }

    /// The events of an imported file as they are to be stored: each as
    /// [`Self::stored_event`] stores an event of a live session, so that an
    /// import hides what `record` hides (issue 38: the run input an agent
    /// echoes in `RUN_STARTED.input`, any copy of a value the request body
    /// hid), and the session's list of what was hidden saying so. The log
    /// is returned as it came when nothing is hidden.
    pub fn stored_events(
        &mut self,
        session: SessionId,
        events: EventLog,
    ) -> Result<EventLog, StoreError> {
        let mut redacted: Option<EventLog> = None;
        let mut all_pointers: Vec<String> = Vec::new();
        for (index, (_, raw)) in events.iter().enumerate() {
            let (stored, pointers) = self.redacted_event(session, raw);
            match (&mut redacted, stored) {
                (Some(log), stored) => {
                    log.push(&stored);
                }
                (None, std::borrow::Cow::Borrowed(_)) => {}
                (None, std::borrow::Cow::Owned(stored)) => {
                    // The first event that changes: the ones before it are
                    // copied as they are, and every one after it pushed.
                    let mut log = EventLog::with_capacity(events.num_bytes(), events.len());
                    for (_, before) in events.iter().take(index) {
                        log.push(before);
                    }
                    log.push(&stored);
                    redacted = Some(log);
                }
            }
            for pointer in pointers {
                if !all_pointers.contains(&pointer) {
                    all_pointers.push(pointer);
                }
            }
        }
        self.note_hidden(session, all_pointers)?;
        Ok(redacted.unwrap_or(events))
    }

    /// An event with what the session hides hidden, and the pointers (or
    /// words) of what was.
    fn redacted_event<'a>(
        &self,
        session: SessionId,
        raw: &'a [u8],
    ) -> (std::borrow::Cow<'a, [u8]>, Vec<String>) {
        let (mut stored, mut pointers) = match self.redaction.event(raw) {
            Some((redacted, pointers)) => (std::borrow::Cow::Owned(redacted), pointers),
            None => (std::borrow::Cow::Borrowed(raw), Vec::new()),
        };
        if let Some(values) = self.hidden_values.get(&session)
            && let Some(hidden) = super::hide_values(&stored, values)
        {
            stored = std::borrow::Cow::Owned(hidden);
            pointers.push("(a value the request body hid)".to_owned());
        }
        (stored, pointers)
    }

    /// Adds `pointers` (as `event POINTER`) to the session's list of what
    /// was hidden.
    fn note_hidden(&mut self, session: SessionId, pointers: Vec<String>) -> Result<(), StoreError> {
        if pointers.is_empty() {
            return Ok(());
        }
        let key = super::redacted_key(session);
        let listed: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [&key], |row| {
                row.get(0)
            })
            .optional()
            .map_err(|e| self.sqlite("cannot note what an event hid", e))?;
        let mut hidden: Vec<String> = listed
            .and_then(|list| serde_json::from_str(&list).ok())
            .unwrap_or_default();
        let before = hidden.len();
        for pointer in pointers {
            let label = format!("event {pointer}");
            if !hidden.contains(&label) {
                hidden.push(label);
            }
        }
        if hidden.len() > before {
            let list = serde_json::to_string(&hidden).unwrap_or_else(|_| "[]".into());
            self.conn
                .execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                    params![key, list],
                )
                .map_err(|e| self.sqlite("cannot note what an event hid", e))?;
            self.uncheckpointed = true;
        }
        Ok(())
    }

    fn push(
        &mut self,
        id: SessionId,
        raw: &[u8],
        arrival_nanos: u64,
        keys: Keys,
    ) -> Result<Seq, StoreError> {
        let Some(session) = self.sessions.get_mut(&id) else {
            return Err(no_session(&self.path));
        };
        let seq = session.next_seq;
        session.next_seq += 1;
        self.pending.push(Pending {
            session: id.0,
            seq: i64::try_from(seq).unwrap_or(i64::MAX),
            arrival_nanos: i64::try_from(arrival_nanos).unwrap_or(i64::MAX),
            raw: raw.to_vec(),
            keys,
        });
        if self.pending.len() >= MAX_BATCH_EVENTS {
            self.flush()?;
        } else {
            self.flush_if_due()?;
        }
        Ok(Seq::new(seq))
    }

    /// How long until the pending events are due to be committed (at once
    /// if they are); a whole [`COMMIT_INTERVAL`] when none are pending. A
    /// writer fed by a network stream waits this long for more events
    /// before it calls [`Self::flush_if_due`].
    pub fn until_commit_due(&self) -> Duration {
        if self.pending.is_empty() {
            COMMIT_INTERVAL
        } else {
            COMMIT_INTERVAL.saturating_sub(self.last_commit.elapsed())
        }
    }

    /// Commits the pending events if the last commit is older than
    /// [`COMMIT_INTERVAL`].
    pub fn flush_if_due(&mut self) -> Result<(), StoreError> {
        if !self.pending.is_empty() && self.last_commit.elapsed() >= COMMIT_INTERVAL {
            self.flush()?;
        }
        self.checkpoint_if_due()
    }

    /// Folds the write-ahead log into the main file if something was
    /// committed since the last time and that is [`CHECKPOINT_INTERVAL`]
    /// ago (a passive checkpoint: it never waits for a reader, and copies
    /// what no reader still needs). The writer thread calls it at every
    /// [`COMMIT_INTERVAL`], so that a killed writer's file stands alone with
    /// all but about its last second (issue 12).
    pub fn checkpoint_if_due(&mut self) -> Result<(), StoreError> {
        if self.live && self.uncheckpointed && self.last_checkpoint.elapsed() >= CHECKPOINT_INTERVAL
        {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Folds the write-ahead log into the main file now (passively).
    pub fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.last_checkpoint = Instant::now();
        self.uncheckpointed = false;
        if !self.live {
            return Ok(());
        }
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| self.sqlite("cannot fold the write-ahead log into the recording", e))
    }

    /// Commits the pending events now, in one transaction.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        self.last_commit = Instant::now();
        if self.pending.is_empty() {
            return Ok(());
        }
        let result = (|| {
            let tx = self.conn.unchecked_transaction()?;
            {
                let mut insert = tx.prepare_cached(INSERT_EVENT)?;
                for event in &self.pending {
                    insert.execute(params![
                        schema::event_id(event.session, event.seq),
                        event.session,
                        event.seq,
                        event.arrival_nanos,
                        event.raw,
                        event.keys.event_type,
                        event.keys.message_id,
                        event.keys.run_id,
                    ])?;
                }
            }
            tx.commit()
        })();
        result.map_err(|e| self.sqlite("cannot write events", e))?;
        self.pending.clear();
        self.uncheckpointed = true;
        Ok(())
    }

    /// Commits what is pending and closes the current session with `status`.
    pub fn end_session(&mut self, status: SessionStatus) -> Result<(), StoreError> {
        self.end_session_at(status, Some(now_unix_ms()))
    }

    /// [`Self::end_session`] with a given end time (exports, which must not
    /// depend on the clock).
    pub fn end_session_at(
        &mut self,
        status: SessionStatus,
        ended_at_unix_ms: Option<i64>,
    ) -> Result<(), StoreError> {
        let session = self.current()?;
        self.end(session, status, ended_at_unix_ms)
    }

    /// Commits what is pending and closes a session with `status`.
    pub fn end(
        &mut self,
        session: SessionId,
        status: SessionStatus,
        ended_at_unix_ms: Option<i64>,
    ) -> Result<(), StoreError> {
        self.flush()?;
        self.hidden_values.remove(&session);
        if self.sessions.remove(&session).is_none() {
            return Ok(());
        }
        if self.current == Some(session) {
            self.current = None;
        }
        self.conn
            .execute(
                "UPDATE sessions SET status = ?1, ended_at_unix_ms = ?2 WHERE id = ?3",
                params![status.as_str(), ended_at_unix_ms, session.0],
            )
            .map_err(|e| self.sqlite("cannot end the session", e))?;
        self.uncheckpointed = true;
        Ok(())
    }

    /// Builds the [`schema::SQL_INDEXES`] the file does not have yet
    /// (`import --sql-indexes`, `upgrade --sql-indexes`). An import builds
    /// them once its last events are written, while its timeline index is
    /// still being replayed on another thread.
    pub fn build_sql_indexes(&mut self) -> Result<(), StoreError> {
        self.flush()?;
        // SQLite's sorter may sort on helper threads (`PRAGMA threads`;
        // none by default): building the three indexes of 10,000,000
        // events took 16.1 s instead of 21.8 on two cores (issue 14's
        // import).
        let helpers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        self.conn
            .execute_batch(&format!("PRAGMA threads = {helpers};"))
            .and_then(|()| self.conn.execute_batch(schema::SQL_INDEXES))
            .map_err(|e| self.sqlite("cannot index the recording", e))
    }

    /// Ends the sessions still open as complete (a writer that knows
    /// better ends them first) and folds the write-ahead log into the file
    /// so that it stands alone.
    ///
    /// While a reader has the file open (the app following a live
    /// recording), the file cannot leave WAL mode: it keeps its log files
    /// beside it, but every event is folded into the main file all the same
    /// (the checkpoint waits for the reader's current query), so the main
    /// file still stands alone.
    pub fn finish(mut self) -> Result<PathBuf, StoreError> {
        let mut open: Vec<SessionId> = self.sessions.keys().copied().collect();
        open.sort();
        for session in open {
            self.end(session, SessionStatus::Complete, Some(now_unix_ms()))?;
        }
        self.conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(|e| self.sqlite("cannot finish the recording", e))?;
        match self.conn.execute_batch("PRAGMA journal_mode = DELETE;") {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) => {}
            result => result.map_err(|e| self.sqlite("cannot finish the recording", e))?,
        }
        Ok(self.path.clone())
    }
}

/// Removes the stored pieces of the index of `session` replayed with the
/// options keyed `options`.
fn delete_index_pieces(
    conn: &rusqlite::Connection,
    session: SessionId,
    options: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM timeline_index_piece WHERE session_id = ?1 AND options = ?2",
        params![session.0, options],
    )
    .map(|_| ())
}

/// Inserts piece `n` of an index, the concatenation of `slices`, written
/// straight into its pages (incremental blob I/O): bound as a value,
/// SQLite copied it twice, into fresh memory each time (issue 14: a sixth
/// of a 10M import's page faults).
fn write_piece(
    conn: &rusqlite::Connection,
    session: SessionId,
    options: &str,
    n: usize,
    slices: &[&[u8]],
) -> rusqlite::Result<()> {
    let len: usize = slices.iter().map(|slice| slice.len()).sum();
    conn.prepare_cached(
        "INSERT INTO timeline_index_piece (session_id, options, piece, data)
             VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![session.0, options, n as i64, ZeroBlob(len as u64)])?;
    let mut data = conn.blob_open(
        rusqlite::MAIN_DB,
        "timeline_index_piece",
        "data",
        conn.last_insert_rowid(),
        false,
    )?;
    let mut at = 0;
    for slice in slices {
        data.write_all_at(slice, at)?;
        at += slice.len();
    }
    Ok(())
}

/// The bytes of `parts`, joined, cut into pieces of `piece_bytes` (the
/// last maybe shorter): each piece as the slices of the parts it spans.
fn pieces(parts: &[Vec<u8>], piece_bytes: usize) -> impl Iterator<Item = Vec<&[u8]>> {
    let mut left: std::collections::VecDeque<&[u8]> = parts
        .iter()
        .map(Vec::as_slice)
        .filter(|part| !part.is_empty())
        .collect();
    std::iter::from_fn(move || {
        let mut piece = Vec::new();
        let mut room = piece_bytes.max(1);
        while room > 0
            && let Some(part) = left.pop_front()
        {
            let (taken, rest) = part.split_at(room.min(part.len()));
            room -= taken.len();
            piece.push(taken);
            if !rest.is_empty() {
                left.push_front(rest);
            }
        }
        (!piece.is_empty()).then_some(piece)
    })
}

/// Commits that survive a killed process. A live recording uses a
/// write-ahead log, so that it can be read while it is written
/// (`synchronous = NORMAL`: nothing committed is lost unless the machine
/// itself goes down). A bulk import uses a rollback journal without waiting
/// for the disk (`synchronous = OFF`): a killed import still rolls back to
/// its last commit, each page is written once instead of twice, and only a
/// machine crash could damage the file, whose inputs are still there to
/// import again.
///
/// A writer waits (up to [`BUSY_TIMEOUT`]) rather than fails when another
/// connection briefly holds the write lock: a reader saving a bookmark into
/// a recording the proxy is still writing.
///
/// The page cache holds [`LIVE_CACHE_BYTES`] or [`IMPORT_CACHE_BYTES`],
/// given in pages of the file's page size (issue 40: given in kibibytes
/// before the schema set the page size, SQLite counted the pages of its
/// default size, and an import's cache grew to four times what was asked,
/// 264 MB of a 2,000,000-event import's peak).
fn configure(conn: &Connection, live: bool) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let (journal, synchronous, cache_bytes) = if live {
        ("WAL", "NORMAL", LIVE_CACHE_BYTES)
    } else {
        ("DELETE", "OFF", IMPORT_CACHE_BYTES)
    };
    let page_bytes: i64 = conn.pragma_query_value(None, "page_size", |row| row.get(0))?;
    let cache_pages = (cache_bytes / page_bytes.max(512)).max(16);
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = {journal}; PRAGMA synchronous = {synchronous};
         PRAGMA cache_size = {cache_pages};"
    ))
}

/// The page cache of a live recording's writer.
const LIVE_CACHE_BYTES: i64 = 64 << 20;

/// The page cache of an import's writer: its inserts append, and a larger
/// cache only holds more of what was written (an import of 2,000,000
/// events took as long with 16 MiB as with the 256 MiB it had before).
const IMPORT_CACHE_BYTES: i64 = 16 << 20;

impl Drop for RecordingWriter {
    /// A writer dropped without [`RecordingWriter::finish`] (an error path,
    /// a panic) still commits what it holds; the session stays incomplete.
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::EventLog;
    use crate::replay::Options;

    /// The page cache is what was asked, in bytes, for an import's writer
    /// and a live one (issue 40: an import's cache was sized before the
    /// schema set the page size, and held four times as much).
    #[test]
    fn a_writers_page_cache_holds_the_bytes_asked_for() {
        let dir = std::env::temp_dir().join(format!("agui-replay-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for (for_import, asked) in [(true, IMPORT_CACHE_BYTES), (false, LIVE_CACHE_BYTES)] {
            let path = dir.join(format!("cache-{for_import}.rec"));
            let _ = std::fs::remove_file(&path);
            let writer = RecordingWriter::create(&path, for_import).unwrap();
            let query = |name: &str| -> i64 {
                writer
                    .conn
                    .pragma_query_value(None, name, |row| row.get(0))
                    .unwrap()
            };
            let (pages, page_bytes) = (query("cache_size"), query("page_size"));
            assert_eq!(page_bytes, schema::PAGE_BYTES, "import: {for_import}");
            assert_eq!(pages * page_bytes, asked, "import: {for_import}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The pieces of an index in parts are the pieces of the parts joined,
    /// whatever the parts' lengths against the pieces' (a part shorter
    /// than a piece, one spanning several, empty ones, a join on a
    /// boundary).
    #[test]
    fn pieces_of_parts_are_the_pieces_of_the_parts_joined() {
        let part = |from: u8, len: usize| (0..len).map(|i| from.wrapping_add(i as u8)).collect();
        let cases: Vec<Vec<Vec<u8>>> = vec![
            vec![],
            vec![vec![]],
            vec![part(0, 3)],
            vec![part(0, 8), part(50, 8)],
            vec![part(0, 5), vec![], part(50, 1), part(100, 21)],
            vec![part(0, 1), part(10, 1), part(20, 1)],
            vec![part(0, 33), part(90, 7)],
        ];
        for parts in cases {
            let joined = parts.concat();
            for piece_bytes in [1, 2, 4, 8, 100] {
                let pieces: Vec<Vec<u8>> = pieces(&parts, piece_bytes)
                    .map(|slices| slices.concat())
                    .collect();
                let expected: Vec<Vec<u8>> =
                    joined.chunks(piece_bytes).map(<[u8]>::to_vec).collect();
                assert_eq!(pieces, expected, "{parts:?} in pieces of {piece_bytes}");
            }
        }
    }

    /// Issue 14: an index whose pieces SQLite refuses as too big is not
    /// stored, and the import goes on (10,000,000 events failed with
    /// "string or blob too big" before indexes were stored in pieces);
    /// here the limit is lowered to a few bytes.
    #[test]
    fn an_index_too_big_for_sqlite_is_not_stored_and_is_no_error() {
        let dir = std::env::temp_dir().join(format!("agui-replay-toobig-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("big.rec");
        let _ = std::fs::remove_file(&path);
        let mut writer = RecordingWriter::create(&path, true).expect("creates");
        let mut log = EventLog::default();
        log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        log.push(br#"{"type":"STATE_SNAPSHOT","snapshot":{"k":"a value long enough"}}"#);
        let timeline = Timeline::builder(Options::default()).index_of(&log);
        let session = writer
            .begin_session(NewSession {
                source: "test".into(),
                ..NewSession::default()
            })
            .expect("begins");
        writer
            .conn
            .set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, 16)
            .expect("sets the limit");
        assert!(
            !writer
                .store_timeline(session, &timeline)
                .expect("a blob too big is no error"),
            "not stored"
        );
        writer
            .conn
            .set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, 1_000_000_000)
            .expect("sets the limit");
        assert!(writer.store_timeline(session, &timeline).expect("stores"));
        drop(writer);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Where the index's front ends (its checkpoints start): the header's
    /// front length after its numbers and checksum.
    fn front_end(blob: &[u8]) -> usize {
        let d = &mut crate::replay::codec::Decoder::new(blob);
        d.skip(4).expect("magic");
        for _ in 0..5 {
            d.u64().expect("a number");
        }
        let front_len = d.usize().expect("front length");
        d.skip(8).expect("checksum");
        d.pos() + front_len
    }

    /// Issue 14: under a length limit lowered to 1 KiB, an index is stored
    /// in pieces of 512 bytes, and read back it gives the replayed timeline; a
    /// piece missing, one too many or two swapped is refused (the reader
    /// then indexes the recording itself): in the front when the index is
    /// opened, among the checkpoints when a seek first reads it (that seek
    /// starts from an earlier checkpoint and still answers right).
    #[test]
    fn an_index_longer_than_the_length_limit_is_stored_in_pieces_and_read_back() {
        use crate::store::{IndexUnused, Recording};
        let dir = std::env::temp_dir().join(format!("agui-replay-pieces-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("pieces.rec");
        let _ = std::fs::remove_file(&path);
        let log = crate::timeline::test_streams::long();
        let mut writer = RecordingWriter::create(&path, true).expect("creates");
        let session = writer
            .begin_session(NewSession {
                source: "test".into(),
                ..NewSession::default()
            })
            .expect("begins");
        let arrivals = writer
            .import_events(&log, None, &mut |_| {})
            .expect("writes the events");
        let timeline = Timeline::builder(Options::default()).index_of(&log);
        writer
            .conn
            .set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, 1024)
            .expect("sets the limit");
        assert!(
            writer
                .store_timeline_with(session, &timeline, Some(&arrivals))
                .expect("stores")
        );
        writer
            .conn
            .set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, 1_000_000_000)
            .expect("sets the limit");
        writer
            .end_session(SessionStatus::Complete)
            .expect("ends the session");
        writer.finish().expect("finishes");

        let blob = timeline
            .encode_index_with(Some(&arrivals))
            .expect("encodes");
        let num_pieces = blob.len().div_ceil(512);
        let first_later = front_end(&blob).div_ceil(512);
        assert!(
            num_pieces - first_later >= 4,
            "the checkpoints span several pieces: {first_later} of {num_pieces}"
        );
        let conn = Connection::open(&path).expect("opens");
        let (stored_pieces, max_len): (i64, i64) = conn
            .query_row(
                "SELECT count(*), max(length(data)) FROM timeline_index_piece",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("counts");
        drop(conn);
        assert_eq!((stored_pieces, max_len), (num_pieces as i64, 512));

        let replayed = Timeline::from_log(log.clone(), Options::default());
        let seeks_agree = |stored: &Timeline, steps: &mut dyn Iterator<Item = u64>| {
            for step in steps.map(Seq::new) {
                assert_eq!(
                    stored.seek(step).document(),
                    replayed.seek(step).document(),
                    "step {step}"
                );
            }
        };
        let recording = Recording::open(&path).expect("opens");
        assert_eq!(
            recording
                .stored_index(session, Options::default())
                .expect("reads"),
            Ok(blob.clone()),
            "the pieces make up the index"
        );
        let (stored, back) = recording
            .stored_timeline_and_arrivals_of(
                session,
                Options::default(),
                recording.load_events(session).expect("events"),
            )
            .expect("reads")
            .expect("the index in pieces is believed");
        assert_eq!(back.as_deref(), Some(&arrivals[..]));
        assert_eq!(stored.diagnostics(), replayed.diagnostics());
        assert_eq!(stored.effects(), replayed.effects());
        assert_eq!(stored.index().lanes(), replayed.index().lanes());
        assert!(stored.checkpoint_steps().eq(replayed.checkpoint_steps()));
        seeks_agree(&stored, &mut (0..=log.len() as u64).rev().step_by(13));
        drop((stored, recording));

        // Damaged copies.
        let damaged = |name: &str, sql: &str| -> std::path::PathBuf {
            let copy = dir.join(format!("{name}.rec"));
            std::fs::copy(&path, &copy).expect("copies");
            let conn = Connection::open(&copy).expect("opens");
            conn.execute_batch(sql).expect("damages");
            copy
        };
        let swap = |a: usize, b: usize| {
            format!(
                "UPDATE timeline_index_piece SET piece = -1 WHERE piece = {a};
                 UPDATE timeline_index_piece SET piece = {a} WHERE piece = {b};
                 UPDATE timeline_index_piece SET piece = {b} WHERE piece = -1;"
            )
        };
        let last = num_pieces - 1;
        let refused = [
            (
                "missing",
                "DELETE FROM timeline_index_piece WHERE piece = 1".to_owned(),
            ),
            (
                "extra",
                format!(
                    "INSERT INTO timeline_index_piece (session_id, options, piece, data)
                     SELECT session_id, options, {num_pieces}, data FROM timeline_index_piece
                     WHERE piece = 0"
                ),
            ),
            ("last-moved", swap(0, last)),
            ("front-swapped", swap(0, 1)),
        ];
        for (name, sql) in refused {
            let copy = damaged(name, &sql);
            let recording = Recording::open(&copy).expect("opens");
            let events = recording.load_events(session).expect("events");
            match recording
                .stored_timeline_of(session, Options::default(), events)
                .expect("a damaged index is no error")
            {
                Ok(_) => panic!("{name}: a damaged index was believed"),
                Err(why) => assert!(matches!(why, IndexUnused::Damaged(_)), "{name}: {why}"),
            }
        }
        // Two of the checkpoints' pieces swapped: opening reads only the
        // front, which is whole; the checkpoints in them are refused when
        // first read, and every seek still answers as the replay does.
        let copy = damaged(
            "checkpoints-swapped",
            &swap(first_later + 1, first_later + 2),
        );
        let recording = Recording::open(&copy).expect("opens");
        let events = recording.load_events(session).expect("events");
        let stored = recording
            .stored_timeline_of(session, Options::default(), events)
            .expect("reads")
            .expect("the front is whole");
        let undecodable = (0..stored.num_checkpoints())
            .filter(|&i| stored.state_at_checkpoint(i).is_none())
            .count();
        assert!(undecodable > 0, "a swapped checkpoint piece is refused");
        seeks_agree(&stored, &mut (0..=log.len() as u64).step_by(17));
        drop((stored, recording));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
