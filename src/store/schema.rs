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
pub const SCHEMA_VERSION: i32 = 1;

/// Versions the reader understands without migrating.
pub const READABLE_VERSIONS: &[i32] = &[1];

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

/// The secondary indexes of version 1. A bulk import builds them once at
/// the end, which is several times faster than keeping them up to date.
pub const INDEXES_V1: &str = "
CREATE INDEX IF NOT EXISTS events_by_type ON events (session_id, type);
CREATE INDEX IF NOT EXISTS events_by_message ON events (session_id, message_id)
    WHERE message_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_run ON events (session_id, run_id)
    WHERE run_id IS NOT NULL;
";

/// Creates the current schema in an empty database (without the secondary
/// indexes when `defer_indexes`).
pub fn create(conn: &Connection, defer_indexes: bool) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN")?;
    conn.execute_batch(SCHEMA_V1)?;
    if !defer_indexes {
        conn.execute_batch(INDEXES_V1)?;
    }
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('created_by', ?1)",
        [concat!("agui-replay ", env!("CARGO_PKG_VERSION"))],
    )?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    conn.execute_batch("COMMIT")
}

/// Brings a database of an earlier version up to [`SCHEMA_VERSION`], one
/// version at a time. Version 1 is the first, so there is nothing to migrate
/// from yet: each future version adds its step here (`1 => …`), keeping every
/// earlier file openable.
pub fn migrate(_conn: &Connection, from: i32) -> Result<(), String> {
    match from {
        SCHEMA_VERSION => Ok(()),
        other => Err(format!("schema version {other} has no migration")),
    }
}
