//! The AG-UI 1.0 event model: [`Event`], its closed sets of values, and
//! what the replay asks of an event. The types and their members
//! ([`EventType`], [`Envelope`], [`EventBody`]) are generated from the
//! schema (`schema.rs`).

pub use super::schema::{Envelope, EventBody, EventType};

/// The roles of AG-UI messages, the one list of them (issue 16.6): the
/// text roles ([`TextRole`]), the replay's conversation roles and
/// [`MESSAGE_ROLES`](super::MESSAGE_ROLES) all come from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MessageRole {
    /// `developer`
    Developer,
    /// `system`
    System,
    /// `assistant`
    Assistant,
    /// `user`
    User,
    /// `tool`
    Tool,
    /// `reasoning`
    Reasoning,
    /// `activity`
    Activity,
}

impl MessageRole {
    /// Every role, in the protocol's order.
    pub const ALL: [Self; 7] = [
        Self::Developer,
        Self::System,
        Self::Assistant,
        Self::User,
        Self::Tool,
        Self::Reasoning,
        Self::Activity,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Developer => "developer",
            Self::System => "system",
            Self::Assistant => "assistant",
            Self::User => "user",
            Self::Tool => "tool",
            Self::Reasoning => "reasoning",
            Self::Activity => "activity",
        }
    }

    /// The role with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|role| role.as_str() == name)
    }
}

/// The role of a text message (`TEXT_MESSAGE_START.role`): the message
/// roles a text message may have.
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
    /// As a message role.
    pub fn role(self) -> MessageRole {
        match self {
            Self::Developer => MessageRole::Developer,
            Self::System => MessageRole::System,
            Self::Assistant => MessageRole::Assistant,
            Self::User => MessageRole::User,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        self.role().as_str()
    }

    /// The role with this wire name, if a text message may have it.
    pub fn from_name(name: &str) -> Option<Self> {
        match MessageRole::from_name(name)? {
            MessageRole::Developer => Some(Self::Developer),
            MessageRole::System => Some(Self::System),
            MessageRole::Assistant => Some(Self::Assistant),
            MessageRole::User => Some(Self::User),
            MessageRole::Tool | MessageRole::Reasoning | MessageRole::Activity => None,
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

    /// Issue 16.6: one list of roles; a text role and its message role
    /// have one name.
    #[test]
    fn roles_come_from_one_list() {
        for role in MessageRole::ALL {
            assert_eq!(MessageRole::from_name(role.as_str()), Some(role));
            if let Some(text) = TextRole::from_name(role.as_str()) {
                assert_eq!(text.role(), role);
            }
        }
        assert_eq!(super::super::MESSAGE_ROLES.len(), MessageRole::ALL.len());
        assert_eq!(super::super::MESSAGE_ROLES[6], "activity");
        assert_eq!(TextRole::from_name("tool"), None);
        assert_eq!(TextRole::from_name("user"), Some(TextRole::User));
        assert_eq!(MessageRole::from_name("robot"), None);
    }

    #[test]
    fn there_are_31_event_types_with_unique_names() {
        assert_eq!(EventType::ALL.len(), 31);
        for t in EventType::ALL {
            assert_eq!(EventType::from_name(t.as_str()), Some(*t));
        }
        assert_eq!(EventType::from_name("THINKING_START"), None);
    }
}
