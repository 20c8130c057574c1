//! Issue 18: the conversation as `@ag-ui/client` 1.0.0 builds it, and where
//! the `spec` profile agrees (E11 run input, E12 tool result position) or
//! keeps its own answer (P5, P11, P12). Every case was confirmed against the
//! real package; the expected values below are what it showed.

use agui_replay::{Code, Options, Outcome, Profile, Replayer, Seq, Severity};
use serde_json::{Value, json};

use crate::common::events::replay_with;

fn spec() -> Options {
    Options::default()
}

fn client() -> Options {
    Options::for_profile(Profile::AgUiClient10)
}

fn run_started(run_id: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": run_id})
}

fn run_started_with(run_id: &str, messages: Value) -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": run_id,
           "input": {"threadId": "t", "runId": run_id, "state": {}, "tools": [],
                     "context": [], "forwardedProps": {}, "messages": messages}})
}

fn run_finished(run_id: &str) -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run_id})
}

fn snapshot(id: &str, owner: Option<&str>, replace: Option<bool>) -> Value {
    let mut event = json!({"type": "ACTIVITY_SNAPSHOT", "messageId": id, "activityType": "p",
                           "content": {"n": 0}});
    if let Some(owner) = owner {
        event["subagentRunId"] = json!(owner);
    }
    if let Some(replace) = replace {
        event["replace"] = json!(replace);
    }
    event
}

fn delta(id: &str, owner: Option<&str>) -> Value {
    let mut event = json!({"type": "ACTIVITY_DELTA", "messageId": id, "activityType": "p",
                           "patch": [{"op": "replace", "path": "/n", "value": 1}]});
    if let Some(owner) = owner {
        event["subagentRunId"] = json!(owner);
    }
    event
}

/// `id:role` of every message, in order.
fn ids(replayer: &Replayer) -> Vec<String> {
    replayer
        .conversation()
        .iter()
        .map(|m| format!("{}:{}", m.id(), m.role_name()))
        .collect()
}

fn has_code(replayer: &Replayer, code: Code) -> bool {
    replayer.diagnostics().iter().any(|d| d.code == code)
}

// ---------------------------------------------------------------------------
// E11: RUN_STARTED.input joins the conversation (both profiles)

#[test]
fn run_started_input_messages_not_held_join_in_order_marked_as_input() {
    // issue 18: the reference appends the input's messages it does not hold,
    // the first copy of a repeated id, activity messages included.
    for options in [spec(), client()] {
        let r = replay_with(
            options,
            &[
                run_started("r1"),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
                run_finished("r1"),
                run_started_with(
                    "r2",
                    json!([
                        {"id": "m1", "role": "user", "content": "held id"},
                        {"id": "u2", "role": "user", "content": "new"},
                        {"id": "u2", "role": "user", "content": "repeated"},
                        {"id": "a9", "role": "activity", "activityType": "x", "content": {"k": 1}}
                    ]),
                ),
                run_finished("r2"),
            ],
        );
        assert_eq!(r.outcome(), Outcome::Ok, "{:?}", options.profile);
        assert_eq!(ids(&r), ["m1:assistant", "u2:user", "a9:activity"]);
        let messages = r.conversation().to_json();
        assert_eq!(messages[0]["content"], "", "a held message is not replaced");
        assert_eq!(messages[1]["content"], "new", "the first copy joins");
        assert_eq!(messages[2]["content"], json!({"k": 1}));
        // Marked as input, at the step of its RUN_STARTED (seq 5).
        assert_eq!(r.conversation().from_input("u2"), Some(Seq::new(5)));
        assert_eq!(r.conversation().from_input("a9"), Some(Seq::new(5)));
        assert_eq!(r.conversation().from_input("m1"), None);
        // R50 still warns about the activity in the input.
        assert!(has_code(&r, Code::InputActivityMessage));
    }
}

