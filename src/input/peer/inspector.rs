//! agui-inspector session exports (FORMATS.md §2): one JSON document,
//! `{version: 0, session: {id, exchanges, runs, frames, findings,
//! derived}}`. Each exchange (one HTTP request, §2.2) is a session; its
//! `data` frames (§2.3) are its events, their `data` as received (for a
//! protobuf exchange, the event the inspector decoded from its `bytes`);
//! their `offsetMs` the arrival times; the run's `input` (§2.4) the run
//! input. Control frames (SSE comments) are not events, as an SSE body's
//! comments are not; `derived` entries are the inspector's own work and
//! never events (§2.6); its findings (§2.5) and the client's outcome are
//! said as `peer.finding`.
//!
//! Records are read one at a time: one that cannot be read is said, with
//! its id or position, and the rest is read.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{PeerFile, PeerFormat, PeerSession, arrivals_from_millis, excerpt, said};
use crate::diagnostic::{Code, Diagnostic};
use crate::input::without_whitespace;
use crate::input::{EventLog, HttpRequest};

/// Whether the bytes are an inspector export: an object with `version` and
/// a `session` holding `exchanges` and `frames` arrays, and nothing else
/// (§2.1: an extra top-level key is refused), so that a large stream that
/// is not one is told apart at its first key.
pub(super) fn is_inspector(body: &[u8]) -> bool {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        #[expect(dead_code, reason = "only its presence matters")]
        version: serde::de::IgnoredAny,
        #[expect(dead_code, reason = "only its presence and shape matter")]
        session: ProbeSession,
    }
    #[derive(Deserialize)]
    struct ProbeSession {
        #[expect(dead_code, reason = "only its presence and shape matter")]
        exchanges: Vec<serde::de::IgnoredAny>,
        #[expect(dead_code, reason = "only its presence and shape matter")]
        frames: Vec<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(body).is_ok()
}

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(borrow)]
    session: Collections<'a>,
}

#[derive(Deserialize)]
struct Collections<'a> {
    #[serde(borrow)]
    exchanges: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    runs: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    frames: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    findings: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Exchange<'a> {
    id: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    run_id: Option<String>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    request_body: Option<String>,
    #[serde(borrow, default)]
    request_body_json: Option<&'a RawValue>,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    response_body: Option<String>,
    #[serde(default)]
    started_at: Option<f64>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    transport_error: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frame<'a> {
    id: String,
    exchange_id: String,
    #[serde(default)]
    index: Option<u64>,
    classification: String,
    #[serde(default)]
    envelope: Option<String>,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    offset_ms: Option<f64>,
    #[serde(default)]
    bytes: Option<String>,
    #[serde(borrow, default)]
    parsed: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    id: String,
    #[serde(default)]
    exchange_id: Option<String>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    outcome: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Finding {
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    subject: Option<Subject>,
}

#[derive(Deserialize)]
struct Subject {
    #[serde(rename = "type")]
    kind: String,
    id: String,
}

