//! Activity content schemas (issue 42, S1): validation of crafted streams
//! step by step, inference, and the demo and real-framework captures
//! against schemas inferred from themselves.

use std::path::Path;

use agui_replay::open::open_source;
use agui_replay::replay::{Options, Replayer};
use agui_replay::schemas::{Inference, SchemaSet, SchemaWatch, Target, check_stream};
use agui_replay::{Code, Diagnostic, EventLog};
use serde_json::{Value, json};

use crate::common::events::{run_finished, run_started};
use crate::common::*;

fn log(events: &[Value]) -> EventLog {
    let mut log = EventLog::default();
    for event in events {
        log.push(event.to_string().as_bytes());
    }
    log
}

/// A schema folder holding `files` (name, schema), loaded.
fn folder(label: &str, files: &[(&str, Value)]) -> (TempDir, SchemaSet) {
    let dir = TempDir::new(label);
    for (name, schema) in files {
        dir.write(name, schema.to_string());
    }
    let set = SchemaSet::load(dir.path()).expect("the schemas load");
    (dir, set)
}

fn check(set: &SchemaSet, events: &[Value]) -> Vec<Diagnostic> {
    check_stream(set, Replayer::new(Options::default()), None, &log(events))
}

/// `(seq, code, path, keyword named in the message)` of each diagnostic.
fn summary(found: &[Diagnostic]) -> Vec<(u64, &'static str, String)> {
    found
        .iter()
        .map(|d| {
            (
                d.seq.get(),
                d.code.as_str(),
                d.path.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn search_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "found": {"type": "number"}
        },
        "required": ["query", "found"]
    })
}

fn snapshot(content: Value) -> Value {
    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "s1", "activityType": "search", "content": content})
}

fn delta(patch: Value) -> Value {
    json!({"type": "ACTIVITY_DELTA", "messageId": "s1", "activityType": "search", "patch": patch})
}

// Issue 42: a delta that turns a number into a string is reported at its
// step, naming the activity, the path, the keyword and the expectation.
#[test]
fn a_delta_turning_a_number_into_a_string_is_reported_at_its_step() {
    let (_dir, set) = folder("s42-type", &[("search.schema.json", search_schema())]);
    let found = check(
        &set,
        &[
            run_started(),
            snapshot(json!({"query": "hotels", "found": 0})),
            delta(json!([{"op": "replace", "path": "/found", "value": 3}])),
            delta(json!([{"op": "replace", "path": "/found", "value": "3"}])),
            run_finished(),
        ],
    );
    assert_eq!(
        summary(&found),
        [(4, "activity.content.schema", "/content/found".to_owned())]
    );
    let d = &found[0];
    assert_eq!(d.code, Code::ActivityContentSchema);
    assert_eq!(d.severity, agui_replay::Severity::Warning);
    assert_eq!(d.message_id.as_deref(), Some("s1"));
    for part in [
        "search",
        "/found",
        "search.schema.json",
        "`type`",
        "\"number\"",
    ] {
        assert!(d.message.contains(part), "{part:?} not in {:?}", d.message);
    }
}

// Issue 42: a snapshot that drops a required member is reported with the
// missing member's path.
#[test]
fn a_snapshot_dropping_a_required_member_is_reported() {
    let (_dir, set) = folder("s42-req", &[("search.schema.json", search_schema())]);
    let found = check(
        &set,
        &[
            run_started(),
            snapshot(json!({"query": "hotels", "found": 0})),
            snapshot(json!({"found": 2})),
            run_finished(),
        ],
    );
    assert_eq!(
        summary(&found),
        [(3, "activity.content.schema", "/content/query".to_owned())]
    );
    assert!(
        found[0].message.contains("`required`"),
        "{}",
        found[0].message
    );
    assert!(found[0].message.contains("query"), "{}", found[0].message);
}

