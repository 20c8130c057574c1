//! Issue 39: `--protocol draft`, a consumer of the protocol's working draft
//! (C12). Its schema is 1.1's and its declarations follow the draft's
//! fixtures; beyond 1.1, a truncated stream fails the run (R62 as amended),
//! every run of a stream carries one thread, a `RUN_FINISHED` names its own
//! run, and an interrupt outcome never repeats an id. Under 1.0 and 1.1 none
//! of this changes: each test replays the same stream by 1.1 too.

use agui_replay::protocol::ProtocolVersion;
use agui_replay::timeline::Timeline;
use agui_replay::{Code, Effect, EventLog, Options, Outcome, Profile, Replayer, Severity};
use serde_json::{Value, json};

use crate::common::events::replay_with;

fn draft() -> Options {
    Options {
        protocol: ProtocolVersion::Draft,
        ..Options::default()
    }
}

fn v1_1() -> Options {
    Options::default()
}

fn started(thread: &str, run: &str) -> Value {
    json!({"type": "RUN_STARTED", "threadId": thread, "runId": run})
}

fn finished(thread: &str, run: &str) -> Value {
    json!({"type": "RUN_FINISHED", "threadId": thread, "runId": run})
}

fn error() -> Value {
    json!({"type": "RUN_ERROR", "message": "boom"})
}

fn text_start(id: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"})
}

fn text_end(id: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_END", "messageId": id})
}

/// Every diagnostic as `(seq, code, severity)`.
fn diags(replayer: &Replayer) -> Vec<(u64, Code, Severity)> {
    replayer
        .diagnostics()
        .iter()
        .map(|d| (d.seq.get(), d.code, d.severity))
        .collect()
}

fn fatal_message(replayer: &Replayer) -> String {
    replayer.fatal().expect("a fatal error").message.clone()
}

#[test]
fn a_truncated_stream_fails_the_run_under_the_draft_only() {
    // Issue 39, C12 (`truncated-stream-fails-the-run`): an error at the
    // last event; R62 under 1.1 is a warning, and the client profile (a
    // 1.0 consumer) only notes it.
    let events = [started("t", "r"), text_start("m"), text_end("m")];
    let r = replay_with(draft(), &events);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(diags(&r), [(3, Code::StreamTruncated, Severity::Error)]);
    let message = fatal_message(&r);
    assert!(
        message.contains("ended without a terminal event") && message.contains("'r'"),
        "{message}"
    );
    // The events themselves applied: the run has no outcome, its
    // messages are what arrived.
    assert!(r.effects().iter().all(|e| e.effect == Effect::Applied));
    assert_eq!(r.conversation().len(), 1);

    let r = replay_with(v1_1(), &events);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), [(3, Code::StreamTruncated, Severity::Warning)]);

    let client = Options {
        profile: Profile::AgUiClient10,
        ..draft()
    };
    let r = replay_with(client, &events);
    assert_eq!(r.outcome(), Outcome::Ok);
    assert_eq!(diags(&r), [(3, Code::StreamTruncated, Severity::Note)]);

    // A stream that ends between runs, or after a RUN_ERROR, is whole.
    for events in [
        vec![started("t", "r"), finished("t", "r")],
        vec![started("t", "r"), error()],
        vec![],
    ] {
        let r = replay_with(draft(), &events);
        assert_eq!(r.outcome(), Outcome::Ok, "{events:?}");
        assert_eq!(diags(&r), [], "{events:?}");
    }
}

