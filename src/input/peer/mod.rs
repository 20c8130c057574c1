//! Session files written by other AG-UI inspection tools (issue 17, point
//! 5): the `.agui.jsonl` sessions of the AG-UI DevTools browser extension,
//! the session export of agui-inspector, and the aimock fixture files the
//! DevTools' harness records. `FORMATS.md` in `tests/interop/` describes
//! them; each reader cites the section it follows.
//!
//! Each file holds several connections (a DevTools `connId`, an inspector
//! exchange, a fixture); each becomes one session, as a HAR file's
//! event-stream exchanges do ([`super::read_har`]): its request is the run
//! input, its recorded times are the arrival times, and its events keep
//! their bytes. The records that are not events (a header, a keepalive, a
//! control frame, a finding) are never taken for broken events: what they
//! say that matters is said as a diagnostic of the session (E21–E23), and
//! a record this reader cannot use is said too, with its line or id, never
//! dropped silently.

mod devtools;
mod fixtures;
mod inspector;

use std::path::Path;

use super::{EventLog, HttpRequest};
use crate::diagnostic::{Code, Diagnostic, Seq};

/// Which tool's session file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerFormat {
    /// An AG-UI DevTools `.agui.jsonl` session: one record per line,
    /// `kind` `header`, `request`, `event` or `keepalive` (FORMATS.md §1).
    DevTools,
    /// An agui-inspector session export: `{version: 0, session: {exchanges,
    /// runs, frames, findings, derived}}` (FORMATS.md §2).
    Inspector,
    /// An aimock fixture file (`{fixtures: [{match, events}]}`), as the
    /// DevTools' harness records them (FORMATS.md §1.10).
    Fixtures,
}

impl PeerFormat {
    /// A short name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DevTools => "AG-UI DevTools session",
            Self::Inspector => "agui-inspector session",
            Self::Fixtures => "aimock fixture file",
        }
    }

    /// The format a recording stores for a session imported from it.
    pub fn stored_name(self) -> &'static str {
        match self {
            Self::DevTools => "agui-devtools",
            Self::Inspector => "agui-inspector",
            Self::Fixtures => "aimock-fixtures",
        }
    }

    /// What the file calls one of its sessions.
    pub fn session_noun(self) -> &'static str {
        match self {
            Self::DevTools => "connection",
            Self::Inspector => "exchange",
            Self::Fixtures => "fixture",
        }
    }
}

/// One connection of a peer's file: one session to replay.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerSession {
    /// The file's own name for it (`c1`, `exchange-2`, `fixture 1`).
    pub label: String,
    /// The request that opened it, without headers (neither tool keeps
    /// them); its body is the run input.
    pub request: Option<HttpRequest>,
    /// The response's status, when the file records one.
    pub status: Option<u16>,
    /// The run input (the request's JSON object): step 0 of the replay.
    pub run_input: Option<serde_json::Value>,
    /// When it started, in milliseconds since the Unix epoch, when the file
    /// says.
    pub started_at_unix_ms: Option<i64>,
    /// Its events' bytes, in order.
    pub events: EventLog,
    /// When each event arrived, in nanoseconds from the request (or from
    /// the first event), as the file recorded it; `None` when the file
    /// records no time.
    pub arrival_nanos: Option<Vec<u64>>,
    /// What the reader has to say of it (seq 0): redaction, the tool's own
    /// findings, records it could not use.
    pub diagnostics: Vec<Diagnostic>,
}

impl PeerSession {
    /// `c1 POST /api/…/run`: its label and request.
    pub fn describe(&self) -> String {
        match &self.request {
            Some(request) => format!("{} {} {}", self.label, request.method, request.url),
            None => self.label.clone(),
        }
    }
}

impl PeerFormat {
    /// `connection c1 POST /api/…/run`, `exchange-2 (conversation) POST
    /// /agent`, `fixture 1`: a session as messages name it.
    pub fn name_session(self, session: &PeerSession) -> String {
        let what = session.describe();
        if what.starts_with(self.session_noun()) {
            what
        } else {
            format!("{} {what}", self.session_noun())
        }
    }
}

/// The sessions of a peer's file.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerFile {
    /// Which tool's format.
    pub format: PeerFormat,
    /// The tool that wrote it, when the file says (`ag-ui-devtools@0.1.0`).
    pub writer: Option<String>,
    /// Every session, in the file's order.
    pub sessions: Vec<PeerSession>,
}