#[test]
fn an_activity_joined_from_the_input_can_be_amended() {
    // issue 18: the joined activity is a real activity (R10 applies).
    for options in [spec(), client()] {
        let r = replay_with(
            options,
            &[
                run_started_with(
                    "r1",
                    json!([{"id": "a", "role": "activity", "activityType": "p",
                            "content": {"n": 0}}]),
                ),
                delta("a", None),
                run_finished("r1"),
            ],
        );
        assert_eq!(r.outcome(), Outcome::Ok);
        assert_eq!(r.conversation().to_json()[0]["content"], json!({"n": 1}));
    }
}

#[test]
fn step_zero_run_input_is_marked_as_input() {
    // issue 18: the request body's messages are run input too (step 0).
    let input = json!({"messages": [{"id": "u1", "role": "user", "content": "hi"}]});
    let r = Replayer::with_run_input(spec(), &input);
    assert_eq!(r.conversation().from_input("u1"), Some(Seq::START));
}

// ---------------------------------------------------------------------------
// E12: a tool result goes after its call (both profiles)

#[test]
fn tool_result_goes_after_the_assistant_message_holding_the_call() {
    // issue 18: after the assistant message and the tool messages already
    // following it; at the end when no assistant message holds the call.
    for options in [spec(), client()] {
        let r = replay_with(
            options,
            &[
                run_started("r1"),
                json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f",
                       "parentMessageId": "a1"}),
                json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
                json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "g",
                       "parentMessageId": "a1"}),
                json!({"type": "TOOL_CALL_END", "toolCallId": "c2"}),
                snapshot("act", None, None),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": "m2"}),
                json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
                       "content": "r1"}),
                json!({"type": "TOOL_CALL_RESULT", "messageId": "t2", "toolCallId": "c2",
                       "content": "r2"}),
                json!({"type": "TOOL_CALL_RESULT", "messageId": "t3", "toolCallId": "zz",
                       "content": "orphan"}),
                run_finished("r1"),
            ],
        );
        assert_eq!(r.outcome(), Outcome::Ok);
        assert_eq!(
            ids(&r),
            [
                "a1:assistant",
                "t1:tool",
                "t2:tool",
                "act:activity",
                "m2:assistant",
                "t3:tool"
            ],
            "{:?}",
            options.profile
        );
        // The index follows the insertion: later events find every message.
        for (i, id) in ["a1", "t1", "t2", "act", "m2", "t3"].iter().enumerate() {
            assert_eq!(r.conversation().position(id), Some(i), "{id}");
        }
    }
}

// ---------------------------------------------------------------------------
// P5: authoritativeActivityTypes the reference cannot read (client only)

#[test]
fn an_invalid_authoritative_declaration_drops_no_activity_under_the_client() {
    // issue 18: the reference owns no type and drops none; spec ignores the
    // declaration and R51 drops the absent activity (the snapshot carries one).
    for declaration in [
        json!(5),
        json!(null),
        json!({"authoritativeActivityTypes": ["p", 3]}),
        json!({"authoritativeActivityTypes": "p"}),
    ] {
        let events = [
            run_started("r1"),
            snapshot("act", None, None),
            json!({"type": "MESSAGES_SNAPSHOT",
                   "messages": [{"id": "x", "role": "activity", "activityType": "q",
                                 "content": {}}],
                   "metadata": {"@ag-ui/client": declaration.clone()}}),
            run_finished("r1"),
        ];
        let r = replay_with(client(), &events);
        assert_eq!(ids(&r), ["act:activity", "x:activity"], "{declaration}");
        let r = replay_with(spec(), &events);
        assert_eq!(ids(&r), ["x:activity"], "{declaration}");
    }
    // Valid declarations keep their meaning: `{}` is R51, `null` owns all.
    for declaration in [json!({}), json!({"authoritativeActivityTypes": null})] {
        let r = replay_with(
            client(),
            &[
                run_started("r1"),
                snapshot("act", None, None),
                json!({"type": "MESSAGES_SNAPSHOT",
                       "messages": [{"id": "x", "role": "activity", "activityType": "q",
                                     "content": {}}],
                       "metadata": {"@ag-ui/client": declaration.clone()}}),
                run_finished("r1"),
            ],
        );
        assert_eq!(ids(&r), ["x:activity"], "{declaration}");
    }
}