// Issue 42: a violation that persists is reported once; fixed, then back,
// it is reported again where it comes back.
#[test]
fn a_violation_is_reported_where_it_appears_and_again_only_after_a_fix() {
    let (_dir, set) = folder("s42-persist", &[("search.schema.json", search_schema())]);
    let found = check(
        &set,
        &[
            run_started(),
            snapshot(json!({"query": "hotels", "found": 0})),
            delta(json!([{"op": "replace", "path": "/found", "value": "1"}])),
            delta(json!([{"op": "replace", "path": "/found", "value": "2"}])),
            delta(json!([{"op": "replace", "path": "/query", "value": "inns"}])),
            delta(json!([{"op": "replace", "path": "/found", "value": 3}])),
            delta(json!([{"op": "replace", "path": "/found", "value": "4"}])),
            // A second violation at another path while the first persists.
            delta(json!([{"op": "remove", "path": "/query"}])),
            run_finished(),
        ],
    );
    assert_eq!(
        summary(&found),
        [
            (3, "activity.content.schema", "/content/found".to_owned()),
            (7, "activity.content.schema", "/content/found".to_owned()),
            (8, "activity.content.schema", "/content/query".to_owned()),
        ]
    );
}

// Issue 42: the state against `_state.schema.json`; a type without a file
// is not checked, and `_state` is never taken for an activity type.
#[test]
fn the_state_is_checked_against_its_own_schema() {
    let state_schema = json!({
        "type": "object",
        "properties": {"budget": {"type": "integer", "minimum": 0}}
    });
    let (_dir, set) = folder("s42-state", &[("_state.schema.json", state_schema)]);
    assert!(
        set.activities.is_empty(),
        "_state is the state's, not a type's"
    );
    let found = check(
        &set,
        &[
            run_started(),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"budget": 10}}),
            snapshot(json!({"anything": true})),
            json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/budget", "value": -1}]}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/budget", "value": 1.5}]}),
            run_finished(),
        ],
    );
    assert_eq!(
        summary(&found),
        [
            (4, "state.content.schema", "/budget".to_owned()),
            (5, "state.content.schema", "/budget".to_owned()),
        ],
        "minimum at 4; at 5 the minimum holds again and `type` is new: {found:#?}"
    );
    assert!(found[0].message.contains("`minimum`"));
    assert!(found[1].message.contains("`type`"));
    assert_eq!(found[0].message_id, None);
}

// Issue 42: a hand-written 2020-12 schema ($defs and $ref, enum,
// prefixItems, minItems, additionalProperties: false) and a draft-7 one.
#[test]
fn hand_written_schemas_of_2020_12_and_draft_7_are_applied() {
    let plan = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "step": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "status": {"enum": ["todo", "doing", "done"]}
                },
                "required": ["id", "status"],
                "additionalProperties": false
            }
        },
        "type": "object",
        "properties": {
            "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}, "minItems": 1},
            "pair": {"prefixItems": [{"type": "string"}, {"type": "integer"}]}
        },
        "required": ["steps"]
    });
    let card = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"n": {"type": "integer"}},
        "type": "object",
        "properties": {"count": {"$ref": "#/definitions/n"}}
    });
    let (_dir, set) = folder(
        "s42-hand",
        &[("plan.schema.json", plan), ("card.schema.json", card)],
    );
    let plan_snapshot = |content: Value| json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "p1", "activityType": "plan", "content": content});
    let found = check(
        &set,
        &[
            run_started(),
            plan_snapshot(json!({"steps": [{"id": "a", "status": "todo"}], "pair": ["x", 1]})),
            json!({"type": "ACTIVITY_DELTA", "messageId": "p1", "activityType": "plan", "patch": [
                {"op": "replace", "path": "/steps/0/status", "value": "finished"},
                {"op": "add", "path": "/steps/0/extra", "value": 1},
                {"op": "replace", "path": "/pair/1", "value": "one"}
            ]}),
            plan_snapshot(json!({"steps": []})),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "c1", "activityType": "card", "content": {"count": 2}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "c1", "activityType": "card", "patch": [
                {"op": "replace", "path": "/count", "value": 2.5}
            ]}),
            run_finished(),
        ],
    );
    let keywords: Vec<(u64, String, String)> = found
        .iter()
        .map(|d| {
            let keyword = d
                .message
                .rsplit("keyword `")
                .next()
                .and_then(|rest| rest.split('`').next())
                .unwrap_or_default()
                .to_owned();
            (d.seq.get(), d.path.clone().unwrap_or_default(), keyword)
        })
        .collect();
    assert_eq!(
        keywords,
        [
            (3, "/content/pair/1".to_owned(), "type".to_owned()),
            (
                3,
                "/content/steps/0".to_owned(),
                "additionalProperties".to_owned()
            ),
            (3, "/content/steps/0/status".to_owned(), "enum".to_owned()),
            (4, "/content/steps".to_owned(), "minItems".to_owned()),
            (6, "/content/count".to_owned(), "type".to_owned()),
        ]
        .into_iter()
        .collect::<Vec<_>>(),
        "{found:#?}"
    );
}

