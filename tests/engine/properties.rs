//! Property tests: no input makes the readers, the parser or the engine
//! panic (PRODUCT.md, Reliability: "No panic on any input"), and a few
//! invariants of the engine hold on any event sequence (R43).

use std::path::Path;

use crate::common::generator::{GenConfig, generate};
use agui_replay::diff::{Comparison, DiffScope};
use agui_replay::protocol::{ENVELOPE, Kind, ProtocolVersion, SCHEMA};
use agui_replay::replay::apply_patch;
use agui_replay::timeline::{CheckpointPolicy, Timeline};
use agui_replay::{
    Code, Effect, EventLog, EventType, Options, Outcome, Profile, Replayer, Seq, Severity,
    parse_event, read_bytes, replay_log, replay_to,
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
        protocol: ProtocolVersion::V1_1,
    },
    Options {
        profile: Profile::Spec,
        best_effort: true,
        protocol: ProtocolVersion::V1_1,
    },
    Options {
        profile: Profile::AgUiClient10,
        best_effort: false,
        protocol: ProtocolVersion::V1_1,
    },
    Options {
        profile: Profile::AgUiClient10,
        best_effort: true,
        protocol: ProtocolVersion::V1_1,
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
        Kind::ToolContent => {
            let mut parts = vec![
                short_string()
                    .prop_map(|t| json!({"type": "text", "text": t}))
                    .boxed(),
                Just(json!({"type": "image", "source": {"type": "url", "value": "u"}})).boxed(),
                Just(json!({"type": "future-part", "x": 1})).boxed(),
            ];
            if dirty {
                parts.push(Just(json!({"type": "text"})).boxed());
            }
            let part = Union::new(parts);
            let clean = prop_oneof![
                string(short_string()),
                vec(part, 0..3).prop_map(Value::Array),
            ]
            .boxed();
            or_junk(dirty, 6, clean)
        }
        Kind::Usage => {
            let entry = prop_oneof![
                Just(json!({"provider": "p", "model": "m", "inputTokens": 3, "outputTokens": 4})),
                Just(json!({"totalTokens": 7, "cachedInputTokens": 1})),
                // Issue 39: a member the schema does not define is stripped.
                Just(json!({"inputTokens": 1, "futureTokens": 2})),
            ];
            let clean = vec(entry, 0..3).prop_map(Value::Array).boxed();
            or_junk(dirty, 6, clean)
        }
        Kind::SubagentOutcome => prop_oneof![
            Just(json!({"type": "success"})),
            Just(json!({"type": "suspended", "interruptIds": ["i"]})),
            Just(json!({"type": "suspended", "future": 1})),
            Just(json!({"type": "paused"})),
            json_value(),
        ]
        .boxed(),
        Kind::Outcome => {
            let clean = prop_oneof![
                Just(json!({"type": "success"})),
                Just(json!({"type": "cancelled"})),
                Just(json!({"type": "interrupt", "interrupts": []})),
                Just(json!({"type": "paused"})),
            ]
            .boxed();
            if dirty {
                prop_oneof![clean, Just(json!([{"type": "interrupt"}])), json_value()].boxed()
            } else {
                clean
            }
        }
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

const OPT: bool = false;

/// One member of an event type: its name, its kind, whether it is required.
type Member = (&'static str, Kind, bool);

/// How often each type is generated, relative to the others.
fn weight(event_type: EventType) -> u32 {
    use EventType as T;
    match event_type {
        T::ActivitySnapshot => 10,
        T::ActivityDelta => 12,
        T::TextMessageStart | T::TextMessageContent => 4,
        T::TextMessageEnd
        | T::TextMessageChunk
        | T::ToolCallStart
        | T::ToolCallArgs
        | T::ToolCallEnd
        | T::StateDelta
        | T::MessagesSnapshot => 3,
        T::RunStarted | T::RunFinished | T::RunError | T::SubagentError | T::Raw | T::Custom => 1,
        _ => 2,
    }
}

/// The members of each of the 31 event types, read from the schema the
/// readers are generated from (issue 16: written once), with a weight; and
/// two types AG-UI 1.0 does not define (R42).
fn event_types() -> Vec<(&'static str, u32, Vec<Member>)> {
    let mut types: Vec<(&'static str, u32, Vec<Member>)> = SCHEMA
        .iter()
        .map(|schema| {
            let required = schema.requires.iter().map(|name| {
                let member = ENVELOPE.iter().find(|m| m.name == *name).expect("envelope");
                (member.name, member.kind, true)
            });
            let own = schema.members.iter().map(|m| (m.name, m.kind, m.required));
            let mut members: Vec<Member> = required.chain(own).collect();
            // An envelope member generated more often on this type, so that
            // a snapshot's own metadata meets the replay.
            if schema.event_type == EventType::MessagesSnapshot {
                members.push(("metadata", Kind::Metadata, OPT));
            }
            (
                schema.event_type.as_str(),
                weight(schema.event_type),
                members,
            )
        })
        .collect();
    types.push((
        "THINKING_START",
        1,
        vec![("messageId", Kind::MessageId, OPT)],
    ));
    types.push(("NOT_A_TYPE", 1, vec![]));
    types
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

/// The event types that open, continue or close something, fatal when it
/// is (not) open (§11): generated less often, so random runs are not all
/// cut short.
const BRACKETED: [&str; 19] = [
    "TEXT_MESSAGE_START",
    "TOOL_CALL_START",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "STEP_STARTED",
    "SUBAGENT_STARTED",
    "STEP_FINISHED",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK",
    "REASONING_END",
    "SUBAGENT_FINISHED",
    "SUBAGENT_ERROR",
];

/// One generated event as JSON, of a known type or not: clean 40 times in
/// 41, dirty otherwise.
fn event_value() -> BoxedStrategy<Value> {
    let mut arms: Vec<(u32, BoxedStrategy<Value>)> = Vec::new();
    for (type_name, weight, fields) in event_types() {
        // Run lifecycle events are rarer, so that runs are long; so are the
        // continuations and ends that are fatal when nothing is open (§11,
        // issue 11), most of the time in a random stream.
        let bracketed = BRACKETED.contains(&type_name);
        let weight = if type_name.starts_with("RUN_") || bracketed {
            weight
        } else {
            3 * weight
        };
        let clean = if bracketed { 5 } else { 40 * weight };
        arms.push((clean, typed_event(type_name, &fields, false)));
        let dirty = if bracketed { 1 } else { weight };
        arms.push((dirty, typed_event(type_name, &fields, true)));
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
    stream_of(60)
}

/// [`stream`] with `0..max_events` events.
fn stream_of(max_events: usize) -> BoxedStrategy<Vec<String>> {
    (any::<u8>(), vec(event(), 0..max_events))
        .prop_map(move |(start, mut events)| {
            if start % 8 != 0 {
                events.insert(
                    0,
                    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}).to_string(),
                );
                events.truncate(max_events);
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
    prop_assert_eq!(replayer.step().get(), num_events as u64);

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
            (1..=num_events as u64).contains(&d.seq.get()),
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
            let options = Options { profile, best_effort: false , ..Options::default() };
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
                ..Options::default()
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

// ------------------------------------------------------------ timeline

/// A checkpoint every few events, so that seeks start from many of them.
const TINY_POLICY: CheckpointPolicy = CheckpointPolicy {
    max_cost: 300,
    op_cost: 48,
};

fn event_log(events: &[String]) -> EventLog {
    let mut log = EventLog::default();
    for raw in events {
        log.push(raw.as_bytes());
    }
    log
}

/// `timeline.seek(step)` is the state `replay_to` reaches from step 0, and
/// the timeline's diagnostics up to the step are those of that replay.
fn check_seek(
    timeline: &Timeline,
    log: &EventLog,
    options: Options,
    step: Seq,
) -> Result<(), TestCaseError> {
    let expected = replay_to(log, options, step);
    let sought = timeline.seek(step);
    prop_assert_eq!(sought.step(), step, "{:?}", options);
    prop_assert_eq!(expected.step(), step, "{:?}", options);
    prop_assert_eq!(
        sought.document(),
        expected.document(),
        "document at step {} ({:?})",
        step,
        options
    );
    prop_assert_eq!(
        sought.fatal(),
        expected.fatal(),
        "fatal at step {} ({:?})",
        step,
        options
    );
    prop_assert_eq!(
        sought.run_phase(),
        expected.run_phase(),
        "run phase at step {} ({:?})",
        step,
        options
    );
    prop_assert_eq!(
        timeline.diagnostics_until(step),
        expected.diagnostics(),
        "diagnostics until step {} ({:?})",
        step,
        options
    );
    // The sought replay's own logs hold the events it applied after its
    // checkpoint, as replaying from step 0 reported them.
    let resumed_at = step.get() - sought.effects().len() as u64;
    let tail: Vec<_> = expected
        .diagnostics()
        .iter()
        .filter(|d| d.seq.get() > resumed_at)
        .cloned()
        .collect();
    prop_assert_eq!(
        sought.diagnostics(),
        &tail[..],
        "step {} ({:?})",
        step,
        options
    );
    prop_assert_eq!(
        sought.effects(),
        &expected.effects()[resumed_at as usize..],
        "step {} ({:?})",
        step,
        options
    );
    // What is not in the document (open streams, owners, the run) is the
    // same too: the rest of the stream replays alike from either.
    let (mut sought, mut expected) = (sought, expected);
    let (seen_by_sought, seen_by_expected) =
        (sought.diagnostics().len(), expected.diagnostics().len());
    for (_, raw) in log.iter().skip(step.get() as usize) {
        prop_assert_eq!(
            sought.apply_bytes(raw),
            expected.apply_bytes(raw),
            "resuming from step {} ({:?})",
            step,
            options
        );
    }
    sought.finish();
    expected.finish();
    prop_assert_eq!(
        sought.document(),
        expected.document(),
        "resuming from step {} ({:?})",
        step,
        options
    );
    prop_assert_eq!(
        &sought.diagnostics()[seen_by_sought..],
        &expected.diagnostics()[seen_by_expected..],
        "resuming from step {} ({:?})",
        step,
        options
    );
    prop_assert_eq!(sought.run_phase(), expected.run_phase());
    Ok(())
}

proptest! {
    #![proptest_config(config(40))]

    /// A seek from the nearest checkpoint gives what replaying from step 0
    /// gives, at any step, under every profile, with and without
    /// best-effort; reading the whole log at once gives what appending gives.
    #[test]
    fn seeking_equals_replaying_to_the_step(
        events in stream_of(80),
        picks in vec(any::<proptest::sample::Index>(), 5),
    ) {
        let log = event_log(&events);
        let len = log.len() as u64;
        for options in OPTIONS {
            let mut timeline = Timeline::builder(options).policy(TINY_POLICY).empty();
            for (seq, raw) in log.iter() {
                prop_assert_eq!(timeline.append(raw), seq);
            }
            timeline.finish();
            prop_assert_eq!(timeline.len(), log.len());
            prop_assert_eq!(timeline.last_step(), Seq::new(len));
            prop_assert_eq!(&*timeline.events().to_log(), &log);
            if log.num_bytes() as u64 >= TINY_POLICY.max_cost {
                // The seeks below start from checkpoints past step 0.
                prop_assert!(timeline.num_checkpoints() >= 2);
            }

            let mut steps = vec![0, len, len.saturating_sub(1)];
            steps.extend(picks.iter().map(|pick| pick.index(log.len() + 1) as u64));
            for step in steps {
                check_seek(&timeline, &log, options, Seq::new(step))?;
            }

            let whole = Timeline::from_log(log.clone(), options);
            prop_assert_eq!(whole.len(), log.len());
            prop_assert_eq!(whole.diagnostics(), timeline.diagnostics(), "{:?}", options);
            prop_assert_eq!(whole.effects(), timeline.effects(), "{:?}", options);
            prop_assert_eq!(
                whole.head().document(),
                timeline.head().document(),
                "{:?}",
                options
            );
            prop_assert_eq!(whole.head().fatal(), timeline.head().fatal(), "{:?}", options);
            // The same indices, however the events arrived.
            let (by_appending, by_log) = (timeline.index(), whole.index());
            prop_assert_eq!(by_log.lanes(), by_appending.lanes(), "{:?}", options);
            for severity in Severity::ALL {
                prop_assert_eq!(
                    by_log.steps_with(severity),
                    by_appending.steps_with(severity),
                    "{:?} {:?}",
                    severity,
                    options
                );
            }
            prop_assert_eq!(
                by_log.counts(Seq::new(1)..=Seq::new(len)),
                by_appending.counts(Seq::new(1)..=Seq::new(len)),
                "{:?}",
                options
            );
        }
    }
}

/// `count` steps in `0..=last`, from a fixed seed.
fn random_steps(last: u64, count: usize, seed: u64) -> Vec<Seq> {
    // A 64-bit LCG (Knuth's MMIX constants): enough to spread the steps.
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            Seq::new((state >> 33) % (last + 1))
        })
        .collect()
}

/// `Timeline::from_log` against a replay on one thread, event by event,
/// and seeks against `replay_to`.
fn check_long_timeline(
    log: &EventLog,
    options: Options,
    policy: CheckpointPolicy,
    num_seeks: usize,
    seed: u64,
) {
    let timeline = Timeline::builder(options)
        .policy(policy)
        .replay(log.clone());
    // Each event read and applied whole here; the timeline reads on two
    // threads, applies each event in place and hands what is left of it
    // back to the thread that read it (issue 14).
    let mut replayed = Replayer::new(options);
    for (_, raw) in log.iter() {
        replayed.apply_bytes(raw);
    }
    replayed.finish();
    assert_eq!(timeline.len(), log.len());
    assert_eq!(
        timeline.head().document(),
        replayed.document(),
        "{options:?}"
    );
    assert_eq!(
        timeline.diagnostics(),
        replayed.diagnostics(),
        "{options:?}"
    );
    assert_eq!(timeline.effects(), replayed.effects(), "{options:?}");
    assert_eq!(timeline.head().fatal(), replayed.fatal(), "{options:?}");
    assert!(
        timeline.num_checkpoints() > 1,
        "the seeks start from checkpoints: {}",
        timeline.num_checkpoints()
    );
    let last = timeline.last_step().get();
    let mut steps = random_steps(last, num_seeks, seed);
    steps.extend([Seq::new(0), Seq::new(last), Seq::new(last - 1)]);
    for step in steps {
        let expected = replay_to(log, options, step);
        let sought = timeline.seek(step);
        assert_eq!(sought.step(), step, "{options:?}");
        assert_eq!(
            sought.document(),
            expected.document(),
            "document at step {step} ({options:?})"
        );
        assert_eq!(
            sought.fatal(),
            expected.fatal(),
            "fatal at step {step} ({options:?})"
        );
        assert_eq!(
            timeline.diagnostics_until(step),
            expected.diagnostics(),
            "diagnostics until step {step} ({options:?})"
        );
    }
}

/// A long generated stream is read on two threads, by `from_log` and by
/// seeks over more than 2,048 events (from checkpoints spaced further
/// apart than the default's): the same replay as one thread event by
/// event.
#[test]
fn a_long_timeline_read_on_two_threads_equals_the_replay() {
    let log = generate(GenConfig {
        events: 10_500,
        activities: 40,
        seed: 11,
    });
    assert_eq!(log.len(), 10_500);
    let replayed = replay_log(&log, Options::default());
    assert!(
        replayed
            .diagnostics()
            .iter()
            .any(|d| d.code == Code::PatchFailed),
        "the generated stream has failing patches"
    );
    // 50 seeks under the default profile, a few under the other one.
    for (profile, num_seeks) in [(Profile::Spec, 50), (Profile::AgUiClient10, 8)] {
        let options = Options {
            profile,
            best_effort: false,
            ..Options::default()
        };
        check_long_timeline(&log, options, CheckpointPolicy::default(), num_seeks, 5);
    }
    // Checkpoints about 5,000 events apart: the seeks read on two threads
    // too (the default policy's, about 2,000 events apart, read on one).
    let sparse = CheckpointPolicy {
        max_cost: 1024 * 1024,
        op_cost: 48,
    };
    check_long_timeline(&log, Options::default(), sparse, 12, 6);
}

/// As above, with a fatal error in the middle of the stream (R43): the
/// events after it are not applied, or applied under best-effort.
#[test]
fn a_long_timeline_with_a_fatal_error_equals_the_replay() {
    let generated = generate(GenConfig {
        events: 10_000,
        activities: 20,
        seed: 12,
    });
    let mut log = EventLog::default();
    for (seq, raw) in generated.iter() {
        if seq == Seq::new(6_000) {
            log.push(b"not json");
        }
        log.push(raw);
    }
    for best_effort in [false, true] {
        let options = Options {
            profile: Profile::Spec,
            best_effort,
            ..Options::default()
        };
        let replayed = replay_log(&log, options);
        assert_eq!(
            replayed.fatal().map(|d| d.seq),
            Some(Seq::new(6_000)),
            "{options:?}"
        );
        check_long_timeline(
            &log,
            options,
            CheckpointPolicy {
                max_cost: 64 * 1024,
                op_cost: 48,
            },
            25,
            6,
        );
    }
}

// ------------------------------------------------------------ patches against json_patch

/// Short paths into the documents of [`json_object`] and [`json_value`]
/// (their keys are `a b x y 0 - ~`), valid and not.
fn short_pointer() -> BoxedStrategy<String> {
    select(vec![
        "", "/a", "/b", "/x", "/0", "/-", "/~0", "/", "/a/0", "/a/1", "/a/-", "/a/b", "/a/x",
        "/a/0/b", "/x/y", "/b/0", "/a/~0",
    ])
    .prop_map(str::to_owned)
    .boxed()
}

/// The pointer of every value in `doc` (`""` included), and of the places a
/// member could be added: a new key in each object, `-` and the end index in
/// each array.
fn pointers_into(doc: &Value) -> (Vec<String>, Vec<String>) {
    fn walk(value: &Value, at: String, existing: &mut Vec<String>, new: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                new.push(format!("{at}/n"));
                for (key, child) in map {
                    let token = key.replace('~', "~0").replace('/', "~1");
                    walk(child, format!("{at}/{token}"), existing, new);
                }
            }
            Value::Array(items) => {
                new.push(format!("{at}/-"));
                new.push(format!("{at}/{}", items.len()));
                for (i, child) in items.iter().enumerate() {
                    walk(child, format!("{at}/{i}"), existing, new);
                }
            }
            _ => {}
        }
        existing.push(at);
    }
    let (mut existing, mut new) = (Vec::new(), Vec::new());
    walk(doc, String::new(), &mut existing, &mut new);
    if new.is_empty() {
        // A scalar takes no member.
        new.push("/n".to_owned());
    }
    (existing, new)
}

/// A path for an operation on `doc`: usually one that exists or can take a
/// new member, sometimes any short path.
fn path_into(existing: Vec<String>, new: Vec<String>) -> BoxedStrategy<String> {
    prop_oneof![
        6 => select(existing),
        3 => select(new),
        1 => short_pointer(),
    ]
    .boxed()
}

/// One RFC 6902 operation on `doc`, with the members its `op` requires.
fn rfc_op(doc: &Value) -> BoxedStrategy<Value> {
    let (existing, new) = pointers_into(doc);
    (
        select(vec![
            "add", "add", "add", "replace", "replace", "remove", "move", "move", "copy", "test",
        ]),
        path_into(existing.clone(), new.clone()),
        path_into(existing.clone(), new),
        prop_oneof![
            1 => json_value(),
            1 => select(existing).prop_map({
                let doc = doc.clone();
                move |path| doc.pointer(&path).cloned().unwrap_or(Value::Null)
            }),
        ],
    )
        .prop_map(|(op, path, from, value)| match op {
            "add" | "replace" | "test" => json!({"op": op, "path": path, "value": value}),
            "move" | "copy" => json!({"op": op, "from": from, "path": path}),
            _ => json!({"op": op, "path": path}),
        })
        .boxed()
}

/// A small document and a patch of 1..5 operations aimed at it.
fn doc_and_patch() -> BoxedStrategy<(Value, Vec<Value>)> {
    prop_oneof![3 => json_object(), 1 => json_value()]
        .prop_flat_map(|doc| {
            let ops = vec(rfc_op(&doc), 1..5);
            (Just(doc), ops)
        })
        .boxed()
}

/// The engine's reading of `ops` as the `delta` of a `STATE_DELTA`.
fn engine_patch(ops: &[Value]) -> Result<agui_replay::protocol::Patch, TestCaseError> {
    let raw = json!({"type": "STATE_DELTA", "delta": ops}).to_string();
    match parse_event(raw.as_bytes()) {
        agui_replay::ParseOutcome::Event { event, issues } => {
            prop_assert!(issues.is_empty(), "{:?}", issues);
            match event.body {
                agui_replay::EventBody::StateDelta { delta } => Ok(delta),
                other => Err(TestCaseError::fail(format!("not a delta: {other:?}"))),
            }
        }
        other => Err(TestCaseError::fail(format!(
            "{raw} does not read: {other:?}"
        ))),
    }
}

proptest! {
    #![proptest_config(config(2048))]

    /// The engine applies a patch as `json_patch` does (R11): where
    /// `json_patch` succeeds the engine gives the same document, where it
    /// fails the engine fails at the same operation, and a failure leaves
    /// the document exactly as it was. `json_patch` cannot take back a
    /// `move` whose target fails (it loses the value, or panics): with a
    /// `move` in the patch only its successes are compared.
    #[test]
    fn patches_apply_as_json_patch_applies_them((doc, ops) in doc_and_patch()) {
        let delta = engine_patch(&ops)?;
        prop_assert_eq!(delta.ops.len(), ops.len());
        let reference: json_patch::Patch =
            serde_json::from_value(Value::Array(ops.clone())).expect("RFC 6902 operations");
        let has_move = reference
            .0
            .iter()
            .any(|op| matches!(op, json_patch::PatchOperation::Move(_)));
        let expected = std::panic::catch_unwind(|| {
            let mut patched = doc.clone();
            let result = json_patch::patch(&mut patched, &reference.0);
            (patched, result)
        });

        let mut patched = doc.clone();
        let result = apply_patch(&mut patched, &delta);
        if let Err(failure) = &result {
            prop_assert_eq!(&patched, &doc, "R11: a failed patch ({}) changed the document", failure);
        }
        match expected {
            Ok((expected_doc, Ok(()))) => {
                prop_assert!(
                    result.is_ok(),
                    "json_patch applies {:?} to {} but the engine fails: {:?}",
                    ops,
                    doc,
                    result
                );
                prop_assert_eq!(&patched, &expected_doc, "{:?} on {}", ops, doc);
            }
            Ok((_, Err(error))) if !has_move => {
                let failure = result.err();
                prop_assert_eq!(
                    failure.as_ref().map(|f| f.index),
                    Some(error.operation),
                    "json_patch fails {:?} on {} at op {} ({}), the engine: {:?}",
                    ops,
                    doc,
                    error.operation,
                    error,
                    failure
                );
            }
            // A move is involved, or json_patch panicked taking back
            // operations: only the engine's atomicity is checked.
            Ok((_, Err(_))) | Err(_) => {}
        }
    }
}

/// The patches of `patches_apply_as_json_patch_applies_them` reach the
/// cases it compares: multi-operation patches that apply, failures after
/// operations that applied, and moves that apply.
#[test]
fn the_patch_generator_reaches_successes_and_late_failures() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = doc_and_patch();
    let (mut applied, mut late_failures, mut moves_applied) = (0, 0, 0);
    for _ in 0..500 {
        let (doc, ops) = strategy.new_tree(&mut runner).expect("a patch").current();
        let reference: json_patch::Patch =
            serde_json::from_value(Value::Array(ops.clone())).expect("RFC 6902 operations");
        let has_move = ops.iter().any(|op| op["op"] == "move");
        let mut patched = doc.clone();
        match apply_patch(&mut patched, &engine_patch(&ops).expect("reads")) {
            Ok(()) if ops.len() > 1 => {
                applied += 1;
                if has_move {
                    moves_applied += 1;
                }
            }
            Ok(()) => {}
            Err(failure) if failure.index > 0 && !has_move => {
                let mut expected = doc.clone();
                if json_patch::patch(&mut expected, &reference.0).is_err() {
                    late_failures += 1;
                }
            }
            Err(_) => {}
        }
    }
    let counts = format!(
        "{applied} multi-operation patches applied, {moves_applied} with a move; \
         {late_failures} failures after op 0"
    );
    assert!(applied >= 50, "{counts}");
    assert!(late_failures >= 50, "{counts}");
    assert!(moves_applied >= 10, "{counts}");
}

proptest! {
    #![proptest_config(config(512))]

    /// The one-pass reader and the precise reader agree on every event: the
    /// fast path only accepts what the precise reader reads identically.
    #[test]
    fn the_fast_reader_agrees_with_the_precise_reader(event in event()) {
        let precise = agui_replay::protocol::parse_precisely(&event);
        if let Some(fast) = agui_replay::protocol::parse_fast_only(event.as_bytes()) {
            prop_assert_eq!(
                agui_replay::ParseOutcome::Event { event: fast, issues: Vec::new() },
                precise.clone(),
                "{}",
                event
            );
        }
        prop_assert_eq!(agui_replay::protocol::parse_event_str(&event), precise, "{}", event);
    }
}

/// The fast path is the one taken on real streams: every event of the demo
/// and of a generated stream is accepted by it, and read as the precise
/// reader reads it.
#[test]
fn the_fast_reader_takes_realistic_events() {
    let demo = include_str!("../../recordings/demo.jsonl");
    let generated = generate(GenConfig {
        events: 2_000,
        activities: 20,
        seed: 5,
    });
    let lines = demo.lines().map(str::to_owned).chain(
        generated
            .iter()
            .map(|(_, raw)| String::from_utf8_lossy(raw).into_owned()),
    );
    let mut taken = 0;
    for line in lines {
        let fast = agui_replay::protocol::parse_fast_only(line.as_bytes())
            .unwrap_or_else(|| panic!("the fast path declined {line}"));
        assert_eq!(
            agui_replay::ParseOutcome::Event {
                event: fast,
                issues: Vec::new()
            },
            agui_replay::protocol::parse_precisely(&line),
            "{line}"
        );
        taken += 1;
    }
    assert_eq!(taken, 45 + 2_000);
}

// ------------------------------------------------------------------ diff

/// Applies a diff's patch with `json_patch` and with the engine's own
/// patcher (the one replay uses); both must give `after`.
fn check_diff_applies(comparison: &Comparison) -> Result<(), TestCaseError> {
    let mut by_library = comparison.before.clone();
    let applied = json_patch::patch(&mut by_library, &comparison.patch);
    prop_assert!(applied.is_ok(), "{:?} on {}", applied, comparison.before);
    prop_assert_eq!(&by_library, &comparison.after);
    let mut by_engine = comparison.before.clone();
    let own = agui_replay::protocol::Patch::from_ops(comparison.patch.0.clone());
    prop_assert!(apply_patch(&mut by_engine, &own).is_ok());
    prop_assert_eq!(&by_engine, &comparison.after);
    Ok(())
}

proptest! {
    #![proptest_config(config(200))]

    /// The diff view's patch turns any JSON value into any other.
    #[test]
    fn the_diff_patch_turns_any_value_into_any_other(a in json_value(), b in json_value()) {
        let comparison = Comparison::of(DiffScope::State, Seq::new(1), a, Seq::new(2), b);
        check_diff_applies(&comparison)?;
        prop_assert_eq!(comparison.is_unchanged(), comparison.before == comparison.after);
    }
}

proptest! {
    #![proptest_config(config(40))]

    /// Applying the patch of the diff from step A to step B to the state at
    /// A gives the state at B: for the whole document, the state, the
    /// conversation and each message, in both directions.
    #[test]
    fn applying_the_diff_to_the_state_at_a_gives_the_state_at_b(
        events in stream_of(80),
        picks in vec((any::<proptest::sample::Index>(), any::<proptest::sample::Index>()), 4),
    ) {
        let log = event_log(&events);
        let timeline = Timeline::builder(Options::default()).policy(TINY_POLICY).replay(log.clone());
        let mut ids: Vec<String> = timeline
            .head()
            .conversation()
            .iter()
            .map(|m| m.id().to_owned())
            .collect();
        ids.truncate(4);
        let mut scopes = vec![DiffScope::Everything, DiffScope::State, DiffScope::Conversation];
        scopes.extend(ids.into_iter().map(DiffScope::Message));
        for (a, b) in &picks {
            let a = Seq::new(a.index(log.len() + 1) as u64);
            let b = Seq::new(b.index(log.len() + 1) as u64);
            for scope in &scopes {
                let comparison = Comparison::between(&timeline, scope.clone(), a, b);
                prop_assert_eq!(&comparison.before, &scope.document(&replay_to(&log, Options::default(), a)));
                prop_assert_eq!(&comparison.after, &scope.document(&replay_to(&log, Options::default(), b)));
                check_diff_applies(&comparison)?;
            }
        }
    }
}
