//! The AG-UI 1.0 event model: [`Event`], its closed sets of values, and
//! what the replay asks of an event. The types and their members
//! ([`EventType`], [`Envelope`], [`EventBody`]) are generated from the
//! schema (`schema.rs`).

pub use super::schema::{Envelope, EventBody, EventType};

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
