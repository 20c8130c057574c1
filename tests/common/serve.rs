//! Serving (issue 15): recordings made for it (timed events, a recorded
//! run input, several sessions), and a plain HTTP/1.1 client on a
//! `std::net::TcpStream` that posts a run input and hands over each SSE
//! event as it arrives.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agui_replay::input::{HttpRequest, SseFramer};
use agui_replay::store::{Arrival, NewSession, RecordingWriter, SessionStatus};
use serde_json::{Value, json};

/// One session to record: its run input and its events, each with its
/// arrival time in milliseconds.
pub struct SessionSpec {
    /// The request body.
    pub run_input: Value,
    /// `(arrival ms, event)`.
    pub events: Vec<(u64, Value)>,
}

/// A run of `thread`/`run`: the user's message, then an assistant's reply
/// in `num_deltas` pieces, `step_ms` apart.
pub fn session(thread: &str, run: &str, num_deltas: usize, step_ms: u64) -> SessionSpec {
    let run_input = json!({
        "threadId": thread, "runId": run, "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": "Hello"}],
    });
    let message = format!("a-{run}");
    let mut events = vec![json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})];
    events.push(json!({"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"}));
    for i in 0..num_deltas {
        events.push(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": format!("part {i}. ")}));
    }
    events.push(json!({"type": "TEXT_MESSAGE_END", "messageId": message}));
    events.push(json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run}));
    let events = events
        .into_iter()
        .enumerate()
        .map(|(i, e)| (i as u64 * step_ms, e))
        .collect();
    SessionSpec { run_input, events }
}

/// Writes `sessions` into a new recording at `path`, as `record` would
/// (a POST with the run input, SSE events at their arrival times).
pub fn write_recording(path: &Path, sessions: &[SessionSpec]) {
    let mut writer = RecordingWriter::create(path, false).expect("creates the recording");
    for spec in sessions {
        writer
            .begin_session(NewSession {
                source: "proxy".into(),
                format: "sse".into(),
                request: Some(HttpRequest {
                    method: "POST".into(),
                    url: "http://agent.test/agent".into(),
                    headers: vec![("content-type".into(), "application/json".into())],
                    body: Some(spec.run_input.to_string().into_bytes()),
                }),
                ..NewSession::default()
            })
            .expect("begins");
        for (ms, event) in &spec.events {
            writer
                .append(event.to_string().as_bytes(), Arrival::at(ms * 1_000_000))
                .expect("appends");
        }
        writer.end_session(SessionStatus::Complete).expect("ends");
    }
    writer.finish().expect("finishes");
}

/// What the client saw.
#[derive(Debug)]
pub enum Seen {
    /// The response's status line and headers.
    Head(String),
    /// One event's data, and when it came.
    Event(String, Instant),
}

/// Posts `body` to `address` at `path` and reads the response on a thread
/// of its own: the head, then each event, as they come; the channel closes
/// when the response ends.
pub fn post(address: SocketAddr, path: &str, body: &Value) -> mpsc::Receiver<Seen> {
    post_accepting(address, path, body, "text/event-stream")
}

/// As [`post`], asking for the body encoding `accept` names: with AG-UI's
/// protobuf media type each frame is decoded, and seen as its JSON text.
pub fn post_accepting(
    address: SocketAddr,
    path: &str,
    body: &Value,
    accept: &str,
) -> mpsc::Receiver<Seen> {
    let proto = accept.contains(agui_replay::protocol::proto::CONTENT_TYPE);
    let accept = accept.to_owned();
    let body = body.to_string();
    let path = path.to_owned();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok(mut stream) = TcpStream::connect(address) else {
            return;
        };
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: {accept}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        if stream.write_all(request.as_bytes()).is_err() {
            return;
        }
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        if send.send(Seen::Head(head)).is_err() {
            return;
        }
        let mut sse = SseFramer::default();
        let mut frames = agui_replay::protocol::proto::ProtoFramer::default();
        let mut emit = |event: &[u8]| {
            let text = if proto {
                agui_replay::protocol::proto::decode_frame(event)
                    .unwrap_or_else(|e| format!("undecodable frame: {e}"))
            } else {
                String::from_utf8_lossy(event).into_owned()
            };
            let _ = send.send(Seen::Event(text, Instant::now()));
        };
        loop {
            let data = if chunked {
                let mut size = String::new();
                match reader.read_line(&mut size) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
                    break;
                };
                if size == 0 {
                    break;
                }
                let mut data = vec![0; size + 2];
                if reader.read_exact(&mut data).is_err() {
                    break;
                }
                data.truncate(size);
                data
            } else {
                let mut data = vec![0; 4096];
                match reader.read(&mut data) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        data.truncate(n);
                        data
                    }
                }
            };
            if proto {
                frames.push(&data, &mut emit);
            } else {
                sse.push(&data, &mut emit);
            }
        }
        if proto {
            frames.finish(&mut emit);
        } else {
            sse.finish(&mut emit);
        }
    });
    receive
}

/// The events of a response, waiting up to `within` for each; `ended` says
/// whether the response ended (else it was still open after `within`).
pub struct Received {
    /// The head.
    pub head: String,
    /// Each event and when it came.
    pub events: Vec<(String, Instant)>,
    /// The response ended.
    pub ended: bool,
}

/// Reads a response until it ends, or until no event came for `within`.
pub fn receive(seen: &mpsc::Receiver<Seen>, within: Duration) -> Received {
    let mut received = Received {
        head: String::new(),
        events: Vec::new(),
        ended: false,
    };
    loop {
        match seen.recv_timeout(within) {
            Ok(Seen::Head(head)) => received.head = head,
            Ok(Seen::Event(event, at)) => received.events.push((event, at)),
            Err(mpsc::RecvTimeoutError::Timeout) => return received,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                received.ended = true;
                return received;
            }
        }
    }
}

/// The events' texts.
pub fn texts(received: &Received) -> Vec<String> {
    received.events.iter().map(|(e, _)| e.clone()).collect()
}
