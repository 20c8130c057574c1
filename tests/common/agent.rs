//! The pieces of an AG-UI agent served inside a test on 127.0.0.1: the
//! server (stopped when dropped) and the record of each request it got.
//! The suites that drive the proxy (`cli/record.rs`, `cli/hostile/files.rs`)
//! give it their own routes.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Request;
use axum::http::HeaderMap;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// An axum app served on loopback until dropped.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    handle: JoinHandle<()>,
}

impl Server {
    /// Serves `app` on a free port of 127.0.0.1.
    pub async fn start(app: Router) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind agent");
        let addr = listener.local_addr().expect("agent address");
        let handle = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, handle }
    }

    /// Its URL, `http://ADDR`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.handle.abort();
    }
}

/// A request the agent received.
#[derive(Clone, Debug)]
pub struct Received {
    /// `POST`, …
    pub method: String,
    /// The path alone.
    pub path: String,
    /// The path and the query.
    pub path_and_query: String,
    /// The headers as received.
    pub headers: HeaderMap,
    /// The body (at most 1 MiB).
    pub body: Vec<u8>,
}

impl Received {
    /// Reads `request` whole.
    pub async fn read(request: Request) -> Self {
        let (parts, body) = request.into_parts();
        let body = axum::body::to_bytes(body, 1 << 20)
            .await
            .expect("the request body");
        Self {
            method: parts.method.to_string(),
            path: parts.uri.path().to_owned(),
            path_and_query: parts
                .uri
                .path_and_query()
                .map_or_else(String::new, |p| p.as_str().to_owned()),
            headers: parts.headers,
            body: body.to_vec(),
        }
    }
}