#[test]
fn a_second_run_on_another_thread_fails_under_the_draft() {
    // Issue 39, C12: every run of a stream carries one threadId.
    let events = [
        started("t-main", "r1"),
        finished("t-main", "r1"),
        started("t-other", "r2"),
        finished("t-other", "r2"),
    ];
    let r = replay_with(draft(), &events);
    assert_eq!(r.outcome(), Outcome::Failed);
    assert_eq!(
        diags(&r),
        [(3, Code::LifecycleThreadMismatch, Severity::Error)]
    );
    let fatal = r.fatal().expect("fatal");
    assert_eq!(fatal.path.as_deref(), Some("/threadId"));
    assert!(
        fatal
            .message
            .contains("this stream belongs to thread 't-main'")
            && fatal.message.contains("'t-other'"),
        "{}",
        fatal.message
    );
    assert_eq!(r.effects()[2].effect, Effect::Fatal);
    assert_eq!(r.effects()[3].effect, Effect::NotApplied);
    // Several runs on one thread are the ordinary case; so are runs of
    // other threads under 1.1.
    let same = [
        started("t-main", "r1"),
        finished("t-main", "r1"),
        started("t-main", "r2"),
        finished("t-main", "r2"),
    ];
    assert_eq!(replay_with(draft(), &same).outcome(), Outcome::Ok);
    let r = replay_with(v1_1(), &events);
    assert_eq!((r.outcome(), diags(&r)), (Outcome::Ok, vec![]));
}

#[test]
fn a_run_finished_naming_another_run_or_thread_fails_under_the_draft() {
    // Issue 39, C12 (`run-finished-wrong-run-id-fatal`): a run's boundary
    // events agree on their runId and carry the stream's threadId.
    let r = replay_with(draft(), &[started("t", "r1"), finished("t", "r2")]);
    assert_eq!(
        diags(&r),
        [(2, Code::LifecycleRunMismatch, Severity::Error)]
    );
    let message = fatal_message(&r);
    assert!(
        message.contains("must agree on their runId")
            && message.find("'r2'") < message.find("'r1'"),
        "names the closing id, then the open one: {message}"
    );
    assert_eq!(r.effects()[1].effect, Effect::Fatal);

    let r = replay_with(draft(), &[started("t", "r1"), finished("t-x", "r1")]);
    assert_eq!(
        diags(&r),
        [(2, Code::LifecycleThreadMismatch, Severity::Error)]
    );
    assert!(
        fatal_message(&r).contains("A run's boundary events carry the input's threadId"),
        "{}",
        fatal_message(&r)
    );

    // Both wrong: both said, the first fails the run.
    let r = replay_with(draft(), &[started("t", "r1"), finished("t-x", "r2")]);
    assert_eq!(
        diags(&r),
        [
            (2, Code::LifecycleRunMismatch, Severity::Error),
            (2, Code::LifecycleThreadMismatch, Severity::Error),
        ]
    );

    // 1.1 compares no ids.
    for events in [
        [started("t", "r1"), finished("t", "r2")],
        [started("t", "r1"), finished("t-x", "r1")],
    ] {
        let r = replay_with(v1_1(), &events);
        assert_eq!((r.outcome(), diags(&r)), (Outcome::Ok, vec![]));
    }
}

#[test]
fn a_run_after_a_run_error_brings_its_own_run_id() {
    // Issue 39, C12: RUN_ERROR carries no ids; the run that follows is
    // held to its own runId, on the same thread.
    let r = replay_with(
        draft(),
        &[
            started("t", "r1"),
            error(),
            started("t", "r2"),
            finished("t", "r2"),
        ],
    );
    assert_eq!((r.outcome(), diags(&r)), (Outcome::Ok, vec![]));
    let r = replay_with(
        draft(),
        &[
            started("t", "r1"),
            error(),
            started("t", "r2"),
            finished("t", "r1"),
        ],
    );
    assert_eq!(
        diags(&r),
        [(4, Code::LifecycleRunMismatch, Severity::Error)]
    );
}

