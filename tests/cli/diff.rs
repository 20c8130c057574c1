//! `diff`: the RFC 6902 patch from step A to step B, of the document, of
//! one message or of one part of it.

use std::process::Output;

use serde_json::Value;

use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;
use crate::import::import_rec;

// ---------------------------------------------------------------- diff

/// Parses a `diff` output as an RFC 6902 patch.
fn patch_out(output: &Output) -> json_patch::Patch {
    assert_eq!(code(output), 0, "diff: {}", stderr(output));
    serde_json::from_value(json_out(output))
        .unwrap_or_else(|e| panic!("not an RFC 6902 patch ({e}): {}", stdout(output)))
}

fn state_at(source: &[&str], at: u64, message: Option<&str>) -> Value {
    let at = at.to_string();
    let mut args = vec!["state"];
    args.extend_from_slice(source);
    args.extend_from_slice(&["--at", &at]);
    if let Some(id) = message {
        args.extend_from_slice(&["--message", id]);
    }
    let output = run(&args);
    assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
    json_out(&output)
}

fn diff_of(source: &[&str], from: u64, to: u64, message: Option<&str>) -> json_patch::Patch {
    let (from, to) = (from.to_string(), to.to_string());
    let mut args = vec!["diff"];
    args.extend_from_slice(source);
    args.extend_from_slice(&["--from", &from, "--to", &to]);
    if let Some(id) = message {
        args.extend_from_slice(&["--message", id]);
    }
    patch_out(&run(&args))
}

/// Applies `diff --from a --to b` to `state --at a` and compares with
/// `state --at b`.
fn assert_diff_takes_a_to_b(source: &[&str], a: u64, b: u64, message: Option<&str>) {
    let patch = diff_of(source, a, b, message);
    let mut document = state_at(source, a, message);
    json_patch::patch(&mut document, &patch.0)
        .unwrap_or_else(|e| panic!("{source:?} {a}→{b} {message:?}: the patch fails: {e}"));
    assert_eq!(
        document,
        state_at(source, b, message),
        "{source:?} diff {a}→{b} {message:?}"
    );
}

#[test]
fn diff_is_the_patch_from_state_at_a_to_state_at_b() {
    let demo = demo();
    let source = [p(&demo)];
    for (a, b) in [
        (0, 45),
        (3, 20),
        (20, 3),
        (13, 19),
        (15, 16),
        (16, 17),
        (38, 40),
        (44, 45),
        (1, 39),
    ] {
        assert_diff_takes_a_to_b(&source, a, b, None);
    }
    // Nothing changes: an empty patch.
    assert!(diff_of(&source, 10, 10, None).0.is_empty());
    assert!(
        !diff_of(&source, 13, 14, None).0.is_empty(),
        "a delta changes the document"
    );
}

#[test]
fn diff_message_is_the_patch_of_one_message() {
    let demo = demo();
    let source = [p(&demo)];
    for (id, a, b) in [
        ("plan-1", 4, 27),
        ("plan-1", 27, 40),
        ("plan-1", 39, 40),
        ("plan-1", 4, 45),
        ("search-1", 13, 19),
        ("search-1", 17, 18),
        ("search-1", 19, 13),
        ("hotels-1", 35, 38),
        ("a-2", 28, 32),
    ] {
        assert_diff_takes_a_to_b(&source, a, b, Some(id));
    }
    // A message absent at A diffs from `null`.
    let patch = diff_of(&source, 5, 14, Some("search-1"));
    let mut document = Value::Null;
    json_patch::patch(&mut document, &patch.0).expect("applies to null");
    assert_eq!(document, state_at(&source, 14, Some("search-1")));
}

