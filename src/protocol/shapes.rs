//! The objects nested inside events, written once (issue 39): messages,
//! content parts and their sources, tool calls, a run input and its tools,
//! context and resume entries, token usage entries, run and subagent
//! outcomes, as `@ag-ui/core` 1.0.0 defines them (AG-UI 1.1 adds no nested
//! member; the retired `binary` content part stays known, the compatibility
//! boundary upgrades it).
//!
//! [`strip`] removes from a value what its shape does not define, as the
//! top-level reader does for an event's members (R42): a member an object
//! does not define is stripped (`event.unknown-property`, with the JSON
//! pointer to it), and an element of a list that is a union variant the
//! schema does not define (an unknown content part, or one whose `source`
//! is unknown) is dropped while the list survives (`event.unknown-variant`,
//! C10), in every list of every message as in a tool result. What is
//! malformed is for the readers to say first: the walk leaves alone a value
//! that is not of its shape's JSON kind.
//!
//! [`Shape::paths`] lists every member a shape knows, in the notation of
//! `tests/peer/node/schema-members.js`, so that a test can compare the
//! engine's schema with the package's own.

use serde_json::{Map, Value};

use super::fields::pointer_token;
use super::parse::Issue;
use crate::diagnostic::Code;

/// What a nested value is, as far as unknown material goes.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Any value: a leaf, or an object the schema leaves open to any member
    /// (metadata, state, an activity's content, a tool's parameters).
    Any,
    /// An object with these members and no others.
    Object(&'static Object),
    /// An array of elements of this shape; an element that is an unknown
    /// variant is dropped and the list survives.
    List(&'static Shape),
    /// Objects told apart by a string member.
    Union(&'static Union),
    /// Objects told apart by a string member, each open to any member
    /// (RFC 6902's operations, R16); read by the patch reader.
    Open {
        /// The member that tells them apart.
        tag: &'static str,
        /// Its values.
        values: &'static [&'static str],
    },
}

/// An object shape.
#[derive(Clone, Copy, Debug)]
pub struct Object {
    /// What it is, in words ("a user message").
    pub what: &'static str,
    /// Its members.
    pub members: &'static [Field],
}

/// One member of an object shape.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The name on the wire.
    pub name: &'static str,
    /// What it holds.
    pub shape: Shape,
    /// Whether the object cannot be without it: an unknown variant here
    /// makes the object itself unknown (a media part whose `source` is of
    /// an unknown type), where an optional one is stripped alone.
    pub required: bool,
}

/// A union of object shapes told apart by the string member `tag`.
#[derive(Clone, Copy, Debug)]
pub struct Union {
    /// What an option is, in words ("content part").
    pub what: &'static str,
    /// The member that tells the options apart.
    pub tag: &'static str,
    /// Each value of `tag` with its object.
    pub options: &'static [(&'static str, &'static Object)],
}

impl Union {
    /// The object of the option `map` is, if its tag names one.
    fn option_of(&self, map: &Map<String, Value>) -> Option<Option<&'static Object>> {
        let Some(Value::String(tag)) = map.get(self.tag) else {
            return None;
        };
        Some(
            self.options
                .iter()
                .find(|(name, _)| name == tag)
                .map(|(_, object)| *object),
        )
    }
}

const fn req(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: true,
    }
}

const fn opt(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: false,
    }
}

const ANY: Shape = Shape::Any;

// Content parts.

const DATA_SOURCE: Object = Object {
    what: "a data source",
    members: &[req("type", ANY), req("value", ANY), req("mimeType", ANY)],
};
const URL_SOURCE: Object = Object {
    what: "a URL source",
    members: &[req("type", ANY), req("value", ANY), opt("mimeType", ANY)],
};
const FILE_SOURCE: Object = Object {
    what: "a file source",
    members: &[
        req("type", ANY),
        req("value", ANY),
        opt("provider", ANY),
        opt("mimeType", ANY),
    ],
};
const SOURCE: Union = Union {
    what: "source",
    tag: "type",
    options: &[
        ("data", &DATA_SOURCE),
        ("url", &URL_SOURCE),
        ("file", &FILE_SOURCE),
    ],
};

