//! What `serve` sends: the sessions of a file, each its events' raw bytes
//! with their arrival times and the run input that was recorded with it.

use std::path::Path;

use bytes::Bytes;
use serde_json::Value;

use crate::input::{Arrivals, EventKeys};
use crate::open::{SourceError, open_source};
use crate::store::{Recording, file_is_sqlite};

/// One session to serve.
#[derive(Clone, Debug)]
pub struct ServedSession {
    /// Its number in the file (1 for a plain stream file).
    pub id: i64,
    /// Each event's bytes as stored (the `data` of its SSE frame), in order.
    pub events: Vec<Bytes>,
    /// When each event arrived, in nanoseconds from the request (index 0
    /// is step 1): recorded, or derived from `timestamp`s as the app does.
    pub arrival_nanos: Vec<u64>,
    /// The recorded run input: the request body, else the first
    /// `RUN_STARTED.input`, if there is one.
    pub run_input: Option<Value>,
    /// The thread it belongs to: the run input's `threadId`, else its first
    /// `RUN_STARTED`'s.
    pub thread_id: Option<String>,
    /// Its run: the run input's `runId`, else its first `RUN_STARTED`'s.
    pub run_id: Option<String>,
}

impl ServedSession {
    /// The number of events (steps).
    pub fn num_events(&self) -> u64 {
        self.events.len() as u64
    }
}

/// Everything a file gives to serve.
#[derive(Clone, Debug)]
pub struct ServedFile {
    /// The file.
    pub path: std::path::PathBuf,
    /// Its sessions, in order (one for a plain stream file).
    pub sessions: Vec<ServedSession>,
}

/// Why a file cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be opened as a stream.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A recording that cannot be read.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A recording without a session.
    #[error("the recording holds no session to serve: {path}")]
    Empty {
        /// The file.
        path: std::path::PathBuf,
    },
}

impl ServedFile {
    /// Loads `path` (opened read-only: serving never modifies it): every
    /// session of a recording, or only `session` when given; a plain stream
    /// file or HAR exchange as one session.
    pub fn load(path: &Path, session: Option<i64>) -> Result<Self, LoadError> {
        if path != Path::new("-") && file_is_sqlite(path) {
            let recording = Recording::open(path)?;
            let picked: Vec<_> = match session {
                Some(n) => vec![recording.pick_session(Some(n))?.clone()],
                None => recording.sessions().to_vec(),
            };
            if picked.is_empty() {
                return Err(LoadError::Empty {
                    path: path.to_owned(),
                });
            }
            let mut sessions = Vec::with_capacity(picked.len());
            for info in picked {
                let log = recording.load_events(info.id)?;
                let events = log
                    .iter()
                    .map(|(_, raw)| Bytes::copy_from_slice(raw))
                    .collect();
                let arrival_nanos = recording.arrival_nanos(info.id)?;
                sessions.push(ServedSession::new(
                    info.id.get(),
                    events,
                    arrival_nanos,
                    info.run_input(),
                ));
            }
            return Ok(Self {
                path: path.to_owned(),
                sessions,
            });
        }
        let source = open_source(path, session)?;
        let mut arrivals = Arrivals::default();
        let arrival_nanos = source
            .events
            .iter()
            .map(|(_, raw)| arrivals.next(EventKeys::of(raw).timestamp))
            .collect();
        let events = source
            .events
            .iter()
            .map(|(_, raw)| Bytes::copy_from_slice(raw))
            .collect();
        Ok(Self {
            path: path.to_owned(),
            sessions: vec![ServedSession::new(
                session.unwrap_or(1),
                events,
                arrival_nanos,
                source.run_input.clone(),
            )],
        })
    }
}

impl ServedSession {
    /// A session from its parts; its thread and run are found in the run
    /// input or the first `RUN_STARTED`.
    pub fn new(
        id: i64,
        events: Vec<Bytes>,
        mut arrival_nanos: Vec<u64>,
        run_input: Option<Value>,
    ) -> Self {
        // A damaged file may hold fewer times than events: the missing
        // ones arrive with the last known.
        let last = arrival_nanos.last().copied().unwrap_or(0);
        arrival_nanos.resize(events.len(), last);
        let run_started = events.iter().find_map(|raw| {
            let value: Value = serde_json::from_slice(raw).ok()?;
            (value.get("type")?.as_str()? == "RUN_STARTED").then_some(value)
        });
        let id_of = |key: &str| {
            run_input
                .as_ref()
                .and_then(|input| input.get(key))
                .or_else(|| run_started.as_ref().and_then(|event| event.get(key)))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let thread_id = id_of("threadId");
        let run_id = id_of("runId");
        // Without a request body (an imported file), the run input is the
        // first `RUN_STARTED.input` (R50 names both).
        let run_input = run_input.or_else(|| {
            run_started
                .as_ref()
                .and_then(|event| event.get("input"))
                .filter(|input| input.is_object())
                .cloned()
        });
        Self {
            id,
            events,
            arrival_nanos,
            run_input,
            thread_id,
            run_id,
        }
    }
}
