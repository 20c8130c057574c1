//! One path from a request to the bytes of an export: [`render`] selects,
//! redacts and formats in memory; [`export`] writes what it rendered and
//! [`preview`] shows the start of it, so that a preview is exactly what gets
//! written. The command line and the app both call these.

use std::path::Path;

use super::redact::{Redaction, RedactionReport, Redactor};
use super::{
    ExportContext, ExportError, ExportFormat, Scope, Selection, fixture_document_with, select,
    sse_body, vector_document_with,
};
use crate::diagnostic::Seq;
use crate::input::{EventLog, HttpRequest, HttpResponse};
use crate::replay::Replayer;
use crate::store::{Arrival, NewSession, RecordingWriter, SessionStatus};
use crate::timeline::Timeline;

/// What to export, how, and what to hide.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportRequest {
    /// Which events.
    pub scope: Scope,
    /// The file format.
    pub format: ExportFormat,
    /// What to hide (nothing by default).
    pub redaction: Redaction,
}

/// An export rendered in memory: what [`Rendered::write_to`] writes.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The file format.
    pub format: ExportFormat,
    /// The content.
    pub content: Content,
    /// The number of events exported (a repro's closing event included).
    pub num_events: usize,
    /// What the redaction did.
    pub redaction: RedactionReport,
}

/// The content of an export.
#[derive(Clone, Debug)]
pub enum Content {
    /// The bytes of the file (JSON lines, SSE body, vector).
    Bytes(Vec<u8>),
    /// What the recording file will hold: one session.
    Recording(Box<RecordingContent>),
}

/// The one session of a recording export.
#[derive(Clone, Debug)]
pub struct RecordingContent {
    /// The session (its request and response redacted as asked).
    pub session: NewSession,
    /// Its events, raw.
    pub events: EventLog,
    /// Each event's arrival time (index 0 is the first event).
    pub arrival_nanos: Vec<u64>,
    /// When it ended (never "now": exports are deterministic).
    pub ended_at_unix_ms: Option<i64>,
    /// The profile the recording declares: the one the export replayed
    /// under, when it is not the default (a vector's profile survives a
    /// round trip through a recording, issue 12).
    pub declared_profile: Option<String>,
}

/// The start of what an export writes, for a user to check before writing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preview {
    /// The first bytes of the file (cut at a line end, or at a character
    /// boundary, within the size asked for). For a recording, which is not
    /// text, a summary of its session followed by its events as JSON lines.
    pub text: String,
    /// The number of events exported.
    pub num_events: usize,
    /// The size of the file, when known before writing it (not for a
    /// recording).
    pub total_bytes: Option<u64>,
    /// Whether `text` stops before the end.
    pub truncated: bool,
    /// What the redaction did.
    pub redaction: RedactionReport,
}

/// What [`export`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportSummary {
    /// The number of events exported.
    pub num_events: usize,
    /// The size of the file written.
    pub num_bytes: u64,
    /// What the redaction did.
    pub redaction: RedactionReport,
}

/// Selects the events of `request.scope` (`start` is the stream's step 0),
/// redacts them and renders them in `request.format`. A vector's or a
/// fixture's expectation is what replaying the redacted events from the
/// redacted run input gives, so that it stays a true test case.
pub fn render(
    events: &EventLog,
    start: &Replayer,
    request: &ExportRequest,
    context: &ExportContext<'_>,
) -> Result<Rendered, ExportError> {
    render_with_schemas(events, start, request, context, None)
}

