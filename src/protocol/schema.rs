//! The AG-UI event schema, written once.
//!
//! [`events!`] below is the one place that says which event types exist,
//! which members each carries, of what [`Kind`], which are required and
//! since which protocol version. Everything else is generated from it:
//!
//! - the model: [`EventType`], [`Envelope`] and [`EventBody`];
//! - the precise reader (`read_body`, member by member, naming what is
//!   wrong) and the one-pass reader's table of members and its `body`
//!   (`fast.rs`), with the leftovers check (a member foreign to the type);
//! - the members a consumer of an older version strips
//!   ([`EventBody::strip_newer_members`], R42, §11);
//! - [`SCHEMA`] and [`ENVELOPE`], the table the test generator reads.
//!
//! Adding a member is one line in the event's block; a new [`Kind`] is one
//! variant with its two readers in `kinds.rs`.

use serde_json::{Map, Value};

use super::event::{EncryptedSubtype, TextRole};
use super::id::MessageId;
use super::patch::Patch;
use super::shapes::{self, Shape};
use super::version::ProtocolVersion;

/// What a member holds: how both readers read it and how the test
/// generator makes one. Identifier kinds are strings on the wire; they are
/// told apart so that generated events name the same messages, tool calls
/// and subagents often enough to meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A message id (a string).
    MessageId,
    /// A tool call id (a string).
    ToolCallId,
    /// A subagent run id (a string).
    SubagentRunId,
    /// An activity type (a string).
    ActivityType,
    /// Any string.
    Text,
    /// A text message role (`developer`, `system`, `assistant`, `user`).
    Role,
    /// A `role` that, when present, must be this one value.
    LiteralRole(&'static str),
    /// `REASONING_ENCRYPTED_VALUE.subtype`: `tool-call` or `message`.
    Subtype,
    /// A JSON object (an activity's content).
    Content,
    /// A string or an array of content parts (`TOOL_CALL_RESULT.content`).
    ToolContent,
    /// `RUN_FINISHED.outcome`: an object told apart by its `type`.
    Outcome,
    /// `SUBAGENT_FINISHED.outcome`: an object told apart by its `type`
    /// (`success`, `suspended`); an unknown one is stripped.
    SubagentOutcome,
    /// `usage` of `RUN_FINISHED` and `RUN_ERROR`: an array of token usage
    /// objects.
    Usage,
    /// An RFC 6902 patch (an array of operations).
    Patch,
    /// Any JSON value (`null` included).
    Json,
    /// A boolean.
    Bool,
    /// An array of AG-UI messages.
    Messages,
    /// A run input: an object whose `messages`, if any, are messages.
    RunInput,
    /// An integer (milliseconds).
    Timestamp,
    /// A JSON object of metadata.
    Metadata,
}

/// One member of an event type, as the schema defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// The name on the wire (`messageId`).
    pub name: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// Whether an event without it is malformed (R40).
    pub required: bool,
    /// The first protocol version that defines it; an older consumer
    /// strips it (R42, §11).
    pub since: ProtocolVersion,
}

/// One event type, as the schema defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventSchema {
    /// The type.
    pub event_type: EventType,
    /// Its own members, in the order the precise reader checks them.
    pub members: &'static [Member],
    /// Envelope members ([`ENVELOPE`]) this type requires.
    pub requires: &'static [&'static str],
}

impl EventSchema {
    /// The schema of one event type.
    pub fn of(event_type: EventType) -> &'static EventSchema {
        // SCHEMA is in EventType order (a unit test checks it).
        &SCHEMA[event_type as usize]
    }
}

/// How the one-pass reader takes a member's value off the wire. All the
/// members of one name share one form (checked when compiling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// A string, or an array of patch operations (`delta` is either).
    StrOrOps,
    /// Raw JSON text, read once the type says what it must be.
    Raw,
    /// A boolean.
    Bool,
    /// An integer.
    Int,
}