/// A record of `collection` read as `T`, or what is wrong with it.
fn each<'a, T: Deserialize<'a>>(
    raws: &[&'a RawValue],
    collection: &str,
    notes: &mut Vec<Diagnostic>,
) -> Vec<T> {
    raws.iter()
        .enumerate()
        .filter_map(|(i, raw)| match serde_json::from_str::<T>(raw.get()) {
            Ok(record) => Some(record),
            Err(e) => {
                notes.push(said(
                    Code::PeerRecordDamaged,
                    format!("session.{collection}[{i}] cannot be read ({e}); not read"),
                ));
                None
            }
        })
        .collect()
}

pub(super) fn read(bytes: &[u8]) -> Result<PeerFile, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not valid UTF-8 (byte {})", e.valid_up_to()))?;
    let document: Document<'_> = serde_json::from_str(text)
        .map_err(|e| format!("not an agui-inspector session export ({e})"))?;
    let mut file_notes = Vec::new();
    match document.version.map(RawValue::get) {
        Some("0") => {}
        other => file_notes.push(said(
            Code::PeerRecordDamaged,
            format!(
                "the export's version is {}, not the 0 this reader knows (a newer inspector?); \
                 read as version 0",
                other.unwrap_or("missing")
            ),
        )),
    }
    let collections = &document.session;
    let exchanges: Vec<Exchange<'_>> = each(&collections.exchanges, "exchanges", &mut file_notes);
    let runs: Vec<Run<'_>> = each(&collections.runs, "runs", &mut file_notes);
    let frames: Vec<Frame<'_>> = each(&collections.frames, "frames", &mut file_notes);
    let findings: Vec<Finding> = each(&collections.findings, "findings", &mut file_notes);
    if exchanges.is_empty() {
        return Err("an agui-inspector session export with no exchange".to_owned());
    }
    let at: HashMap<&str, usize> = exchanges
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let mut notes: Vec<Vec<Diagnostic>> = vec![Vec::new(); exchanges.len()];
    // Frames by exchange, in `index` order (a frame without one keeps its
    // place in `frames`).
    let mut frames_of: Vec<Vec<&Frame<'_>>> = vec![Vec::new(); exchanges.len()];
    for frame in &frames {
        match at.get(frame.exchange_id.as_str()) {
            Some(&i) => frames_of[i].push(frame),
            None => file_notes.push(said(
                Code::PeerRecordDamaged,
                format!(
                    "frame {} belongs to exchange {}, which the file does not have; not read",
                    frame.id, frame.exchange_id
                ),
            )),
        }
    }
    for list in &mut frames_of {
        list.sort_by_key(|f| f.index.unwrap_or(u64::MAX));
    }
    // Where each frame's event is: the exchange and the event's seq.
    let mut seq_of_frame: HashMap<&str, (usize, u64)> = HashMap::new();
    let mut sessions: Vec<PeerSession> = Vec::with_capacity(exchanges.len());
    for (i, exchange) in exchanges.iter().enumerate() {
        let mut events = EventLog::with_capacity(0, frames_of[i].len());
        let mut times = Vec::new();
        for frame in &frames_of[i] {
            let event = match frame.classification.as_str() {
                "data" => match (&frame.bytes, frame.parsed, &frame.data) {
                    // A protobuf frame: the event the inspector decoded.
                    (Some(_), Some(parsed), _) => {
                        Some(without_whitespace(parsed.get()).into_bytes())
                    }
                    (Some(base64), None, _) => {
                        notes[i].push(said(
                            Code::PeerRecordDamaged,
                            format!(
                                "frame {}: protobuf bytes the inspector could not decode; kept \
                                 as event {} (its base64 text), which the replay reports",
                                frame.id,
                                events.len() + 1
                            ),
                        ));
                        Some(base64.clone().into_bytes())
                    }
                    (None, _, Some(data)) => Some(data.clone().into_bytes()),
                    (None, _, None) => {
                        notes[i].push(said(
                            Code::PeerRecordDamaged,
                            format!(
                                "frame {}: a data frame without `data`; its envelope is kept as \
                                 event {}",
                                frame.id,
                                events.len() + 1
                            ),
                        ));
                        Some(frame.envelope.clone().unwrap_or_default().into_bytes())
                    }
                },
                // SSE comments, blank lines, fields without data (§2.3).
                "control" => None,
                "partial" => {
                    notes[i].push(said(
                        Code::PeerFinding,
                        format!(
                            "frame {}: the stream ended inside this frame, which was never \
                             dispatched (not an event): {}",
                            frame.id,
                            excerpt(frame.envelope.as_deref().unwrap_or_default(), 120)
                        ),
                    ));
                    None
                }
                other => {
                    notes[i].push(said(
                        Code::PeerRecordDamaged,
                        format!(
                            "frame {}: an unknown classification {other:?} (the format has data, \
                             control and partial); not read",
                            frame.id
                        ),
                    ));
                    None
                }
            };
            if let Some(event) = event {
                let seq = events.push(&event);
                seq_of_frame.insert(frame.id.as_str(), (i, seq.get()));
                times.push(frame.offset_ms);
            }
        }
        if exchange
            .encoding
            .as_deref()
            .is_some_and(|e| e != "sse" && e != "protobuf")
        {
            notes[i].push(said(
                Code::PeerRecordDamaged,
                format!(
                    "exchange {}: an unknown encoding {:?}; its frames read as SSE",
                    exchange.id,
                    exchange.encoding.as_deref().unwrap_or_default()
                ),
            ));
        }
        let run = runs.iter().find(|run| {
            run.exchange_id.as_deref() == Some(exchange.id.as_str())
                || exchange.run_id.as_deref() == Some(run.id.as_str())
        });
        let object = |raw: Option<&RawValue>| {
            raw.and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
                .filter(serde_json::Value::is_object)
        };
        let run_input =
            object(run.and_then(|run| run.input)).or_else(|| object(exchange.request_body_json));
        let body = exchange
            .request_body
            .clone()
            .map(String::into_bytes)
            .or_else(|| {
                exchange
                    .request_body_json
                    .map(|raw| without_whitespace(raw.get()).into_bytes())
            });
        if let Some(outcome) = run.and_then(|run| run.outcome.as_ref()) {
            notes[i].push(said(
                Code::PeerFinding,
                format!(
                    "agui-inspector's protocol client saw the run end: {}",
                    outcome_words(outcome)
                ),
            ));
        }
        if let Some(error) = &exchange.transport_error {
            notes[i].push(said(
                Code::PeerFinding,
                format!("the transport failed: {}", excerpt(error, 200)),
            ));
        }
        if let Some(response) = &exchange.response_body {
            notes[i].push(said(
                Code::PeerFinding,
                format!(
                    "the answer{} was not a stream: {}",
                    exchange
                        .status
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default(),
                    excerpt(response, 200)
                ),
            ));
        }
        let kind = exchange.kind.as_deref().unwrap_or("exchange");
        let transport = exchange
            .transport
            .as_deref()
            .filter(|t| *t != "completed")
            .map(|t| format!(", {t}"))
            .unwrap_or_default();
        sessions.push(PeerSession {
            label: format!("{} ({kind}{transport})", exchange.id),
            request: Some(HttpRequest {
                method: exchange.method.clone().unwrap_or_else(|| "POST".to_owned()),
                url: exchange.path.clone().unwrap_or_default(),
                headers: Vec::new(),
                body,
            }),
            status: exchange.status,
            run_input,
            started_at_unix_ms: exchange
                .started_at
                .filter(|t| t.is_finite())
                .map(|t| t as i64),
            arrival_nanos: Some(arrivals_from_millis(&times, 0.0)),
            events,
            diagnostics: Vec::new(),
        });
    }
    // The inspector's findings, said of the exchange they concern.
    for finding in &findings {
        let subject = finding.subject.as_ref();
        let place = subject.and_then(|s| match s.kind.as_str() {
            "frame" => seq_of_frame
                .get(s.id.as_str())
                .map(|&(i, seq)| (i, format!(" (frame {}, event {seq})", s.id)))
                .or_else(|| {
                    frames
                        .iter()
                        .find(|f| f.id == s.id)
                        .and_then(|f| at.get(f.exchange_id.as_str()))
                        .map(|&i| (i, format!(" (frame {})", s.id)))
                }),
            "run" => runs
                .iter()
                .find(|r| r.id == s.id)
                .and_then(|r| r.exchange_id.as_deref())
                .and_then(|id| at.get(id))
                .map(|&i| (i, format!(" (run {})", s.id))),
            _ => at.get(s.id.as_str()).map(|&i| (i, String::new())),
        });
        let rule = finding
            .rule
            .as_deref()
            .or(finding.kind.as_deref())
            .unwrap_or("finding");
        let message = |at: &str| {
            format!(
                "agui-inspector found {rule}{at}: {}",
                excerpt(finding.message.as_deref().unwrap_or_default(), 200)
            )
        };
        match place {
            Some((i, at)) => notes[i].push(said(Code::PeerFinding, message(&at))),
            None => file_notes.push(said(Code::PeerFinding, message(""))),
        }
    }
    for (session, mut own) in sessions.iter_mut().zip(notes) {
        session.diagnostics = file_notes.clone();
        session.diagnostics.append(&mut own);
    }
    Ok(PeerFile {
        format: PeerFormat::Inspector,
        writer: None,
        sessions,
    })
}

