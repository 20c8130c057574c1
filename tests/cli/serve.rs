//! `agui-replay serve` (issue 15): the real binary on a free port, a plain
//! HTTP/1.1 client posting run inputs; and the real `@ag-ui/client`
//! 1.0.0 `HttpAgent` pointed at it, when Node and the peer are installed
//! (`npm ci --prefix tests/peer/node`, run by `.ci/run`).

use std::io::Write;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agui_replay::store::Recording;
use serde_json::{Value, json};

use crate::common::bin::{BIN, KillOnDrop, drain, lines_of};
use crate::common::serve::{
    Received, SessionSpec, post, post_accepting, receive, session, texts, write_recording,
};
use crate::common::store::{assert_unchanged, file_state};
use crate::common::{TempPath, json_out, run, stderr};

/// The bound of every wait.
const WAIT: Duration = Duration::from_secs(10);

/// `agui-replay serve` running, killed when dropped.
struct Serving {
    child: KillOnDrop,
    address: SocketAddr,
    lines: mpsc::Receiver<(String, Instant)>,
    stdin: Option<std::process::ChildStdin>,
}

impl Serving {
    /// Starts `agui-replay serve FILE ARGS… --listen 127.0.0.1:0` and reads
    /// the address it listens on from its first line.
    fn start(file: &TempPath, args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .arg("serve")
            .arg(file.path())
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let stdin = child.stdin.take();
        let lines = lines_of(child.stdout.take().expect("stdout"));
        let (first, _) = lines.recv_timeout(WAIT).expect("serve prints its address");
        let address = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {first:?}"));
        Self {
            child: KillOnDrop(child),
            address,
            lines,
            stdin,
        }
    }

    /// Stops it with SIGTERM (as Ctrl-C) and returns what it printed after
    /// its first line.
    fn stop(mut self) -> String {
        let pid = self.child.0.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let status = self.child.0.wait().expect("serve exits");
        assert!(status.success(), "serve exited with {status}");
        let mut printed = String::new();
        while let Ok((line, _)) = self.lines.recv_timeout(WAIT) {
            printed.push_str(&line);
            printed.push('\n');
        }
        printed
    }

    /// The lines printed so far (waiting up to `within` for each).
    fn printed(&self, within: Duration) -> String {
        let mut printed = String::new();
        while let Ok((line, _)) = self.lines.recv_timeout(within) {
            printed.push_str(&line);
            printed.push('\n');
        }
        printed
    }
}

/// The recorded events of a spec, as their stored texts.
fn recorded(spec: &SessionSpec) -> Vec<String> {
    spec.events.iter().map(|(_, e)| e.to_string()).collect()
}

fn one_session(test: &str, spec: &SessionSpec) -> TempPath {
    let rec = TempPath::new(test, "served.rec");
    write_recording(rec.path(), std::slice::from_ref(spec));
    rec
}

fn span(received: &Received) -> Duration {
    match (received.events.first(), received.events.last()) {
        (Some((_, first)), Some((_, last))) => *last - *first,
        _ => Duration::ZERO,
    }
}

/// Issue 15.1: a POST at any path receives the recorded events, byte for
/// byte, as SSE, at the recorded timing (here 150 ms apart: 750 ms from
/// the first to the last).
#[test]
fn serve_sends_the_recorded_bytes_at_the_recorded_timing() {
    let spec = session("t-1", "r-1", 2, 150);
    let rec = one_session("serve-timing", &spec);
    let serving = Serving::start(&rec, &[]);
    let got = receive(
        &post(serving.address, "/any/path?x=1", &spec.run_input),
        WAIT,
    );
    assert!(got.ended, "the response ends after the last event");
    assert!(got.head.starts_with("HTTP/1.1 200"), "{}", got.head);
    assert!(
        got.head
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{}",
        got.head
    );
    assert_eq!(texts(&got), recorded(&spec));
    let took = span(&got);
    assert!(
        took >= Duration::from_millis(700),
        "the recorded 750 ms between the first and the last event took {took:?}"
    );
}

