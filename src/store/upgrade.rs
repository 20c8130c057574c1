//! `agui-replay upgrade`: brings a recording to the current schema (the
//! migrations of [`super::schema::migrate`]) and stores the timeline index
//! of every session that has ended and has none (issue 14), so that opening
//! it reads the index instead of replaying. Opening never does this: it is
//! the one explicit way, beside `record` appending to the file.

use std::path::Path;

use super::reader::Recording;
use super::writer::RecordingWriter;
use super::{SCHEMA_VERSION, StoreError, default_options};
use crate::replay::Replayer;
use crate::timeline::Timeline;

/// What [`upgrade`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upgraded {
    /// The file was already at the current schema and every ended session
    /// had its index: nothing was written.
    UpToDate {
        /// Its schema version.
        version: i32,
    },
    /// The file was migrated and/or sessions were indexed.
    Upgraded {
        /// The schema version it had.
        from: i32,
        /// The one it has now.
        to: i32,
        /// How many sessions got a stored index.
        indexed: usize,
        /// Whether the SQL indexes were built.
        sql_indexes: bool,
    },
}

/// Upgrades the recording at `path` in place (see the module).
pub fn upgrade(path: &Path) -> Result<Upgraded, StoreError> {
    upgrade_with(path, false)
}

/// [`upgrade`], which with `sql_indexes` also builds the
/// [SQL indexes](super::schema::SQL_INDEXES) the file lacks
/// (`upgrade --sql-indexes`).
pub fn upgrade_with(path: &Path, sql_indexes: bool) -> Result<Upgraded, StoreError> {
    let recording = Recording::open(path)?;
    let from = recording.schema_version();
    let to_index = |recording: &Recording| -> Result<Vec<_>, StoreError> {
        let mut missing = Vec::new();
        for session in recording.sessions().iter().filter(|s| !s.is_open()) {
            let Some(options) = default_options(recording.declared_profile(session.id).as_deref())
            else {
                continue;
            };
            if recording.stored_pieces(session.id, options)?.is_err() {
                missing.push((session.clone(), options));
            }
        }
        Ok(missing)
    };
    let missing = to_index(&recording)?;
    let build_sql_indexes = sql_indexes && !recording.has_sql_indexes()?;
    if from == SCHEMA_VERSION && missing.is_empty() && !build_sql_indexes {
        return Ok(Upgraded::UpToDate { version: from });
    }
    drop(recording);
    let mut writer = RecordingWriter::open(path)?;
    let recording = Recording::open(path)?;
    let mut indexed = 0;
    for (session, options) in to_index(&recording)? {
        let start = match session.run_input() {
            Some(input) => Replayer::with_run_input(options, &input),
            None => Replayer::new(options),
        };
        let events = recording.load_events(session.id)?;
        let timeline = Timeline::starting_from(start).index_of(&events);
        let arrivals = recording.arrival_nanos(session.id)?;
        if writer.store_timeline_with(session.id, &timeline, Some(&arrivals))? {
            indexed += 1;
        }
    }
    drop(recording);
    if build_sql_indexes {
        writer.build_sql_indexes()?;
    }
    writer.finish()?;
    Ok(Upgraded::Upgraded {
        from,
        to: SCHEMA_VERSION,
        indexed,
        sql_indexes: build_sql_indexes,
    })
}