// ---------------------------------------------------------------------------
// P11: MESSAGES_SNAPSHOT details (client; spec keeps R51)

fn duplicate_and_reasoning_stream() -> Vec<Value> {
    vec![
        run_started("r1"),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "rs1", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "rs1"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "h", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "h"}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "h", "role": "assistant", "content": "h-first"},
            {"id": "d", "role": "user", "content": "d-first"},
            {"id": "h", "role": "assistant", "content": "h-second"},
            {"id": "d", "role": "user", "content": "d-second"}]}),
        run_finished("r1"),
    ]
}

#[test]
fn duplicate_ids_in_a_messages_snapshot_are_all_appended_under_the_client() {
    // issue 18: a held id takes the last copy in place; a new id is appended
    // once per copy. Spec keeps one of each (R51, last copy wins).
    let r = replay_with(client(), &duplicate_and_reasoning_stream());
    let contents: Vec<Value> = r
        .conversation()
        .iter()
        .map(|m| json!([m.id(), m.to_json()["content"]]))
        .collect();
    assert_eq!(
        contents,
        [
            json!(["rs1", ""]),
            json!(["h", "h-second"]),
            json!(["d", "d-first"]),
            json!(["d", "d-second"])
        ]
    );
    let r = replay_with(spec(), &duplicate_and_reasoning_stream());
    assert_eq!(ids(&r), ["rs1:reasoning", "h:assistant", "d:user"]);
    assert_eq!(r.conversation().to_json()[2]["content"], "d-second");
}

#[test]
fn a_snapshot_carrying_reasoning_drops_absent_reasoning_under_the_client() {
    // issue 18: the reference treats a snapshot's reasoning messages as the
    // complete set; R51 keeps absent reasoning messages under spec.
    let mut events = duplicate_and_reasoning_stream();
    events.insert(
        6,
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "h", "role": "assistant", "content": "h3"},
            {"id": "rs2", "role": "reasoning", "content": "new"}]}),
    );
    let r = replay_with(client(), &events);
    assert_eq!(ids(&r), ["h:assistant", "rs2:reasoning"]);
    let r = replay_with(spec(), &events);
    assert_eq!(ids(&r), ["rs1:reasoning", "h:assistant", "rs2:reasoning"]);
}

// ---------------------------------------------------------------------------
// P12: the reference verifier's owner map (client; spec keeps R21–R23)

