//! A direct capture: post a run input to an agent as the AG-UI HTTP client
//! does, and record the event stream that comes back.

use std::time::Instant;

use futures_util::StreamExt;

use super::decode::BodyDecoder;
use super::writer_thread::{BeginError, WriterHandle};
use crate::input::{HttpRequest, HttpResponse, SseFramer};
use crate::store::{NewSession, SessionId, SessionStatus};

/// What to post.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The agent's URL.
    pub url: String,
    /// The run input (JSON).
    pub input: Vec<u8>,
    /// Extra headers (`-H 'Name: value'`).
    pub headers: Vec<(String, String)>,
    /// The URL as shown and as the session's source names it: without its
    /// secrets (see [`StoreRedaction::url`](crate::store::StoreRedaction::url)).
    pub shown_url: String,
}

/// Why a capture got no response to record.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// No HTTP client could be made.
    #[error("cannot make an HTTP client")]
    Client(#[source] reqwest::Error),
    /// The agent did not answer (the session is recorded as failed).
    #[error("no response from {url}")]
    NoResponse {
        /// The URL, without its secrets.
        url: String,
        /// Why (without the URL, which it would repeat with its secrets).
        #[source]
        source: reqwest::Error,
    },
    /// The session could not be begun in the recording.
    #[error(transparent)]
    Begin(#[from] BeginError),
}

/// How a capture ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// The session recorded.
    pub session: SessionId,
    /// The response status.
    pub status: u16,
    /// Events recorded.
    pub num_events: u64,
    /// Whether the body was an event stream.
    pub event_stream: bool,
}

/// Posts the run input and records the response; `on_event` sees each event
/// as it arrives (decoded, if the body has a `Content-Encoding`). Fails only
/// when no response came (the session is then recorded as failed with the
/// reason) or the recording cannot be written. What is stored of the URL and
/// the run input hides their secrets (the writer's
/// [`StoreRedaction`](crate::store::StoreRedaction); `shown_url` is the URL
/// as messages and the session's source show it).
pub async fn capture(
    request: &Capture,
    writer: &WriterHandle,
    on_event: &mut dyn FnMut(u64, &[u8]),
) -> Result<Captured, CaptureError> {
    let started = Instant::now();
    let shown_url = request.shown_url.clone();
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("accept".to_owned(), "text/event-stream".to_owned()),
    ];
    for (name, value) in &request.headers {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    let recorded_request = HttpRequest {
        method: "POST".into(),
        url: request.url.clone(),
        headers: headers.clone(),
        body: Some(request.input.clone()),
    };
    let client = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(10))
        .build()
        .map_err(CaptureError::Client)?;
    let mut post = client.post(&request.url).body(request.input.clone());
    for (name, value) in &headers {
        post = post.header(name.as_str(), value.as_str());
    }
    let response = match post.send().await {
        Ok(response) => response,
        Err(error) => {
            let error = CaptureError::NoResponse {
                url: shown_url.clone(),
                source: error.without_url(),
            };
            let reason = crate::error::error_chain(&error);
            let session = writer
                .begin(NewSession {
                    source: format!("run: {shown_url}"),
                    format: "http".into(),
                    request: Some(recorded_request),
                    ..NewSession::default()
                })
                .await?;
            writer.event(session, reason.into_bytes(), elapsed(started));
            writer.end(session, SessionStatus::Failed);
            return Err(error);
        }
    };
    let status = response.status();
    let response_headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let event_stream = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
    let session = writer
        .begin(NewSession {
            source: format!("run: {shown_url}"),
            format: if event_stream { "sse" } else { "http" }.into(),
            request: Some(recorded_request),
            response: Some(HttpResponse {
                status: status.as_u16(),
                headers: response_headers,
            }),
            ..NewSession::default()
        })
        .await?;
    let mut decoder = BodyDecoder::for_encoding(
        response
            .headers()
            .get(reqwest::header::CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let mut undecodable = false;
    let mut framer = SseFramer::with_max_frame_bytes(super::MAX_RECORDED_FRAME_BYTES);
    // What is recorded of a body that is not an event stream is bounded as
    // the proxy bounds it (issue 12); the rest is counted, not kept.
    let mut body_cut = false;
    let mut other_body = Vec::new();
    let mut num_events = 0u64;
    let mut body = response.bytes_stream();
    let mut broken = false;
    while let Some(chunk) = body.next().await {
        let Ok(chunk) = chunk else {
            broken = true;
            break;
        };
        // What is stored is decoded; a body that cannot be is stored as it
        // comes, after a note saying so, and the session fails.
        let pushed = match &mut decoder {
            Ok(decoder) => decoder
                .push(&chunk)
                .map_err(|e| crate::error::error_chain(&e)),
            Err(error) => Err(crate::error::error_chain(error)),
        };
        let chunk = match pushed {
            Ok(decoded) => decoded,
            Err(reason) => {
                if !undecodable {
                    undecodable = true;
                    let note = format!(
                        "agui-replay: the response body is stored as received, undecoded: {reason}"
                    );
                    num_events += 1;
                    on_event(num_events, note.as_bytes());
                    writer.event(session, note.into_bytes(), elapsed(started));
                }
                decoder = Ok(BodyDecoder::default());
                chunk.to_vec()
            }
        };
        if event_stream {
            let arrival = elapsed(started);
            framer.push(&chunk, &mut |event| {
                num_events += 1;
                on_event(num_events, event);
                writer.event(session, event.to_vec(), arrival);
            });
        } else {
            let room = super::proxy::MAX_RECORDED_BODY_BYTES.saturating_sub(other_body.len());
            body_cut |= chunk.len() > room;
            other_body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
    }
    let arrival = elapsed(started);
    if let Ok(decoder) = &mut decoder {
        match decoder.finish() {
            Ok(rest) if event_stream => framer.push(&rest, &mut |event| {
                num_events += 1;
                on_event(num_events, event);
                writer.event(session, event.to_vec(), arrival);
            }),
            Ok(rest) => {
                let room = super::proxy::MAX_RECORDED_BODY_BYTES.saturating_sub(other_body.len());
                body_cut |= rest.len() > room;
                other_body.extend_from_slice(&rest[..rest.len().min(room)]);
            }
            Err(_) => broken = true,
        }
    }
    if event_stream {
        framer.finish(&mut |event| {
            num_events += 1;
            on_event(num_events, event);
            writer.event(session, event.to_vec(), arrival);
        });
    } else if !other_body.is_empty() {
        num_events += 1;
        on_event(num_events, &other_body);
        writer.event(session, other_body, arrival);
    }
    let outcome = if !status.is_success() || undecodable {
        SessionStatus::Failed
    } else if broken || body_cut || framer.num_truncated() > 0 {
        SessionStatus::Truncated
    } else {
        SessionStatus::Complete
    };
    writer.end(session, outcome);
    Ok(Captured {
        session,
        status: status.as_u16(),
        num_events,
        event_stream,
    })
}

fn elapsed(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
}
