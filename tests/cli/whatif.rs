//! `whatif FILE --drop N | --replace N=JSON | --insert N=JSON` (issue 41):
//! the stream replayed with edits, compared with the recording as `compare`
//! compares two streams, the edited replay's outcome and diagnostics as
//! `check` has them, `--out` writing the edited stream; exit 0 when the
//! outcome, the messages and the state are unchanged, 1 when not, 2 on bad
//! usage. The input is never modified.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::events::{codes, jsonl, run_finished, run_started, seq_codes};
use crate::common::*;

/// An activity whose `/stats` a delta removes (step 3), so that the next
/// delta's `replace /stats/total` fails (step 4).
fn removed_path() -> String {
    let delta = |patch: Value| json!({"type": "ACTIVITY_DELTA", "messageId": "w1", "activityType": "widget", "patch": patch});
    jsonl(&[
        run_started(),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "w1", "activityType": "widget",
               "content": {"stats": {"total": 1}}}),
        delta(json!([{"op": "remove", "path": "/stats"}])),
        delta(json!([{"op": "replace", "path": "/stats/total", "value": 2}])),
        run_finished(),
    ])
}

fn snapshot(found: u64) -> Value {
    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "s1", "activityType": "search",
           "content": {"found": found}})
}

/// Two deltas set `/found` to 2, a no-op `CUSTOM` (step 5), then a snapshot
/// says 3 (step 6): drift.
fn drifting() -> String {
    let delta = |found: u64| {
        json!({"type": "ACTIVITY_DELTA", "messageId": "s1", "activityType": "search",
               "patch": [{"op": "replace", "path": "/found", "value": found}]})
    };
    jsonl(&[
        run_started(),
        snapshot(0),
        delta(1),
        delta(2),
        json!({"type": "CUSTOM", "name": "noop", "value": 1}),
        snapshot(3),
        run_finished(),
    ])
}

/// `whatif ARGS… --format json`: the exit code and the JSON.
fn whatif_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["whatif"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = run(&all);
    (code(&output), json_out(&output))
}

fn has_code(report: &Value, code: &str) -> bool {
    codes(report).iter().any(|c| c == code)
}

#[test]
fn dropping_the_delta_that_removed_a_path_lets_the_failed_patch_apply() {
    // Issue 41: "if the agent had not sent the delta at step 3…".
    let temp = TempDir::new("whatif-removed");
    let file = temp.write("removed.jsonl", removed_path());
    let (_, recorded) = check_json(&[p(&file)]);
    assert_eq!(
        seq_codes(&recorded),
        [(4, "activity.patch.failed".to_owned())]
    );
    let (code, value) = whatif_json(&[p(&file), "--drop", "3"]);
    assert_eq!(code, 1, "the state changed: {value:#}");
    assert_eq!(value["unchanged"], false);
    assert_eq!(value["edits"], json!([{"edit": "drop", "step": 3}]));
    assert_eq!(value["b"]["events"], 4);
    assert_eq!(value["edited"]["outcome"], "ok");
    assert_eq!(value["edited"]["fatal"], Value::Null);
    assert!(
        !has_code(&value["edited"], "activity.patch.failed"),
        "the patch applies: {:#}",
        value["edited"]
    );
    // The widget keeps its stats, with the total the patch set.
    assert_eq!(
        value["final_state"]["patch"],
        json!([{"op": "add", "path": "/messages/w1/content/stats", "value": {"total": 2}}])
    );
}

#[test]
fn replacing_a_snapshot_makes_the_drift_disappear() {
    // Issue 41: "if this snapshot had `found: 2`, does the drift go away?"
    let temp = TempDir::new("whatif-drift");
    let file = temp.write("drift.jsonl", drifting());
    let (_, recorded) = check_json(&[p(&file)]);
    assert_eq!(seq_codes(&recorded), [(6, "activity.drift".to_owned())]);
    let replace = format!("6={}", snapshot(2));
    let (code, value) = whatif_json(&[p(&file), "--replace", &replace]);
    assert_eq!(code, 1, "{value:#}");
    assert_eq!(value["edited"]["diagnostics"], json!([]));
    let first = &value["first_event_divergence"];
    assert_eq!(
        (first["kind"].as_str(), first["a"].as_u64()),
        (Some("changed"), Some(6))
    );
    assert_eq!(value["first_state_divergence"]["messages"], json!(["s1"]));
    assert_eq!(value["edits"][0]["json"], snapshot(2));
}

