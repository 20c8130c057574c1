//! HAR files: the HTTP archives a browser's DevTools export (HAR 1.2,
//! `{"log": {"entries": [...]}}`). An agent's AG-UI stream is one response
//! among the page's requests; this reader keeps every exchange whose
//! response is an event stream, with the request that opened it, and skips
//! the rest.
//!
//! Entries are read one at a time: an entry that is not an event stream is
//! skipped however it is written (HAR exporters differ in the details), and
//! an event-stream entry that cannot be read is an error naming its index in
//! `log.entries`.

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::{HttpRequest, HttpResponse, strip_bom};

/// One recorded HTTP exchange whose response is an event stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarExchange {
    /// When the request started (`startedDateTime`), in milliseconds since
    /// the Unix epoch; `None` when the entry has no date or it is not an
    /// RFC 3339 / ISO 8601 date-time with an offset.
    pub started_at_unix_ms: Option<i64>,
    /// The request that opened the stream; its body is `postData.text`
    /// (decoded if the exporter marked it base64), `None` without one.
    pub request: HttpRequest,
    /// The response's status and headers.
    pub response: HttpResponse,
    /// The response body: the SSE bytes, base64-decoded when the HAR says
    /// `"encoding": "base64"`. Empty when the exporter kept no body.
    pub body: Vec<u8>,
}

/// The error when a HAR file holds entries but none is an event stream.
const NO_STREAM: &str = "no text/event-stream response in this HAR file";

/// Whether the bytes look like a HAR file: a JSON object with a `log`
/// member that has an `entries` array. Nothing is kept while checking; the
/// caller may also decide by a `.har` extension alone.
pub fn is_har(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[expect(dead_code, reason = "only its presence and shape matter")]
        log: ProbeLog,
    }
    #[derive(Deserialize)]
    struct ProbeLog {
        #[expect(dead_code, reason = "only its presence and shape matter")]
        entries: Vec<IgnoredAny>,
    }
    // An object: serde would also read a struct from an array (`[[[]]]`).
    is_object_text(strip_bom(bytes)) && serde_json::from_slice::<Probe>(strip_bom(bytes)).is_ok()
}

/// Whether the first byte after white space opens an object.
fn is_object_text(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

/// Reads every event-stream exchange of a HAR file, in the file's order.
///
/// An entry is an event stream when its `response.content.mimeType` is
/// `text/event-stream` (any case, parameters allowed), or, when the
/// exporter left that empty, when its `Content-Type` response header is.
/// Other entries are skipped.
///
/// # Errors
///
/// A message in plain words when the bytes are not JSON, not a HAR file (no
/// `log.entries` array), hold no event-stream entry, or when an event-stream
/// entry cannot be read (`log.entries[N]: ...`: a missing method, url or
/// status, a body whose base64 is invalid, or an `encoding` other than
/// base64).
pub fn read_har(bytes: &[u8]) -> Result<Vec<HarExchange>, String> {
    let body = strip_bom(bytes);
    let text = std::str::from_utf8(body).map_err(|e| {
        let offset = bytes.len() - body.len() + e.valid_up_to();
        format!("not JSON: not valid UTF-8 (byte {offset})")
    })?;
    let document: Document<'_> = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            format!("not a HAR file: no `log.entries` array ({e})")
        } else {
            format!("not JSON ({e})")
        }
    })?;
    // serde reads a struct from an array too: `[[[]]]` is not a HAR file.
    if !is_object_text(text.as_bytes()) {
        return Err("not a HAR file: no `log.entries` array (a JSON array, not an object)".into());
    }
    let mut exchanges = Vec::new();
    for (index, raw) in document.log.entries.into_iter().enumerate() {
        if is_event_stream_entry(raw) {
            let exchange = read_entry(raw).map_err(|e| format!("log.entries[{index}]: {e}"))?;
            exchanges.push(exchange);
        }
    }
    if exchanges.is_empty() {
        return Err(NO_STREAM.into());
    }
    Ok(exchanges)
}

/// The document, with each entry kept as raw text to be read on its own.
#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow)]
    log: Log<'a>,
}

#[derive(Deserialize)]
struct Log<'a> {
    #[serde(borrow)]
    entries: Vec<&'a RawValue>,
}

/// Just enough of an entry to tell whether it is an event stream.
#[derive(Deserialize)]
struct ProbeEntry {
    response: ProbeResponse,
}

