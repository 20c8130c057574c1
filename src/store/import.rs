//! Importing stream files into a recording: JSON lines, JSON arrays, vector
//! documents and SSE bodies become one session each; a HAR file becomes one
//! session per event-stream exchange, its request body the run input, and
//! another AG-UI tool's session file one per connection (issue 17.5). Lines
//! that are not events are stored verbatim (they show as diagnostics when
//! replayed).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::writer::{EncodedIndex, NewSession, RecordingWriter};
use super::{SessionId, SessionStatus, StoreError};
use crate::input::{self, EventLog, ReadError, Stream};
use crate::timeline::Timeline;
use crate::timeline::{ArrivalTimes, IndexEncoder};

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
    /// An input is the output itself: importing would replace it.
    #[error("the output is an input: import into another file: {path}")]
    SameFile {
        /// The input.
        path: PathBuf,
    },
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
/// and then; a file already at `out` is replaced (a caller that must not
/// replace one checks first).
///
/// Nothing is lost on failure (issue 12): an input that is `out` itself is
/// refused; every input is read before anything is written; and the
/// recording is written beside `out`, renamed over it only once complete
/// ([`replace_file`](super::replace_file)), so that a failed import leaves
/// the file that was at `out` as it was.
pub fn import_files(
    inputs: &[PathBuf],
    out: &Path,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<Vec<ImportedSession>, ImportError> {
    import_files_with(inputs, out, ImportOptions::default(), progress)
}

/// What an import writes beside the events and their timeline index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Build the recording's [SQL indexes](super::schema::SQL_INDEXES),
    /// for queries on the file (`import --sql-indexes`).
    pub sql_indexes: bool,
}

