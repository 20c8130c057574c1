//! The patcher (R10–R17): the input is two JSON values, a document and a
//! patch (an array of RFC 6902 operations), e.g. `{"a":1} [{"op":"add",...}]`.
//!
//! - `apply_patch` directly: a failing patch leaves the document exactly as
//!   it was (R11), and a patch that applies gives what the reference
//!   implementation (`json_patch`) gives.
//! - Through the engine: the document as an activity's content and as the
//!   shared state, the patch as an `ACTIVITY_DELTA` and a `STATE_DELTA`
//!   (parsed by the protocol layer, R17), replayed under both profiles.
#![no_main]

use agui_replay::input::EventLog;
use agui_replay::protocol::Patch;
use agui_replay::replay::{Options, Profile, apply_patch, replay_log};
use json_patch::PatchOperation;
use libfuzzer_sys::{Corpus, fuzz_target};
use serde_json::{Value, json};

fn direct(doc: &Value, ops: &Value) {
    let Ok(ops) = serde_json::from_value::<Vec<PatchOperation>>(ops.clone()) else {
        return;
    };
    let patch = Patch::from_ops(ops.clone());
    let mut patched = doc.clone();
    match apply_patch(&mut patched, &patch) {
        Err(failure) => {
            assert!(failure.index < ops.len(), "{failure}");
            assert!(
                patched == *doc,
                "R11: a failing patch changed the document ({failure})"
            );
        }
        Ok(()) => {
            let mut reference = doc.clone();
            json_patch::patch(&mut reference, &ops)
                .expect("json_patch applies a patch that apply_patch applied");
            assert!(
                patched == reference,
                "apply_patch and json_patch disagree on the patched document"
            );
        }
    }
}

fn through_the_engine(doc: &Value, ops: &Value) {
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": doc}),
        json!({"type": "STATE_DELTA", "delta": ops}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "k", "content": doc}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "k", "patch": ops}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "a", "patch": ops}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let mut log = EventLog::default();
    for event in &events {
        log.push(&serde_json::to_vec(event).expect("serialisable"));
    }
    for profile in Profile::ALL {
        let replayer = replay_log(
            &log,
            Options {
                profile,
                best_effort: true,
                ..Options::default()
            },
        );
        let _ = replayer.document();
    }
}

fuzz_target!(|data: &[u8]| -> Corpus {
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let (Some(Ok(doc)), Some(Ok(ops))) = (values.next(), values.next()) else {
        return Corpus::Reject;
    };
    direct(&doc, &ops);
    through_the_engine(&doc, &ops);
    Corpus::Keep
});
