//! Issue 39: the engine's schema knows every member `@ag-ui/core` defines,
//! optional and nested ones included, so that no defined member is ever
//! reported as unknown (R42). The list is the package's own: a small Node
//! script (`tests/peer/node/schema-members.js`) walks its zod schemas from
//! each event type; without the peer the test says it did not run, and
//! fails instead when `AGUI_PEER_REQUIRED=1`.

use std::collections::BTreeSet;
use std::process::Command;

use agui_replay::protocol::known_member_paths;
use serde_json::Value;

/// The package's member paths, or why they cannot be had here.
fn package_members() -> Result<(String, Vec<String>), String> {
    let dir = crate::common::peer::installed()?;
    let out = Command::new("node")
        .arg("schema-members.js")
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("`node schema-members.js` did not start: {e}"))?;
    if !out.status.success() {
        // The peer is there and the script fails: that is a failure, not
        // a test that could not run.
        panic!(
            "`node schema-members.js` exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let list: Value = serde_json::from_slice(&out.stdout).expect("the script prints JSON");
    let core = list["core"].as_str().unwrap_or("?").to_owned();
    let members = list["members"]
        .as_array()
        .expect("a `members` array")
        .iter()
        .map(|m| m.as_str().expect("a path").to_owned())
        .collect();
    Ok((core, members))
}

// Issue 39: `RUN_FINISHED.usage` (every Strands session) and
// `SUBAGENT_FINISHED.result` were stripped as unknown; nested members were
// never checked. Every member path the installed package defines must be
// one the engine's schema knows.
#[test]
fn the_schema_knows_every_member_the_package_defines() {
    let (core, package) = match package_members() {
        Ok(found) => found,
        Err(why) if crate::common::peer::required() => {
            panic!("schema member test: AGUI_PEER_REQUIRED=1 but {why}")
        }
        Err(why) => {
            println!(
                "schema member test NOT RUN: {why} (set AGUI_PEER_REQUIRED=1 to fail instead)"
            );
            return;
        }
    };
    assert_eq!(core, "1.0.0", "the peer pins @ag-ui/core 1.0.0");
    // The walk reached the nested objects, not only the events' members.
    assert!(
        package.len() > 600,
        "only {} member paths from the package",
        package.len()
    );
    for nested in [
        "RUN_FINISHED/usage/*/inputTokens",
        "SUBAGENT_FINISHED/result",
        "MESSAGES_SNAPSHOT/messages/*{role=user}/content/*{type=image}/source{type=url}/mimeType",
    ] {
        assert!(package.iter().any(|p| p == nested), "{nested}");
    }
    let known: BTreeSet<String> = known_member_paths().into_iter().collect();
    let missing: Vec<&String> = package.iter().filter(|p| !known.contains(*p)).collect();
    assert!(
        missing.is_empty(),
        "{} member paths @ag-ui/core {core} defines are unknown to the engine's schema \
         (src/protocol/schema.rs, src/protocol/shapes.rs):\n{}",
        missing.len(),
        missing
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let package: BTreeSet<&str> = package.iter().map(String::as_str).collect();
    let extra = known
        .iter()
        .filter(|p| !package.contains(p.as_str()))
        .count();
    println!(
        "schema member test: {} paths of @ag-ui/core {core} all known; the engine knows {extra} more \
         (the envelope on every type, 1.1's encryptedValueType, the retired binary part, \
         parts in assistant messages)",
        package.len()
    );
}

// Issue 39: the engine's own list is in the script's notation (a typo in
// either notation would make every nested member look missing).
#[test]
fn the_engine_lists_nested_members_in_the_scripts_notation() {
    let known = known_member_paths();
    for path in [
        "RUN_FINISHED/usage",
        "RUN_FINISHED/usage/*/cacheWriteInputTokens",
        "RUN_ERROR/usage/*/model",
        "SUBAGENT_FINISHED/result",
        "SUBAGENT_FINISHED/outcome{type=suspended}/interruptIds",
        "RUN_FINISHED/outcome{type=interrupt}/interrupts/*/responseSchema",
        "TOOL_CALL_RESULT/content/*{type=document}/source{type=file}/provider",
        "RUN_STARTED/input/messages/*{role=assistant}/toolCalls/*/function/arguments",
        "RUN_STARTED/input/resume/*/interruptId",
        "STATE_DELTA/delta/*{op=add}/**",
        "REASONING_ENCRYPTED_VALUE/encryptedValueType",
    ] {
        assert!(known.iter().any(|p| p == path), "{path}");
    }
}

// ---------------------------------------------------------------------------
// The cases of issue 39 through the engine.

use agui_replay::protocol::{ProtocolVersion, parse_fast_only};
use agui_replay::{Code, Options, Profile, Replayer};
use serde_json::json;

use crate::common::events::{replay_with, run_finished, run_started};

/// Every (profile, consumer version) pair a stream is judged with.
fn every_consumer() -> Vec<Options> {
    let mut all = Vec::new();
    for profile in [Profile::Spec, Profile::AgUiClient10] {
        for version in ProtocolVersion::ALL {
            all.push(Options {
                profile,
                protocol: version,
                ..Options::default()
            });
        }
    }
    all
}

/// `(seq, code, path)` of every diagnostic.
fn found(replayer: &Replayer) -> Vec<(u64, Code, String)> {
    replayer
        .diagnostics()
        .iter()
        .map(|d| (d.seq.get(), d.code, d.path.clone().unwrap_or_default()))
        .collect()
}

// Issue 39: `usage` is an optional member of RUN_FINISHED and RUN_ERROR in
// @ag-ui/core 1.0.0; every Strands session got `event.unknown-property
// /usage`.
#[test]
fn run_finished_and_run_error_with_usage_are_quiet() {
    let usage = json!([{
        "provider": "bedrock", "model": "claude", "inputTokens": 12, "outputTokens": 30,
        "totalTokens": 42, "reasoningTokens": 5, "cachedInputTokens": 2,
        "cacheWriteInputTokens": 1
    }, {"inputTokens": 1}]);
    let mut finished = run_finished();
    finished["usage"] = usage.clone();
    let error = json!({"type": "RUN_ERROR", "message": "boom", "code": "E", "usage": usage});
    for stream in [
        vec![run_started(), finished.clone()],
        vec![run_started(), error],
    ] {
        for text in &stream {
            assert!(
                parse_fast_only(text.to_string().as_bytes()).is_some(),
                "{text}"
            );
        }
        for options in every_consumer() {
            let r = replay_with(options, &stream);
            assert_eq!(found(&r), [], "{options:?}");
        }
    }
    // What the schema does not define inside an entry is still unknown.
    finished["usage"][1]["futureTokens"] = json!(3);
    let r = replay_with(Options::default(), &[run_started(), finished]);
    assert_eq!(
        found(&r),
        [(
            2,
            Code::EventUnknownProperty,
            "/usage/1/futureTokens".to_owned()
        )]
    );
}

// Issue 39: `SUBAGENT_FINISHED.result` is defined by @ag-ui/core 1.0.0.
#[test]
fn subagent_finished_with_result_is_quiet() {
    let stream = [
        run_started(),
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"}),
        json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s1",
               "result": {"summary": "done", "sources": [1, 2]},
               "outcome": {"type": "suspended", "interruptIds": ["i1"]}}),
        run_finished(),
    ];
    for options in every_consumer() {
        let r = replay_with(options, &stream);
        assert_eq!(found(&r), [], "{options:?}");
    }
}

