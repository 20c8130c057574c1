//! Recording live sessions over HTTP: a proxy in front of an agent
//! ([`proxy`]), and a direct capture run ([`capture`]). Both stream what
//! they see to a writer thread ([`writer_thread`]) that commits to a
//! recording at least every 50 ms (a killed recorder loses at most
//! 100 ms of events).

mod body;
pub mod capture;
pub mod decode;
pub mod proxy;
pub mod writer_thread;

pub use body::PROTOBUF_CONTENT_TYPE;
pub use proxy::{ProxyState, serve};

/// The most of one SSE line or frame a live recording keeps (issue 12):
/// 16 MiB, far more than any event. An upstream that sends more without
/// ending it has the event cut there (it replays as unparseable) and its
/// session marked truncated; the client still receives every byte.
pub const MAX_RECORDED_FRAME_BYTES: usize = 16 << 20;
pub use writer_thread::{BeginError, WriterHandle, WriterThread};
