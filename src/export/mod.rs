//! Exporting a stream, a range of it, or one activity's minimal repro, as
//! JSON lines, an SSE body, a conformance vector, a conformance fixture of
//! the AG-UI corpus ([`fixture_document`]) or a recording, with the
//! values a user names redacted. Output is deterministic: the same input
//! gives the same bytes.
//!
//! Start at [`export`] (and [`preview`], which shows the start of exactly
//! what `export` writes): both [`render`] an [`ExportRequest`] through one
//! path, selection ([`select`]), redaction ([`Redaction`]), then format.

mod fixture;
mod redact;
mod render;
mod repro;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

pub use fixture::{fixture_document, fixture_document_with, fixture_name};
pub use redact::{REDACTED_VALUE, Redaction, RedactionReport, parse_pointer};
pub use render::{
    Content, ExportRequest, ExportSummary, Preview, RecordingContent, Rendered, export, preview,
    render, render_with_schemas,
};
pub use repro::minimal_repro;

use crate::diagnostic::{Diagnostic, Seq};
use crate::input::EventLog;
use crate::replay::{Options, Replayer, replay_from};
use crate::store::{SessionInfo, StoreError};

/// What to export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The stream up to step N (events `1..=N`).
    UpTo(Seq),
    /// Events `A..=B`.
    Range(Seq, Seq),
    /// One activity's minimal repro up to step N: the run start, the
    /// baseline snapshot in force, every later event for that `messageId`
    /// (and the run boundaries and message snapshots between), and a closing
    /// `RUN_FINISHED`.
    Repro {
        /// The activity's `messageId`.
        message_id: String,
        /// The last step.
        to: Seq,
    },
}

/// The file format of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// One event per line.
    Jsonl,
    /// `data: <json>` frames.
    Sse,
    /// AG-UI's protobuf encoding: each event a 4-byte length and a
    /// protobuf `Event` (issue 15.7).
    Proto,
    /// A conformance vector with the observed outcome as its expectation.
    Vector,
    /// A new recording file with one session.
    Recording,
    /// A fixture of the AG-UI conformance corpus (its `fixture.ts` format),
    /// its expectation being what the replay saw.
    Conformance,
}

impl ExportFormat {
    /// Every format, in the order the command line lists them.
    pub const ALL: [Self; 6] = [
        Self::Jsonl,
        Self::Sse,
        Self::Proto,
        Self::Vector,
        Self::Recording,
        Self::Conformance,
    ];

    /// Its name on the command line (`export --format jsonl`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Sse => "sse",
            Self::Proto => "proto",
            Self::Vector => "vector",
            Self::Recording => "recording",
            Self::Conformance => "conformance",
        }
    }

    /// Its name for a person (the app's export dialog).
    pub fn label(self) -> &'static str {
        match self {
            Self::Vector => "Vector (a test case)",
            Self::Jsonl => "JSON lines",
            Self::Sse => "SSE body",
            Self::Proto => "Protobuf body",
            Self::Recording => "Recording",
            Self::Conformance => "Conformance fixture",
        }
    }

    /// The format a file name's extension names (case aside), if it names
    /// one: what the `export` command and the app's export dialog both go
    /// by (issue 16.6). `.json` is a vector (a fixture is chosen by name).
    pub fn from_extension(path: &std::path::Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "json" => Some(Self::Vector),
            "jsonl" | "ndjson" => Some(Self::Jsonl),
            "sse" | "txt" => Some(Self::Sse),
            "pb" | "bin" => Some(Self::Proto),
            "rec" | "sqlite" | "db" | "agui" => Some(Self::Recording),
            _ => None,
        }
    }

    /// The extension a file of this format is given.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Sse => "sse",
            Self::Proto => "pb",
            Self::Vector | Self::Conformance => "json",
            Self::Recording => "rec",
        }
    }
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A scope outside the stream.
    #[error("{0}")]
    Scope(String),
    /// A redaction pointer that is not a JSON pointer.
    #[error("invalid JSON pointer {pointer:?}: {reason}")]
    Pointer {
        /// The pointer as given.
        pointer: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An event the protobuf encoding cannot carry (issue 15.7).
    #[error("step {seq} cannot be exported as protobuf: {reason}")]
    Unencodable {
        /// The event's step.
        seq: u64,
        /// Why.
        reason: String,
    },
    /// The output could not be written.
    #[error("cannot write ({}): {path}", crate::error::io_cause(source))]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A value a redaction names is still in what would be written (a
    /// shape the redaction does not follow): nothing is written.
    #[error(
        "{what} still holds a value {pointer} names after redaction; nothing was written (redact a pointer that names it whole, or leave the event out)"
    )]
    Unredacted {
        /// The event (`step N`) or the run input.
        what: String,
        /// The pointer.
        pointer: String,
    },
    /// The recording could not be written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An event that cannot be a conformance fixture's event (it is not a
    /// JSON object).
    #[error(
        "event {seq} cannot go into a conformance fixture: {reason} (export JSON lines or a \
         vector instead, or a scope without it)"
    )]
    NotFixture {
        /// The event's seq in the source.
        seq: Seq,
        /// What it is instead.
        reason: String,
    },
    /// The recording export could not be written.
    #[error("cannot write the recording ({reason}): {path}")]
    Recording {
        /// The file asked for.
        path: std::path::PathBuf,
        /// Why (the store's error).
        reason: String,
    },
}

