//! Property tests: no input makes the readers, the parser or the engine
//! panic (PRODUCT.md, Reliability: "No panic on any input"), and a few
//! invariants of the engine hold on any event sequence (R43).

use std::path::Path;

use agui_replay::{
    Code, Effect, EventType, Options, Outcome, Profile, Replayer, Severity, parse_event,
    read_bytes, replay_log,
};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::Union;
use serde_json::{Map, Value, json};

const NAMES: [&str; 4] = ["x.jsonl", "x.json", "x.sse", "x"];

const OPTIONS: [Options; 4] = [
    Options {
        profile: Profile::Spec,
        best_effort: false,
    },
    Options {
        profile: Profile::Spec,
        best_effort: true,
    },
    Options {
        profile: Profile::AgUiClient10,
        best_effort: false,
    },
    Options {
        profile: Profile::AgUiClient10,
        best_effort: true,
    },
];

/// `cases` cases, and no regression file written next to the tests: the
/// failures found are kept as plain tests at the end of this file.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}

// ------------------------------------------------------------ readers, parser

/// Fragments that steer random text towards the framings the readers know.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => select(vec![
            "{", "}", "[", "]", ",", ":", "\"", "\"type\":", "\"events\":", "\"profile\":",
            "data:", "data: ", "event:", "id:", "retry:", ": comment", "\r\n", "\n\n", "\n",
            "\r", "\r\r", " ", "\u{feff}", "\"RUN_STARTED\"", "\"ACTIVITY_DELTA\"",
            "\"ACTIVITY_SNAPSHOT\"", "\"messageId\":\"a\"", "\"patch\":", "null", "1", "true",
            "\"spec\"", "\"ag-ui-client-1.0\"", "SQLite format 3\0", "\\", "\\u00", "é",
        ])
        .prop_map(str::to_owned),
        1 => "[ -~]{0,8}",
        1 => any::<String>(),
    ]
}

fn fragments() -> impl Strategy<Value = String> {
    vec(fragment(), 0..40).prop_map(|parts| parts.concat())
}

/// Reads `bytes` under every file name and replays what was read, under
/// every option, checking the engine's invariants.
fn read_and_replay(bytes: &[u8]) -> Result<(), TestCaseError> {
    for name in NAMES {
        let Ok(stream) = read_bytes(bytes, Path::new(name)) else {
            continue;
        };
        let num_events = stream.events.len();
        for options in OPTIONS {
            let replayer = replay_log(&stream.events, options);
            check_invariants(&replayer, num_events, options)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn reading_arbitrary_bytes_never_panics(bytes in vec(any::<u8>(), 0..400)) {
        read_and_replay(&bytes)?;
    }

    #[test]
    fn reading_arbitrary_strings_never_panics(text in any::<String>()) {
        read_and_replay(text.as_bytes())?;
    }

    #[test]
    fn reading_json_ish_fragments_never_panics(text in fragments()) {
        read_and_replay(text.as_bytes())?;
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in vec(any::<u8>(), 0..400)) {
        let _ = parse_event(&bytes);
    }

    #[test]
    fn parsing_json_ish_fragments_never_panics(text in fragments()) {
        let _ = parse_event(text.as_bytes());
    }

    #[test]
    fn parsing_generated_events_never_panics(event in event()) {
        let _ = parse_event(event.as_bytes());
    }
}

// ------------------------------------------------------------ event generator

/// Ids from a small pool, so snapshots, deltas, text and tool events collide.
fn message_id() -> impl Strategy<Value = String> {
    select(vec!["a", "b", "c", "m-1", "tc-1"]).prop_map(str::to_owned)
}

fn tool_call_id() -> impl Strategy<Value = String> {
    select(vec!["tc-1", "tc-2", "a"]).prop_map(str::to_owned)
}

fn short_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(vec!["", "x", "hello ", "t", "web_search", "plan", "s1", "s2", "{\"a\":"])
            .prop_map(str::to_owned),
        1 => "[ -~]{0,6}",
    ]
}

fn key() -> impl Strategy<Value = String> {
    select(vec!["a", "b", "x", "y", "0", "-", "~"]).prop_map(str::to_owned)
}

