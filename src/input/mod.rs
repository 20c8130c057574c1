//! Reading event streams from files: JSON lines, JSON arrays, vector
//! documents (`{"events": [...]}`) and SSE bodies.
//!
//! A reader only frames events; it never judges them. Every line or frame
//! becomes an event with its bytes exactly as they were (after SSE's own
//! framing), so a line that is not an event reaches the replay and becomes an
//! `event.unparseable` diagnostic there (R41): nothing is dropped silently.

mod arrival;
mod har;
mod http;
mod json;
pub use json::{LineChunks, count_lines, without_whitespace};
mod keys;
mod peer;
mod sniff;
mod sse;

use std::io::Read;
use std::path::{Path, PathBuf};

pub use crate::event_log::{EventLog, RawEvents};
pub use arrival::{Arrivals, UNTIMED_STEP_NANOS};
pub use har::{HarExchange, is_har, read_har};
pub use http::{HttpRequest, HttpResponse};
pub use keys::EventKeys;
pub use peer::{PeerFile, PeerFormat, PeerSession, detect_peer, is_redaction_mark, read_peer};
pub use sse::SseFramer;

use crate::diagnostic::Diagnostic;

/// The framing of a stream file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One event per line (`.jsonl`, `.ndjson`).
    JsonLines,
    /// A JSON array of events (`.json`).
    JsonArray,
    /// A conformance vector: an object with an `events` array.
    Vector,
    /// A Server-Sent Events body (`.sse`, `.txt`, or `data:` lines).
    Sse,
    /// AG-UI's protobuf encoding (`.pb`, `.bin`, or bytes that start with a
    /// frame that decodes): each event a 4-byte length and an `Event`
    /// (issue 15.6).
    Protobuf,
}

impl Format {
    /// A short name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JsonLines => "JSON lines",
            Self::JsonArray => "JSON array",
            Self::Vector => "vector document",
            Self::Sse => "SSE body",
            Self::Protobuf => "protobuf body",
        }
    }
}

/// The events of one stream, as read from a file.
#[derive(Clone, Debug)]
pub struct Stream {
    /// How the file was framed.
    pub format: Format,
    /// The raw text of every event, in arrival order.
    pub events: EventLog,
    /// What the reader noticed about the framing (stream-level, `seq` 0).
    pub diagnostics: Vec<Diagnostic>,
    /// The profile a vector document declares, if any.
    pub declared_profile: Option<String>,
    /// The run input a vector document declares (`input`, written by
    /// `export --format vector` from a recording with one): step 0.
    pub run_input: Option<serde_json::Value>,
}

/// Why a file could not be read as a stream.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read at all.
    #[error("cannot read ({}): {path}", crate::error::io_cause(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a stream this tool knows.
    #[error("{reason}: {path}")]
    Unrecognised {
        /// The file.
        path: PathBuf,
        /// What is wrong, in plain words.
        reason: String,
    },
}

/// Reads a stream from `path`, or from standard input when `path` is `-`.
pub fn read_path(path: &Path) -> Result<Stream, ReadError> {
    let io_error = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let bytes = if path == Path::new("-") {
        read_stdin()?
    } else {
        std::fs::read(path).map_err(io_error)?
    };
    read_owned(bytes, path)
}

/// Files at least this large whose start reads as JSON lines are imported
/// a chunk at a time ([`streams_as_lines`], issue 40).
pub const STREAMED_FROM_BYTES: u64 = 32 << 20;

/// Whether the file at `path` is JSON lines that [`LineChunks`] can read a
/// chunk at a time, with the events [`read_path`] would read: at least
/// [`STREAMED_FROM_BYTES`] long, and its first mebibyte read as JSON lines
/// whose first line is an event and which has a second line, so that it
/// is none of the formats of one document (a HAR file, a vector, another
/// tool's session file, a pretty-printed array) nor protobuf. `false` for
/// anything else, which is read whole.
pub fn streams_as_lines(path: &Path) -> bool {
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file
        .metadata()
        .map_or(true, |m| !m.is_file() || m.len() < STREAMED_FROM_BYTES)
    {
        return false;
    }
    let mut start = Vec::with_capacity(1 << 20);
    if (&mut file).take(1 << 20).read_to_end(&mut start).is_err() {
        return false;
    }
    let is_har = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("har"));
    if is_har || detect_peer(&start, path).is_some() {
        return false;
    }
    if detect_format(&start, path) != Ok(Format::JsonLines) {
        return false;
    }
    // Complete lines only: the last may go on past the first mebibyte.
    let complete = start.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    let mut lines = json::event_lines(&start[..complete]);
    let first = lines.next();
    first.is_some_and(|first| sniff::reads_as_event(&start[first])) && lines.next().is_some()
}

