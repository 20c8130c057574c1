//! Recording live sessions: the proxy (in-process through the library, and
//! the real `agui-replay record` binary) and the direct capture
//! (`agui-replay run`), against an AG-UI agent served inside the test on
//! 127.0.0.1.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use agui_replay::record::PROTOBUF_CONTENT_TYPE;
use agui_replay::store::{Recording, SessionStatus};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use futures_util::StreamExt;
use futures_util::stream::{self, BoxStream};

use crate::common::agent::{Received, Server};
use crate::common::bin::{BIN, KillOnDrop, drain, lines_of, run_within as run_bin};
use crate::common::events::seq_codes;
use crate::common::proxy::{Proxy, client};
use crate::common::store::{only_session, raw_events};
use crate::common::{TempDir, json_out, manifest_path, p};

/// The pause the agent makes after the first frame of `/agent`.
const FIRST_PAUSE: Duration = Duration::from_millis(400);
/// The pause between the later frames of `/agent`.
const GAP: Duration = Duration::from_millis(50);
/// The bound of every wait in these tests.
const WAIT: Duration = Duration::from_secs(10);

const RUN_INPUT: &str = r#"{"threadId":"thread-7","runId":"run-7","state":{},"messages":[{"id":"u-1","role":"user","content":"search egui timeline"}],"tools":[],"context":[],"forwardedProps":{}}"#;

const ERROR_BODY: &str = r#"{"error":"invalid run input","detail":[{"loc":["body","threadId"],"msg":"field required"}]}"#;

fn sample_path() -> PathBuf {
    manifest_path("tests/samples/search-agent.sse")
}

fn sample_bytes() -> Vec<u8> {
    std::fs::read(sample_path()).expect("the sample SSE file")
}

/// The sample's SSE frames, each with its blank line.
fn sample_frames() -> Vec<Bytes> {
    let bytes = sample_bytes();
    let mut frames = Vec::new();
    let mut start = 0;
    while let Some(at) = bytes[start..].windows(2).position(|w| w == b"\n\n") {
        let end = start + at + 2;
        frames.push(Bytes::copy_from_slice(&bytes[start..end]));
        start = end;
    }
    assert_eq!(start, bytes.len(), "the sample ends with a blank line");
    assert!(frames.len() >= 10, "the sample has a dozen frames");
    frames
}

/// The data of an SSE frame `data: X\n\n` (the event the client sees).
fn frame_data(frame: &[u8]) -> Vec<u8> {
    frame
        .strip_prefix(b"data: ")
        .and_then(|rest| rest.strip_suffix(b"\n\n"))
        .expect("a one-line data frame")
        .to_vec()
}

/// The frames of the endless stream and of the stalled one.
fn numbered_frame(n: u64) -> Bytes {
    Bytes::from(format!(
        "data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"msg-1\",\"delta\":\"tick {n} \"}}\n\n"
    ))
}

/// The events of the protobuf body (issue 15.6).
fn proto_events() -> Vec<serde_json::Value> {
    vec![
        serde_json::json!({"type": "RUN_STARTED", "threadId": "thread-7", "runId": "run-7"}),
        serde_json::json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "\n\ndata: not sse\r\n"}),
        serde_json::json!({"type": "RUN_FINISHED", "threadId": "thread-7", "runId": "run-7"}),
    ]
}

/// The protobuf body, in chunks that cut frames anywhere (binary, with
/// bytes that would look like SSE framing if it were read as text).
fn proto_chunks() -> Vec<Bytes> {
    let body: Vec<u8> = proto_events()
        .iter()
        .flat_map(|e| agui_replay::protocol::proto::encode_event(e).expect("encodes"))
        .collect();
    let (a, rest) = body.split_at(7);
    let (b, c) = rest.split_at(rest.len() / 2);
    vec![
        Bytes::from(a.to_vec()),
        Bytes::from(b.to_vec()),
        Bytes::from(c.to_vec()),
    ]
}

// ---------------------------------------------------------------------------
// The agent
// ---------------------------------------------------------------------------

