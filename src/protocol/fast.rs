//! The fast path of [`parse_event`](super::parse_event): one pass of
//! `serde_json` into a flat struct of every member the protocol defines,
//! borrowing strings from the input.
//!
//! It only ever *accepts*: an event it cannot take whole (a member of the
//! wrong type, a member foreign to the event's type, a malformed or unknown
//! patch operation, `null` where a value is required…) makes it give up, and
//! the precise reader in `parse.rs` reads the event again to say exactly what
//! is wrong. Both must agree on every event the fast path accepts; a property
//! test checks it.

use std::borrow::Cow;
use std::fmt;

use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation, ReplaceOperation,
    TestOperation,
};
use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::event::{EncryptedSubtype, Envelope, Event, EventBody, EventType, TextRole};
use super::parse::{check_outcome, check_tool_content, validate_message, validate_run_input};
use super::patch::Patch;

/// Every member of every AG-UI 1.0 event. A member that is present must
/// have the protocol's type (`null` is not a string, an object or a number).
/// Identifiers are borrowed (one with a JSON escape sends the event to the
/// precise reader); values other than patches stay raw until the event's
/// type says what they must be, which keeps this struct small to move.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Wire<'a> {
    #[serde(rename = "type")]
    event_type: &'a str,
    #[serde(default, deserialize_with = "present")]
    timestamp: Option<i64>,
    #[serde(default, deserialize_with = "present", borrow)]
    metadata: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    subagent_run_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    raw_event: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    thread_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    run_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    parent_run_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    input: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    outcome: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present_str", borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present", borrow)]
    code: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    step_name: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    message_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    role: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    name: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, deserialize_with = "present", borrow)]
    tool_call_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    tool_call_name: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    parent_message_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    content: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    subtype: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    entity_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    encrypted_value: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    snapshot: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    messages: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    activity_type: Option<&'a str>,
    #[serde(default, deserialize_with = "present")]
    replace: Option<bool>,
    #[serde(default, deserialize_with = "present", borrow)]
    patch: Option<Vec<WireOp<'a>>>,
    #[serde(default, deserialize_with = "present_str", borrow)]
    description: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present", borrow)]
    parent_subagent_run_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    parent_tool_call_id: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    event: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    source: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    value: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "present", borrow)]
    protocol_version: Option<&'a str>,
    #[serde(default, deserialize_with = "present", borrow)]
    encrypted_value_type: Option<&'a str>,
}

/// One RFC 6902 operation with only the members the RFC defines.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireOp<'a> {
    op: &'a str,
    path: &'a str,
    #[serde(default, deserialize_with = "present", borrow)]
    from: Option<&'a str>,
    /// `Some(Value::Null)` for `"value": null`, which `add` may carry.
    #[serde(default, deserialize_with = "present")]
    value: Option<Value>,
}

/// `delta`: text for content events, a patch for `STATE_DELTA`.
enum Delta<'a> {
    Text(Cow<'a, str>),
    Ops(Vec<WireOp<'a>>),
}

impl<'de> Deserialize<'de> for Delta<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DeltaVisitor;
        impl<'de> Visitor<'de> for DeltaVisitor {
            type Value = Delta<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of operations")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Delta::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Delta::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut ops = Vec::with_capacity(seq.size_hint().unwrap_or(2));
                while let Some(op) = seq.next_element()? {
                    ops.push(op);
                }
                Ok(Delta::Ops(ops))
            }
        }
        deserializer.deserialize_any(DeltaVisitor)
    }
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

fn present_str<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct StrVisitor;
    impl<'de> Visitor<'de> for StrVisitor {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_owned()))
        }
    }
    deserializer.deserialize_str(StrVisitor).map(Some)
}

fn owned(s: Option<&str>) -> Option<String> {
    s.map(str::to_owned)
}

fn owned_cow(s: Option<Cow<'_, str>>) -> Option<String> {
    s.map(Cow::into_owned)
}

/// Parses a raw member as `T`; `None` (give up) if it is not one.
fn parse<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Option<T> {
    serde_json::from_str(raw.get()).ok()
}

/// An optional raw member parsed as `T`: `Some(None)` when absent, `None`
/// (give up) when present but not a `T`.
fn parse_opt<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Option<Option<T>> {
    match raw {
        None => Some(None),
        Some(raw) => parse(raw).map(Some),
    }
}

/// Reads an event in one pass, or `None` when the precise reader must.
pub(crate) fn parse_fast(bytes: &[u8]) -> Option<(EventType, Event)> {
    let mut w: Wire<'_> = serde_json::from_slice(bytes).ok()?;
    let event_type = EventType::from_name(w.event_type)?;
    let envelope = Envelope {
        timestamp: w.timestamp.take(),
        metadata: parse_opt(w.metadata.take())?,
        subagent_run_id: owned(w.subagent_run_id.take()),
        raw_event: parse_opt(w.raw_event.take())?,
    };
    let body = body(event_type, &mut w)?;
    if event_type_needs_subagent(event_type) && envelope.subagent_run_id.is_none() {
        return None;
    }
    if w.has_leftovers() {
        return None;
    }
    Some((event_type, Event { envelope, body }))
}

