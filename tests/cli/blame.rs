//! Blame (issue 17.2): `agui-replay blame` through the built binary on
//! crafted streams whose histories are known, and the engine
//! (`agui_replay::search::blame`) against a naive oracle that replays
//! every step from the start and compares the value step by step.

use std::process::Output;

use agui_replay::replay::{Options, Replayer};
use agui_replay::search::{Target, blame};
use agui_replay::timeline::{CheckpointPolicy, Timeline};
use agui_replay::{EventLog, Seq};
use serde_json::{Value, json};

use crate::common::generator::{GenConfig, generate};
use crate::common::snapshot::assert_output;
use crate::common::{TempPath, code, json_out, stderr, stdout};

/// A stream whose history is known: activity `a1` (`/content/found` goes
/// absent → 0 at 2, a failed patch at 3 sets nothing, 2 at the repairing
/// snapshot 5, 3 by op 0 at 6, 4 by the snapshot at 7), the state (`/n`
/// 1 at 8, 2 by op 1 at 9, 3 at 10), a streamed text message `m1`
/// replaced by a `MESSAGES_SNAPSHOT` at 14, and a tool call whose
/// arguments stream into `m2`.
fn crafted() -> Vec<Value> {
    vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
               "content": {"steps": ["a"], "found": 0}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan",
               "patch": [{"op": "test", "path": "/found", "value": 5},
                         {"op": "replace", "path": "/found", "value": 1}]}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan",
               "patch": [{"op": "add", "path": "/steps/-", "value": "b"}]}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
               "content": {"steps": ["a", "b"], "found": 2}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "plan",
               "patch": [{"op": "add", "path": "/steps/0", "value": "z"},
                         {"op": "replace", "path": "/found", "value": 3}]}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
               "content": {"steps": ["z", "a", "b"], "found": 4}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1, "k": "x"}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/k", "value": "y"},
                                                {"op": "replace", "path": "/n", "value": 2}]}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 3, "k": "y"}}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        json!({"type": "MESSAGES_SNAPSHOT",
               "messages": [{"id": "m1", "role": "assistant", "content": "Hello world"}]}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search",
               "parentMessageId": "m2"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"q\":"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "1}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]
}

fn run(file: &TempPath, args: &[&str]) -> Output {
    crate::common::run(&[&["blame", file.s()], args].concat())
}

fn blame_text(file: &TempPath, args: &[&str], expected_code: i32) -> String {
    let output = run(file, args);
    assert_eq!(
        code(&output),
        expected_code,
        "blame {args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

#[test]
fn activity_value_history_skips_the_failed_patch_and_names_each_cause() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    let out = blame_text(
        &file,
        &["--message", "a1", "--pointer", "/content/found"],
        0,
    );
    assert_eq!(
        out,
        "value at step 19: 4\n\
         set at step 7 by ACTIVITY_SNAPSHOT; 4 changes\n\
         step 2: ACTIVITY_SNAPSHOT: (absent) -> 0\n\
         step 5: ACTIVITY_SNAPSHOT: 0 -> 2\n\
         step 6: op 1 of ACTIVITY_DELTA: 2 -> 3\n\
         step 7: ACTIVITY_SNAPSHOT: 3 -> 4\n"
    );
}

#[test]
fn at_a_step_blame_stops_there_and_an_insertion_shifts_an_element() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    // Up to step 6: the insertion at /steps/0 (op 0) moved "b" from 1 to 2,
    // so /steps/1 became "a".
    let out = blame_text(
        &file,
        &[
            "--message",
            "a1",
            "--pointer",
            "/content/steps/1",
            "--at",
            "6",
        ],
        0,
    );
    assert_eq!(
        out,
        "value at step 6: \"a\"\n\
         set at step 6 by op 0 of ACTIVITY_DELTA; 2 changes\n\
         step 4: op 0 of ACTIVITY_DELTA: (absent) -> \"b\"\n\
         step 6: op 0 of ACTIVITY_DELTA: \"b\" -> \"a\"\n"
    );
}