impl Kind {
    pub(super) const fn form(self) -> Form {
        match self {
            Kind::MessageId
            | Kind::ToolCallId
            | Kind::SubagentRunId
            | Kind::ActivityType
            | Kind::Text
            | Kind::Role
            | Kind::LiteralRole(_)
            | Kind::Subtype
            | Kind::Patch => Form::StrOrOps,
            Kind::Content
            | Kind::ToolContent
            | Kind::Outcome
            | Kind::SubagentOutcome
            | Kind::Usage
            | Kind::Json
            | Kind::Messages
            | Kind::RunInput
            | Kind::Metadata => Form::Raw,
            Kind::Bool => Form::Bool,
            Kind::Timestamp => Form::Int,
        }
    }

    /// The shape of the objects a member of this kind holds, for what is
    /// unknown inside them (issue 39; `shapes.rs`).
    pub fn shape(self) -> Shape {
        match self {
            Kind::ToolContent => shapes::PARTS,
            Kind::Outcome => Shape::Union(&shapes::RUN_OUTCOME),
            Kind::SubagentOutcome => Shape::Union(&shapes::SUBAGENT_OUTCOME),
            Kind::Usage => shapes::USAGE,
            Kind::Messages => shapes::MESSAGES,
            Kind::RunInput => Shape::Object(&shapes::RUN_INPUT),
            Kind::Patch => shapes::PATCH_OPERATIONS,
            Kind::MessageId
            | Kind::ToolCallId
            | Kind::SubagentRunId
            | Kind::ActivityType
            | Kind::Text
            | Kind::Role
            | Kind::LiteralRole(_)
            | Kind::Subtype
            | Kind::Content
            | Kind::Json
            | Kind::Bool
            | Kind::Timestamp
            | Kind::Metadata => Shape::Any,
        }
    }
}

