//! One `Event` message to the JSON event the SSE encoding carries, and back,
//! as `@ag-ui/proto` 1.0.0's `decode` and `encode` map them: the `Event`
//! arm names the type, `BaseEvent` gives `type`, `timestamp`, `rawEvent`
//! and `metadata`, and a few members are split differently on the wire
//! (message `content`, `RUN_FINISHED.outcome`, patch `op`s).

use prost::Message as _;
use serde_json::{Map, Value};

use super::ProtoError;
use super::json::J;
use super::typed::pb::ag_ui::{Event, EventType, JsonPatchOperationType};
use super::typed::{arms_of, event_with};

fn invalid(reason: impl Into<String>) -> ProtoError {
    ProtoError::Decode(reason.into())
}

/// The roles the wire's `Message` knows; which of its fields feeds
/// `content` depends on the role.
const KNOWN_ROLES: &[&str] = &[
    "developer",
    "system",
    "assistant",
    "user",
    "tool",
    "activity",
    "reasoning",
];
const PARTS_ROLES: &[&str] = &["user", "tool"];
const PART_KINDS: &[&str] = &["text", "image", "audio", "video", "document"];
const SOURCE_KINDS: &[&str] = &["data", "url", "file"];

/// Decodes one `Event` message (no length prefix) to its JSON event.
pub(crate) fn decode_event(bytes: &[u8]) -> Result<J, ProtoError> {
    let envelope = Event::decode(bytes).map_err(|e| invalid(e.to_string()))?;
    let mut arms = arms_of(&envelope)?;
    let (arm, members) = match arms.len() {
        1 => arms.remove(0),
        // Bytes, but no field the schema's `Event` has: prost skipped them.
        0 if !bytes.is_empty() => return Err(ProtoError::UnknownEventType),
        0 => return Err(invalid("an Event with no event in it")),
        _ => return Err(invalid("an Event carrying more than one event")),
    };
    let event_type = arm.to_ascii_uppercase();
    let mut event = J::Obj(members);
    let Some(mut base) = event.take("baseEvent") else {
        return Err(invalid(format!("{event_type} without its base event")));
    };
    let declared = match base.get("type") {
        Some(J::Int(n)) => i32::try_from(*n)
            .ok()
            .and_then(|n| EventType::try_from(n).ok())
            .map(|t| t.as_str_name()),
        _ => None,
    };
    if declared != Some(event_type.as_str()) {
        return Err(invalid(format!(
            "the envelope carries {event_type} but the base event declares {}",
            declared.unwrap_or("an unknown type")
        )));
    }
    event.set_first("type", J::Str(event_type.clone()));
    for key in ["timestamp", "rawEvent", "metadata"] {
        if let Some(value) = base.take(key) {
            event.set(key, value);
        }
    }
    match event_type.as_str() {
        "MESSAGES_SNAPSHOT" => {
            if let Some(J::Arr(messages)) = event.take("messages") {
                let messages = messages
                    .into_iter()
                    .map(from_wire_message)
                    .collect::<Result<Vec<_>, _>>()?;
                event.set("messages", J::Arr(messages));
            }
        }
        "RUN_FINISHED" => outcome_from_wire(&mut event, &["pendingToolCallIds", "interrupts"]),
        "SUBAGENT_FINISHED" => outcome_from_wire(&mut event, &["interruptIds"]),
        "STATE_DELTA" => ops_from_wire(&mut event, "delta"),
        "ACTIVITY_DELTA" => ops_from_wire(&mut event, "patch"),
        "TOOL_CALL_RESULT" => {
            let parts = event.take("contentParts").unwrap_or(J::Arr(Vec::new()));
            if event.get("content").is_some() {
                if !parts.elements().is_empty() {
                    return Err(invalid(
                        "content carries both string content and content parts",
                    ));
                }
            } else {
                event.set("content", parts_from_wire(parts)?);
            }
        }
        "RUN_STARTED" => {
            if let Some(mut input) = event.take("input") {
                if let Some(J::Arr(messages)) = input.take("messages") {
                    let messages = messages
                        .into_iter()
                        .map(from_wire_message)
                        .collect::<Result<Vec<_>, _>>()?;
                    input.set("messages", J::Arr(messages));
                }
                event.set("input", input);
            }
        }
        _ => {}
    }
    if matches!(event_type.as_str(), "RUN_FINISHED" | "RUN_ERROR")
        && event.get("usage").is_some_and(|u| u.elements().is_empty())
    {
        event.take("usage");
    }
    Ok(event)
}

