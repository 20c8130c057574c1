//! The two readers of each member [`Kind`](super::schema::Kind), side by
//! side: `precise` names what is wrong, `fast` gives up instead. The schema
//! (`schema.rs`) calls them by the kind's name; both must agree on every
//! value `fast` accepts (a property test checks it).

/// Member by member, with diagnostics: `Ok(None)` when the member is
/// absent, `Err` when it is malformed (R40), and non-fatal findings pushed
/// to `issues`.
#[allow(non_snake_case)] // named after the schema's kinds
pub(super) mod precise {
    use serde_json::{Map, Value};

    use crate::diagnostic::Code;
    use crate::protocol::event::{EncryptedSubtype, TextRole};
    use crate::protocol::fields::{Fields, Malformed};
    use crate::protocol::parse::{
        Issue, MESSAGE_ROLES, check_outcome, check_tool_content, json_kind, read_message,
        validate_run_input,
    };
    use crate::protocol::patch::{Patch, parse_patch};
    use crate::protocol::schema::Kind;
    use crate::protocol::shapes::strip;

    type Read<T> = Result<Option<T>, Malformed>;

    /// `value` without what the kind's shape does not define (issue 39),
    /// or `None` when it is itself an unknown variant (stripped whole).
    fn known(kind: Kind, mut value: Value, path: &str, issues: &mut Vec<Issue>) -> Option<Value> {
        match strip(kind.shape(), &mut value, path, issues) {
            Ok(()) => Some(value),
            Err(issue) => {
                issues.push(issue);
                None
            }
        }
    }

    pub fn Text(f: &mut Fields<'_>, name: &str, _: &mut Vec<Issue>) -> Read<String> {
        f.string(name)
    }

    pub fn MessageId(
        f: &mut Fields<'_>,
        name: &str,
        issues: &mut Vec<Issue>,
    ) -> Read<crate::protocol::MessageId> {
        Ok(Text(f, name, issues)?.map(crate::protocol::MessageId::from))
    }

