//! Snapshot drift (issue 17.1, E20): a snapshot after deltas compared with
//! what the consumer held, for the three snapshot types, each of the
//! kinds (a repair after a failed delta, R44/R8; an unexplained drift with
//! no failure before it, "applied differently"; and, issue 39, a change at
//! paths no delta set, "changed without a delta", under its own code), the
//! cases that are not drift, and the drift's survival through checkpoints
//! and the stored index.

use agui_replay::diagnostic::{Drift, DriftKind};
use agui_replay::timeline::{CheckpointPolicy, Timeline};
use agui_replay::{Code, Diagnostic, EventLog, Options, Profile, Replayer, Seq, Severity};
use serde_json::{Value, json};

use crate::common::events::{replay_with, run_finished, run_started};

fn snapshot(id: &str, content: Value) -> Value {
    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": id, "activityType": "plan",
           "content": content})
}

fn delta(id: &str, patch: Value) -> Value {
    json!({"type": "ACTIVITY_DELTA", "messageId": id, "activityType": "plan", "patch": patch})
}

fn drifts(replayer: &Replayer) -> Vec<&Diagnostic> {
    replayer
        .diagnostics()
        .iter()
        .filter(|d| d.code.is_drift())
        .collect()
}

/// A drift's code, kind and paths (sorted), and the path of its diagnostic.
fn summary(diagnostic: &Diagnostic) -> (Code, DriftKind, Vec<String>, Option<&str>) {
    let drift = diagnostic
        .drift
        .as_deref()
        .expect("a drift carries its patch");
    assert_eq!(diagnostic.severity, Severity::Info);
    let mut paths = drift.paths();
    paths.sort();
    (
        diagnostic.code,
        drift.kind,
        paths,
        diagnostic.path.as_deref(),
    )
}

fn the_drift(replayer: &Replayer) -> (&Diagnostic, &Drift) {
    let found = drifts(replayer);
    assert_eq!(found.len(), 1, "one drift: {found:#?}");
    let diagnostic = found[0];
    assert_eq!(diagnostic.severity, Severity::Info);
    (
        diagnostic,
        diagnostic
            .drift
            .as_deref()
            .expect("a drift carries its patch"),
    )
}

#[test]
fn activity_snapshot_after_a_failed_patch_is_the_normal_repair() {
    // R14 skips the delta at 3 (its test fails); R44: the consumer now
    // disagrees; R8: the snapshot at 5 repairs it.
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            snapshot("a1", json!({"found": 0, "items": ["x"]})),
            delta(
                "a1",
                json!([{"op": "test", "path": "/found", "value": 9},
                               {"op": "replace", "path": "/found", "value": 1}]),
            ),
            delta(
                "a1",
                json!([{"op": "add", "path": "/items/-", "value": "y"}]),
            ),
            snapshot("a1", json!({"found": 1, "items": ["x", "y"]})),
            run_finished(),
        ],
    );
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::ActivityDrift);
    assert_eq!(diagnostic.seq, Seq::new(5));
    assert_eq!(diagnostic.message_id.as_deref(), Some("a1"));
    assert_eq!(diagnostic.path.as_deref(), Some("/content/found"));
    assert_eq!(drift.kind, DriftKind::Repair);
    assert_eq!(drift.failed_at, Some(Seq::new(3)));
    assert_eq!(drift.since, Seq::new(3));
    assert_eq!(drift.deltas, 2);
    assert_eq!(
        drift.patch,
        json!([{"op": "replace", "path": "/content/found", "value": 1}])
    );
    assert!(
        diagnostic.message.starts_with("drift repaired"),
        "{}",
        diagnostic.message
    );
    assert!(diagnostic.message.contains("R44"), "{}", diagnostic.message);
    // The repair is applied all the same (R3).
    assert_eq!(
        r.conversation()
            .get("a1")
            .map(|m| m.to_json()["content"].clone()),
        Some(json!({"found": 1, "items": ["x", "y"]}))
    );
}

