//! From the raw text of one event to a validated [`Event`] (R40–R42).

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::event::{Event, EventType, MessageRole};
use super::fields::{Fields, Malformed, pointer_token};
use crate::diagnostic::Code;

/// A problem found while reading one event, before it is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The diagnostic code.
    pub code: Code,
    /// A JSON pointer inside the event, if the problem has a place.
    pub path: Option<String>,
    /// Plain words.
    pub message: String,
}

/// What reading one event gave.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseOutcome {
    /// A valid event of a known type; `issues` are non-fatal (R42 stripped
    /// members, R17 dropped operations).
    Event {
        /// The event.
        event: Event,
        /// Warnings found while reading it.
        issues: Vec<Issue>,
    },
    /// A JSON object with a `type` that AG-UI 1.0 does not define (R42).
    UnknownType {
        /// The `type` as sent.
        type_name: String,
        /// The string `delta` of a retired `THINKING_*` event, kept for the
        /// reference client's compatibility boundary (§11, corpus
        /// `era-0-0-45-thinking-translated`); `None` for other types.
        legacy_delta: Option<String>,
    },
    /// A known type with a malformed member (R40, fatal).
    Malformed {
        /// The type.
        event_type: EventType,
        /// The `messageId` it names, if it could be read.
        message_id: Option<String>,
        /// What is wrong and where.
        issue: Issue,
    },
    /// Not a JSON object with a string `type` (R41, fatal).
    Unparseable {
        /// Why, in plain words.
        reason: String,
    },
}

impl ParseOutcome {
    /// The known event type, if the event had one.
    pub fn event_type(&self) -> Option<EventType> {
        match self {
            Self::Event { event, .. } => Some(event.event_type()),
            Self::Malformed { event_type, .. } => Some(*event_type),
            Self::UnknownType { .. } | Self::Unparseable { .. } => None,
        }
    }
}

/// Reads one event from its raw bytes. Never panics, whatever the bytes.
pub fn parse_event(bytes: &[u8]) -> ParseOutcome {
    // The text is checked for UTF-8 once, as a whole: the fast path then
    // reads its strings without checking each again (bytes that are not
    // UTF-8 are never an event it accepts).
    let text = std::str::from_utf8(bytes);
    if let Ok(text) = text
        && let Some((_, event)) = super::fast::parse_fast(text)
    {
        return ParseOutcome::Event {
            event,
            issues: Vec::new(),
        };
    }
    // A frame of the protobuf encoding that did not decode, kept raw
    // (issue 15.6): say why, as for an SSE frame that is not JSON.
    if let Some(reason) = super::proto::why_undecodable(bytes) {
        return ParseOutcome::Unparseable { reason };
    }
    let text = match text {
        Ok(text) => text,
        Err(e) => {
            return ParseOutcome::Unparseable {
                reason: format!("not valid UTF-8 (byte {})", e.valid_up_to()),
            };
        }
    };
    parse_precisely(text)
}

/// Reads one event from its raw text.
pub fn parse_event_str(text: &str) -> ParseOutcome {
    if let Some((_, event)) = super::fast::parse_fast(text) {
        return ParseOutcome::Event {
            event,
            issues: Vec::new(),
        };
    }
    parse_precisely(text)
}

/// The one-pass reader alone: the event when it accepts it, `None` when it
/// leaves the event to [`parse_precisely`] (exposed so that tests can check
/// that both agree).
pub fn parse_fast_only(bytes: &[u8]) -> Option<Event> {
    let text = std::str::from_utf8(bytes).ok()?;
    super::fast::parse_fast(text).map(|(_, event)| event)
}

/// The precise reader: member by member, naming what is wrong and where.
/// Every event the fast path accepts, this reader accepts identically.
pub fn parse_precisely(text: &str) -> ParseOutcome {
    match crate::surrogate::rewrite(text) {
        Some(rewritten) => parse_with_stand_ins(&rewritten),
        None => read_precisely(text),
    }
}

/// Issue 39: an event that holds lone UTF-16 surrogate escapes, its text
/// rewritten with stand-ins ([`crate::surrogate`]): read as any other
/// event, and each string holding a half said (`text.split-surrogate`).
fn parse_with_stand_ins(rewritten: &str) -> ParseOutcome {
    let mut outcome = match super::fast::parse_fast(rewritten) {
        Some((_, event)) => ParseOutcome::Event {
            event,
            issues: Vec::new(),
        },
        None => read_precisely(rewritten),
    };
    if let ParseOutcome::Event { event, issues } = &mut outcome
        && let Ok(value) = serde_json::from_str::<Value>(rewritten)
    {
        let event_type = event.event_type().as_str();
        let splits = crate::surrogate::splits(&value);
        issues.splice(
            0..0,
            splits.into_iter().map(|split| Issue {
                code: Code::TextSplitSurrogate,
                message: format!(
                    "{event_type} `{}` {}: a character cut between its two UTF-16 units",
                    split.path, split.what
                ),
                path: Some(split.path),
            }),
        );
    }
    outcome
}