/// What the agent saw and did.
#[derive(Default)]
struct AgentLog {
    requests: Mutex<Vec<Received>>,
    /// When each frame of `/agent` was handed to the server.
    written: Mutex<Vec<Instant>>,
    /// Whether the endless stream was dropped (its client went away).
    endless_dropped: AtomicBool,
}

/// The in-test AG-UI agent.
struct Agent {
    server: Server,
    log: Arc<AgentLog>,
    frames: Vec<Bytes>,
}

#[derive(Clone)]
struct AgentState {
    log: Arc<AgentLog>,
    frames: Arc<Vec<Bytes>>,
}

impl Agent {
    async fn start() -> Self {
        let log = Arc::new(AgentLog::default());
        let frames = sample_frames();
        let state = AgentState {
            log: log.clone(),
            frames: Arc::new(frames.clone()),
        };
        let app = Router::new()
            .route("/agent", post(agent_stream))
            .route("/error", post(agent_error))
            .route("/big", post(agent_big))
            .route("/proto", post(agent_proto))
            .route("/endless", post(agent_endless))
            .route("/stall", post(agent_stall))
            .with_state(state);
        Self {
            server: Server::start(app).await,
            log,
            frames,
        }
    }

    fn url(&self) -> String {
        self.server.url()
    }

    fn requests(&self) -> Vec<Received> {
        self.log.requests.lock().unwrap().clone()
    }

    fn written(&self) -> Vec<Instant> {
        self.log.written.lock().unwrap().clone()
    }

    fn body(&self) -> Vec<u8> {
        self.frames.concat()
    }

    /// The time the agent spends pausing between the first and last frame.
    fn total_delay(&self) -> Duration {
        FIRST_PAUSE + GAP * u32::try_from(self.frames.len() - 2).unwrap()
    }
}

async fn note(log: &AgentLog, request: Request) {
    let received = Received::read(request).await;
    log.requests.lock().unwrap().push(received);
}

fn streaming(
    status: StatusCode,
    content_type: &str,
    body: BoxStream<'static, Result<Bytes, std::io::Error>>,
) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-agent", "in-test")
        .body(Body::from_stream(body))
        .unwrap()
}

/// The sample, a frame at a time: the first, a long pause, then the others
/// `GAP` apart.
async fn agent_stream(State(state): State<AgentState>, request: Request) -> Response {
    note(&state.log, request).await;
    let AgentState { log, frames } = state;
    let body = stream::unfold(0usize, move |i| {
        let (log, frames) = (log.clone(), frames.clone());
        async move {
            let frame = frames.get(i)?.clone();
            match i {
                0 => {}
                1 => tokio::time::sleep(FIRST_PAUSE).await,
                _ => tokio::time::sleep(GAP).await,
            }
            log.written.lock().unwrap().push(Instant::now());
            Some((Ok(frame), i + 1))
        }
    });
    streaming(StatusCode::OK, "text/event-stream", body.boxed())
}

async fn agent_error(State(state): State<AgentState>, request: Request) -> Response {
    note(&state.log, request).await;
    Response::builder()
        .status(StatusCode::UNPROCESSABLE_ENTITY)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(ERROR_BODY))
        .unwrap()
}

/// A JSON answer longer than what a recording keeps of a body that is not
/// an event stream (4 MiB), sent in chunks with no `Content-Length`.
const BIG_BODY_BYTES: usize = 5 * 1024 * 1024;

async fn agent_big(State(state): State<AgentState>, request: Request) -> Response {
    note(&state.log, request).await;
    let chunks = (0..BIG_BODY_BYTES / 65_536)
        .map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b' '; 65_536])));
    streaming(
        StatusCode::OK,
        "application/json",
        stream::iter(chunks).boxed(),
    )
}

async fn agent_proto(State(state): State<AgentState>, request: Request) -> Response {
    note(&state.log, request).await;
    let body = stream::iter(proto_chunks())
        .enumerate()
        .then(|(i, chunk)| async move {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(80)).await;
            }
            Ok(chunk)
        });
    streaming(StatusCode::OK, PROTOBUF_CONTENT_TYPE, body.boxed())
}

