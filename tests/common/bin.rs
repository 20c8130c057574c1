//! Running the built binary: to its end, with standard input, within a
//! time, or in the background until dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_agui-replay");

/// Runs the binary with `args`, feeding `stdin` if given (else no input).
pub fn run_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(bytes).expect("write stdin");
        drop(pipe);
    }
    child.wait_with_output().expect("the binary runs")
}

/// Runs the binary with `args` and no input.
pub fn run(args: &[&str]) -> Output {
    run_with_stdin(args, None)
}

/// Runs the binary and requires exit 0.
pub fn run_ok(args: &[&str]) -> Output {
    let output = run(args);
    assert_eq!(
        code(&output),
        0,
        "agui-replay {}\nstdout: {}\nstderr: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    output
}

/// Runs the binary with its address space capped (`ulimit -v`, KiB): a
/// memory bomb then fails instead of taking the machine.
pub fn run_capped(kib: u64, args: &[&str]) -> Output {
    let mut script = format!("ulimit -v {kib}; exec \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .args(args)
        .output()
        .expect("sh runs")
}

/// Reads a pipe to its end on a thread of its own.
pub fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Runs the binary to its end, killing it (and failing) after `within`.
pub fn run_within<S: AsRef<str>>(args: &[S], within: Duration) -> Output {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    let mut child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = drain(child.stdout.take().expect("stdout"));
    let stderr = drain(child.stderr.take().expect("stderr"));
    let deadline = Instant::now() + within;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the binary") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("agui-replay {args:?} did not end within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
}

/// A child killed (`kill -9`) when dropped: a failing test leaves no
/// process behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Each line of a child's pipe as it comes, with the time it was read.
pub fn lines_of(pipe: impl Read + Send + 'static) -> mpsc::Receiver<(String, Instant)> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if send.send((line, Instant::now())).is_err() {
                break;
            }
        }
    });
    receive
}

/// The exit code; fails if the binary was killed by a signal.
pub fn code(output: &Output) -> i32 {
    output.status.code().expect("exited with a code")
}

/// The exit code, or `None` if a signal ended the binary.
pub fn exit_code(output: &Output) -> Option<i32> {
    output.status.code()
}

/// Standard output, which must be UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// Standard error, lossily.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Parses stdout as one JSON value, with a readable failure.
pub fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); exit {:?}\n{}\nstderr:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            stderr(output)
        )
    })
}

/// `check ARGS… --format json`: the output and its report.
pub fn check_json(args: &[&str]) -> (Output, Value) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = run(&all);
    let report = json_out(&output);
    (output, report)
}