/// Reads all of standard input.
pub fn read_stdin() -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io {
            path: PathBuf::from("-"),
            source,
        })?;
    Ok(bytes)
}

/// [`read_bytes`] of a buffer the caller gives up: JSON lines, the format
/// of big inputs, are read in place, taking no memory but the buffer's.
pub fn read_owned(bytes: Vec<u8>, path: &Path) -> Result<Stream, ReadError> {
    // A file in which no line reads as an event is refused as
    // `read_bytes` refuses it, saying what it looks like.
    if detect_format(&bytes, path) == Ok(Format::JsonLines)
        && json::event_lines(&bytes).any(|line| sniff::reads_as_event(&bytes[line]))
    {
        return Ok(Stream {
            format: Format::JsonLines,
            events: json::read_lines_in_place(bytes),
            diagnostics: Vec::new(),
            declared_profile: None,
            run_input: None,
        });
    }
    read_bytes(&bytes, path)
}

/// Reads a stream from bytes; `path` names the source in errors and its
/// extension, if any, picks the format.
pub fn read_bytes(bytes: &[u8], path: &Path) -> Result<Stream, ReadError> {
    let unrecognised = |reason: String| ReadError::Unrecognised {
        path: path.to_owned(),
        reason,
    };
    let format = detect_format(bytes, path).map_err(unrecognised)?;
    let mut stream = Stream {
        format,
        events: EventLog::default(),
        diagnostics: Vec::new(),
        declared_profile: None,
        run_input: None,
    };
    match format {
        Format::JsonLines => json::read_lines(bytes, &mut stream.events),
        Format::Sse => sse::read_sse(bytes, &mut stream),
        // Each frame becomes its JSON event; one that does not decode is
        // kept, raw, and reported as unparseable (R41).
        Format::Protobuf => {
            for event in crate::protocol::proto::read_body(bytes).0 {
                stream.events.push(&event);
            }
        }
        // Not refused for a byte that is not UTF-8: the element holding it
        // is kept and reported, as a line of JSON lines is (issue 12).
        Format::JsonArray => json::read_array(bytes, &mut stream.events),
        Format::Vector => {
            let (profile, input) =
                json::read_vector(utf8(bytes).map_err(unrecognised)?, &mut stream.events)
                    .map_err(unrecognised)?;
            stream.declared_profile = profile;
            stream.run_input = input;
        }
    }
    // A file in which nothing reads as an event is not a stream with some
    // damage but not a stream at all (issue 12); one with some garbage
    // keeps it, byte for byte, as events the replay reports.
    if !stream.events.is_empty()
        && !stream
            .events
            .iter()
            .any(|(_, raw)| sniff::reads_as_event(raw))
    {
        if format == Format::Protobuf {
            // Issue 15.6: say why the first frame does not decode.
            let first = stream.events.iter().next().map(|(_, raw)| raw);
            let why = first
                .and_then(crate::protocol::proto::why_undecodable)
                .unwrap_or_else(|| "its length prefix is not one of a frame".to_owned());
            return Err(unrecognised(format!(
                "not an AG-UI protobuf event stream: no frame of it decodes (the first: {why})"
            )));
        }
        return Err(unrecognised(format!(
            "not an AG-UI event stream: no {} of it is a JSON object with a string `type` (it looks like {})",
            match format {
                Format::JsonLines => "line",
                Format::Sse | Format::Protobuf => "frame",
                Format::JsonArray | Format::Vector => "element",
            },
            sniff::looks_like(bytes)
        )));
    }
    Ok(stream)
}

fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| format!("not valid UTF-8 (byte {})", e.valid_up_to()))
}

/// The first bytes of every SQLite database (a recording), the one place
/// they are written (issue 16.6).
pub const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// Whether bytes start like an SQLite database.
pub fn is_sqlite(bytes: &[u8]) -> bool {
    bytes.starts_with(SQLITE_MAGIC)
}

