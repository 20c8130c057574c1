//! The AG-UI 1.0 event model: 31 event types, each with its fields, and the
//! common envelope.

use serde_json::{Map, Value};

use super::patch::Patch;

macro_rules! event_types {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal; )*) => {
        /// The `type` of a known AG-UI 1.0 event.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum EventType {
            $( $(#[$doc])* $variant, )*
        }

        impl EventType {
            /// All 31 event types of AG-UI 1.0.
            pub const ALL: &'static [EventType] = &[ $( EventType::$variant, )* ];

            /// The wire name (`RUN_STARTED`…).
            pub fn as_str(self) -> &'static str {
                match self { $( EventType::$variant => $name, )* }
            }

            /// The event type with this wire name, if it is an AG-UI 1.0 type.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $( $name => Some(EventType::$variant), )* _ => None }
            }
        }
    };
}

event_types! {
    /// A run begins.
    RunStarted = "RUN_STARTED";
    /// A run ends normally.
    RunFinished = "RUN_FINISHED";
    /// A run ends with an error.
    RunError = "RUN_ERROR";
    /// A named step begins.
    StepStarted = "STEP_STARTED";
    /// A named step ends.
    StepFinished = "STEP_FINISHED";
    /// A text message stream opens.
    TextMessageStart = "TEXT_MESSAGE_START";
    /// Text appended to an open text message.
    TextMessageContent = "TEXT_MESSAGE_CONTENT";
    /// A text message stream closes.
    TextMessageEnd = "TEXT_MESSAGE_END";
    /// Start, content and end of a text message in one self-describing chunk.
    TextMessageChunk = "TEXT_MESSAGE_CHUNK";
    /// A tool call opens.
    ToolCallStart = "TOOL_CALL_START";
    /// Arguments appended to an open tool call.
    ToolCallArgs = "TOOL_CALL_ARGS";
    /// A tool call closes.
    ToolCallEnd = "TOOL_CALL_END";
    /// Start, arguments and end of a tool call in one chunk.
    ToolCallChunk = "TOOL_CALL_CHUNK";
    /// The result of a tool call, as a tool message.
    ToolCallResult = "TOOL_CALL_RESULT";
    /// A reasoning phase begins.
    ReasoningStart = "REASONING_START";
    /// A reasoning message opens.
    ReasoningMessageStart = "REASONING_MESSAGE_START";
    /// Text appended to an open reasoning message.
    ReasoningMessageContent = "REASONING_MESSAGE_CONTENT";
    /// A reasoning message closes.
    ReasoningMessageEnd = "REASONING_MESSAGE_END";
    /// Start, content and end of a reasoning message in one chunk.
    ReasoningMessageChunk = "REASONING_MESSAGE_CHUNK";
    /// A reasoning phase ends.
    ReasoningEnd = "REASONING_END";
    /// An opaque encrypted reasoning value attached to a message or tool call.
    ReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE";
    /// The whole shared state.
    StateSnapshot = "STATE_SNAPSHOT";
    /// An RFC 6902 patch of the shared state.
    StateDelta = "STATE_DELTA";
    /// The whole message list, to reconcile with (R51).
    MessagesSnapshot = "MESSAGES_SNAPSHOT";
    /// An activity's whole content (R1–R9).
    ActivitySnapshot = "ACTIVITY_SNAPSHOT";
    /// An RFC 6902 patch of an activity's content (R10–R17).
    ActivityDelta = "ACTIVITY_DELTA";
    /// A subagent invocation begins.
    SubagentStarted = "SUBAGENT_STARTED";
    /// A subagent invocation ends normally.
    SubagentFinished = "SUBAGENT_FINISHED";
    /// A subagent invocation ends with an error.
    SubagentError = "SUBAGENT_ERROR";
    /// An event of another system, passed through.
    Raw = "RAW";
    /// An application-defined event.
    Custom = "CUSTOM";
}

/// The members every event may carry, whatever its type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Envelope {
    /// `timestamp`: informational; arrival order is the only order.
    pub timestamp: Option<i64>,
    /// `metadata`: merged into activities (R30), shown elsewhere.
    pub metadata: Option<Map<String, Value>>,
    /// `subagentRunId`: the subagent invocation that emitted it (R20).
    pub subagent_run_id: Option<String>,
    /// `rawEvent`: the event of the underlying system, if passed along.
    pub raw_event: Option<Value>,
}

