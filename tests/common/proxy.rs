//! The recording proxy in process, for the suites that drive it
//! (`cli/record.rs`, `cli/hostile/files.rs`): start it on loopback, stop it, open
//! what it recorded.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use agui_replay::record::{ProxyState, WriterThread, serve};
use agui_replay::store::Recording;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// How long a proxy, a writer or a response may take.
const WAIT: Duration = Duration::from_secs(20);

pub struct Proxy {
    /// Where the proxy listens.
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    writer: WriterThread,
    out: PathBuf,
}

impl Proxy {
    /// Starts a proxy to `upstream`, recording into `out`.
    pub async fn start(upstream: &str, out: PathBuf) -> Self {
        let writer = WriterThread::start(&out).expect("start the writer thread");
        let (stop, stopped) = watch::channel(false);
        let state = ProxyState::new(upstream, writer.handle(), stopped).expect("proxy state");
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy address");
        let server = tokio::spawn(serve(listener, state));
        Self {
            addr,
            stop,
            server,
            writer,
            out,
        }
    }

    /// The proxy's URL for `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops the proxy (the server must return within `within`), finishes
    /// the recording and opens it.
    pub async fn stop_within(self, within: Duration) -> Recording {
        let Self {
            stop,
            server,
            writer,
            out,
            ..
        } = self;
        stop.send(true)
            .expect("the proxy listens for the stop signal");
        let served = tokio::time::timeout(within, server)
            .await
            .unwrap_or_else(|_| panic!("the proxy did not stop within {within:?}"))
            .expect("the proxy task");
        served.expect("the proxy served without error");
        finish_writer(writer).await;
        Recording::open(&out).expect("the recording opens")
    }

    /// Stops it within the usual wait.
    pub async fn stop(self) -> Recording {
        self.stop_within(WAIT).await
    }
}

/// Finishes the writer thread, bounded in time.
async fn finish_writer(writer: WriterThread) {
    let (done, finished) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = done.send(writer.finish());
    });
    tokio::time::timeout(WAIT, finished)
        .await
        .expect("the writer finished in time (every handle dropped)")
        .expect("the writer thread answered")
        .expect("the recording was finished without error");
}

/// An HTTP client that never goes through a system proxy.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}
