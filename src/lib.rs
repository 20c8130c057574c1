//! agui-replay: a record/replay debugger for AG-UI agent event streams.
//!
//! An agent streams AG-UI events to a UI; this crate reads such a stream
//! ([`input`]), validates each event ([`protocol`]), and replays it rule by
//! rule ([`replay`]) so that the conversation, the shared state and every
//! activity's content and metadata are known at every step, with each problem
//! reported as a [`Diagnostic`] on the event that caused it. The rules are
//! those of `REPLAY-RULES.md`; their ids (`R1`…) are cited in the code.
//!
//! Start reading at [`Replayer`]: feed it parsed events with
//! [`Replayer::apply`], read [`Replayer::conversation`], [`Replayer::state`]
//! and [`Replayer::diagnostics`]. The command line ([`cli`]) is a thin layer
//! over it.
//!
//! [`rules`] is the rules reference (`docs/RULES.md`) built into the binary:
//! what each rule id and diagnostic code means.
//!
//! [`schemas`] checks activity contents and the state against JSON Schemas
//! of the user's (`check --schemas`) and infers them from recordings.
//!
//! [`compare`] aligns two streams (two runs of the same agent) and finds
//! where their events and their states part.
//!
//! [`whatif`] edits a stream (drop, replace or insert an event) into a new
//! one, the recording untouched, for the replay and `compare` to read.
//!
//! The top-level modules import one another one way (issue 44; the test
//! `tests/layers.rs` fails on a cycle), from the leaves up:
//!
//! - leaves: [`diagnostic`], [`error`], [`event_log`] (the raw events),
//!   [`limits`] (what a patch may build, a value's weight), [`pointer`]
//!   (JSON pointers), [`surrogate`] (lone UTF-16 halves),
//!   [`file_identity`], [`rules`];
//! - [`protocol`] (parsing events), then [`input`] (reading streams) and
//!   [`replay`] (the rules);
//! - [`timeline`] (seeking), then [`search`], [`diff`], [`compare`],
//!   [`whatif`], [`conformance`];
//! - [`store`] (recordings), then [`export`], [`open`], [`record`],
//!   [`timing`], [`serve`];
//! - [`cli`] and `ui` on top (the CLI opens the app, never the reverse).
//!
//! The engine modules (`protocol`, `input`, `replay`, `timeline`, `store`,
//! `record`, `export`, `rules`, `compare`, `whatif`) know nothing of the UI; `ui` is the desktop
//! app that reads them, built with the default `app` feature (without it, the
//! crate and the binary have no UI crate in their dependency graph).

pub mod app_model;
pub mod cli;
pub mod compare;
pub mod conformance;
pub mod desktop;
pub mod diagnostic;
pub mod diff;
pub mod error;
pub mod event_log;
pub mod export;
pub mod file_identity;
pub mod input;
pub mod limits;
pub mod open;
pub mod pointer;
pub mod protocol;
pub mod record;
pub mod replay;
pub mod rules;
pub mod schemas;
pub mod search;
pub mod serve;
pub mod store;
pub mod surrogate;
pub mod timeline;
pub mod timing;
#[cfg(feature = "app")]
pub mod ui;
pub mod whatif;

pub use diagnostic::{Code, Diagnostic, Seq, Severity, SeverityCounts};
pub use input::{EventLog, Format, ReadError, Stream, read_bytes, read_path};
pub use protocol::{Event, EventBody, EventType, MessageId, ParseOutcome, parse_event};
pub use replay::{
    ActivityChange, Effect, EventEffect, Options, Outcome, Profile, Replayer, replay_log, replay_to,
};