#[test]
fn activity_snapshot_differing_after_deltas_that_all_applied_is_unexplained() {
    // No delta failed, yet the producer's snapshot says /items/1 is "z"
    // and the type changed: they applied the same deltas differently.
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            snapshot("a1", json!({"items": ["x"]})),
            delta(
                "a1",
                json!([{"op": "add", "path": "/items/-", "value": "y"}]),
            ),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan2",
                   "content": {"items": ["x", "z"]}}),
            run_finished(),
        ],
    );
    // Issue 39: the delta set `/items` (an append), not the type, which
    // the snapshot changed without a delta: that part has its own code.
    let found = drifts(&r);
    assert_eq!(found.len(), 2, "{found:#?}");
    let (diagnostic, drift) = (found[0], found[0].drift.as_deref().expect("a drift"));
    assert_eq!(diagnostic.code, Code::ActivityDrift);
    assert_eq!(drift.kind, DriftKind::Unexplained);
    assert_eq!(drift.failed_at, None);
    assert_eq!(drift.deltas, 1);
    assert_eq!(drift.paths(), ["/content/items/1"]);
    assert!(
        diagnostic
            .message
            .contains("the producer and the consumer applied the same ACTIVITY_DELTAs differently"),
        "{}",
        diagnostic.message
    );
    assert_eq!(
        summary(found[1]),
        (
            Code::ActivityDriftUnstreamed,
            DriftKind::Unstreamed,
            vec!["/activityType".to_owned()],
            Some("/activityType")
        )
    );
}

#[test]
fn snapshots_that_agree_or_follow_no_delta_are_not_drift() {
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            snapshot("a1", json!({"n": 0})),
            // A snapshot right after a snapshot replaces: no delta between.
            snapshot("a1", json!({"n": 5})),
            delta("a1", json!([{"op": "replace", "path": "/n", "value": 6}])),
            // Agrees with what the delta built.
            snapshot("a1", json!({"n": 6})),
            delta("a1", json!([{"op": "replace", "path": "/n", "value": 7}])),
            // R8: a declined snapshot is a baseline too...
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan",
                   "content": {"n": 100}, "replace": false}),
            // ...so this one follows no delta.
            snapshot("a1", json!({"n": 8})),
            run_finished(),
        ],
    );
    assert_eq!(drifts(&r), Vec::<&Diagnostic>::new());
}

#[test]
fn state_snapshot_after_a_failed_state_delta_is_a_repair() {
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
            // Issue 39: the failed delta meant to set `/m` (`replace` of a
            // member that is not there), which the snapshot then repairs.
            json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/m", "value": 2}]}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1, "m": 2}}),
            run_finished(),
        ],
    );
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::StateDrift);
    assert_eq!(diagnostic.message_id, None);
    assert_eq!(diagnostic.path.as_deref(), Some("/snapshot/m"));
    assert_eq!(drift.kind, DriftKind::Repair);
    assert_eq!(drift.failed_at, Some(Seq::new(3)));
    assert_eq!(
        drift.patch,
        json!([{"op": "add", "path": "/m", "value": 2}])
    );
}

#[test]
fn state_snapshot_differing_after_applied_deltas_is_unexplained_under_both_profiles() {
    for profile in Profile::ALL {
        let r = replay_with(
            Options::for_profile(profile),
            &[
                run_started(),
                json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/n", "value": 1}]}),
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 2}}),
                // After the snapshot: no delta, no drift.
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 3}}),
                run_finished(),
            ],
        );
        let (diagnostic, drift) = the_drift(&r);
        assert_eq!(diagnostic.code, Code::StateDrift, "{profile}");
        assert_eq!(diagnostic.seq, Seq::new(3), "{profile}");
        assert_eq!(drift.kind, DriftKind::Unexplained, "{profile}");
        assert_eq!(
            drift.patch,
            json!([{"op": "replace", "path": "/n", "value": 2}]),
            "{profile}"
        );
    }
}

#[test]
fn messages_snapshot_replacing_a_streamed_message_with_another_text_is_unexplained() {
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "same"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m2"}),
            // m1 differs; m2 agrees; n1 is new (reconciliation, not drift).
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "n1", "role": "user", "content": "hi"},
                {"id": "m1", "role": "assistant", "content": "Hello world"},
                {"id": "m2", "role": "assistant", "content": "same"}]}),
            // The snapshot is the new baseline: the same snapshot again is
            // nothing.
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "m1", "role": "assistant", "content": "Hello again"}]}),
            run_finished(),
        ],
    );
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::MessagesDrift);
    assert_eq!(diagnostic.seq, Seq::new(8));
    assert_eq!(diagnostic.message_id.as_deref(), Some("m1"));
    // The second element of the snapshot's `messages`.
    assert_eq!(diagnostic.path.as_deref(), Some("/messages/1/content"));
    assert_eq!(drift.kind, DriftKind::Unexplained);
    assert_eq!(drift.deltas, 3);
    assert_eq!(drift.since, Seq::new(2));
    assert_eq!(
        drift.patch,
        json!([{"op": "replace", "path": "/content", "value": "Hello world"}])
    );
}

