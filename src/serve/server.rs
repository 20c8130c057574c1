//! The endpoint: an HTTP server on a thread of its own (its own tokio
//! runtime, so the app and the command line drive it alike) that answers
//! every POST, at any path, with a recorded session; and the handle that
//! paces it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::watch;

use super::encoding::BodyEncoding;
use super::request::{ReceivedRequest, check_run_input};
use super::source::ServedFile;
use crate::input::{HttpRequest, HttpResponse};
use crate::record::{WriterHandle, WriterThread};
use crate::store::{NewSession, SessionId, SessionStatus, StoreError};

/// The largest run input read (they are small JSON).
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// When each event is sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// At its recorded arrival time from the request, divided by `speed`
    /// (2 is twice as fast).
    Recorded {
        /// The factor; finite and above 0.
        speed: f64,
    },
    /// All at once.
    AsFastAsPossible,
    /// One more each [`ServeHandle::advance`] (`--step`: Enter in the
    /// terminal); each request starts again at step 0.
    Step,
    /// Up to the step [`ServeHandle::follow`] says (the app's cursor); a
    /// new request catches up to it at once.
    Follow,
}

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Where to listen (the first address that binds).
    pub listen: Vec<SocketAddr>,
    /// When events are sent.
    pub pace: Pace,
    /// Send steps 1..=N only (`--to N`).
    pub to: Option<u64>,
    /// At step N of `to`, keep the response open instead of ending it.
    pub hold: bool,
    /// Write each request, and what it was sent, into this recording (never
    /// the file served).
    pub save_requests: Option<PathBuf>,
    /// Stop on Ctrl-C or SIGTERM (the command line).
    pub stop_on_signal: bool,
}

impl ServeConfig {
    /// Serving on `listen` at the recorded timing, whole.
    pub fn new(listen: Vec<SocketAddr>) -> Self {
        Self {
            listen,
            pace: Pace::Recorded { speed: 1.0 },
            to: None,
            hold: false,
            save_requests: None,
            stop_on_signal: false,
        }
    }
}

/// Why serving could not start or ended badly.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No address could be listened on.
    #[error("cannot listen on {address} ({source})")]
    Bind {
        /// The address (the last tried).
        address: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `--save-requests` names the file served.
    #[error(
        "--save-requests names the recording being served; serving never writes into it: {path}"
    )]
    SaveIntoServed {
        /// The file.
        path: PathBuf,
    },
    /// The recording of requests cannot be written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The server's thread or runtime failed.
    #[error("the server stopped ({0})")]
    Io(#[from] std::io::Error),
}

/// How a response ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Every event was sent.
    Complete,
    /// Step N of `--to N` was sent.
    ReachedTo,
    /// The client closed the connection first.
    ClientLeft,
    /// [`ServeHandle::reset`] (the app's cursor went back before what was
    /// sent).
    Reset,
    /// The server is stopping.
    Stopped,
}

impl EndReason {
    /// In words.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::ReachedTo => "ended at --to",
            Self::ClientLeft => "the client went away",
            Self::Reset => "ended: the cursor went back",
            Self::Stopped => "the server stopped",
        }
    }
}

/// One response ended.
#[derive(Clone, Debug)]
pub struct StreamEnd {
    /// The client.
    pub client: SocketAddr,
    /// The session served.
    pub session: i64,
    /// The events sent.
    pub sent: u64,
    /// The events the session holds.
    pub total: u64,
    /// How.
    pub reason: EndReason,
}

/// What the server tells its owner, as it happens.
#[derive(Clone, Debug)]
pub enum ServeEvent {
    /// A client posted a run input (and is being answered).
    Request(ReceivedRequest),
    /// A response ended.
    Ended(StreamEnd),
    /// An event the response's encoding cannot carry was not sent.
    Skipped(SkippedEvent),
}

/// An event left out of a response (protobuf cannot carry it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedEvent {
    /// The client the response goes to.
    pub client: SocketAddr,
    /// The session served.
    pub session: i64,
    /// The step left out (1-based).
    pub step: u64,
    /// Why it cannot be encoded.
    pub reason: String,
}

