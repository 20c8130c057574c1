//! [`MessageId`]: the id that names a message in the conversation, as the
//! events' `messageId` and the messages' `id` carry it (issue 16.8).

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use serde::Serialize;

/// A message's id (`messageId` on events, `id` on messages): ids are unique
/// across roles (D2), so one id names one message, text or activity.
/// It reads as a `&str` wherever one is wanted (`Deref`, `Borrow`), so maps
/// keyed by it are looked up by `&str`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct MessageId(String);

impl MessageId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id's text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Debug for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Deref for MessageId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for MessageId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for MessageId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<String> for MessageId {
    fn from(id: String) -> Self {
        Self(id)
    }
}

impl From<&str> for MessageId {
    fn from(id: &str) -> Self {
        Self(id.to_owned())
    }
}

impl From<&String> for MessageId {
    fn from(id: &String) -> Self {
        Self(id.clone())
    }
}

impl From<MessageId> for String {
    fn from(id: MessageId) -> Self {
        id.0
    }
}

impl From<&MessageId> for String {
    fn from(id: &MessageId) -> Self {
        id.0.clone()
    }
}

impl PartialEq<str> for MessageId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for MessageId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for MessageId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<MessageId> for str {
    fn eq(&self, other: &MessageId) -> bool {
        self == other.0
    }
}

impl PartialEq<MessageId> for &str {
    fn eq(&self, other: &MessageId) -> bool {
        *self == other.0
    }
}

impl PartialEq<MessageId> for String {
    fn eq(&self, other: &MessageId) -> bool {
        *self == other.0
    }
}

#[cfg(test)]
mod tests {
    use super::MessageId;
    use std::collections::HashMap;

    #[test]
    fn a_message_id_reads_and_compares_as_its_text() {
        let id = MessageId::from("m-1");
        assert_eq!(id, "m-1");
        assert_eq!(id.as_str(), "m-1");
        assert_eq!(id.to_string(), "m-1");
        assert_eq!(format!("{id:?}"), "\"m-1\"");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"m-1\"");
        let mut by_id = HashMap::new();
        by_id.insert(id.clone(), 7);
        assert_eq!(by_id.get("m-1"), Some(&7), "looked up by &str");
    }
}