/// Infers a folder from a stream and validates the stream against it.
fn infer_then_check(events: &EventLog, input: Option<&Value>) -> (usize, Vec<Diagnostic>) {
    let start = || match input {
        Some(input) => Replayer::with_run_input(Options::default(), input),
        None => Replayer::new(Options::default()),
    };
    let mut inference = Inference::new();
    inference.see_stream(start(), input, events);
    let dir = TempDir::new("s42-infer");
    let inferred = inference.schemas();
    for schema in &inferred {
        dir.write(&schema.file_name, schema.text());
    }
    let set = SchemaSet::load(dir.path()).expect("inferred schemas load");
    (inferred.len(), check_stream(&set, start(), input, events))
}

// Issue 42: `check --schemas` on the recording a folder was inferred from
// reports nothing: the demo, and every real-framework capture.
#[test]
fn the_demo_and_the_framework_captures_pass_their_own_inferred_schemas() {
    let demo = open_source(&demo_rec(), None).expect("the demo opens");
    let (count, found) = infer_then_check(&demo.events, demo.run_input.as_ref());
    assert!(count >= 3, "the demo has activities and a state");
    assert!(found.is_empty(), "demo: {found:#?}");

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frameworks");
    let mut with_schemas = 0;
    for framework in ["langgraph", "llama-index", "pydantic-ai", "strands"] {
        for entry in std::fs::read_dir(root.join(framework)).expect("a framework folder") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|e| e != "sse") {
                continue;
            }
            let source = open_source(&path, None).expect("the capture opens");
            let input_path = path.with_extension("input.json");
            let input = input_path.exists().then(|| load(&input_path));
            let (count, found) = infer_then_check(&source.events, input.as_ref());
            with_schemas += count;
            assert!(found.is_empty(), "{}: {found:#?}", path.display());
        }
    }
    assert!(with_schemas > 0, "some capture has a state or an activity");
}

// Issue 42: the state seen at step 0 comes from the run input, and whole
// numbers written as 1.0 stay integers for the validator.
#[test]
fn inference_covers_the_run_input_and_whole_floats() {
    let input = json!({"threadId": "t1", "runId": "r1", "messages": [], "state": {"n": 1.0}});
    let events = log(&[
        run_started(),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}),
        run_finished(),
    ]);
    let (count, found) = infer_then_check(&events, Some(&input));
    assert_eq!(count, 1);
    assert!(found.is_empty(), "{found:#?}");

    let mut inference = Inference::new();
    inference.see(Target::State, &json!({"n": 1.0}));
    let schema = &inference.schemas()[0].schema;
    assert_eq!(schema["properties"]["n"]["type"], "integer");
}

