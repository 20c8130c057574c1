//! AG-UI DevTools `.agui.jsonl` sessions (FORMATS.md §1): one JSON record
//! per line, `kind` `header` (line 1), `request` (one per connection),
//! `event` and `keepalive`. Records are grouped by `connId`, each
//! connection a session; its events are sorted by `seq` (§1.6); its times
//! are `tMs`, measured from its request (§1.7).
//!
//! As the tool's own loader does, a line that cannot be read costs that
//! line only (§1.1): it is said, with its number, and reading goes on. An
//! event line that is not JSON but names its connection (a line cut off)
//! stays an event of that connection, its bytes as they are, so that the
//! replay shows it where it was.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{PeerFile, PeerFormat, PeerSession, arrivals_from_millis, excerpt, said};
use crate::diagnostic::Code;
use crate::input::{EventLog, HttpRequest};

/// The record kinds the format has (CODEC `KNOWN_KINDS`).
const KNOWN_KINDS: [&str; 4] = ["header", "request", "event", "keepalive"];

/// Whether the first line is a DevTools record: a known `kind`, a header
/// or a record of a connection.
pub(super) fn is_devtools(body: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        kind: String,
        #[serde(rename = "connId", default)]
        conn_id: Option<String>,
    }
    let first = body
        .split(|&b| b == b'\n')
        .find(|line| !line.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default();
    serde_json::from_slice::<Probe>(first).is_ok_and(|probe| {
        KNOWN_KINDS.contains(&probe.kind.as_str())
            && (probe.kind == "header" || probe.conn_id.is_some())
    })
}

/// One connection while the file is read.
#[derive(Default)]
struct Connection {
    id: String,
    request: Option<Request>,
    events: Vec<EventLine>,
    num_keepalives: usize,
    notes: Vec<crate::diagnostic::Diagnostic>,
}

struct Request {
    method: String,
    url: String,
    body: Option<Vec<u8>>,
    input: Option<serde_json::Value>,
    t_ms: Option<f64>,
}

struct EventLine {
    line: usize,
    seq: Option<f64>,
    t_ms: Option<f64>,
    bytes: Vec<u8>,
    /// Why the line is kept as it is, when it is not a record.
    damage: Option<String>,
}

/// The header's facts this reader uses (§1.2).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    captured_at: Option<String>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    redacted: Vec<String>,
}

