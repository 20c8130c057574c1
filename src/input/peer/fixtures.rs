//! aimock fixture files (FORMATS.md §1.10): `{fixtures: [{match, events,
//! delayMs?}]}`, the recordings the AG-UI DevTools' harness makes of real
//! runs. Each fixture is a session of its events; the file records no
//! time (its arrival times are the invented ones of an untimed stream),
//! no connection and no request (a `RUN_STARTED` may carry the `input`).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{PeerFile, PeerFormat, PeerSession, excerpt, said};
use crate::diagnostic::Code;
use crate::input::EventLog;
use crate::input::without_whitespace;

/// Whether the bytes are a fixture file: an object whose `fixtures` is an
/// array of objects with an `events` array, and nothing else (REC
/// `RecordedFixtureFile`), so that a large stream that is not one is told
/// apart at its first key.
pub(super) fn is_fixtures(body: &[u8]) -> bool {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        #[expect(dead_code, reason = "only its presence and shape matter")]
        fixtures: Vec<ProbeFixture>,
    }
    #[derive(Deserialize)]
    struct ProbeFixture {
        #[expect(dead_code, reason = "only its presence and shape matter")]
        events: Vec<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(body).is_ok()
}

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow)]
    fixtures: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fixture<'a> {
    #[serde(borrow)]
    events: Vec<&'a RawValue>,
    #[serde(rename = "match", default)]
    matched: Option<serde_json::Value>,
    #[serde(default)]
    delay_ms: Option<f64>,
}

pub(super) fn read(bytes: &[u8]) -> Result<PeerFile, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not valid UTF-8 (byte {})", e.valid_up_to()))?;
    let document: Document<'_> =
        serde_json::from_str(text).map_err(|e| format!("not an aimock fixture file ({e})"))?;
    let mut sessions = Vec::with_capacity(document.fixtures.len());
    for (i, raw) in document.fixtures.iter().enumerate() {
        let label = format!("fixture {}", i + 1);
        let mut diagnostics = Vec::new();
        let mut events = EventLog::default();
        match serde_json::from_str::<Fixture<'_>>(raw.get()) {
            Ok(fixture) => {
                for event in &fixture.events {
                    events.push(without_whitespace(event.get()).as_bytes());
                }
                let what = fixture
                    .matched
                    .as_ref()
                    .and_then(|m| m.as_object())
                    .map(|m| {
                        m.iter()
                            .map(|(key, value)| {
                                let value = match value {
                                    serde_json::Value::String(text) => format!("{text:?}"),
                                    other => other.to_string(),
                                };
                                format!("{key} {}", excerpt(&value, 80))
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .filter(|what| !what.is_empty());
                diagnostics.push(said(
                    Code::PeerFinding,
                    format!(
                        "an aimock fixture{}{}: it records no arrival time, so its events are \
                         spaced as an untimed stream's",
                        what.map(|w| format!(" answering {w}")).unwrap_or_default(),
                        fixture
                            .delay_ms
                            .map(|ms| format!(", played {ms} ms apart"))
                            .unwrap_or_default()
                    ),
                ));
            }
            Err(e) => diagnostics.push(said(
                Code::PeerRecordDamaged,
                format!("fixtures[{i}] cannot be read ({e}); it has no event here"),
            )),
        }
        sessions.push(PeerSession {
            label,
            request: None,
            status: None,
            run_input: None,
            started_at_unix_ms: None,
            events,
            arrival_nanos: None,
            diagnostics,
        });
    }
    if sessions.is_empty() {
        return Err("an aimock fixture file with no fixture".to_owned());
    }
    Ok(PeerFile {
        format: PeerFormat::Fixtures,
        writer: None,
        sessions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fixture_is_a_session_of_its_events() {
        let file = read(
            br#"{"fixtures": [
                {"match": {"message": "hi"}, "events": [
                    {"type": "RUN_STARTED", "threadId": "t"},
                    {"type": "RUN_FINISHED"}
                ]},
                {"events": 5}
            ]}"#,
        )
        .expect("a fixture file");
        assert_eq!(file.sessions.len(), 2);
        let texts: Vec<&[u8]> = file.sessions[0].events.iter().map(|(_, raw)| raw).collect();
        assert_eq!(
            texts,
            [
                &br#"{"type":"RUN_STARTED","threadId":"t"}"#[..],
                br#"{"type":"RUN_FINISHED"}"#
            ]
        );
        assert!(
            file.sessions[0].diagnostics[0]
                .message
                .contains("answering message \"hi\"")
        );
        assert_eq!(file.sessions[1].events.len(), 0);
        assert_eq!(
            file.sessions[1].diagnostics[0].code,
            Code::PeerRecordDamaged
        );
    }
}
