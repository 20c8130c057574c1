//! Unit-style tests per rule of `REPLAY-RULES.md`, through the library API,
//! for what the conformance vectors (`tests/vectors`) do not cover: the other
//! event families (text, tool calls, reasoning, state), lifecycle corners,
//! R43 best-effort, R41/R42 through the engine, run inputs (R50), more of
//! R51, the `ag-ui-client-1.0` profile, patch failure texts (R14, R17) and
//! the per-activity timeline (`ActivityChange`).
//!
//! Most rules are rows of one table (`rule_table!` at the end: a stream and
//! what the replay must say of it); the tests that replay several streams
//! or compare them stay functions above it, on the same helpers.

use agui_replay::{
    ActivityChange, Code, Diagnostic, Effect, EventEffect, Options, Outcome, Profile, Replayer,
    Seq, Severity,
};
use serde_json::{Value, json};

use crate::common::events::{replay_with, run_finished, run_started};

// ---------------------------------------------------------------------------
// Helpers

fn spec() -> Options {
    Options::default()
}

fn client() -> Options {
    Options {
        profile: Profile::AgUiClient10,
        best_effort: false,
        ..Options::default()
    }
}

fn best_effort() -> Options {
    Options {
        profile: Profile::Spec,
        best_effort: true,
        ..Options::default()
    }
}

fn replay(events: &[Value]) -> Replayer {
    replay_with(spec(), events)
}

fn run_started_as(run_id: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t1", "runId": run_id})
}

fn text_start(id: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_START", "messageId": id})
}

fn text_content(id: &str, delta: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta})
}

fn text_end(id: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_END", "messageId": id})
}

fn snapshot(id: &str, activity_type: &str, content: Value) -> Value {
    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": id, "activityType": activity_type,
           "content": content})
}

fn delta(id: &str, activity_type: &str, patch: Value) -> Value {
    json!({"type": "ACTIVITY_DELTA", "messageId": id, "activityType": activity_type,
           "patch": patch})
}

/// Every diagnostic as `(seq, code, severity)`, in the order reported.
fn diags(replayer: &Replayer) -> Vec<(u64, Code, Severity)> {
    replayer
        .diagnostics()
        .iter()
        .map(|d| (d.seq.get(), d.code, d.severity))
        .collect()
}

/// The one diagnostic with this `seq` and `code`; panics unless there is
/// exactly one.
fn the_diag(replayer: &Replayer, seq: u64, code: Code) -> Diagnostic {
    let found: Vec<&Diagnostic> = replayer
        .diagnostics()
        .iter()
        .filter(|d| d.seq == Seq::new(seq) && d.code == code)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one {code} at seq {seq}, got {:?}",
        replayer.diagnostics()
    );
    found[0].clone()
}

/// The effect of the event at `seq`.
fn effect(replayer: &Replayer, seq: u64) -> EventEffect {
    replayer.effects()[Seq::new(seq).index().expect("seq >= 1")]
}

fn messages(replayer: &Replayer) -> Value {
    replayer.conversation().to_json()
}

// ---------------------------------------------------------------------------
// Text messages (the protocol's text family, §9 closing paragraph)

#[test]
fn text_message_start_content_end_builds_an_assistant_message() {
    // §9: the engine reduces text messages as the protocol describes; role
    // defaults to assistant.
    let r = replay(&[
        run_started(),
        text_start("m1"),
        text_content("m1", "Hel"),
        text_content("m1", "lo"),
        text_end("m1"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "Hello"}])
    );
    for seq in 1..=6 {
        assert_eq!(effect(&r, seq).effect, Effect::Applied, "seq {seq}");
        assert_eq!(effect(&r, seq).activity, None, "seq {seq}");
    }
}

#[test]
fn text_content_without_start_is_fatal_not_started() {
    // §11 (corpus `content-without-start-fatal`, issue 11): content for a
    // message never opened is fatal, lifecycle.not-started, naming the id.
    let r = replay(&[
        run_started(),
        text_content("ghost", "boo"),
        text_end("ghost"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(2, Code::LifecycleNotStarted, Severity::Error)]
    );
    assert_eq!(r.diagnostics()[0].message_id.as_deref(), Some("ghost"));
    assert!(
        r.diagnostics()[0]
            .message
            .contains("No active text message found with ID 'ghost'"),
        "{}",
        r.diagnostics()[0].message
    );
    assert_eq!(effect(&r, 2).effect, Effect::Fatal);
    assert_eq!(effect(&r, 3).effect, Effect::NotApplied);
    assert_eq!(messages(&r), json!([]));
    // An end alone is fatal too.
    let r = replay(&[run_started(), text_end("ghost"), run_finished()]);
    assert_eq!(
        diags(&r),
        vec![(2, Code::LifecycleNotStarted, Severity::Error)]
    );
}

#[test]
fn text_content_after_end_is_fatal_not_started() {
    // §11 (issue 11): END closes the message; later content has no open
    // message to go to.
    let r = replay(&[
        run_started(),
        text_start("m1"),
        text_content("m1", "a"),
        text_end("m1"),
        text_content("m1", "b"),
        run_finished(),
    ]);
    assert_eq!(
        diags(&r),
        vec![(5, Code::LifecycleNotStarted, Severity::Error)]
    );
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "a"}])
    );
}

#[test]
fn text_start_for_an_open_message_is_fatal_and_a_closed_one_reopens() {
    // §11 (issue 11): a start while the message is open is fatal
    // (lifecycle.already-active) ...
    let r = replay(&[
        run_started(),
        text_start("m1"),
        text_content("m1", "first"),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "user"}),
        text_end("m1"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(4, Code::LifecycleAlreadyActive, Severity::Error)]
    );
    assert_eq!(effect(&r, 4).effect, Effect::Fatal);
    // ... and a start after the end reopens it: content appends (corpus
    // `reopen-closed-message-appends`).
    let r = replay(&[
        run_started(),
        text_start("m1"),
        text_content("m1", "first"),
        text_end("m1"),
        text_start("m1"),
        text_content("m1", " second"),
        text_end("m1"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "first second"}])
    );
}

// ---------------------------------------------------------------------------
// Tool calls

#[test]
fn tool_call_with_parent_appends_to_that_assistant_message() {
    // §9: TOOL_CALL_START with parentMessageId adds to the parent's toolCalls;
    // ARGS append to function.arguments; END closes.
    let r = replay(&[
        run_started(),
        text_start("m1"),
        text_content("m1", "Let me look"),
        text_end("m1"),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search",
               "parentMessageId": "m1"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"q\":"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"x\"}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "fetch",
               "parentMessageId": "m1"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c2"}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "Let me look", "toolCalls": [
            {"id": "c1", "type": "function",
             "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "fetch", "arguments": ""}},
        ]}])
    );
}

