//! The recording file format: one SQLite database, versioned with
//! `PRAGMA application_id` (which says "this is a recording") and
//! `PRAGMA user_version` (which says which schema), with a migration from
//! every earlier version.

use rusqlite::Connection;

/// `PRAGMA application_id` of a recording: "AGRP" in ASCII.
pub const APPLICATION_ID: i32 = 0x4147_5250;

/// The schema version this build writes. Files with a newer version are
/// refused; files with an older one are migrated when opened for writing and
/// read as they are when opened read-only (every version in
/// [`READABLE_VERSIONS`]).
pub const SCHEMA_VERSION: i32 = 3;

/// Versions the reader understands without migrating: a version-1 file
/// opens as it is (it has no stored index, so its timelines are replayed),
/// and a version-2 file's index is read from its one blob.
pub const READABLE_VERSIONS: &[i32] = &[1, 2, 3];

/// The tables of version 1. An event's `id` is [`event_id`]`(session, seq)`:
/// rows are appended in stream order, a session's events are one range of
/// ids, and indexes refer to rows by that one integer.
const SCHEMA_V1: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE sessions (
    id                  INTEGER PRIMARY KEY,
    source              TEXT NOT NULL,
    format              TEXT NOT NULL,
    started_at_unix_ms  INTEGER NOT NULL,
    ended_at_unix_ms    INTEGER,
    status              TEXT NOT NULL
        CHECK (status IN ('recording', 'complete', 'truncated', 'incomplete', 'failed')),
    request_method      TEXT,
    request_url         TEXT,
    request_headers     TEXT,
    request_body        BLOB,
    response_status     INTEGER,
    response_headers    TEXT,
    reader_diagnostics  TEXT
);
CREATE TABLE events (
    id             INTEGER PRIMARY KEY,
    session_id     INTEGER NOT NULL REFERENCES sessions(id),
    seq            INTEGER NOT NULL,
    arrival_nanos  INTEGER NOT NULL,
    raw            BLOB NOT NULL,
    type           TEXT,
    message_id     TEXT,
    run_id         TEXT
);
CREATE TABLE bookmarks (
    id                  INTEGER PRIMARY KEY,
    session_id          INTEGER NOT NULL REFERENCES sessions(id),
    seq                 INTEGER NOT NULL,
    label               TEXT NOT NULL,
    created_at_unix_ms  INTEGER NOT NULL
);
CREATE TABLE notes (
    id                  INTEGER PRIMARY KEY,
    session_id          INTEGER NOT NULL REFERENCES sessions(id),
    seq                 INTEGER NOT NULL,
    message_id          TEXT,
    text                TEXT NOT NULL,
    created_at_unix_ms  INTEGER NOT NULL
);
";

/// What version 2 adds (issue 14): the timeline index of each session,
/// written by `import` and `record` when the session ends, so that opening
/// reads it instead of replaying. A row is keyed by the session and the
/// replay options it was built with ([`options_key`]), and says which
/// index format and which engine wrote it: an index of another format or
/// engine, or one that does not agree with the events, is never believed
/// (the reader replays).
const SCHEMA_V2: &str = "
CREATE TABLE timeline_index (
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    options         TEXT NOT NULL,
    format_version  INTEGER NOT NULL,
    engine          TEXT NOT NULL,
    num_events      INTEGER NOT NULL,
    data            BLOB NOT NULL,
    PRIMARY KEY (session_id, options)
);
";

/// What version 3 adds (issue 14): the timeline index in pieces, because
/// one SQLite value holds at most about a gigabyte and the index of
/// 10,000,000 events is more. A `timeline_index` row then says how many
/// pieces (`num_pieces`, 0 for a row whose `data` holds the whole index,
/// as version 2 wrote it) and how many bytes in all (`num_bytes`); piece
/// `n` (from 0) is the row of `timeline_index_piece` numbered `n`, each
/// [`INDEX_PIECE_BYTES`] long but the last.
const SCHEMA_V3: &str = "
ALTER TABLE timeline_index ADD COLUMN num_pieces INTEGER NOT NULL DEFAULT 0;
ALTER TABLE timeline_index ADD COLUMN num_bytes INTEGER NOT NULL DEFAULT 0;
CREATE TABLE timeline_index_piece (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    options     TEXT NOT NULL,
    piece       INTEGER NOT NULL,
    data        BLOB NOT NULL,
    PRIMARY KEY (session_id, options, piece)
);
";

/// The size of a stored index's pieces (but the last): well under
/// SQLite's largest value, and small enough that a seek that needs a
/// piece not read yet reads it in a few milliseconds (issue 14), and that
/// an import holds little while it fills one (issue 40: 16 MiB before).
pub const INDEX_PIECE_BYTES: usize = 4 << 20;

/// The key of the replay options an index was built with
/// (`spec 1.1 strict`, `ag-ui-client-1.0 1.1 best-effort`).
pub fn options_key(options: crate::replay::Options) -> String {
    format!(
        "{} {} {}",
        options.profile.as_str(),
        options.protocol.as_str(),
        if options.best_effort {
            "best-effort"
        } else {
            "strict"
        }
    )
}