/// [`render`], a vector's or fixture's expectation holding the schema
/// warnings of `schemas` too (S1, `export --schemas`): without it they are
/// left out, so that the exported case replays without the folder.
pub fn render_with_schemas(
    events: &EventLog,
    start: &Replayer,
    request: &ExportRequest,
    context: &ExportContext<'_>,
    schemas: Option<&crate::schemas::SchemaSet>,
) -> Result<Rendered, ExportError> {
    // Pointers are checked before any work.
    let mut redactor = Redactor::new(&request.redaction)?;
    let selection = redact_selection(&mut redactor, select(events, start, &request.scope)?)?;
    let content = match request.format {
        ExportFormat::Jsonl => Content::Bytes(jsonl_body(&selection.events)),
        ExportFormat::Sse => Content::Bytes(sse_body(&selection.events)),
        ExportFormat::Proto => Content::Bytes(super::proto_body(&selection.events)?),
        ExportFormat::Vector | ExportFormat::Conformance => {
            let run_input = match context.run_input {
                Some(input) if redactor.has_rules() => Some(redactor.value(input)),
                _ => None,
            };
            let context = ExportContext {
                run_input: run_input.as_ref().or(context.run_input),
                ..context.clone()
            };
            Content::Bytes(if request.format == ExportFormat::Vector {
                let mut bytes = vector_document_with(&selection, &context, schemas);
                bytes.push(b'\n');
                bytes
            } else {
                fixture_document_with(&selection, &context, schemas)?
            })
        }
        ExportFormat::Recording => Content::Recording(Box::new(recording_content(
            &selection,
            context,
            request.redaction.drop_headers,
            &mut redactor,
        )?)),
    };
    Ok(Rendered {
        format: request.format,
        content,
        num_events: selection.events.len(),
        redaction: redactor.finish(),
    })
}

/// Renders an export and writes it to `out`.
pub fn export(
    events: &EventLog,
    start: &Replayer,
    request: &ExportRequest,
    context: &ExportContext<'_>,
    out: &Path,
) -> Result<ExportSummary, ExportError> {
    render(events, start, request, context)?.write_to(out)
}

/// Renders an export and returns its first `max_bytes`.
pub fn preview(
    events: &EventLog,
    start: &Replayer,
    request: &ExportRequest,
    context: &ExportContext<'_>,
    max_bytes: usize,
) -> Result<Preview, ExportError> {
    Ok(render(events, start, request, context)?.preview(max_bytes))
}

impl Rendered {
    /// Writes the export to `out`, replacing what is there: into a new file
    /// beside it first, renamed over `out` once complete, so a failure
    /// leaves `out` as it was (and a recording there loses its old
    /// `-wal`, `-shm` and `-journal` files with it).
    pub fn write_to(&self, out: &Path) -> Result<ExportSummary, ExportError> {
        let io = |source| ExportError::Io {
            path: out.to_owned(),
            source,
        };
        let written = crate::store::replace_file(out, |temporary| match &self.content {
            Content::Bytes(bytes) => std::fs::write(temporary, bytes).map_err(io),
            // The error names the file asked for, not the one beside it.
            Content::Recording(content) => {
                write_recording(content, temporary).map_err(|error| ExportError::Recording {
                    path: out.to_owned(),
                    reason: crate::error::error_chain(&error)
                        .replace(&*temporary.to_string_lossy(), &out.to_string_lossy()),
                })
            }
        });
        match written {
            Ok(()) => {}
            Err(crate::store::ReplaceError::Write(error)) => return Err(error),
            Err(crate::store::ReplaceError::Rename { source, .. }) => return Err(io(source)),
        }
        let num_bytes = std::fs::metadata(out).map_err(io)?.len();
        Ok(ExportSummary {
            num_events: self.num_events,
            num_bytes,
            redaction: self.redaction.clone(),
        })
    }

    /// The first `max_bytes` of what [`Self::write_to`] writes.
    pub fn preview(&self, max_bytes: usize) -> Preview {
        let (text, truncated, total_bytes) = match &self.content {
            // Binary: what its frames decode to, as JSON lines, after a
            // line that says so (issue 15.7).
            Content::Bytes(bytes) if self.format == ExportFormat::Proto => {
                let (events, undecodable) = crate::protocol::proto::read_body(bytes);
                let mut summary = format!(
                    "protobuf ({}): {} frames, {} bytes; decoded, as JSON lines:\n",
                    crate::protocol::proto::CONTENT_TYPE,
                    events.len(),
                    bytes.len()
                )
                .into_bytes();
                for event in &events {
                    summary.extend_from_slice(
                        &String::from_utf8_lossy(event).into_owned().into_bytes(),
                    );
                    summary.push(b'\n');
                }
                if undecodable > 0 {
                    summary.extend_from_slice(
                        format!("({undecodable} frames kept raw: they did not decode)\n")
                            .as_bytes(),
                    );
                }
                let (text, truncated) = cut(&summary, max_bytes);
                (text, truncated, Some(bytes.len() as u64))
            }
            Content::Bytes(bytes) => {
                let (text, truncated) = cut(bytes, max_bytes);
                (text, truncated, Some(bytes.len() as u64))
            }
            Content::Recording(content) => {
                let summary = recording_summary(content, max_bytes);
                let (text, truncated) = cut(&summary, max_bytes);
                (text, truncated, None)
            }
        };
        Preview {
            text,
            num_events: self.num_events,
            total_bytes,
            truncated,
            redaction: self.redaction.clone(),
        }
    }
}