/// Any JSON, small.
fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..6).prop_map(Value::from),
        select(vec![i64::MIN, i64::MAX]).prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(1.5)),
        short_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map(key(), inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// An object (usually), as activity content or state.
fn json_object() -> BoxedStrategy<Value> {
    btree_map(key(), json_value(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
        .boxed()
}

/// A JSON pointer from a small pool of short paths; when `dirty`, also
/// strings that are not JSON pointers.
fn pointer(dirty: bool) -> BoxedStrategy<String> {
    let mut pool = vec![
        "", "/a", "/a/0", "/a/-", "/a/1", "/x/y", "/b", "/a/0/b", "/~1", "/~0", "/",
    ];
    if dirty {
        pool.extend(["a", "/~2", "/a/01", "/a/-1"]);
    }
    select(pool).prop_map(str::to_owned).boxed()
}

/// `clean` as is, or (when `dirty`) sometimes any JSON instead: a member of
/// the wrong type (R40) or something that is not what it should be.
fn or_junk(dirty: bool, odds: u32, clean: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    if dirty {
        prop_oneof![odds => clean, 1 => json_value()].boxed()
    } else {
        clean
    }
}

/// One patch operation, with random `op` (the six of RFC 6902 and an
/// unknown one, R17), path, `value`, `from` and sometimes an extra member
/// (R16). When `dirty`, sometimes malformed (R40).
fn patch_op(dirty: bool) -> BoxedStrategy<Value> {
    const OPS: [&str; 7] = ["add", "remove", "replace", "move", "copy", "test", "bogus"];
    let op = or_junk(
        dirty,
        6,
        select(OPS.to_vec()).prop_map(|s| json!(s)).boxed(),
    );
    let path = or_junk(dirty, 6, pointer(dirty).prop_map(Value::String).boxed());
    let path = if dirty {
        proptest::option::weighted(0.9, path).boxed()
    } else {
        path.prop_map(Some).boxed()
    };
    let from = or_junk(dirty, 6, pointer(dirty).prop_map(Value::String).boxed());
    let well_formed = (
        op,
        path,
        (json_value(), any::<bool>()),
        (from, any::<bool>()),
        proptest::option::weighted(0.1, json_value()),
    )
        .prop_map(
            move |(op, path, (value, with_value), (from, with_from), extra)| {
                // A clean operation has the members its `op` requires;
                // others come at random (R16 keeps them).
                let name = op.as_str().unwrap_or("");
                let needs_value = !dirty && matches!(name, "add" | "replace" | "test");
                let needs_from = !dirty && matches!(name, "move" | "copy");
                let mut m = Map::new();
                m.insert("op".into(), op);
                if let Some(path) = path {
                    m.insert("path".into(), path);
                }
                if with_value || needs_value {
                    m.insert("value".into(), value);
                }
                if with_from || needs_from {
                    m.insert("from".into(), from);
                }
                if let Some(extra) = extra {
                    m.insert("x-extra".into(), extra);
                }
                Value::Object(m)
            },
        )
        .boxed();
    or_junk(dirty, 6, well_formed)
}

fn patch(dirty: bool) -> BoxedStrategy<Value> {
    or_junk(
        dirty,
        6,
        vec(patch_op(dirty), 0..4).prop_map(Value::Array).boxed(),
    )
}

/// A message as in `MESSAGES_SNAPSHOT` or a run input.
fn message(dirty: bool) -> BoxedStrategy<Value> {
    let roles = if dirty {
        vec![
            "user",
            "assistant",
            "system",
            "developer",
            "tool",
            "reasoning",
            "activity",
            "bogus",
        ]
    } else {
        vec![
            "user",
            "assistant",
            "system",
            "developer",
            "tool",
            "reasoning",
            "activity",
            "activity",
        ]
    };
    let clean = (
        message_id(),
        select(roles),
        short_string(),
        json_object(),
        tool_call_id(),
        any::<bool>(),
        proptest::option::weighted(0.3, json_object()),
        proptest::option::weighted(0.2, subagent_run_id()),
    )
        .prop_map(
            |(id, role, text, content, tool_call, with_calls, metadata, subagent)| {
                let mut m = json!({"id": id, "role": role});
                match role {
                    "activity" => {
                        m["activityType"] = json!(text);
                        m["content"] = content;
                        if let Some(metadata) = metadata {
                            m["metadata"] = metadata;
                        }
                        if let Some(subagent) = subagent {
                            m["subagentRunId"] = json!(subagent);
                        }
                    }
                    "tool" => {
                        m["content"] = json!(text);
                        m["toolCallId"] = json!(tool_call);
                    }
                    "assistant" if with_calls => {
                        m["content"] = json!(text);
                        m["toolCalls"] = json!([{"id": tool_call, "type": "function",
                            "function": {"name": "f", "arguments": "{}"}}]);
                    }
                    _ => m["content"] = json!(text),
                }
                m
            },
        )
        .boxed();
    if !dirty {
        return clean;
    }
    let member = select(vec![
        "id",
        "role",
        "content",
        "activityType",
        "metadata",
        "subagentRunId",
        "toolCalls",
    ]);
    let damaged = (clean.clone(), member, json_value())
        .prop_map(|(mut m, member, junk)| {
            m[member] = junk;
            m
        })
        .boxed();
    or_junk(dirty, 6, prop_oneof![3 => clean, 1 => damaged].boxed())
}

fn messages(dirty: bool) -> BoxedStrategy<Value> {
    or_junk(
        dirty,
        6,
        vec(message(dirty), 0..4).prop_map(Value::Array).boxed(),
    )
}

fn run_input(dirty: bool) -> BoxedStrategy<Value> {
    let clean = (messages(dirty), proptest::option::of(json_value()))
        .prop_map(|(messages, state)| {
            let mut input = json!({"threadId": "t", "runId": "r", "messages": messages});
            if let Some(state) = state {
                input["state"] = state;
            }
            input
        })
        .boxed();
    or_junk(dirty, 6, clean)
}

/// `metadata`; on `MESSAGES_SNAPSHOT` sometimes with the reference client's
/// `authoritativeActivityTypes` (REPLAY-RULES §10).
fn metadata(dirty: bool) -> BoxedStrategy<Value> {
    let clean = prop_oneof![
        6 => json_object(),
        2 => prop_oneof![
            Just(Value::Null),
            vec(
                select(vec!["web_search", "plan", "t", "x"]).prop_map(|s| json!(s)),
                0..3
            )
            .prop_map(Value::Array),
            json_value(),
        ]
        .prop_map(|types| json!({"@ag-ui/client": {"authoritativeActivityTypes": types}})),
        1 => Just(json!({"@ag-ui/client": {}})),
        1 => json_value().prop_map(|v| json!({"@ag-ui/client": v})),
    ]
    .boxed();
    or_junk(dirty, 6, clean)
}

fn subagent_run_id() -> impl Strategy<Value = String> {
    select(vec!["s1", "s2"]).prop_map(str::to_owned)
}

/// What kind of value a field holds.
#[derive(Clone, Copy)]
enum Kind {
    MessageId,
    ToolCallId,
    Text,
    ActivityType,
    Role,
    LiteralRole(&'static str),
    Subtype,
    Content,
    Patch,
    Json,
    Bool,
    Messages,
    RunInput,
    Timestamp,
    Metadata,
    SubagentRunId,
}

/// A value of the right kind (when `dirty`, its parts may be damaged).
fn plausible(kind: Kind, dirty: bool) -> BoxedStrategy<Value> {
    fn string(s: impl Strategy<Value = String> + 'static) -> BoxedStrategy<Value> {
        s.prop_map(Value::String).boxed()
    }
    fn one_of(names: Vec<&'static str>) -> BoxedStrategy<Value> {
        select(names).prop_map(|s| json!(s)).boxed()
    }
    match kind {
        Kind::MessageId => string(message_id()),
        Kind::ToolCallId => string(tool_call_id()),
        Kind::Text => string(short_string()),
        Kind::ActivityType => one_of(vec!["web_search", "plan", "t"]),
        Kind::Role => one_of(vec!["assistant", "user", "system", "developer"]),
        Kind::LiteralRole(role) => Just(json!(role)).boxed(),
        Kind::Subtype => {
            if dirty {
                one_of(vec!["tool-call", "message", "bogus"])
            } else {
                one_of(vec!["tool-call", "message"])
            }
        }
        Kind::Content => or_junk(dirty, 6, json_object()),
        Kind::Patch => patch(dirty),
        Kind::Json => json_value(),
        Kind::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Kind::Messages => messages(dirty),
        Kind::RunInput => run_input(dirty),
        Kind::Timestamp => {
            let clean = prop_oneof![
                (0i64..2_000_000_000_000).prop_map(Value::from),
                Just(json!(-1)),
                Just(json!(i64::MAX)),
            ]
            .boxed();
            if dirty {
                prop_oneof![
                    clean,
                    Just(json!(u64::MAX)),
                    Just(json!(1.5)),
                    Just(json!("12")),
                ]
                .boxed()
            } else {
                clean
            }
        }
        Kind::Metadata => metadata(dirty),
        Kind::SubagentRunId => string(subagent_run_id()),
    }
}

/// A field's value, or `None` for absent. Clean: required fields are
/// present, optional ones half the time. Dirty: any field may be absent, of
/// a wrong type, or `null` (R40).
fn field(kind: Kind, required: bool, dirty: bool) -> BoxedStrategy<Option<Value>> {
    let present = plausible(kind, dirty).prop_map(Some);
    match (required, dirty) {
        (true, false) => present.boxed(),
        (false, false) => prop_oneof![present, Just(None)].boxed(),
        (_, true) => prop_oneof![
            8 => present,
            1 => Just(Some(Value::Null)),
            1 => json_value().prop_map(Some),
            2 => Just(None),
        ]
        .boxed(),
    }
}

const REQ: bool = true;
const OPT: bool = false;

/// One member of an event type: its name, its kind, whether it is required.
type Member = (&'static str, Kind, bool);

/// The fields of each of the 31 event types of AG-UI 1.0 (and two unknown
/// types), with a weight: how often the type is generated.
fn event_types() -> Vec<(&'static str, u32, Vec<Member>)> {
    use Kind::*;
    vec![
        (
            "RUN_STARTED",
            1,
            vec![
                ("threadId", Text, REQ),
                ("runId", Text, REQ),
                ("parentRunId", Text, OPT),
                ("input", RunInput, OPT),
            ],
        ),
        (
            "RUN_FINISHED",
            1,
            vec![
                ("threadId", Text, REQ),
                ("runId", Text, REQ),
                ("result", Json, OPT),
                ("outcome", Json, OPT),
            ],
        ),
        (
            "RUN_ERROR",
            1,
            vec![("message", Text, REQ), ("code", Text, OPT)],
        ),
        ("STEP_STARTED", 2, vec![("stepName", Text, REQ)]),
        ("STEP_FINISHED", 2, vec![("stepName", Text, REQ)]),
        (
            "TEXT_MESSAGE_START",
            4,
            vec![
                ("messageId", MessageId, REQ),
                ("role", Role, OPT),
                ("name", Text, OPT),
            ],
        ),
        (
            "TEXT_MESSAGE_CONTENT",
            4,
            vec![("messageId", MessageId, REQ), ("delta", Text, REQ)],
        ),
        ("TEXT_MESSAGE_END", 3, vec![("messageId", MessageId, REQ)]),
        (
            "TEXT_MESSAGE_CHUNK",
            3,
            vec![
                ("messageId", MessageId, OPT),
                ("role", Role, OPT),
                ("delta", Text, OPT),
                ("name", Text, OPT),
            ],
        ),
        (
            "TOOL_CALL_START",
            3,
            vec![
                ("toolCallId", ToolCallId, REQ),
                ("toolCallName", Text, REQ),
                ("parentMessageId", MessageId, OPT),
            ],
        ),
        (
            "TOOL_CALL_ARGS",
            3,
            vec![("toolCallId", ToolCallId, REQ), ("delta", Text, REQ)],
        ),
        ("TOOL_CALL_END", 3, vec![("toolCallId", ToolCallId, REQ)]),
        (
            "TOOL_CALL_CHUNK",
            2,
            vec![
                ("toolCallId", ToolCallId, OPT),
                ("toolCallName", Text, OPT),
                ("parentMessageId", MessageId, OPT),
                ("delta", Text, OPT),
            ],
        ),
        (
            "TOOL_CALL_RESULT",
            2,
            vec![
                ("messageId", MessageId, REQ),
                ("toolCallId", ToolCallId, REQ),
                ("content", Text, REQ),
                ("role", LiteralRole("tool"), OPT),
            ],
        ),
        ("REASONING_START", 2, vec![("messageId", MessageId, REQ)]),
        (
            "REASONING_MESSAGE_START",
            2,
            vec![
                ("messageId", MessageId, REQ),
                ("role", LiteralRole("reasoning"), OPT),
            ],
        ),
        (
            "REASONING_MESSAGE_CONTENT",
            2,
            vec![("messageId", MessageId, REQ), ("delta", Text, REQ)],
        ),
        (
            "REASONING_MESSAGE_END",
            2,
            vec![("messageId", MessageId, REQ)],
        ),
        (
            "REASONING_MESSAGE_CHUNK",
            2,
            vec![("messageId", MessageId, OPT), ("delta", Text, OPT)],
        ),
        ("REASONING_END", 2, vec![("messageId", MessageId, REQ)]),
        (
            "REASONING_ENCRYPTED_VALUE",
            2,
            vec![
                ("subtype", Subtype, REQ),
                ("entityId", MessageId, REQ),
                ("encryptedValue", Text, REQ),
            ],
        ),
        ("STATE_SNAPSHOT", 2, vec![("snapshot", Json, REQ)]),
        ("STATE_DELTA", 3, vec![("delta", Patch, REQ)]),
        (
            "MESSAGES_SNAPSHOT",
            3,
            vec![("messages", Messages, REQ), ("metadata", Metadata, OPT)],
        ),
        (
            "ACTIVITY_SNAPSHOT",
            10,
            vec![
                ("messageId", MessageId, REQ),
                ("activityType", ActivityType, REQ),
                ("content", Content, REQ),
                ("replace", Bool, OPT),
            ],
        ),
        (
            "ACTIVITY_DELTA",
            12,
            vec![
                ("messageId", MessageId, REQ),
                ("activityType", ActivityType, REQ),
                ("patch", Patch, REQ),
            ],
        ),
        (
            "SUBAGENT_STARTED",
            2,
            vec![
                ("subagentRunId", SubagentRunId, REQ),
                ("name", Text, REQ),
                ("description", Text, OPT),
                ("parentSubagentRunId", SubagentRunId, OPT),
                ("parentToolCallId", ToolCallId, OPT),
                ("parentMessageId", MessageId, OPT),
            ],
        ),
        (
            "SUBAGENT_FINISHED",
            2,
            vec![
                ("subagentRunId", SubagentRunId, REQ),
                ("outcome", Json, OPT),
            ],
        ),
        (
            "SUBAGENT_ERROR",
            1,
            vec![
                ("subagentRunId", SubagentRunId, REQ),
                ("message", Text, REQ),
                ("code", Text, OPT),
            ],
        ),
        ("RAW", 1, vec![("event", Json, OPT), ("source", Text, OPT)]),
        ("CUSTOM", 1, vec![("name", Text, REQ), ("value", Json, OPT)]),
        // Not AG-UI 1.0 types (R42).
        ("THINKING_START", 1, vec![("messageId", MessageId, OPT)]),
        ("NOT_A_TYPE", 1, vec![]),
    ]
}

/// The envelope every event may carry. `subagentRunId` is rare when clean,
/// so that a delta's owner matches more often than not (R22).
fn envelope(dirty: bool) -> BoxedStrategy<Vec<(&'static str, Option<Value>)>> {
    let subagent = if dirty {
        field(Kind::SubagentRunId, OPT, dirty)
    } else {
        proptest::option::weighted(0.15, plausible(Kind::SubagentRunId, false)).boxed()
    };
    let metadata = if dirty {
        field(Kind::Metadata, OPT, dirty)
    } else {
        proptest::option::weighted(0.3, json_object()).boxed()
    };
    (
        proptest::option::weighted(0.3, plausible(Kind::Timestamp, dirty)),
        metadata,
        subagent,
        proptest::option::weighted(0.1, json_value()),
        proptest::option::weighted(0.03, json_value()),
    )
        .prop_map(|(timestamp, metadata, subagent, raw, unknown)| {
            vec![
                ("timestamp", timestamp),
                ("metadata", metadata),
                ("subagentRunId", subagent),
                ("rawEvent", raw),
                ("unknownMember", unknown),
            ]
        })
        .boxed()
}

/// One generated event of one type; clean (valid, though perhaps wrong for
/// the state it meets) or dirty (likely malformed).
fn typed_event(
    type_name: &'static str,
    fields: &[(&'static str, Kind, bool)],
    dirty: bool,
) -> BoxedStrategy<Value> {
    let names: Vec<&'static str> = fields.iter().map(|(name, _, _)| *name).collect();
    let values: Vec<BoxedStrategy<Option<Value>>> = fields
        .iter()
        .map(|&(_, kind, required)| field(kind, required, dirty))
        .collect();
    (values, envelope(dirty))
        .prop_map(move |(values, envelope)| {
            let mut m = Map::new();
            m.insert("type".into(), Value::String(type_name.to_owned()));
            // The envelope first, so a type's own `metadata` wins.
            for (name, value) in envelope {
                if let Some(value) = value {
                    m.insert(name.into(), value);
                }
            }
            for (name, value) in names.iter().zip(values) {
                if let Some(value) = value {
                    m.insert((*name).into(), value);
                }
            }
            Value::Object(m)
        })
        .boxed()
}

/// One generated event as JSON, of a known type or not: clean 40 times in
/// 41, dirty otherwise.
fn event_value() -> BoxedStrategy<Value> {
    let mut arms: Vec<(u32, BoxedStrategy<Value>)> = Vec::new();
    for (type_name, weight, fields) in event_types() {
        // Run lifecycle events are rarer, so that runs are long.
        let weight = if type_name.starts_with("RUN_") {
            weight
        } else {
            3 * weight
        };
        arms.push((40 * weight, typed_event(type_name, &fields, false)));
        arms.push((weight, typed_event(type_name, &fields, true)));
    }
    Union::new_weighted(arms).boxed()
}

/// One event's raw text: usually a generated event, sometimes not an event
/// at all (R41).
fn event() -> BoxedStrategy<String> {
    prop_oneof![
        200 => event_value().prop_map(|v| v.to_string()),
        1 => select(vec!["", "not json", "[1]", "{\"type\":5}", "{\"a\":1}", "{\"type\":\"RUN_STARTED\""])
            .prop_map(str::to_owned),
        1 => json_value().prop_map(|v| v.to_string()),
    ]
    .boxed()
}

/// A stream: usually opened by a well-formed `RUN_STARTED` (so that the
/// events after it are applied, not all rejected by R60), then 0..60 events.
fn stream() -> BoxedStrategy<Vec<String>> {
    (any::<u8>(), vec(event(), 0..60))
        .prop_map(|(start, mut events)| {
            if start % 8 != 0 {
                events.insert(
                    0,
                    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}).to_string(),
                );
                events.truncate(60);
            }
            events
        })
        .boxed()
}

// ------------------------------------------------------------ invariants

fn check_invariants(
    replayer: &Replayer,
    num_events: usize,
    options: Options,
) -> Result<(), TestCaseError> {
    let effects = replayer.effects();
    let diagnostics = replayer.diagnostics();
    prop_assert_eq!(effects.len(), num_events, "one effect per event");
    prop_assert_eq!(replayer.step().0, num_events as u64);

    let has_error = diagnostics.iter().any(|d| d.severity == Severity::Error);
    prop_assert_eq!(
        replayer.outcome() == Outcome::Failed,
        has_error,
        "outcome {:?} but diagnostics {:?}",
        replayer.outcome(),
        diagnostics
    );
    match replayer.fatal() {
        Some(fatal) => {
            prop_assert_eq!(fatal.severity, Severity::Error);
            let first_error = diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
                .expect("an error");
            prop_assert_eq!(
                fatal,
                first_error,
                "the fatal diagnostic is the first error"
            );
        }
        None => prop_assert!(!has_error),
    }

    for d in diagnostics {
        prop_assert!(
            (1..=num_events as u64).contains(&d.seq.0),
            "diagnostic outside the stream: {:?} ({} events)",
            d,
            num_events
        );
        if options.profile == Profile::Spec {
            // Codes keep the severities the rules give them (PRODUCT.md).
            prop_assert_eq!(d.severity, d.code.severity(), "{:?}", d);
        }
    }

    if options.best_effort {
        // R43: best-effort keeps applying every event.
        prop_assert!(
            effects.iter().all(|e| e.effect != Effect::NotApplied),
            "best-effort left events not applied: {:?}",
            effects
        );
    } else if let Some(fatal) = replayer.fatal() {
        // R43: after a fatal error, later events are not applied.
        let index = fatal.seq.index().expect("fatal seq >= 1");
        prop_assert_eq!(effects[index].effect, Effect::Fatal, "{:?}", fatal);
        for (i, e) in effects.iter().enumerate() {
            if i < index {
                prop_assert!(e.effect != Effect::NotApplied && e.effect != Effect::Fatal);
            } else if i > index {
                prop_assert_eq!(
                    e.effect,
                    Effect::NotApplied,
                    "event {} after the fatal",
                    i + 1
                );
            }
        }
        prop_assert!(
            diagnostics.iter().all(|d| d.seq <= fatal.seq),
            "diagnostics after the fatal event: {:?}",
            diagnostics
        );
    } else {
        prop_assert!(
            effects
                .iter()
                .all(|e| e.effect != Effect::NotApplied && e.effect != Effect::Fatal),
            "{:?}",
            effects
        );
    }

    // What the views show can be serialized.
    serde_json::to_string(replayer.state()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    serde_json::to_string(&replayer.conversation().to_json())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    serde_json::to_string(&replayer.document()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    serde_json::to_string(diagnostics).map_err(|e| TestCaseError::fail(e.to_string()))?;
    Ok(())
}

fn replay_events(events: &[String], options: Options) -> Replayer {
    let mut replayer = Replayer::new(options);
    for raw in events {
        replayer.apply_bytes(raw.as_bytes());
    }
    replayer.finish();
    replayer
}

/// The `{messages, state}` document, without activity metadata under the
/// client profile (which merges a failed delta's metadata, §10).
fn comparable_document(replayer: &Replayer) -> Value {
    let mut document = replayer.document();
    if replayer.options().profile == Profile::AgUiClient10
        && let Some(Value::Array(messages)) = document.get_mut("messages")
    {
        for message in messages {
            if let Some(message) = message.as_object_mut() {
                message.remove("metadata");
            }
        }
    }
    document
}

/// Replays `events` and checks, event by event, that an event that was not
/// applied changed nothing: skipped (R9, R11–R14: "nothing changes", "the
/// content is left exactly as before"), dropped (R42), fatal (R40, R41, R22)
/// or not applied after a fatal error (R43).
fn replay_events_checked(events: &[String], options: Options) -> Result<Replayer, TestCaseError> {
    let mut replayer = Replayer::new(options);
    for (i, raw) in events.iter().enumerate() {
        let before = comparable_document(&replayer);
        let effect = replayer.apply_bytes(raw.as_bytes());
        prop_assert_eq!(replayer.effects().last(), Some(&effect));
        if effect.effect != Effect::Applied {
            let after = comparable_document(&replayer);
            prop_assert_eq!(
                &before,
                &after,
                "event {} ({:?}) changed the document: {}",
                i + 1,
                effect,
                raw
            );
        }
    }
    replayer.finish();
    Ok(replayer)
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn replaying_generated_events_never_panics(events in stream()) {
        for options in OPTIONS {
            let replayer = replay_events_checked(&events, options)?;
            check_invariants(&replayer, events.len(), options)?;
        }
    }
}

// ------------------------------------------------------------ patches

/// Well-formed patches (R40 passes) of 1..4 operations.
fn clean_patch() -> BoxedStrategy<Vec<Value>> {
    vec(patch_op(false), 1..4).boxed()
}

proptest! {
    #![proptest_config(config(512))]

    /// R11: a `STATE_DELTA` applies whole or not at all; on failure the
    /// state is exactly as before (and nothing panics).
    #[test]
    fn state_deltas_are_atomic(state in prop_oneof![json_object(), json_value()], delta in clean_patch()) {
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": state}),
            json!({"type": "STATE_DELTA", "delta": delta}),
        ];
        let events: Vec<String> = events.iter().map(Value::to_string).collect();
        let replayer = replay_events(&events, Options::default());
        let failed = replayer
            .diagnostics()
            .iter()
            .any(|d| d.code == Code::StatePatchFailed);
        prop_assert_eq!(replayer.effects()[2].effect == Effect::Skipped, failed);
        if failed {
            prop_assert_eq!(replayer.state(), &state, "R11: the state changed on a failed delta");
        }
    }

    /// R11, R14: an `ACTIVITY_DELTA` whose patch fails leaves the content
    /// exactly as before.
    #[test]
    fn activity_deltas_are_atomic(content in json_object(), patch in clean_patch()) {
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "t",
                   "content": content}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "t",
                   "patch": patch}),
        ];
        let events: Vec<String> = events.iter().map(Value::to_string).collect();
        for profile in Profile::ALL {
            let options = Options { profile, best_effort: false };
            let replayer = replay_events(&events, options);
            let failed = replayer
                .diagnostics()
                .iter()
                .any(|d| d.code == Code::PatchFailed);
            if failed {
                let activity = replayer.conversation().get("act").expect("the activity");
                prop_assert_eq!(
                    &activity.to_json()["content"],
                    &content,
                    "R11: the content changed on a failed delta"
                );
            }
        }
    }
}

// ------------------------------------------------------------ regressions

/// Found by `state_deltas_are_atomic`: a `move` whose target cannot be added
/// (its parent does not exist) removed `from` anyway.
#[test]
fn a_failed_move_leaves_the_state_unchanged() {
    let events: Vec<String> = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"x": 1}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "move", "from": "/x", "path": "/a/0"}]}),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    let replayer = replay_events(&events, Options::default());
    assert_eq!(replayer.effects()[2].effect, Effect::Skipped);
    assert_eq!(replayer.state(), &json!({"x": 1}), "R11");
}