/// Where serving is, for a status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeStatus {
    /// The address listened on.
    pub address: SocketAddr,
    /// The client of the last request, if any came.
    pub client: Option<SocketAddr>,
    /// The session it is sent.
    pub session: Option<i64>,
    /// The events it has been sent.
    pub sent: u64,
    /// The events its session holds.
    pub total: u64,
    /// Whether its response is still open.
    pub streaming: bool,
    /// The requests received so far.
    pub num_requests: usize,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Control {
    /// Events 1..=allowed may be sent (`Step`, `Follow`).
    allowed: u64,
    /// Bumped by a reset: responses of an older generation end.
    generation: u64,
}

#[derive(Debug, Default)]
struct Progress {
    stream: u64,
    client: Option<SocketAddr>,
    session: Option<i64>,
    sent: u64,
    total: u64,
    streaming: bool,
}

struct Shared {
    file: ServedFile,
    address: SocketAddr,
    pace: Pace,
    to: Option<u64>,
    hold: bool,
    control: watch::Sender<Control>,
    stop: watch::Sender<bool>,
    progress: Mutex<Progress>,
    requests: Mutex<Vec<ReceivedRequest>>,
    /// The next turn of each set of candidate sessions.
    turns: Mutex<HashMap<Vec<usize>, usize>>,
    next_stream: AtomicU64,
    writer: Mutex<Option<WriterHandle>>,
    events: std::sync::mpsc::Sender<ServeEvent>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// The session a run input gets: the one recorded with its `runId`,
    /// else those of its `threadId` in turn, else all in turn.
    fn choose(&self, input: Option<&Value>) -> usize {
        let sessions = &self.file.sessions;
        let get = |key: &str| input.and_then(|v| v.get(key)).and_then(Value::as_str);
        if let Some(run) = get("runId")
            && let Some(i) = sessions
                .iter()
                .position(|s| s.run_id.as_deref() == Some(run))
        {
            return i;
        }
        let mut candidates: Vec<usize> = match get("threadId") {
            Some(thread) => (0..sessions.len())
                .filter(|&i| sessions[i].thread_id.as_deref() == Some(thread))
                .collect(),
            None => Vec::new(),
        };
        if candidates.is_empty() {
            candidates = (0..sessions.len()).collect();
        }
        let mut turns = lock(&self.turns);
        let turn = turns.entry(candidates.clone()).or_insert(0);
        let chosen = candidates[*turn % candidates.len()];
        *turn += 1;
        chosen
    }

    fn writer(&self) -> Option<WriterHandle> {
        lock(&self.writer).clone()
    }
}

/// Drives a running server: paces it, resets it, reads where it is.
/// Cheap to clone.
#[derive(Clone)]
pub struct ServeHandle {
    shared: Arc<Shared>,
}

impl ServeHandle {
    /// The address listened on.
    pub fn address(&self) -> SocketAddr {
        self.shared.address
    }