// Issue 39: a member a nested object does not define (a message in a
// snapshot, a tool call's function, a run input) is stripped and reported
// with the JSON pointer to it, as at the top level.
#[test]
fn an_unknown_member_of_a_snapshot_message_is_stripped_with_its_pointer() {
    let snapshot = json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "u1", "role": "user", "content": "hi", "mood": "curious"},
        {"id": "a1", "role": "assistant", "content": "calling",
         "toolCalls": [{"id": "c1", "type": "function",
                        "function": {"name": "f", "arguments": "{}", "strict": true}}]}
    ]});
    assert!(parse_fast_only(snapshot.to_string().as_bytes()).is_none());
    let r = replay_with(
        Options::default(),
        &[run_started(), snapshot, run_finished()],
    );
    assert_eq!(
        found(&r),
        [
            (2, Code::EventUnknownProperty, "/messages/0/mood".to_owned()),
            (
                2,
                Code::EventUnknownProperty,
                "/messages/1/toolCalls/0/function/strict".to_owned()
            ),
        ]
    );
    assert_eq!(
        r.conversation().to_json(),
        json!([
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "content": "calling",
             "toolCalls": [{"id": "c1", "type": "function",
                            "function": {"name": "f", "arguments": "{}"}}]}
        ])
    );
    // The same in a run input, and a defined member there is quiet.
    let started = json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "input": {
        "threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "hi"}],
        "tools": [{"name": "f", "description": "d", "parameters": {}, "version": 2}],
        "context": [], "forwardedProps": {"x": 1},
        "resume": [{"interruptId": "i1", "status": "resolved", "payload": 1}]
    }});
    let r = replay_with(Options::default(), &[started, run_finished()]);
    assert_eq!(
        found(&r),
        [(
            1,
            Code::EventUnknownProperty,
            "/input/tools/0/version".to_owned()
        )]
    );
}

