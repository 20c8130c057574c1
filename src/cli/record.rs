//! `agui-replay record` (the recording proxy) and `agui-replay run` (a
//! direct capture).

use std::io::{IsTerminal, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use super::{EXIT_OK, EXIT_RUN_FAILED};
use crate::record::capture::{Capture, capture};
use crate::record::{ProxyState, WriterThread, serve};
use crate::store::{SessionStatus, StoreRedaction};

/// `record` options.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The agent to forward to (a base URL; request paths are appended).
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Where the proxy listens: `HOST:PORT`, the host an address or a name
    /// (`localhost:8787`), resolved.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    pub listen: String,
    /// The recording to write (sessions are added if it exists).
    #[arg(long, value_name = "REC")]
    pub out: PathBuf,
    /// Allow listening on an address other than loopback.
    #[arg(long)]
    pub allow_remote: bool,
    /// What the recording hides of the requests.
    #[command(flatten)]
    pub redaction: RedactionArgs,
}

/// What `record` and `run` hide in what they store, beyond the defaults
/// (secret headers; the query parameters of
/// [`SECRET_QUERY_PARAMS`](crate::store::SECRET_QUERY_PARAMS) and a URL's
/// password; the `forwardedProps` members of
/// [`SECRET_FIELD_NAMES`](crate::store::SECRET_FIELD_NAMES)).
#[derive(Debug, Args)]
pub struct RedactionArgs {
    /// Also hide the value of this query parameter (repeatable; compared
    /// without case, `-` and `_`).
    #[arg(long = "redact-param", value_name = "NAME")]
    pub params: Vec<String>,
    /// Also hide the value at this JSON pointer in the run input (request
    /// body), wherever it resolves (repeatable), e.g. `/state/session`.
    #[arg(long = "redact-field", value_name = "POINTER", value_parser = parse_field)]
    pub fields: Vec<String>,
}

fn parse_field(pointer: &str) -> Result<String, String> {
    crate::export::parse_pointer(pointer).map_err(|e| e.to_string())?;
    Ok(pointer.to_owned())
}

impl RedactionArgs {
    fn redaction(&self) -> StoreRedaction {
        StoreRedaction {
            params: self.params.clone(),
            fields: self.fields.clone(),
        }
    }
}

/// The addresses `--listen` names: an address, or a host name resolved
/// (`localhost:8787`).
fn listen_addresses(listen: &str) -> anyhow::Result<Vec<SocketAddr>> {
    if let Ok(address) = listen.parse::<SocketAddr>() {
        return Ok(vec![address]);
    }
    if listen
        .rsplit_once(':')
        .is_none_or(|(_, port)| port.parse::<u16>().is_err())
    {
        bail!("--listen {listen:?} is not HOST:PORT (like 127.0.0.1:8787 or localhost:8787)");
    }
    let addresses: Vec<SocketAddr> = listen
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve --listen {listen:?}"))?
        .collect();
    if addresses.is_empty() {
        bail!("--listen {listen:?} resolves to no address");
    }
    Ok(addresses)
}

/// The addresses `--listen` names, refused unless all are loopback or
/// `allow_remote` (`record` and `serve`): `what` would accept requests
/// from other machines.
pub(super) fn checked_listen(
    listen: &str,
    allow_remote: bool,
    what: &str,
) -> anyhow::Result<Vec<SocketAddr>> {
    let addresses = listen_addresses(listen)?;
    if let Some(remote) = addresses.iter().find(|a| !a.ip().is_loopback())
        && !allow_remote
    {
        bail!(
            "{} is not a loopback address{}: {what} would accept requests from other machines; pass --allow-remote to do so",
            remote,
            if listen.parse::<SocketAddr>().is_ok() {
                String::new()
            } else {
                format!(" ({listen} resolves to it)")
            }
        );
    }
    Ok(addresses)
}

/// `run` options.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The agent's URL.
    pub url: String,
    /// The run input to post (a JSON file).
    #[arg(long, value_name = "RUN.json")]
    pub input: PathBuf,
    /// The recording to write (a session is added if it exists).
    #[arg(long, value_name = "REC")]
    pub out: PathBuf,
    /// An extra request header, `Name: value` (repeatable).
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// What the recording hides of the request.
    #[command(flatten)]
    pub redaction: RedactionArgs,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the network runtime")
}