/// The owner-map cases, each with what the reference does (`true`: fatal at
/// the last event before RUN_FINISHED) and what spec does.
fn owner_map_cases() -> Vec<(&'static str, Vec<Value>, bool, bool)> {
    let drop_a = json!({"type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "z", "role": "activity", "activityType": "q", "content": {}}]});
    vec![
        (
            "a snapshot dropped the activity, replace:false recreates it",
            vec![
                run_started("r1"),
                snapshot("a", Some("s1"), None),
                drop_a.clone(),
                snapshot("a", Some("s2"), Some(false)),
                delta("a", Some("s2")),
                run_finished("r1"),
            ],
            true,
            false,
        ),
        (
            "a tagged delta for an activity a snapshot dropped",
            vec![
                run_started("r1"),
                snapshot("a", Some("s1"), None),
                drop_a,
                delta("a", Some("s2")),
                run_finished("r1"),
            ],
            true,
            false,
        ),
        (
            "replace:false after a run reset records a new owner",
            vec![
                run_started("r1"),
                snapshot("a", Some("s1"), None),
                run_finished("r1"),
                run_started("r2"),
                snapshot("a", Some("s2"), Some(false)),
                delta("a", Some("s1")),
                run_finished("r2"),
            ],
            true,
            false,
        ),
        (
            "an id that stopped being an activity",
            vec![
                run_started("r1"),
                snapshot("a", Some("s1"), None),
                json!({"type": "MESSAGES_SNAPSHOT",
                       "messages": [{"id": "a", "role": "user", "content": "u"}]}),
                delta("a", Some("s2")),
                run_finished("r1"),
            ],
            true,
            false,
        ),
        (
            "replace:false on a text message id records an owner",
            vec![
                run_started("r1"),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": "a"}),
                snapshot("a", Some("s1"), Some(false)),
                delta("a", Some("s2")),
                run_finished("r1"),
            ],
            true,
            false,
        ),
        (
            "a held activity in the next run's input is owned by the input",
            vec![
                run_started("r1"),
                snapshot("a", Some("s1"), None),
                run_finished("r1"),
                run_started_with(
                    "r2",
                    json!([{"id": "a", "role": "activity", "activityType": "p",
                            "content": {}}]),
                ),
                delta("a", Some("s1")),
                run_finished("r2"),
            ],
            true,
            false,
        ),
        (
            "R23: a run reset forgets the owner in both",
            vec![
                run_started("r1"),
                snapshot("a", Some("s1"), None),
                run_finished("r1"),
                run_started("r2"),
                delta("a", Some("s2")),
                run_finished("r2"),
            ],
            false,
            false,
        ),
    ]
}

#[test]
fn the_client_owner_map_drifts_from_the_reducer_as_the_reference_verifier() {
    // issue 18 (item 8): each case confirmed against @ag-ui/client 1.0.0.
    for (name, events, client_fatal, spec_fatal) in owner_map_cases() {
        let delta_seq = Seq::new(events.len() as u64 - 1);
        for (options, fatal) in [(client(), client_fatal), (spec(), spec_fatal)] {
            let r = replay_with(options, &events);
            let outcome = if fatal { Outcome::Failed } else { Outcome::Ok };
            assert_eq!(r.outcome(), outcome, "{name} ({:?})", options.profile);
            if fatal {
                let d = r.fatal().expect("fatal");
                assert_eq!((d.seq, d.code), (delta_seq, Code::SubagentOwnerMismatch));
                assert_eq!(d.severity, Severity::Error);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// P13: profile.divergence

fn lockstep(options: Options, events: &[Value]) -> Vec<agui_replay::Diagnostic> {
    let mut log = agui_replay::EventLog::default();
    for event in events {
        log.push(event.to_string().as_bytes());
    }
    let (_, divergences) = agui_replay::replay::replay_comparing(
        Replayer::new(options),
        Replayer::new(agui_replay::replay::Lockstep::other_options(options)),
        &log,
    );
    divergences
}

#[test]
fn divergences_name_the_event_and_what_the_client_shows() {
    // issue 18 (item 9): an info at each event after which the profiles
    // disagree on what it touched, from either side.
    let events = [
        run_started("r1"),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        // P3 against R9: the client overwrites the text message.
        snapshot("m1", None, None),
        // Agreement: a plain activity.
        snapshot("a", Some("s1"), None),
        delta("a", None),
        // P12 against R13: fatal under the client only.
        json!({"type": "MESSAGES_SNAPSHOT",
               "messages": [{"id": "a", "role": "user", "content": "u"}]}),
        delta("a", Some("s2")),
        run_finished("r1"),
    ];
    for options in [spec(), client()] {
        let found = lockstep(options, &events);
        let seqs: Vec<(u64, Option<&str>)> = found
            .iter()
            .map(|d| (d.seq.get(), d.message_id.as_deref()))
            .collect();
        // 4: m1 differs; 7: the lists differ (m1 survives as an activity
        // under the client only); 8: the outcome parts, then nothing more.
        assert_eq!(
            seqs,
            [(4, Some("m1")), (7, None), (8, Some("a"))],
            "{:?}",
            options.profile
        );
        for d in &found {
            assert_eq!(d.code, Code::ProfileDivergence);
            assert_eq!(d.severity, Severity::Info);
            assert!(
                d.message
                    .starts_with("your client (ag-ui-client-1.0) shows ")
            );
        }
        assert!(
            found[0].message.contains("activity \"m1\""),
            "{}",
            found[0].message
        );
        assert!(found[0].message.contains("R9"), "{}", found[0].message);
        assert!(
            found[2].message.contains("the run failing"),
            "{}",
            found[2].message
        );
        assert!(found[2].message.contains("subagent.owner-mismatch (R22)"));
    }
}

#[test]
fn streams_where_the_profiles_agree_have_no_divergence() {
    // issue 18 (item 9): nothing reported where both show the same.
    let events = [
        run_started("r1"),
        snapshot("a", None, None),
        delta("a", None),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/m", "value": 2}]}),
        run_finished("r1"),
    ];
    assert!(lockstep(spec(), &events).is_empty());
    assert!(lockstep(client(), &events).is_empty());
}

// ---------------------------------------------------------------------------
// P12, P14: the client's verifier for text messages and tool calls

fn text_start(id: &str, owner: Option<&str>) -> Value {
    let mut event = json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"});
    if let Some(owner) = owner {
        event["subagentRunId"] = json!(owner);
    }
    event
}

fn tool_start(id: &str, parent: Option<&str>, owner: Option<&str>) -> Value {
    let mut event = json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "search"});
    if let Some(parent) = parent {
        event["parentMessageId"] = json!(parent);
    }
    if let Some(owner) = owner {
        event["subagentRunId"] = json!(owner);
    }
    event
}

#[test]
fn a_text_start_naming_an_activity_opens_without_a_message_under_the_client() {
    // issue 18: the client's verifier opens the message, its reducer refuses
    // it, so its content and end are accepted and show nothing; spec skips
    // the start (E4) and, since issue 39, drops its content and end under
    // that one warning instead of failing the run at the content.
    let events = [
        run_started("r1"),
        snapshot("a1", None, None),
        text_start("a1", None),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "hi"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}),
        run_finished("r1"),
    ];
    let client = replay_with(client(), &events);
    assert_eq!(client.outcome(), Outcome::Ok);
    assert_eq!(ids(&client), ["a1:activity"]);
    let spec = replay_with(spec(), &events);
    assert_eq!(spec.outcome(), Outcome::Ok);
    assert_eq!(ids(&spec), ["a1:activity"]);
    assert_eq!(
        spec.diagnostics()
            .iter()
            .filter(|d| d.severity != Severity::Info && d.severity != Severity::Note)
            .map(|d| d.code)
            .collect::<Vec<_>>(),
        [Code::SequenceAlreadyOpen]
    );
}

#[test]
fn a_tool_call_parented_on_an_activity_gets_its_own_assistant_message_under_the_client() {
    // issue 18: the reference falls back to a new assistant message named by
    // the tool call id; spec skips the start.
    let events = [
        run_started("r1"),
        snapshot("m2", None, None),
        tool_start("tc2", Some("m2"), Some("s1")),
    ];
    let client = replay_with(client(), &events);
    assert_eq!(ids(&client), ["m2:activity", "tc2:assistant"]);
    let call = client.conversation().get("tc2").expect("tc2").to_json();
    assert_eq!(call["toolCalls"][0]["id"], "tc2");
    assert_eq!(call["subagentRunId"], "s1");
    let spec = replay_with(spec(), &events);
    assert_eq!(ids(&spec), ["m2:activity"]);
}

#[test]
fn a_text_message_restarted_under_another_owner_fails_under_the_client() {
    // issue 18: the verifier keeps the owner of the first start (or of the
    // run input's message) and checks a tagged start against it.
    let restarted = [
        run_started("r1"),
        text_start("m2", None),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m2"}),
        text_start("m2", Some("s2")),
    ];
    let from_input = [
        run_started_with(
            "r1",
            json!([{"id": "m1", "role": "assistant", "content": "answer"}]),
        ),
        text_start("m1", Some("s2")),
    ];
    for events in [&restarted[..], &from_input[..]] {
        let client = replay_with(client(), events);
        let fatal = client.fatal().expect("fatal under the client");
        assert_eq!(fatal.code, Code::SubagentAttributionMismatch);
        assert_eq!(fatal.seq, Seq::new(events.len() as u64));
        let spec = replay_with(spec(), events);
        assert!(spec.fatal().is_none(), "spec: {:?}", spec.diagnostics());
    }
}

#[test]
fn a_tool_call_under_a_parent_of_another_owner_fails_under_the_client() {
    // issue 18: a tagged start whose parent message the verifier recorded
    // for another owner is fatal in the client.
    let events = [
        run_started("r1"),
        text_start("m1", None),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
        tool_start("tc1", Some("m1"), Some("s1")),
    ];
    let client = replay_with(client(), &events);
    assert_eq!(
        client.fatal().map(|d| (d.seq, d.code)),
        Some((Seq::new(4), Code::SubagentAttributionMismatch))
    );
    assert!(replay_with(spec(), &events).fatal().is_none());
}

#[test]
fn a_tool_result_reusing_a_held_id_is_a_second_message_under_the_client() {
    // issue 18: the reference appends a second message with the id; spec
    // keeps one message per id (R51, E12) and skips the result.
    let events = [
        run_started("r1"),
        json!({"type": "MESSAGES_SNAPSHOT",
               "messages": [{"id": "tr2", "role": "tool", "content": "ok", "toolCallId": "tc1"}]}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "tr2", "toolCallId": "tc2", "content": "ok"}),
    ];
    assert_eq!(
        ids(&replay_with(client(), &events)),
        ["tr2:tool", "tr2:tool"]
    );
    assert_eq!(ids(&replay_with(spec(), &events)), ["tr2:tool"]);
}

#[test]
fn a_tool_call_started_again_continues_the_held_call_under_the_client() {
    // issue 18: the verifier opens an ended tool call id again and the
    // reducer updates the held call; spec skips the start (E4).
    let events = [
        run_started("r1"),
        tool_start("tc1", None, None),
        json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "other",
               "metadata": {"k": 1}}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": "{}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"}),
        run_finished("r1"),
    ];
    let client = replay_with(client(), &events);
    assert_eq!(client.outcome(), Outcome::Ok);
    let call = &client.conversation().get("tc1").expect("tc1").to_json()["toolCalls"][0];
    assert_eq!(
        call["function"],
        json!({"name": "other", "arguments": "{}"})
    );
    assert_eq!(call["metadata"], json!({"k": 1}));
    // Issue 39: spec skips the start with one warning and drops what
    // follows for it; the run goes on.
    let spec = replay_with(spec(), &events);
    assert_eq!(spec.outcome(), Outcome::Ok);
    assert_eq!(
        spec.conversation().get("tc1").expect("tc1").to_json()["toolCalls"][0]["function"],
        json!({"name": "search", "arguments": ""})
    );
}