const TEXT_PART: Object = Object {
    what: "a text content part",
    members: &[
        req("type", ANY),
        opt("id", ANY),
        req("text", ANY),
        opt("metadata", ANY),
    ],
};
const MEDIA_MEMBERS: &[Field] = &[
    req("type", ANY),
    opt("id", ANY),
    req("source", Shape::Union(&SOURCE)),
    opt("metadata", ANY),
];
const IMAGE_PART: Object = Object {
    what: "an image content part",
    members: MEDIA_MEMBERS,
};
const AUDIO_PART: Object = Object {
    what: "an audio content part",
    members: MEDIA_MEMBERS,
};
const VIDEO_PART: Object = Object {
    what: "a video content part",
    members: MEDIA_MEMBERS,
};
const DOCUMENT_PART: Object = Object {
    what: "a document content part",
    members: MEDIA_MEMBERS,
};
/// The retired part of the 0.0.x protocol, which the reference client
/// upgrades to a media part (corpus: `era-0-0-47-upgrades-binary-content`).
const BINARY_PART: Object = Object {
    what: "a binary content part",
    members: &[
        req("type", ANY),
        req("mimeType", ANY),
        opt("id", ANY),
        opt("url", ANY),
        opt("data", ANY),
        opt("filename", ANY),
    ],
};

/// A content part, told apart by `type`.
pub const CONTENT_PART: Union = Union {
    what: "content part",
    tag: "type",
    options: &[
        ("text", &TEXT_PART),
        ("image", &IMAGE_PART),
        ("audio", &AUDIO_PART),
        ("video", &VIDEO_PART),
        ("document", &DOCUMENT_PART),
        ("binary", &BINARY_PART),
    ],
};
const PART: Shape = Shape::Union(&CONTENT_PART);
/// A list of content parts (a string in its place is left alone).
pub const PARTS: Shape = Shape::List(&PART);

// Messages.

const FUNCTION_CALL: Object = Object {
    what: "a function call",
    members: &[req("name", ANY), req("arguments", ANY)],
};
const TOOL_CALL: Object = Object {
    what: "a tool call",
    members: &[
        req("id", ANY),
        req("type", ANY),
        req("function", Shape::Object(&FUNCTION_CALL)),
        opt("encryptedValue", ANY),
        opt("metadata", ANY),
    ],
};
const TOOL_CALL_SHAPE: Shape = Shape::Object(&TOOL_CALL);

/// The members of a developer or system message.
const INSTRUCTION_MEMBERS: &[Field] = &[
    opt("subagentRunId", ANY),
    req("id", ANY),
    req("role", ANY),
    opt("name", ANY),
    opt("encryptedValue", ANY),
    opt("metadata", ANY),
    req("content", ANY),
];
const DEVELOPER_MESSAGE: Object = Object {
    what: "a developer message",
    members: INSTRUCTION_MEMBERS,
};
const SYSTEM_MESSAGE: Object = Object {
    what: "a system message",
    members: INSTRUCTION_MEMBERS,
};
const ASSISTANT_MESSAGE: Object = Object {
    what: "an assistant message",
    members: &[
        opt("subagentRunId", ANY),
        req("id", ANY),
        req("role", ANY),
        opt("name", ANY),
        opt("encryptedValue", ANY),
        opt("metadata", ANY),
        // A string in 1.0; a list of parts is read as a user message's.
        opt("content", PARTS),
        opt("toolCalls", Shape::List(&TOOL_CALL_SHAPE)),
    ],
};
const USER_MESSAGE: Object = Object {
    what: "a user message",
    members: &[
        opt("subagentRunId", ANY),
        req("id", ANY),
        req("role", ANY),
        opt("name", ANY),
        opt("encryptedValue", ANY),
        opt("metadata", ANY),
        req("content", PARTS),
    ],
};
const TOOL_MESSAGE: Object = Object {
    what: "a tool message",
    members: &[
        opt("subagentRunId", ANY),
        req("id", ANY),
        req("role", ANY),
        req("content", PARTS),
        req("toolCallId", ANY),
        opt("error", ANY),
        opt("encryptedValue", ANY),
        opt("metadata", ANY),
    ],
};
const ACTIVITY_MESSAGE: Object = Object {
    what: "an activity message",
    members: &[
        opt("subagentRunId", ANY),
        req("id", ANY),
        req("role", ANY),
        req("activityType", ANY),
        req("content", ANY),
        opt("metadata", ANY),
    ],
};
const REASONING_MESSAGE: Object = Object {
    what: "a reasoning message",
    members: &[
        opt("subagentRunId", ANY),
        req("id", ANY),
        req("role", ANY),
        req("content", ANY),
        opt("encryptedValue", ANY),
        opt("metadata", ANY),
    ],
};