fn event_type_needs_subagent(event_type: EventType) -> bool {
    matches!(
        event_type,
        EventType::SubagentStarted | EventType::SubagentFinished | EventType::SubagentError
    )
}

fn text_role(role: Option<&str>) -> Option<Option<TextRole>> {
    match role {
        None => Some(None),
        Some(name) => TextRole::from_name(name).map(Some),
    }
}

fn text(delta: Option<Delta<'_>>) -> Option<Option<String>> {
    match delta {
        None => Some(None),
        Some(Delta::Text(text)) => Some(Some(text.into_owned())),
        Some(Delta::Ops(_)) => None,
    }
}

fn body(event_type: EventType, w: &mut Wire<'_>) -> Option<EventBody> {
    use EventBody as B;
    use EventType as T;
    Some(match event_type {
        T::RunStarted => B::RunStarted {
            thread_id: owned(w.thread_id.take())?,
            run_id: owned(w.run_id.take())?,
            parent_run_id: owned(w.parent_run_id.take()),
            input: match parse_opt(w.input.take())? {
                Some(input) => Some(validate_run_input(input, "/input").ok()?),
                None => None,
            },
            protocol_version: owned(w.protocol_version.take()),
        },
        T::RunFinished => B::RunFinished {
            thread_id: owned(w.thread_id.take())?,
            run_id: owned(w.run_id.take())?,
            result: parse_opt(w.result.take())?,
            outcome: match parse_opt::<Value>(w.outcome.take())? {
                // Unknown variants and malformed outcomes: the precise
                // reader strips or rejects them.
                Some(outcome) => match check_outcome(&outcome, "/outcome") {
                    Ok(None) => Some(outcome),
                    _ => return None,
                },
                None => None,
            },
        },
        T::RunError => B::RunError {
            message: owned_cow(w.message.take())?,
            code: owned(w.code.take()),
        },
        T::StepStarted => B::StepStarted {
            step_name: owned(w.step_name.take())?,
        },
        T::StepFinished => B::StepFinished {
            step_name: owned(w.step_name.take())?,
        },
        T::TextMessageStart => B::TextMessageStart {
            message_id: owned(w.message_id.take())?,
            role: text_role(w.role.take())?,
            name: owned(w.name.take()),
        },
        T::TextMessageContent => B::TextMessageContent {
            message_id: owned(w.message_id.take())?,
            delta: text(w.delta.take())??,
        },
        T::TextMessageEnd => B::TextMessageEnd {
            message_id: owned(w.message_id.take())?,
        },
        T::TextMessageChunk => B::TextMessageChunk {
            message_id: owned(w.message_id.take()),
            role: text_role(w.role.take())?,
            delta: text(w.delta.take())?,
            name: owned(w.name.take()),
        },
        T::ToolCallStart => B::ToolCallStart {
            tool_call_id: owned(w.tool_call_id.take())?,
            tool_call_name: owned(w.tool_call_name.take())?,
            parent_message_id: owned(w.parent_message_id.take()),
        },
        T::ToolCallArgs => B::ToolCallArgs {
            tool_call_id: owned(w.tool_call_id.take())?,
            delta: text(w.delta.take())??,
        },
        T::ToolCallEnd => B::ToolCallEnd {
            tool_call_id: owned(w.tool_call_id.take())?,
        },
        T::ToolCallChunk => B::ToolCallChunk {
            tool_call_id: owned(w.tool_call_id.take()),
            tool_call_name: owned(w.tool_call_name.take()),
            parent_message_id: owned(w.parent_message_id.take()),
            delta: text(w.delta.take())?,
        },
        T::ToolCallResult => {
            if w.role.is_some_and(|role| role != "tool") {
                return None;
            }
            w.role = None;
            B::ToolCallResult {
                message_id: owned(w.message_id.take())?,
                tool_call_id: owned(w.tool_call_id.take())?,
                content: match check_tool_content(parse(w.content.take()?)?, "/content") {
                    Ok((content, unknown)) if unknown.is_empty() => content,
                    _ => return None,
                },
            }
        }
        T::ReasoningStart => B::ReasoningStart {
            message_id: owned(w.message_id.take())?,
        },
        T::ReasoningMessageStart => {
            if w.role.is_some_and(|role| role != "reasoning") {
                return None;
            }
            w.role = None;
            B::ReasoningMessageStart {
                message_id: owned(w.message_id.take())?,
            }
        }
        T::ReasoningMessageContent => B::ReasoningMessageContent {
            message_id: owned(w.message_id.take())?,
            delta: text(w.delta.take())??,
        },
        T::ReasoningMessageEnd => B::ReasoningMessageEnd {
            message_id: owned(w.message_id.take())?,
        },
        T::ReasoningMessageChunk => B::ReasoningMessageChunk {
            message_id: owned(w.message_id.take()),
            delta: text(w.delta.take())?,
        },
        T::ReasoningEnd => B::ReasoningEnd {
            message_id: owned(w.message_id.take())?,
        },
        T::ReasoningEncryptedValue => B::ReasoningEncryptedValue {
            subtype: match w.subtype.take()? {
                "tool-call" => EncryptedSubtype::ToolCall,
                "message" => EncryptedSubtype::Message,
                _ => return None,
            },
            entity_id: owned(w.entity_id.take())?,
            encrypted_value: owned(w.encrypted_value.take())?,
            encrypted_value_type: owned(w.encrypted_value_type.take()),
        },
        T::StateSnapshot => B::StateSnapshot {
            snapshot: parse(w.snapshot.take()?)?,
        },
        T::StateDelta => B::StateDelta {
            delta: match w.delta.take()? {
                Delta::Ops(ops) => patch(ops)?,
                Delta::Text(_) => return None,
            },
        },
        T::MessagesSnapshot => {
            let messages: Vec<Map<String, Value>> = parse(w.messages.take()?)?;
            for (i, message) in messages.iter().enumerate() {
                validate_message(message, &format!("/messages/{i}")).ok()?;
            }
            B::MessagesSnapshot { messages }
        }
        T::ActivitySnapshot => B::ActivitySnapshot {
            message_id: owned(w.message_id.take())?,
            activity_type: owned(w.activity_type.take())?,
            content: Value::Object(parse(w.content.take()?)?),
            replace: w.replace.take(),
        },
        T::ActivityDelta => B::ActivityDelta {
            message_id: owned(w.message_id.take())?,
            activity_type: owned(w.activity_type.take())?,
            patch: patch(w.patch.take()?)?,
        },
        T::SubagentStarted => B::SubagentStarted {
            name: owned(w.name.take())?,
            description: owned_cow(w.description.take()),
            parent_subagent_run_id: owned(w.parent_subagent_run_id.take()),
            parent_tool_call_id: owned(w.parent_tool_call_id.take()),
            parent_message_id: owned(w.parent_message_id.take()),
        },
        T::SubagentFinished => B::SubagentFinished {
            outcome: parse_opt(w.outcome.take())?,
        },
        T::SubagentError => B::SubagentError {
            message: owned_cow(w.message.take())?,
            code: owned(w.code.take()),
        },
        T::Raw => B::Raw {
            event: parse_opt(w.event.take())?,
            source: owned(w.source.take()),
        },
        T::Custom => B::Custom {
            name: owned(w.name.take())?,
            value: parse_opt(w.value.take())?,
        },
    })
}