#[test]
fn tool_call_start_for_an_open_call_is_fatal_already_active() {
    // §11 (issue 11): a second start while the call is open.
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "g"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        run_finished(),
    ]);
    assert_eq!(
        diags(&r),
        vec![(3, Code::LifecycleAlreadyActive, Severity::Error)]
    );
    assert_eq!(
        messages(&r)[0]["toolCalls"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(
        messages(&r)[0]["toolCalls"][0]["function"]["name"],
        json!("f")
    );
    // A closed call's id started again is skipped (sequence.already-open).
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "g"}),
        run_finished(),
    ]);
    assert_eq!(
        diags(&r),
        vec![(4, Code::SequenceAlreadyOpen, Severity::Warning)]
    );
}

#[test]
fn id_less_tool_call_chunk_without_an_open_chunk_stream_is_fatal() {
    // §11 + chunk.missing-id (issue 11).
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_CHUNK", "delta": "{}"}),
        run_finished(),
    ]);
    assert_eq!(diags(&r), vec![(2, Code::ChunkMissingId, Severity::Error)]);
    assert_eq!(messages(&r), json!([]));
    // A first chunk without toolCallName is fatal too (chunk.missing-name).
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "delta": "{}"}),
        run_finished(),
    ]);
    assert_eq!(
        diags(&r),
        vec![(2, Code::ChunkMissingName, Severity::Error)]
    );
}

// ---------------------------------------------------------------------------
// Reasoning

// ---------------------------------------------------------------------------
// State (§9 closing paragraph; R11 applies to state)

#[test]
fn state_snapshot_replaces_the_state_whole() {
    // §9: STATE_SNAPSHOT replaces, it does not merge.
    let r = replay(&[
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1, "b": {"c": 2}}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"b": {"d": 3}}}),
        run_finished(),
    ]);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(r.state(), &json!({"b": {"d": 3}}));
    let r = replay(&[
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": [1, 2]}),
        run_finished(),
    ]);
    assert_eq!(r.state(), &json!([1, 2]));
}

#[test]
fn failing_state_delta_keeps_state_and_names_op_index_op_and_path() {
    // R11 for state: atomic; state.patch.failed names the failing operation.
    let r = replay(&[
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"b": 2}}),
        json!({"type": "STATE_DELTA", "delta": [
            {"op": "add", "path": "/c", "value": 3},
            {"op": "replace", "path": "/x/y", "value": 1}]}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(
        diags(&r),
        vec![(3, Code::StatePatchFailed, Severity::Warning)]
    );
    assert_eq!(effect(&r, 3).effect, Effect::Skipped);
    assert_eq!(r.state(), &json!({"b": 2}));
    let message = &r.diagnostics()[0].message;
    assert!(message.contains("op 1"), "{message}");
    assert!(message.contains("replace"), "{message}");
    assert!(message.contains("/x/y"), "{message}");
    assert!(message.contains("/x does not exist"), "{message}");
}

// ---------------------------------------------------------------------------
// Lifecycle (R60–R64)

#[test]
fn run_error_as_first_event_is_allowed() {
    // R60: the first event may be RUN_ERROR; the run is then ended.
    let r = replay(&[json!({"type": "RUN_ERROR", "message": "boom"})]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![], "no before-run, no truncation");
    assert_eq!(effect(&r, 1).effect, Effect::Applied);

    let r = replay(&[
        json!({"type": "RUN_ERROR", "message": "boom"}),
        run_started(),
        text_start("m1"),
        text_end("m1"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(messages(&r).as_array().map(Vec::len), Some(1));
}

#[test]
fn anything_but_run_started_after_run_error_is_fatal() {
    // R61: after RUN_ERROR only RUN_STARTED may follow.
    let r = replay(&[
        run_started(),
        json!({"type": "RUN_ERROR", "message": "boom"}),
        text_start("m1"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(3, Code::LifecycleAfterRun, Severity::Error)]
    );
    assert_eq!(effect(&r, 3).effect, Effect::Fatal);
    assert_eq!(effect(&r, 4).effect, Effect::NotApplied);
    assert_eq!(messages(&r), json!([]));

    // R61 amended (issue 11): a late RUN_ERROR is delivered and does not
    // fail the stream.
    let r = replay(&[
        json!({"type": "RUN_ERROR", "message": "a"}),
        json!({"type": "RUN_ERROR", "message": "b"}),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![]);

    // An activity event after RUN_ERROR is fatal, and marked on the timeline.
    let r = replay(&[
        run_started(),
        json!({"type": "RUN_ERROR", "message": "boom"}),
        snapshot("act-1", "t", json!({})),
    ]);
    assert_eq!(
        diags(&r),
        vec![(3, Code::LifecycleAfterRun, Severity::Error)]
    );
    assert_eq!(
        effect(&r, 3),
        EventEffect {
            effect: Effect::Fatal,
            activity: Some(ActivityChange::Fatal)
        }
    );
    assert_eq!(messages(&r), json!([]));
}

#[test]
fn run_finished_with_an_open_text_message_is_fatal() {
    // §11 (corpus `open-message-at-run-finished-fatal`, issue 11).
    let r = replay(&[
        run_started(),
        text_start("m1"),
        text_content("m1", "a"),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(4, Code::LifecycleOpenAtRunFinished, Severity::Error)]
    );
    assert!(
        r.diagnostics()[0]
            .message
            .contains("Cannot send 'RUN_FINISHED' while text messages are still active: 'm1'"),
        "{}",
        r.diagnostics()[0].message
    );
    // An open step is fatal too, as the reference client verifies ...
    let r = replay(&[
        run_started(),
        json!({"type": "STEP_STARTED", "stepName": "s"}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(3, Code::LifecycleOpenAtRunFinished, Severity::Error)]
    );
    // ... while an open reasoning phase is only noted (sequence.left-open).
    let r = replay(&[
        run_started(),
        json!({"type": "REASONING_START", "messageId": "p"}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![(3, Code::SequenceLeftOpen, Severity::Note)]);
}

#[test]
fn stream_truncated_only_when_no_fatal_error() {
    // R62: an open run at the end is truncated...
    let r = replay(&[run_started(), text_start("m1")]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(
        diags(&r),
        vec![(2, Code::StreamTruncated, Severity::Warning)]
    );

    // ...but a run failed by a fatal error is failed, not truncated.
    let r = replay(&[
        run_started(),
        json!({"type": "ACME_PING"}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-1", "activityType": "t",
               "content": []}),
        text_start("m1"),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![
            (2, Code::EventUnknownType, Severity::Warning),
            (3, Code::EventMalformed, Severity::Error),
        ]
    );

    // finish() runs once.
    let mut r = replay(&[run_started()]);
    r.finish();
    assert_eq!(
        diags(&r),
        vec![(1, Code::StreamTruncated, Severity::Warning)]
    );
}

#[test]
fn tagged_delta_from_another_subagent_in_a_later_run_is_not_fatal() {
    // R23 + R64: owners are forgotten at RUN_STARTED; the activity survives
    // into run 2 and the delta applies. The owner stays as minted (R6).
    let r = replay(&[
        run_started(),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-1", "activityType": "t",
               "content": {"n": 1}, "subagentRunId": "sub-1"}),
        run_finished(),
        run_started_as("r2"),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": "t",
               "patch": [{"op": "replace", "path": "/n", "value": 2}],
               "subagentRunId": "sub-2"}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(
        effect(&r, 5),
        EventEffect {
            effect: Effect::Applied,
            activity: Some(ActivityChange::DeltaApplied)
        }
    );
    assert_eq!(
        messages(&r),
        json!([{"id": "act-1", "role": "activity", "activityType": "t", "content": {"n": 2},
                "subagentRunId": "sub-1"}])
    );
}

#[test]
fn tagged_delta_from_another_subagent_in_the_same_run_is_fatal() {
    // R22 (contrast to the test above: the same events without a run boundary).
    let r = replay(&[
        run_started(),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-1", "activityType": "t",
               "content": {"n": 1}, "subagentRunId": "sub-1"}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": "t",
               "patch": [{"op": "replace", "path": "/n", "value": 2}],
               "subagentRunId": "sub-2"}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(3, Code::SubagentOwnerMismatch, Severity::Error)]
    );
    assert_eq!(messages(&r)[0]["content"], json!({"n": 1}));

    // A tagged delta on an activity the parent agent owns is a mismatch too.
    let r = replay(&[
        run_started(),
        snapshot("act-1", "t", json!({"n": 1})),
        json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": "t",
               "patch": [], "subagentRunId": "sub-1"}),
    ]);
    assert_eq!(
        diags(&r),
        vec![(3, Code::SubagentOwnerMismatch, Severity::Error)]
    );
}

// ---------------------------------------------------------------------------
// Fatal errors and best effort (R43)

fn fatal_then_more() -> Vec<Value> {
    vec![
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-1", "activityType": "t",
               "content": {"n": 1}, "subagentRunId": "sub-1"}),
        // 4: fatal (R22).
        json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": "t",
               "patch": [{"op": "replace", "path": "/n", "value": 9}],
               "subagentRunId": "sub-2"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 2}}),
        text_start("m1"),
        delta("nope", "t", json!([])),
        delta(
            "act-1",
            "t",
            json!([{"op": "replace", "path": "/n", "value": 3}]),
        ),
    ]
}

