//! `state`: the `{messages, state}` document at step N, or one message.

use serde_json::json;

use crate::common::events::*;
use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

// ---------------------------------------------------------------- state

#[test]
fn state_at_step_zero_is_empty() {
    let output = run(&["state", p(&sample()), "--at", "0"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output), json!({"messages": [], "state": {}}));
}

#[test]
fn state_at_n_prints_messages_and_state_of_that_step() {
    let at = |n: &str| {
        let output = run(&["state", p(&sample()), "--at", n]);
        assert_eq!(code(&output), 0, "--at {n}: {}", stderr(&output));
        json_out(&output)
    };
    let step3 = at("3");
    let object = step3.as_object().expect("an object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["messages", "state"]);
    assert_eq!(step3["state"], json!({}));
    let search = message_by_id(&step3["messages"], "search-1").expect("search-1");
    assert_eq!(search["content"]["found"], 1);
    assert_eq!(search["content"]["results"], json!([{"title": "result 0"}]));

    let step4 = at("4");
    let search = message_by_id(&step4["messages"], "search-1").expect("search-1");
    assert_eq!(search["content"]["found"], 2);

    // Step 1 has no messages yet; the text message only appears at step 8.
    assert_eq!(at("1")["messages"], json!([]));
    assert!(message_by_id(&at("7")["messages"], "msg-1").is_none());
    let step9 = at("9");
    let text = message_by_id(&step9["messages"], "msg-1").expect("msg-1");
    assert_eq!(text["content"], "Found ");
}

#[test]
fn state_at_n_follows_the_shared_state() {
    // demo.jsonl: STATE_SNAPSHOT at seq 2 (budget 800), STATE_DELTA at seq 20
    // (budget 739).
    let at = |n: &str| {
        let output = run(&["state", p(&demo()), "--at", n]);
        assert_eq!(code(&output), 0, "--at {n}: {}", stderr(&output));
        json_out(&output)
    };
    assert_eq!(at("1")["state"], json!({}));
    assert_eq!(at("2")["state"]["budget"], 800);
    assert_eq!(at("19")["state"]["budget"], 800);
    let step20 = at("20");
    assert_eq!(step20["state"]["budget"], 739);
    assert_eq!(step20["state"]["steps"], json!(["flights"]));
}

#[test]
fn state_message_prints_one_message() {
    let output = run(&["state", p(&sample()), "--at", "5", "--message", "search-1"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let message = json_out(&output);
    assert_eq!(message["id"], "search-1");
    assert_eq!(message["role"], "activity");
    assert_eq!(message["activityType"], "web_search");
    assert_eq!(message["content"]["found"], 3);
    assert_eq!(
        message["content"]["results"]
            .as_array()
            .expect("results")
            .len(),
        3
    );
    assert!(message.get("messages").is_none());

    let output = run(&["state", p(&sample()), "--at", "13", "--message", "msg-1"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(
        json_out(&output),
        json!({"id": "msg-1", "role": "assistant", "content": "Found three results."})
    );
}

#[test]
fn state_of_a_failed_run_shows_the_last_applied_step() {
    let events = [
        run_started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
        json!({"type": "STATE_DELTA", "delta": "not a patch"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 2}}),
        run_finished(),
    ];
    let file = TempPath::jsonl("statefailed", "s.jsonl", &events);
    let output = run(&["state", file.s(), "--at", "4"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output)["state"], json!({"n": 1}));
    let output = run(&["state", file.s(), "--at", "4", "--best-effort"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(json_out(&output)["state"], json!({"n": 2}));
}

// ---------------------------------------------------------------- snapshots

#[test]
fn state_outputs_are_the_snapshots() {
    let sample = "tests/samples/search-agent.sse";
    for (name, args) in [
        ("sample_at_3", &["state", sample, "--at", "3"][..]),
        (
            "sample_message_at_5",
            &["state", sample, "--at", "5", "--message", "search-1"],
        ),
        (
            "demo_at_20",
            &["state", "recordings/demo.jsonl", "--at", "20"],
        ),
        (
            "har_session_2_at_0",
            &[
                "state",
                "tests/samples/two-streams.har",
                "--session",
                "2",
                "--at",
                "0",
            ],
        ),
        ("past_the_end", &["state", sample, "--at", "14"]),
        (
            "unknown_message",
            &["state", sample, "--at", "13", "--message", "nope-42"],
        ),
    ] {
        assert_output!(name, transcript(args));
    }
}