#[test]
fn a_run_error_after_a_run_error_fails_under_the_client() {
    // issue 18: the client's verifier accepts nothing but RUN_STARTED after a
    // RUN_ERROR; spec delivers a late RUN_ERROR (R61).
    let events = [
        json!({"type": "RUN_ERROR", "message": "failed"}),
        json!({"type": "RUN_ERROR", "message": "failed"}),
    ];
    let client = replay_with(client(), &events);
    assert_eq!(
        client.fatal().map(|d| (d.seq, d.code)),
        Some((Seq::new(2), Code::LifecycleAfterRun))
    );
    assert!(replay_with(spec(), &events).fatal().is_none());
}

#[test]
fn a_tool_result_whose_call_a_snapshot_removed_goes_to_the_end() {
    // issue 18 (E12): the result goes after the assistant message that holds
    // the call now; a MESSAGES_SNAPSHOT that replaced the holder by one
    // without the call leaves none, so it is appended (both profiles).
    let events = [
        run_started("r1"),
        tool_start("tc1", Some("m2"), None),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "m2", "role": "assistant", "content": "answer"},
            {"id": "u1", "role": "user", "content": "hello"}]}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "tr2", "toolCallId": "tc1", "content": "ok"}),
    ];
    for options in [client(), spec()] {
        assert_eq!(
            ids(&replay_with(options, &events)),
            ["m2:assistant", "u1:user", "tr2:tool"],
            "{:?}",
            options.profile
        );
    }
}