/// Which peer format the bytes are, if any: by a `.agui.jsonl` name, or by
/// the first record (a DevTools record with a known `kind`), or by the
/// document's shape (`{version, session: {exchanges}}`, `{fixtures:
/// [{events}]}`).
pub fn detect_peer(bytes: &[u8], path: &Path) -> Option<PeerFormat> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_ascii_lowercase);
    if name.is_some_and(|n| n.ends_with(".agui.jsonl")) {
        return Some(PeerFormat::DevTools);
    }
    let body = super::strip_bom(bytes);
    let start = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if body[start] != b'{' {
        return None;
    }
    if devtools::is_devtools(body) {
        Some(PeerFormat::DevTools)
    } else if inspector::is_inspector(body) {
        Some(PeerFormat::Inspector)
    } else if fixtures::is_fixtures(body) {
        Some(PeerFormat::Fixtures)
    } else {
        None
    }
}

/// Reads a peer's file as `format`.
///
/// # Errors
///
/// A message in plain words when the file is not of that format at all (an
/// inspector export that is not JSON, a DevTools file with no connection);
/// a record that cannot be read is a diagnostic, not an error.
pub fn read_peer(bytes: &[u8], format: PeerFormat) -> Result<PeerFile, String> {
    let bytes = super::strip_bom(bytes);
    let mut file = match format {
        PeerFormat::DevTools => devtools::read(bytes)?,
        PeerFormat::Inspector => inspector::read(bytes)?,
        PeerFormat::Fixtures => fixtures::read(bytes)?,
    };
    for session in &mut file.sessions {
        if let Some(diagnostic) = redaction_diagnostic(session, &[], None) {
            session.diagnostics.push(diagnostic);
        }
    }
    Ok(file)
}

/// Whether `text` is a redaction mark: `«redacted: N chars»`
/// (FORMATS.md §1.8, REDACT `redactString`).
pub fn is_redaction_mark(text: &str) -> bool {
    text.strip_prefix("«redacted: ")
        .and_then(|rest| rest.strip_suffix(" chars»"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The number of string values of `value` that are redaction marks.
fn count_marks(value: &serde_json::Value) -> usize {
    let mut count = 0;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            serde_json::Value::String(text) => count += usize::from(is_redaction_mark(text)),
            serde_json::Value::Array(items) => pending.extend(items),
            serde_json::Value::Object(members) => pending.extend(members.values()),
            _ => {}
        }
    }
    count
}

/// The most steps a diagnostic lists by number.
const MAX_LISTED: usize = 8;

/// `peer.redacted` (E21): where the session's values are redaction marks,
/// and which groups the file says were redacted (`groups`, by `writer`).
/// `None` when nothing is said to be or is redacted.
fn redaction_diagnostic(
    session: &PeerSession,
    groups: &[String],
    writer: Option<&str>,
) -> Option<Diagnostic> {
    // A DevTools header is the file's own statement: its reader passes it.
    if session
        .diagnostics
        .iter()
        .any(|d| d.code == Code::PeerRedacted)
    {
        return None;
    }
    let in_input = session.run_input.as_ref().map_or(0, count_marks);
    let mut steps = Vec::new();
    let mut num_marks = in_input;
    for (seq, raw) in session.events.iter() {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(raw) {
            let n = count_marks(&value);
            if n > 0 {
                num_marks += n;
                steps.push(seq);
            }
        }
    }
    if num_marks == 0 && groups.is_empty() {
        return None;
    }
    let who = match (writer, groups.is_empty()) {
        (Some(writer), false) => format!("{writer} redacted {} before export", groups.join(", ")),
        (None, false) => format!("the file says {} were redacted", groups.join(", ")),
        (_, true) => "the file does not say what was redacted".to_owned(),
    };
    if num_marks == 0 {
        return Some(Diagnostic::new(
            Seq::START,
            Code::PeerRedacted,
            format!("{who}; no value of this session is a «redacted: N chars» mark"),
        ));
    }
    let mut places = Vec::new();
    if in_input > 0 {
        places.push("the run input".to_owned());
    }
    if !steps.is_empty() {
        let listed: Vec<String> = steps
            .iter()
            .take(MAX_LISTED)
            .map(ToString::to_string)
            .collect();
        let more = if steps.len() > MAX_LISTED {
            ", …"
        } else {
            ""
        };
        let word = if steps.len() == 1 { "event" } else { "events" };
        places.push(format!("{word} {}{more}", listed.join(", ")));
    }
    let values = if num_marks == 1 {
        "value is a"
    } else {
        "values are"
    };
    Some(Diagnostic::new(
        Seq::START,
        Code::PeerRedacted,
        format!(
            "{who}: {num_marks} {values} «redacted: N chars» mark{} (in {}), each standing for N \
             characters the file does not hold, shown as it is; what the replay says of those \
             values (arguments that are not JSON, a number that became a string) may come from \
             the redaction",
            if num_marks == 1 { "" } else { "s" },
            places.join(" and ")
        ),
    ))
}

/// At most `max` characters of `text`, for a message.
fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// A diagnostic of this reader.
fn said(code: Code, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Seq::START, code, message)
}