/// A message, told apart by `role`.
pub const MESSAGE: Union = Union {
    what: "message",
    tag: "role",
    options: &[
        ("developer", &DEVELOPER_MESSAGE),
        ("system", &SYSTEM_MESSAGE),
        ("assistant", &ASSISTANT_MESSAGE),
        ("user", &USER_MESSAGE),
        ("tool", &TOOL_MESSAGE),
        ("activity", &ACTIVITY_MESSAGE),
        ("reasoning", &REASONING_MESSAGE),
    ],
};
const MESSAGE_SHAPE: Shape = Shape::Union(&MESSAGE);
/// A list of messages.
pub const MESSAGES: Shape = Shape::List(&MESSAGE_SHAPE);

// A run input.

const TOOL: Object = Object {
    what: "a tool",
    members: &[
        req("name", ANY),
        req("description", ANY),
        opt("parameters", ANY),
        opt("metadata", ANY),
    ],
};
const TOOL_SHAPE: Shape = Shape::Object(&TOOL);
const CONTEXT: Object = Object {
    what: "a context entry",
    members: &[req("description", ANY), req("value", ANY)],
};
const CONTEXT_SHAPE: Shape = Shape::Object(&CONTEXT);
const RESUME_ENTRY: Object = Object {
    what: "a resume entry",
    members: &[
        req("interruptId", ANY),
        req("status", ANY),
        opt("payload", ANY),
        opt("metadata", ANY),
    ],
};
const RESUME_SHAPE: Shape = Shape::Object(&RESUME_ENTRY);

/// A run input (`RUN_STARTED.input`, a recorded request body).
pub const RUN_INPUT: Object = Object {
    what: "the run input",
    members: &[
        req("threadId", ANY),
        req("runId", ANY),
        opt("protocolVersion", ANY),
        opt("parentRunId", ANY),
        opt("state", ANY),
        req("messages", MESSAGES),
        opt("tools", Shape::List(&TOOL_SHAPE)),
        opt("context", Shape::List(&CONTEXT_SHAPE)),
        opt("forwardedProps", ANY),
        opt("resume", Shape::List(&RESUME_SHAPE)),
    ],
};

// Outcomes and usage.

const INTERRUPT: Object = Object {
    what: "an interrupt",
    members: &[
        opt("subagentRunId", ANY),
        req("id", ANY),
        req("reason", ANY),
        opt("message", ANY),
        opt("toolCallId", ANY),
        opt("responseSchema", ANY),
        opt("expiresAt", ANY),
        opt("metadata", ANY),
    ],
};
const INTERRUPT_SHAPE: Shape = Shape::Object(&INTERRUPT);
const RUN_SUCCESS: Object = Object {
    what: "a success outcome",
    members: &[req("type", ANY), opt("pendingToolCallIds", ANY)],
};
const RUN_INTERRUPT: Object = Object {
    what: "an interrupt outcome",
    members: &[
        req("type", ANY),
        req("interrupts", Shape::List(&INTERRUPT_SHAPE)),
    ],
};
const RUN_CANCELLED: Object = Object {
    what: "a cancelled outcome",
    members: &[req("type", ANY)],
};

