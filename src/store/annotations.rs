//! Bookmarks and notes: what a user saves into a recording while reading it.
//!
//! Reading them goes through the read-only [`Recording`]. Each write opens
//! the file read-write for that one write only: a short transaction that
//! waits for a live writer (the proxy commits every 50 ms) instead of
//! failing, after checking that the file is one of our recordings. A write
//! touches its own table and nothing else: no journal mode, schema or
//! migration change, so that saving a bookmark is the only way a user's
//! reading modifies a recording.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params,
};

use super::reader::{Recording, check_header, is_corruption, versions};
use super::{SessionId, StoreError, now_unix_ms};
use crate::diagnostic::Seq;

/// How long a write waits for another connection (a live recorder, a
/// reader finishing a query) to release the file before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A named step of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bookmark {
    /// Its row id, for renaming and deleting it.
    pub id: i64,
    /// The session it marks.
    pub session: SessionId,
    /// The step it marks.
    pub seq: Seq,
    /// What the user called it.
    pub label: String,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_at_unix_ms: i64,
}

/// A comment on a step of a session, or on one message at that step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Its row id, for editing and deleting it.
    pub id: i64,
    /// The session it is about.
    pub session: SessionId,
    /// The step it is about.
    pub seq: Seq,
    /// The message (an activity's `messageId`) it is about, if any.
    pub message_id: Option<String>,
    /// What the user wrote.
    pub text: String,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_at_unix_ms: i64,
}

impl Recording {
    /// The bookmarks of a session, by step (then in the order they were
    /// made). Rows written since the recording was opened are included.
    pub fn bookmarks(&self, session: SessionId) -> Result<Vec<Bookmark>, StoreError> {
        let load = |conn: &Connection| -> rusqlite::Result<Vec<Bookmark>> {
            let mut statement = conn.prepare_cached(
                "SELECT id, seq, label, created_at_unix_ms FROM bookmarks
                 WHERE session_id = ?1 ORDER BY seq, id",
            )?;
            let rows = statement.query_map([session.0], |row| {
                Ok(Bookmark {
                    id: row.get(0)?,
                    session,
                    seq: seq_from_stored(row.get(1)?),
                    label: row.get(2)?,
                    created_at_unix_ms: row.get(3)?,
                })
            })?;
            rows.collect()
        };
        self.read_current(load)
            .map_err(|e| self.error("cannot read the bookmarks", e))
    }

    /// The notes of a session, by step (then in the order they were made).
    /// Rows written since the recording was opened are included.
    pub fn notes(&self, session: SessionId) -> Result<Vec<Note>, StoreError> {
        let load = |conn: &Connection| -> rusqlite::Result<Vec<Note>> {
            let mut statement = conn.prepare_cached(
                "SELECT id, seq, message_id, text, created_at_unix_ms FROM notes
                 WHERE session_id = ?1 ORDER BY seq, id",
            )?;
            let rows = statement.query_map([session.0], |row| {
                Ok(Note {
                    id: row.get(0)?,
                    session,
                    seq: seq_from_stored(row.get(1)?),
                    message_id: row.get(2)?,
                    text: row.get(3)?,
                    created_at_unix_ms: row.get(4)?,
                })
            })?;
            rows.collect()
        };
        self.read_current(load)
            .map_err(|e| self.error("cannot read the notes", e))
    }
}

/// The `meta` key of a session's saved edits (issue 41).
fn edits_key(session: SessionId) -> String {
    format!("whatif:session:{}", session.0)
}

impl Recording {
    /// The edits saved for a session ("What if…", issue 41), as the text
    /// [`save_edits`] wrote; `None` when there are none.
    pub fn saved_edits(&self, session: SessionId) -> Result<Option<String>, StoreError> {
        let key = edits_key(session);
        let load = |conn: &Connection| -> rusqlite::Result<Option<String>> {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [&key], |row| {
                row.get(0)
            })
            .optional()
        };
        self.read_current(load)
            .map_err(|e| self.error("cannot read the saved edits", e))
    }
}