#[test]
fn after_a_fatal_error_later_events_are_not_applied() {
    // R43 without best effort.
    let r = replay(&fatal_then_more());
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        vec![(4, Code::SubagentOwnerMismatch, Severity::Error)],
        "no diagnostics for events not applied, no truncation"
    );
    assert_eq!(r.fatal().map(|d| d.seq), Some(Seq::new(4)));
    assert_eq!(
        effect(&r, 4),
        EventEffect {
            effect: Effect::Fatal,
            activity: Some(ActivityChange::Fatal)
        }
    );
    for seq in 5..=8 {
        assert_eq!(effect(&r, seq).effect, Effect::NotApplied, "seq {seq}");
    }
    assert_eq!(effect(&r, 5).activity, None);
    assert_eq!(effect(&r, 7).activity, Some(ActivityChange::NotApplied));
    assert_eq!(r.state(), &json!({"n": 1}));
    assert_eq!(
        messages(&r),
        json!([{"id": "act-1", "role": "activity", "activityType": "t", "content": {"n": 1},
                "subagentRunId": "sub-1"}])
    );
}

#[test]
fn best_effort_applies_later_events_and_reports_their_diagnostics() {
    // R43 with best effort: later events apply, diagnostics are reported,
    // the run is still failed.
    let r = replay_with(best_effort(), &fatal_then_more());
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(r.fatal().map(|d| d.seq), Some(Seq::new(4)));
    assert_eq!(effect(&r, 4).effect, Effect::Fatal);
    assert_eq!(effect(&r, 5).effect, Effect::Applied);
    assert_eq!(effect(&r, 6).effect, Effect::Applied);
    assert_eq!(
        effect(&r, 7),
        EventEffect {
            effect: Effect::Skipped,
            activity: Some(ActivityChange::DeltaSkipped)
        }
    );
    assert_eq!(
        effect(&r, 8),
        EventEffect {
            effect: Effect::Applied,
            activity: Some(ActivityChange::DeltaApplied)
        }
    );
    let serious: Vec<_> = diags(&r)
        .into_iter()
        .filter(|(_, _, s)| *s <= Severity::Warning)
        .collect();
    assert_eq!(
        serious[..2],
        [
            (4, Code::SubagentOwnerMismatch, Severity::Error),
            (7, Code::DeltaUnknownTarget, Severity::Warning),
        ]
    );
    assert_eq!(r.state(), &json!({"n": 2}));
    assert_eq!(
        messages(&r),
        json!([
            {"id": "act-1", "role": "activity", "activityType": "t", "content": {"n": 3},
             "subagentRunId": "sub-1"},
            {"id": "m1", "role": "assistant", "content": ""},
        ])
    );
}

#[test]
fn best_effort_applies_events_after_a_lifecycle_error() {
    // R43 + R61 with best effort: the event that broke the lifecycle is shown
    // applied so a user sees what would have followed.
    let r = replay_with(
        best_effort(),
        &[
            run_started(),
            run_finished(),
            text_start("m1"),
            text_content("m1", "late"),
            text_end("m1"),
        ],
    );
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        r.diagnostics()[0].code,
        Code::LifecycleAfterRun,
        "{:?}",
        r.diagnostics()
    );
    assert_eq!(r.diagnostics()[0].seq, Seq::new(3));
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "late"}])
    );
}

// ---------------------------------------------------------------------------
// Malformed input through the engine (R41, R42)

#[test]
fn unparseable_text_is_fatal() {
    // R41.
    for raw in [
        &b"not json"[..],
        b"[1, 2]",
        b"{\"type\": 5}",
        b"{\"no\": \"type\"}",
        b"\xff\xfe",
    ] {
        let mut r = Replayer::new(spec());
        r.apply_bytes(run_started().to_string().as_bytes());
        let e = r.apply_bytes(raw);
        r.apply_bytes(run_finished().to_string().as_bytes());
        r.finish();
        let shown = String::from_utf8_lossy(raw);
        assert_eq!(
            e,
            EventEffect {
                effect: Effect::Fatal,
                activity: None
            },
            "{shown}"
        );
        assert_eq!(r.outcome(), Outcome::Failed, "{shown}");
        assert_eq!(
            diags(&r),
            vec![(2, Code::EventUnparseable, Severity::Error)],
            "{shown}"
        );
        assert_eq!(effect(&r, 3).effect, Effect::NotApplied, "{shown}");
    }
}

// ---------------------------------------------------------------------------
// Run input (R50, §1 step 0)

#[test]
fn run_started_input_with_an_activity_message_warns() {
    // R50: RUN_STARTED.input must not carry activity messages.
    let r = replay(&[
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "input": {
            "messages": [
                {"id": "u1", "role": "user", "content": "hi"},
                {"id": "act-9", "role": "activity", "activityType": "t", "content": {}}]}}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(
        diags(&r),
        vec![(1, Code::InputActivityMessage, Severity::Warning)]
    );
    assert_eq!(r.diagnostics()[0].message_id.as_deref(), Some("act-9"));
    assert_eq!(effect(&r, 1).effect, Effect::Applied);

    // Without an activity message, nothing to report.
    let r = replay(&[
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "input": {
            "messages": [{"id": "u1", "role": "user", "content": "hi"}]}}),
        run_finished(),
    ]);
    assert_eq!(diags(&r), vec![]);
}