#[test]
fn dropping_a_no_op_changes_nothing_and_exits_0() {
    // Issue 41: exit 0 when neither the outcome, the messages nor the state
    // change, though the events do.
    let temp = TempDir::new("whatif-noop");
    let file = temp.write("drift.jsonl", drifting());
    let (code, value) = whatif_json(&[p(&file), "--drop", "5"]);
    assert_eq!(code, 0, "{value:#}");
    assert_eq!(value["unchanged"], true);
    assert_eq!(value["only_in_a"], 1);
    assert_eq!(value["first_state_divergence"], Value::Null);
    assert_eq!(value["final_state"], Value::Null);
    // The drift is still there, a step earlier.
    assert_eq!(
        seq_codes(&value["edited"]),
        [(5, "activity.drift".to_owned())]
    );
    // The text says so too.
    let output = run(&["whatif", p(&file), "--drop", "5"]);
    assert_eq!(crate::common::code(&output), 0);
    let text = stdout(&output);
    let name = p(&file);
    assert!(
        text.starts_with(&format!(
            "A: {name} as recorded, 7 events, ok\nB: {name} edited (drop 5), 6 events, ok\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("first event divergence: A 5 (after B 4): CUSTOM only in A"),
        "{text}"
    );
    assert!(
        text.contains("edited: outcome ok: 0 errors, 0 warnings, 0 notes, 1 info"),
        "{text}"
    );
    assert!(
        text.ends_with("the edits change neither the outcome, the messages nor the state\n"),
        "{text}"
    );
}

#[test]
fn inserts_go_before_their_step_in_order_and_after_the_last_they_append() {
    // Issue 41: `--insert N=…` puts the event before step N; N = the last
    // step + 1 appends; JSON inline or `@file.json`.
    let temp = TempDir::new("whatif-insert");
    let file = temp.write("drift.jsonl", drifting());
    let custom = temp.write(
        "custom.json",
        "{\n  \"type\": \"CUSTOM\",\n  \"name\": \"b\"\n}\n",
    );
    let at_file = format!("2=@{}", p(&custom));
    let (code, value) = whatif_json(&[
        p(&file),
        "--insert",
        r#"2={"type":"CUSTOM","name":"a"}"#,
        "--insert",
        &at_file,
        "--insert",
        r#"8={"type":"CUSTOM","name":"end"}"#,
    ]);
    // An event after RUN_FINISHED fails the run: the replay judges it.
    assert_eq!(code, 1, "{value:#}");
    assert_eq!(value["b"]["events"], 10);
    assert_eq!(value["b"]["fatal"], 10);
    assert_eq!(value["edited"]["fatal"]["code"], "lifecycle.after-run");
    assert_eq!(value["first_state_divergence"], Value::Null);
    let only_b: Vec<(u64, u64)> = value["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["a"].as_u64().unwrap(), d["b"].as_u64().unwrap()))
        .collect();
    assert_eq!(only_b, [(1, 2), (1, 3), (7, 10)]);
    // The edited stream, written, holds them in that order, the file's event
    // on one line.
    let out = temp.path().join("edited.jsonl");
    let (_, _) = whatif_json(&[
        p(&file),
        "--insert",
        r#"2={"type":"CUSTOM","name":"a"}"#,
        "--insert",
        &at_file,
        "--out",
        p(&out),
    ]);
    let written = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 9, "{written}");
    assert_eq!(lines[1], r#"{"type":"CUSTOM","name":"a"}"#);
    assert_eq!(lines[2], r#"{   "type": "CUSTOM",   "name": "b" }"#);
}

#[test]
fn bad_usage_exits_2_with_the_reason_and_writes_nothing() {
    // Issue 41: a step that does not exist, an invalid event, two edits of
    // one step, an --out that is the input or exists without --force.
    let temp = TempDir::new("whatif-usage");
    let file = temp.write("drift.jsonl", drifting());
    let existing = temp.write("existing.jsonl", "keep\n");
    let out = temp.path().join("new.jsonl");
    let before = std::fs::read(&file).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--drop", "8"],
            "drop 8: step 8 does not exist: the stream has 7 events",
        ),
        (
            &["--replace", r#"9={"type":"CUSTOM"}"#],
            "step 9 does not exist",
        ),
        (
            &["--insert", r#"9={"type":"CUSTOM"}"#],
            "an insert before 8 appends",
        ),
        (
            &["--insert", r#"0={"type":"CUSTOM"}"#],
            "nothing goes before the run input",
        ),
        (&["--drop", "0"], "no run input (step 0) to drop"),
        (&["--replace", "2=nope"], "replace 2: not JSON"),
        (
            &["--replace", "2=[1]"],
            "not an AG-UI event: not a JSON object",
        ),
        (&["--replace", r#"2={"delta":"x"}"#], "it has no `type`"),
        (
            &["--insert", r#"2={"type":7}"#],
            "its `type` is not a string",
        ),
        (&["--replace", "0=[]"], "not an AG-UI run input"),
        (
            &["--drop", "2", "--replace", r#"2={"type":"CUSTOM"}"#],
            "step 2 is edited twice",
        ),
        (&["--drop", "2", "--drop", "2"], "step 2 is edited twice"),
        (&["--replace", "2"], "expected N=JSON"),
        (&["--replace", "x={}"], "not a number"),
        (
            &["--replace", "2=@no-such-file.json"],
            "cannot read the event of @no-such-file.json",
        ),
        (&[], "nothing to edit"),
        (
            &["--drop", "2", "--out", p(&file)],
            "the output is the input",
        ),
        (&["--drop", "2", "--out", p(&existing)], "pass --force"),
    ];
    for (args, reason) in cases {
        let mut all = vec!["whatif", p(&file)];
        all.extend_from_slice(args);
        // An --out that is not the case's own would be written if the
        // usage were taken: it must not be.
        if !args.contains(&"--out") {
            all.extend_from_slice(&["--out", p(&out)]);
        }
        let output = run(&all);
        assert_eq!(code(&output), 2, "{args:?}: {}", stdout(&output));
        assert!(
            stderr(&output).contains(reason),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    }
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep\n");
}

/// `check FILE --format json`'s outcome, fatal and diagnostics.
fn checked(file: &Path) -> Value {
    let (_, report) = check_json(&[p(file)]);
    json!({
        "outcome": report["outcome"],
        "fatal": report["fatal"],
        "diagnostics": report["diagnostics"],
    })
}

#[test]
fn the_written_stream_checks_as_the_edited_replay() {
    // Issue 41: `--out` writes the edited stream, JSON lines or a
    // recording by extension; `check` of it says what `whatif` said under
    // "edited", and `compare` finds it equal to the edited stream.
    let temp = TempDir::new("whatif-out");
    let drift = temp.write("drift.jsonl", drifting());
    let replace = format!("6={}", snapshot(2));
    let inputs: [(&Path, &[&str]); 3] = [
        (&drift, &["--replace", &replace, "--drop", "5"]),
        (&demo_rec(), &["--drop", "3"]),
        (
            &demo_rec(),
            &[
                "--drop",
                "16",
                "--insert",
                r#"46={"type":"CUSTOM","name":"x"}"#,
            ],
        ),
    ];
    for (i, (input, edits)) in inputs.iter().enumerate() {
        for extension in ["jsonl", "rec"] {
            let out = temp.path().join(format!("edited-{i}.{extension}"));
            let mut args = vec![p(input)];
            args.extend_from_slice(edits);
            args.extend_from_slice(&["--out", p(&out)]);
            let (_, value) = whatif_json(&args);
            assert_eq!(value["out"]["events"], value["b"]["events"], "{value:#}");
            assert_eq!(
                checked(&out),
                value["edited"],
                "{} {edits:?} to .{extension}",
                p(input)
            );
            // --force replaces it, and the edits apply to the recording
            // again, not to the file written.
            args.push("--force");
            let (_, again) = whatif_json(&args);
            assert_eq!(again["edited"], value["edited"]);
        }
    }
}

#[test]
fn step_0_replaces_the_run_input_and_a_recording_keeps_it() {
    // Issue 41: "what if the run input had carried the user's earlier
    // message?" — `--replace 0=…` takes a RunAgentInput.
    let temp = TempDir::new("whatif-input");
    let file = temp.write("drift.jsonl", drifting());
    let input = json!({
        "threadId": "t1", "runId": "r1", "state": {"mode": "fast"}, "tools": [],
        "context": [], "forwardedProps": {},
        "messages": [{"id": "u1", "role": "user", "content": "flights to Lisbon"}],
    });
    let replace = format!("0={input}");
    let out = temp.path().join("edited.rec");
    let (code, value) = whatif_json(&[p(&file), "--replace", &replace, "--out", p(&out)]);
    assert_eq!(code, 1, "{value:#}");
    assert_eq!(value["differences"], json!([]), "no event changed");
    let first = &value["first_state_divergence"];
    assert_eq!(
        (first["a"].as_u64(), first["b"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(first["messages"], json!(["u1"]));
    assert_eq!(first["state"], true);
    // The recording written starts from the edited run input.
    let output = run(&["state", p(&out), "--at", "0"]);
    assert_eq!(
        json_out(&output),
        json!({"messages": [{"id": "u1", "role": "user", "content": "flights to Lisbon"}],
               "state": {"mode": "fast"}})
    );
    // JSON lines cannot hold it, and say so.
    let lines = temp.path().join("edited.jsonl");
    let output = run(&[
        "whatif",
        p(&file),
        "--replace",
        &replace,
        "--out",
        p(&lines),
    ]);
    assert_eq!(crate::common::code(&output), 1);
    assert!(
        stderr(&output).contains("not the edited run input (step 0)"),
        "{}",
        stderr(&output)
    );
    // Dropping the run input of a recording that has one starts empty.
    let (code, value) = whatif_json(&[p(&out), "--drop", "0"]);
    assert_eq!(code, 1);
    assert_eq!(value["first_state_divergence"]["a"], 0);
}

#[test]
fn the_input_is_never_modified() {
    // Issue 41: the recorded events are never modified, whatever the edits
    // and wherever the edited stream goes.
    let temp = TempDir::new("whatif-input-bytes");
    let rec = temp.path().join("demo.rec");
    std::fs::copy(demo_rec(), &rec).unwrap();
    let lines = temp.write("drift.jsonl", drifting());
    for input in [&rec, &lines] {
        let before = std::fs::read(input).unwrap();
        let listing = temp.listing();
        for (i, extension) in ["jsonl", "rec"].iter().enumerate() {
            let out = temp.path().join(format!("out-{i}.{extension}"));
            let output = run(&[
                "whatif",
                p(input),
                "--drop",
                "2",
                "--replace",
                r#"3={"type":"CUSTOM","name":"x"}"#,
                "--out",
                p(&out),
            ]);
            assert!(matches!(code(&output), 0 | 1), "{}", stderr(&output));
            std::fs::remove_file(&out).unwrap();
        }
        assert_eq!(std::fs::read(input).unwrap(), before, "{}", p(input));
        assert_eq!(temp.listing(), listing, "no file beside the input");
    }
}

#[test]
fn an_edit_that_proves_a_fix_becomes_a_conformance_fixture() {
    // Issue 41, point 2: the edited stream in every export format, a
    // fixture of the conformance corpus included (`--out-format`).
    let temp = TempDir::new("whatif-fixture");
    let file = temp.write("removed.jsonl", removed_path());
    let folder = temp.subdir("fixtures");
    let fixture = folder.join("no-removal.json");
    let output = run(&[
        "whatif",
        p(&file),
        "--drop",
        "3",
        "--out",
        p(&fixture),
        "--out-format",
        "conformance",
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let document = load(&fixture);
    assert_eq!(document["name"], "no-removal");
    assert_eq!(document["stream"].as_array().map(Vec::len), Some(4));
    let output = run(&["conformance", p(&folder)]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
}

#[test]
fn a_recorded_request_body_is_kept_byte_for_byte_unless_step_0_is_edited() {
    // Issue 41: the recording written carries the recorded run input as it
    // was sent, and the edited one when `--replace 0` or `--drop 0` says so.
    use agui_replay::input::HttpRequest;
    use agui_replay::store::{Arrival, NewSession, Recording, RecordingWriter, SessionStatus};
    let temp = TempDir::new("whatif-body");
    let rec = temp.path().join("spaced.rec");
    let body = b"{ \"threadId\": \"t1\", \"runId\": \"r1\",\n  \"messages\": [] }".to_vec();
    let mut writer = RecordingWriter::create(&rec, false).unwrap();
    writer
        .begin_session(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            request: Some(HttpRequest {
                method: "POST".into(),
                url: "http://agent.test/agent".into(),
                headers: Vec::new(),
                body: Some(body.clone()),
            }),
            ..NewSession::default()
        })
        .unwrap();
    for event in [
        run_started(),
        json!({"type": "CUSTOM", "name": "x"}),
        run_finished(),
    ] {
        writer
            .append(event.to_string().as_bytes(), Arrival::now())
            .unwrap();
    }
    writer.end_session(SessionStatus::Complete).unwrap();
    writer.finish().unwrap();
    let body_of = |path: &Path| {
        let recording = Recording::open(path).unwrap();
        let session = recording.pick_session(None).unwrap();
        session.request.as_ref().and_then(|r| r.body.clone())
    };
    let kept = temp.path().join("kept.rec");
    let output = run(&["whatif", p(&rec), "--drop", "2", "--out", p(&kept)]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(body_of(&kept), Some(body.clone()));
    let replaced = temp.path().join("replaced.rec");
    let input = r#"{"threadId":"t1","runId":"r1","messages":[],"state":{"n":1}}"#;
    let replace = format!("0={input}");
    let output = run(&[
        "whatif",
        p(&rec),
        "--replace",
        &replace,
        "--out",
        p(&replaced),
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let written = body_of(&replaced).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&written).unwrap(),
        serde_json::from_str::<Value>(input).unwrap()
    );
    let dropped = temp.path().join("dropped.rec");
    let output = run(&["whatif", p(&rec), "--drop", "0", "--out", p(&dropped)]);
    assert_eq!(
        code(&output),
        0,
        "an empty run input holds nothing: {}",
        stderr(&output)
    );
    assert_eq!(body_of(&dropped), None);
}