/// Saves the edits of a session ("What if…", issue 41) as `text` in the
/// recording's `meta` table, replacing those saved before (`None`: removes
/// them). The recorded events are not touched.
pub fn save_edits(path: &Path, session: SessionId, text: Option<&str>) -> Result<(), StoreError> {
    let write = AnnotationWrite::new(path, "edits", "saved");
    let key = edits_key(session);
    write.run(|tx| {
        require_session(tx, path, session)?;
        match text {
            Some(text) => tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, text],
            )?,
            None => tx.execute("DELETE FROM meta WHERE key = ?1", [&key])?,
        };
        Ok(())
    })
}

fn seq_from_stored(seq: i64) -> Seq {
    Seq::new(u64::try_from(seq).unwrap_or(0))
}

/// Adds a bookmark at step `seq` of `session`.
pub fn add_bookmark(
    path: &Path,
    session: SessionId,
    seq: Seq,
    label: &str,
) -> Result<Bookmark, StoreError> {
    let write = AnnotationWrite::new(path, "bookmark", "saved");
    let stored_seq = write.stored_seq(seq)?;
    let created_at_unix_ms = now_unix_ms();
    let id = write.run(|tx| {
        require_session(tx, path, session)?;
        tx.execute(
            "INSERT INTO bookmarks (session_id, seq, label, created_at_unix_ms)
             VALUES (?1, ?2, ?3, ?4)",
            params![session.0, stored_seq, label, created_at_unix_ms],
        )?;
        Ok(tx.last_insert_rowid())
    })?;
    Ok(Bookmark {
        id,
        session,
        seq,
        label: label.to_owned(),
        created_at_unix_ms,
    })
}

/// Renames bookmark `id`.
pub fn rename_bookmark(path: &Path, id: i64, label: &str) -> Result<(), StoreError> {
    let write = AnnotationWrite::new(path, "bookmark", "saved");
    write.run(|tx| {
        let changed = tx.execute(
            "UPDATE bookmarks SET label = ?1 WHERE id = ?2",
            params![label, id],
        )?;
        write.require_row(changed, id)
    })
}

/// Deletes bookmark `id`.
pub fn delete_bookmark(path: &Path, id: i64) -> Result<(), StoreError> {
    let write = AnnotationWrite::new(path, "bookmark", "deleted");
    write.run(|tx| {
        let changed = tx.execute("DELETE FROM bookmarks WHERE id = ?1", [id])?;
        write.require_row(changed, id)
    })
}

/// Adds a note at step `seq` of `session`, about one message if
/// `message_id` is given.
pub fn add_note(
    path: &Path,
    session: SessionId,
    seq: Seq,
    message_id: Option<&str>,
    text: &str,
) -> Result<Note, StoreError> {
    let write = AnnotationWrite::new(path, "note", "saved");
    let stored_seq = write.stored_seq(seq)?;
    let created_at_unix_ms = now_unix_ms();
    let id = write.run(|tx| {
        require_session(tx, path, session)?;
        tx.execute(
            "INSERT INTO notes (session_id, seq, message_id, text, created_at_unix_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session.0, stored_seq, message_id, text, created_at_unix_ms],
        )?;
        Ok(tx.last_insert_rowid())
    })?;
    Ok(Note {
        id,
        session,
        seq,
        message_id: message_id.map(str::to_owned),
        text: text.to_owned(),
        created_at_unix_ms,
    })
}

/// Replaces the text of note `id`.
pub fn edit_note(path: &Path, id: i64, text: &str) -> Result<(), StoreError> {
    let write = AnnotationWrite::new(path, "note", "saved");
    write.run(|tx| {
        let changed = tx.execute(
            "UPDATE notes SET text = ?1 WHERE id = ?2",
            params![text, id],
        )?;
        write.require_row(changed, id)
    })
}

/// Deletes note `id`.
pub fn delete_note(path: &Path, id: i64) -> Result<(), StoreError> {
    let write = AnnotationWrite::new(path, "note", "deleted");
    write.run(|tx| {
        let changed = tx.execute("DELETE FROM notes WHERE id = ?1", [id])?;
        write.require_row(changed, id)
    })
}

/// Why a write's transaction stopped: SQLite failed, or the write itself
/// was refused (no such session, no such row).
enum Failure {
    Sqlite(rusqlite::Error),
    Refused(StoreError),
}

impl From<rusqlite::Error> for Failure {
    fn from(error: rusqlite::Error) -> Self {
        Self::Sqlite(error)
    }
}

/// One write of one annotation, for its error messages.
struct AnnotationWrite<'a> {
    path: &'a Path,
    /// `bookmark` or `note`.
    what: &'static str,
    /// `saved` or `deleted`.
    done: &'static str,
}