#[test]
fn the_run_inputs_thread_is_the_streams_under_the_draft() {
    // Issue 39, C12: the thread the run input asked about is the one every
    // run must carry, the first included.
    let input = json!({"threadId": "t-asked", "runId": "r1", "messages": []});
    let replay = |options: Options, thread: &str| {
        let mut r = Replayer::with_run_input(options, &input);
        for event in [started(thread, "r1"), finished(thread, "r1")] {
            r.apply_bytes(event.to_string().as_bytes());
        }
        r.finish();
        r
    };
    let r = replay(draft(), "t-answered");
    assert_eq!(
        diags(&r),
        [(1, Code::LifecycleThreadMismatch, Severity::Error)]
    );
    assert!(
        fatal_message(&r).contains("this stream belongs to thread 't-asked'"),
        "{}",
        fatal_message(&r)
    );
    assert_eq!(replay(draft(), "t-asked").outcome(), Outcome::Ok);
    assert_eq!(replay(v1_1(), "t-answered").outcome(), Outcome::Ok);
}

#[test]
fn duplicate_interrupt_ids_fail_under_the_draft() {
    // Issue 39, C12 (`duplicate-interrupt-id-fatal`).
    let outcome = |ids: &[&str]| {
        let interrupts: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "reason": "approval"}))
            .collect();
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
               "outcome": {"type": "interrupt", "interrupts": interrupts}})
    };
    let r = replay_with(draft(), &[started("t", "r"), outcome(&["a", "b", "a"])]);
    assert_eq!(
        diags(&r),
        [(2, Code::InterruptDuplicateId, Severity::Error)]
    );
    let fatal = r.fatal().expect("fatal");
    assert!(
        fatal.message.contains("two interrupts carrying the id 'a'"),
        "{}",
        fatal.message
    );
    assert_eq!(fatal.path.as_deref(), Some("/outcome/interrupts/2/id"));
    let r = replay_with(draft(), &[started("t", "r"), outcome(&["a", "b"])]);
    assert_eq!((r.outcome(), diags(&r)), (Outcome::Ok, vec![]));
    let r = replay_with(v1_1(), &[started("t", "r"), outcome(&["a", "a"])]);
    assert_eq!((r.outcome(), diags(&r)), (Outcome::Ok, vec![]));
}

#[test]
fn the_draft_declares_1_0_and_reads_the_1_1_schema() {
    // Issue 39, C12: as the draft's fixtures say, a declared 1.0 is quiet
    // and a declared 1.1 is newer; 1.1's members are known, not stripped.
    let declaring = |version: &str| {
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r",
               "protocolVersion": version})
    };
    let encrypted = json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message",
                           "entityId": "m", "encryptedValue": "v",
                           "encryptedValueType": "x"});
    let r = replay_with(
        draft(),
        &[declaring("1.0"), encrypted.clone(), finished("t", "r")],
    );
    let codes: Vec<Code> = r.diagnostics().iter().map(|d| d.code).collect();
    assert!(
        !codes.contains(&Code::EventUnknownProperty)
            && !codes.contains(&Code::ProtocolVersionNewer),
        "{codes:?}"
    );
    let r = replay_with(draft(), &[declaring("1.1"), finished("t", "r")]);
    assert_eq!(
        diags(&r),
        [(1, Code::ProtocolVersionNewer, Severity::Warning)]
    );
    let message = &r.diagnostics()[0].message;
    assert!(
        message.contains("1.1") && message.contains("draft"),
        "{message}"
    );
}

/// A checkpoint or a head read back from a stored index keeps the draft's
/// bookkeeping: events appended after it are judged as a replay from the
/// start judges them.
#[test]
fn the_draft_bookkeeping_survives_the_stored_index() {
    // Issue 39, C12, issue 14: the open run's id and the stream's thread
    // are in the index under the draft.
    let mut log = EventLog::default();
    log.push(started("t", "r1").to_string().as_bytes());
    let timeline = Timeline::starting_from(Replayer::new(draft())).replay_unfinished(log.clone());
    let blob = timeline.encode_index().expect("encodes");
    let mut stored = Timeline::from_stored_index(log, blob, draft()).expect("the index is read");
    stored.append(finished("t", "r2").to_string().as_bytes());
    let fatal = stored.head().fatal().expect("the wrong run id is fatal");
    assert_eq!(fatal.code, Code::LifecycleRunMismatch);
}
