//! Comparing two points of a replay: the document a scope names (one
//! message, the whole conversation, or the state) at step A and at step B,
//! and the RFC 6902 patch that turns the first into the second.
//!
//! The `diff` command and the app's diff view both read [`Comparison`], so
//! the patch a user copies from the app is the one the command prints.

use json_patch::Patch;
use serde_json::Value;

use crate::diagnostic::Seq;
use crate::replay::Replayer;
use crate::timeline::Timeline;

/// What is compared.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DiffScope {
    /// One message (an activity, usually), by its `messageId`: its AG-UI
    /// `Message` object, as `state --message` prints it; `null` where the
    /// message does not exist.
    Message(String),
    /// The messages, as an object of AG-UI `Message` objects by their
    /// `id`: two messages are compared by id, not by position, and a path
    /// names its message (`/plan-1/content/found`, not `/2/content/found`;
    /// issue 13, point 12).
    Conversation,
    /// The shared state.
    State,
    /// `{messages, state}`, as `state` prints it.
    Everything,
}

impl DiffScope {
    /// A short name, for labels.
    pub fn label(&self) -> String {
        match self {
            Self::Message(id) => format!("message {id}"),
            Self::Conversation => "conversation".to_owned(),
            Self::State => "state".to_owned(),
            Self::Everything => "messages and state".to_owned(),
        }
    }

    /// The document this scope names in a replay.
    pub fn document(&self, replayer: &Replayer) -> Value {
        match self {
            Self::Message(id) => replayer
                .conversation()
                .get(id)
                .map_or(Value::Null, |message| message.to_json()),
            Self::Conversation => by_id(replayer.conversation().to_json()),
            Self::State => replayer.state().clone(),
            Self::Everything => replayer.document(),
        }
    }
}

/// An array of messages as an object keyed by their `id`, in their order. A
/// message without an id, or whose id came before, is keyed by its position
/// too (`#3`, `m-1#3`), so that nothing is lost.
fn by_id(messages: Value) -> Value {
    let Value::Array(messages) = messages else {
        return messages;
    };
    let mut object = serde_json::Map::new();
    for (i, message) in messages.into_iter().enumerate() {
        let key = match message.get("id").and_then(Value::as_str) {
            Some(id) if !object.contains_key(id) => id.to_owned(),
            Some(id) => format!("{id}#{i}"),
            None => format!("#{i}"),
        };
        object.insert(key, message);
    }
    Value::Object(object)
}

/// A scope's document at two steps, and the patch between them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The earlier point (A).
    pub from: Seq,
    /// The later point (B).
    pub to: Seq,
    /// What is compared.
    pub scope: DiffScope,
    /// The document at A.
    pub before: Value,
    /// The document at B.
    pub after: Value,
    /// The RFC 6902 patch from `before` to `after`: applying it to `before`
    /// gives `after`.
    pub patch: Patch,
}

impl Comparison {
    /// Compares `scope` at steps `from` and `to` of a timeline (each clamped
    /// to the last step). `from` may be after `to`: the patch then goes
    /// backwards in time.
    pub fn between(timeline: &Timeline, scope: DiffScope, from: Seq, to: Seq) -> Self {
        let before = scope.document(&timeline.seek(from));
        let after = scope.document(&timeline.seek(to));
        Self::of(scope, from, before, to, after)
    }

    /// Compares two documents already known.
    pub fn of(scope: DiffScope, from: Seq, before: Value, to: Seq, after: Value) -> Self {
        let patch = json_patch::diff(&before, &after);
        Self {
            from,
            to,
            scope,
            before,
            after,
            patch,
        }
    }

    /// Whether the two documents are equal.
    pub fn is_unchanged(&self) -> bool {
        self.patch.0.is_empty()
    }

