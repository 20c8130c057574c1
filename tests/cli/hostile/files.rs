//! Issue 12, lost files, leaks and wrong readings: imports that destroyed
//! their output, a killed recorder's file that did not stand alone, WAL
//! files and hot journals, redaction that missed duplicate members, secrets
//! stored from URLs and run inputs, `Content-Length` and `Content-Encoding`
//! behind the proxy, and misleading errors. Every server here listens on
//! 127.0.0.1, every wait is bounded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use agui_replay::record::{ProxyState, WriterThread, serve};
use agui_replay::store::{
    Arrival, Recording, RecordingWriter, SessionInfo, SessionStatus, StoreError, StoreRedaction,
};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use futures_util::StreamExt;
use futures_util::stream;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::common::agent::{Received, Server};
use crate::common::bin::{BIN, KillOnDrop, run_within};
use crate::common::proxy::{Proxy, client};
use crate::common::store::only_session;
use crate::common::{TempDir, p};

/// The bound of every wait.
const WAIT: Duration = Duration::from_secs(20);

/// The events every test stream carries, in order.
const EVENTS: [&str; 5] = [
    r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hello"}"#,
    r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
];

/// The events as an SSE body.
fn sse_body() -> Vec<u8> {
    EVENTS
        .iter()
        .flat_map(|e| format!("data: {e}\n\n").into_bytes())
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
    encoder.write_all(bytes).expect("brotli");
    encoder.into_inner()
}