#[test]
fn messages_snapshot_carrying_an_activity_after_a_failed_delta_is_a_repair() {
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            snapshot("a1", json!({"n": 1})),
            // Issue 39: the failed delta meant to set `/n` (its test fails).
            delta(
                "a1",
                json!([{"op": "test", "path": "/n", "value": 0},
                       {"op": "replace", "path": "/n", "value": 2}]),
            ),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "a1", "role": "activity", "activityType": "plan",
                 "content": {"n": 2}}]}),
            run_finished(),
        ],
    );
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::MessagesDrift);
    assert_eq!(diagnostic.message_id.as_deref(), Some("a1"));
    assert_eq!(drift.kind, DriftKind::Repair);
    assert_eq!(drift.failed_at, Some(Seq::new(3)));
    assert_eq!(
        drift.patch,
        json!([{"op": "replace", "path": "/content/n", "value": 2}])
    );
}

#[test]
fn a_state_snapshot_with_both_kinds_reports_each_with_its_paths() {
    // Issue 39: one snapshot changes what the deltas set (`/n`, the
    // appended `/items`) and what none did (`/user/name`, the producer's
    // own `/_adk` key). Each kind is its own diagnostic, with its paths.
    for profile in Profile::ALL {
        let r = replay_with(
            Options::for_profile(profile),
            &[
                run_started(),
                json!({"type": "STATE_SNAPSHOT",
                       "snapshot": {"n": 0, "items": [1], "user": {"name": "a"}}}),
                json!({"type": "STATE_DELTA", "delta": [
                    {"op": "add", "path": "/items/-", "value": 2},
                    {"op": "replace", "path": "/n", "value": 1}]}),
                json!({"type": "STATE_SNAPSHOT",
                       "snapshot": {"n": 5, "items": [1, 2, 3], "user": {"name": "b"},
                                    "_adk": {"k": 1}}}),
                run_finished(),
            ],
        );
        let found = drifts(&r);
        assert_eq!(found.len(), 2, "{profile}: {found:#?}");
        let (code, kind, paths, _) = summary(found[0]);
        assert_eq!(
            (code, kind, paths),
            (
                Code::StateDrift,
                DriftKind::Unexplained,
                vec!["/items/2".to_owned(), "/n".to_owned()]
            ),
            "{profile}"
        );
        let (code, kind, paths, _) = summary(found[1]);
        assert_eq!(
            (code, kind, paths),
            (
                Code::StateDriftUnstreamed,
                DriftKind::Unstreamed,
                vec!["/_adk".to_owned(), "/user/name".to_owned()]
            ),
            "{profile}"
        );
        for diagnostic in &found {
            assert_eq!(diagnostic.seq, Seq::new(4), "{profile}");
            let drift = diagnostic.drift.as_deref().expect("a drift");
            assert_eq!(
                diagnostic.path,
                Some(format!("/snapshot{}", drift.paths()[0])),
                "{profile}"
            );
            // The message names the paths of its kind, and only those.
            for path in drift.paths() {
                assert!(diagnostic.message.contains(&path), "{}", diagnostic.message);
            }
        }
        assert!(
            found[0]
                .message
                .starts_with("unexplained drift, applied differently")
        );
        assert!(!found[0].message.contains("/_adk"));
        assert!(
            found[1]
                .message
                .starts_with("changed without a delta: STATE_SNAPSHOT changes the state at "),
            "{}",
            found[1].message
        );
        assert!(
            found[1]
                .message
                .contains("which none of the 1 STATE_DELTA since step 3 set"),
            "{}",
            found[1].message
        );
        assert!(!found[1].message.contains("/n,") && !found[1].message.contains("/items"));
    }
}

