//! The AG-UI 1.0 protocol: the event model ([`Event`], 31 [`EventType`]s),
//! RFC 6902 patches as they arrive ([`Patch`]), and reading one event from
//! its raw text with the validation rules R40–R42 ([`parse_event`]).

mod event;
mod fast;
mod fields;
mod id;
mod kinds;
mod parse;
mod patch;
mod pipeline;
pub mod proto;
pub mod schema;
mod shapes;
mod version;

pub(crate) use crate::limits::ValueWeight;
pub use event::{EncryptedSubtype, Envelope, Event, EventBody, EventType, MessageRole, TextRole};
pub use fields::Malformed;
pub use id::MessageId;
pub use parse::{
    Issue, MESSAGE_ROLES, ParseOutcome, parse_event, parse_event_str, parse_fast_only,
    parse_precisely,
};
pub(crate) use patch::weight_in;
pub use patch::{DroppedOp, OpMeta, Patch, op_name};
pub use pipeline::{for_each_parsed, for_each_parsed_in};
pub use schema::{ENVELOPE, EventSchema, Kind, Member, SCHEMA, known_member_paths};
pub use shapes::{Field, Object, Shape, Union};
pub use version::{Declared, ProtocolVersion};

pub(crate) use parse::json_kind;
pub(crate) use shapes::strip_run_input;
