//! The session files of other AG-UI tools through the binary (issue 17.5):
//! `check`, `state`, `find` and `import` read every file of
//! `tests/interop/`, a connection picked with `--session N`, what each
//! holds worked out from the file by `common::peers`.

use serde_json::Value;

use crate::common::peers::{Held, held, peer_file, peer_files, relative};
use crate::common::snapshot::{assert_output, transcript};
use crate::common::{TempPath, check_json, code, run, stderr, stdout};

#[test]
fn check_reads_every_session_of_every_file() {
    for path in peer_files() {
        let file = held(&path);
        let name = relative(&path);
        for (i, expected) in file.sessions.iter().enumerate() {
            let n = (i + 1).to_string();
            let (output, report) = check_json(&[&name, "--session", &n]);
            let what = format!("{name} --session {n}");
            assert!(
                matches!(code(&output), 0 | 1),
                "{what}: {}",
                stderr(&output)
            );
            assert_eq!(report["events"], expected.events.len(), "{what}");
            let codes: Vec<&str> = report["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .filter_map(|d| d["code"].as_str())
                .collect();
            // A header or wrapper read as an event would be unparseable
            // or of an unknown type.
            let num_texts = expected
                .events
                .iter()
                .filter(|e| matches!(e, Held::Text(_)))
                .count();
            assert_eq!(
                codes.iter().filter(|c| **c == "event.unparseable").count(),
                num_texts.min(1),
                "{what}: {codes:?}"
            );
            assert!(!codes.contains(&"event.unknown-type"), "{what}: {codes:?}");
            assert!(!codes.contains(&"peer.record.damaged"), "{what}: {codes:?}");
        }
    }
}

#[test]
fn check_prints_what_the_peers_files_say() {
    let devtools = |name: &str| format!("tests/interop/ag-ui-devtools/{name}");
    let inspector = |name: &str| format!("tests/interop/agui-inspector/generated/{name}");
    let demo_redacted =
        devtools("generated/agui-localhost-3000-2026-08-15T09-00-00.000Z-demo-redacted.agui.jsonl");
    let runs = devtools("runs-edge.agui.jsonl");
    let sse = inspector("agui-inspector-session-sse.json");
    let protobuf = inspector("agui-inspector-session-protobuf.json");
    let happy = devtools("happy-real.json");
    let malformed = devtools("malformed.agui.jsonl");
    let runs_of: [&[&str]; 9] = [
        &["check", &runs],
        &["check", &runs, "--session", "4"],
        &["check", &runs, "--session", "5"],
        &["check", &malformed],
        &["check", &demo_redacted, "--session", "1"],
        &["check", &happy],
        &["check", &sse, "--session", "2"],
        &["check", &sse, "--session", "3"],
        &["check", &protobuf, "--session", "2"],
    ];
    let text: String = runs_of.iter().map(|args| transcript(args)).collect();
    assert_output!("check_transcripts", text);
}

#[test]
fn state_at_0_is_the_connections_run_input() {
    for (name, n) in [
        ("ag-ui-devtools/demo.agui.jsonl", 2),
        (
            "agui-inspector/generated/agui-inspector-session-sse.json",
            2,
        ),
        (
            "agui-inspector/generated/agui-inspector-session-protobuf.json",
            1,
        ),
    ] {
        let path = peer_file(name);
        let input = held(&path).sessions[n - 1]
            .run_input
            .clone()
            .expect("a run input");
        let output = run(&[
            "state",
            &relative(&path),
            "--session",
            &n.to_string(),
            "--at",
            "0",
        ]);
        assert_eq!(code(&output), 0, "{name}: {}", stderr(&output));
        let state: Value = serde_json::from_str(&stdout(&output)).expect("JSON");
        assert_eq!(state["state"], input["state"], "{name}");
        let ids: Vec<&Value> = state["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| &m["id"])
            .collect();
        let expected: Vec<&Value> = input["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| &m["id"])
            .collect();
        assert_eq!(ids, expected, "{name}");
    }
}

#[test]
fn find_answers_over_a_connection() {
    // The step of the delta that set the order's status, from the file.
    let path = peer_file("ag-ui-devtools/demo.agui.jsonl");
    let file = held(&path);
    let events = &file.sessions[0].events;
    let step = 1 + events
        .iter()
        .position(|e| {
            matches!(e, Held::Json(v) if v["type"] == "STATE_DELTA"
                && v["delta"].as_array().is_some_and(|ops| ops.iter().any(|op| op["path"] == "/order/status" && op["value"] == "in_transit")))
        })
        .expect("the delta");
    let output = run(&[
        "find",
        &relative(&path),
        "--session",
        "1",
        "--state",
        "--pointer",
        "/order/status",
        "--equals",
        "\"in_transit\"",
        "--format",
        "json",
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let found: Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    assert_eq!(found["matches"][0]["step"], step);
    assert_eq!(found["matches"].as_array().map(Vec::len), Some(1));
}

#[test]
fn import_makes_one_session_per_connection_that_replays_as_the_file() {
    let files: Vec<String> = peer_files().iter().map(|p| relative(p)).collect();
    let rec = TempPath::new("interop", "peers.rec");
    let mut args = vec!["import"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--out", rec.s()]);
    let output = run(&args);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let mut session = 0;
    for (path, name) in peer_files().iter().zip(&files) {
        for (i, expected) in held(path).sessions.iter().enumerate() {
            session += 1;
            let (_, from_file) = check_json(&[name, "--session", &(i + 1).to_string()]);
            let (_, from_rec) = check_json(&[rec.s(), "--session", &session.to_string()]);
            assert_eq!(from_rec, from_file, "{name} session {}", i + 1);
            assert_eq!(from_rec["events"], expected.events.len());
        }
    }
    let summary = stdout(&output);
    assert!(
        summary.contains(&format!("{session} sessions")),
        "{summary}"
    );
    // The summary names each connection as the file does.
    let import = transcript(&[
        "import",
        "tests/interop/ag-ui-devtools/runs-edge.agui.jsonl",
        "tests/interop/agui-inspector/generated/agui-inspector-session-sse.json",
        "tests/interop/ag-ui-devtools/happy-real.json",
        "--out",
        TempPath::new("interop", "summary.rec").s(),
    ]);
    assert_output!("import_summary", import);
}