    /// Where serving is.
    pub fn status(&self) -> ServeStatus {
        let progress = lock(&self.shared.progress);
        ServeStatus {
            address: self.shared.address,
            client: progress.client,
            session: progress.session,
            sent: progress.sent,
            total: progress.total,
            streaming: progress.streaming,
            num_requests: lock(&self.shared.requests).len(),
        }
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<ReceivedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// The step events may be sent up to ([`Pace::Step`], [`Pace::Follow`]).
    pub fn allowed(&self) -> u64 {
        self.shared.control.borrow().allowed
    }

    /// One more event may be sent (`--step`).
    pub fn advance(&self, steps: u64) {
        self.shared
            .control
            .send_modify(|c| c.allowed = c.allowed.saturating_add(steps));
    }

    /// Events up to `step` may be sent ([`Pace::Follow`]); a step before
    /// what a response in progress was sent ends it, so that the client's
    /// next run starts again from step 0 and catches up to `step`.
    pub fn follow(&self, step: u64) {
        let went_back = {
            let progress = lock(&self.shared.progress);
            progress.streaming && step < progress.sent
        };
        if went_back {
            self.reset();
        }
        self.shared.control.send_if_modified(|c| {
            let changed = c.allowed != step;
            c.allowed = step;
            changed
        });
    }

    /// Ends the responses in progress (their clients see the stream end).
    pub fn reset(&self) {
        self.shared
            .control
            .send_modify(|c| c.generation = c.generation.wrapping_add(1));
    }

    /// Asks the server to stop: responses end, the thread returns.
    pub fn stop(&self) {
        let _ = self.shared.stop.send(true);
    }
}

/// A running endpoint. Dropping it stops it.
pub struct Server {
    handle: ServeHandle,
    events: std::sync::mpsc::Receiver<ServeEvent>,
    thread: Option<JoinHandle<Result<(), std::io::Error>>>,
    writer: Option<WriterThread>,
}

impl Server {
    /// Starts serving `file` as `config` says. The address is bound before
    /// this returns (an address in use is an error here, not later).
    pub fn start(file: ServedFile, config: ServeConfig) -> Result<Self, ServeError> {
        let writer = match &config.save_requests {
            Some(out) => {
                if same_file(out, &file.path) {
                    return Err(ServeError::SaveIntoServed { path: out.clone() });
                }
                Some(WriterThread::start(out)?)
            }
            None => None,
        };
        let listener = bind(&config.listen)?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let (control, _) = watch::channel(Control::default());
        let (stop, _) = watch::channel(false);
        let (events, receiver) = std::sync::mpsc::channel();
        let shared = Arc::new(Shared {
            file,
            address,
            pace: config.pace,
            to: config.to,
            hold: config.hold,
            control,
            stop,
            progress: Mutex::new(Progress::default()),
            requests: Mutex::new(Vec::new()),
            turns: Mutex::new(HashMap::new()),
            next_stream: AtomicU64::new(1),
            writer: Mutex::new(writer.as_ref().map(WriterThread::handle)),
            events,
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("serve")
            .enable_all()
            .build()?;
        let in_thread = shared.clone();
        let stop_on_signal = config.stop_on_signal;
        let thread = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || runtime.block_on(run(listener, in_thread, stop_on_signal)))?;
        Ok(Self {
            handle: ServeHandle { shared },
            events: receiver,
            thread: Some(thread),
            writer,
        })
    }

    /// The handle that drives it.
    pub fn handle(&self) -> ServeHandle {
        self.handle.clone()
    }

    /// The address listened on.
    pub fn address(&self) -> SocketAddr {
        self.handle.address()
    }

    /// Whether its thread still runs (a stop signal ends it).
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// What happened since last asked, as it happens.
    pub fn events(&self) -> &std::sync::mpsc::Receiver<ServeEvent> {
        &self.events
    }

    /// Stops (if not stopping already), waits for the thread, and finishes
    /// the recording of requests.
    pub fn stop(mut self) -> Result<(), ServeError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), ServeError> {
        self.handle.stop();
        let mut result = Ok(());
        if let Some(thread) = self.thread.take() {
            match thread.join() {
                Ok(Ok(())) => {}
                Ok(Err(error)) => result = Err(ServeError::Io(error)),
                Err(_) => result = Err(ServeError::Io(std::io::Error::other("it panicked"))),
            }
        }
        lock(&self.handle.shared.writer).take();
        if let Some(writer) = self.writer.take() {
            writer.finish()?;
        }
        result
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Whether two paths name one file (a path that does not exist names no
/// file yet).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn bind(addresses: &[SocketAddr]) -> Result<std::net::TcpListener, ServeError> {
    let mut last = None;
    for address in addresses {
        match std::net::TcpListener::bind(address) {
            Ok(listener) => return Ok(listener),
            Err(error) => last = Some((address.to_string(), error)),
        }
    }
    let (address, source) = last.unwrap_or_else(|| {
        (
            "no address".to_owned(),
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "nothing to listen on"),
        )
    });
    Err(ServeError::Bind { address, source })
}

async fn run(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    stop_on_signal: bool,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    if stop_on_signal {
        let stop = shared.stop.clone();
        tokio::spawn(async move {
            stop_signal().await;
            let _ = stop.send(true);
        });
    }
    let mut stopped = shared.stop.subscribe();
    let app = Router::new().fallback(answer).with_state(shared);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    })
    .await
}