/// The selection with its events redacted; an event the redaction leaves
/// alone keeps its bytes.
fn redact_selection(
    redactor: &mut Redactor,
    selection: Selection,
) -> Result<Selection, ExportError> {
    if !redactor.has_rules() {
        return Ok(selection);
    }
    let mut events = EventLog::with_capacity(selection.events.num_bytes(), selection.events.len());
    for ((_, raw), origin) in selection.events.iter().zip(&selection.origins) {
        match redactor.event(raw, *origin)? {
            Some(redacted) => events.push(&redacted),
            None => events.push(raw),
        };
    }
    Ok(Selection {
        events,
        origins: selection.origins,
    })
}

/// One event per line.
fn jsonl_body(events: &EventLog) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(events.num_bytes() + events.len());
    for (_, raw) in events.iter() {
        bytes.extend_from_slice(raw);
        bytes.push(b'\n');
    }
    bytes
}

/// The session a recording export holds: the source session's request (its
/// body, the run input, redacted; its headers dropped if asked) and
/// response, and the events with their arrival times.
fn recording_content(
    selection: &Selection,
    context: &ExportContext<'_>,
    drop_headers: bool,
    redactor: &mut Redactor,
) -> Result<RecordingContent, ExportError> {
    let session = context.session;
    let mut request = None;
    if let Some(recorded) = session.and_then(|s| s.request.as_ref()) {
        let body = match &recorded.body {
            Some(body) if redactor.has_rules() => {
                Some(redactor.request_body(body)?.unwrap_or_else(|| body.clone()))
            }
            other => other.clone(),
        };
        request = Some(HttpRequest {
            method: recorded.method.clone(),
            url: recorded.url.clone(),
            headers: if drop_headers {
                Vec::new()
            } else {
                recorded.headers.clone()
            },
            body,
        });
    }
    let response = session
        .and_then(|s| s.response.as_ref())
        .map(|response| HttpResponse {
            status: response.status,
            headers: if drop_headers {
                Vec::new()
            } else {
                response.headers.clone()
            },
        });
    let mut last_arrival = 0;
    let arrival_nanos = selection
        .origins
        .iter()
        .map(|origin| {
            let arrival = origin
                .and_then(Seq::index)
                .and_then(|i| context.arrival_nanos.and_then(|a| a.get(i)).copied())
                .unwrap_or(last_arrival);
            last_arrival = arrival;
            arrival
        })
        .collect();
    Ok(RecordingContent {
        session: NewSession {
            source: format!("export: {}", context.source_name),
            format: session.map_or_else(|| "jsonl".to_owned(), |s| s.format.clone()),
            // Deterministic: the source's start, never "now".
            started_at_unix_ms: Some(session.map_or(0, |s| s.started_at_unix_ms)),
            request,
            response,
            reader_diagnostics: session
                .map(|s| s.reader_diagnostics.clone())
                .unwrap_or_default(),
        },
        events: selection.events.clone(),
        arrival_nanos,
        ended_at_unix_ms: session
            .and_then(|s| s.ended_at_unix_ms)
            .or(Some(session.map_or(0, |s| s.started_at_unix_ms))),
        declared_profile: (context.options.profile != crate::replay::Profile::Spec)
            .then(|| context.options.profile.as_str().to_owned()),
    })
}

fn write_recording(content: &RecordingContent, out: &Path) -> Result<(), ExportError> {
    let mut writer = RecordingWriter::create(out, true)?;
    let session = writer.begin_session(content.session.clone())?;
    if let Some(profile) = &content.declared_profile {
        writer.set_declared_profile(session, profile)?;
    }
    // The timeline index (issue 14), as `import` writes it: built on a
    // second thread while the events are written.
    let start = writer.index_start(session, content.declared_profile.as_deref())?;
    let (written, timeline) = std::thread::scope(|scope| {
        let events = &content.events;
        let replay =
            start.map(|start| scope.spawn(move || Timeline::starting_from(start).index_of(events)));
        let written = (|| {
            for ((_, raw), arrival) in content.events.iter().zip(&content.arrival_nanos) {
                writer.append(raw, Arrival::at(*arrival))?;
            }
            Ok::<(), crate::store::StoreError>(())
        })();
        (written, replay.and_then(|replay| replay.join().ok()))
    });
    written?;
    if let Some(timeline) = timeline {
        writer.store_timeline_with(session, &timeline, Some(&content.arrival_nanos))?;
    }
    writer.end_session_at(SessionStatus::Complete, content.ended_at_unix_ms)?;
    writer.finish()?;
    Ok(())
}