#[test]
fn state_value_history_names_the_operation_of_the_delta() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    let out = blame_text(&file, &["--state", "--pointer", "/n"], 0);
    assert_eq!(
        out,
        "value at step 19: 3\n\
         set at step 10 by STATE_SNAPSHOT; 3 changes\n\
         step 8: STATE_SNAPSHOT: (absent) -> 1\n\
         step 9: op 1 of STATE_DELTA: 1 -> 2\n\
         step 10: STATE_SNAPSHOT: 2 -> 3\n"
    );
}

#[test]
fn streamed_text_and_tool_call_arguments_have_their_events_as_causes() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    let out = blame_text(&file, &["--message", "m1", "--pointer", "/content"], 0);
    assert_eq!(
        out,
        "value at step 19: \"Hello world\"\n\
         set at step 14 by MESSAGES_SNAPSHOT; 3 changes\n\
         step 11: TEXT_MESSAGE_START: (absent) -> \"\"\n\
         step 12: TEXT_MESSAGE_CONTENT: \"\" -> \"Hello\"\n\
         step 14: MESSAGES_SNAPSHOT: \"Hello\" -> \"Hello world\"\n"
    );
    // The arguments' events name the tool call, not the message: blame
    // finds them through the calls the message holds.
    let out = blame_text(
        &file,
        &[
            "--message",
            "m2",
            "--pointer",
            "/toolCalls/0/function/arguments",
        ],
        0,
    );
    assert_eq!(
        out,
        "value at step 19: \"{\\\"q\\\":1}\"\n\
         set at step 17 by TOOL_CALL_ARGS; 3 changes\n\
         step 15: TOOL_CALL_START: (absent) -> \"\"\n\
         step 16: TOOL_CALL_ARGS: \"\" -> \"{\\\"q\\\":\"\n\
         step 17: TOOL_CALL_ARGS: \"{\\\"q\\\":\" -> \"{\\\"q\\\":1}\"\n"
    );
}