/// Ctrl-C, or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn plain(status: StatusCode, message: &str) -> Response {
    let mut response = Response::new(Body::from(message.to_owned()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// Every request: a POST gets a session; a preflight is allowed (a front
/// end in a browser is on another origin); anything else is refused.
async fn answer(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    if parts.method == Method::OPTIONS {
        let mut response = plain(StatusCode::NO_CONTENT, "");
        let headers = response.headers_mut();
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("POST, OPTIONS"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            parts
                .headers
                .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
                .cloned()
                .unwrap_or_else(|| HeaderValue::from_static("*")),
        );
        return response;
    }
    if parts.method != Method::POST {
        let mut response = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "agui-replay serve: POST a run input to receive the recorded session\n",
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST, OPTIONS"));
        return response;
    }
    let body = match axum::body::to_bytes(body, MAX_REQUEST_BYTES).await {
        Ok(body) => body,
        Err(e) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("agui-replay serve: cannot read the request body: {e}\n"),
            );
        }
    };
    let run_input: Option<Value> = serde_json::from_slice(&body).ok();
    let index = shared.choose(run_input.as_ref());
    let session = &shared.file.sessions[index];
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let encoding = BodyEncoding::for_accept(
        parts
            .headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok()),
    );
    let received = ReceivedRequest {
        client,
        method: parts.method.as_str().to_owned(),
        // Shown, so without its secrets (issue 38): the recording the
        // requests are saved into hides them in what it stores too.
        path: crate::store::StoreRedaction::default().url(&path).0,
        headers: headers.clone(),
        body: body.to_vec(),
        diagnostics: check_run_input(run_input.as_ref(), session.run_input.as_ref()),
        run_input,
        session: session.id,
    };
    let saved = match shared.writer() {
        Some(writer) => {
            let host = parts
                .headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .map_or_else(|| shared.address.to_string(), str::to_owned);
            let begun = writer
                .begin(NewSession {
                    source: format!("serve: client {client}, session {}", session.id),
                    format: "sse".into(),
                    request: Some(HttpRequest {
                        method: received.method.clone(),
                        url: format!("http://{host}{path}"),
                        headers,
                        body: (!body.is_empty()).then(|| body.to_vec()),
                    }),
                    response: Some(HttpResponse {
                        status: 200,
                        headers: vec![("content-type".into(), encoding.content_type().into())],
                    }),
                    ..NewSession::default()
                })
                .await;
            match begun {
                Ok(id) => Some((writer, id)),
                Err(error) => {
                    writer.report_failure(&error);
                    None
                }
            }
        }
        None => None,
    };
    let total = session.num_events();
    let limit = shared.to.map_or(total, |n| n.min(total));
    let stream = shared.next_stream.fetch_add(1, Ordering::Relaxed);
    {
        let mut progress = lock(&shared.progress);
        *progress = Progress {
            stream,
            client: Some(client),
            session: Some(session.id),
            sent: 0,
            total,
            streaming: true,
        };
    }
    lock(&shared.requests).push(received.clone());
    let _ = shared.events.send(ServeEvent::Request(received));
    if shared.pace == Pace::Step {
        // Each run steps from step 0 again.
        shared.control.send_modify(|c| c.allowed = 0);
    }
    let control = shared.control.subscribe();
    let generation = control.borrow().generation;
    let stopped = shared.stop.subscribe();
    let served = ServedStream {
        session: index,
        client,
        stream,
        next: 0,
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        started: tokio::time::Instant::now(),
        generation,
        control,
        stopped,
        saved,
        encoding,
        end: None,
        shared,
    };
    let body = futures_util::stream::unfold(served, next_frame);
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(encoding.content_type()),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// One response in progress.
struct ServedStream {
    shared: Arc<Shared>,
    session: usize,
    client: SocketAddr,
    stream: u64,
    /// Events sent so far.
    next: usize,
    /// Events to send in all.
    limit: usize,
    started: tokio::time::Instant,
    generation: u64,
    control: watch::Receiver<Control>,
    stopped: watch::Receiver<bool>,
    saved: Option<(WriterHandle, SessionId)>,
    encoding: BodyEncoding,
    end: Option<EndReason>,
}