#[test]
fn a_failed_delta_elsewhere_does_not_make_a_change_without_a_delta_a_repair() {
    // Issue 39: the delta at 3 failed at `/missing`; the snapshot adds `/m`,
    // which no delta set: changed without a delta, not the repair (before
    // the split, this was reported as `state.drift`, a repair).
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1, "m": 2}}),
            run_finished(),
        ],
    );
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::StateDriftUnstreamed);
    assert_eq!(diagnostic.path.as_deref(), Some("/snapshot/m"));
    assert_eq!(drift.kind, DriftKind::Unstreamed);
    // The history is kept: a delta since the baseline failed.
    assert_eq!(drift.failed_at, Some(Seq::new(3)));
    assert_eq!(
        drift.patch,
        json!([{"op": "add", "path": "/m", "value": 2}])
    );
}

#[test]
fn a_messages_snapshot_with_both_kinds_reports_each_with_its_paths() {
    // Issue 39: the events set m1's `/content` and its call's arguments;
    // the snapshot also names the message and adds a call never streamed.
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "f",
                   "parentMessageId": "m1"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": "{\"a\":1}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "m1", "role": "assistant", "content": "Hello world", "name": "bot",
                 "toolCalls": [
                    {"id": "tc1", "type": "function",
                     "function": {"name": "f", "arguments": "{\"a\":2}"}},
                    {"id": "tc2", "type": "function",
                     "function": {"name": "g", "arguments": "{}"}}]}]}),
            run_finished(),
        ],
    );
    let found = drifts(&r);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(
        summary(found[0]),
        (
            Code::MessagesDrift,
            DriftKind::Unexplained,
            vec![
                "/content".to_owned(),
                "/toolCalls/0/function/arguments".to_owned()
            ],
            found[0].path.as_deref()
        )
    );
    assert_eq!(
        summary(found[1]),
        (
            Code::MessagesDriftUnstreamed,
            DriftKind::Unstreamed,
            vec!["/name".to_owned(), "/toolCalls/1".to_owned()],
            found[1].path.as_deref()
        )
    );
    for diagnostic in &found {
        assert_eq!(diagnostic.seq, Seq::new(8));
        assert_eq!(diagnostic.message_id.as_deref(), Some("m1"));
        assert!(
            diagnostic
                .path
                .as_deref()
                .is_some_and(|p| p.starts_with("/messages/0/")),
            "{diagnostic:?}"
        );
    }
}

#[test]
fn tool_call_arguments_the_snapshot_encodes_otherwise_changed_without_a_delta() {
    // Issue 39, as Strands does: the arguments streamed as `{"city": "P"}`
    // come back in the snapshot as `{"city":"P"}`, the same JSON that no
    // concatenation of the streamed text makes: the producer re-encoded
    // them. Other arguments are applied differently.
    let events = |snapshot_arguments: &str| {
        vec![
            run_started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "f",
                   "parentMessageId": "m1"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "tc1",
                   "delta": "{\"city\": \"P\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "m1", "role": "assistant", "toolCalls": [
                    {"id": "tc1", "type": "function",
                     "function": {"name": "f", "arguments": snapshot_arguments}}]}]}),
            run_finished(),
        ]
    };
    let r = replay_with(Options::default(), &events("{\"city\":\"P\"}"));
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::MessagesDriftUnstreamed);
    assert_eq!(drift.paths(), ["/toolCalls/0/function/arguments"]);
    assert!(
        diagnostic.message.contains(
            "(the arguments at /toolCalls/0/function/arguments are the JSON they streamed, encoded otherwise)"
        ),
        "{}",
        diagnostic.message
    );
    let r = replay_with(Options::default(), &events("{\"city\":\"Q\"}"));
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::MessagesDrift);
    assert_eq!(drift.kind, DriftKind::Unexplained);
    assert_eq!(drift.paths(), ["/toolCalls/0/function/arguments"]);
}

#[test]
fn a_message_streamed_empty_and_given_a_text_by_a_snapshot_changed_without_a_delta() {
    // Issue 39: a start sets the role, not the content: the text the
    // snapshot brings was never streamed.
    let r = replay_with(
        Options::default(),
        &[
            run_started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u1", "role": "user"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "u1"}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "u1", "role": "user", "content": "q"}]}),
            run_finished(),
        ],
    );
    let (diagnostic, drift) = the_drift(&r);
    assert_eq!(diagnostic.code, Code::MessagesDriftUnstreamed);
    assert_eq!(diagnostic.path.as_deref(), Some("/messages/0/content"));
    assert_eq!(drift.paths(), ["/content"]);
    assert!(
        diagnostic
            .message
            .contains("which none of the 2 streamed events since step 2 set"),
        "{}",
        diagnostic.message
    );
}