/// [`import_files`] with `options`.
pub fn import_files_with(
    inputs: &[PathBuf],
    out: &Path,
    options: ImportOptions,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<Vec<ImportedSession>, ImportError> {
    if let Some(input) = inputs
        .iter()
        .find(|input| crate::file_identity::is_same_file(input, out))
    {
        return Err(ImportError::SameFile {
            path: input.clone(),
        });
    }
    // Read every input first: an unreadable one fails before anything is
    // written.
    let mut planned: Vec<Planned> = Vec::new();
    for path in inputs {
        planned.extend(plan(path)?);
    }
    let mut imported = Vec::new();
    let written = super::replace_file(out, |temporary| {
        imported = write_planned(planned, temporary, options, None, progress)?;
        Ok::<(), ImportError>(())
    });
    match written {
        Ok(()) => Ok(imported),
        Err(super::ReplaceError::Write(error)) => Err(error),
        Err(super::ReplaceError::Rename { path, source }) => {
            Err(ImportError::Store(StoreError::Io {
                path,
                context: "cannot put the imported recording in place".into(),
                source,
            }))
        }
    }
}

/// Writes the planned sessions into a new recording at `out`, its indexes
/// in pieces of `piece_bytes` when given (tests).
fn write_planned(
    planned: Vec<Planned>,
    out: &Path,
    options: ImportOptions,
    piece_bytes: Option<usize>,
    progress: &mut dyn FnMut(ImportProgress),
) -> Result<Vec<ImportedSession>, ImportError> {
    let mut writer = RecordingWriter::create(out, true)?;
    if let Some(n) = piece_bytes {
        writer.set_index_piece_bytes(n);
    }
    let events_known: u64 = planned.iter().map(|p| p.events.len()).sum();
    let mut events_done = 0u64;
    let mut imported = Vec::with_capacity(planned.len());
    let num_planned = planned.len();
    for (i, mut planned) in planned.into_iter().enumerate() {
        let is_last = i + 1 == num_planned;
        let id = writer.begin_session(planned.session.clone())?;
        // A vector's profile stays with its session (issue 12).
        if let Some(profile) = &planned.declared_profile {
            writer.set_declared_profile(id, profile)?;
        }
        let before = events_done;
        let mut session_progress = |written| {
            progress(ImportProgress {
                events_done: before + written,
                events_known,
            });
        };
        let (num_events, encoded) = write_events(
            &mut writer,
            id,
            std::mem::replace(
                &mut planned.events,
                PlannedEvents::Read(EventLog::default()),
            ),
            &planned,
            options.sql_indexes && is_last,
            &mut session_progress,
        )?;
        events_done += num_events;
        if let Some(encoded) = encoded {
            writer.store_encoded_index(id, &encoded)?;
        }
        match planned.ended {
            Some((status, ended_at)) => writer.end_session_at(status, ended_at)?,
            None => writer.end_session(SessionStatus::Complete)?,
        }
        imported.push(ImportedSession {
            id,
            source: planned.session.source,
            num_events,
        });
    }
    writer.finish()?;
    progress(ImportProgress {
        events_done,
        events_known,
    });
    Ok(imported)
}

/// Writes one session's events, as [`PlannedEvents::chunks`] reads them,
/// and builds its timeline index on a second thread while they are
/// written, from step 0 as a reader will see it (the stored run input),
/// for the options a reader uses by default. That thread then encodes it,
/// with the arrival times the writing gave, while this one builds the SQL
/// indexes if asked (`sql_indexes`: the session is the last). Returns the
/// number of events and the encoded index (`None` where the writer keeps
/// none for this session, or the writing failed).
///
/// A chunk at a time (issue 40): what `record` hides of the events, an
/// import hides too (issue 38), before the timeline index is built from
/// them; at most one chunk waits for the index while the next is written,
/// so that a file of any size is imported in bounded memory.
fn write_events(
    writer: &mut RecordingWriter,
    id: SessionId,
    events: PlannedEvents,
    planned: &Planned,
    sql_indexes: bool,
    progress: &mut dyn FnMut(u64),
) -> Result<(u64, Option<EncodedIndex>), ImportError> {
    let start = writer.index_start(id, planned.declared_profile.as_deref())?;
    let options = start.as_ref().map(|start| start.options());
    let piece_bytes = writer.index_piece_bytes();
    std::thread::scope(|scope| {
        let (chunk_sender, chunk_receiver) = std::sync::mpsc::sync_channel::<Arc<EventLog>>(1);
        let (arrivals_sender, arrivals_receiver) = std::sync::mpsc::channel::<ArrivalTimes>();
        // The index's pieces, as its checkpoints fill them (issue 40).
        let (piece_sender, piece_receiver) = std::sync::mpsc::channel::<Vec<u8>>();
        let replay = start.map(|start| {
            scope.spawn(move || {
                let mut timeline = Timeline::starting_from(start).empty();
                timeline.pack_lanes();
                let mut encoder = IndexEncoder::handing_out(
                    piece_bytes,
                    Box::new(move |piece| {
                        let _ = piece_sender.send(piece);
                    }),
                );
                for chunk in chunk_receiver {
                    timeline.index_more(&chunk);
                    timeline.hand_checkpoints_to(&mut encoder);
                }
                timeline.finish();
                timeline.hand_checkpoints_to(&mut encoder);
                // No arrivals: the writing failed, and nothing is stored.
                let arrivals = arrivals_receiver.recv().ok()?;
                Some(EncodedIndex::finished(encoder, timeline, Some(arrivals)))
            })
        });
        let mut written = 0u64;
        // Kept encoded, a few bytes each (issue 40).
        let mut arrivals = ArrivalTimes::default();
        let mut pieces_stored = 0usize;
        let mut store_pieces = |writer: &mut RecordingWriter, wait: bool| {
            let (Some(options), Some(_)) = (options, &replay) else {
                return Ok(());
            };
            let next = || match wait {
                true => piece_receiver.recv().ok(),
                false => piece_receiver.try_recv().ok(),
            };
            while let Some(piece) = next() {
                writer.store_index_piece(id, options, pieces_stored, &piece)?;
                pieces_stored += 1;
            }
            Ok::<(), ImportError>(())
        };
        let write = || -> Result<(), ImportError> {
            for chunk in events.chunks()? {
                store_pieces(writer, false)?;
                let chunk = Arc::new(writer.stored_events(id, chunk?)?);
                if replay.is_some() {
                    // The index's thread has stopped only if it panicked;
                    // the events are written all the same.
                    let _ = chunk_sender.send(Arc::clone(&chunk));
                }
                let known = planned
                    .arrivals
                    .as_deref()
                    .map(|known| &known[(written as usize).min(known.len())..]);
                arrivals
                    .extend(&writer.import_events(&chunk, known, &mut |n| progress(written + n))?);
                written += chunk.len() as u64;
            }
            Ok(())
        };
        let mut result = write();
        drop(chunk_sender);
        if result.is_ok() {
            let _ = arrivals_sender.send(arrivals);
        }
        drop(arrivals_sender);
        // Once the last events are in, the SQL indexes asked for are built
        // while the replay goes on (issue 14: they were built after it,
        // one thread idle).
        if sql_indexes && result.is_ok() {
            result = writer.build_sql_indexes().map_err(ImportError::from);
        }
        // The pieces still to come, until the index's thread is done.
        if result.is_ok() {
            result = store_pieces(writer, true);
        }
        let encoded = replay.and_then(|replay| replay.join().ok().flatten());
        result.map(|()| (written, encoded))
    })
}

/// A session's events: read already, or a file of JSON lines read a chunk
/// at a time as they are written ([`input::streams_as_lines`], issue 40).
enum PlannedEvents {
    Read(EventLog),
    /// `block`: the bytes read at a time ([`input::LineChunks::BLOCK`]).
    Lines {
        path: PathBuf,
        num_events: u64,
        block: usize,
    },
}

impl PlannedEvents {
    fn len(&self) -> u64 {
        match self {
            Self::Read(events) => events.len() as u64,
            Self::Lines { num_events, .. } => *num_events,
        }
    }

    /// The events in order, in chunks (a log read already: one).
    fn chunks(
        self,
    ) -> Result<Box<dyn Iterator<Item = Result<EventLog, ImportError>>>, ImportError> {
        match self {
            Self::Read(events) => Ok(Box::new(std::iter::once(Ok(events)))),
            Self::Lines { path, block, .. } => {
                let io_error = move |path: &Path, source| {
                    ImportError::Read(ReadError::Io {
                        path: path.to_owned(),
                        source,
                    })
                };
                let file = std::fs::File::open(&path).map_err(|e| io_error(&path, e))?;
                Ok(Box::new(
                    input::LineChunks::with_block(file, block)
                        .map(move |chunk| chunk.map_err(|e| io_error(&path, e))),
                ))
            }
        }
    }
}

/// One session to write.
struct Planned {
    session: NewSession,
    events: PlannedEvents,
    /// The profile a vector document declares.
    declared_profile: Option<String>,
    /// Known arrival times (a recording's); otherwise from `timestamp`s.
    arrivals: Option<Vec<u64>>,
    /// How and when it ended, when known (a recording's session); otherwise
    /// complete, now.
    ended: Option<(SessionStatus, Option<i64>)>,
}

/// The sessions of a recording, as they are: their requests, responses,
/// events, arrival times and ends.
fn plan_recording(path: &Path) -> Result<Vec<Planned>, ImportError> {
    let recording = super::Recording::open(path)?;
    let name = path.display().to_string();
    let mut planned = Vec::with_capacity(recording.sessions().len());
    for session in recording.sessions() {
        planned.push(Planned {
            session: NewSession {
                source: format!(
                    "import: {name} (session {}: {})",
                    session.id, session.source
                ),
                format: session.format.clone(),
                started_at_unix_ms: Some(session.started_at_unix_ms),
                request: session.request.clone(),
                response: session.response.clone(),
                reader_diagnostics: session.reader_diagnostics.clone(),
            },
            events: PlannedEvents::Read(recording.load_events(session.id)?),
            arrivals: Some(recording.arrival_nanos(session.id)?),
            ended: Some((session.status, session.ended_at_unix_ms)),
            declared_profile: recording.declared_profile(session.id),
        });
    }
    Ok(planned)
}

fn plan(path: &Path) -> Result<Vec<Planned>, ImportError> {
    // A recording's sessions are imported as they are (issue 12: a
    // recording was refused as "not supported by this build").
    if super::file_is_sqlite(path) {
        return plan_recording(path);
    }
    let name = path.display().to_string();
    // A large file of JSON lines is read as it is written, not first
    // (issue 40); it is counted first, for the progress.
    if input::streams_as_lines(path) {
        let num_events = std::fs::File::open(path)
            .and_then(input::count_lines)
            .map_err(|source| ReadError::Io {
                path: path.to_owned(),
                source,
            })?;
        return Ok(vec![Planned {
            session: NewSession {
                source: format!("import: {name}"),
                format: format_name(input::Format::JsonLines).to_owned(),
                ..NewSession::default()
            },
            events: PlannedEvents::Lines {
                path: path.to_owned(),
                num_events,
                block: input::LineChunks::<std::fs::File>::BLOCK,
            },
            declared_profile: None,
            arrivals: None,
            ended: None,
        }]);
    }
    let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let is_har = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("har"))
        || input::is_har(&bytes);
    if !is_har && let Some(format) = input::detect_peer(&bytes, path) {
        return plan_peer(path, &bytes, format);
    }
    if !is_har {
        let stream: Stream = input::read_owned(bytes, path)?;
        return Ok(vec![Planned {
            session: NewSession {
                source: format!("import: {name}"),
                format: format_name(stream.format).to_owned(),
                reader_diagnostics: stream.diagnostics,
                ..NewSession::default()
            },
            events: PlannedEvents::Read(stream.events),
            declared_profile: stream.declared_profile,
            arrivals: None,
            ended: None,
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
                    // The source is stored too: without the URL's secrets.
                    super::StoreRedaction::default()
                        .url(&exchange.request.url)
                        .0
                ),
                format: "har".to_owned(),
                started_at_unix_ms: exchange.started_at_unix_ms,
                request: Some(exchange.request),
                response: Some(exchange.response),
                reader_diagnostics: diagnostics,
            },
            events: PlannedEvents::Read(events),
            declared_profile: None,
            arrivals: None,
            ended: None,
        });
    }
    Ok(planned)
}