/// Every member the engine's schema knows, envelope and nested objects
/// included, as paths in the notation of `tests/peer/node/schema-members.js`
/// (`RUN_FINISHED/usage/*/inputTokens`,
/// `TOOL_CALL_RESULT/content/*{type=image}/source{type=url}/mimeType`):
/// what the schema test compares with `@ag-ui/core`'s own (issue 39).
/// Sorted, without repeats.
pub fn known_member_paths() -> Vec<String> {
    let mut paths = Vec::new();
    for schema in SCHEMA {
        let at = schema.event_type.as_str();
        paths.push(format!("{at}/type"));
        for member in ENVELOPE.iter().chain(schema.members) {
            let here = format!("{at}/{}", member.name);
            member.kind.shape().paths(&here, &mut paths);
            paths.push(here);
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

/// The Rust type of a member's value in the model.
macro_rules! value_ty {
    (MessageId) => { MessageId };
    (ToolCallId) => { String };
    (SubagentRunId) => { String };
    (ActivityType) => { String };
    (Text) => { String };
    (Role) => { TextRole };
    (Subtype) => { EncryptedSubtype };
    (Content) => { Value };
    (ToolContent) => { Value };
    (Outcome) => { Value };
    (SubagentOutcome) => { Value };
    (Usage) => { Value };
    (Patch) => { Patch };
    (Json) => { Value };
    (Bool) => { bool };
    (Messages) => { Vec<Map<String, Value>> };
    (RunInput) => { Value };
    (Timestamp) => { i64 };
    (Metadata) => { Map<String, Value> };
}

/// A required member is the value, an optional one an `Option`.
macro_rules! presence_ty {
    (required, $t:ty) => { $t };
    (optional, $t:ty) => { Option<$t> };
}

macro_rules! is_required {
    (required) => {
        true
    };
    (optional) => {
        false
    };
}

/// The version a member is defined since (1.0 unless it says).
macro_rules! since {
    () => {
        ProtocolVersion::V1_0
    };
    ($v:ident) => {
        ProtocolVersion::$v
    };
}

/// Precise reader: a required member that is absent is malformed.
macro_rules! precise_presence {
    (required, $value:expr, $f:expr, $name:expr) => {
        match $value {
            Some(value) => value,
            None => return Err($f.missing($name)),
        }
    };
    (optional, $value:expr, $f:expr, $name:expr) => {
        $value
    };
}

/// One-pass reader: a required member that is absent gives up.
macro_rules! fast_presence {
    (required, $value:expr) => {
        $value?
    };
    (optional, $value:expr) => {
        $value
    };
}

/// The schema. Each event type: its doc, its variant and wire name, the
/// envelope members it requires, then one line per member:
/// `field "wireName": Kind, required|optional[, since V1_1];`. A member
/// checked but not kept (a literal `role`) follows the block.
macro_rules! events {
    (
        envelope {
            $(
                $(#[$edoc:meta])*
                $efield:ident $ename:literal : $ekind:ident ;
            )*
        }
        $(
            $(#[$doc:meta])*
            $variant:ident = $wire:literal $(requires $rfield:ident $rname:literal)? {
                $(
                    $(#[$fdoc:meta])*
                    $field:ident $name:literal : $kind:ident, $presence:ident $(, since $since:ident)? ;
                )*
            } $(role = $role:literal)? ;
        )*
    ) => {
        /// The `type` of a known AG-UI event.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum EventType {
            $( $(#[$doc])* $variant, )*
        }

        impl EventType {
            /// All 31 event types of AG-UI 1.0.
            pub const ALL: &'static [EventType] = &[ $( EventType::$variant, )* ];

            /// The wire name (`RUN_STARTED`…).
            pub fn as_str(self) -> &'static str {
                match self { $( EventType::$variant => $wire, )* }
            }

            /// The event type with this wire name, if it is an AG-UI type.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $( $wire => Some(EventType::$variant), )* _ => None }
            }
        }

        /// The members every event may carry, whatever its type. All are
        /// optional unless the type requires one ([`EventSchema::requires`]).
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Envelope {
            $( $(#[$edoc])* pub $efield: Option<value_ty!($ekind)>, )*
        }

        /// The type-specific fields of each AG-UI event. Optional fields
        /// that were absent are `None`; nothing is defaulted here (the
        /// replay applies the protocol's defaults, so the inspector can show
        /// what was actually sent).
        #[derive(Clone, Debug, PartialEq)]
        #[allow(missing_docs)] // the fields are the protocol's, named as on the wire
        pub enum EventBody {
            $(
                $(#[$doc])*
                $variant {
                    $( $(#[$fdoc])* $field: presence_ty!($presence, value_ty!($kind)), )*
                },
            )*
        }

        impl EventBody {
            /// The event type of this body.
            pub fn event_type(&self) -> EventType {
                match self { $( EventBody::$variant { .. } => EventType::$variant, )* }
            }

            /// R42, §11: removes the members that protocols newer than
            /// `consumer` define, calling `stripped` with each one's name
            /// and the version that defines it.
            pub fn strip_newer_members(
                &mut self,
                consumer: ProtocolVersion,
                mut stripped: impl FnMut(&'static str, ProtocolVersion),
            ) {
                match self {
                    $(
                        #[allow(unused_variables)]
                        EventBody::$variant { $( $field, )* } => {
                            $( $(
                                if ProtocolVersion::$since > consumer && $field.take().is_some() {
                                    stripped($name, ProtocolVersion::$since);
                                }
                            )? )*
                        }
                    )*
                }
            }
        }

        /// The envelope's members, in the order the readers check them.
        pub const ENVELOPE: &[Member] = &[
            $( Member {
                name: $ename,
                kind: Kind::$ekind,
                required: false,
                since: ProtocolVersion::V1_0,
            }, )*
        ];

        /// Every event type with its members, in [`EventType::ALL`] order.
        pub const SCHEMA: &[EventSchema] = &[
            $(
                EventSchema {
                    event_type: EventType::$variant,
                    members: &[
                        $( Member {
                            name: $name,
                            kind: Kind::$kind,
                            required: is_required!($presence),
                            since: since!($($since)?),
                        }, )*
                        $( Member {
                            name: "role",
                            kind: Kind::LiteralRole($role),
                            required: false,
                            since: ProtocolVersion::V1_0,
                        }, )?
                    ],
                    requires: &[ $( $rname, )? ],
                },
            )*
        ];

        /// Every member name with its kind, the envelope's first: the
        /// one-pass reader's table (`fast.rs`), one slot per distinct name.
        pub(super) const OCCURRENCES: &[(&str, Kind)] = &[
            $( ($ename, Kind::$ekind), )*
            $(
                $( ($name, Kind::$kind), )*
                $( ("role", Kind::LiteralRole($role)), )?
            )*
        ];

        /// The precise reader of one event: the envelope, the type's
        /// members in order, a literal `role`, then the envelope members the
        /// type requires.
        pub(super) fn read_event(
            event_type: EventType,
            f: &mut super::fields::Fields<'_>,
            issues: &mut Vec<super::parse::Issue>,
        ) -> Result<super::event::Event, super::fields::Malformed> {
            use super::kinds::precise;
            let envelope = Envelope {
                $( $efield: precise::$ekind(f, $ename, issues)?, )*
            };
            let body = match event_type {
                $(
                    EventType::$variant => {
                        let body = EventBody::$variant {
                            $( $field: precise_presence!(
                                $presence, precise::$kind(f, $name, issues)?, f, $name
                            ), )*
                        };
                        $( precise::literal_role(f, $role)?; )?
                        $( if envelope.$rfield.is_none() {
                            return Err(f.missing($rname));
                        } )?
                        body
                    }
                )*
            };
            Ok(super::event::Event { envelope, body })
        }

        /// The one-pass reader of one event from its slots (`fast.rs`):
        /// `None` gives the event to the precise reader.
        pub(super) fn fast_event(
            event_type: EventType,
            slots: &mut super::fast::Slots<'_>,
        ) -> Option<super::event::Event> {
            use super::fast::slot;
            use super::kinds::fast;
            let envelope = Envelope {
                $( $efield: fast::$ekind(slots.take(const { slot($ename) }))?, )*
            };
            let body = match event_type {
                $(
                    EventType::$variant => {
                        $( fast::literal_role(slots.take(const { slot("role") }), $role)?; )?
                        $( envelope.$rfield.as_ref()?; )?
                        EventBody::$variant {
                            $( $field: fast_presence!(
                                $presence, fast::$kind(slots.take(const { slot($name) }))?
                            ), )*
                        }
                    }
                )*
            };
            Some(super::event::Event { envelope, body })
        }
    };
}

events! {
    envelope {
        /// `timestamp`: informational; arrival order is the only order.
        timestamp "timestamp": Timestamp;
        /// `metadata`: merged into activities (R30), shown elsewhere.
        metadata "metadata": Metadata;
        /// `subagentRunId`: the subagent invocation that emitted it (R20).
        subagent_run_id "subagentRunId": SubagentRunId;
        /// `rawEvent`: the event of the underlying system, if passed along.
        raw_event "rawEvent": Json;
    }

    /// A run begins.
    RunStarted = "RUN_STARTED" {
        thread_id "threadId": Text, required;
        run_id "runId": Text, required;
        parent_run_id "parentRunId": Text, optional;
        input "input": RunInput, optional;
        /// The version the producer declares (§11); known in 1.0 and 1.1.
        protocol_version "protocolVersion": Text, optional;
    };
    /// A run ends normally.
    RunFinished = "RUN_FINISHED" {
        thread_id "threadId": Text, required;
        run_id "runId": Text, required;
        result "result": Json, optional;
        outcome "outcome": Outcome, optional;
        /// Token usage of the run (`@ag-ui/core` 1.0.0; issue 39).
        usage "usage": Usage, optional;
    };
    /// A run ends with an error.
    RunError = "RUN_ERROR" {
        message "message": Text, required;
        code "code": Text, optional;
        /// Token usage of the run (`@ag-ui/core` 1.0.0; issue 39).
        usage "usage": Usage, optional;
    };
    /// A named step begins.
    StepStarted = "STEP_STARTED" {
        step_name "stepName": Text, required;
    };
    /// A named step ends.
    StepFinished = "STEP_FINISHED" {
        step_name "stepName": Text, required;
    };
    /// A text message stream opens.
    TextMessageStart = "TEXT_MESSAGE_START" {
        message_id "messageId": MessageId, required;
        role "role": Role, optional;
        name "name": Text, optional;
    };
    /// Text appended to an open text message.
    TextMessageContent = "TEXT_MESSAGE_CONTENT" {
        message_id "messageId": MessageId, required;
        delta "delta": Text, required;
    };
    /// A text message stream closes.
    TextMessageEnd = "TEXT_MESSAGE_END" {
        message_id "messageId": MessageId, required;
    };
    /// Start, content and end of a text message in one self-describing chunk.
    TextMessageChunk = "TEXT_MESSAGE_CHUNK" {
        message_id "messageId": MessageId, optional;
        role "role": Role, optional;
        delta "delta": Text, optional;
        name "name": Text, optional;
    };
    /// A tool call opens.
    ToolCallStart = "TOOL_CALL_START" {
        tool_call_id "toolCallId": ToolCallId, required;
        tool_call_name "toolCallName": Text, required;
        parent_message_id "parentMessageId": MessageId, optional;
    };
    /// Arguments appended to an open tool call.
    ToolCallArgs = "TOOL_CALL_ARGS" {
        tool_call_id "toolCallId": ToolCallId, required;
        delta "delta": Text, required;
    };
    /// A tool call closes.
    ToolCallEnd = "TOOL_CALL_END" {
        tool_call_id "toolCallId": ToolCallId, required;
    };
    /// Start, arguments and end of a tool call in one chunk.
    ToolCallChunk = "TOOL_CALL_CHUNK" {
        tool_call_id "toolCallId": ToolCallId, optional;
        tool_call_name "toolCallName": Text, optional;
        parent_message_id "parentMessageId": MessageId, optional;
        delta "delta": Text, optional;
    };
    /// The result of a tool call, as a tool message.
    ToolCallResult = "TOOL_CALL_RESULT" {
        message_id "messageId": MessageId, required;
        tool_call_id "toolCallId": ToolCallId, required;
        /// A string, or an array of content parts (objects with a string
        /// `type`; unknown parts are stripped by the reader).
        content "content": ToolContent, required;
    } role = "tool";
    /// A reasoning phase begins.
    ReasoningStart = "REASONING_START" {
        message_id "messageId": MessageId, required;
    };
    /// A reasoning message opens.
    ReasoningMessageStart = "REASONING_MESSAGE_START" {
        message_id "messageId": MessageId, required;
    } role = "reasoning";
    /// Text appended to an open reasoning message.
    ReasoningMessageContent = "REASONING_MESSAGE_CONTENT" {
        message_id "messageId": MessageId, required;
        delta "delta": Text, required;
    };
    /// A reasoning message closes.
    ReasoningMessageEnd = "REASONING_MESSAGE_END" {
        message_id "messageId": MessageId, required;
    };
    /// Start, content and end of a reasoning message in one chunk.
    ReasoningMessageChunk = "REASONING_MESSAGE_CHUNK" {
        message_id "messageId": MessageId, optional;
        delta "delta": Text, optional;
    };
    /// A reasoning phase ends.
    ReasoningEnd = "REASONING_END" {
        message_id "messageId": MessageId, required;
    };
    /// An opaque encrypted reasoning value attached to a message or tool call.
    ReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE" {
        subtype "subtype": Subtype, required;
        entity_id "entityId": MessageId, required;
        encrypted_value "encryptedValue": Text, required;
        /// AG-UI 1.1: what the encrypted value is. A 1.0 consumer strips it
        /// (R42, §11).
        encrypted_value_type "encryptedValueType": Text, optional, since V1_1;
    };
    /// The whole shared state.
    StateSnapshot = "STATE_SNAPSHOT" {
        snapshot "snapshot": Json, required;
    };
    /// An RFC 6902 patch of the shared state.
    StateDelta = "STATE_DELTA" {
        delta "delta": Patch, required;
    };
    /// The whole message list, to reconcile with (R51).
    MessagesSnapshot = "MESSAGES_SNAPSHOT" {
        messages "messages": Messages, required;
    };
    /// An activity's whole content (R1–R9).
    ActivitySnapshot = "ACTIVITY_SNAPSHOT" {
        message_id "messageId": MessageId, required;
        activity_type "activityType": ActivityType, required;
        /// Always a JSON object (R40 rejects anything else).
        content "content": Content, required;
        replace "replace": Bool, optional;
    };
    /// An RFC 6902 patch of an activity's content (R10–R17).
    ActivityDelta = "ACTIVITY_DELTA" {
        message_id "messageId": MessageId, required;
        activity_type "activityType": ActivityType, required;
        patch "patch": Patch, required;
    };
    /// A subagent invocation begins.
    SubagentStarted = "SUBAGENT_STARTED" requires subagent_run_id "subagentRunId" {
        name "name": Text, required;
        description "description": Text, optional;
        parent_subagent_run_id "parentSubagentRunId": SubagentRunId, optional;
        parent_tool_call_id "parentToolCallId": ToolCallId, optional;
        parent_message_id "parentMessageId": MessageId, optional;
    };
    /// A subagent invocation ends normally.
    SubagentFinished = "SUBAGENT_FINISHED" requires subagent_run_id "subagentRunId" {
        /// What the subagent returned (`@ag-ui/core` 1.0.0; issue 39).
        result "result": Json, optional;
        outcome "outcome": SubagentOutcome, optional;
    };
    /// A subagent invocation ends with an error.
    SubagentError = "SUBAGENT_ERROR" requires subagent_run_id "subagentRunId" {
        message "message": Text, required;
        code "code": Text, optional;
    };
    /// An event of another system, passed through.
    Raw = "RAW" {
        event "event": Json, optional;
        source "source": Text, optional;
    };
    /// An application-defined event.
    Custom = "CUSTOM" {
        name "name": Text, required;
        value "value": Json, optional;
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_in_event_type_order() {
        assert_eq!(SCHEMA.len(), EventType::ALL.len());
        for (schema, event_type) in SCHEMA.iter().zip(EventType::ALL) {
            assert_eq!(schema.event_type, *event_type);
            assert_eq!(EventSchema::of(*event_type).event_type, *event_type);
        }
    }

    #[test]
    fn required_envelope_members_are_envelope_members() {
        for schema in SCHEMA {
            for name in schema.requires {
                assert!(ENVELOPE.iter().any(|m| m.name == *name), "{name}");
            }
            for member in schema.members {
                assert!(
                    !ENVELOPE.iter().any(|m| m.name == member.name),
                    "{} on {} shadows the envelope",
                    member.name,
                    schema.event_type.as_str()
                );
            }
        }
    }

    #[test]
    fn a_1_0_consumer_strips_exactly_the_members_since_1_1() {
        let mut body = EventBody::ReasoningEncryptedValue {
            subtype: EncryptedSubtype::Message,
            entity_id: "m".into(),
            encrypted_value: "v".into(),
            encrypted_value_type: Some("t".into()),
        };
        let mut kept = body.clone();
        let mut stripped = Vec::new();
        kept.strip_newer_members(ProtocolVersion::V1_1, |name, _| stripped.push(name));
        assert!(stripped.is_empty());
        body.strip_newer_members(ProtocolVersion::V1_0, |name, since| {
            assert_eq!(since, ProtocolVersion::V1_1);
            stripped.push(name);
        });
        assert_eq!(stripped, ["encryptedValueType"]);
        let EventBody::ReasoningEncryptedValue {
            encrypted_value_type,
            ..
        } = body
        else {
            panic!("the body keeps its type");
        };
        assert_eq!(encrypted_value_type, None);
        let newer: Vec<&str> = SCHEMA
            .iter()
            .flat_map(|s| s.members)
            .filter(|m| m.since > ProtocolVersion::V1_0)
            .map(|m| m.name)
            .collect();
        assert_eq!(newer, ["encryptedValueType"]);
    }
}