#[test]
fn with_run_input_seeds_step_zero_messages_and_state() {
    // §1: step 0 is the recorded run input's messages and state; its tool
    // calls are known to later events.
    let input = json!({
        "threadId": "t1",
        "runId": "r1",
        "messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "content": "", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        ],
        "state": {"n": 1},
    });
    let mut r = Replayer::with_run_input(spec(), &input);
    assert_eq!(r.step(), Seq::START);
    assert_eq!(messages(&r), input["messages"]);
    assert_eq!(r.state(), &json!({"n": 1}));
    assert_eq!(diags(&r), vec![]);

    for event in [
        run_started(),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "ok"}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}),
        run_finished(),
    ] {
        r.apply_bytes(event.to_string().as_bytes());
    }
    r.finish();
    assert_eq!(diags(&r), vec![], "c1 is known from the run input");
    assert_eq!(r.state(), &json!({"n": 2}));
    assert_eq!(
        messages(&r)[2],
        json!({"id": "t1", "role": "tool", "content": "ok", "toolCallId": "c1"})
    );
}

#[test]
fn with_run_input_reports_an_activity_message_at_step_zero_and_keeps_it() {
    // R50: kept as sent, reported on seq 0.
    let input = json!({"messages": [
        {"id": "act-1", "role": "activity", "activityType": "t", "content": {"a": 1}}]});
    let r = Replayer::with_run_input(spec(), &input);
    assert_eq!(
        diags(&r),
        vec![(0, Code::InputActivityMessage, Severity::Warning)]
    );
    assert_eq!(messages(&r), input["messages"]);
}

// ---------------------------------------------------------------------------
// MESSAGES_SNAPSHOT (R51)

/// Two activities of types `a` and `b` and a user message, then a
/// `MESSAGES_SNAPSHOT` with `metadata` holding only the user message.
fn authoritative_stream(authoritative: Value) -> Vec<Value> {
    vec![
        run_started(),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "u1", "role": "user"}),
        text_end("u1"),
        snapshot("act-a", "a", json!({"x": 1})),
        snapshot("act-b", "b", json!({"y": 2})),
        json!({"type": "MESSAGES_SNAPSHOT",
               "messages": [{"id": "u1", "role": "user", "content": "q"}],
               "metadata": {"@ag-ui/client": {"authoritativeActivityTypes": authoritative}}}),
        run_finished(),
    ]
}

fn ids(replayer: &Replayer) -> Vec<String> {
    replayer
        .conversation()
        .iter()
        .map(|m| m.id().to_owned())
        .collect()
}

#[test]
fn client_profile_authoritative_null_drops_all_absent_activities() {
    // §10: `null` = the snapshot owns all activity types, even with no
    // activity message in it.
    let r = replay_with(client(), &authoritative_stream(Value::Null));
    assert_eq!(r.outcome(), Outcome::Ok);
    // E20 (issue 17): `u1` was streamed empty and the snapshot says "q":
    // changed without a delta (issue 39).
    assert_eq!(
        diags(&r),
        vec![(6, Code::MessagesDriftUnstreamed, Severity::Info)]
    );
    assert_eq!(ids(&r), ["u1"]);
    assert_eq!(
        messages(&r),
        json!([{"id": "u1", "role": "user", "content": "q"}])
    );
}

#[test]
fn client_profile_authoritative_types_drop_only_those_types() {
    // §10: a string array = only those activity types may be dropped.
    let r = replay_with(client(), &authoritative_stream(json!(["a"])));
    assert_eq!(ids(&r), ["u1", "act-b"]);
    let r = replay_with(client(), &authoritative_stream(json!(["b", "zzz"])));
    assert_eq!(ids(&r), ["u1", "act-a"]);
    let r = replay_with(client(), &authoritative_stream(json!([])));
    assert_eq!(ids(&r), ["u1", "act-a", "act-b"]);
}

#[test]
fn client_profile_authoritative_types_override_the_complete_set_rule() {
    // §10 vs R51: with an array, an activity in the snapshot does not make it
    // the complete set; only the listed types may be dropped.
    let r = replay_with(
        client(),
        &[
            run_started(),
            snapshot("act-a", "a", json!({})),
            snapshot("act-b", "b", json!({})),
            json!({"type": "MESSAGES_SNAPSHOT",
                   "messages": [{"id": "act-c", "role": "activity", "activityType": "c",
                                 "content": {}}],
                   "metadata": {"@ag-ui/client": {"authoritativeActivityTypes": ["a"]}}}),
            run_finished(),
        ],
    );
    assert_eq!(ids(&r), ["act-b", "act-c"]);
}

#[test]
fn spec_profile_ignores_authoritative_activity_types() {
    // §10 + R30/R51: under `spec` snapshot metadata lands nowhere.
    for authoritative in [Value::Null, json!(["a"]), json!(["a", "b"])] {
        let r = replay_with(spec(), &authoritative_stream(authoritative.clone()));
        // E20 (issue 17): `u1` was streamed empty and the snapshot says "q":
        // changed without a delta (issue 39).
        assert_eq!(
            diags(&r),
            vec![(6, Code::MessagesDriftUnstreamed, Severity::Info)],
            "{authoritative}"
        );
        assert_eq!(ids(&r), ["u1", "act-a", "act-b"], "{authoritative}");
    }
}

// ---------------------------------------------------------------------------
// Profiles (§10)

#[test]
fn client_profile_reports_unknown_target_delta_as_a_note() {
    // R12 under ag-ui-client-1.0: skipped, a note (not a warning).
    let events = [
        run_started(),
        delta(
            "nope",
            "t",
            json!([{"op": "add", "path": "/a", "value": 1}]),
        ),
        run_finished(),
    ];
    let r = replay_with(client(), &events);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(
        diags(&r),
        vec![(2, Code::DeltaUnknownTarget, Severity::Note)]
    );
    assert_eq!(
        effect(&r, 2),
        EventEffect {
            effect: Effect::Skipped,
            activity: Some(ActivityChange::DeltaSkipped)
        }
    );
    assert_eq!(messages(&r), json!([]));
    // The same events under spec: a warning.
    let r = replay(&events);
    assert_eq!(
        diags(&r),
        vec![(2, Code::DeltaUnknownTarget, Severity::Warning)]
    );
}