/// The binary's exit code, standard output and standard error.
struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary to its end (killed, and failing, after `WAIT`).
fn run_bin(args: &[&str]) -> Output {
    let output = run_within(args, WAIT);
    Output {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Starts `agui-replay record` and returns it with the first line it
/// printed (its banner).
fn start_recorder(args: &[&str]) -> (KillOnDrop, String) {
    let mut child = KillOnDrop(
        Command::new(BIN)
            .arg("record")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts"),
    );
    let stdout = child.0.stdout.take().expect("stdout");
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let banner = lines.recv_timeout(WAIT).unwrap_or_else(|_| {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.0.stderr.take() {
            let _ = child.0.kill();
            let _ = pipe.read_to_string(&mut stderr);
        }
        panic!("the recorder printed no banner; stderr: {stderr}")
    });
    (child, banner)
}

/// The address in a banner `recording proxy on http://ADDR -> …`.
fn banner_address(banner: &str) -> String {
    banner
        .strip_prefix("recording proxy on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("banner: {banner:?}"))
        .to_owned()
}

fn raw_events(recording: &Recording, session: &SessionInfo) -> Vec<String> {
    recording
        .events(session.id, 1..session.num_events + 1)
        .expect("the events")
        .into_iter()
        .map(|e| String::from_utf8(e.raw).expect("UTF-8 events"))
        .collect()
}

// ---------------------------------------------------------------------------
// The agent
// ---------------------------------------------------------------------------

#[derive(Clone, Default)]
struct AgentLog(Arc<Mutex<Vec<Received>>>);

/// The in-test agent on 127.0.0.1.
struct Agent {
    server: Server,
    log: AgentLog,
}

impl Agent {
    async fn start() -> Self {
        let log = AgentLog::default();
        let app = Router::new()
            .route("/stall", post(agent_stall))
            .route("/length", post(agent_length))
            .route("/gzip", post(agent_gzip))
            .route("/brotli", post(agent_brotli))
            .route("/echo", post(agent_echo))
            .with_state(log.clone());
        Self {
            server: Server::start(app).await,
            log,
        }
    }

    fn url(&self) -> String {
        self.server.url()
    }

    fn requests(&self) -> Vec<Received> {
        self.log.0.lock().expect("the log").clone()
    }
}

async fn note(log: &AgentLog, request: Request) {
    let received = Received::read(request).await;
    log.0.lock().expect("the log").push(received);
}

fn event_stream() -> axum::http::response::Builder {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
}

/// The first three events, then nothing more, the stream kept open.
async fn agent_stall(State(log): State<AgentLog>, request: Request) -> Response {
    note(&log, request).await;
    let frames: Vec<Result<Bytes, std::io::Error>> = EVENTS[..3]
        .iter()
        .map(|e| Ok(Bytes::from(format!("data: {e}\n\n"))))
        .collect();
    let body = stream::iter(frames).chain(stream::pending());
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(body))
        .expect("a response")
}

/// The whole stream at once, with its `Content-Length`.
async fn agent_length(State(log): State<AgentLog>, request: Request) -> Response {
    note(&log, request).await;
    let body = sse_body();
    event_stream()
        .header(header::CONTENT_LENGTH, body.len())
        .body(Body::from(body))
        .expect("a response")
}

/// The stream gzip-encoded, with its `Content-Length`.
async fn agent_gzip(State(log): State<AgentLog>, request: Request) -> Response {
    note(&log, request).await;
    let body = gzip(&sse_body());
    event_stream()
        .header(header::CONTENT_ENCODING, "gzip")
        .header(header::CONTENT_LENGTH, body.len())
        .body(Body::from(body))
        .expect("a response")
}

/// The stream brotli-encoded, sent in chunks of 7 bytes (no length).
async fn agent_brotli(State(log): State<AgentLog>, request: Request) -> Response {
    note(&log, request).await;
    let chunks: Vec<Result<Bytes, std::io::Error>> = brotli(&sse_body())
        .chunks(7)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    event_stream()
        .header(header::CONTENT_ENCODING, "br")
        .body(Body::from_stream(stream::iter(chunks)))
        .expect("a response")
}

/// The stream, streamed (no length).
async fn agent_echo(State(log): State<AgentLog>, request: Request) -> Response {
    note(&log, request).await;
    let frames: Vec<Result<Bytes, std::io::Error>> = EVENTS
        .iter()
        .map(|e| Ok(Bytes::from(format!("data: {e}\n\n"))))
        .collect();
    event_stream()
        .body(Body::from_stream(stream::iter(frames)))
        .expect("a response")
}

/// Posts a run input and reads the whole response: its headers and bytes.
async fn post_all(url: &str, body: &str) -> (reqwest::header::HeaderMap, Vec<u8>) {
    let response = tokio::time::timeout(
        WAIT,
        client()
            .post(url)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_owned())
            .send(),
    )
    .await
    .expect("the response came in time")
    .expect("the proxy answers");
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    let bytes = tokio::time::timeout(WAIT, response.bytes())
        .await
        .expect("the body came in time")
        .expect("the body");
    (headers, bytes.to_vec())
}

const RUN_INPUT: &str = r#"{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#;

// ---------------------------------------------------------------------------
// 5. Imports that destroyed files
// ---------------------------------------------------------------------------

fn write_jsonl(path: &Path) -> Vec<u8> {
    let bytes: Vec<u8> = EVENTS
        .iter()
        .flat_map(|e| format!("{e}\n").into_bytes())
        .collect();
    std::fs::write(path, &bytes).expect("write the stream");
    bytes
}

// Issue 12, item 5: `import X --out X --force` deleted X before reading it.
#[test]
fn import_refuses_its_own_input_as_output_and_keeps_it() {
    let dir = TempDir::new("import-self");
    let input = dir.join("stream.jsonl");
    let bytes = write_jsonl(&input);
    let output = run_bin(&["import", p(&input), "--out", p(&input), "--force"]);
    assert_eq!(output.code, Some(2), "refused: {}", output.stderr);
    assert!(
        output.stderr.contains("the output is an input"),
        "{}",
        output.stderr
    );
    assert_eq!(
        std::fs::read(&input).expect("the input is still there"),
        bytes
    );
    // The same file by another name is the same file.
    let other_name = dir.join(".").join("stream.jsonl");
    let output = run_bin(&["import", p(&input), "--out", p(&other_name), "--force"]);
    assert_eq!(output.code, Some(2), "{}", output.stderr);
    assert_eq!(std::fs::read(&input).expect("still there"), bytes);
}

// Issue 12, item 5: an input that fails after the output was removed lost
// the output.
#[test]
fn a_failed_import_leaves_the_old_output_as_it_was() {
    let dir = TempDir::new("import-fail");
    let input = dir.join("ok.jsonl");
    write_jsonl(&input);
    let keep = dir.join("keep.rec");
    let first = run_bin(&["import", p(&input), "--out", p(&keep)]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let before = std::fs::read(&keep).expect("the recording");
    let missing = dir.join("missing.jsonl");
    let output = run_bin(&[
        "import",
        p(&input),
        p(&missing),
        "--out",
        p(&keep),
        "--force",
    ]);
    assert_eq!(output.code, Some(2), "{}", output.stderr);
    assert_eq!(
        std::fs::read(&keep).expect("the recording is still there"),
        before
    );
    assert_eq!(
        dir.listing(),
        ["keep.rec", "ok.jsonl"],
        "nothing is left beside it"
    );
    // And one that succeeds replaces it, once complete.
    let output = run_bin(&["import", p(&input), p(&input), "--out", p(&keep), "--force"]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let recording = Recording::open(&keep).expect("the new recording");
    assert_eq!(recording.sessions().len(), 2);
}

// ---------------------------------------------------------------------------
// 6. A killed recorder's file stands alone; read-only places
// ---------------------------------------------------------------------------

// Issue 12, item 6: after `kill -9` of `record`, every event (and the header
// that makes the file a recording) was only in `-wal`: the `.rec` copied
// alone read as "not a recording".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_recorder_leaves_a_file_that_stands_alone() {
    let dir = TempDir::new("killed");
    let out = dir.join("live.rec");
    let agent = Agent::start().await;
    let (mut child, banner) = start_recorder(&[
        "--upstream",
        &agent.url(),
        "--listen",
        "127.0.0.1:0",
        "--out",
        p(&out),
    ]);
    let address = banner_address(&banner);
    let response = tokio::time::timeout(
        WAIT,
        client()
            .post(format!("http://{address}/stall"))
            .body(RUN_INPUT)
            .send(),
    )
    .await
    .expect("in time")
    .expect("the proxy answers");
    let mut body = response.bytes_stream();
    let expected: Vec<u8> = EVENTS[..3]
        .iter()
        .flat_map(|e| format!("data: {e}\n\n").into_bytes())
        .collect();
    let mut got = Vec::new();
    while got.len() < expected.len() {
        let chunk = tokio::time::timeout(WAIT, body.next())
            .await
            .expect("in time")
            .expect("more body")
            .expect("a chunk");
        got.extend_from_slice(&chunk);
    }
    assert_eq!(got, expected);
    // More than the checkpoint interval (1 s) after the events.
    tokio::time::sleep(Duration::from_millis(1800)).await;
    child.0.kill().expect("kill -9 the recorder");
    child.0.wait().expect("reap it");
    drop(body);

    // The file alone, as users attach it to a bug report.
    let elsewhere = TempDir::new("killed-copy");
    let copy = elsewhere.join("attached.rec");
    std::fs::copy(&out, &copy).expect("copy the .rec alone");
    let recording = Recording::open(&copy).expect("the .rec alone is a recording");
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Incomplete);
    assert_eq!(raw_events(&recording, session), EVENTS[..3].to_vec());
    assert_eq!(
        elsewhere.listing(),
        ["attached.rec"],
        "opening it created nothing beside it"
    );
}

// Issue 12, items 6 and 11: a WAL-mode recording without its `-wal` (a copy
// of a killed recorder's file) must open, in a read-only directory too, and
// opening it created `-wal` and `-shm` beside it.
//
// The tests run as root, for whom permission bits do not stop a write: a
// read-only directory is made all the same, but what is checked is what
// makes read-only media work, that opening creates and writes nothing.
#[test]
fn a_wal_recording_without_its_wal_opens_without_creating_files() {
    let dir = TempDir::new("wal-alone");
    let live = dir.join("live.rec");
    let mut writer = RecordingWriter::create(&live, false).expect("a live recording");
    writer
        .begin_session(agui_replay::store::NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            ..Default::default()
        })
        .expect("a session");
    for event in EVENTS {
        writer
            .append(event.as_bytes(), Arrival::now())
            .expect("an event");
    }
    writer.flush().expect("committed");
    // A second later, the writer folds its log into the main file.
    std::thread::sleep(Duration::from_millis(1100));
    writer.flush_if_due().expect("due");
    assert!(
        dir.listing().contains(&"live.rec-wal".to_owned()),
        "a live recording has a log"
    );
    let copies = TempDir::new("wal-alone-copy");
    let copy = copies.join("copy.rec");
    std::fs::copy(&live, &copy).expect("copy the main file alone");
    let header = std::fs::read(&copy).expect("the copy");
    assert_eq!(&header[18..20], &[2, 2], "the copy is in WAL mode");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(copies.path(), std::fs::Permissions::from_mode(0o555))
            .expect("a read-only directory");
    }
    let mtime = std::fs::metadata(&copy).expect("the copy").modified().ok();
    let mut recording = Recording::open(&copy).expect("the copy opens");
    let session = only_session(&recording).clone();
    assert_eq!(raw_events(&recording, &session), EVENTS.to_vec());
    recording.refresh().expect("refresh");
    assert_eq!(copies.listing(), ["copy.rec"], "no -wal, no -shm");
    drop(recording);
    assert_eq!(copies.listing(), ["copy.rec"]);
    assert_eq!(std::fs::read(&copy).expect("the copy"), header, "unchanged");
    assert_eq!(
        std::fs::metadata(&copy).expect("the copy").modified().ok(),
        mtime
    );
    drop(writer);
}