#[derive(Deserialize)]
struct ProbeResponse {
    #[serde(default)]
    content: Option<ProbeContent>,
    #[serde(default)]
    headers: Option<Vec<Header>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProbeContent {
    #[serde(default)]
    mime_type: Option<String>,
}

/// Whether an entry's response is an event stream; an entry too damaged to
/// say is not one.
fn is_event_stream_entry(raw: &RawValue) -> bool {
    let Ok(entry) = serde_json::from_str::<ProbeEntry>(raw.get()) else {
        return false;
    };
    let response = entry.response;
    match response.content.and_then(|c| c.mime_type) {
        Some(mime) if !mime.trim().is_empty() => is_event_stream(&mime),
        _ => response.headers.unwrap_or_default().iter().any(|header| {
            header.name.eq_ignore_ascii_case("content-type") && is_event_stream(&header.value)
        }),
    }
}

/// Whether a media type is `text/event-stream` or AG-UI's protobuf
/// encoding (issue 15.6), ignoring case and parameters.
fn is_event_stream(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("text/event-stream")
        || essence.eq_ignore_ascii_case(crate::protocol::proto::CONTENT_TYPE)
}

/// The parts of an entry this reader keeps. Members a HAR requires but this
/// reader does not use are not required; unknown members are ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    #[serde(default)]
    started_date_time: Option<String>,
    request: Request,
    response: Response,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default)]
    post_data: Option<Body>,
}

#[derive(Deserialize)]
struct Response {
    status: u16,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default)]
    content: Option<Body>,
}

#[derive(Deserialize)]
struct Header {
    name: String,
    value: String,
}

/// `postData` or `content`: a text, perhaps base64.
#[derive(Deserialize)]
struct Body {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
}

fn read_entry(raw: &RawValue) -> Result<HarExchange, String> {
    let entry: Entry = serde_json::from_str(raw.get()).map_err(|e| without_position(&e))?;
    let request_body = match entry.request.post_data {
        Some(Body {
            text: Some(text),
            encoding,
        }) => Some(decode(text, encoding.as_deref(), "request.postData")?),
        _ => None,
    };
    let body = match entry.response.content {
        Some(Body {
            text: Some(text),
            encoding,
        }) => decode(text, encoding.as_deref(), "response.content")?,
        _ => Vec::new(),
    };
    Ok(HarExchange {
        started_at_unix_ms: entry.started_date_time.as_deref().and_then(unix_ms),
        request: HttpRequest {
            method: entry.request.method,
            url: entry.request.url,
            headers: pairs(entry.request.headers),
            body: request_body,
        },
        response: HttpResponse {
            status: entry.response.status,
            headers: pairs(entry.response.headers),
        },
        body,
    })
}

fn pairs(headers: Vec<Header>) -> Vec<(String, String)> {
    headers.into_iter().map(|h| (h.name, h.value)).collect()
}

/// Standard base64, padded or not; white space (line wrapping) is removed
/// before decoding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A HAR text as bytes: as written, or base64-decoded.
fn decode(text: String, encoding: Option<&str>, what: &str) -> Result<Vec<u8>, String> {
    match encoding.map(str::trim) {
        None | Some("") => Ok(text.into_bytes()),
        Some(encoding) if encoding.eq_ignore_ascii_case("base64") => {
            let mut compact = text.into_bytes();
            compact.retain(|b| !b.is_ascii_whitespace());
            BASE64
                .decode(&compact)
                .map_err(|e| format!("invalid base64 in {what}.text ({e})"))
        }
        Some(other) => Err(format!("unsupported {what}.encoding {other:?}")),
    }
}

/// An RFC 3339 / ISO 8601 date-time with an offset, in Unix milliseconds.
fn unix_ms(date: &str) -> Option<i64> {
    date.trim()
        .parse::<jiff::Timestamp>()
        .ok()
        .map(jiff::Timestamp::as_millisecond)
}