/// The connections of another AG-UI tool's session file (issue 17.5), one
/// session each: its request (the run input), its recorded arrival times
/// (from the events' `timestamp`s, or 100 ms apart, when the file records
/// none), its reader diagnostics.
fn plan_peer(
    path: &Path,
    bytes: &[u8],
    format: input::PeerFormat,
) -> Result<Vec<Planned>, ImportError> {
    let file = input::read_peer(bytes, format).map_err(|reason| ImportError::Har {
        path: path.to_owned(),
        reason,
    })?;
    let name = path.display().to_string();
    Ok(file
        .sessions
        .into_iter()
        .map(|session| Planned {
            session: NewSession {
                source: format!("import: {name} ({})", format.name_session(&session)),
                format: format.stored_name().to_owned(),
                started_at_unix_ms: session.started_at_unix_ms,
                response: session.status.map(|status| crate::input::HttpResponse {
                    status,
                    headers: Vec::new(),
                }),
                request: session.request,
                reader_diagnostics: session.diagnostics,
            },
            events: PlannedEvents::Read(session.events),
            declared_profile: None,
            arrivals: session.arrival_nanos,
            ended: None,
        })
        .collect())
}

/// The stored name of a stream format.
pub fn format_name(format: input::Format) -> &'static str {
    match format {
        input::Format::JsonLines => "jsonl",
        input::Format::JsonArray => "json",
        input::Format::Vector => "vector",
        input::Format::Sse => "sse",
        input::Format::Protobuf => "protobuf",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Options;

    /// Issue 40: a file of JSON lines imported a chunk at a time as it is
    /// read makes the recording the file read whole makes: the same
    /// events, the same arrival times, the same hidden secrets, the same
    /// timeline index.
    #[test]
    fn a_file_streamed_in_chunks_imports_as_the_file_read_whole() {
        let dir =
            std::env::temp_dir().join(format!("agui-replay-import-chunks-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder");
        let input = dir.join("stream.jsonl");
        let mut text = String::from("\u{feff}");
        text.push_str(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"forwardedProps":{"apiKey":"sk-secret-123"}},"timestamp":1000}"#);
        text.push_str("\n\n");
        for i in 0..400 {
            text.push_str(&format!(
                r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"a{}","activityType":"plan","content":{{"n":{i}}},"timestamp":{}}}"#,
                i % 7,
                1000 + i * 3
            ));
            text.push_str(if i % 50 == 0 { "\r\n  \n" } else { "\n" });
            if i % 97 == 0 {
                text.push_str("not json\n");
                text.push_str(r#"{"type":"ACTIVITY_DELTA","messageId":"a1","patch":[{"op":"replace","path":"/missing","value":1}]}"#);
                text.push('\n');
            }
        }
        text.push_str(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#);
        std::fs::write(&input, &text).expect("the input");
        let planned = |events| Planned {
            session: NewSession {
                source: "import: stream.jsonl".into(),
                format: "jsonl".into(),
                ..NewSession::default()
            },
            events,
            declared_profile: None,
            arrivals: None,
            ended: None,
        };
        let whole = input::read_path(&input).expect("read").events;
        let num_events = whole.len() as u64;
        let lines = || PlannedEvents::Lines {
            path: input.clone(),
            num_events,
            block: 997,
        };
        // Issue 40: the last in pieces of 700 bytes, most of them stored
        // as the checkpoints are encoded, before the stream's end.
        let imports = [
            (dir.join("whole.rec"), PlannedEvents::Read(whole), None),
            (dir.join("chunks.rec"), lines(), None),
            (dir.join("pieces.rec"), lines(), Some(700)),
        ];
        let mut read = Vec::new();
        for (out, events, piece_bytes) in imports {
            let mut reported = Vec::new();
            write_planned(
                vec![planned(events)],
                &out,
                ImportOptions::default(),
                piece_bytes,
                &mut |p| reported.push(p),
            )
            .expect("imported");
            assert_eq!(reported.last().map(|p| p.events_done), Some(num_events));
            let recording = crate::store::Recording::open(&out).expect("opened");
            let session = recording.sessions()[0].clone();
            read.push((
                recording.load_events(session.id).expect("events"),
                recording.arrival_nanos(session.id).expect("arrivals"),
                session.redacted.clone(),
                recording
                    .stored_index(session.id, Options::default())
                    .expect("read")
                    .expect("an index"),
            ));
        }
        assert_eq!(read[0].0.len() as u64, num_events);
        assert!(
            read[0].2.iter().any(|hidden| hidden.contains("apiKey")),
            "{:?}",
            read[0].2
        );
        assert!(
            !read[1]
                .0
                .iter()
                .any(|(_, raw)| raw.windows(13).any(|w| w == b"sk-secret-123"))
        );
        assert!(read[0] == read[1], "the two recordings differ");
        assert!(read[1] == read[2], "the index stored in pieces differs");
        let pieces: i64 = rusqlite::Connection::open(dir.join("pieces.rec"))
            .and_then(|c| {
                c.query_row("SELECT count(*) FROM timeline_index_piece", [], |r| {
                    r.get(0)
                })
            })
            .expect("counted");
        assert!(pieces > 5, "{pieces} pieces");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
