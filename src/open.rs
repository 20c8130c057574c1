//! Opening whatever a user points at as one stream to replay: a recording
//! (one of its sessions), a HAR file (one of its event-stream exchanges),
//! another AG-UI tool's session file (one of its connections, issue 17.5),
//! or a plain stream file (JSON lines, JSON array, vector document, SSE
//! body).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::input::{self, EventLog, ReadError, read_har};
use crate::replay::{Options, Replayer};
use crate::store::{Recording, SessionInfo, StoreError, is_sqlite};

/// One stream, ready to replay.
#[derive(Clone, Debug)]
pub struct Source {
    /// The events' raw bytes, in arrival order.
    pub events: EventLog,
    /// How the events were framed (`JSON lines`, `SSE body`, `recording`…).
    pub format: String,
    /// What the reader noticed about the framing (seq 0).
    pub diagnostics: Vec<Diagnostic>,
    /// The profile a vector document declares (or the recording session
    /// imported from one).
    pub declared_profile: Option<String>,
    /// The recorded run input (the request body), step 0 of the replay.
    pub run_input: Option<Value>,
    /// The recording session it came from, for recordings.
    pub session: Option<SessionInfo>,
    /// How many sessions (or HAR exchanges) the file holds.
    pub num_sessions: usize,
    /// Every session of the recording it came from (empty otherwise).
    pub sessions: Vec<SessionInfo>,
    /// When each event arrived (index 0 is seq 1), for recordings.
    pub arrival_nanos: Option<Vec<u64>>,
    /// The event-stream exchanges of a HAR file, or the connections of
    /// another tool's session file, in order (empty otherwise): session N
    /// is the N-th.
    pub exchanges: Vec<ExchangeSummary>,
}

/// One event-stream exchange of a HAR file, as a picker lists it: two
/// requests to the same URL differ by their time, status and events
/// (issue 13, point 12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeSummary {
    /// `POST https://…/agent`.
    pub request: String,
    /// When the request started, in milliseconds since the Unix epoch.
    pub started_at_unix_ms: Option<i64>,
    /// The response's status code, when the file records one.
    pub status: Option<u16>,
    /// The events its body holds (what the reader frames).
    pub num_events: usize,
}

impl std::fmt::Display for ExchangeSummary {
    /// `POST https://…/agent (09:26:50.004 UTC, 200, 9 events)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (", self.request)?;
        if let Some(ms) = self.started_at_unix_ms {
            write!(f, "{}, ", time_of_day_utc(ms))?;
        }
        if let Some(status) = self.status {
            write!(f, "{status}, ")?;
        }
        let plural = if self.num_events == 1 { "" } else { "s" };
        write!(f, "{} event{plural})", self.num_events)
    }
}

/// `hh:mm:ss.mmm UTC` of a Unix time in milliseconds.
fn time_of_day_utc(unix_ms: i64) -> String {
    let ms_of_day = unix_ms.rem_euclid(86_400_000);
    let (hours, rest) = (ms_of_day / 3_600_000, ms_of_day % 3_600_000);
    let (minutes, rest) = (rest / 60_000, rest % 60_000);
    let (seconds, millis) = (rest / 1000, rest % 1000);
    format!("{hours:02}:{minutes:02}:{seconds:02}.{millis:03} UTC")
}

impl Source {
    /// A replayer at step 0 of this stream: the run input's messages and
    /// state, if one was recorded (R50 checks it).
    pub fn start(&self, options: Options) -> Replayer {
        match &self.run_input {
            Some(input) => Replayer::with_run_input(options, input),
            None => Replayer::new(options),
        }
    }
}

/// Why a source could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A plain stream file that cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A recording that cannot be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A HAR file that cannot be read.
    #[error("{reason}: {path}")]
    Har {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A session that does not exist.
    #[error("{reason}: {path}")]
    NoSuchSession {
        /// The file.
        path: PathBuf,
        /// What exists.
        reason: String,
    },
}

/// The bundled demo recording: `recordings/demo.rec` from the working
/// directory (a checkout), or from where the crate was built. What the app
/// opens, and the command line names, when no file is given.
pub fn demo_recording() -> PathBuf {
    let local = PathBuf::from("recordings/demo.rec");
    if local.exists() {
        local
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/recordings/demo.rec"))
    }
}