/// Arrival times in nanoseconds from `base` milliseconds, never going
/// backwards; an event without a time arrives with the one before.
fn arrivals_from_millis(times: &[Option<f64>], base: f64) -> Vec<u64> {
    let mut last = 0u64;
    times
        .iter()
        .map(|time| {
            if let Some(ms) = time.filter(|ms| ms.is_finite()) {
                let nanos = ((ms - base).max(0.0) * 1e6).round();
                // An `as` cast saturates: a time past 584 years is the last.
                last = last.max(nanos as u64);
            }
            last
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::without_whitespace;

    #[test]
    fn redaction_marks_are_recognised_exactly() {
        assert!(is_redaction_mark("«redacted: 1 chars»"));
        assert!(is_redaction_mark("«redacted: 81 chars»"));
        assert!(!is_redaction_mark("«redacted: chars»"));
        assert!(!is_redaction_mark("«redacted: 1 char»"));
        assert!(!is_redaction_mark("x «redacted: 1 chars»"));
        assert!(!is_redaction_mark("«redacted: -1 chars»"));
    }

    #[test]
    fn pretty_json_is_compacted_outside_strings_only() {
        assert_eq!(
            without_whitespace("{\n  \"a b\": [ 1, \"x \\\" y\" ],\n  \"c\": {}\n}"),
            "{\"a b\":[1,\"x \\\" y\"],\"c\":{}}"
        );
    }

    #[test]
    fn arrivals_never_go_backwards() {
        assert_eq!(
            arrivals_from_millis(
                &[Some(10.0), None, Some(12.5), Some(11.0), Some(f64::NAN)],
                10.0
            ),
            [0, 0, 2_500_000, 2_500_000, 2_500_000]
        );
        assert_eq!(arrivals_from_millis(&[Some(5.0)], 10.0), [0]);
    }

    /// Every sample of `tests/interop/`, cut at many places and with bytes
    /// flipped: read without a panic (nothing panics on input).
    #[test]
    fn damaged_samples_never_panic() {
        const SAMPLES: [&[u8]; 4] = [
            include_bytes!("../../../tests/interop/ag-ui-devtools/demo.agui.jsonl"),
            include_bytes!("../../../tests/interop/ag-ui-devtools/happy-real.json"),
            include_bytes!(
                "../../../tests/interop/agui-inspector/generated/agui-inspector-session-sse.json"
            ),
            include_bytes!(
                "../../../tests/interop/agui-inspector/generated/agui-inspector-session-protobuf.json"
            ),
        ];
        for sample in SAMPLES {
            let format = detect_peer(sample, Path::new("sample")).expect("a peer file");
            assert!(read_peer(sample, format).is_ok());
            let mut inputs: Vec<Vec<u8>> = (0..sample.len())
                .step_by(151)
                .map(|end| sample[..end].to_vec())
                .collect();
            inputs.extend((0..sample.len()).step_by(211).map(|i| {
                let mut bytes = sample.to_vec();
                bytes[i] ^= 0x5a;
                bytes
            }));
            for bytes in &inputs {
                let _ = detect_peer(bytes, Path::new("x.json"));
                for format in [
                    PeerFormat::DevTools,
                    PeerFormat::Inspector,
                    PeerFormat::Fixtures,
                ] {
                    let _ = read_peer(bytes, format);
                }
            }
        }
    }

    #[test]
    fn files_are_told_apart_by_name_or_shape() {
        let devtools = br#"{"kind":"header","schemaVersion":1}"#;
        assert_eq!(
            detect_peer(devtools, Path::new("x.jsonl")),
            Some(PeerFormat::DevTools)
        );
        assert_eq!(
            detect_peer(b"garbage", Path::new("a.AGUI.jsonl")),
            Some(PeerFormat::DevTools)
        );
        assert_eq!(
            detect_peer(
                br#"{"version":0,"session":{"exchanges":[],"frames":[]}}"#,
                Path::new("s.json")
            ),
            Some(PeerFormat::Inspector)
        );
        assert_eq!(
            detect_peer(br#"{"fixtures":[{"events":[]}]}"#, Path::new("f.json")),
            Some(PeerFormat::Fixtures)
        );
        for other in [
            &br#"{"type":"RUN_STARTED"}"#[..],
            br#"{"kind":"mystery"}"#,
            br#"{"events":[]}"#,
            b"[]",
            b"data: {}\n\n",
        ] {
            assert_eq!(detect_peer(other, Path::new("x.json")), None);
        }
    }
}