/// `error UPSTREAM_503: label service unavailable`, `success`, `unknown (no
/// terminal event the client accepted)`.
fn outcome_words(outcome: &serde_json::Value) -> String {
    let kind = outcome["kind"].as_str().unwrap_or("not said");
    match kind {
        "unknown" => {
            "unknown (the stream ended with no terminal event the client accepted)".to_owned()
        }
        "error" => {
            let code = outcome["code"]
                .as_str()
                .map(|c| format!(" {c}"))
                .unwrap_or_default();
            let message = outcome["message"].as_str().unwrap_or_default();
            format!("error{code}: {}", excerpt(message, 200))
        }
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_frames_are_events_and_the_rest_is_said() {
        let file = read(
            br#"{"version": 0, "session": {"id": "s", "exchanges": [
                {"id": "exchange-1", "kind": "conversation", "runId": "run-1", "method": "POST", "path": "/agent",
                 "requestBody": "{\"threadId\":\"t\"}", "status": 200, "startedAt": 1000, "transport": "completed",
                 "frameIds": ["exchange-1:frame-0", "exchange-1:frame-1", "exchange-1:frame-2", "exchange-1:frame-3"]}],
              "runs": [{"id": "run-1", "exchangeId": "exchange-1", "input": {"threadId": "t", "runId": "r"}, "outcome": {"kind": "unknown"}}],
              "frames": [
                {"id": "exchange-1:frame-1", "exchangeId": "exchange-1", "index": 1, "classification": "control", "envelope": ": hi\n\n", "offsetMs": 3},
                {"id": "exchange-1:frame-0", "exchangeId": "exchange-1", "index": 0, "classification": "data", "envelope": "data: {\"type\":\"A\"}\n\n", "data": "{\"type\":\"A\"}", "offsetMs": 2.5},
                {"id": "exchange-1:frame-2", "exchangeId": "exchange-1", "index": 2, "classification": "data", "envelope": "data: {x\n\n", "data": "{x", "offsetMs": 4},
                {"id": "exchange-1:frame-3", "exchangeId": "exchange-1", "index": 3, "classification": "partial", "envelope": "data: {\"ty", "offsetMs": 5},
                {"id": "nowhere:frame-0", "exchangeId": "nowhere", "index": 0, "classification": "data"},
                {"broken": true}],
              "findings": [{"id": "f", "kind": "json", "rule": "json.invalid", "message": "Data is not valid JSON", "subject": {"type": "frame", "id": "exchange-1:frame-2"}}],
              "derived": [{"id": "d", "provenance": "derived", "value": {"type": "NOT_AN_EVENT"}}]}}"#,
        )
        .expect("an export");
        let session = &file.sessions[0];
        let texts: Vec<&[u8]> = session.events.iter().map(|(_, raw)| raw).collect();
        assert_eq!(texts, [&b"{\"type\":\"A\"}"[..], b"{x"]);
        assert_eq!(
            session.arrival_nanos.as_deref(),
            Some(&[2_500_000, 4_000_000][..])
        );
        assert_eq!(
            session.run_input.as_ref().map(|i| i["runId"].clone()),
            Some("r".into())
        );
        assert_eq!(
            session.request.as_ref().and_then(|r| r.body.as_deref()),
            Some(&b"{\"threadId\":\"t\"}"[..])
        );
        assert_eq!(session.started_at_unix_ms, Some(1000));
        let said: Vec<(Code, &str)> = session
            .diagnostics
            .iter()
            .map(|d| (d.code, d.message.as_str()))
            .collect();
        assert_eq!(said.len(), 5, "{said:?}");
        assert!(said[0].1.starts_with("session.frames[5] cannot be read"));
        assert!(
            said[1]
                .1
                .starts_with("frame nowhere:frame-0 belongs to exchange nowhere")
        );
        assert!(
            said[2]
                .1
                .starts_with("frame exchange-1:frame-3: the stream ended inside")
        );
        assert!(said[3].1.contains("saw the run end: unknown"));
        assert_eq!(
            said[4],
            (
                Code::PeerFinding,
                "agui-inspector found json.invalid (frame exchange-1:frame-2, event 2): Data is not valid JSON"
            )
        );
    }

    #[test]
    fn what_is_not_an_export_is_refused() {
        assert!(
            read(b"{")
                .expect_err("not JSON")
                .starts_with("not an agui-inspector session export")
        );
        assert_eq!(
            read(br#"{"version":0,"session":{"exchanges":[],"frames":[]}}"#).expect_err("empty"),
            "an agui-inspector session export with no exchange"
        );
    }
}