/// A patch of known operations with their required members, or `None`.
fn patch(ops: Vec<WireOp<'_>>) -> Option<Patch> {
    let mut patch = Patch {
        ops: Vec::with_capacity(ops.len()),
        meta: Vec::new(),
        dropped: Vec::new(),
    };
    for op in ops {
        let path = PointerBuf::parse(op.path).ok()?;
        let from = match op.from {
            Some(from) => Some(PointerBuf::parse(from).ok()?),
            None => None,
        };
        let operation = match (op.op, from, op.value) {
            ("add", None, Some(value)) => PatchOperation::Add(AddOperation { path, value }),
            ("remove", None, None) => PatchOperation::Remove(RemoveOperation { path }),
            ("replace", None, Some(value)) => {
                PatchOperation::Replace(ReplaceOperation { path, value })
            }
            ("move", Some(from), None) => PatchOperation::Move(MoveOperation { from, path }),
            ("copy", Some(from), None) => PatchOperation::Copy(CopyOperation { from, path }),
            ("test", None, Some(value)) => PatchOperation::Test(TestOperation { path, value }),
            // Unknown ops (R17), or members an op does not define (R16):
            // the precise reader keeps and reports them.
            _ => return None,
        };
        patch.ops.push(operation);
    }
    Some(patch)
}

impl Wire<'_> {
    /// Whether a member that the event's type does not define is left.
    fn has_leftovers(&self) -> bool {
        self.thread_id.is_some()
            || self.run_id.is_some()
            || self.parent_run_id.is_some()
            || self.input.is_some()
            || self.result.is_some()
            || self.outcome.is_some()
            || self.message.is_some()
            || self.code.is_some()
            || self.step_name.is_some()
            || self.message_id.is_some()
            || self.role.is_some()
            || self.name.is_some()
            || self.delta.is_some()
            || self.tool_call_id.is_some()
            || self.tool_call_name.is_some()
            || self.parent_message_id.is_some()
            || self.content.is_some()
            || self.subtype.is_some()
            || self.entity_id.is_some()
            || self.encrypted_value.is_some()
            || self.snapshot.is_some()
            || self.messages.is_some()
            || self.activity_type.is_some()
            || self.replace.is_some()
            || self.patch.is_some()
            || self.description.is_some()
            || self.parent_subagent_run_id.is_some()
            || self.parent_tool_call_id.is_some()
            || self.event.is_some()
            || self.source.is_some()
            || self.value.is_some()
            || self.protocol_version.is_some()
            || self.encrypted_value_type.is_some()
    }
}