/// Sets the endless stream's flag when the stream is dropped.
struct DropFlag(Arc<AgentLog>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.endless_dropped.store(true, Ordering::SeqCst);
    }
}

/// A frame every `GAP`, forever.
async fn agent_endless(State(state): State<AgentState>, request: Request) -> Response {
    note(&state.log, request).await;
    let guard = DropFlag(state.log.clone());
    let body = stream::unfold((guard, 1u64), |(guard, n)| async move {
        if n > 1 {
            tokio::time::sleep(GAP).await;
        }
        Some((Ok(numbered_frame(n)), (guard, n + 1)))
    });
    streaming(StatusCode::OK, "text/event-stream", body.boxed())
}

/// The number of frames `/stall` sends before it stops sending (without
/// ending the response).
const STALL_FRAMES: u64 = 5;

async fn agent_stall(State(state): State<AgentState>, request: Request) -> Response {
    note(&state.log, request).await;
    let body = stream::iter(1..=STALL_FRAMES)
        .then(|n| async move {
            if n > 1 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(numbered_frame(n))
        })
        .chain(stream::pending());
    streaming(StatusCode::OK, "text/event-stream", body.boxed())
}

// ---------------------------------------------------------------------------
// The client side
// ---------------------------------------------------------------------------

/// A response body read chunk by chunk, each with the time it arrived.
struct ClientBody {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
    /// The time each prefix of the body arrived: (bytes so far, instant).
    arrivals: Vec<(usize, Instant)>,
}

impl ClientBody {
    /// When the client had the first `n` bytes.
    fn time_of_bytes(&self, n: usize) -> Instant {
        self.arrivals
            .iter()
            .find(|(len, _)| *len >= n)
            .map(|(_, at)| *at)
            .expect("that many bytes arrived")
    }
}

async fn read_all(response: reqwest::Response) -> ClientBody {
    let status = response.status();
    let headers = response.headers().clone();
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    let mut arrivals = Vec::new();
    let deadline = tokio::time::Instant::now() + WAIT;
    while let Some(chunk) = tokio::time::timeout_at(deadline, stream.next())
        .await
        .expect("the body ended in time")
    {
        body.extend_from_slice(&chunk.expect("a body chunk"));
        arrivals.push((body.len(), Instant::now()));
    }
    ClientBody {
        status,
        headers,
        body,
        arrivals,
    }
}

/// Reads from a body until it holds at least `n` bytes.
async fn read_at_least(
    stream: &mut BoxStream<'static, reqwest::Result<Bytes>>,
    n: usize,
) -> Vec<u8> {
    let mut body = Vec::new();
    let deadline = tokio::time::Instant::now() + WAIT;
    while body.len() < n {
        let chunk = tokio::time::timeout_at(deadline, stream.next())
            .await
            .expect("the bytes arrived in time")
            .expect("the body did not end")
            .expect("a body chunk");
        body.extend_from_slice(&chunk);
    }
    body
}

/// Sends a request and waits (bounded) for the response head.
async fn send(request: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(WAIT, request.send())
        .await
        .expect("the response head arrived in time")
        .expect("the proxy answers")
}

async fn post_run(url: &str) -> reqwest::Response {
    send(
        client()
            .post(url)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "text/event-stream")
            .body(RUN_INPUT),
    )
    .await
}