/// The role of a text message (`TEXT_MESSAGE_START.role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextRole {
    /// `developer`
    Developer,
    /// `system`
    System,
    /// `assistant` (the default)
    Assistant,
    /// `user`
    User,
}

impl TextRole {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Developer => "developer",
            Self::System => "system",
            Self::Assistant => "assistant",
            Self::User => "user",
        }
    }

    /// The role with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "developer" => Some(Self::Developer),
            "system" => Some(Self::System),
            "assistant" => Some(Self::Assistant),
            "user" => Some(Self::User),
            _ => None,
        }
    }
}

/// What a `REASONING_ENCRYPTED_VALUE` is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncryptedSubtype {
    /// `tool-call`: the entity is a tool call id.
    ToolCall,
    /// `message`: the entity is a message id.
    Message,
}

/// A parsed, validated event: its envelope and its type-specific fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The common members.
    pub envelope: Envelope,
    /// The type and its fields.
    pub body: EventBody,
}

impl Event {
    /// The event's type.
    pub fn event_type(&self) -> EventType {
        self.body.event_type()
    }

    /// The event's own `messageId` member, for the types that have one
    /// (not a parent message or an encrypted value's entity).
    pub fn message_id_member(&self) -> Option<&str> {
        use EventBody as B;
        match &self.body {
            B::TextMessageStart { message_id, .. }
            | B::TextMessageContent { message_id, .. }
            | B::TextMessageEnd { message_id }
            | B::ToolCallResult { message_id, .. }
            | B::ReasoningStart { message_id }
            | B::ReasoningMessageStart { message_id }
            | B::ReasoningMessageContent { message_id, .. }
            | B::ReasoningMessageEnd { message_id }
            | B::ReasoningEnd { message_id }
            | B::ActivitySnapshot { message_id, .. }
            | B::ActivityDelta { message_id, .. } => Some(message_id),
            B::TextMessageChunk { message_id, .. }
            | B::ReasoningMessageChunk { message_id, .. } => message_id.as_deref(),
            _ => None,
        }
    }

    /// The message (or activity) this event is about, if it names one: its
    /// `messageId`, a tool call's parent message, an encrypted value's
    /// entity.
    pub fn message_id(&self) -> Option<&str> {
        if let Some(id) = self.message_id_member() {
            return Some(id);
        }
        use EventBody as B;
        match &self.body {
            B::ToolCallStart {
                parent_message_id, ..
            }
            | B::ToolCallChunk {
                parent_message_id, ..
            } => parent_message_id.as_deref(),
            B::ReasoningEncryptedValue { entity_id, .. } => Some(entity_id),
            _ => None,
        }
    }
}

