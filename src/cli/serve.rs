//! `agui-replay serve`: a recording as an AG-UI endpoint (issue 15).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use super::EXIT_OK;
use super::check::write_diagnostic_line;
use super::record::checked_listen;
use crate::serve::{Pace, ServeConfig, ServeEvent, ServedFile, Server};

/// `serve` options.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The recording (or stream file) to serve; opened read-only.
    pub file: PathBuf,
    /// Where to listen: `HOST:PORT` (the same default as `record`, so a
    /// front end pointed at the proxy needs no change).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    pub listen: String,
    /// Serve only this session (default: each request gets the session its
    /// `runId` or `threadId` was recorded with, else the sessions in turn).
    #[arg(long, value_name = "N")]
    pub session: Option<i64>,
    /// Scale the recorded timing: 2 sends twice as fast.
    #[arg(long, value_name = "X", conflicts_with_all = ["as_fast_as_possible", "step"])]
    pub speed: Option<f64>,
    /// Send every event at once.
    #[arg(long, conflicts_with = "step")]
    pub as_fast_as_possible: bool,
    /// Send steps 1..=N, then end the response.
    #[arg(long, value_name = "N")]
    pub to: Option<u64>,
    /// With --to, keep the response open at step N.
    #[arg(long, requires = "to")]
    pub hold: bool,
    /// Send one event each time Enter is pressed.
    #[arg(long)]
    pub step: bool,
    /// Allow listening on an address other than loopback.
    #[arg(long)]
    pub allow_remote: bool,
    /// Write each request (its run input) and what it was sent into this
    /// recording (never into the file served).
    #[arg(long, value_name = "OUT.rec")]
    pub save_requests: Option<PathBuf>,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

pub(super) fn run(args: &ServeArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let listen = checked_listen(&args.listen, args.allow_remote, "serve")?;
    let pace = match (args.speed, args.as_fast_as_possible, args.step) {
        (_, _, true) => Pace::Step,
        (_, true, _) => Pace::AsFastAsPossible,
        (Some(speed), _, _) if !(speed.is_finite() && speed > 0.0) => {
            bail!("--speed {speed} is not a factor above 0 (like 0.5 or 2)")
        }
        (Some(speed), _, _) => Pace::Recorded { speed },
        (None, false, false) => Pace::Recorded { speed: 1.0 },
    };
    let file = ServedFile::load(&args.file, args.session)?;
    let described: Vec<String> = file
        .sessions
        .iter()
        .map(|s| {
            format!(
                "session {}: {}",
                s.id,
                plural(s.num_events(), "event", "events")
            )
        })
        .collect();
    let mut config = ServeConfig::new(listen);
    config.pace = pace;
    config.to = args.to;
    config.hold = args.hold;
    config.save_requests = args.save_requests.clone();
    config.stop_on_signal = true;
    let server = Server::start(file, config)?;
    let address = server.address();
    let pace_words = match pace {
        Pace::Recorded { speed: 1.0 } => "at the recorded timing".to_owned(),
        Pace::Recorded { speed } => format!("at {speed}× the recorded speed"),
        Pace::AsFastAsPossible => "as fast as possible".to_owned(),
        Pace::Step | Pace::Follow => "one event per Enter".to_owned(),
    };
    let to_words = match (args.to, args.hold) {
        (Some(n), true) => format!(", up to step {n} and held there"),
        (Some(n), false) => format!(", up to step {n}"),
        (None, _) => String::new(),
    };
    writeln!(
        out,
        "serving {} on http://{address} ({}), {pace_words}{to_words}",
        args.file.display(),
        described.join(", ")
    )?;
    writeln!(
        out,
        "point your front end at http://{address} (any path); Ctrl-C to stop"
    )?;
    out.flush()?;
    if args.step {
        let handle = server.handle();
        eprintln!("press Enter to send the next event");
        std::thread::Builder::new()
            .name("serve --step".into())
            .spawn(move || {
                for line in std::io::stdin().lock().lines() {
                    if line.is_err() {
                        break;
                    }
                    handle.advance(1);
                }
            })
            .context("cannot read the terminal")?;
    }
    let mut num_requests = 0u64;
    loop {
        match server.events().recv_timeout(Duration::from_millis(200)) {
            Ok(event) => {
                if matches!(event, ServeEvent::Request(_)) {
                    num_requests += 1;
                }
                print_event(&event, num_requests, out)?;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if server.is_running() => {}
            Err(_) => break,
        }
    }
    while let Ok(event) = server.events().try_recv() {
        print_event(&event, num_requests, out)?;
    }
    server.stop()?;
    writeln!(
        out,
        "served {}",
        plural(num_requests, "request", "requests")
    )?;
    if let Some(saved) = &args.save_requests {
        writeln!(out, "saved the requests into {}", saved.display())?;
    }
    Ok(EXIT_OK)
}

fn print_event(event: &ServeEvent, number: u64, out: &mut dyn Write) -> std::io::Result<()> {
    match event {
        ServeEvent::Request(request) => {
            writeln!(
                out,
                "request {number} from {}: {} {} -> session {}",
                request.client, request.method, request.path, request.session
            )?;
            for d in &request.diagnostics {
                write_diagnostic_line(d, out)?;
            }
        }
        ServeEvent::Ended(end) => writeln!(
            out,
            "session {} to {}: sent {} of {} ({})",
            end.session,
            end.client,
            end.sent,
            plural(end.total, "event", "events"),
            end.reason.as_str()
        )?,
        ServeEvent::Skipped(skipped) => writeln!(
            out,
            "session {} to {}: step {} not sent: {}",
            skipped.session, skipped.client, skipped.step, skipped.reason
        )?,
    }
    out.flush()
}