fn header_value<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// Waits (bounded) until `condition` holds.
async fn eventually(what: &str, within: Duration, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !condition() {
        assert!(Instant::now() < deadline, "{what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---------------------------------------------------------------------------
// 1–3: a normal stream through the proxy
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_client_receives_exactly_what_the_agent_sent() {
    let dir = TempDir::new("bytes");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;

    let received = read_all(post_run(&proxy.url("/agent")).await).await;
    assert_eq!(received.status, StatusCode::OK);
    assert_eq!(content_type(&received.headers), "text/event-stream");
    assert_eq!(
        received
            .headers
            .get("x-agent")
            .and_then(|v| v.to_str().ok()),
        Some("in-test"),
        "the agent's own headers pass through"
    );
    assert_eq!(agent.body(), sample_bytes());
    assert!(
        received.body == agent.body(),
        "the client's body differs from the agent's:\nclient: {:?}\nagent:  {:?}",
        String::from_utf8_lossy(&received.body),
        String::from_utf8_lossy(&agent.body())
    );
    proxy.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_first_event_reaches_the_client_before_the_agent_finishes() {
    let dir = TempDir::new("latency");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;

    let received = read_all(post_run(&proxy.url("/agent")).await).await;
    assert_eq!(received.body, agent.body());
    let first_frame_at = received.time_of_bytes(agent.frames[0].len());
    let written = agent.written();
    assert_eq!(written.len(), agent.frames.len());
    let last_written = *written.last().unwrap();
    // The agent waits FIRST_PAUSE after its first frame: a proxy that
    // streams has the first frame at the client long before the last one is
    // written; one that buffers has it only after.
    let margin = FIRST_PAUSE * 3 / 4;
    assert!(
        first_frame_at + margin < last_written,
        "the client had the first frame {:?} after the agent wrote its first, \
         and the agent wrote its last {:?} after its first: the proxy buffers",
        first_frame_at.saturating_duration_since(written[0]),
        last_written.saturating_duration_since(written[0]),
    );
    proxy.stop().await;
}

/// `agui-replay check FILE --format json [--session N]`: (seq, code) of every
/// diagnostic, and the number of events.
fn check_json(file: &Path, session: Option<i64>) -> (u64, Vec<(u64, String)>) {
    let mut args = vec![
        "check".to_owned(),
        p(file).to_owned(),
        "--format".into(),
        "json".into(),
    ];
    if let Some(session) = session {
        args.extend(["--session".to_owned(), session.to_string()]);
    }
    let output = run_bin(&args, WAIT);
    let value = json_out(&output);
    let diagnostics = seq_codes(&value);
    (value["events"].as_u64().expect("events"), diagnostics)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_recording_holds_the_exchange_as_it_happened() {
    let dir = TempDir::new("recording");
    let out = dir.join("rec.sqlite");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), out.clone()).await;

    let response = send(
        client()
            .post(proxy.url("/agent"))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "text/event-stream")
            .header(header::AUTHORIZATION, "Bearer sk-live-secret")
            .header(header::COOKIE, "session=abc123")
            .body(RUN_INPUT),
    )
    .await;
    let received = read_all(response).await;
    assert_eq!(received.body, agent.body());
    let recording = proxy.stop().await;

    // The agent received the real credentials.
    let requests = agent.requests();
    assert_eq!(requests.len(), 1);
    let at_agent = &requests[0];
    assert_eq!(at_agent.method, "POST");
    assert_eq!(at_agent.path, "/agent");
    assert_eq!(at_agent.body, RUN_INPUT.as_bytes());
    assert_eq!(
        at_agent.headers.get(header::AUTHORIZATION).unwrap(),
        "Bearer sk-live-secret"
    );
    assert_eq!(
        at_agent.headers.get(header::COOKIE).unwrap(),
        "session=abc123"
    );

    let session = only_session(&recording);
    let session_id = session.id;
    let session_status = session.status;
    assert_eq!(session.format, "sse");
    let request = session.request.as_ref().expect("the request is recorded");
    assert_eq!(request.method, "POST");
    assert_eq!(request.url, format!("{}/agent", agent.url()));
    assert_eq!(request.body.as_deref(), Some(RUN_INPUT.as_bytes()));
    assert_eq!(
        header_value(&request.headers, "authorization"),
        Some("[redacted]"),
        "headers: {:?}",
        request.headers
    );
    assert_eq!(
        header_value(&request.headers, "cookie"),
        Some("[redacted]"),
        "headers: {:?}",
        request.headers
    );
    assert_eq!(
        header_value(&request.headers, "content-type"),
        Some("application/json")
    );
    let response = session.response.as_ref().expect("the response is recorded");
    assert_eq!(response.status, 200);
    assert_eq!(
        header_value(&response.headers, "content-type"),
        Some("text/event-stream")
    );

    // Every event, as the agent sent it.
    let expected: Vec<Vec<u8>> = agent.frames.iter().map(|f| frame_data(f)).collect();
    assert_eq!(session.num_events, expected.len() as u64);
    let events = raw_events(&recording, session);
    assert!(
        events == expected,
        "recorded events differ:\n{:#?}",
        events
            .iter()
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect::<Vec<_>>()
    );

    // Arrival times: in order, and spread over the stream's duration.
    let arrivals = recording.arrival_nanos(session.id).expect("arrival times");
    assert_eq!(arrivals.len(), expected.len());
    assert!(
        arrivals.windows(2).all(|w| w[0] <= w[1]),
        "arrival times decrease: {arrivals:?}"
    );
    let spread = Duration::from_nanos(arrivals.last().unwrap() - arrivals[0]);
    let total = agent.total_delay();
    assert!(
        spread >= total * 4 / 5,
        "arrivals spread over {spread:?}, the agent paused {total:?} in all: {arrivals:?}"
    );
    let after_first = Duration::from_nanos(arrivals[1] - arrivals[0]);
    assert!(
        after_first >= FIRST_PAUSE * 3 / 4,
        "the second event arrived {after_first:?} after the first (the agent paused {FIRST_PAUSE:?})"
    );
    drop(recording);

    // Replaying the recording says what replaying the original says.
    let (recorded_events, recorded) = check_json(&out, Some(session_id.get()));
    let (original_events, original) = check_json(&sample_path(), None);
    assert_eq!(recorded_events, original_events);
    assert!(
        !original.is_empty(),
        "the sample has diagnostics to compare"
    );
    assert_eq!(recorded, original);

    // Checked last so that everything above is checked too.
    assert_eq!(
        session_status,
        SessionStatus::Complete,
        "a stream the agent ended normally is recorded complete"
    );
}

// ---------------------------------------------------------------------------
// 4–5: failures and other bodies
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dead_upstream_is_a_502_and_a_failed_session() {
    let dir = TempDir::new("dead");
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("address")
    };
    let upstream = format!("http://{dead}");
    let proxy = Proxy::start(&upstream, dir.join("rec.sqlite")).await;

    let received = read_all(post_run(&proxy.url("/agent")).await).await;
    assert_eq!(received.status, StatusCode::BAD_GATEWAY);
    let body = String::from_utf8_lossy(&received.body);
    assert!(
        body.contains(&upstream),
        "the 502 body names the upstream {upstream}: {body}"
    );
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Failed);
    assert_eq!(session.response.as_ref().map(|r| r.status), Some(502));
    let request = session.request.as_ref().expect("the request is recorded");
    assert_eq!(request.url, format!("{upstream}/agent"));
    assert_eq!(request.body.as_deref(), Some(RUN_INPUT.as_bytes()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_error_response_is_forwarded_unchanged_and_recorded_failed() {
    let dir = TempDir::new("error");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;

    let received = read_all(post_run(&proxy.url("/error")).await).await;
    assert_eq!(received.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(content_type(&received.headers), "application/json");
    assert_eq!(received.body, ERROR_BODY.as_bytes());
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Failed);
    let response = session.response.as_ref().expect("the response is recorded");
    assert_eq!(response.status, 422);
    assert_eq!(
        header_value(&response.headers, "content-type"),
        Some("application/json")
    );
    assert_eq!(
        raw_events(&recording, session),
        vec![ERROR_BODY.as_bytes().to_vec()],
        "the error body is stored byte for byte"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_protobuf_response_is_forwarded_and_stored_decoded() {
    // Issue 15.6: the client gets the bytes as sent; the recording holds
    // each frame as the JSON event it decodes to, whatever the chunks.
    let dir = TempDir::new("proto");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;

    let received = read_all(post_run(&proxy.url("/proto")).await).await;
    assert_eq!(received.status, StatusCode::OK);
    assert_eq!(content_type(&received.headers), PROTOBUF_CONTENT_TYPE);
    let body = proto_chunks().concat();
    assert_eq!(received.body, body, "the protobuf body is byte-identical");
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(session.format, "protobuf");
    let events: Vec<serde_json::Value> = raw_events(&recording, session)
        .iter()
        .map(|raw| serde_json::from_slice(raw).expect("each stored event is JSON"))
        .collect();
    assert_eq!(events, proto_events(), "one event a frame, decoded");
    assert_eq!(
        session.status,
        SessionStatus::Complete,
        "a body the agent ended normally is recorded complete"
    );
}

// ---------------------------------------------------------------------------
// 6–7: streams cut short
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_client_abort_cancels_the_upstream_and_truncates_the_session() {
    let dir = TempDir::new("abort");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;

    let response = post_run(&proxy.url("/endless")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.bytes_stream().boxed();
    let first = numbered_frame(1);
    let got = read_at_least(&mut body, first.len()).await;
    assert_eq!(&got[..first.len()], &first[..]);
    assert!(
        !agent.log.endless_dropped.load(Ordering::SeqCst),
        "the agent is still streaming"
    );
    drop(body);

    let log = agent.log.clone();
    eventually(
        "the agent sees its client go away",
        Duration::from_secs(5),
        move || log.endless_dropped.load(Ordering::SeqCst),
    )
    .await;

    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Truncated);
    let events = raw_events(&recording, session);
    assert!(!events.is_empty(), "the events before the abort are kept");
    assert_eq!(events[0], frame_data(&first));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stopping_the_proxy_mid_stream_truncates_the_session() {
    let dir = TempDir::new("stop");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;

    let response = post_run(&proxy.url("/endless")).await;
    let mut body = response.bytes_stream().boxed();
    let first = numbered_frame(1);
    read_at_least(&mut body, first.len()).await;

    let stopping = Instant::now();
    let recording = proxy.stop_within(Duration::from_secs(3)).await;
    let took = stopping.elapsed();
    assert!(took < Duration::from_secs(3), "stopping took {took:?}");

    // The client's response ends too.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        match tokio::time::timeout_at(deadline, body.next()).await {
            Err(_) => panic!("the client's response did not end after the proxy stopped"),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(_)) | None) => break,
        }
    }

    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Truncated);
    let events = raw_events(&recording, session);
    assert!(!events.is_empty());
    assert_eq!(events[0], frame_data(&first));
}

// ---------------------------------------------------------------------------
// 8–10: the binary
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_proxy_leaves_a_readable_recording() {
    let dir = TempDir::new("killed");
    let out = dir.join("rec.sqlite");
    let agent = Agent::start().await;
    let child = Command::new(BIN)
        .args([
            "record",
            "--upstream",
            &agent.url(),
            "--listen",
            "127.0.0.1:0",
            "--out",
            p(&out),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut child = KillOnDrop(child);
    let lines = lines_of(child.0.stdout.take().unwrap());
    let (first_line, _) = lines
        .recv_timeout(WAIT)
        .expect("the proxy prints its address");
    let address = first_line
        .strip_prefix("recording proxy on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("first line: {first_line:?}"))
        .to_owned();
    assert!(
        first_line.contains(&agent.url()),
        "the first line names the upstream: {first_line:?}"
    );

    let response = post_run(&format!("http://{address}/stall")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.bytes_stream().boxed();
    let expected: Vec<Bytes> = (1..=STALL_FRAMES).map(numbered_frame).collect();
    let got = read_at_least(&mut body, expected.concat().len()).await;
    assert_eq!(got, expected.concat());
    // More than one commit interval (100 ms) after the last event.
    tokio::time::sleep(Duration::from_millis(300)).await;
    child.0.kill().expect("kill -9 the proxy");
    child.0.wait().expect("reap the proxy");
    drop(body);

    let recording = Recording::open(&out).expect("a killed proxy's recording opens");
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Incomplete);
    assert_eq!(session.source, "proxy");
    let events = raw_events(&recording, session);
    let expected: Vec<Vec<u8>> = expected.iter().map(|f| frame_data(f)).collect();
    assert_eq!(events, expected, "every event received before the kill");
    assert_eq!(session.num_events, STALL_FRAMES);
}

#[test]
fn record_refuses_a_non_loopback_address_without_allow_remote() {
    let dir = TempDir::new("remote");
    let out = dir.join("rec.sqlite");
    let args: Vec<String> = [
        "record",
        "--upstream",
        "http://127.0.0.1:9",
        "--listen",
        "0.0.0.0:0",
        "--out",
        p(&out),
    ]
    .map(str::to_owned)
    .to_vec();
    let output = run_bin(&args, WAIT);
    assert_eq!(output.status.code(), Some(2), "exit code");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--allow-remote"),
        "the message names --allow-remote: {stderr}"
    );
    assert!(!out.exists(), "no recording is written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn run_captures_a_stream_and_prints_events_as_they_arrive() {
    let dir = TempDir::new("run");
    let out = dir.join("rec.sqlite");
    let input = dir.join("run.json");
    std::fs::write(&input, RUN_INPUT).unwrap();
    let agent = Agent::start().await;
    let url = format!("{}/agent", agent.url());

    let mut child = KillOnDrop(
        Command::new(BIN)
            .args([
                "run",
                &url,
                "--input",
                p(&input),
                "--out",
                p(&out),
                "-H",
                "X-Api-Key: k",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts"),
    );
    let stderr = drain(child.0.stderr.take().unwrap());
    let lines = lines_of(child.0.stdout.take().unwrap());
    let mut printed = Vec::new();
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => printed.push(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("run did not end: {printed:?}"),
        }
    }
    let status = child.0.wait().expect("run ends");
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
    assert_eq!(status.code(), Some(0), "run: {printed:?}\n{stderr}");

    // One line per event, then the summary.
    let n = agent.frames.len();
    assert_eq!(printed.len(), n + 1, "lines: {printed:#?}");
    assert!(
        printed[0].0.contains("RUN_STARTED"),
        "first line: {:?}",
        printed[0].0
    );
    assert!(
        printed[n - 1].0.contains("RUN_FINISHED"),
        "last event line: {:?}",
        printed[n - 1].0
    );
    assert!(
        printed[n].0.starts_with("recorded 13 events"),
        "{printed:?}"
    );
    // As they arrive: the first line is out long before the agent ends.
    let written = agent.written();
    let last_written = *written.last().unwrap();
    assert!(
        printed[0].1 + FIRST_PAUSE * 3 / 4 < last_written,
        "the first event line was printed {:?} after the agent wrote the first frame, \
         the last frame {:?} after",
        printed[0].1.saturating_duration_since(written[0]),
        last_written.saturating_duration_since(written[0])
    );

    // The agent got the extra header's real value.
    let requests = agent.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].headers.get("x-api-key").unwrap(), "k");
    assert_eq!(requests[0].body, RUN_INPUT.as_bytes());

    let recording = Recording::open(&out).expect("the recording opens");
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Complete);
    let request = session.request.as_ref().expect("the request is recorded");
    assert_eq!(request.method, "POST");
    assert_eq!(request.url, url);
    assert_eq!(request.body.as_deref(), Some(RUN_INPUT.as_bytes()));
    assert_eq!(
        header_value(&request.headers, "content-type"),
        Some("application/json")
    );
    assert_eq!(
        header_value(&request.headers, "accept"),
        Some("text/event-stream")
    );
    assert_eq!(
        header_value(&request.headers, "x-api-key"),
        Some("[redacted]"),
        "headers: {:?}",
        request.headers
    );
    assert_eq!(session.response.as_ref().map(|r| r.status), Some(200));
    let expected: Vec<Vec<u8>> = agent.frames.iter().map(|f| frame_data(f)).collect();
    assert_eq!(raw_events(&recording, session), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn run_against_an_error_exits_1_and_records_a_failed_session() {
    let dir = TempDir::new("run-error");
    let out = dir.join("rec.sqlite");
    let input = dir.join("run.json");
    std::fs::write(&input, RUN_INPUT).unwrap();
    let agent = Agent::start().await;
    let url = format!("{}/error", agent.url());
    let args: Vec<String> = ["run", &url, "--input", p(&input), "--out", p(&out)]
        .map(str::to_owned)
        .to_vec();
    let output = tokio::task::spawn_blocking(move || run_bin(&args, WAIT))
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("422"), "stderr names the status: {stderr}");

    let recording = Recording::open(&out).expect("the recording opens");
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Failed);
    assert_eq!(session.response.as_ref().map(|r| r.status), Some(422));
    assert_eq!(
        raw_events(&recording, session),
        vec![ERROR_BODY.as_bytes().to_vec()]
    );
}

/// Issue 16.6: the proxy and `run` record a body the same way. A body that
/// is not an event stream is kept up to 4 MiB and its session marked
/// truncated past that, by both (the proxy used to call it complete); the
/// client of the proxy still receives every byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_body_past_the_bound_is_truncated_by_the_proxy_and_by_run_alike() {
    const KEPT: usize = 4 * 1024 * 1024;
    let dir = TempDir::new("big-body");
    let agent = Agent::start().await;

    let proxy = Proxy::start(&agent.url(), dir.join("proxy.sqlite")).await;
    let received = read_all(post_run(&proxy.url("/big")).await).await;
    assert_eq!(received.status, StatusCode::OK);
    assert_eq!(
        received.body.len(),
        BIG_BODY_BYTES,
        "the client gets it all"
    );
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Truncated, "proxy");
    let stored = raw_events(&recording, session);
    assert_eq!(stored.iter().map(Vec::len).collect::<Vec<_>>(), vec![KEPT]);

    let out = dir.join("run.sqlite");
    let input = dir.join("run.json");
    std::fs::write(&input, RUN_INPUT).unwrap();
    let url = format!("{}/big", agent.url());
    let args: Vec<String> = ["run", &url, "--input", p(&input), "--out", p(&out)]
        .map(str::to_owned)
        .to_vec();
    let output = tokio::task::spawn_blocking(move || run_bin(&args, WAIT))
        .await
        .unwrap();
    let recording = Recording::open(&out).expect("the recording opens");
    let session = only_session(&recording);
    assert_eq!(
        session.status,
        SessionStatus::Truncated,
        "run; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stored = raw_events(&recording, session);
    assert_eq!(stored.iter().map(Vec::len).collect::<Vec<_>>(), vec![KEPT]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn run_records_a_protobuf_stream_decoded_and_exits_0() {
    // Issue 15.6: `run` shares the proxy's recorder: each frame is stored
    // (and printed) as the event it decodes to.
    let dir = TempDir::new("run-proto");
    let out = dir.join("rec.sqlite");
    let input = dir.join("run.json");
    std::fs::write(&input, RUN_INPUT).unwrap();
    let agent = Agent::start().await;
    let url = format!("{}/proto", agent.url());
    let output = tokio::task::spawn_blocking(move || {
        run_bin(&["run", &url, "--input", p(&input), "--out", p(&out)], WAIT)
    })
    .await
    .expect("run ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("TEXT_MESSAGE_START  m"), "{stdout}");
    let recording = Recording::open(&dir.join("rec.sqlite")).expect("opens");
    let session = only_session(&recording);
    assert_eq!(session.format, "protobuf");
    let events: Vec<serde_json::Value> = raw_events(&recording, session)
        .iter()
        .map(|raw| serde_json::from_slice(raw).expect("JSON"))
        .collect();
    assert_eq!(events, proto_events());
}