// Issue 42: what a content breaks is kept per activity: two activities of
// one type breaking the same member are both reported.
#[test]
fn two_activities_of_one_type_are_tracked_apart() {
    let (_dir, set) = folder("s42-apart", &[("search.schema.json", search_schema())]);
    let mut watch = SchemaWatch::new();
    let bad = json!({"query": 1, "found": 0});
    for id in ["a", "b"] {
        let target = Target::Activity {
            id,
            activity_type: "search",
        };
        watch.see(&set, agui_replay::Seq::new(1), target, &bad);
    }
    assert_eq!(watch.diagnostics().len(), 2);
}

// Issue 42: a `MESSAGES_SNAPSHOT` that brings an activity, and a run input
// holding one (step 0), are validated too.
#[test]
fn activities_from_a_messages_snapshot_and_the_run_input_are_checked() {
    let (_dir, set) = folder("s42-list", &[("search.schema.json", search_schema())]);
    let activity = |id: &str, found: Value| {
        json!({"id": id, "role": "activity", "activityType": "search",
               "content": {"query": "q", "found": found}})
    };
    let input =
        json!({"threadId": "t1", "runId": "r1", "messages": [activity("in-1", json!("x"))]});
    let events = log(&[
        run_started(),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [activity("in-1", json!("x")), activity("m-2", json!(true))]}),
        run_finished(),
    ]);
    let start = Replayer::with_run_input(Options::default(), &input);
    let found = check_stream(&set, start, Some(&input), &events);
    let at: Vec<(u64, Option<&str>)> = found
        .iter()
        .map(|d| (d.seq.get(), d.message_id.as_deref()))
        .collect();
    // in-1 stays broken across the snapshot: reported once, at step 0.
    assert_eq!(at, [(0, Some("in-1")), (2, Some("m-2"))], "{found:#?}");
}

// Issue 42: a stream that grows (a live recording followed, a long one
// indexed in the background) is validated as it grows: fed at every split,
// the check finds what one pass over the whole finds, a violation that
// persists across a split included (reported once), and one that comes
// back after a fix (reported again).
#[test]
fn a_stream_validated_as_it_grows_finds_what_one_pass_finds() {
    use agui_replay::schemas::StreamCheck;
    let (_dir, set) = folder("s42-grow", &[("search.schema.json", search_schema())]);
    let events = [
        run_started(),
        snapshot(json!({"query": "hotels", "found": 0})),
        delta(json!([{"op": "replace", "path": "/found", "value": "3"}])),
        delta(json!([{"op": "replace", "path": "/query", "value": "inns"}])),
        delta(json!([{"op": "replace", "path": "/found", "value": 3}])),
        delta(json!([{"op": "replace", "path": "/found", "value": "4"}])),
        run_finished(),
    ];
    let whole = check(&set, &events);
    assert_eq!(
        summary(&whole),
        [
            (3, "activity.content.schema", "/content/found".to_owned()),
            (6, "activity.content.schema", "/content/found".to_owned())
        ]
    );
    for split in 0..=events.len() {
        let mut grown = EventLog::default();
        let mut stream_check = StreamCheck::new(&set, Replayer::new(Options::default()), None);
        for (i, event) in events.iter().enumerate() {
            if i == split {
                stream_check.feed(&set, &grown);
            }
            grown.push(event.to_string().as_bytes());
        }
        stream_check.feed(&set, &grown);
        assert_eq!(stream_check.num_seen(), events.len());
        assert_eq!(
            stream_check.diagnostics(),
            whole.as_slice(),
            "split at {split}"
        );
        // Fed again with nothing new, nothing changes.
        stream_check.feed(&set, &grown);
        assert_eq!(stream_check.diagnostics(), whole.as_slice());
    }
    // A slice at a time (the app checks a slice per frame).
    let all = log(&events);
    let mut sliced = StreamCheck::new(&set, Replayer::new(Options::default()), None);
    for seen in 1..=events.len() {
        sliced.feed_some(&set, &all, 1);
        assert_eq!(sliced.num_seen(), seen);
    }
    assert_eq!(sliced.diagnostics(), whole.as_slice());
}
