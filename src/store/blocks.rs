//! A session's events read a block at a time, on a read-only connection of
//! their own: what a timeline shows and replays reads its events from the
//! recording, not from memory (issue 14, point 3).

use std::ops::Range;
use std::path::PathBuf;

use rusqlite::{Connection, params};

use super::access::Access;
use super::schema::event_id;
use super::{Recording, SessionId, StoreError};
use crate::input::EventLog;
use crate::timeline::{BlockSource, FileEvents};

/// The largest step a session can hold (40 bits of the row id).
const MAX_SEQ: u64 = (1 << 40) - 1;

/// One session's events, read by row id range on a read-only connection
/// (opened as [`Recording::open`] opens one: never modifying the file).
pub struct SessionBlocks {
    conn: Connection,
    path: PathBuf,
    session: SessionId,
    /// How the recording is read (after `conn`: a private copy outlives the
    /// connection reading it).
    _access: Access,
}

impl std::fmt::Debug for SessionBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionBlocks")
            .field("path", &self.path)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl SessionBlocks {
    /// The row ids of the events at 0-based `indices`.
    fn ids(&self, indices: &Range<usize>) -> (i64, i64) {
        let clamp = |index: usize| i64::try_from((index as u64).min(MAX_SEQ)).unwrap_or(0);
        // Index 0 is seq 1.
        let first = event_id(self.session.0, clamp(indices.start) + 1);
        let end = event_id(self.session.0, clamp(indices.end.max(indices.start)) + 1);
        (first, end)
    }

    fn fail(&self, error: rusqlite::Error) -> String {
        format!("cannot read the events of {}: {error}", self.path.display())
    }
}

impl BlockSource for SessionBlocks {
    fn arrivals(&mut self, indices: Range<usize>) -> Result<Vec<u64>, String> {
        let (first, end) = self.ids(&indices);
        let read = || -> rusqlite::Result<Vec<u64>> {
            let mut statement = self.conn.prepare_cached(
                "SELECT arrival_nanos FROM events WHERE id >= ?1 AND id < ?2 ORDER BY id",
            )?;
            let rows = statement.query_map(params![first, end], |row| {
                row.get::<_, i64>(0).map(|n| n.max(0) as u64)
            })?;
            rows.collect()
        };
        read().map_err(|e| self.fail(e))
    }

    fn read(&mut self, indices: Range<usize>) -> Result<EventLog, String> {
        let (first, end) = self.ids(&indices);
        let read = || -> rusqlite::Result<EventLog> {
            let mut statement = self
                .conn
                .prepare_cached("SELECT raw FROM events WHERE id >= ?1 AND id < ?2 ORDER BY id")?;
            let mut rows = statement.query(params![first, end])?;
            let mut log = EventLog::with_capacity(indices.len() * 256, indices.len());
            while let Some(row) = rows.next()? {
                log.push(row.get_ref(0)?.as_bytes()?);
            }
            Ok(log)
        };
        read().map_err(|e| self.fail(e))
    }
}

impl Recording {
    /// A session's events read from the file a block at a time, on a
    /// connection of their own (which the returned reader owns).
    pub fn session_blocks(&self, session: SessionId) -> Result<SessionBlocks, StoreError> {
        let (conn, access) = self.connect_again()?;
        Ok(SessionBlocks {
            conn,
            path: self.path().to_owned(),
            session,
            _access: access,
        })
    }

    /// A session's events as a timeline reads them: from the file, through
    /// a small cache of blocks (none counted yet).
    pub fn file_events(&self, session: SessionId) -> Result<FileEvents, StoreError> {
        Ok(FileEvents::new(self.session_blocks(session)?))
    }
}