#[test]
fn a_failed_move_leaves_the_activity_content_unchanged() {
    let events: Vec<String> = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "t",
               "content": {"x": 1}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "t",
               "patch": [{"op": "move", "from": "/x", "path": "/a/0"}]}),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    let replayer = replay_events(&events, Options::default());
    assert!(
        replayer
            .diagnostics()
            .iter()
            .any(|d| d.code == Code::PatchFailed)
    );
    let activity = replayer.conversation().get("act").expect("the activity");
    assert_eq!(activity.to_json()["content"], json!({"x": 1}), "R11, R14");
}

/// Found by `replaying_generated_events_never_panics` and
/// `state_deltas_are_atomic`: when an operation of a patch fails after
/// others applied, undoing them panics inside the patch library (the undo of
/// a failed `move`, or of a `move` to the root, does not apply).
#[test]
fn a_failing_patch_after_an_applied_move_or_add_does_not_panic() {
    let cases = [
        (
            json!({}),
            json!([{"op": "add", "path": "/x", "value": null},
                   {"op": "move", "from": "/x", "path": "/a/0"}]),
        ),
        (
            json!({"x": 1}),
            json!([{"op": "replace", "path": "/x", "value": 2},
                   {"op": "move", "from": "/x", "path": "/a/0"}]),
        ),
        (
            json!({"a": null}),
            json!([{"op": "move", "from": "/a", "path": ""},
                   {"op": "add", "path": "/a", "value": null}]),
        ),
    ];
    for (state, delta) in cases {
        let events: Vec<String> = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": state}),
            json!({"type": "STATE_DELTA", "delta": delta}),
        ]
        .iter()
        .map(Value::to_string)
        .collect();
        let replayer = std::panic::catch_unwind(|| replay_events(&events, Options::default()))
            .unwrap_or_else(|_| panic!("replay panicked on STATE_DELTA {delta} over {state}"));
        assert_eq!(replayer.effects()[2].effect, Effect::Skipped, "{delta}");
        assert_eq!(replayer.state(), &state, "R11: {delta}");
    }
}