    pub fn ToolCallId(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<String> {
        Text(f, name, issues)
    }

    pub fn SubagentRunId(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<String> {
        Text(f, name, issues)
    }

    pub fn ActivityType(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<String> {
        Text(f, name, issues)
    }

    pub fn Bool(f: &mut Fields<'_>, name: &str, _: &mut Vec<Issue>) -> Read<bool> {
        f.boolean(name)
    }

    pub fn Timestamp(f: &mut Fields<'_>, name: &str, _: &mut Vec<Issue>) -> Read<i64> {
        f.integer(name)
    }

    pub fn Json(f: &mut Fields<'_>, name: &str, _: &mut Vec<Issue>) -> Read<Value> {
        f.value(name)
    }

    pub fn Metadata(
        f: &mut Fields<'_>,
        name: &str,
        _: &mut Vec<Issue>,
    ) -> Read<Map<String, Value>> {
        f.object(name)
    }

    pub fn Content(f: &mut Fields<'_>, name: &str, _: &mut Vec<Issue>) -> Read<Value> {
        Ok(f.object(name)?.map(Value::Object))
    }

    pub fn RunInput(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<Value> {
        let path = f.path(name);
        let Some(input) = f.object(name)? else {
            return Ok(None);
        };
        let input = validate_run_input(input, &path)?;
        Ok(known(Kind::RunInput, input, &path, issues))
    }

    /// A text message `role`. A role of another message kind (`tool`…) is
    /// malformed; a name that is no message role at all is an unrecognised
    /// member of a closed set, stripped with a warning under `spec` (§11:
    /// `unknown-enum-value-role-fatal`; the client profile makes it fatal).
    pub fn Role(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<TextRole> {
        let Some(role) = f.string(name)? else {
            return Ok(None);
        };
        let path = f.path(name);
        match TextRole::from_name(&role) {
            Some(role) => Ok(Some(role)),
            None if !MESSAGE_ROLES.contains(&role.as_str()) => {
                issues.push(Issue {
                    code: Code::EventUnknownEnumValue,
                    path: Some(path.clone()),
                    message: format!(
                        "unrecognised role {role:?} at {path} (expected one of developer, system, assistant, user) stripped"
                    ),
                });
                Ok(None)
            }
            None => Err(Malformed::new(
                path,
                format!("`role` must be one of developer, system, assistant, user; found {role:?}"),
            )),
        }
    }

    /// A `role` member that, when present, must be exactly `expected`.
    pub fn literal_role(f: &mut Fields<'_>, expected: &str) -> Result<(), Malformed> {
        match f.string("role")? {
            Some(role) if role != expected => Err(Malformed::new(
                f.path("role"),
                format!("`role`: expected {expected:?}, found {role:?}"),
            )),
            _ => Ok(()),
        }
    }

    pub fn Subtype(f: &mut Fields<'_>, name: &str, _: &mut Vec<Issue>) -> Read<EncryptedSubtype> {
        match f.string(name)?.as_deref() {
            None => Ok(None),
            Some("tool-call") => Ok(Some(EncryptedSubtype::ToolCall)),
            Some("message") => Ok(Some(EncryptedSubtype::Message)),
            Some(other) => Err(Malformed::new(
                f.path(name),
                format!("`{name}` must be \"tool-call\" or \"message\", found {other:?}"),
            )),
        }
    }

    /// `RUN_FINISHED.outcome`: a union of objects told apart by `type`. An
    /// unknown variant is stripped with a warning; anything that is not an
    /// object with a string `type` is malformed (corpus:
    /// `unknown-outcome-stripped`, `unknown-outcome-array-fatal`).
    pub fn Outcome(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<Value> {
        let Some(value) = f.value(name)? else {
            return Ok(None);
        };
        let path = f.path(name);
        match check_outcome(&value, &path)? {
            None => Ok(known(Kind::Outcome, value, &path, issues)),
            Some(variant) => {
                issues.push(Issue {
                    code: Code::EventUnknownVariant,
                    path: Some(path.clone()),
                    message: format!(
                        "unrecognised RUN_FINISHED outcome type {variant:?} at {path} stripped; the run ends as without an outcome"
                    ),
                });
                Ok(None)
            }
        }
    }

    /// `SUBAGENT_FINISHED.outcome`: an unknown variant is stripped with a
    /// warning, as `RUN_FINISHED`'s (C10); a value that is not an object
    /// with a string `type` is kept as sent.
    pub fn SubagentOutcome(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<Value> {
        let Some(value) = f.value(name)? else {
            return Ok(None);
        };
        let path = f.path(name);
        Ok(known(Kind::SubagentOutcome, value, &path, issues))
    }

    /// `usage`: an array of token usage objects.
    pub fn Usage(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<Value> {
        let Some(value) = f.value(name)? else {
            return Ok(None);
        };
        let path = f.path(name);
        check_usage(&value, &path)?;
        Ok(known(Kind::Usage, value, &path, issues))
    }

    /// `usage` must be an array of objects.
    pub(crate) fn check_usage(value: &Value, path: &str) -> Result<(), Malformed> {
        let Value::Array(entries) = value else {
            return Err(Malformed::new(
                path,
                format!(
                    "`usage` must be an array of token usage objects, found {}",
                    json_kind(value)
                ),
            ));
        };
        match entries.iter().position(|entry| !entry.is_object()) {
            Some(i) => Err(Malformed::new(
                format!("{path}/{i}"),
                format!(
                    "a token usage entry must be an object, found {}",
                    json_kind(&entries[i])
                ),
            )),
            None => Ok(()),
        }
    }

    /// `TOOL_CALL_RESULT.content`: a string or an array of content parts;
    /// an unknown part is dropped with a warning (C10).
    pub fn ToolContent(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<Value> {
        let Some(value) = f.value(name)? else {
            return Ok(None);
        };
        let path = f.path(name);
        let content = check_tool_content(value, &path)?;
        Ok(known(Kind::ToolContent, content, &path, issues))
    }

    pub fn Patch(f: &mut Fields<'_>, name: &str, issues: &mut Vec<Issue>) -> Read<Patch> {
        let Some(elements) = f.array(name)? else {
            return Ok(None);
        };
        let base = f.path(name);
        let patch = parse_patch(&elements, &base)?;
        for dropped in &patch.dropped {
            issues.push(Issue {
                code: Code::PatchOpUnknown,
                path: Some(format!("{base}/{}", dropped.index)),
                message: match &dropped.op {
                    Some(op) => format!(
                        "operation {base}/{} has unknown op {op:?}; dropped, the rest of the patch applies",
                        dropped.index
                    ),
                    None => format!(
                        "operation {base}/{} has no string `op`; dropped, the rest of the patch applies (E9)",
                        dropped.index
                    ),
                },
            });
        }
        Ok(Some(patch))
    }

    pub fn Messages(
        f: &mut Fields<'_>,
        name: &str,
        issues: &mut Vec<Issue>,
    ) -> Read<Vec<Map<String, Value>>> {
        let Some(elements) = f.array(name)? else {
            return Ok(None);
        };
        let base = f.path(name);
        let mut messages = Vec::with_capacity(elements.len());
        for (i, raw) in elements.iter().enumerate() {
            messages.push(Value::Object(read_message(raw, &format!("{base}/{i}"))?));
        }
        // Every message has a known role, so none is dropped whole.
        let messages = match known(Kind::Messages, Value::Array(messages), &base, issues) {
            Some(Value::Array(messages)) => messages,
            _ => Vec::new(),
        };
        Ok(Some(
            messages
                .into_iter()
                .filter_map(|message| match message {
                    Value::Object(message) => Some(message),
                    _ => None,
                })
                .collect(),
        ))
    }
}

/// In one pass, borrowing: `Some(None)` when the member is absent, `None`
/// (give up, the precise reader will say why) when it is not what its kind
/// allows.
#[allow(non_snake_case)] // named after the schema's kinds
pub(super) mod fast {
    use std::borrow::Cow;

    use serde::Deserialize;
    use serde_json::value::RawValue;
    use serde_json::{Map, Value};

    use crate::protocol::event::{EncryptedSubtype, TextRole};
    use crate::protocol::fast::{WireValue, patch};
    use crate::protocol::parse::{
        check_outcome, check_tool_content, validate_message, validate_run_input,
    };
    use crate::protocol::patch::Patch;
    use crate::protocol::schema::Kind;
    use crate::protocol::shapes::{is_clean, message_is_clean};

    type Read<T> = Option<Option<T>>;

    /// `value` when the kind's shape finds nothing unknown in it (issue
    /// 39); the precise reader strips and reports anything else.
    fn clean(kind: Kind, value: Value) -> Option<Value> {
        is_clean(kind.shape(), &value).then_some(value)
    }

    /// A raw member parsed as `T`.
    fn raw<'a, T: Deserialize<'a>>(value: Option<WireValue<'a>>) -> Read<T> {
        match value {
            None => Some(None),
            Some(WireValue::Raw(raw)) => parse(raw).map(Some),
            Some(_) => None,
        }
    }

    fn parse<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Option<T> {
        serde_json::from_str(raw.get()).ok()
    }

    fn str_of<'a>(value: Option<WireValue<'a>>) -> Read<Cow<'a, str>> {
        match value {
            None => Some(None),
            Some(WireValue::Str(text)) => Some(Some(text)),
            Some(_) => None,
        }
    }

    pub fn Text(value: Option<WireValue<'_>>) -> Read<String> {
        str_of(value).map(|text| text.map(Cow::into_owned))
    }

    pub fn MessageId(value: Option<WireValue<'_>>) -> Read<crate::protocol::MessageId> {
        Text(value).map(|id| id.map(crate::protocol::MessageId::from))
    }

    pub fn ToolCallId(value: Option<WireValue<'_>>) -> Read<String> {
        Text(value)
    }

    pub fn SubagentRunId(value: Option<WireValue<'_>>) -> Read<String> {
        Text(value)
    }

    pub fn ActivityType(value: Option<WireValue<'_>>) -> Read<String> {
        Text(value)
    }

    pub fn Bool(value: Option<WireValue<'_>>) -> Read<bool> {
        match value {
            None => Some(None),
            Some(WireValue::Bool(b)) => Some(Some(b)),
            Some(_) => None,
        }
    }

    pub fn Timestamp(value: Option<WireValue<'_>>) -> Read<i64> {
        match value {
            None => Some(None),
            Some(WireValue::Int(n)) => Some(Some(n)),
            Some(_) => None,
        }
    }

    pub fn Json(value: Option<WireValue<'_>>) -> Read<Value> {
        raw(value)
    }

    pub fn Metadata(value: Option<WireValue<'_>>) -> Read<Map<String, Value>> {
        raw(value)
    }

    pub fn Content(value: Option<WireValue<'_>>) -> Read<Value> {
        raw(value).map(|content| content.map(Value::Object))
    }

    pub fn RunInput(value: Option<WireValue<'_>>) -> Read<Value> {
        match raw(value)? {
            None => Some(None),
            Some(input) => {
                let input = validate_run_input(input, "/input").ok()?;
                clean(Kind::RunInput, input).map(Some)
            }
        }
    }

    pub fn Role(value: Option<WireValue<'_>>) -> Read<TextRole> {
        match str_of(value)? {
            None => Some(None),
            Some(name) => TextRole::from_name(&name).map(Some),
        }
    }

    /// A `role` that, when present, is exactly `expected`.
    pub fn literal_role(value: Option<WireValue<'_>>, expected: &str) -> Option<()> {
        match str_of(value)? {
            Some(role) if role != expected => None,
            _ => Some(()),
        }
    }

    pub fn Subtype(value: Option<WireValue<'_>>) -> Read<EncryptedSubtype> {
        match str_of(value)?.as_deref() {
            None => Some(None),
            Some("tool-call") => Some(Some(EncryptedSubtype::ToolCall)),
            Some("message") => Some(Some(EncryptedSubtype::Message)),
            Some(_) => None,
        }
    }

    /// Unknown variants and malformed outcomes: the precise reader strips
    /// or rejects them.
    pub fn Outcome(value: Option<WireValue<'_>>) -> Read<Value> {
        match raw::<Value>(value)? {
            None => Some(None),
            Some(outcome) => match check_outcome(&outcome, "/outcome") {
                Ok(None) => clean(Kind::Outcome, outcome).map(Some),
                _ => None,
            },
        }
    }

    pub fn SubagentOutcome(value: Option<WireValue<'_>>) -> Read<Value> {
        match raw::<Value>(value)? {
            None => Some(None),
            Some(outcome) => clean(Kind::SubagentOutcome, outcome).map(Some),
        }
    }

    pub fn Usage(value: Option<WireValue<'_>>) -> Read<Value> {
        match raw::<Value>(value)? {
            None => Some(None),
            Some(usage) => {
                super::precise::check_usage(&usage, "/usage").ok()?;
                clean(Kind::Usage, usage).map(Some)
            }
        }
    }

    pub fn ToolContent(value: Option<WireValue<'_>>) -> Read<Value> {
        match raw::<Value>(value)? {
            None => Some(None),
            Some(content) => {
                let content = check_tool_content(content, "/content").ok()?;
                clean(Kind::ToolContent, content).map(Some)
            }
        }
    }

    pub fn Patch(value: Option<WireValue<'_>>) -> Read<Patch> {
        match value {
            None => Some(None),
            Some(WireValue::Ops(ops)) => patch(ops).map(Some),
            Some(_) => None,
        }
    }

    pub fn Messages(value: Option<WireValue<'_>>) -> Read<Vec<Map<String, Value>>> {
        let messages: Option<Vec<Map<String, Value>>> = raw(value)?;
        if let Some(messages) = &messages {
            for (i, message) in messages.iter().enumerate() {
                validate_message(message, &format!("/messages/{i}")).ok()?;
                if !message_is_clean(message) {
                    return None;
                }
            }
        }
        Some(messages)
    }
}