#[test]
fn diff_on_a_recording_session_starts_from_its_run_input() {
    let rec = import_rec("diffrec", &[p(&har())]);
    let source = [rec.s(), "--session", "2"];
    assert_diff_takes_a_to_b(&source, 0, 9, None);
    assert_diff_takes_a_to_b(&source, 2, 5, Some("plan-1"));
    let patch = diff_of(&source, 0, 9, None);
    let touches_run_input = patch.0.iter().any(|op| {
        let path = serde_json::to_value(op).expect("op")["path"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        path == "/messages/0" || path.starts_with("/state")
    });
    assert!(
        !touches_run_input,
        "the run input is step 0 already: {}",
        serde_json::to_string(&patch).expect("json")
    );
}

#[test]
fn diff_refuses_bad_steps_and_unknown_messages() {
    let demo = demo();
    for args in [
        vec!["diff", p(&demo), "--from", "0", "--to", "46"],
        vec!["diff", p(&demo), "--from", "46", "--to", "1"],
        vec![
            "diff",
            p(&demo),
            "--from",
            "1",
            "--to",
            "45",
            "--message",
            "nope",
        ],
        vec!["diff", p(&demo), "--from", "1"],
    ] {
        let output = run(&args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stdout(&output));
        assert!(!stderr(&output).is_empty(), "{args:?} says why");
    }
}

mod diff_properties {
    use crate::common::generator::{GenConfig, generate};
    use agui_replay::timeline::{CheckpointPolicy, Timeline};
    use agui_replay::{EventLog, Options, Replayer, Seq, read_path, replay_to};
    use proptest::prelude::*;
    use serde_json::Value;

    /// A timeline that keeps a checkpoint every few events, so that seeks
    /// start from many different ones.
    fn timeline(events: &EventLog) -> Timeline {
        Timeline::starting_from(Replayer::new(Options::default()))
            .policy(CheckpointPolicy {
                max_cost: 2_000,
                op_cost: 48,
            })
            .replay(events.clone())
    }

    fn demo_events() -> EventLog {
        read_path(&crate::common::demo())
            .expect("the demo reads")
            .events
    }

    fn generated_events() -> EventLog {
        generate(GenConfig {
            events: 3_000,
            activities: 12,
            seed: 11,
        })
    }

    fn message_json(replayer: &Replayer, id: &str) -> Value {
        replayer
            .conversation()
            .get(id)
            .map_or(Value::Null, |m| m.to_json())
    }

    /// diff(A, B) applied to the document at A gives the document at B, for
    /// the whole document and for each of a few messages; seeking agrees
    /// with replaying from the start.
    fn check(events: &EventLog, timeline: &Timeline, ids: &[String], a: u64, b: u64) {
        let (at_a, at_b) = (timeline.seek(Seq::new(a)), timeline.seek(Seq::new(b)));
        let (doc_a, doc_b) = (at_a.document(), at_b.document());
        assert_eq!(
            doc_b,
            replay_to(events, Options::default(), Seq::new(b)).document(),
            "seek({b}) is the replay to {b}"
        );
        let patch = json_patch::diff(&doc_a, &doc_b);
        let mut patched = doc_a.clone();
        json_patch::patch(&mut patched, &patch.0).expect("the patch applies");
        assert_eq!(patched, doc_b, "{a}→{b}");
        for id in ids {
            let (msg_a, msg_b) = (message_json(&at_a, id), message_json(&at_b, id));
            let patch = json_patch::diff(&msg_a, &msg_b);
            let mut patched = msg_a;
            json_patch::patch(&mut patched, &patch.0).expect("the patch applies");
            assert_eq!(patched, msg_b, "{id} {a}→{b}");
        }
    }

    fn ids_of(timeline: &Timeline) -> Vec<String> {
        timeline
            .head()
            .conversation()
            .iter()
            .map(|m| m.id().to_owned())
            .take(6)
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn diff_then_patch_goes_from_a_to_b_on_the_demo(a in 0u64..=45, b in 0u64..=45) {
            thread_local! {
                static DEMO: (EventLog, Timeline) = {
                    let events = demo_events();
                    let timeline = timeline(&events);
                    (events, timeline)
                };
            }
            DEMO.with(|(events, timeline)| {
                assert_eq!(events.len(), 45);
                assert!(timeline.num_checkpoints() > 2, "seeks use checkpoints");
                check(events, timeline, &ids_of(timeline), a, b);
            });
        }

        #[test]
        fn diff_then_patch_goes_from_a_to_b_on_a_generated_stream(
            a in 0u64..=3_000,
            b in 0u64..=3_000,
        ) {
            thread_local! {
                static GENERATED: (EventLog, Timeline) = {
                    let events = generated_events();
                    let timeline = timeline(&events);
                    (events, timeline)
                };
            }
            GENERATED.with(|(events, timeline)| {
                assert_eq!(events.len(), 3_000);
                assert!(timeline.num_checkpoints() > 10, "seeks use checkpoints");
                check(events, timeline, &ids_of(timeline), a, b);
            });
        }
    }
}

#[test]
fn diff_scope_state_and_conversation_diff_one_part_of_the_document() {
    let demo = demo();
    for (scope, member) in [("state", "state"), ("conversation", "messages")] {
        for (a, b) in [(0, 45), (19, 20), (13, 19), (20, 3)] {
            let (from, to) = (a.to_string(), b.to_string());
            let args = [
                "diff",
                p(&demo),
                "--from",
                &from,
                "--to",
                &to,
                "--scope",
                scope,
            ];
            let patch = patch_out(&run(&args));
            // The conversation is compared by message id (issue 13, point
            // 12): an object of the messages `state` prints, by their id.
            let part = |step: u64| {
                let value = state_at(&[p(&demo)], step, None)[member].clone();
                match value {
                    Value::Array(messages) if scope == "conversation" => Value::Object(
                        messages
                            .into_iter()
                            .map(|m| (m["id"].as_str().expect("an id").to_owned(), m))
                            .collect(),
                    ),
                    other => other,
                }
            };
            let mut document = part(a);
            json_patch::patch(&mut document, &patch.0).expect("the patch applies");
            assert_eq!(document, part(b), "{scope} {a}→{b}");
        }
    }
    // The state changes at 20 (a delta), not at 27 (an activity delta).
    let state_only = |from: &str, to: &str| {
        patch_out(&run(&[
            "diff",
            p(&demo),
            "--from",
            from,
            "--to",
            to,
            "--scope",
            "state",
        ]))
    };
    assert!(!state_only("19", "20").0.is_empty());
    assert!(state_only("26", "27").0.is_empty());
    // --message and --scope do not go together.
    let output = run(&[
        "diff",
        p(&demo),
        "--from",
        "1",
        "--to",
        "2",
        "--message",
        "plan-1",
        "--scope",
        "state",
    ]);
    assert_eq!(code(&output), 2);
}

// ---------------------------------------------------------------- snapshots

#[test]
fn diff_outputs_are_the_snapshots() {
    let demo = "recordings/demo.jsonl";
    for (name, args) in [
        (
            "demo_13_to_19",
            &["diff", demo, "--from", "13", "--to", "19"][..],
        ),
        (
            "demo_plan_1_4_to_27",
            &[
                "diff",
                demo,
                "--from",
                "4",
                "--to",
                "27",
                "--message",
                "plan-1",
            ],
        ),
        (
            "demo_state_19_to_20",
            &[
                "diff", demo, "--from", "19", "--to", "20", "--scope", "state",
            ],
        ),
        (
            "demo_conversation_38_to_40",
            &[
                "diff",
                demo,
                "--from",
                "38",
                "--to",
                "40",
                "--scope",
                "conversation",
            ],
        ),
        (
            "demo_10_to_10",
            &["diff", demo, "--from", "10", "--to", "10"],
        ),
        ("past_the_end", &["diff", demo, "--from", "0", "--to", "46"]),
    ] {
        assert_output!(name, transcript(args));
    }
}