#[test]
fn client_profile_replace_false_snapshot_on_a_text_id_changes_nothing() {
    // R9 under ag-ui-client-1.0 with replace: false: nothing happens.
    let r = replay_with(
        client(),
        &[
            run_started(),
            text_start("m1"),
            text_content("m1", "hello"),
            text_end("m1"),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "m1", "activityType": "t",
                   "content": {"a": 1}, "replace": false, "metadata": {"k": 1}}),
            run_finished(),
        ],
    );
    assert_eq!(r.outcome(), Outcome::Ok);
    assert!(
        diags(&r).iter().all(|(_, _, s)| *s > Severity::Warning),
        "no warning or error: {:?}",
        r.diagnostics()
    );
    assert_eq!(
        effect(&r, 5).activity,
        Some(ActivityChange::SnapshotSkipped)
    );
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "hello"}])
    );
}

// ---------------------------------------------------------------------------
// Patch failures (R14, R17)

#[test]
fn activity_patch_failed_names_index_op_path_and_reason() {
    // R14: the text names the failing operation's index, op, path and reason;
    // the diagnostic's path is /patch/<index>.
    let r = replay(&[
        run_started(),
        snapshot("act-1", "t", json!({"q": "x"})),
        // D3: a retyping delta whose patch fails leaves the type too.
        delta(
            "act-1",
            "t-new",
            json!([{"op": "replace", "path": "/q", "value": "y"},
                   {"op": "test", "path": "/q", "value": "z"}]),
        ),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), vec![(3, Code::PatchFailed, Severity::Warning)]);
    let d = the_diag(&r, 3, Code::PatchFailed);
    assert_eq!(d.path.as_deref(), Some("/patch/1"));
    assert_eq!(d.message_id.as_deref(), Some("act-1"));
    assert!(d.message.starts_with("op 1 (test /q): "), "{}", d.message);
    assert!(d.message.contains("expected \"z\""), "{}", d.message);
    assert!(
        d.message.contains("found \"y\""),
        "the reason sees the document as op 1 did: {}",
        d.message
    );
    assert_eq!(
        messages(&r),
        json!([{"id": "act-1", "role": "activity", "activityType": "t", "content": {"q": "x"}}])
    );
}

// ---------------------------------------------------------------------------
// The per-activity timeline (ActivityChange)

// ---------------------------------------------------------------------------
// Issue 11: the reference client's THINKING_* compatibility boundary

#[test]
fn client_profile_translates_retired_thinking_events_and_spec_drops_them() {
    // §10, §11 (corpus `era-0-0-45-thinking-translated`): ag-ui-client-1.0
    // translates THINKING_* into reasoning with a warning; spec drops them
    // as unknown types (R42).
    let events = [
        run_started(),
        json!({"type": "THINKING_START", "title": "Working"}),
        json!({"type": "THINKING_TEXT_MESSAGE_START"}),
        json!({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "Let me "}),
        json!({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "check."}),
        json!({"type": "THINKING_TEXT_MESSAGE_END"}),
        json!({"type": "THINKING_END"}),
        run_finished(),
    ];
    let translated = replay_with(client(), &events);
    assert_eq!(translated.outcome(), Outcome::Ok);
    assert_eq!(
        messages(&translated),
        json!([{"id": "thinking-3", "role": "reasoning", "content": "Let me check."}])
    );
    assert!(
        translated
            .diagnostics()
            .iter()
            .all(|d| d.code == Code::EventLegacyTranslated && d.severity == Severity::Warning)
    );
    assert!(
        translated.diagnostics()[0]
            .message
            .contains("THINKING_START")
    );
    let spec = replay(&events);
    assert_eq!(messages(&spec), json!([]));
    assert_eq!(
        diags(&spec)
            .iter()
            .filter(|(_, code, _)| *code == Code::EventUnknownType)
            .count(),
        6
    );
    // Before any run, a translated event is as fatal as its modern shape.
    let early = replay_with(client(), &[json!({"type": "THINKING_START"})]);
    assert_eq!(early.outcome(), Outcome::Failed);
}

// ---------------------------------------------------------------------------
// Issue 11: what the corpus asserts beyond its visible fixtures

#[test]
fn metadata_lands_on_tool_calls_and_tool_messages() {
    // R30 amended: metadata of the events that build a tool call lands on
    // the call; a tool result's lands on its tool message.
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f",
               "metadata": {"a": 1, "trace": ["x", "y"]}}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}",
               "metadata": {"trace": ["z"]}}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1", "metadata": {"b": null}}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
               "content": "ok", "metadata": {"m": 1}}),
        run_finished(),
    ]);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(
        messages(&r)[0]["toolCalls"][0]["metadata"],
        json!({"a": 1, "trace": ["z"], "b": null})
    );
    assert_eq!(messages(&r)[1]["metadata"], json!({"m": 1}));
}

#[test]
fn tool_result_content_parts_are_kept_and_an_unknown_part_is_stripped() {
    // §11 (`tool-result-parts-mint-tool-message`): parts arrive unchanged;
    // an unknown part type is stripped with a warning naming its path.
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
               "content": [{"type": "text", "text": "a"}, {"type": "hologram"},
                           {"type": "document", "source": {"type": "url", "value": "u"}}]}),
        run_finished(),
    ]);
    assert_eq!(r.outcome(), Outcome::Ok);
    let warnings: Vec<&Diagnostic> = r
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].code, Code::EventUnknownVariant);
    assert_eq!(warnings[0].path.as_deref(), Some("/content/1"));
    assert_eq!(
        messages(&r)[0]["content"],
        json!([{"type": "text", "text": "a"},
               {"type": "document", "source": {"type": "url", "value": "u"}}])
    );
    // Content that is neither text nor parts is malformed.
    let r = replay(&[
        run_started(),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": 5}),
    ]);
    assert_eq!(diags(&r), vec![(2, Code::EventMalformed, Severity::Error)]);
}

#[test]
fn encrypted_value_type_is_known_in_1_1_and_stripped_by_a_1_0_consumer() {
    // R42 amended, §11: `encryptedValueType` is 1.1 material.
    let events = [
        run_started(),
        text_start("m1"),
        text_end("m1"),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "m1",
               "encryptedValue": "zz", "encryptedValueType": "opaque"}),
        run_finished(),
    ];
    let r = replay(&events);
    assert_eq!(diags(&r), vec![]);
    assert_eq!(messages(&r)[0]["encryptedValueType"], json!("opaque"));
    let old = replay_with(
        Options {
            protocol: agui_replay::protocol::ProtocolVersion::V1_0,
            ..Options::default()
        },
        &events,
    );
    assert_eq!(
        diags(&old),
        vec![(4, Code::EventUnknownProperty, Severity::Warning)]
    );
    assert_eq!(
        old.diagnostics()[0].path.as_deref(),
        Some("/encryptedValueType")
    );
    assert_eq!(messages(&old)[0].get("encryptedValueType"), None);
    // The client profile is a 1.0 consumer whatever the setting says.
    let client = replay_with(client(), &events);
    assert_eq!(messages(&client)[0].get("encryptedValueType"), None);
}