/// The non-info, non-note diagnostics' codes.
fn verdicts(r: &Replayer) -> Vec<Code> {
    r.diagnostics()
        .iter()
        .filter(|d| matches!(d.severity, Severity::Warning | Severity::Error))
        .map(|d| d.code)
        .collect()
}

fn chunk(kind: &str, id: Option<&str>, owner: Option<&str>, delta: &str) -> Value {
    let mut event = json!({"type": kind, "delta": delta});
    let member = if kind == "TOOL_CALL_CHUNK" {
        "toolCallId"
    } else {
        "messageId"
    };
    if let Some(id) = id {
        event[member] = json!(id);
    }
    if let Some(owner) = owner {
        event["subagentRunId"] = json!(owner);
    }
    event
}

/// A tool result "t1" for call "tc1": a message of another kind for a text
/// start to collide with.
fn with_tool_message(tail: &[Value]) -> Vec<Value> {
    let mut events = vec![
        run_started("r1"),
        tool_start("tc1", None, None),
        json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "tc1", "content": "ok"}),
    ];
    events.extend_from_slice(tail);
    events.push(run_finished("r1"));
    events
}

#[test]
fn an_id_collision_is_one_warning_sent_as_a_triad_or_as_chunks() {
    // Issue 39 (E4): a start naming a message of another kind is skipped
    // with one warning and what follows for it is dropped, the run going
    // on, whether it comes as START/CONTENT/END or as chunks.
    let triad = with_tool_message(&[
        json!({"type": "REASONING_MESSAGE_START", "messageId": "t1"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "t1", "delta": "hm"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "t1"}),
    ]);
    let chunks = with_tool_message(&[
        chunk("REASONING_MESSAGE_CHUNK", Some("t1"), None, "h"),
        chunk("REASONING_MESSAGE_CHUNK", None, None, "m"),
        chunk("REASONING_MESSAGE_CHUNK", Some("t1"), None, "!"),
    ]);
    for events in [&triad, &chunks] {
        let r = replay_with(spec(), events);
        assert_eq!(r.outcome(), Outcome::Ok, "{:?}", r.fatal());
        assert_eq!(verdicts(&r), [Code::SequenceAlreadyOpen]);
        let warning = r
            .diagnostics()
            .iter()
            .find(|d| d.code == Code::SequenceAlreadyOpen)
            .expect("the warning");
        assert!(warning.message.contains("dropped"), "{}", warning.message);
        assert_eq!(
            r.conversation().get("t1").expect("t1").to_json()["content"],
            json!("ok")
        );
    }
    // A closed tool call's id, started again as a triad or a chunk.
    let again = [
        run_started("r1"),
        tool_start("tc1", None, None),
        json!({"type": "TOOL_CALL_END", "toolCallId": "tc1"}),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "tc1", "toolCallName": "g", "delta": "{"}),
        chunk("TOOL_CALL_CHUNK", None, None, "}"),
        run_finished("r1"),
    ];
    let r = replay_with(spec(), &again);
    assert_eq!(r.outcome(), Outcome::Ok, "{:?}", r.fatal());
    assert_eq!(verdicts(&r), [Code::SequenceAlreadyOpen]);
    assert_eq!(
        r.conversation().get("tc1").expect("tc1").to_json()["toolCalls"][0]["function"],
        json!({"name": "search", "arguments": ""})
    );
}