#[test]
fn a_failing_activity_patch_after_a_move_to_the_root_does_not_panic() {
    let content = json!({"a": [null]});
    let patch = json!([{"op": "move", "from": "/a", "path": ""},
                       {"op": "add", "path": "/a", "value": null}]);
    let events: Vec<String> = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "t",
               "content": content}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "t",
               "patch": patch}),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    let replayer = std::panic::catch_unwind(|| replay_events(&events, Options::default()))
        .unwrap_or_else(|_| panic!("replay panicked on ACTIVITY_DELTA {patch} over {content}"));
    let activity = replayer.conversation().get("act").expect("the activity");
    assert_eq!(activity.to_json()["content"], content, "R11, R14");
}

// ------------------------------------------------------------ the generator works

/// The generator reaches the interesting cases: each activity code the
/// collisions are meant to produce shows up in a fixed number of samples.
#[test]
fn the_generator_produces_colliding_activity_events() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = stream();
    let mut seen = std::collections::BTreeSet::new();
    let mut types = std::collections::BTreeSet::new();
    let mut long_runs = 0;
    for _ in 0..300 {
        let events = strategy.new_tree(&mut runner).expect("a stream").current();
        for raw in &events {
            if let Ok(value) = serde_json::from_str::<Value>(raw)
                && let Some(t) = value.get("type").and_then(Value::as_str)
            {
                types.insert(t.to_owned());
            }
        }
        let replayer = replay_events(
            &events,
            Options {
                profile: Profile::Spec,
                best_effort: true,
            },
        );
        seen.extend(replayer.diagnostics().iter().map(|d| d.code));
        // Without best-effort, how far the run goes before a fatal error.
        let strict = replay_events(&events, Options::default());
        let applied = strict
            .effects()
            .iter()
            .filter(|e| matches!(e.effect, Effect::Applied | Effect::Skipped))
            .count();
        if applied >= 20 {
            long_runs += 1;
        }
    }
    // Streams are not all cut short by an early fatal error (R43).
    assert!(
        long_runs >= 30,
        "only {long_runs} of 300 streams apply 20 events"
    );
    for code in [
        Code::SnapshotDeclined,
        Code::SnapshotIdCollision,
        Code::DeltaUnknownTarget,
        Code::DeltaNotActivity,
        Code::PatchFailed,
        Code::PatchOpUnknown,
        Code::EventMalformed,
        Code::EventUnparseable,
        Code::EventUnknownType,
        Code::EventUnknownProperty,
        Code::LifecycleBeforeRun,
        Code::LifecycleAfterRun,
        Code::StatePatchFailed,
        Code::SnapshotOwnerMismatch,
        Code::SubagentOwnerMismatch,
        Code::DeltaRetyped,
        Code::ContentNotObject,
        Code::LifecycleRunOverlap,
        Code::StreamTruncated,
    ] {
        assert!(seen.contains(&code), "never produced {code}: {seen:?}");
    }
    // Every one of the 31 AG-UI 1.0 types (and the unknown ones) is generated.
    let table: Vec<&str> = event_types().iter().map(|(name, _, _)| *name).collect();
    for t in EventType::ALL {
        assert!(
            table.contains(&t.as_str()),
            "{} is not generated",
            t.as_str()
        );
    }
    assert_eq!(table.len(), EventType::ALL.len() + 2);
    assert_eq!(types.len(), table.len(), "{types:?}");
}