#[test]
fn version_declarations_are_judged_against_the_consumer() {
    // §11: older or equal is quiet, not a version warns, not a string is
    // malformed (a known member, R40).
    let declare = |version: Value| {
        replay(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r",
                   "protocolVersion": version}),
            run_finished(),
        ])
    };
    assert_eq!(diags(&declare(json!("1.0"))), vec![]);
    assert_eq!(diags(&declare(json!("1.1"))), vec![]);
    let r = declare(json!("one point one"));
    assert_eq!(
        diags(&r),
        vec![(1, Code::ProtocolVersionUninterpretable, Severity::Warning)]
    );
    assert!(r.diagnostics()[0].message.contains("cannot interpret"));
    assert_eq!(
        diags(&declare(json!(1.1))),
        vec![(1, Code::EventMalformed, Severity::Error)]
    );
}

#[test]
fn text_continuations_keep_their_openers_subagent() {
    // §11 (`subagent-attribution-mismatch-fatal`) for text: a continuation
    // tagged with another subagent is fatal; the message carries its
    // opener's subagentRunId.
    let r = replay(&[
        run_started(),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "subagentRunId": "s1"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "a"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "b",
               "subagentRunId": "s2"}),
    ]);
    assert_eq!(
        diags(&r),
        vec![(4, Code::SubagentAttributionMismatch, Severity::Error)]
    );
    assert!(r.diagnostics()[0].message.contains("does not match"));
    assert_eq!(
        messages(&r),
        json!([{"id": "m1", "role": "assistant", "content": "a", "subagentRunId": "s1"}])
    );
}

// ---------------------------------------------------------------------------
// The table: one row a rule (issue 16). A row is a stream, the options it is
// replayed with (the spec profile unless it says), and what the replay must
// say of it: the outcome, every diagnostic `(seq, code, severity)`, the
// final messages, and then any other assertion on the replayer `r`. Each row
// is a test named after what it pins; the rows' docs cite the rules.

