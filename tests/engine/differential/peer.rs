//! The two consumers of the differential test: the engine under the
//! `ag-ui-client-1.0` profile, and the real `@ag-ui/client` 1.0.0 run by
//! `tests/peer/node/replay.js` in one long-lived Node process.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use agui_replay::{Options, Outcome, Profile, Replayer};
use serde_json::Value;

/// What a consumer showed at the end of a stream.
#[derive(Clone, Debug)]
pub struct Observed {
    /// `completed`, or `error` when the consumer refused the stream (the
    /// engine's failed run; the client's `runAgent()` rejecting).
    pub outcome: String,
    /// The refusal's message.
    pub error: Option<String>,
    /// The event refused (its seq, from 1).
    pub failed_at: Option<u64>,
    /// The message list, in order.
    pub messages: Vec<Value>,
    /// The shared state.
    pub state: Value,
}

/// The engine under the client profile, from the wire texts.
pub fn engine(events: &[String]) -> Observed {
    let mut replayer = Replayer::new(Options::for_profile(Profile::AgUiClient10));
    for event in events {
        replayer.apply_bytes(event.as_bytes());
    }
    replayer.finish();
    let messages = match replayer.conversation().to_json() {
        Value::Array(messages) => messages,
        other => vec![other],
    };
    Observed {
        outcome: match replayer.outcome() {
            Outcome::Ok => "completed".into(),
            Outcome::Failed => "error".into(),
        },
        error: replayer
            .fatal()
            .map(|d| format!("{}: {}", d.code, d.message)),
        failed_at: replayer.fatal().map(|d| d.seq.get()),
        messages,
        state: replayer.state().clone(),
    }
}

/// The reference client, running.
pub struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    /// Starts the peer, or says why it cannot run here.
    pub fn spawn() -> Result<Self, String> {
        let dir = crate::common::peer::installed()?;
        let mut child = Command::new("node")
            .arg("replay.js")
            .current_dir(&dir)
            .env("SUPPRESS_TRANSFORMATION_WARNINGS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start node replay.js: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            stdin,
            stdout,
        })
    }

    /// Replays a batch of streams (each the wire texts of its events); one
    /// answer per stream, in order.
    pub fn run(&mut self, streams: &[Vec<String>]) -> Vec<Observed> {
        let stdin = &mut self.stdin;
        let stdout = &mut self.stdout;
        std::thread::scope(|scope| {
            let writer = scope.spawn(move || {
                let mut buffered = std::io::BufWriter::new(stdin);
                for stream in streams {
                    let line = serde_json::to_string(stream).expect("strings serialise");
                    buffered.write_all(line.as_bytes()).expect("peer stdin");
                    buffered.write_all(b"\n").expect("peer stdin");
                }
                buffered.flush().expect("peer stdin");
            });
            let mut answers = Vec::with_capacity(streams.len());
            let mut line = String::new();
            for _ in streams {
                line.clear();
                let read = stdout.read_line(&mut line).expect("peer stdout");
                assert!(read > 0, "the peer exited early");
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("the peer wrote {line:?}: {e}"));
                assert_ne!(
                    v["outcome"], "peer-failure",
                    "the peer failed: {}",
                    v["error"]
                );
                answers.push(Observed {
                    outcome: v["outcome"].as_str().unwrap_or("?").to_owned(),
                    error: v["error"].as_str().map(str::to_owned),
                    failed_at: v["failedAt"].as_u64(),
                    messages: v["messages"].as_array().cloned().unwrap_or_default(),
                    state: v.get("state").cloned().unwrap_or(Value::Null),
                });
            }
            writer.join().expect("writer thread");
            answers
        })
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Closing stdin ends the peer's loop; wait for it so no process is
        // left behind.
        let _ = self.stdin.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