#[test]
fn json_output_is_the_documented_shape() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    let output = run(
        &file,
        &[
            "--message",
            "a1",
            "--pointer",
            "/content/found",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let document = json_out(&output);
    assert_eq!(document["last"]["step"], 7);
    assert_eq!(document["changes"].as_array().map(Vec::len), Some(4));
    assert_eq!(document["replayed"], false);
    assert_output!(
        "blame_json",
        serde_json::to_string_pretty(&document).expect("prints")
    );
}

#[test]
fn a_value_never_set_exits_1_and_bad_usage_exits_2() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    let out = blame_text(&file, &["--message", "a1", "--pointer", "/content/nope"], 1);
    assert_eq!(
        out,
        "value at step 19: (absent)\nnever set up to this step\n"
    );
    let output = run(&file, &["--message", "zz", "--pointer", "/content"]);
    assert_eq!(code(&output), 1);
    assert!(
        stderr(&output).contains("no message \"zz\""),
        "{}",
        stderr(&output)
    );
    for args in [
        &["--state", "--pointer", "x"][..],
        &["--state", "--pointer", "/n", "--at", "20"],
        &["--pointer", "/n"],
        &["--state", "--message", "a1", "--pointer", "/n"],
    ] {
        let output = run(&file, args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn a_recording_is_blamed_from_its_stored_index_with_the_same_answer() {
    let file = TempPath::jsonl("blame", "crafted.jsonl", &crafted());
    let recording = TempPath::new("blame", "crafted.rec");
    let output = crate::common::run(&["import", file.s(), "--out", recording.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    for args in [
        &["--message", "a1", "--pointer", "/content/found"][..],
        &["--state", "--pointer", "/n", "--at", "9"],
    ] {
        let from_file = blame_text(&file, args, 0);
        let output = crate::common::run(&[&["blame", recording.s()], args].concat());
        assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
        assert_eq!(stdout(&output), from_file, "{args:?}");
    }
}

// The engine against an oracle.

/// Every change of the value: one replay of every event, looking at the
/// value after each (no index, no filter, no checkpoint).
fn oracle(log: &EventLog, target: &Target, pointer: &str, at: u64) -> Vec<(u64, Option<Value>)> {
    let value = |replayer: &Replayer| match target {
        Target::State => replayer.state().pointer(pointer).cloned(),
        Target::Message(id) => replayer
            .conversation()
            .get(id)
            .and_then(|m| m.to_json().pointer(pointer).cloned()),
    };
    let mut replayer = Replayer::new(Options::default());
    let mut changes = Vec::new();
    let mut last = value(&replayer);
    if last.is_some() {
        changes.push((0, last.clone()));
    }
    for (seq, raw) in log.iter().take(at as usize) {
        replayer.apply_bytes(raw);
        let now = value(&replayer);
        if now != last {
            changes.push((seq.get(), now.clone()));
            last = now;
        }
    }
    changes
}

fn log_of(events: &[Value]) -> EventLog {
    let mut log = EventLog::default();
    for event in events {
        log.push(event.to_string().as_bytes());
    }
    log
}

#[test]
fn blame_equals_the_oracle_on_a_generated_stream_with_small_checkpoints() {
    let log = generate(GenConfig {
        events: 1_500,
        activities: 6,
        seed: 9,
    });
    // Checkpoints every few events, so that the filtered replay is checked
    // against many of them.
    let policy = CheckpointPolicy {
        max_cost: 4_000,
        op_cost: 48,
    };
    let timeline = Timeline::builder(Options::default())
        .policy(policy)
        .replay(log.clone());
    assert!(timeline.num_checkpoints() > 10);
    for (target, pointer, at) in [
        (
            Target::Message("act-0003".into()),
            "/content/progress",
            1_500,
        ),
        (Target::Message("act-0001".into()), "/content/items/0", 900),
        (Target::Message("act-0002".into()), "/content/status", 1_200),
        (Target::State, "/counter", 1_500),
    ] {
        let found = blame(&timeline, &target, pointer, Seq::new(at)).expect("a pointer");
        assert!(!found.replayed, "{target:?} {pointer}: the filter sufficed");
        assert!(found.events_replayed < at as usize / 2, "{pointer}");
        let got: Vec<(u64, Option<Value>)> = found
            .changes
            .iter()
            .map(|c| (c.step.get(), c.new.clone()))
            .collect();
        assert_eq!(
            got,
            oracle(&log, &target, pointer, at),
            "{target:?} {pointer}"
        );
        for pair in found.changes.windows(2) {
            assert_eq!(
                pair[0].new, pair[1].old,
                "each change starts where the last ended"
            );
        }
    }
}

#[test]
fn a_chunk_the_filter_cannot_see_makes_blame_replay_every_event_and_stay_exact() {
    // The second chunk continues m1's stream without naming it: the
    // filtered replay misses it, disagrees with the index, and blame
    // replays every event instead.
    let events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant",
               "delta": "Hel"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let log = log_of(&events);
    let timeline = Timeline::from_log(log.clone(), Options::default());
    let target = Target::Message("m1".into());
    let found = blame(&timeline, &target, "/content", Seq::new(4)).expect("a pointer");
    assert!(found.replayed);
    assert_eq!(found.value, Some(json!("Hello")));
    let got: Vec<(u64, Option<Value>)> = found
        .changes
        .iter()
        .map(|c| (c.step.get(), c.new.clone()))
        .collect();
    assert_eq!(got, oracle(&log, &target, "/content", 4));
    assert_eq!(
        found.summary(),
        "set at step 3 by TEXT_MESSAGE_CHUNK; 2 changes"
    );
}

#[test]
fn nothing_after_a_fatal_error_is_blamed() {
    // R43: the delta after the fatal error is not applied.
    let events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "p",
               "content": {"n": 1}}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "p",
               "patch": [{"op": "replace", "path": "/n", "value": 2}]}),
    ];
    let timeline = Timeline::from_log(log_of(&events), Options::default());
    let found = blame(
        &timeline,
        &Target::Message("a1".into()),
        "/content/n",
        Seq::new(4),
    )
    .expect("a pointer");
    assert_eq!(found.value, Some(json!(1)));
    assert_eq!(found.changes.len(), 1);
    assert_eq!(
        found.summary(),
        "set at step 2 by ACTIVITY_SNAPSHOT; 1 change"
    );
}