impl ServedStream {
    /// Resolves when the response must end early: a reset or a stop.
    async fn interrupted(&mut self) -> EndReason {
        let generation = self.generation;
        tokio::select! {
            _ = self.control.wait_for(|c| c.generation != generation) => EndReason::Reset,
            _ = self.stopped.wait_for(|stop| *stop) => EndReason::Stopped,
        }
    }

    /// Waits until the next event may go; the reason to end otherwise.
    async fn turn_of_next(&mut self) -> Result<(), EndReason> {
        let next = self.next;
        match self.shared.pace {
            Pace::AsFastAsPossible => Ok(()),
            Pace::Recorded { speed } => {
                let arrival = self.shared.file.sessions[self.session].arrival_nanos[next];
                let at = self.started + Duration::from_secs_f64(arrival as f64 / 1e9 / speed);
                tokio::select! {
                    _ = tokio::time::sleep_until(at) => Ok(()),
                    reason = self.interrupted() => Err(reason),
                }
            }
            Pace::Step | Pace::Follow => {
                let generation = self.generation;
                let wanted = next as u64;
                tokio::select! {
                    control = self.control.wait_for(|c| c.generation != generation || c.allowed > wanted) => {
                        match control {
                            Ok(c) if c.generation == generation => Ok(()),
                            _ => Err(EndReason::Reset),
                        }
                    }
                    _ = self.stopped.wait_for(|stop| *stop) => Err(EndReason::Stopped),
                }
            }
        }
    }
}

async fn next_frame(
    mut served: ServedStream,
) -> Option<(Result<Bytes, std::convert::Infallible>, ServedStream)> {
    if served.end.is_some() {
        return None;
    }
    let session = &served.shared.file.sessions[served.session];
    let total = session.events.len();
    if served.next >= served.limit {
        let reached_to = served.limit < total;
        served.end = Some(if reached_to && served.shared.hold {
            // `--hold`: the client stays at step N until it leaves.
            served.interrupted().await
        } else if reached_to {
            EndReason::ReachedTo
        } else {
            EndReason::Complete
        });
        return None;
    }
    if let Err(reason) = served.turn_of_next().await {
        served.end = Some(reason);
        return None;
    }
    let raw = served.shared.file.sessions[served.session].events[served.next].clone();
    let frame = match served.encoding.encode(&raw) {
        Ok(frame) => frame,
        Err(error) => {
            // An event the protobuf encoding cannot carry is skipped, and
            // said: the client gets the events around it.
            let session = &served.shared.file.sessions[served.session];
            let _ = served.shared.events.send(ServeEvent::Skipped(SkippedEvent {
                client: served.client,
                session: session.id,
                step: served.next as u64 + 1,
                reason: error.to_string(),
            }));
            Bytes::new()
        }
    };
    served.next += 1;
    if let Some((writer, id)) = &served.saved {
        let nanos = u64::try_from(served.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        writer.event(*id, raw.to_vec(), nanos);
    }
    {
        let mut progress = lock(&served.shared.progress);
        if progress.stream == served.stream {
            progress.sent = served.next as u64;
        }
    }
    Some((Ok(frame), served))
}

impl Drop for ServedStream {
    fn drop(&mut self) {
        let reason = self.end.unwrap_or(EndReason::ClientLeft);
        if let Some((writer, id)) = &self.saved {
            writer.end(
                *id,
                match reason {
                    EndReason::Complete => SessionStatus::Complete,
                    _ => SessionStatus::Truncated,
                },
            );
        }
        {
            let mut progress = lock(&self.shared.progress);
            if progress.stream == self.stream {
                progress.streaming = false;
            }
        }
        let session = &self.shared.file.sessions[self.session];
        let _ = self.shared.events.send(ServeEvent::Ended(StreamEnd {
            client: self.client,
            session: session.id,
            sent: self.next as u64,
            total: session.num_events(),
            reason,
        }));
    }
}