fn read_precisely(text: &str) -> ParseOutcome {
    let mut fields = match Fields::parse(text, "") {
        Ok(fields) => fields,
        Err(e) => {
            let reason = match serde_json::from_str::<&RawValue>(text) {
                Ok(raw) => format!(
                    "a JSON value that is not an object ({})",
                    super::fields::kind_of(raw)
                ),
                Err(_) if text.trim().is_empty() => "empty text, not an event".to_owned(),
                Err(_) => format!("not valid JSON: {e}"),
            };
            return ParseOutcome::Unparseable { reason };
        }
    };
    let type_name = match fields
        .take("type")
        .map(|raw| serde_json::from_str::<String>(raw.get()))
    {
        Some(Ok(name)) => name,
        Some(Err(_)) => {
            return ParseOutcome::Unparseable {
                reason: "`type` is not a string".to_owned(),
            };
        }
        None => {
            return ParseOutcome::Unparseable {
                reason: "a JSON object without a `type`".to_owned(),
            };
        }
    };
    let Some(event_type) = EventType::from_name(&type_name) else {
        let legacy_delta = type_name
            .starts_with("THINKING_")
            .then(|| fields.peek_str("delta"))
            .flatten();
        return ParseOutcome::UnknownType {
            type_name,
            legacy_delta,
        };
    };
    let mut issues = Vec::new();
    match super::schema::read_event(event_type, &mut fields, &mut issues) {
        Ok(event) => {
            for name in fields.unused() {
                issues.push(Issue {
                    code: Code::EventUnknownProperty,
                    path: Some(format!("/{}", pointer_token(name))),
                    message: format!(
                        "unknown member `{name}` (/{}) on {} stripped",
                        pointer_token(name),
                        event_type.as_str()
                    ),
                });
            }
            ParseOutcome::Event { event, issues }
        }
        Err(malformed) => ParseOutcome::Malformed {
            event_type,
            message_id: fields.peek_str("messageId"),
            issue: Issue {
                code: Code::EventMalformed,
                path: Some(malformed.path),
                message: format!("malformed {}: {}", event_type.as_str(), malformed.reason),
            },
        },
    }
}

/// The `RUN_FINISHED.outcome` variants AG-UI defines.
pub(crate) const RUN_OUTCOMES: [&str; 3] = ["success", "cancelled", "interrupt"];

/// Checks a run outcome: `Ok(None)` for a known variant, `Ok(Some(type))`
/// for an unknown one (to strip), `Err` when it is malformed.
pub(crate) fn check_outcome(value: &Value, path: &str) -> Result<Option<String>, Malformed> {
    let Value::Object(outcome) = value else {
        return Err(Malformed::new(
            path,
            format!("`outcome`: expected object, received {}", bare_kind(value)),
        ));
    };
    match outcome.get("type") {
        Some(Value::String(variant)) if RUN_OUTCOMES.contains(&variant.as_str()) => Ok(None),
        Some(Value::String(variant)) => Ok(Some(variant.clone())),
        other => Err(Malformed::new(
            format!("{path}/type"),
            format!(
                "`outcome.type` must be a string, found {}",
                other.map_or("nothing", json_kind)
            ),
        )),
    }
}

/// Checks tool result content: a string, or an array of content parts
/// ([`check_parts`]). Unknown parts are for [`super::shapes`] to drop.
pub(crate) fn check_tool_content(value: Value, path: &str) -> Result<Value, Malformed> {
    match &value {
        Value::String(_) => Ok(value),
        Value::Array(parts) => {
            check_parts(parts, path)?;
            Ok(value)
        }
        other => Err(Malformed::new(
            path,
            format!(
                "`content` must be a string or an array of content parts, found {}",
                json_kind(other)
            ),
        )),
    }
}