/// The type-specific fields of each AG-UI 1.0 event. Optional fields that
/// were absent are `None`; nothing is defaulted here (the replay applies the
/// protocol's defaults, so the inspector can show what was actually sent).
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)] // the fields are the protocol's, named as on the wire
pub enum EventBody {
    RunStarted {
        thread_id: String,
        run_id: String,
        parent_run_id: Option<String>,
        input: Option<Value>,
        /// The version the producer declares (§11); known in 1.0 and 1.1.
        protocol_version: Option<String>,
    },
    RunFinished {
        thread_id: String,
        run_id: String,
        result: Option<Value>,
        outcome: Option<Value>,
    },
    RunError {
        message: String,
        code: Option<String>,
    },
    StepStarted {
        step_name: String,
    },
    StepFinished {
        step_name: String,
    },
    TextMessageStart {
        message_id: String,
        role: Option<TextRole>,
        name: Option<String>,
    },
    TextMessageContent {
        message_id: String,
        delta: String,
    },
    TextMessageEnd {
        message_id: String,
    },
    TextMessageChunk {
        message_id: Option<String>,
        role: Option<TextRole>,
        delta: Option<String>,
        name: Option<String>,
    },
    ToolCallStart {
        tool_call_id: String,
        tool_call_name: String,
        parent_message_id: Option<String>,
    },
    ToolCallArgs {
        tool_call_id: String,
        delta: String,
    },
    ToolCallEnd {
        tool_call_id: String,
    },
    ToolCallChunk {
        tool_call_id: Option<String>,
        tool_call_name: Option<String>,
        parent_message_id: Option<String>,
        delta: Option<String>,
    },
    ToolCallResult {
        message_id: String,
        tool_call_id: String,
        /// A string, or an array of content parts (objects with a string
        /// `type`; unknown parts are stripped by the reader).
        content: Value,
    },
    ReasoningStart {
        message_id: String,
    },
    ReasoningMessageStart {
        message_id: String,
    },
    ReasoningMessageContent {
        message_id: String,
        delta: String,
    },
    ReasoningMessageEnd {
        message_id: String,
    },
    ReasoningMessageChunk {
        message_id: Option<String>,
        delta: Option<String>,
    },
    ReasoningEnd {
        message_id: String,
    },
    ReasoningEncryptedValue {
        subtype: EncryptedSubtype,
        entity_id: String,
        encrypted_value: String,
        /// AG-UI 1.1: what the encrypted value is. A 1.0 consumer strips it
        /// (R42, §11).
        encrypted_value_type: Option<String>,
    },
    StateSnapshot {
        snapshot: Value,
    },
    StateDelta {
        delta: Patch,
    },
    MessagesSnapshot {
        messages: Vec<Map<String, Value>>,
    },
    ActivitySnapshot {
        message_id: String,
        activity_type: String,
        /// Always a JSON object (R40 rejects anything else).
        content: Value,
        replace: Option<bool>,
    },
    ActivityDelta {
        message_id: String,
        activity_type: String,
        patch: Patch,
    },
    SubagentStarted {
        name: String,
        description: Option<String>,
        parent_subagent_run_id: Option<String>,
        parent_tool_call_id: Option<String>,
        parent_message_id: Option<String>,
    },
    SubagentFinished {
        outcome: Option<Value>,
    },
    SubagentError {
        message: String,
        code: Option<String>,
    },
    Raw {
        event: Option<Value>,
        source: Option<String>,
    },
    Custom {
        name: String,
        value: Option<Value>,
    },
}

impl EventBody {
    /// The event type of this body.
    pub fn event_type(&self) -> EventType {
        use EventBody as B;
        use EventType as T;
        match self {
            B::RunStarted { .. } => T::RunStarted,
            B::RunFinished { .. } => T::RunFinished,
            B::RunError { .. } => T::RunError,
            B::StepStarted { .. } => T::StepStarted,
            B::StepFinished { .. } => T::StepFinished,
            B::TextMessageStart { .. } => T::TextMessageStart,
            B::TextMessageContent { .. } => T::TextMessageContent,
            B::TextMessageEnd { .. } => T::TextMessageEnd,
            B::TextMessageChunk { .. } => T::TextMessageChunk,
            B::ToolCallStart { .. } => T::ToolCallStart,
            B::ToolCallArgs { .. } => T::ToolCallArgs,
            B::ToolCallEnd { .. } => T::ToolCallEnd,
            B::ToolCallChunk { .. } => T::ToolCallChunk,
            B::ToolCallResult { .. } => T::ToolCallResult,
            B::ReasoningStart { .. } => T::ReasoningStart,
            B::ReasoningMessageStart { .. } => T::ReasoningMessageStart,
            B::ReasoningMessageContent { .. } => T::ReasoningMessageContent,
            B::ReasoningMessageEnd { .. } => T::ReasoningMessageEnd,
            B::ReasoningMessageChunk { .. } => T::ReasoningMessageChunk,
            B::ReasoningEnd { .. } => T::ReasoningEnd,
            B::ReasoningEncryptedValue { .. } => T::ReasoningEncryptedValue,
            B::StateSnapshot { .. } => T::StateSnapshot,
            B::StateDelta { .. } => T::StateDelta,
            B::MessagesSnapshot { .. } => T::MessagesSnapshot,
            B::ActivitySnapshot { .. } => T::ActivitySnapshot,
            B::ActivityDelta { .. } => T::ActivityDelta,
            B::SubagentStarted { .. } => T::SubagentStarted,
            B::SubagentFinished { .. } => T::SubagentFinished,
            B::SubagentError { .. } => T::SubagentError,
            B::Raw { .. } => T::Raw,
            B::Custom { .. } => T::Custom,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_31_event_types_with_unique_names() {
        assert_eq!(EventType::ALL.len(), 31);
        for t in EventType::ALL {
            assert_eq!(EventType::from_name(t.as_str()), Some(*t));
        }
        assert_eq!(EventType::from_name("THINKING_START"), None);
    }
}