/// A serde error without its position, which would be relative to the entry
/// rather than to the file.
fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&position) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::diagnostic::Code;
    use crate::input::{Format, read_bytes};
    use crate::replay::{Options, replay_log};

    const SAMPLE: &[u8] = include_bytes!("../../tests/samples/two-streams.har");

    fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A HAR with one entry per `(mimeType, text, encoding)` response.
    fn har_of(responses: &[(&str, &str, Option<&str>)]) -> Vec<u8> {
        let entries: Vec<_> = responses
            .iter()
            .map(|&(mime, text, encoding)| {
                let mut content = serde_json::json!({"size": text.len(), "mimeType": mime, "text": text});
                if let Some(encoding) = encoding {
                    content["encoding"] = encoding.into();
                }
                serde_json::json!({
                    "startedDateTime": "2026-01-02T03:04:05.678Z",
                    "request": {"method": "POST", "url": "https://x.test/agent", "httpVersion": "HTTP/1.1", "headers": []},
                    "response": {"status": 200, "statusText": "OK", "headers": [], "content": content},
                    "time": 1.0,
                    "timings": {"send": 0, "wait": 1, "receive": 0}
                })
            })
            .collect();
        serde_json::to_vec(&serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}}))
            .expect("serialisable")
    }

    #[test]
    fn the_sample_gives_its_two_streams_in_order() {
        assert!(is_har(SAMPLE));
        let exchanges = read_har(SAMPLE).expect("a HAR with two streams");
        assert_eq!(exchanges.len(), 2);

        for exchange in &exchanges {
            let request = &exchange.request;
            assert_eq!(request.method, "POST");
            assert_eq!(request.url, "https://app.example.com/agent");
            assert_eq!(
                header(&request.headers, "accept"),
                Some("text/event-stream")
            );
            assert_eq!(
                header(&request.headers, "content-type"),
                Some("application/json")
            );
            assert!(
                header(&request.headers, "authorization").is_some_and(|v| v.starts_with("Bearer "))
            );
            assert!(header(&request.headers, "cookie").is_some_and(|v| v.contains("session=")));
            assert_eq!(exchange.response.status, 200);
            assert_eq!(
                header(&exchange.response.headers, "content-type"),
                Some("text/event-stream; charset=utf-8")
            );
        }
        assert_eq!(exchanges[0].started_at_unix_ms, Some(1_773_480_413_120));
        // "2026-03-14T10:27:01.5+01:00": the offset and short fraction count.
        assert_eq!(exchanges[1].started_at_unix_ms, Some(1_773_480_421_500));

        let inputs: Vec<serde_json::Value> = exchanges
            .iter()
            .map(|e| {
                serde_json::from_slice(e.request.body.as_deref().expect("a run input"))
                    .expect("JSON")
            })
            .collect();
        assert_eq!(inputs[0]["runId"], "run-1");
        assert_eq!(inputs[1]["runId"], "run-2");
        for input in &inputs {
            assert_eq!(input["threadId"], "thread-42");
            for member in ["messages", "state", "tools", "context", "forwardedProps"] {
                assert!(input.get(member).is_some(), "{member}");
            }
        }
        assert_eq!(inputs[0]["messages"][0]["role"], "user");

        let streams: Vec<_> = exchanges
            .iter()
            .map(|e| read_bytes(&e.body, Path::new("x.sse")).expect("an SSE body"))
            .collect();
        assert!(
            streams
                .iter()
                .all(|s| s.format == Format::Sse && s.diagnostics.is_empty())
        );
        assert_eq!(streams[0].events.len(), 7);
        assert_eq!(streams[1].events.len(), 9);
        assert!(
            exchanges[1]
                .body
                .starts_with(b"data: {\"type\":\"RUN_STARTED\"")
        );

        // The first run replays clean; the second has one delta that fails.
        let codes = |log| -> Vec<Code> {
            replay_log(log, Options::default())
                .diagnostics()
                .iter()
                .map(|d| d.code)
                .collect()
        };
        assert_eq!(codes(&streams[0].events), []);
        assert_eq!(codes(&streams[1].events), [Code::PatchFailed]);
    }

    #[test]
    fn only_event_streams_are_kept() {
        let har = har_of(&[
            ("text/html", "<html></html>", None),
            ("TEXT/Event-Stream ; charset=UTF-8", "data: 1\n\n", None),
            ("text/event-streams", "data: 2\n\n", None),
            ("application/json", "{}", None),
            ("text/event-stream", "ZGF0YTogMwoK", Some("base64")),
        ]);
        let exchanges = read_har(&har).expect("two streams");
        let bodies: Vec<_> = exchanges.iter().map(|e| e.body.as_slice()).collect();
        assert_eq!(bodies, [&b"data: 1\n\n"[..], b"data: 3\n\n"]);
        assert_eq!(exchanges[0].started_at_unix_ms, Some(1_767_323_045_678));
        assert_eq!(exchanges[0].request.body, None);
    }

    #[test]
    fn an_empty_mime_type_falls_back_to_the_content_type_header() {
        let har = br#"{"log": {"entries": [{
            "request": {"method": "GET", "url": "https://x.test/events"},
            "response": {"status": 200,
                "headers": [{"name": "content-type", "value": "text/event-stream"}],
                "content": {"size": 0, "mimeType": ""}}
        }]}}"#;
        let exchanges = read_har(har).expect("one stream");
        assert_eq!(exchanges[0].request.method, "GET");
        assert_eq!(exchanges[0].started_at_unix_ms, None);
        assert_eq!(exchanges[0].body, b"");
    }

    #[test]
    fn base64_is_decoded_padded_or_not_and_bad_base64_names_the_entry() {
        let har = har_of(&[("text/event-stream", "ZGF0YTogMQ\n", Some("base64"))]);
        assert_eq!(read_har(&har).expect("unpadded")[0].body, b"data: 1");

        let har = har_of(&[
            ("text/html", "x", None),
            ("text/event-stream", "data: 1\n\n", None),
            ("text/event-stream", "%%% not base64 %%%", Some("base64")),
        ]);
        let err = read_har(&har).expect_err("bad base64");
        assert!(
            err.starts_with("log.entries[2]: invalid base64 in response.content.text"),
            "{err}"
        );

        let har = har_of(&[("text/event-stream", "data: 1", Some("gzip"))]);
        let err = read_har(&har).expect_err("unknown encoding");
        assert_eq!(
            err,
            "log.entries[0]: unsupported response.content.encoding \"gzip\""
        );
    }

    #[test]
    fn a_stream_entry_without_its_request_names_the_entry() {
        let har = br#"{"log": {"entries": [
            {"request": {"method": "GET", "url": "/"}, "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": ""}}},
            {"request": {"method": "POST"}, "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": ""}}}
        ]}}"#;
        assert_eq!(
            read_har(har).expect_err("no url"),
            "log.entries[1]: missing field `url`"
        );
    }

    #[test]
    fn what_is_not_a_har_is_said_plainly() {
        for (bytes, start) in [
            (&b"data: {}\n\n"[..], "not JSON ("),
            (b"{\"log\": {\"entries\": [", "not JSON ("),
            (b"\xff\xfe{}", "not JSON: not valid UTF-8 (byte 0)"),
            (
                br#"{"events": []}"#,
                "not a HAR file: no `log.entries` array (missing field `log`",
            ),
            (
                br#"{"log": {"entries": {}}}"#,
                "not a HAR file: no `log.entries` array (invalid type",
            ),
            (b"[1, 2]", "not a HAR file: no `log.entries` array ("),
        ] {
            let err = read_har(bytes).expect_err("not a HAR");
            assert!(err.starts_with(start), "{err}");
            assert!(!is_har(bytes));
        }
        for har in [
            &br#"{"log": {"entries": []}}"#[..],
            &har_of(&[("text/html", "<p>", None)]),
        ] {
            assert!(is_har(har));
            assert_eq!(read_har(har).expect_err("no stream"), NO_STREAM);
        }
        assert!(is_har(
            b"\xEF\xBB\xBF {\"log\": {\"version\": \"1.2\", \"entries\": []}}"
        ));
    }

    #[test]
    fn garbage_never_panics() {
        let deep = format!("{{\"log\": {{\"entries\": [{}]}}}}", "[".repeat(100_000));
        let mut inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"\xEF\xBB\xBF".to_vec(),
            b"{\"log\": null}".to_vec(),
            b"{\"log\": {\"entries\": [null, 1, \"x\", [], {}]}}".to_vec(),
            br#"{"log": {"entries": [{"response": {"content": {"mimeType": "text/event-stream"}}}]}}"#.to_vec(),
            br#"{"log": {"entries": [{"request": {"method": "GET", "url": "/"}, "response": {"status": 70000, "content": {"mimeType": "text/event-stream"}}}]}}"#.to_vec(),
            br#"{"log": {"entries": [{"startedDateTime": "yesterday", "request": {"method": "GET", "url": "/"}, "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": "=", "encoding": "base64"}}}]}}"#.to_vec(),
            deep.into_bytes(),
        ];
        // Prefixes of the sample, and the sample with one byte flipped.
        inputs.extend(
            (0..SAMPLE.len())
                .step_by(97)
                .map(|end| SAMPLE[..end].to_vec()),
        );
        inputs.extend((0..SAMPLE.len()).step_by(131).map(|i| {
            let mut bytes = SAMPLE.to_vec();
            bytes[i] ^= 0x5a;
            bytes
        }));
        for bytes in &inputs {
            let _ = is_har(bytes);
            let _ = read_har(bytes);
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let _ = is_har(&bytes);
            let _ = read_har(&bytes);
        }

        #[test]
        fn arbitrary_stream_entries_never_panic(
            mime in "(text/event-stream|TEXT/EVENT-STREAM;[ -~]{0,8}|[ -~]{0,12})",
            text in "[ -~\n]{0,64}",
            encoding in proptest::option::of("(base64|BASE64|[a-z0-9]{0,6})"),
            date in "[0-9T:.Z+-]{0,30}",
        ) {
            let mut har = serde_json::json!({"log": {"entries": [{
                "startedDateTime": date,
                "request": {"method": "POST", "url": "/agent"},
                "response": {"status": 200, "content": {"mimeType": mime, "text": text}}
            }]}});
            if let Some(encoding) = encoding {
                har["log"]["entries"][0]["response"]["content"]["encoding"] = encoding.into();
            }
            let bytes = serde_json::to_vec(&har).expect("serialisable");
            proptest::prop_assert!(is_har(&bytes));
            if let Ok(exchanges) = read_har(&bytes) {
                proptest::prop_assert_eq!(exchanges.len(), 1);
            }
        }
    }
}