/// Picks the format from the extension, or from the first bytes.
pub fn detect_format(bytes: &[u8], path: &Path) -> Result<Format, String> {
    if is_sqlite(bytes) {
        return Err(
            "an SQLite database where a stream of events was expected (a recording is opened as a file of its own, with `--session N`)".into(),
        );
    }
    if sniff::is_damaged_sqlite(bytes) || sniff::is_damaged_recording(bytes, path) {
        return Err(
            "recording is damaged (its SQLite header is not \"SQLite format 3\", the rest of the file is SQLite pages)"
                .into(),
        );
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if matches!(extension.as_deref(), Some("pb" | "bin"))
        || crate::protocol::proto::looks_like_stream(bytes)
    {
        if bytes.is_empty() {
            return Err("empty input, no events".into());
        }
        return Ok(Format::Protobuf);
    }
    let body = skip_bom_and_space(bytes);
    if body.is_empty() {
        return Err("empty input, no events".into());
    }
    match extension.as_deref() {
        Some("jsonl" | "ndjson") => return Ok(Format::JsonLines),
        Some("sse" | "txt") => return Ok(Format::Sse),
        _ => {}
    }
    Ok(match body[0] {
        b'[' => Format::JsonArray,
        b'{' if json::is_vector(body) => Format::Vector,
        b'{' => Format::JsonLines,
        _ if looks_like_sse(body) => Format::Sse,
        _ => Format::JsonLines,
    })
}

/// `bytes` after the UTF-8 byte-order mark they start with, if any.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

fn skip_bom_and_space(bytes: &[u8]) -> &[u8] {
    let bytes = strip_bom(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

fn looks_like_sse(body: &[u8]) -> bool {
    [&b"data:"[..], b":", b"event:", b"id:", b"retry:"]
        .iter()
        .any(|prefix| body.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format_of(text: &str, name: &str) -> Result<Format, String> {
        detect_format(text.as_bytes(), Path::new(name))
    }

    #[test]
    fn formats_are_detected_by_extension_then_content() {
        assert_eq!(format_of("{}", "a.jsonl"), Ok(Format::JsonLines));
        assert_eq!(format_of("data: {}", "a.txt"), Ok(Format::Sse));
        assert_eq!(format_of("[]", "a.json"), Ok(Format::JsonArray));
        assert_eq!(format_of(r#"{"events": []}"#, "a.json"), Ok(Format::Vector));
        assert_eq!(
            format_of("{\"type\":\"X\"}\n{}", "-"),
            Ok(Format::JsonLines)
        );
        assert_eq!(format_of("\u{feff}  data: {}\n\n", "-"), Ok(Format::Sse));
        assert_eq!(format_of(": comment\n", "-"), Ok(Format::Sse));
        assert!(format_of("  \n", "a.jsonl").is_err());
        assert!(format_of("SQLite format 3\0...", "a.db").is_err());
    }

    /// Issue 14: reading a buffer given up reads what reading it borrowed
    /// does, in every format, and refuses what that refuses alike.
    #[test]
    fn reading_an_owned_buffer_reads_the_same() {
        let cases: [(&str, &[u8]); 5] = [
            (
                "a.jsonl",
                b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\nnot json\n",
            ),
            (
                "-",
                b"\xEF\xBB\xBF{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1}\r\n",
            ),
            (
                "a.sse",
                b"data: {\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1}\n\n",
            ),
            ("a.jsonl", b"{\"no\":\"type\"}\n{}\n"),
            ("a.jsonl", b"   \n"),
        ];
        for (name, bytes) in cases {
            let path = Path::new(name);
            let borrowed = read_bytes(bytes, path);
            let owned = read_owned(bytes.to_vec(), path);
            match (borrowed, owned) {
                (Ok(borrowed), Ok(owned)) => {
                    assert_eq!(owned.format, borrowed.format, "{name}");
                    assert_eq!(owned.events, borrowed.events, "{name}");
                    assert_eq!(owned.diagnostics.len(), borrowed.diagnostics.len());
                }
                (Err(borrowed), Err(owned)) => {
                    assert_eq!(owned.to_string(), borrowed.to_string(), "{name}");
                }
                (borrowed, owned) => panic!("{name}: {borrowed:?} against {owned:?}"),
            }
        }
    }

    #[test]
    fn errors_name_the_file() {
        let err = read_path(Path::new("/nonexistent/stream.jsonl")).expect_err("missing");
        assert!(
            err.to_string().contains("/nonexistent/stream.jsonl"),
            "{err}"
        );
        let err = read_bytes(b"", Path::new("empty.jsonl")).expect_err("empty");
        assert_eq!(err.to_string(), "empty input, no events: empty.jsonl");
    }
}