/// Opens `path` (or standard input for `-`) as one stream; `session` picks
/// one of several sessions (1-based), as `--session N` does.
pub fn open_source(path: &Path, session: Option<i64>) -> Result<Source, SourceError> {
    if path != Path::new("-") && crate::store::file_is_sqlite(path) {
        return open_recording(path, session);
    }
    let bytes = if path == Path::new("-") {
        input::read_stdin()?
    } else {
        std::fs::read(path).map_err(|source| ReadError::Io {
            path: path.to_owned(),
            source,
        })?
    };
    if is_sqlite(&bytes) {
        return Err(SourceError::Read(ReadError::Unrecognised {
            path: path.to_owned(),
            reason: "a recording cannot be read from standard input; pass its path".into(),
        }));
    }
    let is_har_file = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("har"));
    if is_har_file || input::is_har(&bytes) {
        return open_har(path, &bytes, session);
    }
    if let Some(format) = input::detect_peer(&bytes, path) {
        return open_peer(path, &bytes, format, session);
    }
    let stream = input::read_owned(bytes, path)?;
    if let Some(n) = session.filter(|&n| n != 1) {
        return Err(SourceError::NoSuchSession {
            path: path.to_owned(),
            reason: format!(
                "session {n} does not exist: a {} holds one stream (session 1)",
                stream.format.as_str()
            ),
        });
    }
    Ok(Source {
        events: stream.events,
        format: stream.format.as_str().to_owned(),
        diagnostics: stream.diagnostics,
        declared_profile: stream.declared_profile,
        run_input: stream.run_input,
        session: None,
        num_sessions: 1,
        sessions: Vec::new(),
        arrival_nanos: None,
        exchanges: Vec::new(),
    })
}

/// A protobuf session recorded before its frames were decoded at record
/// time (each chunk of the body stored raw, no event a JSON text): its
/// chunks joined again and framed, each frame decoded (issue 15.6). The
/// file is not changed. A frame takes the arrival of the chunk that ended
/// it. `None` for a session whose events are already decoded.
fn reframe_raw_protobuf(events: &EventLog, arrivals: &[u64]) -> Option<(EventLog, Vec<u64>)> {
    use crate::protocol::proto::{ProtoFramer, event_bytes};
    if events.is_empty() || events.iter().any(|(_, raw)| raw.first() == Some(&b'{')) {
        return None;
    }
    let mut framer = ProtoFramer::default();
    let mut log = EventLog::default();
    let mut times = Vec::new();
    let mut at = 0;
    for (i, (_, chunk)) in events.iter().enumerate() {
        at = arrivals.get(i).copied().unwrap_or(at);
        framer.push(chunk, &mut |frame| {
            log.push(&event_bytes(frame));
            times.push(at);
        });
    }
    framer.finish(&mut |frame| {
        log.push(&event_bytes(frame));
        times.push(at);
    });
    Some((log, times))
}

fn open_recording(path: &Path, session: Option<i64>) -> Result<Source, SourceError> {
    let recording = Recording::open(path)?;
    let info = recording.pick_session(session)?.clone();
    let mut events = recording.load_events(info.id)?;
    let mut arrival_nanos = recording.arrival_nanos(info.id)?;
    if info.format == "protobuf"
        && let Some((decoded, times)) = reframe_raw_protobuf(&events, &arrival_nanos)
    {
        (events, arrival_nanos) = (decoded, times);
    }
    Ok(Source {
        events,
        format: format!("recording ({})", info.format),
        diagnostics: info.reader_diagnostics.clone(),
        declared_profile: recording.declared_profile(info.id),
        run_input: info.run_input(),
        num_sessions: recording.sessions().len(),
        sessions: recording.sessions().to_vec(),
        arrival_nanos: Some(arrival_nanos),
        session: Some(info),
        exchanges: Vec::new(),
    })
}

/// How a HAR exchange's body is framed: SSE, or AG-UI's protobuf encoding
/// when it starts with a frame that decodes (issue 15.6).
fn body_path(body: &[u8]) -> &'static Path {
    if crate::protocol::proto::looks_like_stream(body) {
        Path::new("response.pb")
    } else {
        Path::new("response.sse")
    }
}

