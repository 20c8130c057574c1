//! The recording proxy: forwards every request to the agent and streams the
//! response back chunk by chunk, unbuffered and byte-identical, while the
//! writer thread records the exchange.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures_util::Stream;
use futures_util::stream::{BoxStream, StreamExt, TakeUntil};
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::body::{BodyHead, BodyKind, BodyRecorder, nanos_since};
use super::decode::BodyDecoder;
use super::writer_thread::WriterHandle;
use crate::input::{HttpRequest, HttpResponse};
use crate::store::{NewSession, SessionStatus};

/// The largest request body forwarded (run inputs are small JSON).
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// What the proxy forwards to, and where it records.
#[derive(Clone)]
pub struct ProxyState {
    upstream: String,
    /// Hides secrets in what the proxy shows and stores of URLs.
    redaction: crate::store::StoreRedaction,
    client: reqwest::Client,
    /// A client that keeps no connection (each request on a fresh one):
    /// for the one retry of a request the agent closed its kept-alive
    /// connection under (issue 38).
    fresh: reqwest::Client,
    writer: WriterHandle,
    shutdown: watch::Receiver<bool>,
}

impl ProxyState {
    /// Hides more query parameters in what the proxy shows (its messages);
    /// what it stores is hidden by the writer's own [`StoreRedaction`].
    ///
    /// [`StoreRedaction`]: crate::store::StoreRedaction
    pub fn with_redaction(mut self, redaction: crate::store::StoreRedaction) -> Self {
        self.redaction = redaction;
        self
    }

    /// A proxy to `upstream` (a base URL; request paths are appended).
    pub fn new(
        upstream: &str,
        writer: WriterHandle,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Self, reqwest::Error> {
        let builder = || {
            reqwest::Client::builder()
                // A proxy passes redirects on; it does not follow them.
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(std::time::Duration::from_secs(10))
        };
        let client = builder().build()?;
        let fresh = builder().pool_max_idle_per_host(0).build()?;
        Ok(Self {
            upstream: upstream.trim_end_matches('/').to_owned(),
            redaction: crate::store::StoreRedaction::default(),
            client,
            fresh,
            writer,
            shutdown,
        })
    }
}

/// Serves the proxy on `listener` until `shutdown` turns true: streams in
/// progress are then ended (their sessions marked truncated) and the server
/// returns.
pub async fn serve(listener: TcpListener, state: ProxyState) -> std::io::Result<()> {
    let mut shutdown = state.shutdown.clone();
    let app = Router::new().fallback(forward).with_state(Arc::new(state));
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        let _ = shutdown.wait_for(|stop| *stop).await;
    })
    .await
}

/// Headers that belong to one connection, not to the exchange.
fn is_hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection"
            | "keep-alive"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "proxy-connection"
    )
}

fn header_pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

fn body_kind(headers: &HeaderMap) -> BodyKind {
    BodyKind::of_content_type(
        headers
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
    )
}