// Issue 39, C10: an unknown element of any list of a message is dropped
// with a warning and the list survives, as for a tool result.
#[test]
fn an_unknown_content_part_of_a_user_message_is_dropped_and_the_list_survives() {
    let parts = json!([
        {"type": "text", "text": "look"},
        {"type": "hologram", "frames": 3},
        {"type": "image", "source": {"type": "url", "value": "https://x/cat.png"}}
    ]);
    let kept = json!([
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "url", "value": "https://x/cat.png"}}
    ]);
    let user = json!({"id": "u1", "role": "user", "content": parts});
    // In a snapshot.
    let snapshot = json!({"type": "MESSAGES_SNAPSHOT", "messages": [user]});
    let r = replay_with(
        Options::default(),
        &[run_started(), snapshot, run_finished()],
    );
    assert_eq!(
        found(&r),
        [(
            2,
            Code::EventUnknownVariant,
            "/messages/0/content/1".to_owned()
        )]
    );
    assert_eq!(r.conversation().to_json()[0]["content"], kept);
    // In a run input.
    let started = json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1",
                         "input": {"threadId": "t1", "runId": "r1", "messages": [user]}});
    let r = replay_with(Options::default(), &[started, run_finished()]);
    assert_eq!(
        found(&r),
        [(
            1,
            Code::EventUnknownVariant,
            "/input/messages/0/content/1".to_owned()
        )]
    );
    assert_eq!(r.conversation().to_json()[0]["content"], kept);
    // A media part whose source is of an unknown type goes too, and an
    // assistant message's parts are read alike.
    let assistant = json!({"id": "a1", "role": "assistant", "content": [
        {"type": "image", "source": {"type": "hologram", "value": "v"}},
        {"type": "text", "text": "ok", "tone": "dry"}
    ]});
    let snapshot = json!({"type": "MESSAGES_SNAPSHOT", "messages": [assistant]});
    let r = replay_with(
        Options::default(),
        &[run_started(), snapshot, run_finished()],
    );
    assert_eq!(
        found(&r),
        [
            (
                2,
                Code::EventUnknownVariant,
                "/messages/0/content/0".to_owned()
            ),
            (
                2,
                Code::EventUnknownProperty,
                "/messages/0/content/1/tone".to_owned()
            ),
        ]
    );
    assert_eq!(
        r.conversation().to_json()[0]["content"],
        json!([{"type": "text", "text": "ok"}])
    );
    // A part that is not an object stays malformed, as in a tool result.
    let snapshot = json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "u1", "role": "user", "content": ["look"]}]});
    let r = replay_with(Options::default(), &[run_started(), snapshot]);
    assert_eq!(
        found(&r),
        [(2, Code::EventMalformed, "/messages/0/content/0".to_owned())]
    );
}

// Issue 39, item 2: the recorded request body (step 0, the run input) is
// read with the same nested-shape walker as `RUN_STARTED.input`: an
// unknown member inside a message is stripped and reported with its
// pointer, an unknown element of a message's list dropped, and what is
// defined kept, under every consumer.
#[test]
fn an_unknown_member_nested_in_a_recorded_run_input_is_stripped_with_its_pointer() {
    let input = json!({
        "threadId": "t1", "runId": "r1",
        "messages": [
            {"id": "u1", "role": "user", "mood": "curious", "content": [
                {"type": "text", "text": "look"},
                {"type": "hologram", "frames": 3}
            ]},
            {"id": "a1", "role": "assistant", "content": "calling",
             "toolCalls": [{"id": "c1", "type": "function",
                            "function": {"name": "f", "arguments": "{}", "strict": true}}]}
        ],
        "tools": [], "context": [], "state": {"n": 1}, "forwardedProps": {"x": 1}
    });
    for options in every_consumer() {
        let mut r = Replayer::with_run_input(options, &input);
        for event in [run_started(), run_finished()] {
            r.apply_bytes(event.to_string().as_bytes());
        }
        r.finish();
        assert_eq!(
            found(&r),
            [
                (
                    0,
                    Code::EventUnknownVariant,
                    "/messages/0/content/1".to_owned()
                ),
                (0, Code::EventUnknownProperty, "/messages/0/mood".to_owned()),
                (
                    0,
                    Code::EventUnknownProperty,
                    "/messages/1/toolCalls/0/function/strict".to_owned()
                ),
            ],
            "{options:?}"
        );
        let first = &r.diagnostics()[0];
        assert_eq!(first.message_id.as_deref(), Some("u1"));
        assert!(first.message.contains("recorded run input"), "{first:?}");
        assert_eq!(
            r.conversation().to_json(),
            json!([
                {"id": "u1", "role": "user", "content": [{"type": "text", "text": "look"}]},
                {"id": "a1", "role": "assistant", "content": "calling",
                 "toolCalls": [{"id": "c1", "type": "function",
                                "function": {"name": "f", "arguments": "{}"}}]}
            ]),
            "{options:?}"
        );
        assert_eq!(r.state(), &json!({"n": 1}));
    }
    // A clean run input is quiet.
    let clean = json!({"threadId": "t1", "runId": "r1",
                       "messages": [{"id": "u1", "role": "user", "content": "hi"}]});
    let mut r = Replayer::with_run_input(Options::default(), &clean);
    for event in [run_started(), run_finished()] {
        r.apply_bytes(event.to_string().as_bytes());
    }
    r.finish();
    assert_eq!(found(&r), []);
}