impl<'a> AnnotationWrite<'a> {
    fn new(path: &'a Path, what: &'static str, done: &'static str) -> Self {
        Self { path, what, done }
    }

    fn not_saved(&self, reason: impl Into<String>) -> StoreError {
        StoreError::NotSaved {
            path: self.path.to_owned(),
            what: self.what,
            done: self.done,
            reason: reason.into(),
        }
    }

    fn sqlite(&self, error: rusqlite::Error) -> StoreError {
        if is_corruption(&error) {
            return StoreError::Corrupt {
                path: self.path.to_owned(),
                reason: error.to_string(),
            };
        }
        let hint = match error.sqlite_error_code() {
            Some(rusqlite::ErrorCode::ReadOnly) => Some("the file is read-only"),
            Some(rusqlite::ErrorCode::PermissionDenied) => Some("permission denied"),
            Some(rusqlite::ErrorCode::CannotOpen) => {
                Some("cannot open it for writing; is its folder writable?")
            }
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                Some("another program kept the file locked; try again")
            }
            Some(rusqlite::ErrorCode::DiskFull) => Some("the disk is full"),
            _ => None,
        };
        match hint {
            Some(hint) => self.not_saved(format!("{hint}: {error}")),
            None => self.not_saved(error.to_string()),
        }
    }

    /// A step as stored (an `INTEGER`).
    fn stored_seq(&self, seq: Seq) -> Result<i64, StoreError> {
        i64::try_from(seq.get()).map_err(|_| self.not_saved(format!("step {seq} is out of range")))
    }

    fn require_row(&self, changed: usize, id: i64) -> Result<(), Failure> {
        if changed == 0 {
            return Err(Failure::Refused(StoreError::NoSuchAnnotation {
                path: self.path.to_owned(),
                what: self.what,
                id,
            }));
        }
        Ok(())
    }

    /// Opens the file, checks it, runs `body` in one immediate transaction
    /// (waiting up to [`BUSY_TIMEOUT`] for the write lock) and commits.
    fn run<T>(
        &self,
        body: impl FnOnce(&Transaction<'_>) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        let mut conn = self.open()?;
        let result = (|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = body(&tx)?;
            tx.commit()?;
            Ok(value)
        })();
        result.map_err(|failure| match failure {
            Failure::Sqlite(error) => self.sqlite(error),
            Failure::Refused(error) => error,
        })
    }

    /// Opens the file read-write without creating it, after checking it is
    /// a recording this build reads. Nothing is changed here: no pragma is
    /// set that is stored in the file.
    fn open(&self) -> Result<Connection, StoreError> {
        let path = self.path;
        check_header(path)?;
        // The read-only attribute is honoured even by a user SQLite would
        // let write (an administrator): it is how a file is kept as it is.
        if std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
            return Err(self.not_saved("the file is read-only"));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| self.sqlite(e))?;
        // SQLite opens read-only, silently, what it may not write.
        if conn.is_readonly("main").map_err(|e| self.sqlite(e))? {
            return Err(self.not_saved("the file is read-only or not writable by this user"));
        }
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| self.sqlite(e))?;
        let (application_id, version) = versions(&conn).map_err(|e| self.sqlite(e))?;
        super::reader::check_readable(path, application_id, version)?;
        Ok(conn)
    }
}

/// Refuses a write about a session the file does not hold.
fn require_session(tx: &Transaction<'_>, path: &Path, session: SessionId) -> Result<(), Failure> {
    let found: Option<i64> = tx
        .query_row(
            "SELECT id FROM sessions WHERE id = ?1",
            [session.0],
            |row| row.get(0),
        )
        .optional()?;
    if found.is_some() {
        return Ok(());
    }
    let mut statement = tx.prepare("SELECT id FROM sessions ORDER BY id")?;
    let ids = statement
        .query_map([], |row| row.get::<_, i64>(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    let available = match ids.as_slice() {
        [] => "no session".to_owned(),
        [only] => format!("1 session: {only}"),
        ids => {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            format!("{} sessions: {}", ids.len(), list.join(", "))
        }
    };
    Err(Failure::Refused(StoreError::NoSuchSession {
        path: PathBuf::from(path),
        session: session.0,
        available,
    }))
}