/// `outcome: "success"` and its lists back into one `outcome` object.
fn outcome_from_wire(event: &mut J, lists: &[&str]) {
    let wire = match event.take("outcome") {
        Some(J::Str(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    let taken: Vec<(&str, J)> = lists
        .iter()
        .map(|&key| (key, event.take(key).unwrap_or(J::Arr(Vec::new()))))
        .collect();
    let Some(kind) = wire else {
        for (key, list) in taken {
            if !list.elements().is_empty() {
                event.set(key, list);
            }
        }
        return;
    };
    let mut outcome = J::Obj(vec![("type".to_owned(), J::Str(kind.clone()))]);
    for (key, list) in taken {
        // An interrupt outcome always has its list, even empty.
        if !list.elements().is_empty() || (kind == "interrupt" && key == "interrupts") {
            outcome.set(key, list);
        }
    }
    event.set("outcome", outcome);
}

/// Patch operations' `op` numbers back to their names.
fn ops_from_wire(event: &mut J, key: &str) {
    if let Some(J::Arr(mut ops)) = event.take(key) {
        for op in &mut ops {
            let name = match op.get("op") {
                Some(J::Int(n)) => match i32::try_from(*n)
                    .ok()
                    .and_then(|n| JsonPatchOperationType::try_from(n).ok())
                {
                    Some(op) => op.as_str_name().to_ascii_lowercase(),
                    None => n.to_string(),
                },
                _ => "add".to_owned(),
            };
            op.set_first("op", J::Str(name));
        }
        event.set(key, J::Arr(ops));
    }
}

fn from_wire_message(mut message: J) -> Result<J, ProtoError> {
    let role = message
        .get("role")
        .and_then(J::as_str)
        .unwrap_or("")
        .to_owned();
    let known = KNOWN_ROLES.contains(&role.as_str());
    let parts = message.take("contentParts").unwrap_or(J::Arr(Vec::new()));
    let activity = message.take("activityContent");
    let has_parts = !parts.elements().is_empty();
    let has_content = message.get("content").is_some();
    let uses_parts = if known {
        PARTS_ROLES.contains(&role.as_str())
    } else {
        has_parts
    };
    let uses_map = if known {
        role == "activity"
    } else {
        !uses_parts && activity.is_some()
    };
    if !known
        && usize::from(has_content) + usize::from(has_parts) + usize::from(activity.is_some()) > 1
    {
        return Err(invalid("a message carries more than one content form"));
    }
    if known {
        if !uses_parts && has_parts {
            return Err(invalid(
                "a message carries content parts for a role that has none",
            ));
        }
        if activity.is_some() && !uses_map {
            return Err(invalid(
                "a message carries activity content for a non-activity role",
            ));
        }
        if uses_map && has_content {
            return Err(invalid(
                "activity content cannot ride with other content forms",
            ));
        }
        if uses_parts && has_content && has_parts {
            return Err(invalid(
                "a message carries both string content and content parts",
            ));
        }
    }
    if uses_parts && !has_content {
        message.set("content", parts_from_wire(parts)?);
    }
    if uses_map && let Some(activity) = activity {
        message.set("content", activity);
    }
    if message
        .get("toolCalls")
        .is_some_and(|t| t.elements().is_empty())
    {
        message.take("toolCalls");
    }
    Ok(message)
}

fn parts_from_wire(parts: J) -> Result<J, ProtoError> {
    let J::Arr(parts) = parts else {
        return Ok(J::Arr(Vec::new()));
    };
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        let set: Vec<&str> = PART_KINDS
            .iter()
            .copied()
            .filter(|k| part.get(k).is_some())
            .collect();
        let kind = match set.as_slice() {
            [kind] => *kind,
            // A part of a kind this schema does not know: dropped, as the
            // official decoder drops it.
            [] => continue,
            _ => return Err(invalid("a content part carries more than one arm")),
        };
        let Some(mut inner) = part.get(kind).cloned() else {
            continue;
        };
        if kind != "text"
            && let Some(source) = inner.take("source")
        {
            match source_from_wire(&source)? {
                Some(source) => inner.set("source", source),
                None => continue,
            }
        }
        inner.set_first("type", J::Str(kind.to_owned()));
        out.push(inner);
    }
    Ok(J::Arr(out))
}

fn source_from_wire(source: &J) -> Result<Option<J>, ProtoError> {
    let set: Vec<&str> = SOURCE_KINDS
        .iter()
        .copied()
        .filter(|k| source.get(k).is_some())
        .collect();
    match set.as_slice() {
        [] => Ok(None),
        [kind] => {
            let mut inner = source.get(kind).cloned().unwrap_or(J::Obj(Vec::new()));
            inner.set_first("type", J::Str((*kind).to_owned()));
            Ok(Some(inner))
        }
        _ => Err(invalid("a source carries more than one arm")),
    }
}

// ---- encoding ----

fn cannot(reason: impl Into<String>) -> ProtoError {
    ProtoError::Encode(reason.into())
}

/// Encodes one JSON event as an `Event` message (no length prefix).
pub(crate) fn encode_event(event: &Value) -> Result<Vec<u8>, ProtoError> {
    let Value::Object(object) = event else {
        return Err(cannot("the event is not a JSON object"));
    };
    let Some(event_type) = object.get("type").and_then(Value::as_str) else {
        return Err(cannot("the event has no string `type`"));
    };
    let Some(type_number) = EventType::from_str_name(event_type).map(|t| t as i32) else {
        return Err(ProtoError::UnknownEventType);
    };
    let mut rest = object.clone();
    for key in ["type", "timestamp", "rawEvent", "metadata"] {
        rest.remove(key);
    }
    let mut base = Map::new();
    base.insert("type".into(), Value::from(type_number));
    for key in ["timestamp", "rawEvent"] {
        if let Some(value) = object.get(key).filter(|v| !v.is_null()) {
            base.insert(key.into(), value.clone());
        }
    }
    if let Some(metadata @ Value::Object(_)) = object.get("metadata") {
        base.insert("metadata".into(), metadata.clone());
    }
    rest.insert("baseEvent".into(), Value::Object(base));
    match event_type {
        "MESSAGES_SNAPSHOT" => {
            if let Some(Value::Array(messages)) = rest.get_mut("messages") {
                for message in messages {
                    to_wire_message(message);
                }
            }
        }
        "RUN_FINISHED" => outcome_to_wire(
            &mut rest,
            &[
                ("success", "pendingToolCallIds"),
                ("interrupt", "interrupts"),
            ],
            &["pendingToolCallIds", "interrupts"],
        ),
        "SUBAGENT_FINISHED" => {
            outcome_to_wire(
                &mut rest,
                &[("suspended", "interruptIds")],
                &["interruptIds"],
            );
        }
        "STATE_DELTA" => ops_to_wire(&mut rest, "delta")?,
        "ACTIVITY_DELTA" => ops_to_wire(&mut rest, "patch")?,
        "TOOL_CALL_RESULT" => {
            if let Some(Value::Array(parts)) = rest.get("content").cloned() {
                rest.remove("content");
                rest.insert("contentParts".into(), parts_to_wire(&parts));
            }
        }
        "RUN_STARTED" => {
            if let Some(Value::Object(input)) = rest.get_mut("input")
                && let Some(Value::Array(messages)) = input.get_mut("messages")
            {
                for message in messages {
                    to_wire_message(message);
                }
            }
        }
        _ => {}
    }
    match event_with(&event_type.to_ascii_lowercase(), &rest) {
        Some(event) => Ok(event?.encode_to_vec()),
        None => Err(ProtoError::UnknownEventType),
    }
}

/// `outcome: {type, ...lists}` split into the wire's string and lists; a
/// list is carried only for the outcome kind it belongs to.
fn outcome_to_wire(rest: &mut Map<String, Value>, carries: &[(&str, &str)], lists: &[&str]) {
    let outcome = rest.remove("outcome");
    for key in lists {
        rest.remove(*key);
    }
    let Some(outcome) = outcome else {
        return;
    };
    let kind = outcome
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    for (carrying, key) in carries {
        if kind == *carrying
            && let Some(list) = outcome.get(*key)
        {
            rest.insert((*key).into(), list.clone());
        }
    }
    rest.insert("outcome".into(), Value::String(kind));
}

fn ops_to_wire(rest: &mut Map<String, Value>, key: &str) -> Result<(), ProtoError> {
    if let Some(Value::Array(ops)) = rest.get_mut(key) {
        for (i, op) in ops.iter_mut().enumerate() {
            let Value::Object(op) = op else {
                return Err(cannot(format!(
                    "/{key}/{i}: an operation that is not an object"
                )));
            };
            let name = op.get("op").and_then(Value::as_str).unwrap_or("");
            let Some(number) =
                JsonPatchOperationType::from_str_name(&name.to_ascii_uppercase()).map(|o| o as i32)
            else {
                return Err(cannot(format!(
                    "/{key}/{i}/op: `{name}` is not an RFC 6902 operation the encoding carries"
                )));
            };
            op.insert("op".into(), Value::from(number));
        }
    }
    Ok(())
}

fn to_wire_message(message: &mut Value) {
    let Value::Object(message) = message else {
        return;
    };
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    match message.get("content").cloned() {
        Some(Value::Array(parts)) => {
            message.remove("content");
            message.insert("contentParts".into(), parts_to_wire(&parts));
        }
        content if role == "activity" => {
            message.remove("content");
            let content = content
                .filter(Value::is_object)
                .unwrap_or(Value::Object(Map::new()));
            message.insert("activityContent".into(), content);
        }
        _ => {}
    }
}

fn parts_to_wire(parts: &[Value]) -> Value {
    let mut out = Vec::new();
    for part in parts {
        let Some(kind) = part.get("type").and_then(Value::as_str) else {
            continue;
        };
        let mut inner = Map::new();
        for key in ["id", "text", "metadata"] {
            if let Some(value) = part.get(key) {
                inner.insert(key.into(), value.clone());
            }
        }
        match kind {
            "text" => {}
            "image" | "audio" | "video" | "document" => {
                inner.remove("text");
                if let Some(source) = part.get("source") {
                    let source_kind = source.get("type").and_then(Value::as_str).unwrap_or("");
                    if SOURCE_KINDS.contains(&source_kind) {
                        let mut wire = source.as_object().cloned().unwrap_or_default();
                        wire.remove("type");
                        let mut arm = Map::new();
                        arm.insert(source_kind.into(), Value::Object(wire));
                        inner.insert("source".into(), Value::Object(arm));
                    }
                }
            }
            // No wire form (as the official encoder says, with a warning).
            _ => continue,
        }
        let mut wrapper = Map::new();
        wrapper.insert(kind.into(), Value::Object(inner));
        out.push(Value::Object(wrapper));
    }
    Value::Array(out)
}