/// The contents of the messages, by id.
fn contents(r: &Replayer) -> Vec<(String, Value)> {
    r.conversation()
        .iter()
        .map(|m| {
            let m = m.to_json();
            (
                m["id"].as_str().unwrap_or("?").to_owned(),
                m["content"].clone(),
            )
        })
        .collect()
}

/// Issue 39: the parent agent's and a subagent's chunk streams, interleaved.
pub fn interleaved_lanes() -> Vec<Value> {
    vec![
        run_started("r1"),
        chunk("TEXT_MESSAGE_CHUNK", Some("m1"), None, "a"),
        chunk("TEXT_MESSAGE_CHUNK", Some("m2"), Some("s1"), "x"),
        chunk("TEXT_MESSAGE_CHUNK", None, None, "b"),
        chunk("TEXT_MESSAGE_CHUNK", None, Some("s1"), "y"),
        run_finished("r1"),
    ]
}

/// Issue 39: two subagents' chunk streams, and an untagged id-less chunk.
pub fn ambiguous_lanes() -> Vec<Value> {
    vec![
        run_started("r1"),
        chunk("TEXT_MESSAGE_CHUNK", Some("m1"), Some("s1"), "a"),
        chunk("TEXT_MESSAGE_CHUNK", Some("m2"), Some("s2"), "x"),
        chunk("TEXT_MESSAGE_CHUNK", None, None, "b"),
        run_finished("r1"),
    ]
}

