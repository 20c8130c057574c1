//! Importing stream files into a recording: JSON lines, JSON arrays, vector
//! documents and SSE bodies become one session each; a HAR file becomes one
//! session per event-stream exchange, its request body the run input. Lines
//! that are not events are stored verbatim (they show as diagnostics when
//! replayed).

use std::path::{Path, PathBuf};

use super::writer::{NewSession, RecordingWriter};
use super::{SessionId, SessionStatus, StoreError};
use crate::input::{self, EventLog, ReadError, Stream};

/// What an import wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedSession {
    /// The session's id in the recording.
    pub id: SessionId,
    /// Where it came from.
    pub source: String,
    /// Its number of events.
    pub num_events: u64,
}

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// An input that cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A HAR file that cannot be read.
    #[error("{reason}: {path}")]
    Har {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The recording could not be written.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Progress of a long import, reported after each transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportProgress {
    /// Events written so far, all inputs together.
    pub events_done: u64,
    /// Events to write from the inputs read so far.
    pub events_known: u64,
}

/// Imports `inputs` into a new recording at `out`, calling `progress` now
/// and then. The recording is left whole at every step: a failure leaves the
/// sessions written before it, complete.
pub fn import_files(
    inputs: &[PathBuf],
    out: &Path,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<Vec<ImportedSession>, ImportError> {
    // Read every input first: an unreadable one fails before anything is
    // written.
    let mut planned: Vec<Planned> = Vec::new();
    for path in inputs {
        planned.extend(plan(path)?);
    }
    let mut writer = RecordingWriter::create(out, true)?;
    let events_known: u64 = planned.iter().map(|p| p.events.len() as u64).sum();
    let mut events_done = 0u64;
    let mut imported = Vec::with_capacity(planned.len());
    for planned in planned {
        let id = writer.begin_session(planned.session.clone())?;
        // A vector's profile stays with its session (issue 12).
        if let Some(profile) = &planned.declared_profile {
            writer.set_declared_profile(id, profile)?;
        }
        let before = events_done;
        writer.import_events(&planned.events, &mut |written| {
            progress(ImportProgress {
                events_done: before + written,
                events_known,
            });
        })?;
        events_done += planned.events.len() as u64;
        writer.end_session(SessionStatus::Complete)?;
        imported.push(ImportedSession {
            id,
            source: planned.session.source,
            num_events: planned.events.len() as u64,
        });
    }
    writer.finish()?;
    progress(ImportProgress {
        events_done,
        events_known,
    });
    Ok(imported)
}

/// One session to write.
struct Planned {
    session: NewSession,
    events: EventLog,
    /// The profile a vector document declares.
    declared_profile: Option<String>,
}

fn plan(path: &Path) -> Result<Vec<Planned>, ImportError> {
    let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let name = path.display().to_string();
    let is_har = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("har"))
        || input::is_har(&bytes);
    if !is_har {
        let stream: Stream = input::read_bytes(&bytes, path)?;
        return Ok(vec![Planned {
            session: NewSession {
                source: format!("import: {name}"),
                format: format_name(stream.format).to_owned(),
                reader_diagnostics: stream.diagnostics,
                ..NewSession::default()
            },
            events: stream.events,
            declared_profile: stream.declared_profile,
        }]);
    }
    let exchanges = input::read_har(&bytes).map_err(|reason| ImportError::Har {
        path: path.to_owned(),
        reason,
    })?;
    let mut planned = Vec::with_capacity(exchanges.len());
    for (i, exchange) in exchanges.into_iter().enumerate() {
        // An exchange whose body holds no event still becomes a session: the
        // request was made, and the recording says so.
        let (events, diagnostics) = match input::read_bytes(&exchange.body, Path::new("body.sse")) {
            Ok(stream) => (stream.events, stream.diagnostics),
            Err(_) => (EventLog::default(), Vec::new()),
        };
        planned.push(Planned {
            session: NewSession {
                source: format!(
                    "import: {name} (entry {}: {} {})",
                    i + 1,
                    exchange.request.method,
                    exchange.request.url
                ),
                format: "har".to_owned(),
                started_at_unix_ms: exchange.started_at_unix_ms,
                request: Some(exchange.request),
                response: Some(exchange.response),
                reader_diagnostics: diagnostics,
            },
            events,
            declared_profile: None,
        });
    }
    Ok(planned)
}

/// The stored name of a stream format.
pub fn format_name(format: input::Format) -> &'static str {
    match format {
        input::Format::JsonLines => "jsonl",
        input::Format::JsonArray => "json",
        input::Format::Vector => "vector",
        input::Format::Sse => "sse",
    }
}
