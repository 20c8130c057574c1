//! Recording live sessions over HTTP: a proxy in front of an agent
//! ([`proxy`]), and a direct capture run ([`capture`]). Both stream what
//! they see to a writer thread ([`writer_thread`]) that commits to a
//! recording at least every 100 ms.

pub mod capture;
pub mod decode;
pub mod proxy;
pub mod writer_thread;

pub use proxy::{PROTOBUF_CONTENT_TYPE, ProxyState, serve};
pub use writer_thread::{BeginError, WriterHandle, WriterThread};