/// The events an export writes, with what their replay gives.
#[derive(Clone, Debug)]
pub struct Selection {
    /// The events, raw, in order (a repro's closing event included).
    pub events: EventLog,
    /// For each event, its seq in the source (`None` for a synthesized one).
    pub origins: Vec<Option<Seq>>,
}

/// Picks the events of `scope` from a stream; `start` is the stream's step 0.
pub fn select(
    events: &EventLog,
    start: &Replayer,
    scope: &Scope,
) -> Result<Selection, ExportError> {
    let last = events.len() as u64;
    let check = |seq: Seq, what: &str| {
        if seq.get() > last {
            Err(ExportError::Scope(format!(
                "{what} {seq} is past the end of the stream ({last} events)"
            )))
        } else {
            Ok(())
        }
    };
    let (from, to) = match scope {
        Scope::UpTo(to) => (Seq::new(1), *to),
        Scope::Range(from, to) => {
            if from > to {
                return Err(ExportError::Scope(format!(
                    "the range {from}..{to} is empty (--from must not be after --to)"
                )));
            }
            (Seq::new(from.get().max(1)), *to)
        }
        Scope::Repro { message_id, to } => {
            check(*to, "step")?;
            return minimal_repro(events, start, message_id, *to);
        }
    };
    check(to, "step")?;
    let mut selection = Selection {
        events: EventLog::default(),
        origins: Vec::new(),
    };
    for (seq, raw) in events.iter() {
        if seq >= from && seq <= to {
            selection.events.push(raw);
            selection.origins.push(Some(seq));
        }
    }
    Ok(selection)
}

/// The name an export carries (a vector's `name`): what it holds and where
/// it comes from.
pub fn export_name(source_name: &str, scope: &Scope) -> String {
    match scope {
        Scope::UpTo(to) => format!("export of {source_name} up to {to}"),
        Scope::Range(from, to) => format!("export of {source_name}, steps {from} to {to}"),
        Scope::Repro { message_id, to } => {
            format!("repro of {message_id} up to {to} from {source_name}")
        }
    }
}

/// Where an export comes from, for the metadata it carries.
#[derive(Clone, Debug)]
pub struct ExportContext<'a> {
    /// The source's name (a file path).
    pub source_name: &'a str,
    /// The recording session it came from, if any (its request and response
    /// go into a recording export; its run input is step 0).
    pub session: Option<&'a SessionInfo>,
    /// The run input at step 0, if any.
    pub run_input: Option<&'a Value>,
    /// The replay options (a vector records its profile).
    pub options: Options,
    /// A name for the vector or the fixture (`name` member; a fixture's is
    /// its file name without `.json`, [`fixture_name`]).
    pub name: String,
    /// Arrival times of the source's events (index 0 is seq 1), if known.
    pub arrival_nanos: Option<&'a [u64]>,
}

/// `data: ` frames; an event whose text spans lines gets one `data:` line
/// per line, as SSE joins them back with `\n`.
pub fn sse_body(events: &EventLog) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(events.num_bytes() + events.len() * 8);
    for (_, raw) in events.iter() {
        for line in raw.split(|&b| b == b'\n') {
            bytes.extend_from_slice(b"data: ");
            bytes.extend_from_slice(line.strip_suffix(b"\r").unwrap_or(line));
            bytes.push(b'\n');
        }
        bytes.push(b'\n');
    }
    bytes
}