// Issue 12, item 14: a journal left by a writer killed mid-transaction
// was reported as "attempt to write a readonly database".
#[test]
fn a_leftover_hot_journal_is_named_for_what_it_is() {
    let dir = TempDir::new("hot-journal");
    let input = dir.join("ok.jsonl");
    write_jsonl(&input);
    let rec = dir.join("imported.rec");
    let output = run_bin(&["import", p(&input), "--out", p(&rec)]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    // A writer in the middle of a large transaction: a tiny page cache
    // makes it write changed pages into the file, their old content into
    // the journal.
    let conn = rusqlite::Connection::open(&rec).expect("open for writing");
    conn.execute_batch("PRAGMA cache_size = 1; BEGIN;")
        .expect("begin");
    for i in 0..64i64 {
        conn.execute(
            "INSERT INTO events (id, session_id, seq, arrival_nanos, raw) VALUES (?1, 1, ?1, 0, zeroblob(20000))",
            [1_000 + i],
        )
        .expect("insert");
    }
    let journal = dir.join("imported.rec-journal");
    assert!(
        std::fs::metadata(&journal).is_ok_and(|m| m.len() > 0),
        "the transaction spilled into its journal"
    );
    // Copied mid-transaction, as a killed writer leaves them.
    let copies = TempDir::new("hot-journal-copy");
    std::fs::copy(&rec, copies.join("left.rec")).expect("copy the file");
    std::fs::copy(&journal, copies.join("left.rec-journal")).expect("copy the journal");
    drop(conn);
    let journal_bytes = std::fs::read(copies.join("left.rec-journal")).expect("the journal");
    let error = match Recording::open(&copies.join("left.rec")) {
        Err(error) => error,
        Ok(_) => panic!("a hot journal must be rolled back before reading"),
    };
    assert!(matches!(error, StoreError::HotJournal { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("left.rec-journal"), "{message}");
    assert!(!message.contains("readonly database"), "{message}");
    // Nothing was changed: the journal is still there, whole.
    assert_eq!(
        std::fs::read(copies.join("left.rec-journal")).expect("the journal"),
        journal_bytes
    );
}

// ---------------------------------------------------------------------------
// 8. Export redaction and duplicate members
// ---------------------------------------------------------------------------

/// Exports `events` with `--redact POINTER` and returns what was written;
/// asserts that neither copy of the secret is in it.
fn export_redacted(events: &[&str], pointer: &str) -> String {
    let dir = TempDir::new("redact");
    let input = dir.join("in.jsonl");
    let text: String = events.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(&input, text).expect("write the stream");
    let out = dir.join("out.jsonl");
    let output = run_bin(&["export", p(&input), "--out", p(&out), "--redact", pointer]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let written = std::fs::read_to_string(&out).expect("the export");
    for secret in ["first-copy-secret", "last-copy-secret"] {
        assert!(
            !written.contains(secret),
            "{secret} was written:\n{written}"
        );
    }
    // Replaced, not dropped: every event is written, and each copy of the
    // secret became the replacement.
    assert_eq!(written.lines().count(), events.len(), "{written}");
    let copies = events
        .iter()
        .map(|e| e.matches("-copy-secret").count())
        .sum::<usize>();
    assert_eq!(written.matches("[REDACTED]").count(), copies, "{written}");
    written
}

const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;

// Issue 12, item 8: a member named twice inside snapshot content.
#[test]
fn export_redacts_both_copies_of_a_duplicate_member_in_snapshot_content() {
    let written = export_redacted(
        &[
            START,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"token":"first-copy-secret","keep":1,"token":"last-copy-secret"}}"#,
        ],
        "/content/token",
    );
    assert!(written.contains(r#""keep":1"#), "{written}");
}

// Issue 12, item 8: a duplicated `content` member.
#[test]
fn export_redacts_both_copies_of_a_duplicated_content_member() {
    export_redacted(
        &[
            START,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"token":"first-copy-secret"},"content":{"token":"last-copy-secret"}}"#,
        ],
        "/content/token",
    );
}

// Issue 12, item 8: an operation with two `value`s.
#[test]
fn export_redacts_both_values_of_a_patch_operation() {
    export_redacted(
        &[
            START,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{}}"#,
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[{"op":"add","path":"/token","value":"first-copy-secret","value":"last-copy-secret"}]}"#,
        ],
        "/content/token",
    );
}

