//! A direct capture: post a run input to an agent as the AG-UI HTTP client
//! does, and record the event stream that comes back.

use std::time::Instant;

use futures_util::StreamExt;

use super::body::{BodyHead, BodyKind, BodyRecorder, nanos_since};
use super::decode::BodyDecoder;
use super::writer_thread::{BeginError, WriterHandle};
use crate::input::{HttpRequest, HttpResponse};
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
    /// Whether the body was an event stream (SSE or protobuf).
    pub event_stream: bool,
    /// The status the session ended with: truncated when the stream was
    /// cut short (the agent died mid-stream, issue 38).
    pub ended: SessionStatus,
    /// Why the body ended before its end, when it did.
    pub cut_short: Option<String>,
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
            writer.event(session, reason.into_bytes(), nanos_since(started));
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
    let kind = BodyKind::of_content_type(
        response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    );
    let session = writer
        .begin(NewSession {
            source: format!("run: {shown_url}"),
            format: kind.format().into(),
            request: Some(recorded_request),
            response: Some(HttpResponse {
                status: status.as_u16(),
                headers: response_headers,
            }),
            ..NewSession::default()
        })
        .await?;
    let head = BodyHead {
        session,
        started,
        kind,
        decoder: BodyDecoder::for_encoding(
            response
                .headers()
                .get(reqwest::header::CONTENT_ENCODING)
                .and_then(|v| v.to_str().ok()),
        ),
        content_length: response.content_length(),
        status: status.as_u16(),
    };
    // The same recorder as the proxy's: the same framing, decoding, bound
    // and status (issue 16).
    let mut recorder = BodyRecorder::new(head, writer.clone(), on_event);
    let mut body = response.bytes_stream();
    let mut cut_short = None;
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(chunk) => recorder.chunk(&chunk),
            Err(error) => {
                cut_short = Some(crate::error::error_chain(&error.without_url()));
                break;
            }
        }
    }
    let ended = recorder
        .end(cut_short.is_none())
        .unwrap_or(SessionStatus::Truncated);
    let num_events = recorder.num_events();
    Ok(Captured {
        session,
        status: status.as_u16(),
        num_events,
        event_stream: matches!(kind, BodyKind::Sse | BodyKind::Protobuf),
        ended,
        cut_short,
    })
}