/// The largest session id: the session takes the 23 bits of the row id
/// above the step's 40 (a row id is a signed 64-bit integer), so a larger
/// one would wrap into another session's rows (issue 12). The writer
/// refuses to start a session past it, the reader a file that has one.
pub const MAX_SESSION_ID: i64 = (1 << 23) - 1;

/// The most events a session may hold: 2^32 - 1, far more than a debugger
/// can load (about 200 bytes an event), far less than the row id's 40 bits.
/// A recording whose row ids declare more is refused rather than believed.
pub const MAX_EVENTS_PER_SESSION: u64 = (1 << 32) - 1;

/// The row id of event `seq` of session `session`: the session in the high
/// bits, the step in the low 40 (a trillion events a session). `session`
/// is at most [`MAX_SESSION_ID`]; a larger one gives a row id outside every
/// session's range rather than one in another session.
pub fn event_id(session: i64, seq: i64) -> i64 {
    if !(0..=MAX_SESSION_ID).contains(&session) {
        return i64::MIN;
    }
    (session << 40) | (seq & ((1 << 40) - 1))
}

/// The `meta` key that holds the profile a session declares (a vector
/// document's `profile`, kept by import; issue 12).
pub fn profile_key(session: i64) -> String {
    format!("session.{session}.profile")
}

/// The secondary indexes of version 1, for SQL on the file: by event type,
/// by message and by run. Nothing in agui-replay queries them (it reads
/// events by row id), and building them was about a fifth of an import's
/// work (issue 14's import rate), so a recording has them only when asked:
/// `import --sql-indexes` or `upgrade --sql-indexes`. A file that has them
/// keeps them, SQLite updating them as events are added; one without them
/// opens and replays alike.
pub const SQL_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS events_by_type ON events (session_id, type);
CREATE INDEX IF NOT EXISTS events_by_message ON events (session_id, message_id)
    WHERE message_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_run ON events (session_id, run_id)
    WHERE run_id IS NOT NULL;
";

/// The page size of a new recording. SQLite's default (4 KiB) holds about
/// 20 events a page; with 16 KiB pages, writing and indexing a million
/// events took about a quarter less CPU (issue 14's import), and a reader reads events
/// in blocks of consecutive rows anyway. Files of any page size are read
/// alike (SQLite's header says which).
pub const PAGE_BYTES: i64 = 16384;

/// The names of the [`SQL_INDEXES`].
pub const SQL_INDEX_NAMES: [&str; 3] = ["events_by_message", "events_by_run", "events_by_type"];

/// Whether the database has every one of the [`SQL_INDEXES`].
pub fn has_sql_indexes(conn: &Connection) -> rusqlite::Result<bool> {
    let found: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (?1, ?2, ?3)",
        SQL_INDEX_NAMES,
        |row| row.get(0),
    )?;
    Ok(found == SQL_INDEX_NAMES.len() as i64)
}

/// Creates the current schema in an empty database, without the
/// [`SQL_INDEXES`].
pub fn create(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "page_size", PAGE_BYTES)?;
    conn.execute_batch("BEGIN")?;
    conn.execute_batch(SCHEMA_V1)?;
    conn.execute_batch(SCHEMA_V2)?;
    conn.execute_batch(SCHEMA_V3)?;
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('created_by', ?1)",
        [concat!("agui-replay ", env!("CARGO_PKG_VERSION"))],
    )?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    conn.execute_batch("COMMIT")
}

/// Brings a database of an earlier version up to [`SCHEMA_VERSION`], one
/// version at a time, each step in one transaction (a failed step leaves
/// the file at the version before it). Run only by writers (`record`
/// appending, `upgrade`), never on open: a reader reads every version in
/// [`READABLE_VERSIONS`] as it is.
///
/// Version 1 → 2 (issue 14) adds the `timeline_index` table; the sessions
/// already there have no index until `upgrade` builds one. Version 2 → 3
/// (issue 14) stores indexes in pieces (`timeline_index_piece`); the
/// indexes already there stay whole in their rows, read as they are.
pub fn migrate(conn: &Connection, from: i32) -> Result<(), String> {
    let mut version = from;
    while version < SCHEMA_VERSION {
        let step = match version {
            1 => SCHEMA_V2,
            2 => SCHEMA_V3,
            other => return Err(format!("schema version {other} has no migration")),
        };
        let next = version + 1;
        let run = || -> rusqlite::Result<()> {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            let applied = conn
                .execute_batch(step)
                .and_then(|()| conn.pragma_update(None, "user_version", next));
            match applied {
                Ok(()) => conn.execute_batch("COMMIT"),
                Err(e) => {
                    let _ = conn.execute_batch("ROLLBACK");
                    Err(e)
                }
            }
        };
        run()
            .map_err(|e| format!("cannot migrate from schema version {version} to {next}: {e}"))?;
        version = next;
    }
    match version {
        SCHEMA_VERSION => Ok(()),
        other => Err(format!("schema version {other} has no migration")),
    }
}