// Issue 12, item 8: an activity message of a `MESSAGES_SNAPSHOT` with its
// content twice, and a second `messages` member.
#[test]
fn export_redacts_every_copy_in_a_messages_snapshot() {
    export_redacted(
        &[
            START,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"activity","activityType":"t","content":{"token":"first-copy-secret"},"content":{"token":"last-copy-secret"}}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"activity","activityType":"t","content":{"token":"first-copy-secret"}}],"messages":[{"id":"a","role":"activity","activityType":"t","content":{"token":"last-copy-secret"}}]}"#,
        ],
        "/content/token",
    );
}

// ---------------------------------------------------------------------------
// 9. Secrets in URLs and run inputs
// ---------------------------------------------------------------------------

// Issue 12, item 9: the proxy stored the URL's password and secret query
// parameters, and the run input's tokens, as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_stores_urls_and_run_inputs_without_their_secrets() {
    let dir = TempDir::new("proxy-secrets");
    let out = dir.join("rec.sqlite");
    let agent = Agent::start().await;
    let upstream = format!("http://bob:hunter2-secret@{}", agent.server.addr);
    let proxy = Proxy::start(&upstream, out).await;
    let input = r#"{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{"apiKey":"sk-live-secret","model":"m"}}"#;
    let (_, body) = post_all(
        &proxy.url("/echo?api_key=AK-secret&page=2&Token=TK-secret"),
        input,
    )
    .await;
    assert_eq!(body, sse_body());
    // The agent received the exact bytes.
    let received = agent.requests();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].path_and_query,
        "/echo?api_key=AK-secret&page=2&Token=TK-secret"
    );
    assert_eq!(received[0].body, input.as_bytes());

    let recording = proxy.stop().await;
    let session = only_session(&recording);
    let request = session.request.as_ref().expect("the request");
    assert_eq!(
        request.url,
        format!(
            "http://bob:[redacted]@{}/echo?api_key=[redacted]&page=2&Token=[redacted]",
            agent.server.addr
        )
    );
    let stored_body = String::from_utf8(request.body.clone().expect("the body")).expect("UTF-8");
    assert!(!stored_body.contains("sk-live-secret"), "{stored_body}");
    assert!(stored_body.contains(r#""model":"m""#), "{stored_body}");
    for hidden in [
        "url password",
        "query api_key",
        "query Token",
        "body /forwardedProps/apiKey",
    ] {
        assert!(
            session.redacted.iter().any(|r| r == hidden),
            "{hidden} in {:?}",
            session.redacted
        );
    }
}

// Issue 12, item 9: `run` stored its URL's secrets and run input tokens;
// `--redact-param` and `--redact-field` hide more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_stores_without_secrets_and_takes_more_names_to_hide() {
    let dir = TempDir::new("run-secrets");
    let agent = Agent::start().await;
    let input_path = dir.join("input.json");
    let input = r#"{"threadId":"t","runId":"r","state":{"session":"state-secret","n":1},"messages":[],"tools":[],"context":[],"forwardedProps":{"auth":{"access_token":"at-secret"}}}"#;
    std::fs::write(&input_path, input).expect("the run input");
    let out = dir.join("run.rec");
    let url = format!(
        "{}/echo?token=tok-secret&tenant=tenant-secret&page=3",
        agent.url()
    );
    let args: Vec<String> = [
        "run",
        url.as_str(),
        "--input",
        p(&input_path),
        "--out",
        p(&out),
        "--redact-param",
        "tenant",
        "--redact-field",
        "/state/session",
    ]
    .map(str::to_owned)
    .to_vec();
    let output = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_bin(&args)
    })
    .await
    .expect("the run");
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    for secret in ["tok-secret", "tenant-secret"] {
        assert!(!output.stdout.contains(secret), "{}", output.stdout);
    }
    let received = agent.requests();
    assert_eq!(
        received[0].path_and_query,
        "/echo?token=tok-secret&tenant=tenant-secret&page=3"
    );
    assert_eq!(received[0].body, input.as_bytes());
    let recording = Recording::open(&out).expect("the recording");
    let session = only_session(&recording);
    let request = session.request.as_ref().expect("the request");
    assert!(
        request
            .url
            .ends_with("/echo?token=[redacted]&tenant=[redacted]&page=3"),
        "{}",
        request.url
    );
    assert!(!session.source.contains("secret"), "{}", session.source);
    let body = String::from_utf8(request.body.clone().expect("a body")).expect("UTF-8");
    for secret in ["state-secret", "at-secret"] {
        assert!(!body.contains(secret), "{body}");
    }
    assert!(body.contains(r#""n":1"#), "{body}");
    assert_eq!(
        raw_events(&recording, session),
        EVENTS.to_vec(),
        "the events are stored as they came"
    );
}

// Issue 12, item 9: the proxy's banner printed the upstream's password.
#[test]
fn the_proxy_banner_does_not_print_the_upstream_password() {
    let dir = TempDir::new("banner");
    let out = dir.join("rec.sqlite");
    let (_child, banner) = start_recorder(&[
        "--upstream",
        "http://bob:hunter2-secret@127.0.0.1:9",
        "--listen",
        "127.0.0.1:0",
        "--out",
        p(&out),
    ]);
    assert!(!banner.contains("hunter2-secret"), "{banner}");
    assert!(
        banner.contains("http://bob:[redacted]@127.0.0.1:9"),
        "{banner}"
    );
}

// ---------------------------------------------------------------------------
// 10 and 13. Content-Length and Content-Encoding behind the proxy
// ---------------------------------------------------------------------------

// Issue 12, item 10: a complete response with a `Content-Length` was
// recorded as truncated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_complete_response_with_content_length_is_complete() {
    let dir = TempDir::new("length");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;
    let (headers, body) = post_all(&proxy.url("/length"), RUN_INPUT).await;
    assert_eq!(body, sse_body());
    assert_eq!(
        headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()),
        Some(sse_body().len().to_string().as_str())
    );
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(session.status, SessionStatus::Complete);
    assert_eq!(raw_events(&recording, session), EVENTS.to_vec());
}