/// Issue 15.4: a client whose `Accept` asks for AG-UI's protobuf encoding
/// gets each recorded event as a length-prefixed protobuf `Event` that
/// decodes to the recorded JSON; the same client asking for SSE gets SSE.
#[test]
fn serve_sends_protobuf_to_a_client_that_asks_for_it() {
    let spec = session("t-1", "r-1", 3, 0);
    let rec = one_session("serve-proto", &spec);
    let serving = Serving::start(&rec, &["--as-fast-as-possible"]);
    let got = receive(
        &post_accepting(
            serving.address,
            "/agent",
            &spec.run_input,
            "application/vnd.ag-ui.event+proto",
        ),
        WAIT,
    );
    assert!(got.ended, "the response ends after the last event");
    assert!(
        got.head
            .to_ascii_lowercase()
            .contains("content-type: application/vnd.ag-ui.event+proto"),
        "{}",
        got.head
    );
    let as_json = |texts: Vec<String>| -> Vec<Value> {
        texts
            .iter()
            .map(|t| serde_json::from_str(t).unwrap_or_else(|e| panic!("{t}: {e}")))
            .collect()
    };
    assert_eq!(as_json(texts(&got)), as_json(recorded(&spec)));
    let sse = receive(&post(serving.address, "/agent", &spec.run_input), WAIT);
    assert!(
        sse.head
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{}",
        sse.head
    );
    assert_eq!(texts(&sse), recorded(&spec));
}