    /// The patch as pretty JSON (what the `diff` command prints).
    pub fn patch_json(&self) -> String {
        serde_json::to_string_pretty(&self.patch).unwrap_or_else(|_| "[]".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Options;
    use crate::timeline::Timeline;
    use crate::{EventLog, Seq};

    fn timeline(lines: &[&str]) -> Timeline {
        let mut log = EventLog::default();
        for line in lines {
            log.push(line.as_bytes());
        }
        Timeline::from_log(log, Options::default())
    }

    fn demo() -> Timeline {
        timeline(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"steps":["x"],"done":false}}"#,
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}"#,
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{"op":"add","path":"/steps/-","value":"y"},{"op":"replace","path":"/done","value":true}]}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ])
    }

    fn apply(before: &Value, patch: &Patch) -> Value {
        let mut value = before.clone();
        json_patch::patch(&mut value, patch).expect("the patch applies");
        value
    }

    #[test]
    fn the_patch_of_a_message_turns_a_into_b() {
        let timeline = demo();
        let diff = Comparison::between(
            &timeline,
            DiffScope::Message("a".into()),
            Seq::new(2),
            Seq::new(4),
        );
        assert_eq!(diff.before["content"]["steps"], serde_json::json!(["x"]));
        assert_eq!(diff.after["content"]["done"], Value::Bool(true));
        assert!(!diff.is_unchanged());
        assert_eq!(apply(&diff.before, &diff.patch), diff.after);
    }

    #[test]
    fn a_message_that_does_not_exist_yet_is_null() {
        let timeline = demo();
        let diff = Comparison::between(
            &timeline,
            DiffScope::Message("a".into()),
            Seq::new(1),
            Seq::new(2),
        );
        assert_eq!(diff.before, Value::Null);
        assert_eq!(diff.after["id"], "a");
        assert_eq!(apply(&diff.before, &diff.patch), diff.after);
    }

    #[test]
    fn state_and_conversation_scopes() {
        let timeline = demo();
        let state = Comparison::between(&timeline, DiffScope::State, Seq::new(2), Seq::new(3));
        assert_eq!(state.after, serde_json::json!({"n": 1}));
        assert_eq!(apply(&state.before, &state.patch), state.after);
        let unchanged = Comparison::between(&timeline, DiffScope::State, Seq::new(3), Seq::new(5));
        assert!(unchanged.is_unchanged());
        let conversation =
            Comparison::between(&timeline, DiffScope::Conversation, Seq::new(0), Seq::new(5));
        assert_eq!(conversation.before, serde_json::json!({}));
        assert_eq!(conversation.after.as_object().map(|o| o.len()), Some(1));
        assert_eq!(conversation.after["a"]["id"], "a");
        // Backwards in time is a patch too.
        let back = Comparison::between(&timeline, DiffScope::Everything, Seq::new(5), Seq::new(1));
        assert_eq!(apply(&back.before, &back.patch), back.after);
    }

    #[test]
    fn the_conversation_is_compared_by_message_id_not_position() {
        // Issue 13, point 12: a message removed before another must not
        // read as every later message replaced, and paths name messages.
        let timeline = timeline(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"n":1}}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"plan","content":{"n":2}}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"b","role":"activity","activityType":"plan","content":{"n":3}}]}"#,
        ]);
        let diff =
            Comparison::between(&timeline, DiffScope::Conversation, Seq::new(3), Seq::new(4));
        let paths: Vec<String> = diff
            .patch
            .0
            .iter()
            .map(|op| op.path().to_string())
            .collect();
        assert!(paths.contains(&"/a".to_owned()), "{paths:?}");
        assert!(paths.contains(&"/b/content/n".to_owned()), "{paths:?}");
        assert!(paths.iter().all(|p| !p.starts_with("/0")), "{paths:?}");
        assert_eq!(apply(&diff.before, &diff.patch), diff.after);
    }

    #[test]
    fn messages_without_an_id_or_with_a_repeated_one_are_all_kept() {
        let value = by_id(serde_json::json!([{"id": "m"}, {"id": "m", "x": 1}, {"x": 2}]));
        assert_eq!(
            value,
            serde_json::json!({"m": {"id": "m"}, "m#1": {"id": "m", "x": 1}, "#2": {"x": 2}})
        );
    }
}