/// `RUN_FINISHED.outcome`, told apart by `type` (its variants are
/// `parse::RUN_OUTCOMES`).
pub const RUN_OUTCOME: Union = Union {
    what: "RUN_FINISHED outcome",
    tag: "type",
    options: &[
        ("success", &RUN_SUCCESS),
        ("interrupt", &RUN_INTERRUPT),
        ("cancelled", &RUN_CANCELLED),
    ],
};

const SUBAGENT_SUCCESS: Object = Object {
    what: "a success outcome",
    members: &[req("type", ANY)],
};
const SUBAGENT_SUSPENDED: Object = Object {
    what: "a suspended outcome",
    members: &[req("type", ANY), opt("interruptIds", ANY)],
};

/// `SUBAGENT_FINISHED.outcome`, told apart by `type`.
pub const SUBAGENT_OUTCOME: Union = Union {
    what: "SUBAGENT_FINISHED outcome",
    tag: "type",
    options: &[
        ("success", &SUBAGENT_SUCCESS),
        ("suspended", &SUBAGENT_SUSPENDED),
    ],
};

const TOKEN_USAGE: Object = Object {
    what: "a token usage entry",
    members: &[
        opt("provider", ANY),
        opt("model", ANY),
        opt("inputTokens", ANY),
        opt("outputTokens", ANY),
        opt("totalTokens", ANY),
        opt("reasoningTokens", ANY),
        opt("cachedInputTokens", ANY),
        opt("cacheWriteInputTokens", ANY),
    ],
};
const TOKEN_USAGE_SHAPE: Shape = Shape::Object(&TOKEN_USAGE);
/// `usage` of `RUN_FINISHED` and `RUN_ERROR`: token usage entries.
pub const USAGE: Shape = Shape::List(&TOKEN_USAGE_SHAPE);

/// RFC 6902 operations: open objects (R16), told apart by `op`.
pub const PATCH_OPERATIONS: Shape = Shape::List(&Shape::Open {
    tag: "op",
    values: &["add", "remove", "replace", "move", "copy", "test"],
});

/// Why a value is itself unknown: an unknown variant of a union, at a
/// pointer, in words.
#[derive(Debug)]
struct Unknown {
    /// The pointer of the union's value.
    at: String,
    /// `unrecognised content part type "x" at /content/1`.
    reason: String,
}