// Issue 12, item 13: a gzip-encoded event stream was stored compressed,
// framed as garbage and marked truncated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_event_stream_is_stored_decoded_and_forwarded_as_sent() {
    let dir = TempDir::new("gzip");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;
    let (headers, body) = post_all(&proxy.url("/gzip"), RUN_INPUT).await;
    assert_eq!(body, gzip(&sse_body()), "the client gets the gzip bytes");
    assert_eq!(
        headers
            .get(header::CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok()),
        Some("gzip")
    );
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(raw_events(&recording, session), EVENTS.to_vec());
    assert_eq!(session.status, SessionStatus::Complete);
    // And it replays as the stream it is.
    let check = run_bin(&["check", p(recording.path())]);
    assert_eq!(check.code, Some(0), "{}{}", check.stdout, check.stderr);
}

// Issue 12, item 13: brotli, in chunks that split its blocks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_brotli_event_stream_in_chunks_is_stored_decoded() {
    let dir = TempDir::new("brotli");
    let agent = Agent::start().await;
    let proxy = Proxy::start(&agent.url(), dir.join("rec.sqlite")).await;
    let (_, body) = post_all(&proxy.url("/brotli"), RUN_INPUT).await;
    assert_eq!(body, brotli(&sse_body()));
    let recording = proxy.stop().await;
    let session = only_session(&recording);
    assert_eq!(raw_events(&recording, session), EVENTS.to_vec());
    assert_eq!(session.status, SessionStatus::Complete);
}

