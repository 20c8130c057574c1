//! `agui-replay bench proxy`: an agent on loopback streams generated events
//! through the recording proxy to a client; throughput unpaced, and the
//! latency of paced events, through the proxy and directly.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use serde::Serialize;
use tokio::net::TcpListener;

use super::{GenConfig, generate};
use agui_replay::input::SseFramer;
use agui_replay::record::{ProxyState, WriterThread, serve};

/// The figures of `agui-replay bench proxy`.
#[derive(Clone, Debug, Serialize)]
pub struct ProxyFigures {
    /// Events streamed as fast as the agent can for the throughput figure.
    pub events: usize,
    /// Events per second received by the client through the proxy, recorded.
    pub proxy_events_per_sec: f64,
    /// Events per second received by the client directly from the agent.
    pub direct_events_per_sec: f64,
    /// Paced events for the latency figures (one every `pace_ms`).
    pub paced_events: usize,
    /// The pace of the latency stream.
    pub pace_ms: f64,
    /// Median time from the agent writing an event to the client reading
    /// it, through the proxy.
    pub proxy_latency_p50_ms: f64,
    /// 99th percentile of the same.
    pub proxy_latency_p99_ms: f64,
    /// Median of the same, directly (what the proxy adds is the difference).
    pub direct_latency_p50_ms: f64,
    /// 99th percentile, directly.
    pub direct_latency_p99_ms: f64,
}

/// What the agent streams, and when it wrote each frame.
struct Agent {
    frames: Vec<Bytes>,
    pace: Option<Duration>,
    sent: Mutex<Vec<Instant>>,
}

async fn stream_events(State(agent): State<Arc<Agent>>) -> Response {
    let frames = agent.frames.clone();
    let pace = agent.pace;
    let body = futures_util::stream::iter(frames).then(move |frame| {
        let agent = Arc::clone(&agent);
        async move {
            if let Some(pace) = pace {
                tokio::time::sleep(pace).await;
            }
            if let Ok(mut sent) = agent.sent.lock() {
                sent.push(Instant::now());
            }
            Ok::<_, std::io::Error>(frame)
        }
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(body))
        .unwrap_or_default()
}

async fn start_agent(
    frames: Vec<Bytes>,
    pace: Option<Duration>,
) -> anyhow::Result<(String, Arc<Agent>)> {
    let agent = Arc::new(Agent {
        frames,
        pace,
        sent: Mutex::new(Vec::new()),
    });
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let app = Router::new()
        .fallback(stream_events)
        .with_state(Arc::clone(&agent));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((format!("http://{address}"), agent))
}

/// Posts to `url` and returns when each event arrived.
async fn read_events(url: &str) -> anyhow::Result<Vec<Instant>> {
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{url}/agent"))
        .header("accept", "text/event-stream")
        .body("{}")
        .send()
        .await?;
    let mut framer = SseFramer::default();
    let mut arrivals = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        let now = Instant::now();
        framer.push(&chunk, &mut |_| arrivals.push(now));
    }
    let now = Instant::now();
    framer.finish(&mut |_| arrivals.push(now));
    Ok(arrivals)
}

/// Runs a proxy in front of `upstream` recording into `recording`; returns
/// its URL and what stops it.
async fn start_proxy(
    upstream: &str,
    recording: &Path,
) -> anyhow::Result<(
    String,
    tokio::sync::watch::Sender<bool>,
    WriterThread,
    tokio::task::JoinHandle<()>,
)> {
    let writer = WriterThread::start(recording)?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let state = ProxyState::new(upstream, writer.handle(), stopped)?;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let server = tokio::spawn(async move {
        let _ = serve(listener, state).await;
    });
    Ok((format!("http://{address}"), stop, writer, server))
}

fn frames(events: usize) -> Vec<Bytes> {
    let log = generate(GenConfig {
        events,
        activities: 100,
        seed: 7,
    });
    log.iter()
        .map(|(_, raw)| {
            let mut frame = Vec::with_capacity(raw.len() + 8);
            frame.extend_from_slice(b"data: ");
            frame.extend_from_slice(raw);
            frame.extend_from_slice(b"\n\n");
            Bytes::from(frame)
        })
        .collect()
}

fn latencies(sent: &[Instant], received: &[Instant]) -> Vec<f64> {
    let mut millis: Vec<f64> = sent
        .iter()
        .zip(received)
        .map(|(sent, received)| received.saturating_duration_since(*sent).as_secs_f64() * 1e3)
        .collect();
    millis.sort_by(f64::total_cmp);
    millis
}

/// Measures the proxy; the recording goes to a temporary file in `dir`.
pub fn proxy_figures(
    events: usize,
    paced_events: usize,
    dir: &Path,
) -> anyhow::Result<ProxyFigures> {
    let pace = Duration::from_millis(2);
    let work = dir.join(format!("agui-replay-bench-proxy-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let recording = work.join("throughput.rec");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        // Throughput, unpaced.
        let (agent_url, _) = start_agent(frames(events), None).await?;
        let started = Instant::now();
        let direct = read_events(&agent_url).await?;
        let direct_secs = started.elapsed().as_secs_f64();
        let (proxy_url, stop, writer, server) = start_proxy(&agent_url, &recording).await?;
        let started = Instant::now();
        let proxied = read_events(&proxy_url).await?;
        let proxy_secs = started.elapsed().as_secs_f64();
        anyhow::ensure!(
            direct.len() == events && proxied.len() == events,
            "events were lost"
        );

        // Latency, paced, through the proxy and directly.
        let (paced_url, paced_agent) = start_agent(frames(paced_events), Some(pace)).await?;
        let (paced_proxy_url, paced_stop, paced_writer, paced_server) =
            start_proxy(&paced_url, &work.join("latency.rec")).await?;
        let through = read_events(&paced_proxy_url).await?;
        let sent_through = std::mem::take(
            &mut *paced_agent
                .sent
                .lock()
                .map_err(|_| anyhow::anyhow!("lock"))?,
        );
        let straight = read_events(&paced_url).await?;
        let sent_straight = std::mem::take(
            &mut *paced_agent
                .sent
                .lock()
                .map_err(|_| anyhow::anyhow!("lock"))?,
        );

        for (stop, server) in [(stop, server), (paced_stop, paced_server)] {
            let _ = stop.send(true);
            let _ = server.await;
        }
        Ok::<_, anyhow::Error>((
            direct_secs,
            proxy_secs,
            latencies(&sent_through, &through),
            latencies(&sent_straight, &straight),
            [writer, paced_writer],
        ))
    });
    drop(runtime);
    let outcome = match result {
        Ok((direct_secs, proxy_secs, through, straight, writers)) => {
            for writer in writers {
                writer.finish()?;
            }
            let per_sec = |secs: f64| {
                if secs > 0.0 {
                    (events as f64 / secs).round()
                } else {
                    0.0
                }
            };
            let quantile = |sorted: &[f64], q: f64| super::percentile(sorted, q);
            Ok(ProxyFigures {
                events,
                proxy_events_per_sec: per_sec(proxy_secs),
                direct_events_per_sec: per_sec(direct_secs),
                paced_events,
                pace_ms: pace.as_secs_f64() * 1e3,
                proxy_latency_p50_ms: quantile(&through, 0.5),
                proxy_latency_p99_ms: quantile(&through, 0.99),
                direct_latency_p50_ms: quantile(&straight, 0.5),
                direct_latency_p99_ms: quantile(&straight, 0.99),
            })
        }
        Err(error) => Err(error),
    };
    let _ = std::fs::remove_dir_all(&work);
    outcome
}