#[test]
fn the_client_keeps_one_chunk_lane_per_subagent() {
    // Issue 39: the reference client's transformer keeps a chunk stream per
    // owner: an untagged id-less chunk continues the parent agent's, a
    // tagged one its subagent's.
    let r = replay_with(client(), &interleaved_lanes());
    assert_eq!(r.outcome(), Outcome::Ok, "{:?}", r.fatal());
    assert_eq!(
        contents(&r),
        [
            ("m1".to_owned(), json!("ab")),
            ("m2".to_owned(), json!("xy"))
        ]
    );
    // spec keeps one chunk stream (C8): the subagent's chunk replaced the
    // parent's, and continuing it untagged keeps the subagent's attribution.
    let r = replay_with(spec(), &interleaved_lanes());
    assert_eq!(
        contents(&r),
        [
            ("m1".to_owned(), json!("a")),
            ("m2".to_owned(), json!("xby"))
        ]
    );
    // Two subagent streams open: a chunk naming neither is ambiguous.
    let r = replay_with(client(), &ambiguous_lanes());
    let fatal = r.fatal().expect("ambiguous");
    assert_eq!((fatal.seq, fatal.code), (Seq::new(4), Code::ChunkMissingId));
    assert!(fatal.message.contains("Ambiguous"), "{}", fatal.message);
}

/// Issue 39: a tool call chunk and a reasoning chunk whose ids are an
/// activity's, without a parent.
pub fn activity_id_chunks() -> Vec<Value> {
    vec![
        run_started("r1"),
        snapshot("a1", None, None),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "a1", "toolCallName": "f", "delta": "{"}),
        chunk("TOOL_CALL_CHUNK", None, None, "}"),
        snapshot("a2", None, None),
        chunk("REASONING_MESSAGE_CHUNK", Some("a2"), None, "h"),
        chunk("REASONING_MESSAGE_CHUNK", None, None, "m"),
        run_finished("r1"),
    ]
}

#[test]
fn activity_ids_reused_by_a_tool_call_or_a_reasoning_chunk_under_both_profiles() {
    // Issue 39: the reference client puts a tool call named by an
    // activity's id on a new assistant message with that id, and opens a
    // reasoning stream on an activity's id without a message; spec skips
    // both with one warning each and drops what follows.
    let r = replay_with(client(), &activity_id_chunks());
    assert_eq!(r.outcome(), Outcome::Ok, "{:?}", r.fatal());
    let list: Vec<Value> = r.conversation().iter().map(|m| m.to_json()).collect();
    assert_eq!(list.len(), 3, "{list:#?}");
    assert_eq!(list[1]["id"], json!("a1"));
    assert_eq!(list[1]["role"], json!("assistant"));
    assert_eq!(
        list[1]["toolCalls"][0]["function"],
        json!({"name": "f", "arguments": "{}"})
    );
    assert_eq!(list[2]["role"], json!("activity"));
    let r = replay_with(spec(), &activity_id_chunks());
    assert_eq!(r.outcome(), Outcome::Ok, "{:?}", r.fatal());
    assert_eq!(
        verdicts(&r),
        [Code::SequenceAlreadyOpen, Code::SequenceAlreadyOpen]
    );
    assert_eq!(r.conversation().len(), 2);
}