pub(super) fn read(bytes: &[u8]) -> Result<PeerFile, String> {
    let mut header: Option<Header> = None;
    let mut connections: Vec<Connection> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // What concerns the whole file: said in every session.
    let mut file_notes = Vec::new();
    let mut connection = |id: &str, connections: &mut Vec<Connection>| -> usize {
        *index.entry(id.to_owned()).or_insert_with(|| {
            connections.push(Connection {
                id: id.to_owned(),
                ..Connection::default()
            });
            connections.len() - 1
        })
    };
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = i + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let record = match std::str::from_utf8(line)
            .map_err(|e| format!("not valid UTF-8 (byte {})", e.valid_up_to()))
            .and_then(|text| {
                serde_json::from_str::<HashMap<String, &RawValue>>(text)
                    .map_err(|e| format!("not a JSON object ({e})"))
            }) {
            Ok(record) => record,
            Err(why) => {
                // A cut event line still names its connection: it stays
                // one of its events.
                let text = String::from_utf8_lossy(line);
                match (text.contains("\"kind\":\"event\""), member(&text, "connId")) {
                    (true, Some(id)) => {
                        let at = connection(&id, &mut connections);
                        connections[at].events.push(EventLine {
                            line: number,
                            seq: member(&text, "seq").and_then(|s| s.parse().ok()),
                            t_ms: member(&text, "tMs").and_then(|s| s.parse().ok()),
                            bytes: line.to_vec(),
                            damage: Some(why),
                        });
                    }
                    _ => file_notes.push(said(
                        Code::PeerRecordDamaged,
                        format!(
                            "line {number} is not a record: {why}: {}",
                            excerpt(&text, 120)
                        ),
                    )),
                }
                continue;
            }
        };
        let text = |key: &str| {
            record
                .get(key)
                .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
        };
        let number_of = |key: &str| {
            record
                .get(key)
                .and_then(|raw| serde_json::from_str::<f64>(raw.get()).ok())
        };
        let kind = text("kind");
        let kind = match kind.as_deref() {
            Some(kind) if KNOWN_KINDS.contains(&kind) => kind,
            other => {
                let what = match other {
                    Some(kind) => format!("an unknown kind {kind:?}"),
                    None => "no string `kind`".to_owned(),
                };
                file_notes.push(said(
                    Code::PeerRecordDamaged,
                    format!(
                        "line {number} has {what} (the format has header, request, event and \
                         keepalive); not read: {}",
                        excerpt(&String::from_utf8_lossy(line), 120)
                    ),
                ));
                continue;
            }
        };
        if kind == "header" {
            match (&header, record_as::<Header>(line)) {
                (None, Some(read)) => header = Some(read),
                (None, None) => file_notes.push(said(
                    Code::PeerRecordDamaged,
                    format!(
                        "line {number}: a header whose members are not of their types; not read"
                    ),
                )),
                (Some(_), _) => file_notes.push(said(
                    Code::PeerRecordDamaged,
                    format!(
                        "line {number}: a second header (two exports joined?); the first one, \
                         line 1, is the file's"
                    ),
                )),
            }
            continue;
        }
        let Some(id) = text("connId") else {
            file_notes.push(said(
                Code::PeerRecordDamaged,
                format!(
                    "line {number}: a record of kind {kind} without a string `connId`; not read"
                ),
            ));
            continue;
        };
        let at = connection(&id, &mut connections);
        let conn = &mut connections[at];
        match kind {
            "request" => {
                if conn.request.is_some() {
                    conn.notes.push(said(
                        Code::PeerRecordDamaged,
                        format!("line {number}: a second request for {id}; the first one is kept"),
                    ));
                    continue;
                }
                // The body as the capture decoded it (§1.3): a JSON value,
                // or the body's text as a string, or null for none.
                let (body, input) = match record.get("input") {
                    None => (None, None),
                    Some(raw) if raw.get() == "null" => (None, None),
                    Some(raw) => match serde_json::from_str::<serde_json::Value>(raw.get()) {
                        Ok(serde_json::Value::String(text)) => (Some(text.into_bytes()), None),
                        Ok(value @ serde_json::Value::Object(_)) => {
                            (Some(raw.get().as_bytes().to_vec()), Some(value))
                        }
                        _ => (Some(raw.get().as_bytes().to_vec()), None),
                    },
                };
                conn.request = Some(Request {
                    method: text("method").unwrap_or_else(|| "GET".to_owned()),
                    url: text("url").unwrap_or_default(),
                    body,
                    input,
                    t_ms: number_of("tMs"),
                });
            }
            "keepalive" => conn.num_keepalives += 1,
            _ => {
                let Some(event) = record.get("event") else {
                    conn.notes.push(said(
                        Code::PeerRecordDamaged,
                        format!(
                            "line {number}: an event record without `event`; not read: {}",
                            excerpt(&String::from_utf8_lossy(line), 120)
                        ),
                    ));
                    continue;
                };
                // A payload that did not parse is kept as its text, in a
                // JSON string (§1.4): the event is that text.
                let bytes = match serde_json::from_str::<String>(event.get()) {
                    Ok(text) if event.get().starts_with('"') => text.into_bytes(),
                    _ => event.get().as_bytes().to_vec(),
                };
                conn.events.push(EventLine {
                    line: number,
                    seq: number_of("seq"),
                    t_ms: number_of("tMs"),
                    bytes,
                    damage: None,
                });
            }
        }
    }
    if connections.is_empty() {
        return Err(format!(
            "an AG-UI DevTools session with no connection (no request or event record{})",
            match file_notes.len() {
                0 => String::new(),
                1 => "; 1 line could not be read".to_owned(),
                n => format!("; {n} lines could not be read"),
            }
        ));
    }
    let header = header.unwrap_or_else(|| {
        file_notes.insert(
            0,
            said(
                Code::PeerRecordDamaged,
                "the file has no header record (cut at its start?); read without one",
            ),
        );
        Header::default()
    });
    if header.transport.as_deref() == Some("binary") {
        file_notes.push(said(
            Code::PeerFinding,
            "the header's transport is binary: the tool saw a protobuf response, which it labels \
             but does not record, so its frames are not in the file",
        ));
    }
    let started_at = header
        .captured_at
        .as_deref()
        .and_then(|date| date.trim().parse::<jiff::Timestamp>().ok())
        .map(jiff::Timestamp::as_millisecond);
    let sessions = connections
        .into_iter()
        .map(|conn| session_of(conn, &header, started_at, &file_notes))
        .collect();
    Ok(PeerFile {
        format: PeerFormat::DevTools,
        writer: header.tool.clone(),
        sessions,
    })
}