impl Shape {
    /// Removes from `value` (at pointer `path`) what this shape does not
    /// define, with an issue for each removal. `Err` when the value is
    /// itself an unknown variant, for the caller to drop.
    fn strip(self, value: &mut Value, path: &str, issues: &mut Vec<Issue>) -> Result<(), Unknown> {
        match self {
            Shape::Any | Shape::Open { .. } => Ok(()),
            Shape::Object(object) => match value {
                Value::Object(map) => strip_members(map, object, path, issues),
                _ => Ok(()),
            },
            Shape::Union(union) => {
                let Value::Object(map) = value else {
                    return Ok(());
                };
                match union.option_of(map) {
                    None => Ok(()),
                    Some(Some(object)) => strip_members(map, object, path, issues),
                    Some(None) => Err(Unknown {
                        at: path.to_owned(),
                        reason: format!(
                            "unrecognised {} {} {:?} at {path}",
                            union.what,
                            union.tag,
                            map.get(union.tag).and_then(Value::as_str).unwrap_or("")
                        ),
                    }),
                }
            }
            Shape::List(element) => {
                let Value::Array(items) = value else {
                    return Ok(());
                };
                let mut kept = Vec::with_capacity(items.len());
                for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
                    let here = format!("{path}/{i}");
                    let mark = issues.len();
                    match element.strip(&mut item, &here, issues) {
                        Ok(()) => kept.push(item),
                        Err(unknown) => {
                            // What was found inside goes with it.
                            issues.truncate(mark);
                            issues.push(dropped(&here, &unknown, "the rest of the list is kept"));
                        }
                    }
                }
                *items = kept;
                Ok(())
            }
        }
    }

    /// Whether [`Shape::strip`] would leave `value` as it is.
    fn is_clean(self, value: &Value) -> bool {
        match self {
            Shape::Any | Shape::Open { .. } => true,
            Shape::Object(object) => match value {
                Value::Object(map) => members_are_clean(map, object),
                _ => true,
            },
            Shape::Union(union) => match value {
                Value::Object(map) => match union.option_of(map) {
                    None => true,
                    Some(Some(object)) => members_are_clean(map, object),
                    Some(None) => false,
                },
                _ => true,
            },
            Shape::List(element) => match value {
                Value::Array(items) => items.iter().all(|item| element.is_clean(item)),
                _ => true,
            },
        }
    }

    /// Every member this shape knows, each as a path below `at` in the
    /// notation of `tests/peer/node/schema-members.js` (`/name`, `/*` for
    /// the elements of a list, `{tag=value}` for a union's option, `/**`
    /// for an object open to any member).
    pub fn paths(self, at: &str, out: &mut Vec<String>) {
        match self {
            Shape::Any => {}
            Shape::Object(object) => object_paths(object, at, out),
            Shape::List(element) => element.paths(&format!("{at}/*"), out),
            Shape::Union(union) => {
                for (value, object) in union.options {
                    object_paths(object, &format!("{at}{{{}={value}}}", union.tag), out);
                }
            }
            Shape::Open { tag, values } => {
                for value in values {
                    out.push(format!("{at}{{{tag}={value}}}/**"));
                }
            }
        }
    }
}

fn object_paths(object: &Object, at: &str, out: &mut Vec<String>) {
    for field in object.members {
        let here = format!("{at}/{}", field.name);
        field.shape.paths(&here, out);
        out.push(here);
    }
}

/// The issue for an element or member removed because it is (or holds in
/// a place it cannot be without) an unknown variant.
fn dropped(here: &str, unknown: &Unknown, rest: &str) -> Issue {
    let message = if unknown.at == here {
        format!("{} stripped; {rest}", unknown.reason)
    } else {
        format!("{here} dropped: {}; {rest}", unknown.reason)
    };
    Issue {
        code: Code::EventUnknownVariant,
        path: Some(here.to_owned()),
        message,
    }
}

fn strip_members(
    map: &mut Map<String, Value>,
    object: &Object,
    path: &str,
    issues: &mut Vec<Issue>,
) -> Result<(), Unknown> {
    let mut remove = Vec::new();
    for (name, value) in map.iter_mut() {
        let here = format!("{path}/{}", pointer_token(name));
        let Some(field) = object.members.iter().find(|f| f.name == name) else {
            issues.push(Issue {
                code: Code::EventUnknownProperty,
                path: Some(here.clone()),
                message: format!(
                    "unknown member `{name}` ({here}) of {} stripped",
                    object.what
                ),
            });
            remove.push(name.clone());
            continue;
        };
        let mark = issues.len();
        if let Err(unknown) = field.shape.strip(value, &here, issues) {
            issues.truncate(mark);
            if field.required {
                return Err(unknown);
            }
            issues.push(dropped(&here, &unknown, "the rest is kept"));
            remove.push(name.clone());
        }
    }
    if !remove.is_empty() {
        map.retain(|name, _| !remove.contains(name));
    }
    Ok(())
}

fn members_are_clean(map: &Map<String, Value>, object: &Object) -> bool {
    map.iter().all(
        |(name, value)| match object.members.iter().find(|f| f.name == name) {
            Some(field) => field.shape.is_clean(value),
            None => false,
        },
    )
}

