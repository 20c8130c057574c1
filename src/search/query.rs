//! What a search looks for: a value, named by a JSON pointer into a message
//! or into the shared state, and a predicate on it; and that value read from
//! a replay without building more JSON than the pointer needs.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::pointer::PointerError;
use crate::replay::{Message, Replayer};

/// What a query looks at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The message with this id (an activity's `messageId`, or any message
    /// id). The pointer is into its AG-UI `Message` object, as
    /// [`Message::to_json`] gives it: `/content/…`, `/metadata/…`,
    /// `/activityType`.
    Message(String),
    /// The shared state ([`Replayer::state`]); the pointer is into it.
    State,
}

/// What must be true of the value at the pointer.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// The pointer resolves (to any value, `null` included).
    Exists,
    /// The value equals this JSON.
    Equals(Value),
    /// The value contains this JSON:
    ///
    /// - a string contains a string query as a substring;
    /// - an array has an element equal to the query;
    /// - an object has every member of an object query, with equal values
    ///   (a subset match), or has the key a string query names.
    ///
    /// Nothing else contains anything (a number does not contain itself:
    /// use [`Predicate::Equals`]).
    Contains(Value),
}

impl Predicate {
    /// Whether the predicate holds for `value` (`None`: the pointer does not
    /// resolve).
    pub fn holds_for(&self, value: Option<&Value>) -> bool {
        let Some(value) = value else { return false };
        match self {
            Self::Exists => true,
            Self::Equals(expected) => value == expected,
            Self::Contains(part) => contains(value, part),
        }
    }
}

fn contains(value: &Value, part: &Value) -> bool {
    match (value, part) {
        (Value::String(text), Value::String(part)) => text.contains(part.as_str()),
        (Value::Array(items), part) => items.contains(part),
        (Value::Object(object), Value::Object(part)) => part
            .iter()
            .all(|(key, expected)| object.get(key) == Some(expected)),
        (Value::Object(object), Value::String(key)) => object.contains_key(key),
        _ => false,
    }
}

/// Why a query cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The pointer is not an RFC 6901 JSON pointer.
    #[error("invalid JSON pointer {pointer:?}: {reason}")]
    InvalidPointer {
        /// The pointer as given.
        pointer: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// A value to follow through the stream, and what to look for in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// The message, or the state.
    pub target: Target,
    /// An RFC 6901 JSON pointer into the target (`""` is the whole target).
    /// A pointer that is not one never resolves: make queries with
    /// [`Query::new`], which checks it.
    pub pointer: String,
    /// What must be true of the value at the pointer.
    pub predicate: Predicate,
}

impl Query {
    /// A query, once its pointer is checked.
    pub fn new(
        target: Target,
        pointer: impl Into<String>,
        predicate: Predicate,
    ) -> Result<Self, QueryError> {
        let pointer = pointer.into();
        if let Err(reason) = check_pointer(&pointer) {
            return Err(QueryError::InvalidPointer { pointer, reason });
        }
        Ok(Self {
            target,
            pointer,
            predicate,
        })
    }

    /// Whether the predicate holds at the replayer's step.
    pub fn holds(&self, replayer: &Replayer) -> bool {
        self.predicate.holds_for(self.resolve(replayer).as_deref())
    }

    /// The value at the pointer at the replayer's step (`None` when the
    /// target or the pointer's path does not exist).
    pub fn value(&self, replayer: &Replayer) -> Option<Value> {
        self.resolve(replayer).map(Cow::into_owned)
    }

    /// The value at the pointer, borrowed where the replayer holds it as is.
    pub(super) fn resolve<'r>(&self, replayer: &'r Replayer) -> Option<Cow<'r, Value>> {
        match &self.target {
            Target::State => replayer.state().pointer(&self.pointer).map(Cow::Borrowed),
            Target::Message(id) => message_value(replayer.conversation().get(id)?, &self.pointer),
        }
    }
}

/// Checks RFC 6901 syntax: empty, or `/`-separated tokens in which `~` is
/// only ever `~0` or `~1`.
fn check_pointer(pointer: &str) -> Result<(), &'static str> {
    crate::pointer::check(pointer).map_err(|error| match error {
        PointerError::NoLeadingSlash => "must start with '/' (or be empty, for the whole value)",
        PointerError::BadEscape => "'~' must be followed by 0 or 1 (~0 is '~', ~1 is '/')",
    })
}

/// The first token of a pointer, unescaped, and the rest of the pointer
/// (still escaped); `None` for the empty pointer.
pub(super) fn split_pointer(pointer: &str) -> Option<(Cow<'_, str>, &str)> {
    let body = pointer.strip_prefix('/')?;
    let (token, rest) = body.split_at(body.find('/').unwrap_or(body.len()));
    Some((crate::pointer::unescape(token), rest))
}