/// The events in AG-UI's protobuf encoding, one frame each (issue 15.7). A
/// frame kept raw because it did not decode is written back as it came;
/// any other event must be one the encoding carries.
pub fn proto_body(events: &EventLog) -> Result<Vec<u8>, ExportError> {
    let mut bytes = Vec::with_capacity(events.num_bytes());
    for (seq, raw) in events.iter() {
        if crate::protocol::proto::why_undecodable(raw).is_some() {
            bytes.extend_from_slice(raw);
            continue;
        }
        let frame = crate::protocol::proto::encode_event_text(raw).map_err(|e| {
            ExportError::Unencodable {
                seq: seq.get(),
                reason: e.to_string(),
            }
        })?;
        bytes.extend_from_slice(&frame);
    }
    Ok(bytes)
}

#[derive(Serialize)]
struct VectorDocument<'a> {
    name: &'a str,
    rules: [&'a str; 0],
    profile: &'a str,
    /// The recorded run input (step 0), when the stream had one: not part of
    /// the shared vectors' format, read back by this tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a Value>,
    events: Vec<Box<RawValue>>,
    expect: Expectation,
}

#[derive(Serialize)]
struct Expectation {
    outcome: &'static str,
    diagnostics: Vec<ExpectedDiagnostic>,
    messages: Value,
    state: Value,
}

#[derive(Serialize)]
struct ExpectedDiagnostic {
    seq: Seq,
    code: crate::diagnostic::Code,
}

/// A conformance vector (the format of `tests/vectors`) whose expectation is
/// what replaying the selection gives: a ready test case. An event that is
/// not JSON is kept as a JSON string holding its text (it stays unparseable).
pub fn vector_document(selection: &Selection, context: &ExportContext<'_>) -> Vec<u8> {
    vector_document_with(selection, context, None)
}

/// [`vector_document`] whose expectation holds the schema warnings of
/// `schemas` too (S1, `export --schemas`), each after its event's own.
pub fn vector_document_with(
    selection: &Selection,
    context: &ExportContext<'_>,
    schemas: Option<&crate::schemas::SchemaSet>,
) -> Vec<u8> {
    let start = match context.run_input {
        Some(input) => Replayer::with_run_input(context.options, input),
        None => Replayer::new(context.options),
    };
    let found = schemas.map(|schemas| {
        crate::schemas::check_stream(schemas, start.clone(), context.run_input, &selection.events)
    });
    let replayer = replay_from(start, &selection.events);
    let all = match &found {
        Some(found) => crate::replay::merge_divergences(replayer.diagnostics(), found),
        None => replayer.diagnostics().to_vec(),
    };
    let events = selection
        .events
        .iter()
        .map(|(_, raw)| {
            std::str::from_utf8(raw)
                .ok()
                .and_then(|text| RawValue::from_string(text.trim().to_owned()).ok())
                .unwrap_or_else(|| {
                    let text = String::from_utf8_lossy(raw).into_owned();
                    RawValue::from_string(Value::String(text).to_string()).unwrap_or_else(|_| {
                        RawValue::from_string("null".into()).expect("null is JSON")
                    })
                })
        })
        .collect();
    let diagnostics = all
        .iter()
        .map(|d: &Diagnostic| ExpectedDiagnostic {
            seq: d.seq,
            code: d.code,
        })
        .collect();
    let document = VectorDocument {
        name: &context.name,
        rules: [],
        profile: context.options.profile.as_str(),
        input: context.run_input,
        events,
        expect: Expectation {
            outcome: replayer.outcome().as_str(),
            diagnostics,
            messages: replayer.conversation().to_json(),
            state: replayer.state().clone(),
        },
    };
    // Issue 39: a lone surrogate the replay holds (in `expect`) is written
    // as its escape; the events are their text verbatim.
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    crate::surrogate::escape_json(text).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 16.6: the command and the dialog name files and read their
    /// extensions through one table, so a file saved in a format is read
    /// back as that format.
    #[test]
    fn each_format_is_named_back_by_its_extension() {
        use std::path::Path;
        for format in [
            ExportFormat::Jsonl,
            ExportFormat::Sse,
            ExportFormat::Vector,
            ExportFormat::Recording,
        ] {
            let name = format!("out.{}", format.extension());
            assert_eq!(ExportFormat::from_extension(Path::new(&name)), Some(format));
        }
        // A fixture is JSON: chosen by name, not by extension.
        assert_eq!(ExportFormat::Conformance.extension(), "json");
        assert_eq!(
            ExportFormat::from_extension(Path::new("x.NDJSON")),
            Some(ExportFormat::Jsonl)
        );
        assert_eq!(
            ExportFormat::from_extension(Path::new("x.txt")),
            Some(ExportFormat::Sse)
        );
        assert_eq!(ExportFormat::from_extension(Path::new("x.csv")), None);
        assert_eq!(ExportFormat::from_extension(Path::new("x")), None);
    }
}