/// Checks a list of content parts (of a tool result, or of a message):
/// each an object with a string `type`, a text part with a string `text`.
/// A part of an unknown `type` is not malformed: it is dropped with a
/// warning, and the list survives (C10, issue 39).
pub(crate) fn check_parts(parts: &[Value], path: &str) -> Result<(), Malformed> {
    for (i, part) in parts.iter().enumerate() {
        let here = format!("{path}/{i}");
        let Value::Object(object) = part else {
            return Err(Malformed::new(
                here,
                format!(
                    "a content part must be an object, found {}",
                    json_kind(part)
                ),
            ));
        };
        match object.get("type") {
            Some(Value::String(part_type)) => {
                if part_type == "text" && !object.get("text").is_some_and(Value::is_string) {
                    return Err(Malformed::new(
                        format!("{here}/text"),
                        "a text content part's `text` must be a string",
                    ));
                }
            }
            other => {
                return Err(Malformed::new(
                    format!("{here}/type"),
                    format!(
                        "a content part's `type` must be a string, found {}",
                        other.map_or("nothing", json_kind)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The JSON kind without an article, as schema errors say it (`array`).
fn bare_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The message roles of AG-UI 1.0, by name ([`MessageRole::ALL`]).
pub const MESSAGE_ROLES: [&str; 7] = {
    let mut names = [""; 7];
    let mut i = 0;
    while i < names.len() {
        names[i] = MessageRole::ALL[i].as_str();
        i += 1;
    }
    names
};

/// Validates one AG-UI `Message` object: a string `id`, a known `role`, and
/// for activity messages a string `activityType` and an object `content`.
/// Other members are kept as sent.
pub(super) fn read_message(raw: &RawValue, path: &str) -> Result<Map<String, Value>, Malformed> {
    let message: Map<String, Value> = serde_json::from_str(raw.get()).map_err(|e| {
        let reason = match super::fields::kind_of(raw) {
            "an object" => super::fields::unreadable("message", &e),
            kind => format!("a message must be an object, found {kind}"),
        };
        Malformed::new(path, reason)
    })?;
    validate_message(&message, path)?;
    Ok(message)
}

/// Checks the members of one message that the replay relies on.
pub(crate) fn validate_message(message: &Map<String, Value>, path: &str) -> Result<(), Malformed> {
    let string_member = |name: &str| -> Result<&str, Malformed> {
        match message.get(name) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(Malformed::new(
                format!("{path}/{name}"),
                format!(
                    "message `{name}` must be a string, found {}",
                    json_kind(other)
                ),
            )),
            None => Err(Malformed::new(
                format!("{path}/{name}"),
                format!("message has no `{name}`"),
            )),
        }
    };
    string_member("id")?;
    let role = string_member("role")?;
    if !MESSAGE_ROLES.contains(&role) {
        return Err(Malformed::new(
            format!("{path}/role"),
            format!("unknown message role {role:?}"),
        ));
    }
    // Issue 39: a list of parts is checked as a tool result's, wherever it
    // stands.
    if matches!(role, "user" | "assistant" | "tool")
        && let Some(Value::Array(parts)) = message.get("content")
    {
        check_parts(parts, &format!("{path}/content"))?;
    }
    if role == "activity" {
        string_member("activityType")?;
        match message.get("content") {
            Some(Value::Object(_)) => {}
            other => {
                return Err(Malformed::new(
                    format!("{path}/content"),
                    format!(
                        "activity message `content` must be an object, found {}",
                        other.map_or("nothing", json_kind)
                    ),
                ));
            }
        }
        for name in ["subagentRunId"] {
            if let Some(value) = message.get(name)
                && !value.is_string()
            {
                return Err(Malformed::new(
                    format!("{path}/{name}"),
                    format!("`{name}` must be a string, found {}", json_kind(value)),
                ));
            }
        }
        if let Some(value) = message.get("metadata")
            && !value.is_object()
        {
            return Err(Malformed::new(
                format!("{path}/metadata"),
                format!("`metadata` must be an object, found {}", json_kind(value)),
            ));
        }
    }
    Ok(())
}

/// Validates a run input (`RUN_STARTED.input`, or a recorded request body):
/// an object whose `messages`, when present, is an array of messages.
pub(crate) fn validate_run_input(
    input: Map<String, Value>,
    path: &str,
) -> Result<Value, Malformed> {
    if let Some(messages) = input.get("messages") {
        let Value::Array(messages) = messages else {
            return Err(Malformed::new(
                format!("{path}/messages"),
                format!("`messages` must be an array, found {}", json_kind(messages)),
            ));
        };
        for (i, message) in messages.iter().enumerate() {
            let here = format!("{path}/messages/{i}");
            let Value::Object(message) = message else {
                return Err(Malformed::new(
                    here,
                    format!("a message must be an object, found {}", json_kind(message)),
                ));
            };
            validate_message(message, &here)?;
        }
    }
    Ok(Value::Object(input))
}

/// The JSON kind of a value, for messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malformed_path(text: &str) -> String {
        match parse_event_str(text) {
            ParseOutcome::Malformed { issue, .. } => issue.path.unwrap_or_default(),
            other => panic!("expected malformed, got {other:?}"),
        }
    }

    #[test]
    fn r41_unparseable_inputs() {
        for text in [
            "",
            "nope",
            "[1,2]",
            "{\"a\":1}",
            "{\"type\":5}",
            "{\"type\":\"X\"",
        ] {
            assert!(
                matches!(parse_event_str(text), ParseOutcome::Unparseable { .. }),
                "{text}"
            );
        }
        assert!(matches!(
            parse_event(&[0xff, b'{']),
            ParseOutcome::Unparseable { .. }
        ));
    }

    #[test]
    fn r42_unknown_type_and_unknown_member() {
        assert_eq!(
            parse_event_str(r#"{"type":"ACME_PING","n":1}"#),
            ParseOutcome::UnknownType {
                type_name: "ACME_PING".to_owned(),
                legacy_delta: None,
            }
        );
        let ParseOutcome::Event { issues, .. } =
            parse_event_str(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","x/y":1}"#)
        else {
            panic!("expected an event");
        };
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].code, Code::EventUnknownProperty);
        assert_eq!(issues[0].path.as_deref(), Some("/x~1y"));
    }

    #[test]
    fn r40_malformed_values_name_the_field() {
        assert_eq!(
            malformed_path(
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":[1]}"#
            ),
            "/content"
        );
        assert_eq!(
            malformed_path(r#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[]}"#),
            "/activityType"
        );
        assert_eq!(
            malformed_path(
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{},"replace":"no"}"#
            ),
            "/replace"
        );
        assert_eq!(
            malformed_path(
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{},"metadata":null}"#
            ),
            "/metadata"
        );
        assert_eq!(
            malformed_path(
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{},"subagentRunId":null}"#
            ),
            "/subagentRunId"
        );
        assert_eq!(
            malformed_path(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":1.5}"#),
            "/timestamp"
        );
        assert_eq!(
            malformed_path(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}"#),
            "/role"
        );
        assert_eq!(
            malformed_path(
                r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"user"},{"role":"user"}]}"#
            ),
            "/messages/1/id"
        );
        assert_eq!(
            malformed_path(r#"{"type":"SUBAGENT_STARTED","name":"n"}"#),
            "/subagentRunId"
        );
    }

    #[test]
    fn every_event_type_parses_with_its_required_fields() {
        let samples = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","parentRunId":"p","input":{"messages":[]}}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"x":1}}"#,
            r#"{"type":"RUN_ERROR","message":"m","code":"c"}"#,
            r#"{"type":"STEP_STARTED","stepName":"s"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"s"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"user"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"d"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n","parentMessageId":"m"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"n","delta":"{"}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"ok","role":"tool"}"#,
            r#"{"type":"REASONING_START","messageId":"m"}"#,
            r#"{"type":"REASONING_MESSAGE_START","messageId":"m","role":"reasoning"}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"m","delta":"d"}"#,
            r#"{"type":"REASONING_MESSAGE_END","messageId":"m"}"#,
            r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"m","delta":"d"}"#,
            r#"{"type":"REASONING_END","messageId":"m"}"#,
            r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m","encryptedValue":"x"}"#,
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":1}}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}"#,
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi"}]}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{},"replace":false}"#,
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[]}"#,
            r#"{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","description":"d"}"#,
            r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"s"}"#,
            r#"{"type":"SUBAGENT_ERROR","subagentRunId":"s","message":"m"}"#,
            r#"{"type":"RAW","event":{"x":1},"source":"s"}"#,
            r#"{"type":"CUSTOM","name":"n","value":1,"timestamp":5,"metadata":{},"rawEvent":null}"#,
        ];
        assert_eq!(samples.len(), EventType::ALL.len());
        let mut seen = std::collections::BTreeSet::new();
        for text in samples {
            match parse_event_str(text) {
                ParseOutcome::Event { event, issues } => {
                    assert!(issues.is_empty(), "{text}: {issues:?}");
                    seen.insert(event.event_type());
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert_eq!(seen.len(), 31);
    }
}