/// The value at `pointer` in `message.to_json()`, without building it unless
/// the pointer is the whole message.
fn message_value<'m>(message: &'m Message, pointer: &str) -> Option<Cow<'m, Value>> {
    let Some((name, rest)) = split_pointer(pointer) else {
        return pointer.is_empty().then(|| Cow::Owned(message.to_json()));
    };
    match message {
        Message::Activity(activity) => match &*name {
            "content" => activity.content.pointer(rest).map(Cow::Borrowed),
            "metadata" => map_value(activity.metadata.as_ref()?, rest),
            "id" => text_value(&activity.id, rest),
            "role" => text_value("activity", rest),
            "activityType" => text_value(&activity.activity_type, rest),
            "subagentRunId" => text_value(activity.subagent_run_id.as_deref()?, rest),
            _ => None,
        },
        // As in `OtherMessage::to_json`, the fields come after (and over)
        // `id` and `role`.
        Message::Other(other) => match (other.fields.get(&*name), &*name) {
            (Some(value), _) => value.pointer(rest).map(Cow::Borrowed),
            (None, "id") => text_value(&other.id, rest),
            (None, "role") => text_value(other.role.as_str(), rest),
            (None, _) => None,
        },
    }
}

fn map_value<'m>(map: &'m Map<String, Value>, pointer: &str) -> Option<Cow<'m, Value>> {
    match split_pointer(pointer) {
        None => Some(Cow::Owned(Value::Object(map.clone()))),
        Some((name, rest)) => map.get(&*name)?.pointer(rest).map(Cow::Borrowed),
    }
}

/// A string member: only the empty pointer leads into it.
fn text_value(text: &str, pointer: &str) -> Option<Cow<'static, Value>> {
    pointer
        .is_empty()
        .then(|| Cow::Owned(Value::String(text.to_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Seq;
    use crate::replay::Options;
    use crate::search::demo;
    use serde_json::json;

    #[test]
    fn pointers_are_checked() {
        for good in ["", "/", "/a/b", "/a~0b/~1", "/0/-"] {
            assert!(check_pointer(good).is_ok(), "{good}");
        }
        let err = Query::new(Target::State, "x", Predicate::Exists).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid JSON pointer \"x\": must start with '/' (or be empty, for the whole value)"
        );
        for bad in ["/a~", "/a~2", "/~x/b"] {
            let err = Query::new(Target::State, bad, Predicate::Exists).unwrap_err();
            assert!(
                err.to_string().contains("'~' must be followed by 0 or 1"),
                "{err}"
            );
        }
    }

    #[test]
    fn contains_matches_substrings_elements_subsets_and_keys() {
        let holds = |value: Value, part: Value| Predicate::Contains(part).holds_for(Some(&value));
        assert!(holds(json!("flights to Lisbon"), json!("to Lis")));
        assert!(!holds(json!("flights"), json!("hotels")));
        assert!(holds(json!([1, {"a": 2}]), json!({"a": 2})));
        assert!(!holds(json!([1, {"a": 2, "b": 3}]), json!({"a": 2})));
        assert!(holds(json!({"a": 1, "b": [2]}), json!({"b": [2]})));
        assert!(holds(json!({"a": 1}), json!({})));
        assert!(!holds(json!({"a": 1}), json!({"a": 2})));
        assert!(holds(json!({"a": null}), json!("a")));
        assert!(!holds(json!({"a": 1}), json!("b")));
        assert!(!holds(json!(12), json!(12)));
        assert!(!holds(json!("12"), json!(12)));
        assert!(!Predicate::Contains(json!("a")).holds_for(None));
        assert!(Predicate::Exists.holds_for(Some(&Value::Null)));
        assert!(!Predicate::Exists.holds_for(None));
        assert!(!Predicate::Equals(Value::Null).holds_for(None));
    }

    #[test]
    fn message_values_are_those_of_the_message_json() {
        let log = demo();
        let pointers = [
            "",
            "/",
            "/id",
            "/id/x",
            "/role",
            "/activityType",
            "/subagentRunId",
            "/content",
            "/content/found",
            "/content/results/1/price",
            "/content/items/0/done",
            "/content/candidates/0/name",
            "/metadata",
            "/metadata/acme.latencyMs",
            "/metadata/acme.renderer",
            "/metadata/missing",
            "/toolCalls/0/function/arguments",
            "/toolCallId",
            "/nope",
            "/a~1b",
        ];
        for step in [0, 5, 15, 17, 25, 30, 41, log.len() as u64] {
            let replayer = crate::replay::replay_to(&log, Options::default(), Seq::new(step));
            for message in replayer.conversation().iter() {
                let json = message.to_json();
                for pointer in pointers {
                    let query = Query::new(
                        Target::Message(message.id().to_owned()),
                        pointer,
                        Predicate::Exists,
                    )
                    .expect("valid");
                    assert_eq!(
                        query.value(&replayer).as_ref(),
                        json.pointer(pointer),
                        "step {step}, message {}, pointer {pointer:?}",
                        message.id()
                    );
                }
            }
        }
    }
}