macro_rules! rule_table {
    ($(
        $(#[doc = $doc:expr])*
        $name:ident {
            $(options: $options:expr,)?
            events: [$($event:expr),* $(,)?],
            $(outcome: $outcome:ident,)?
            $(diags: [$($diag:expr),* $(,)?],)?
            $(messages: $messages:expr,)?
            $(then: |$r:ident| $then:block,)?
        }
    )*) => {$(
        $(#[doc = $doc])*
        #[test]
        fn $name() {
            let replayer = replay_with(rule_table!(@options $($options)?), &[$($event),*]);
            $(assert_eq!(replayer.outcome(), Outcome::$outcome, "outcome");)?
            $(assert_eq!(diags(&replayer), vec![$($diag),*], "diagnostics");)?
            $(assert_eq!(messages(&replayer), $messages, "messages");)?
            $(let $r = replayer; $then)?
        }
    )*};
    (@options) => { spec() };
    (@options $options:expr) => { $options };
}

rule_table! {
    /// §9: TEXT_MESSAGE_START.role is honoured when given.
    text_message_start_honours_user_system_developer_roles {
        events: [
            run_started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}),
            text_end("u"),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "s", "role": "system"}),
            text_content("s", "be brief"),
            text_end("s"),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "d", "role": "developer"}),
            text_end("d"),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"}),
            text_end("a"),
            run_finished(),
        ],
        diags: [],
        messages: json!([
                {"id": "u", "role": "user", "content": ""},
                {"id": "s", "role": "system", "content": "be brief"},
                {"id": "d", "role": "developer", "content": ""},
                {"id": "a", "role": "assistant", "content": ""},
            ]),
    }

    /// §9 + text.empty-delta (ours): applied as a no-op, noted.
    empty_text_delta_is_a_note_and_a_no_op {
        events: [
            run_started(),
            text_start("m1"),
            text_content("m1", "x"),
            text_content("m1", ""),
            text_end("m1"),
            run_finished(),
        ],
        outcome: Ok,
        diags: [(4, Code::EmptyDelta, Severity::Note)],
        messages: json!([{"id": "m1", "role": "assistant", "content": "x"}]),
        then: |r| {
            assert_eq!(effect(&r, 4).effect, Effect::Applied);
        },
    }

    /// §9: TEXT_MESSAGE_CHUNK is start + content + end in one event.
    text_chunk_opens_from_message_id_and_id_less_chunks_continue_it {
        events: [
            run_started(),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "user", "delta": "Hel"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "!"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "next"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": " one"}),
            run_finished(),
        ],
        outcome: Ok,
        diags: [],
        messages: json!([
                {"id": "m1", "role": "user", "content": "Hello!"},
                {"id": "m2", "role": "assistant", "content": "next one"},
            ]),
    }

    /// §11 + chunk.missing-id (issue 11): STEP_STARTED ends the chunk
    /// stream, so a later chunk without messageId has nothing to continue:
    /// fatal, as the corpus's `custom-closes-chunk-stream-fatal` says.
    a_non_chunk_event_closes_the_chunk_stream {
        events: [
            run_started(),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "b"}),
            json!({"type": "STEP_STARTED", "stepName": "s"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "c"}),
            json!({"type": "STEP_FINISHED", "stepName": "s"}),
            run_finished(),
        ],
        outcome: Failed,
        diags: [(5, Code::ChunkMissingId, Severity::Error)],
        messages: json!([{"id": "m1", "role": "assistant", "content": "ab"}]),
        then: |r| {
            assert!(
                r.diagnostics()[0]
                    .message
                    .contains("First TEXT_MESSAGE_CHUNK must have a messageId")
            );
            assert_eq!(effect(&r, 5).effect, Effect::Fatal);
        },
    }

    /// R63: activity events do not close an open *_CHUNK stream.
    activity_events_do_not_close_an_open_text_chunk_stream {
        events: [
            run_started(),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a"}),
            snapshot("act-1", "t", json!({"n": 1})),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "b"}),
            delta(
                "act-1",
                "t",
                json!([{"op": "replace", "path": "/n", "value": 2}]),
            ),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "c"}),
            run_finished(),
        ],
        outcome: Ok,
        diags: [],
        messages: json!([
                {"id": "m1", "role": "assistant", "content": "abc"},
                {"id": "act-1", "role": "activity", "activityType": "t", "content": {"n": 2}},
            ]),
    }

    /// R63, for TOOL_CALL_CHUNK.
    activity_events_do_not_close_an_open_tool_call_chunk_stream {
        events: [
            run_started(),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{"}),
            snapshot("act-1", "t", json!({})),
            json!({"type": "TOOL_CALL_CHUNK", "delta": "}"}),
            run_finished(),
        ],
        diags: [],
        messages: json!([
                {"id": "c1", "role": "assistant", "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"id": "act-1", "role": "activity", "activityType": "t", "content": {}},
            ]),
    }

    /// R42: an unknown member on a known event is stripped, the warning names it.
    unknown_member_on_a_text_event_is_stripped_with_a_warning_naming_it {
        events: [
            run_started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "acmeColour": "red"}),
            text_end("m1"),
            run_finished(),
        ],
        outcome: Ok,
        diags: [(2, Code::EventUnknownProperty, Severity::Warning)],
        messages: json!([{"id": "m1", "role": "assistant", "content": ""}]),
        then: |r| {
            let d = &r.diagnostics()[0];
            assert_eq!(d.path.as_deref(), Some("/acmeColour"));
            assert!(d.message.contains("acmeColour"), "{}", d.message);
            assert_eq!(effect(&r, 2).effect, Effect::Applied);
        },
    }

    /// §9: no parentMessageId: a new assistant message with id = toolCallId.
    tool_call_without_parent_creates_an_assistant_message_named_after_the_call {
        events: [
            run_started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            run_finished(),
        ],
        diags: [],
        messages: json!([{"id": "c1", "role": "assistant", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]}]),
    }

    /// §11 (issue 11): arguments for a closed tool call are fatal.
    tool_call_args_after_end_are_fatal_not_started {
        events: [
            run_started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "extra"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            run_finished(),
        ],
        outcome: Failed,
        diags: [(5, Code::LifecycleNotStarted, Severity::Error)],
        then: |r| {
            assert!(
                r.diagnostics()[0]
                    .message
                    .contains("No active tool call found with ID 'c1'")
            );
            assert_eq!(effect(&r, 5).effect, Effect::Fatal);
            assert_eq!(
                messages(&r)[0]["toolCalls"][0]["function"]["arguments"],
                json!("{}")
            );
        },
    }

    /// §9: TOOL_CALL_RESULT appends {id, role: "tool", content, toolCallId}.
    tool_call_result_appends_a_tool_message {
        events: [
            run_started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
                   "content": "42", "role": "tool"}),
            run_finished(),
        ],
        diags: [],
        then: |r| {
            assert_eq!(
                messages(&r)[1],
                json!({"id": "t1", "role": "tool", "content": "42", "toolCallId": "c1"})
            );
            assert_eq!(messages(&r).as_array().map(Vec::len), Some(2));
        },
    }

    /// §9 + reference.unknown (ours): a note, the tool message is kept as sent.
    tool_call_result_for_an_unknown_call_is_a_note_and_still_applied {
        events: [
            run_started(),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "nope",
                   "content": "?"}),
            run_finished(),
        ],
        outcome: Ok,
        diags: [(2, Code::UnknownReference, Severity::Note)],
        messages: json!([{"id": "t1", "role": "tool", "content": "?", "toolCallId": "nope"}]),
        then: |r| {
            assert!(
                r.diagnostics()[0].message.contains("nope"),
                "{}",
                r.diagnostics()[0].message
            );
        },
    }

    /// §9: TOOL_CALL_CHUNK starts a call from toolCallId + toolCallName and
    /// later id-less chunks append arguments.
    tool_call_chunks_stream_a_call {
        events: [
            run_started(),
            text_start("m1"),
            text_end("m1"),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f",
                   "parentMessageId": "m1", "delta": "{\"a\""}),
            json!({"type": "TOOL_CALL_CHUNK", "delta": ":1"}),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "delta": "}"}),
            run_finished(),
        ],
        outcome: Ok,
        diags: [],
        messages: json!([{"id": "m1", "role": "assistant", "content": "", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}}]}]),
    }

    /// §9: REASONING_MESSAGE_* build {id, role: "reasoning", content}.
    reasoning_message_start_content_end_builds_a_reasoning_message {
        events: [
            run_started(),
            json!({"type": "REASONING_START", "messageId": "phase"}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "think"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "ing"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "r1"}),
            json!({"type": "REASONING_END", "messageId": "phase"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "late"}),
            run_finished(),
        ],
        diags: [(8, Code::LifecycleNotStarted, Severity::Error)],
        messages: json!([{"id": "r1", "role": "reasoning", "content": "thinking"}]),
        then: |r| {
            // §11 (issue 11): a reasoning message is bracketed like any other.
            assert_eq!(r.outcome(), Outcome::Failed);
        },
    }

    /// §9: REASONING_ENCRYPTED_VALUE sets encryptedValue on its entity.
    reasoning_encrypted_value_lands_on_the_message_or_the_tool_call {
        events: [
            run_started(),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "r1"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "x"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "r1"}),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "r1",
                   "encryptedValue": "enc-msg"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "c1",
                   "encryptedValue": "enc-call"}),
            run_finished(),
        ],
        diags: [],
        messages: json!([
                {"id": "r1", "role": "reasoning", "content": "x", "encryptedValue": "enc-msg"},
                {"id": "c1", "role": "assistant", "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""},
                     "encryptedValue": "enc-call"}]},
            ]),
    }

    /// §9 + reference.unknown (ours).
    reasoning_encrypted_value_for_an_unknown_entity_is_a_note {
        events: [
            run_started(),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "ghost",
                   "encryptedValue": "e"}),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "ghost-call",
                   "encryptedValue": "e"}),
            run_finished(),
        ],
        outcome: Ok,
        diags: [(2, Code::UnknownReference, Severity::Note),
                (3, Code::UnknownReference, Severity::Note),],
        messages: json!([]),
        then: |r| {
            assert_eq!(r.diagnostics()[0].message_id.as_deref(), Some("ghost"));
            assert_eq!(r.diagnostics()[1].message_id.as_deref(), Some("ghost-call"));
        },
    }

    /// §9: the starting state is {}.
    state_delta_before_any_snapshot_applies_to_an_empty_object {
        events: [
            run_started(),
            json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]}),
            run_finished(),
        ],
        diags: [],
        then: |r| {
            assert_eq!(r.state(), &json!({"a": 1}));
        },
    }

    /// lifecycle.run-overlap (ours): fatal.
    run_started_while_a_run_is_open_is_fatal_overlap {
        events: [run_started(), run_started_as("r2"), run_finished()],
        outcome: Failed,
        diags: [(2, Code::LifecycleRunOverlap, Severity::Error)],
        then: |r| {
            assert_eq!(effect(&r, 2).effect, Effect::Fatal);
            assert_eq!(effect(&r, 3).effect, Effect::NotApplied);
            assert_eq!(r.fatal().map(|d| d.seq), Some(Seq::new(2)));
        },
    }

    /// R42.
    unknown_event_type_is_dropped_with_a_warning {
        events: [
            run_started(),
            json!({"type": "ACME_PING", "n": 1}),
            json!({"type": "THINKING_START"}),
            run_finished(),
        ],
        outcome: Ok,
        diags: [(2, Code::EventUnknownType, Severity::Warning),
                (3, Code::EventUnknownType, Severity::Warning),],
        then: |r| {
            assert!(r.diagnostics()[0].message.contains("ACME_PING"));
            assert_eq!(effect(&r, 2).effect, Effect::Dropped);
            assert_eq!(effect(&r, 3).effect, Effect::Dropped);
            assert_eq!(effect(&r, 4).effect, Effect::Applied);
        },
    }

    /// R51: replaced in place, new ones appended in snapshot order, absent
    /// non-activity messages dropped except reasoning messages.
    messages_snapshot_keeps_positions_keeps_reasoning_and_drops_absent_others {
        events: [
            run_started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u1", "role": "user"}),
            text_content("u1", "q"),
            text_end("u1"),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "r1"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "hmm"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "r1"}),
            text_start("m1"),
            text_content("m1", "old"),
            text_end("m1"),
            text_start("x1"),
            text_end("x1"),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "m1", "role": "assistant", "content": "new"},
                {"id": "n1", "role": "user", "content": "follow-up"},
                {"id": "u1", "role": "user", "content": "q (edited)"},
                {"id": "n2", "role": "assistant", "content": "answer"}]}),
            run_finished(),
        ],
        outcome: Ok,
        // E20 (issue 17): the snapshot replaces the streamed `u1` and `m1`
        // with other texts: drift, in snapshot order.
        diags: [(13, Code::MessagesDrift, Severity::Info), (13, Code::MessagesDrift, Severity::Info)],
        messages: json!([
                {"id": "u1", "role": "user", "content": "q (edited)"},
                {"id": "r1", "role": "reasoning", "content": "hmm"},
                {"id": "m1", "role": "assistant", "content": "new"},
                {"id": "n1", "role": "user", "content": "follow-up"},
                {"id": "n2", "role": "assistant", "content": "answer"},
            ]),
    }

    /// R17 + R14: an operation dropped for an unknown op keeps its place in
    /// the numbering of the patch as sent.
    failing_op_index_counts_dropped_unknown_ops {
        events: [
            run_started(),
            snapshot("act-1", "t", json!({"a": 1})),
            delta(
                "act-1",
                "t",
                json!([{"op": "frob", "path": "/a"},
                       {"op": "replace", "path": "/a", "value": 2},
                       {"op": "remove", "path": "/missing"}]),
            ),
            run_finished(),
        ],
        diags: [(3, Code::PatchOpUnknown, Severity::Warning),
                (3, Code::PatchFailed, Severity::Warning),],
        then: |r| {
            assert_eq!(r.diagnostics()[0].path.as_deref(), Some("/patch/0"));
            let d = the_diag(&r, 3, Code::PatchFailed);
            assert_eq!(d.path.as_deref(), Some("/patch/2"));
            assert!(
                d.message.starts_with("op 2 (remove /missing): "),
                "{}",
                d.message
            );
            assert!(
                d.message.contains("/missing does not exist"),
                "{}",
                d.message
            );
            assert_eq!(messages(&r)[0]["content"], json!({"a": 1}), "R11 atomic");
        },
    }

    /// R2, R3, R4, R9, R10, R12, R14, R22, R43 on the timeline.
    effects_record_what_each_event_did_to_its_activity {
        events: [
            run_started(),                           // 1
            snapshot("act-1", "t", json!({"n": 1})), // 2 Created
            snapshot("act-1", "t", json!({"n": 2})), // 3 Replaced
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-1", "activityType": "t",
                   "content": {"n": 99}, "replace": false}), // 4 Declined
            delta(
                "act-1",
                "t",
                json!([{"op": "replace", "path": "/n", "value": 3}]),
            ), // 5 DeltaApplied
            delta("act-1", "t2", json!([])),         // 6 Retyped
            delta("nope", "t", json!([])),           // 7 DeltaSkipped
            delta("act-1", "t2", json!([{"op": "remove", "path": "/zzz"}])), // 8 PatchFailed
            text_start("m1"),                        // 9
            snapshot("m1", "t", json!({})),          // 10 SnapshotSkipped
            delta("m1", "t", json!([])),             // 11 DeltaSkipped (R13)
            json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": "t2",
                   "patch": [], "subagentRunId": "intruder"}), // 12 Fatal (R22)
            snapshot("act-2", "t", json!({})),       // 13 not applied (R43)
            run_finished(),                          // 14 not applied
        ],
        diags: [(4, Code::SnapshotDeclined, Severity::Info),
                (6, Code::DeltaRetyped, Severity::Info),
                (7, Code::DeltaUnknownTarget, Severity::Warning),
                (8, Code::PatchFailed, Severity::Warning),
                (10, Code::SnapshotIdCollision, Severity::Warning),
                (11, Code::DeltaNotActivity, Severity::Warning),
                (12, Code::SubagentOwnerMismatch, Severity::Error),],
        messages: json!([
                {"id": "act-1", "role": "activity", "activityType": "t2", "content": {"n": 3}},
                {"id": "m1", "role": "assistant", "content": ""},
            ]),
        then: |r| {
            use ActivityChange as C;
            let expected: [(Effect, Option<ActivityChange>); 14] = [
                (Effect::Applied, None),
                (Effect::Applied, Some(C::Created)),
                (Effect::Applied, Some(C::Replaced)),
                (Effect::Applied, Some(C::Declined)),
                (Effect::Applied, Some(C::DeltaApplied)),
                (Effect::Applied, Some(C::Retyped)),
                (Effect::Skipped, Some(C::DeltaSkipped)),
                (Effect::Skipped, Some(C::PatchFailed)),
                (Effect::Applied, None),
                (Effect::Skipped, Some(C::SnapshotSkipped)),
                (Effect::Skipped, Some(C::DeltaSkipped)),
                (Effect::Fatal, Some(C::Fatal)),
                (Effect::NotApplied, Some(C::NotApplied)),
                (Effect::NotApplied, None),
            ];
            let observed: Vec<(Effect, Option<ActivityChange>)> =
                r.effects().iter().map(|e| (e.effect, e.activity)).collect();
            assert_eq!(observed, expected);
        },
    }

    /// R40: fatal, and the timeline marks the activity event Fatal.
    a_malformed_activity_event_is_fatal_on_the_timeline {
        events: [
            run_started(),
            json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "patch": []}),
            run_finished(),
        ],
        outcome: Failed,
        diags: [(2, Code::EventMalformed, Severity::Error)],
        then: |r| {
            assert_eq!(r.diagnostics()[0].path.as_deref(), Some("/activityType"));
            assert_eq!(
                effect(&r, 2),
                EventEffect {
                    effect: Effect::Fatal,
                    activity: Some(ActivityChange::Fatal)
                }
            );
            assert_eq!(
                effect(&r, 3),
                EventEffect {
                    effect: Effect::NotApplied,
                    activity: None
                }
            );
        },
    }

    /// §11 (issue 11): a subagent started in the run must finish first.
    run_finished_with_an_active_subagent_is_fatal {
        events: [
            run_started(),
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n"}),
            run_finished(),
        ],
        diags: [(3, Code::LifecycleOpenAtRunFinished, Severity::Error)],
        then: |r| {
            assert!(r.diagnostics()[0].message.contains("'s1'"));
        },
    }

    /// §11 (`chunk-repeat-identical-accepted` and its converse).
    a_tool_call_chunk_naming_another_tool_is_a_chunk_conflict {
        events: [
            run_started(),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{"}),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallName": "g", "delta": "}"}),
            run_finished(),
        ],
        diags: [(3, Code::ChunkConflict, Severity::Error)],
        then: |r| {
            assert!(
                r.diagnostics()[0]
                    .message
                    .contains("does not match the open stream's toolCallName")
            );
        },
    }
}