// ---------------------------------------------------------------------------
// 14. Messages that misled
// ---------------------------------------------------------------------------

// Issue 12, item 14: `import x.rec` said recording files are not supported.
#[test]
fn import_reads_the_sessions_of_a_recording() {
    let dir = TempDir::new("import-rec");
    let a = dir.join("a.jsonl");
    write_jsonl(&a);
    let b = dir.join("b.jsonl");
    std::fs::write(&b, format!("{}\n{}\n", EVENTS[0], EVENTS[4])).expect("write");
    let source = dir.join("source.rec");
    let output = run_bin(&["import", p(&a), p(&b), "--out", p(&source)]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let copy = dir.join("copy.rec");
    let output = run_bin(&["import", p(&source), "--out", p(&copy)]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let original = Recording::open(&source).expect("the source");
    let imported = Recording::open(&copy).expect("the copy");
    assert_eq!(imported.sessions().len(), 2);
    for (from, to) in original.sessions().iter().zip(imported.sessions()) {
        assert_eq!(raw_events(&imported, to), raw_events(&original, from));
        assert_eq!(
            imported.arrival_nanos(to.id).expect("arrivals"),
            original.arrival_nanos(from.id).expect("arrivals")
        );
        assert_eq!(to.status, from.status);
        assert!(to.source.contains(&from.source), "{}", to.source);
    }
}

// Issue 12, item 14: `--listen localhost:8787` was refused as invalid
// syntax.
#[test]
fn record_listens_on_a_host_name() {
    let dir = TempDir::new("localhost");
    let out = dir.join("rec.sqlite");
    let (_child, banner) = start_recorder(&[
        "--upstream",
        "http://127.0.0.1:9",
        "--listen",
        "localhost:0",
        "--out",
        p(&out),
    ]);
    let address: SocketAddr = banner_address(&banner).parse().expect("an address");
    assert!(address.ip().is_loopback(), "{banner}");
}

// Issue 12, item 14: invented error causes (`InvalidQuery`, printed as
// "Query is not read-only").
#[test]
fn creating_over_a_database_names_the_real_cause() {
    let dir = TempDir::new("exists");
    let input = dir.join("ok.jsonl");
    write_jsonl(&input);
    let rec = dir.join("there.rec");
    let output = run_bin(&["import", p(&input), "--out", p(&rec)]);
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let error = match RecordingWriter::create(&rec, false) {
        Err(error) => error,
        Ok(_) => panic!("a recording is never created over another"),
    };
    let mut chain = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        chain.push_str(": ");
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    assert!(chain.contains("already exists"), "{chain}");
    assert!(!chain.contains("Query is not read-only"), "{chain}");
}

// Issue 12, item 14: the proxy dropped a recording failure
// (`.begin(..).await.ok()`): the exchange went through unrecorded and
// nothing said so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exchange_the_proxy_cannot_record_is_reported() {
    let dir = TempDir::new("unrecorded");
    let out = dir.join("rec.sqlite");
    let agent = Agent::start().await;
    let writer = WriterThread::start_with(&out, StoreRedaction::default()).expect("the writer");
    let handle = writer.handle();
    let (stop, stopped) = watch::channel(false);
    let state = ProxyState::new(&agent.url(), handle.clone(), stopped).expect("proxy state");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
    let addr = listener.local_addr().expect("proxy address");
    let server = tokio::spawn(serve(listener, state));
    // Another connection holds the file's write lock longer than the
    // writer waits (5 s).
    let lock = rusqlite::Connection::open(&out).expect("another connection");
    lock.execute_batch("BEGIN IMMEDIATE")
        .expect("take the lock");
    let (_, body) = post_all(&format!("http://{addr}/echo"), RUN_INPUT).await;
    assert_eq!(body, sse_body(), "the exchange is forwarded all the same");
    assert_eq!(handle.counts().failures.load(Ordering::Relaxed), 1);
    lock.execute_batch("ROLLBACK").expect("release the lock");
    drop(lock);
    stop.send(true).expect("stop");
    tokio::time::timeout(WAIT, server)
        .await
        .expect("stopped in time")
        .expect("the task")
        .expect("served");
    drop(handle);
    tokio::task::spawn_blocking(move || writer.finish())
        .await
        .expect("the writer task")
        .expect("the writer finished");
    let recording = Recording::open(&out).expect("the recording");
    assert!(
        recording.sessions().is_empty(),
        "{}",
        recording.describe_sessions()
    );
}

// Issue 12, item 6: a recording opened without its log (immutable) still
// shows a bookmark saved into it afterwards.
#[test]
fn a_bookmark_saved_into_a_wal_recording_opened_alone_is_seen() {
    let dir = TempDir::new("wal-bookmark");
    let live = dir.join("live.rec");
    let mut writer = RecordingWriter::create(&live, false).expect("a live recording");
    writer
        .begin_session(agui_replay::store::NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            ..Default::default()
        })
        .expect("a session");
    for event in EVENTS {
        writer
            .append(event.as_bytes(), Arrival::now())
            .expect("an event");
    }
    writer.flush().expect("committed");
    writer.checkpoint().expect("folded into the file");
    let copies = TempDir::new("wal-bookmark-copy");
    let copy = copies.join("copy.rec");
    std::fs::copy(&live, &copy).expect("copy the main file alone");
    drop(writer);
    let recording = Recording::open(&copy).expect("the copy opens");
    let session = only_session(&recording).id;
    assert!(recording.bookmarks(session).expect("bookmarks").is_empty());
    agui_replay::store::add_bookmark(&copy, session, agui_replay::diagnostic::Seq::new(2), "here")
        .expect("saved");
    let bookmarks = recording.bookmarks(session).expect("bookmarks");
    assert_eq!(bookmarks.len(), 1, "{bookmarks:?}");
    assert_eq!(bookmarks[0].label, "here");
}