/// Issue 15.1: `--speed` scales the timing and `--as-fast-as-possible`
/// drops it; the events are the same.
#[test]
fn serve_speed_scales_the_recorded_timing() {
    let spec = session("t-1", "r-1", 8, 300);
    // 11 events, 3 s from the first to the last.
    let rec = one_session("serve-speed", &spec);
    let fast = Serving::start(&rec, &["--speed", "5"]);
    let got = receive(&post(fast.address, "/", &spec.run_input), WAIT);
    assert_eq!(texts(&got), recorded(&spec));
    let took = span(&got);
    assert!(
        took >= Duration::from_millis(550) && took < Duration::from_millis(2000),
        "3 s at speed 5 should take about 600 ms, took {took:?}"
    );
    let fastest = Serving::start(&rec, &["--as-fast-as-possible"]);
    let got = receive(&post(fastest.address, "/", &spec.run_input), WAIT);
    assert_eq!(texts(&got), recorded(&spec));
    let took = span(&got);
    assert!(
        took < Duration::from_millis(500),
        "as fast as possible took {took:?}"
    );
    let refused = run(&["serve", rec.s(), "--speed", "0"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("--speed 0"),
        "{}",
        stderr(&refused)
    );
}

/// Issue 15.1: `--to N` sends steps 1..=N and ends the response; with
/// `--hold` the response stays open at N.
#[test]
fn serve_to_ends_at_step_n_and_hold_keeps_it_open() {
    let spec = session("t-1", "r-1", 4, 10);
    let rec = one_session("serve-to", &spec);
    let to = Serving::start(&rec, &["--to", "3", "--as-fast-as-possible"]);
    let got = receive(&post(to.address, "/", &spec.run_input), WAIT);
    assert!(got.ended, "--to ends the response");
    assert_eq!(texts(&got), recorded(&spec)[..3]);
    let held = Serving::start(&rec, &["--to", "3", "--hold", "--as-fast-as-possible"]);
    let got = receive(
        &post(held.address, "/", &spec.run_input),
        Duration::from_millis(1500),
    );
    assert!(!got.ended, "--hold keeps the response open at step 3");
    assert_eq!(texts(&got), recorded(&spec)[..3]);
    let output = held.stop();
    assert!(output.contains("sent 3 of 8 events"), "{output}");
}

/// Issue 15.1: `--step` sends one event per Enter.
#[test]
fn serve_step_sends_one_event_per_enter() {
    let spec = session("t-1", "r-1", 2, 10);
    let rec = one_session("serve-step", &spec);
    let mut serving = Serving::start(&rec, &["--step"]);
    let seen = post(serving.address, "/", &spec.run_input);
    let nothing = receive(&seen, Duration::from_millis(600));
    assert!(nothing.events.is_empty(), "no event before Enter");
    let mut stdin = serving.stdin.take().expect("stdin");
    for expected in &recorded(&spec)[..3] {
        stdin.write_all(b"\n").expect("Enter");
        stdin.flush().expect("flush");
        let got = receive(&seen, Duration::from_millis(600));
        assert_eq!(&texts(&got), std::slice::from_ref(expected));
    }
}

/// Issue 15.1: several sessions: the one recorded with the request's
/// `runId`, else those of its `threadId` in turn, else all in turn;
/// `--session N` serves only N.
#[test]
fn serve_picks_the_session_by_run_and_thread_or_in_turn() {
    let specs = [
        session("t-1", "r-1", 1, 1),
        session("t-2", "r-2", 2, 1),
        session("t-1", "r-3", 3, 1),
    ];
    let rec = TempPath::new("serve-sessions", "three.rec");
    write_recording(rec.path(), &specs);
    let serving = Serving::start(&rec, &["--as-fast-as-possible"]);
    let ask = |body: Value| texts(&receive(&post(serving.address, "/", &body), WAIT));
    assert_eq!(ask(json!({"runId": "r-2"})), recorded(&specs[1]));
    assert_eq!(
        ask(json!({"threadId": "t-1", "runId": "new-1"})),
        recorded(&specs[0])
    );
    assert_eq!(
        ask(json!({"threadId": "t-1", "runId": "new-2"})),
        recorded(&specs[2])
    );
    assert_eq!(
        ask(json!({"threadId": "t-1", "runId": "new-3"})),
        recorded(&specs[0])
    );
    assert_eq!(ask(json!({"messages": []})), recorded(&specs[0]));
    assert_eq!(ask(json!({"messages": []})), recorded(&specs[1]));
    assert_eq!(ask(json!({"messages": []})), recorded(&specs[2]));
    let only = Serving::start(&rec, &["--as-fast-as-possible", "--session", "2"]);
    let got = receive(&post(only.address, "/", &json!({"runId": "r-1"})), WAIT);
    assert_eq!(texts(&got), recorded(&specs[1]));
}

/// Issue 15.1: loopback only unless `--allow-remote`, as `record`.
#[test]
fn serve_refuses_a_non_loopback_address_without_allow_remote() {
    let spec = session("t-1", "r-1", 1, 1);
    let rec = one_session("serve-remote", &spec);
    let output = run(&["serve", rec.s(), "--listen", "0.0.0.0:0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a loopback address")
            && stderr(&output).contains("--allow-remote"),
        "{}",
        stderr(&output)
    );
}

/// Issue 15.3: the run input is checked against the recorded one (R50,
/// E13), printed; `--save-requests` writes each request and what it was
/// sent into another recording; the file served is byte-identical after
/// serving, and naming it as `--save-requests` is refused.
#[test]
fn serve_checks_and_saves_the_requests_and_leaves_the_served_file_unchanged() {
    let spec = session("t-1", "r-1", 2, 1);
    let rec = one_session("serve-requests", &spec);
    let before = file_state(rec.path());
    let saved = TempPath::new("serve-requests", "requests.rec");
    let serving = Serving::start(
        &rec,
        &["--as-fast-as-possible", "--save-requests", saved.s()],
    );
    let same = receive(&post(serving.address, "/agent", &spec.run_input), WAIT);
    assert_eq!(texts(&same), recorded(&spec));
    let mut with_activity = spec.run_input.clone();
    with_activity["messages"]
        .as_array_mut()
        .expect("messages")
        .push(json!({"id": "plan-1", "role": "activity", "activityType": "PLAN", "content": {}}));
    receive(&post(serving.address, "/agent", &with_activity), WAIT);
    let mut other = spec.run_input.clone();
    other["messages"][0]["content"] = json!("Goodbye");
    receive(&post(serving.address, "/agent", &other), WAIT);
    let printed = serving.stop();
    let requests: Vec<&str> = printed.split("request ").skip(1).collect();
    assert_eq!(requests.len(), 3, "{printed}");
    assert!(
        !requests[0].contains("warning"),
        "the recorded run input sent back is fine: {printed}"
    );
    assert!(
        requests[1].contains("input.activity-message  plan-1"),
        "{printed}"
    );
    assert!(requests[2].contains("serve.input.differs"), "{printed}");
    assert!(printed.contains("served 3 requests"), "{printed}");
    assert_unchanged(rec.path(), &before, "serving it");
    let recording = Recording::open(saved.path()).expect("the requests are a recording");
    assert_eq!(recording.sessions().len(), 3);
    let bodies: Vec<Value> = recording
        .sessions()
        .iter()
        .map(|s| s.run_input().expect("a run input"))
        .collect();
    assert_eq!(bodies, [spec.run_input.clone(), with_activity, other]);
    assert_eq!(
        recording.sessions()[0].num_events,
        spec.events.len() as u64,
        "what the client was sent is saved too"
    );
    let refused = run(&["serve", rec.s(), "--save-requests", rec.s()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("never writes into it"),
        "{}",
        stderr(&refused)
    );
    assert_unchanged(rec.path(), &before, "refusing to save into it");
}

/// Issue 38: `serve` printed each request's path with its query string,
/// secrets included (`POST /agent?api_key=…`); it hides them as `record`
/// does in what it prints.
#[test]
fn serve_prints_request_paths_without_their_secret_parameters() {
    let spec = session("t-1", "r-1", 1, 1);
    let rec = one_session("serve-secrets", &spec);
    let serving = Serving::start(&rec, &["--as-fast-as-possible"]);
    let got = receive(
        &post(
            serving.address,
            "/agent?api_key=SECRET-K1&page=2&token=SECRET-T2",
            &spec.run_input,
        ),
        WAIT,
    );
    assert_eq!(texts(&got), recorded(&spec));
    let printed = serving.stop();
    assert!(!printed.contains("SECRET-"), "a secret printed: {printed}");
    assert!(
        printed.contains("POST /agent?api_key=[redacted]&page=2&token=[redacted] -> session 1"),
        "{printed}"
    );
}

// ------------------------------------------------------- 15.5 the real client

/// Where `@ag-ui/client` 1.0.0 is installed, or why the tests that need
/// it cannot run; with `AGUI_PEER_REQUIRED=1` (`.ci/run`) they fail then.
fn peer_or_skip(test: &str) -> Option<std::path::PathBuf> {
    match crate::common::peer::installed() {
        Ok(dir) => Some(dir),
        Err(why) if crate::common::peer::required() => {
            panic!("{test}: AGUI_PEER_REQUIRED=1 but {why}")
        }
        Err(why) => {
            println!("{test} NOT RUN: {why} (set AGUI_PEER_REQUIRED=1 to fail instead)");
            None
        }
    }
}

/// Runs `tests/peer/node/serve-client.js` against `address`: what the
/// `HttpAgent` received and ended with.
fn http_agent(dir: &std::path::Path, address: SocketAddr, run_input: &Value) -> Value {
    let mut child = Command::new("node")
        .arg("serve-client.js")
        .arg(format!("http://{address}/agent"))
        .current_dir(dir)
        .env("SUPPRESS_TRANSFORMATION_WARNINGS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let out = drain(child.stdout.take().expect("stdout"));
    let err = drain(child.stderr.take().expect("stderr"));
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(run_input.to_string().as_bytes())
        .expect("run input");
    drop(stdin);
    let status = child.wait().expect("node runs");
    let out = out.join().expect("stdout");
    let err = err.join().expect("stderr");
    assert!(
        status.success(),
        "serve-client.js: {status}\n{}",
        String::from_utf8_lossy(&err)
    );
    serde_json::from_slice(&out).unwrap_or_else(|e| {
        panic!(
            "serve-client.js wrote no JSON ({e}): {}",
            String::from_utf8_lossy(&out)
        )
    })
}

fn profile_json(args: &[&str]) -> Value {
    let output = run(args);
    json_out(&output)
}

/// Issue 15.5: the real `HttpAgent` pointed at `serve` receives exactly
/// the recorded events and ends with the messages `check --profile
/// ag-ui-client-1.0` ends with.
#[test]
fn serve_http_agent_receives_the_recorded_events_and_ends_with_checks_messages() {
    let Some(dir) = peer_or_skip("serve_http_agent_receives_the_recorded_events") else {
        return;
    };
    let spec = session("t-1", "r-1", 3, 5);
    let rec = one_session("serve-node", &spec);
    let serving = Serving::start(&rec, &["--as-fast-as-possible"]);
    let seen = http_agent(&dir, serving.address, &spec.run_input);
    let expected: Vec<Value> = spec.events.iter().map(|(_, e)| e.clone()).collect();
    assert_eq!(seen["wire"], Value::Array(expected.clone()), "{seen:#}");
    assert_eq!(
        seen["events"].as_array().map(Vec::len),
        Some(expected.len()),
        "the agent processed every event: {seen:#}"
    );
    assert_eq!(seen["outcome"], "completed", "{seen:#}");
    let check = profile_json(&[
        "check",
        rec.s(),
        "--profile",
        "ag-ui-client-1.0",
        "--format",
        "json",
    ]);
    assert_eq!(seen["messages"], check["messages"], "{seen:#}");
    drop(serving);
    // The bundled demo too (activities, reasoning, tool calls, state).
    let demo = TempPath::new("serve-node", "demo.rec");
    std::fs::copy(crate::common::demo_rec(), demo.path()).expect("copy the demo");
    let serving = Serving::start(&demo, &["--as-fast-as-possible"]);
    let seen = http_agent(&dir, serving.address, &json!({"threadId": "thread-42"}));
    let check = profile_json(&[
        "check",
        demo.s(),
        "--profile",
        "ag-ui-client-1.0",
        "--format",
        "json",
    ]);
    let demo_events: Vec<Value> = std::fs::read_to_string(crate::common::demo())
        .expect("the demo's lines")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(seen["wire"], Value::Array(demo_events));
    assert_eq!(
        seen["wire"].as_array().map(Vec::len),
        Some(check["events"].as_u64().expect("events") as usize)
    );
    assert_eq!(seen["messages"], check["messages"], "{seen:#}");
}

/// Issue 15.5: with `--to N`, the `HttpAgent`'s messages once the
/// response ends (whether `runAgent` resolves or rejects) are those of
/// `state --at N --profile ag-ui-client-1.0`.
#[test]
fn serve_to_n_leaves_the_http_agent_with_the_state_at_n() {
    let Some(dir) = peer_or_skip("serve_to_n_leaves_the_http_agent_with_the_state_at_n") else {
        return;
    };
    let spec = session("t-1", "r-1", 3, 5);
    let rec = one_session("serve-node-to", &spec);
    for n in [2u64, 4, 6] {
        let serving = Serving::start(&rec, &["--as-fast-as-possible", "--to", &n.to_string()]);
        let seen = http_agent(&dir, serving.address, &spec.run_input);
        assert_eq!(
            seen["wire"].as_array().map(Vec::len),
            Some(n as usize),
            "{seen:#}"
        );
        let state = profile_json(&[
            "state",
            rec.s(),
            "--at",
            &n.to_string(),
            "--profile",
            "ag-ui-client-1.0",
        ]);
        assert_eq!(seen["messages"], state["messages"], "--to {n}: {seen:#}");
        let printed = serving.printed(Duration::from_millis(300));
        assert!(printed.contains(&format!("sent {n} of")), "{printed}");
    }
}

/// Issue 15.1: a plain stream file is served too, as one session (its
/// events' bytes as the file holds them), and is left as it was.
#[test]
fn serve_serves_a_stream_file_as_one_session() {
    let lines = std::fs::read_to_string(crate::common::demo()).expect("the demo");
    let expected: Vec<String> = lines
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let file = TempPath::with_bytes("serve-jsonl", "demo.jsonl", lines.as_bytes());
    let serving = Serving::start(&file, &["--as-fast-as-possible"]);
    let got = receive(&post(serving.address, "/", &json!({})), WAIT);
    assert!(got.ended);
    assert_eq!(texts(&got), expected);
    drop(serving);
    assert_eq!(std::fs::read_to_string(file.path()).expect("reads"), lines);
}