pub(super) fn record(args: &RecordArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let addresses = checked_listen(&args.listen, args.allow_remote, "the proxy")?;
    let upstream = args.upstream.trim_end_matches('/').to_owned();
    if reqwest::Url::parse(&upstream).is_err() {
        bail!("--upstream {upstream:?} is not a URL (like http://localhost:8000)");
    }
    let redaction = args.redaction.redaction();
    // Printed without its password and secret parameters (issue 12).
    let shown_upstream = redaction.url(&upstream).0;
    let writer = WriterThread::start_with(&args.out, redaction.clone())?;
    let runtime = runtime()?;
    let handle = writer.handle();
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addresses.as_slice())
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr()?;
        writeln!(
            out,
            "recording proxy on http://{address} -> {shown_upstream}, writing {}",
            args.out.display()
        )?;
        writeln!(
            out,
            "point your front end at http://{address}; Ctrl-C to stop"
        )?;
        out.flush()?;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let state = ProxyState::new(&upstream, handle.clone(), stopped)?.with_redaction(redaction);
        let live = tokio::spawn(live_line(handle.clone()));
        tokio::spawn(async move {
            wait_for_stop_signal().await;
            let _ = stop.send(true);
        });
        let served = serve(listener, state).await;
        live.abort();
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[K");
        }
        served.context("the proxy stopped")
    });
    let counts = handle.counts();
    let (sessions, events, failures) = (
        counts.sessions.load(Ordering::Relaxed),
        counts.events.load(Ordering::Relaxed),
        counts.failures.load(Ordering::Relaxed),
    );
    drop(handle);
    drop(runtime);
    // A recording that could not be written whole (the disk full) is said,
    // and exits 1 as documented, not as bad usage (issue 38): every
    // exchange was still forwarded.
    let finished = writer.finish();
    result?;
    writeln!(
        out,
        "recorded {sessions} sessions, {events} events into {}",
        args.out.display()
    )?;
    if let Err(error) = &finished {
        eprintln!(
            "error: the recording is incomplete: {}",
            crate::error::error_chain(error)
        );
    }
    if failures > 0 {
        eprintln!("error: {failures} exchanges were forwarded but not recorded (see above)");
    }
    if finished.is_err() || failures > 0 {
        return Ok(EXIT_RUN_FAILED);
    }
    Ok(EXIT_OK)
}

/// Ctrl-C, or SIGTERM.
async fn wait_for_stop_signal() {
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = async {
                match &mut terminate {
                    Some(signal) => { signal.recv().await; }
                    None => std::future::pending::<()>().await,
                }
            } => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The live line: sessions and events recorded so far (on a terminal).
async fn live_line(handle: crate::record::WriterHandle) {
    if !std::io::stderr().is_terminal() {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tick.tick().await;
        let counts = handle.counts();
        eprint!(
            "\rrecorded: {} sessions, {} events",
            counts.sessions.load(Ordering::Relaxed),
            counts.events.load(Ordering::Relaxed)
        );
    }
}

pub(super) fn run(args: &RunArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let input = std::fs::read(&args.input).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the run input ({}): {}",
            crate::error::io_cause(&e),
            args.input.display()
        )
    })?;
    if serde_json::from_slice::<serde_json::Value>(&input).is_err() {
        bail!("the run input is not JSON: {}", args.input.display());
    }
    let mut headers = Vec::new();
    for header in &args.headers {
        let Some((name, value)) = header.split_once(':') else {
            bail!("-H {header:?} is not `Name: value`");
        };
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let redaction = args.redaction.redaction();
    let request = Capture {
        url: args.url.clone(),
        input,
        headers,
        shown_url: redaction.url(&args.url).0,
    };
    let writer = WriterThread::start_with(&args.out, redaction)?;
    let handle = writer.handle();
    let runtime = runtime()?;
    let mut print = |seq: u64, raw: &[u8]| {
        let summary = summarize(raw);
        let _ = writeln!(out, "{seq:>6}  {summary}");
    };
    let captured = runtime.block_on(capture(&request, &handle, &mut print));
    drop(handle);
    drop(runtime);
    let finished = writer.finish();
    let captured = captured?;
    let truncated = captured.ended == SessionStatus::Truncated;
    writeln!(
        out,
        "recorded {} events (HTTP {}) into {}, session {}{}",
        captured.num_events,
        captured.status,
        args.out.display(),
        captured.session,
        if truncated { " (truncated)" } else { "" }
    )?;
    if let Err(error) = &finished {
        // As `record` (issue 38): said, exit 1.
        eprintln!(
            "error: the recording is incomplete: {}",
            crate::error::error_chain(error)
        );
        return Ok(EXIT_RUN_FAILED);
    }
    if !(200..300).contains(&captured.status) {
        eprintln!("error: the agent answered HTTP {}", captured.status);
        return Ok(EXIT_RUN_FAILED);
    }
    if !captured.event_stream {
        eprintln!(
            "error: the agent did not answer with an event stream (text/event-stream or application/vnd.ag-ui.event+proto)"
        );
        return Ok(EXIT_RUN_FAILED);
    }
    if truncated {
        // The stream was cut short (the agent died mid-stream, issue 38):
        // the run did not end, so it failed.
        match &captured.cut_short {
            Some(why) => eprintln!(
                "error: the stream was truncated after {} events: {why}",
                captured.num_events
            ),
            None => eprintln!(
                "error: the stream was truncated after {} events",
                captured.num_events
            ),
        }
        return Ok(EXIT_RUN_FAILED);
    }
    Ok(EXIT_OK)
}

/// `TYPE messageId` of an event, or its first bytes if it is not one.
fn summarize(raw: &[u8]) -> String {
    let keys = crate::input::EventKeys::of(raw);
    match (keys.event_type, keys.message_id) {
        (Some(event_type), Some(id)) => format!("{event_type}  {id}"),
        (Some(event_type), None) => event_type.into_owned(),
        _ => {
            let text = String::from_utf8_lossy(raw);
            let cut: String = text.chars().take(60).collect();
            format!("(not an event) {cut}")
        }
    }
}