fn open_har(path: &Path, bytes: &[u8], session: Option<i64>) -> Result<Source, SourceError> {
    let exchanges = read_har(bytes).map_err(|reason| SourceError::Har {
        path: path.to_owned(),
        reason,
    })?;
    let wanted = match session {
        Some(n) => usize::try_from(n).ok().and_then(|n| n.checked_sub(1)),
        None if exchanges.len() == 1 => Some(0),
        None => None,
    };
    let Some(exchange) = wanted.and_then(|i| exchanges.get(i)) else {
        let list: Vec<String> = exchanges
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{}: {} {}", i + 1, e.request.method, e.request.url))
            .collect();
        return Err(SourceError::NoSuchSession {
            path: path.to_owned(),
            reason: format!(
                "the HAR file holds {} event streams; pick one with --session N ({})",
                exchanges.len(),
                list.join("; ")
            ),
        });
    };
    // The body is framed as SSE; what is wrong with it is said of the HAR
    // file and its entry, not of a file that does not exist (issue 12).
    let stream = input::read_bytes(&exchange.body, body_path(&exchange.body)).map_err(|error| {
        let reason = match error {
            ReadError::Unrecognised { reason, .. } => reason,
            ReadError::Io { source, .. } => source.to_string(),
        };
        SourceError::Har {
            path: path.to_owned(),
            reason: format!(
                "the event stream of exchange {} ({} {}): {reason}",
                wanted.map_or(1, |i| i + 1),
                exchange.request.method,
                exchange.request.url
            ),
        }
    })?;
    let run_input = exchange
        .request
        .body
        .as_ref()
        .and_then(|body| serde_json::from_slice::<Value>(body).ok())
        .filter(Value::is_object);
    let exchanges: Vec<ExchangeSummary> = exchanges
        .iter()
        .map(|e| ExchangeSummary {
            request: format!("{} {}", e.request.method, e.request.url),
            started_at_unix_ms: e.started_at_unix_ms,
            status: Some(e.response.status),
            // The open one is read already; the others are framed
            // just to be counted (a HAR file is small).
            num_events: if std::ptr::eq(e, exchange) {
                stream.events.len()
            } else {
                input::read_bytes(&e.body, body_path(&e.body)).map_or(0, |s| s.events.len())
            },
        })
        .collect();
    Ok(Source {
        events: stream.events,
        format: format!("HAR exchange ({})", stream.format.as_str()),
        diagnostics: stream.diagnostics,
        declared_profile: None,
        run_input,
        session: None,
        num_sessions: exchanges.len(),
        sessions: Vec::new(),
        arrival_nanos: None,
        exchanges,
    })
}

/// Opens one connection of another AG-UI tool's session file (issue 17.5):
/// picked with `session` as a HAR file's exchange is, its request the run
/// input, its recorded times the arrival times.
fn open_peer(
    path: &Path,
    bytes: &[u8],
    format: input::PeerFormat,
    session: Option<i64>,
) -> Result<Source, SourceError> {
    let file = input::read_peer(bytes, format).map_err(|reason| SourceError::Har {
        path: path.to_owned(),
        reason,
    })?;
    let wanted = match session {
        Some(n) => usize::try_from(n).ok().and_then(|n| n.checked_sub(1)),
        None if file.sessions.len() == 1 => Some(0),
        None => None,
    };
    let list: Vec<String> = file
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}: {}", i + 1, s.describe()))
        .collect();
    let exchanges = file
        .sessions
        .iter()
        .map(|s| ExchangeSummary {
            request: s.describe(),
            started_at_unix_ms: s.started_at_unix_ms,
            status: s.status,
            num_events: s.events.len(),
        })
        .collect();
    let num_sessions = file.sessions.len();
    let Some(picked) = wanted.and_then(|i| file.sessions.into_iter().nth(i)) else {
        let missing = session
            .map(|n| format!("session {n} does not exist: "))
            .unwrap_or_default();
        return Err(SourceError::NoSuchSession {
            path: path.to_owned(),
            reason: format!(
                "{missing}the {} holds {num_sessions} {}s; pick one with --session N ({})",
                format.as_str(),
                format.session_noun(),
                list.join("; ")
            ),
        });
    };
    let writer = file.writer.map(|w| format!(", {w}")).unwrap_or_default();
    Ok(Source {
        format: format!(
            "{}{writer} ({})",
            format.as_str(),
            format.name_session(&picked)
        ),
        events: picked.events,
        diagnostics: picked.diagnostics,
        declared_profile: None,
        run_input: picked.run_input,
        session: None,
        num_sessions,
        sessions: Vec::new(),
        arrival_nanos: picked.arrival_nanos,
        exchanges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_raw_protobuf_session_is_framed_again_when_opened() {
        // Issue 15.6: a recording made before frames were decoded holds the
        // body's chunks as they came, cut anywhere.
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "STEP_STARTED", "stepName": "s"}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ];
        let body: Vec<u8> = events
            .iter()
            .flat_map(|e| crate::protocol::proto::encode_event(e).expect("encodes"))
            .collect();
        let mut chunks = EventLog::default();
        let (a, rest) = body.split_at(5);
        let (b, c) = rest.split_at(rest.len() - 3);
        for chunk in [a, b, c] {
            chunks.push(chunk);
        }
        let (log, times) = reframe_raw_protobuf(&chunks, &[10, 20, 30]).expect("reframed");
        let decoded: Vec<Value> = log
            .iter()
            .map(|(_, raw)| serde_json::from_slice(raw).expect("JSON"))
            .collect();
        assert_eq!(decoded, events);
        // A frame arrives with the chunk that ends it.
        assert_eq!(times, [20, 20, 30]);
        // A session already decoded is left as it is.
        let mut decoded_log = EventLog::default();
        decoded_log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        assert!(reframe_raw_protobuf(&decoded_log, &[1]).is_none());
    }
}
