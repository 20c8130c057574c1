//! Serving a recording as an AG-UI endpoint (issue 15): a front end that
//! POSTs a run input, at any path, receives a recorded session's events,
//! their bytes as recorded, at the recorded timing or as it is told
//! ([`Pace`]); what it sent is kept and compared with the recorded run
//! input ([`check_run_input`], R50, E13).
//!
//! No UI here: the command line (`agui-replay serve`) and the app both
//! start a [`Server`] and drive it through its [`ServeHandle`]
//! ("send up to step N", "reset").

mod encoding;
mod request;
mod server;
mod source;

pub use encoding::BodyEncoding;
pub use request::{ReceivedRequest, check_run_input};
pub use server::{
    EndReason, Pace, ServeConfig, ServeError, ServeEvent, ServeHandle, ServeStatus, Server,
    SkippedEvent, StreamEnd,
};
pub use source::{LoadError, ServedFile, ServedSession};