async fn forward(State(state): State<Arc<ProxyState>>, request: Request) -> Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let url = format!("{}{path}", state.upstream);
    let body = match axum::body::to_bytes(body, MAX_REQUEST_BYTES).await {
        Ok(body) => body,
        Err(e) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("agui-replay proxy: cannot read the request body: {e}\n"),
            );
        }
    };
    let recorded_request = HttpRequest {
        method: parts.method.as_str().to_owned(),
        url: url.clone(),
        headers: header_pairs(&parts.headers),
        body: (!body.is_empty()).then(|| body.to_vec()),
    };
    let send = |client: &reqwest::Client| {
        let mut upstream = client.request(parts.method.clone(), &url);
        for (name, value) in &parts.headers {
            if !is_hop_by_hop(name)
                && name != axum::http::header::HOST
                && name != axum::http::header::CONTENT_LENGTH
            {
                upstream = upstream.header(name, value);
            }
        }
        upstream.body(body.clone()).send()
    };
    let mut result = send(&state.client).await;
    // A kept-alive connection the agent closed as the request went out
    // (after a response with a `Content-Length` and no `Connection:
    // close`): the request did not get an answer, and the client must not
    // get a 502 the agent did not send. The body is buffered, so it is
    // sent once more, on a fresh connection (issue 38).
    if let Err(error) = &result
        && closed_before_response(error)
    {
        result = send(&state.fresh).await;
    }
    let response = match result {
        Ok(response) => response,
        Err(error) => {
            // The message is stored and shown: the URL without its secrets
            // (issue 12), the error without the URL it would repeat.
            let shown = state.redaction.url(&url).0;
            let message = format!(
                "agui-replay proxy: the upstream {shown} is unreachable: {}\n",
                crate::error::error_chain(&error.without_url())
            );
            match state
                .writer
                .begin(NewSession {
                    source: "proxy".into(),
                    format: "http".into(),
                    request: Some(recorded_request),
                    response: Some(HttpResponse {
                        status: StatusCode::BAD_GATEWAY.as_u16(),
                        headers: vec![("content-type".into(), "text/plain; charset=utf-8".into())],
                    }),
                    ..NewSession::default()
                })
                .await
            {
                Ok(session) => {
                    state
                        .writer
                        .event(session, message.clone().into_bytes(), nanos_since(started));
                    state.writer.end(session, SessionStatus::Failed);
                }
                Err(error) => state.writer.report_failure(&error),
            }
            return plain(StatusCode::BAD_GATEWAY, message);
        }
    };
    let status = response.status();
    let headers = response.headers().clone();
    let kind = body_kind(&headers);
    let session = state
        .writer
        .begin(NewSession {
            source: "proxy".into(),
            format: kind.format().into(),
            request: Some(recorded_request),
            response: Some(HttpResponse {
                status: status.as_u16(),
                headers: header_pairs(&headers),
            }),
            ..NewSession::default()
        })
        .await;
    // The exchange is forwarded whatever happens to its recording; a
    // recording that fails is said, not dropped (issue 12).
    let session = match session {
        Ok(session) => Some(session),
        Err(error) => {
            state.writer.report_failure(&error);
            None
        }
    };
    let content_length = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let decoder = BodyDecoder::for_encoding(
        headers
            .get(axum::http::header::CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let mut builder = Response::builder().status(status);
    for (name, value) in &headers {
        if !is_hop_by_hop(name) {
            builder = builder.header(name, value);
        }
    }
    let mut shutdown = state.shutdown.clone();
    let stopped = async move {
        let _ = shutdown.wait_for(|stop| *stop).await;
    };
    let stopped: StopSignal = Box::pin(stopped);
    let body = RecordingBody {
        upstream: response.bytes_stream().boxed().take_until(stopped),
        recorder: session.map(|session| {
            let head = BodyHead {
                session,
                started,
                kind,
                decoder,
                content_length,
                status: status.as_u16(),
            };
            BodyRecorder::new(head, state.writer.clone(), ignore_event as EventSeen)
        }),
    };
    builder
        .body(Body::from_stream(body))
        .unwrap_or_else(|e| plain(StatusCode::BAD_GATEWAY, format!("agui-replay proxy: {e}\n")))
}

/// Whether an upstream request failed because its connection closed under
/// it before any response came: hyper's "connection closed before message
/// completed", a request cancelled unsent, or the connection reset or its
/// pipe broken. Not a connection that could not be made, nor a time-out.
fn closed_before_response(error: &reqwest::Error) -> bool {
    if error.is_connect() || error.is_timeout() || error.is_builder() || error.is_redirect() {
        return false;
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>()
            && (hyper.is_incomplete_message() || hyper.is_canceled())
        {
            return true;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            )
        {
            return true;
        }
        source = cause.source();
    }
    false
}

fn plain(status: StatusCode, message: String) -> Response {
    let mut response = Response::new(Body::from(message));
    *response.status_mut() = status;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The proxy does not watch events as they are recorded.
type EventSeen = fn(u64, &[u8]);

fn ignore_event(_: u64, _: &[u8]) {}

/// Resolves when the proxy is stopping.
type StopSignal = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The response body: the upstream's chunks, passed on as they come, until
/// the upstream ends or the proxy stops.
struct RecordingBody {
    upstream: TakeUntil<BoxStream<'static, reqwest::Result<Bytes>>, StopSignal>,
    recorder: Option<BodyRecorder<EventSeen>>,
}

impl Stream for RecordingBody {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.upstream.poll_next_unpin(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(chunk))) => {
                if let Some(recorder) = &mut self.recorder {
                    recorder.chunk(&chunk);
                }
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(Some(Err(error))) => {
                if let Some(recorder) = &mut self.recorder {
                    let _ = recorder.end(false);
                }
                Poll::Ready(Some(Err(std::io::Error::other(error))))
            }
            Poll::Ready(None) => {
                // The upstream finished, or the proxy is stopping (the stop
                // signal fired: `take_result` then holds its output).
                let complete = self.upstream.take_result().is_none();
                if let Some(recorder) = &mut self.recorder {
                    let _ = recorder.end(complete);
                }
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for RecordingBody {
    fn drop(&mut self) {
        // Dropping the upstream stream cancels the upstream request.
        if let Some(recorder) = &mut self.recorder {
            let _ = recorder.end(false);
        }
    }
}