/// Strips what `shape` does not define from `value` at pointer `path`
/// (R42, C10). `Err` with the issue when the value itself is an unknown
/// variant (the caller strips the whole member).
pub(crate) fn strip(
    shape: Shape,
    value: &mut Value,
    path: &str,
    issues: &mut Vec<Issue>,
) -> Result<(), Issue> {
    let mark = issues.len();
    shape.strip(value, path, issues).map_err(|unknown| {
        issues.truncate(mark);
        dropped(path, &unknown, "the rest is kept")
    })
}

/// Whether [`strip`] would find nothing to remove (the one-pass reader
/// gives anything else to the precise one).
pub(crate) fn is_clean(shape: Shape, value: &Value) -> bool {
    shape.is_clean(value)
}

/// Whether [`strip`] would find nothing to remove from one message.
pub(crate) fn message_is_clean(message: &Map<String, Value>) -> bool {
    match MESSAGE.option_of(message) {
        None => true,
        Some(Some(object)) => members_are_clean(message, object),
        Some(None) => false,
    }
}

/// A recorded run input (a request body, step 0) without what its shape
/// does not define, and the issues saying so, with pointers from the
/// body's root (issue 39: as `RUN_STARTED.input` is read); `None` when
/// there is nothing to strip.
pub(crate) fn strip_run_input(input: &Value) -> Option<(Value, Vec<Issue>)> {
    let shape = Shape::Object(&RUN_INPUT);
    if shape.is_clean(input) {
        return None;
    }
    let mut input = input.clone();
    let mut issues = Vec::new();
    // A run input is an object: it is never an unknown variant as a whole.
    if let Err(issue) = strip(shape, &mut input, "", &mut issues) {
        issues.push(issue);
    }
    Some((input, issues))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_unknown_nested_member_is_stripped_with_its_pointer() {
        let mut value = json!([{"id": "u", "role": "user", "content": "hi", "mood": 1}]);
        let mut issues = Vec::new();
        assert!(!is_clean(MESSAGES, &value));
        strip(MESSAGES, &mut value, "/messages", &mut issues).expect("kept");
        assert_eq!(value, json!([{"id": "u", "role": "user", "content": "hi"}]));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].code, Code::EventUnknownProperty);
        assert_eq!(issues[0].path.as_deref(), Some("/messages/0/mood"));
        assert!(is_clean(MESSAGES, &value));
    }

    #[test]
    fn an_unknown_element_is_dropped_and_the_list_survives() {
        let mut value = json!([
            {"type": "hologram", "x": 1},
            {"type": "text", "text": "a", "extra": true},
            {"type": "image", "source": {"type": "zip", "value": "v"}},
            {"type": "image", "source": {"type": "url", "value": "v", "size": 3}},
        ]);
        let mut issues = Vec::new();
        strip(PARTS, &mut value, "/content", &mut issues).expect("kept");
        assert_eq!(
            value,
            json!([
                {"type": "text", "text": "a"},
                {"type": "image", "source": {"type": "url", "value": "v"}},
            ])
        );
        let found: Vec<(Code, &str)> = issues
            .iter()
            .map(|i| (i.code, i.path.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            found,
            [
                (Code::EventUnknownVariant, "/content/0"),
                (Code::EventUnknownProperty, "/content/1/extra"),
                (Code::EventUnknownVariant, "/content/2"),
                (Code::EventUnknownProperty, "/content/3/source/size"),
            ]
        );
    }

    #[test]
    fn open_and_unshaped_values_are_left_alone() {
        let value = json!({"id": "a", "role": "activity", "activityType": "t",
            "content": {"anything": 1}, "metadata": {"k": null}});
        assert!(is_clean(MESSAGES, &Value::Array(vec![value])));
        assert!(is_clean(PARTS, &json!("a string")));
    }
}