/// A recording export in words, then its events as JSON lines, stopping
/// once past `max_bytes` (the caller cuts it there).
fn recording_summary(content: &RecordingContent, max_bytes: usize) -> Vec<u8> {
    let session = &content.session;
    let mut lines = vec![
        format!(
            "a recording with one session of {} events",
            content.events.len()
        ),
        format!("source: {}", session.source),
        format!("format: {}", session.format),
        format!(
            "started at (ms since the Unix epoch): {}",
            session.started_at_unix_ms.unwrap_or(0)
        ),
    ];
    let headers = |lines: &mut Vec<String>, what: &str, headers: &[(String, String)]| {
        if headers.is_empty() {
            lines.push(format!("{what} headers: none"));
        } else {
            lines.push(format!("{what} headers:"));
            lines.extend(
                crate::store::redact_headers(headers)
                    .iter()
                    .map(|(name, value)| format!("  {name}: {value}")),
            );
        }
    };
    match &session.request {
        Some(request) => {
            lines.push(format!("request: {} {}", request.method, request.url));
            headers(&mut lines, "request", &request.headers);
            if let Some(body) = &request.body {
                lines.push(format!(
                    "request body (the run input): {}",
                    String::from_utf8_lossy(body)
                ));
            }
        }
        None => lines.push("request: none".to_owned()),
    }
    if let Some(response) = &session.response {
        lines.push(format!("response: {}", response.status));
        headers(&mut lines, "response", &response.headers);
    }
    if !session.reader_diagnostics.is_empty() {
        lines.push(format!(
            "reader diagnostics: {}",
            session.reader_diagnostics.len()
        ));
    }
    lines.push("events (one per line):".to_owned());
    let mut text = lines.join("\n").into_bytes();
    text.push(b'\n');
    for (_, raw) in content.events.iter() {
        if text.len() > max_bytes {
            break;
        }
        text.extend_from_slice(raw);
        text.push(b'\n');
    }
    text
}

/// The first `max_bytes` of `bytes` as text, cut after the last line end
/// that fits (or, on a line longer than that, at a character boundary), and
/// whether anything was cut.
fn cut(bytes: &[u8], max_bytes: usize) -> (String, bool) {
    if bytes.len() <= max_bytes {
        return (String::from_utf8_lossy(bytes).into_owned(), false);
    }
    let head = &bytes[..max_bytes];
    let end = match head.iter().rposition(|&b| b == b'\n') {
        Some(newline) => newline + 1,
        None => {
            // Back to the start of the character at the cut (UTF-8
            // continuation bytes are 0b10xxxxxx).
            let mut end = max_bytes;
            while end > 0 && max_bytes - end < 3 && bytes[end] & 0xC0 == 0x80 {
                end -= 1;
            }
            end
        }
    };
    (String::from_utf8_lossy(&bytes[..end]).into_owned(), true)
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn previews_are_cut_at_a_line_end_or_a_character() {
        assert_eq!(cut(b"ab\ncd\n", 10), ("ab\ncd\n".to_owned(), false));
        assert_eq!(cut(b"ab\ncd\n", 6), ("ab\ncd\n".to_owned(), false));
        assert_eq!(cut(b"ab\ncd\n", 5), ("ab\n".to_owned(), true));
        assert_eq!(cut(b"abcdef", 3), ("abc".to_owned(), true));
        // "é" is two bytes: a cut between them keeps neither.
        assert_eq!(cut("aébc".as_bytes(), 2), ("a".to_owned(), true));
        assert_eq!(cut("aébc".as_bytes(), 3), ("aé".to_owned(), true));
        assert_eq!(cut(b"abc", 0), (String::new(), true));
    }
}