/// A whole line read as `T`, if its members are of their types.
fn record_as<T: for<'de> Deserialize<'de>>(line: &[u8]) -> Option<T> {
    serde_json::from_slice(line).ok()
}

/// The value of `"key":` in a line that is not JSON (a cut one): a
/// string's text, or a number's digits.
fn member(text: &str, key: &str) -> Option<String> {
    let at = text.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = text[at..].trim_start();
    if let Some(rest) = rest.strip_prefix('"') {
        return rest.find('"').map(|end| rest[..end].to_owned());
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+')))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_owned())
}

fn session_of(
    mut conn: Connection,
    header: &Header,
    started_at_unix_ms: Option<i64>,
    file_notes: &[crate::diagnostic::Diagnostic],
) -> PeerSession {
    // In `seq` order (§1.6); a line without one keeps its place after the
    // one before.
    let mut last = f64::NEG_INFINITY;
    let mut keyed: Vec<(f64, EventLine)> = conn
        .events
        .drain(..)
        .map(|event| {
            if let Some(seq) = event.seq.filter(|s| s.is_finite()) {
                last = seq;
            }
            (last, event)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut diagnostics = file_notes.to_vec();
    diagnostics.append(&mut conn.notes);
    let mut events = EventLog::with_capacity(0, keyed.len());
    let mut times = Vec::with_capacity(keyed.len());
    for (_, event) in &keyed {
        let seq = events.push(&event.bytes);
        times.push(event.t_ms);
        if let Some(why) = &event.damage {
            diagnostics.push(said(
                Code::PeerRecordDamaged,
                format!(
                    "line {}: an event record that is {why}; kept as event {seq} as it is \
                     (cut off?), which the replay reports",
                    event.line
                ),
            ));
        }
    }
    if conn.request.is_none() {
        diagnostics.push(said(
            Code::PeerFinding,
            format!(
                "{} has no request record: its events came with no run input (an orphaned \
                 connection)",
                conn.id
            ),
        ));
    }
    // `tMs` is milliseconds on the page's clock; measured from the request
    // when there is one, else from the first event (§1.7).
    let base = conn
        .request
        .as_ref()
        .and_then(|r| r.t_ms)
        .or_else(|| times.iter().flatten().copied().next())
        .unwrap_or(0.0);
    let arrival_nanos = arrivals_from_millis(&times, base);
    let (request, run_input) = match conn.request {
        Some(request) => (
            Some(HttpRequest {
                method: request.method,
                url: request.url,
                headers: Vec::new(),
                body: request.body,
            }),
            request.input,
        ),
        None => (None, None),
    };
    let mut session = PeerSession {
        label: conn.id,
        request,
        status: None,
        run_input,
        started_at_unix_ms,
        events,
        arrival_nanos: Some(arrival_nanos),
        diagnostics,
    };
    // `header.redacted` is the file's own statement of what was replaced
    // (§1.8): said even where no value of this session is a mark.
    if let Some(diagnostic) =
        super::redaction_diagnostic(&session, &header.redacted, header.tool.as_deref())
    {
        session.diagnostics.push(diagnostic);
    }
    session
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(session: &PeerSession) -> Vec<String> {
        session
            .events
            .iter()
            .map(|(_, raw)| String::from_utf8_lossy(raw).into_owned())
            .collect()
    }

    #[test]
    fn connections_become_sessions_in_seq_order_with_their_times() {
        let file = read(
            br#"{"kind":"header","schemaVersion":1,"tool":"t@1","capturedAt":"2026-08-15T09:00:00.000Z","url":"u","transport":"sse","redacted":[]}
{"kind":"request","connId":"c1","tMs":100,"method":"POST","url":"/run","input":{"threadId":"t","runId":"r"}}
{"kind":"event","connId":"c2","seq":3,"tMs":7,"event":{"type":"B"}}
{"kind":"event","connId":"c1","seq":2,"tMs":112.5,"event":{"type":"A2"}}
{"kind":"keepalive","connId":"c1","seq":4,"tMs":120,"comment":""}
{"kind":"event","connId":"c1","seq":1,"tMs":110,"event":{"type":"A1"}}
{"kind":"event","connId":"c1","seq":5,"tMs":130,"event":"data that did not parse"}
"#,
        )
        .expect("a session");
        assert_eq!(file.writer.as_deref(), Some("t@1"));
        assert_eq!(file.sessions.len(), 2);
        let c1 = &file.sessions[0];
        assert_eq!(c1.label, "c1");
        assert_eq!(
            texts(c1),
            [
                r#"{"type":"A1"}"#,
                r#"{"type":"A2"}"#,
                "data that did not parse"
            ]
        );
        assert_eq!(
            c1.arrival_nanos.as_deref(),
            Some(&[10_000_000, 12_500_000, 30_000_000][..])
        );
        assert_eq!(
            c1.run_input.as_ref().map(|i| i["runId"].clone()),
            Some("r".into())
        );
        assert_eq!(c1.started_at_unix_ms, Some(1_786_784_400_000));
        assert!(c1.diagnostics.is_empty(), "{:?}", c1.diagnostics);
        let c2 = &file.sessions[1];
        assert_eq!(texts(c2), [r#"{"type":"B"}"#]);
        assert_eq!(c2.arrival_nanos.as_deref(), Some(&[0][..]));
        assert_eq!(c2.run_input, None);
        assert_eq!(c2.diagnostics[0].code, Code::PeerFinding);
    }

    #[test]
    fn damaged_lines_are_said_and_cut_events_kept() {
        let file = read(
            b"{\"kind\":\"header\",\"schemaVersion\":1}\n\
              not json at all\n\
              {\"kind\":\"mystery\",\"connId\":\"c1\"}\n\
              {\"kind\":\"event\",\"seq\":9,\"event\":{\"type\":\"X\"}}\n\
              {\"kind\":\"event\",\"connId\":\"c1\",\"seq\":1,\"tMs\":1,\"event\":{\"type\":\"RUN_STARTED\"}}\n\
              {\"kind\":\"event\",\"connId\":\"c1\",\"seq\":2,\"tMs\":2,\"event\":{\"type\":\"TEXT_MES\n\
              {\"kind\":\"header\",\"schemaVersion\":1}\n",
        )
        .expect("a session");
        let session = &file.sessions[0];
        assert_eq!(session.events.len(), 2);
        assert!(texts(session)[1].ends_with("{\"type\":\"TEXT_MES"));
        let messages: Vec<&str> = session
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::PeerRecordDamaged)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(messages.len(), 5, "{messages:?}");
        assert!(messages[0].starts_with("line 2 is not a record: not a JSON object"));
        assert!(messages[1].starts_with("line 3 has an unknown kind \"mystery\""));
        assert!(
            messages[2].starts_with("line 4: a record of kind event without a string `connId`")
        );
        assert!(messages[3].starts_with("line 7: a second header"));
        assert!(messages[4].starts_with("line 6: an event record that is not a JSON object"));
        assert!(messages[4].contains("kept as event 2"));
    }

    #[test]
    fn a_file_without_connections_is_refused() {
        let err = read(b"{\"kind\":\"header\"}\nnope\n").expect_err("no connection");
        assert_eq!(
            err,
            "an AG-UI DevTools session with no connection (no request or event record; 1 line could not be read)"
        );
    }
}