/// A stream with drift of each type, long enough for tiny checkpoints.
fn drifting_stream() -> Vec<Value> {
    let mut events = vec![run_started(), snapshot("a1", json!({"n": 0}))];
    for i in 1..40 {
        events.push(delta(
            "a1",
            json!([{"op": "replace", "path": "/n", "value": i}]),
        ));
        events.push(json!({"type": "STATE_DELTA",
                           "delta": [{"op": "add", "path": "/i", "value": i}]}));
        if i % 7 == 0 {
            events.push(snapshot("a1", json!({"n": i * 10})));
            events.push(json!({"type": "STATE_SNAPSHOT", "snapshot": {"i": i + 1}}));
        }
    }
    events.push(run_finished());
    events
}

fn log_of(events: &[Value]) -> EventLog {
    let mut log = EventLog::default();
    for event in events {
        log.push(event.to_string().as_bytes());
    }
    log
}

#[test]
fn drift_is_the_same_from_any_checkpoint_and_from_the_stored_index() {
    assert_drifts_the_same_from_checkpoints(
        &drifting_stream(),
        10,
        "5 activity and 5 state drifts",
    );
}

#[test]
fn the_paths_deltas_set_are_the_same_from_any_checkpoint_and_from_the_stored_index() {
    // Issue 39: the snapshots also change `/k` and `/s`, which no delta
    // sets: the tracked paths survive checkpoints and the index.
    let mut events = drifting_stream();
    for event in &mut events {
        if event["type"] == "ACTIVITY_SNAPSHOT" {
            let n = event["content"]["n"].clone();
            event["content"]["k"] = n;
        }
        if event["type"] == "STATE_SNAPSHOT" {
            let i = event["snapshot"]["i"].clone();
            event["snapshot"]["s"] = i;
        }
    }
    let found = assert_drifts_the_same_from_checkpoints(&events, 20, "both kinds, 5 of each");
    let count = |code| found.iter().filter(|d| d.code == code).count();
    assert_eq!(count(Code::ActivityDriftUnstreamed), 5);
    assert_eq!(count(Code::StateDriftUnstreamed), 5);
}

/// Replays `events` whole, then from each of many tiny checkpoints and from
/// the stored index: the same `expected` drift diagnostics each time.
fn assert_drifts_the_same_from_checkpoints(
    events: &[Value],
    expected: usize,
    what: &str,
) -> Vec<Diagnostic> {
    let log = log_of(events);
    let full = agui_replay::replay::replay_log(&log, Options::default());
    let expected_drifts: Vec<Diagnostic> = drifts(&full).into_iter().cloned().collect();
    assert_eq!(expected_drifts.len(), expected, "{what}");
    let expected = expected_drifts;
    // Tiny checkpoints: most fall between a delta and its snapshot, where
    // what the watch tracks must be carried over.
    let policy = CheckpointPolicy {
        max_cost: 300,
        op_cost: 48,
    };
    let timeline = Timeline::builder(Options::default())
        .policy(policy)
        .replay(log.clone());
    assert!(timeline.num_checkpoints() > 10);
    for step in timeline.checkpoint_steps().collect::<Vec<_>>() {
        let mut replayer = timeline.seek(step);
        let from = step.get() as usize;
        agui_replay::protocol::for_each_parsed_in(&log, from..log.len(), |_, _, parsed| {
            replayer.apply_taking(parsed);
        });
        let after: Vec<Diagnostic> = expected.iter().filter(|d| d.seq > step).cloned().collect();
        let got: Vec<Diagnostic> = drifts(&replayer).into_iter().cloned().collect();
        assert_eq!(got, after, "resumed at {step}");
    }
    // The stored index keeps each drift's patch and kind.
    let indexed = Timeline::builder(Options::default()).index_of(&log);
    let blob = indexed.encode_index().expect("encodes");
    let stored = Timeline::from_stored_index(log, blob, Options::default()).expect("decodes");
    let got: Vec<Diagnostic> = stored
        .diagnostics()
        .iter()
        .filter(|d| d.drift.is_some())
        .cloned()
        .collect();
    assert_eq!(got, expected);
    expected
}
