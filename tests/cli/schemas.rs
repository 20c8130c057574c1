//! `check --schemas DIR` and `schemas infer` (issue 42, S1) through the
//! binary: the warnings in the report, an inferred folder that the same
//! recording passes, files kept without `--force`, unreadable schemas.

use serde_json::json;

use crate::common::events::*;
use crate::common::*;

fn search_stream(label: &str) -> TempPath {
    TempPath::jsonl(
        label,
        "s.jsonl",
        &[
            run_started(),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "s1", "activityType": "web/search",
                   "content": {"query": "hotels", "found": 0}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "s1", "activityType": "web/search",
                   "patch": [{"op": "replace", "path": "/found", "value": 2}]}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"city": "Lyon"}}),
            run_finished(),
        ],
    )
}

// Issue 42: a folder inferred from a recording is written sorted and
// pretty, one file per type (`/` percent-encoded) and the state's; the
// same recording then checks clean, and a stream that breaks it does not.
#[test]
fn inferred_schemas_pass_their_recording_and_catch_a_broken_one() {
    let stream = search_stream("s42-cli-infer");
    let dir = TempDir::new("s42-cli-out");
    let out = dir.path().join("schemas");
    let output = run_ok(&["schemas", "infer", stream.s(), "--out", p(&out)]);
    let text = stdout(&output);
    assert!(text.contains("2 schemas from 1 stream"), "{text}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .expect("the folder was created")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["_state.schema.json", "web%2Fsearch.schema.json"]);
    let search = load(&out.join("web%2Fsearch.schema.json"));
    assert_eq!(search["properties"]["found"]["type"], "integer");
    assert_eq!(search["required"], json!(["found", "query"]));

    let (output, report) = check_json(&[stream.s(), "--schemas", p(&out)]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        diagnostics_with_code(&report, "activity.content.schema").is_empty()
            && diagnostics_with_code(&report, "state.content.schema").is_empty(),
        "{report:#}"
    );

    let broken = TempPath::jsonl(
        "s42-cli-broken",
        "b.jsonl",
        &[
            run_started(),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "s1", "activityType": "web/search",
                   "content": {"query": "hotels", "found": 0}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "s1", "activityType": "web/search",
                   "patch": [{"op": "replace", "path": "/found", "value": "2"}]}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"city": 7}}),
            run_finished(),
        ],
    );
    let (output, report) = check_json(&[broken.s(), "--schemas", p(&out)]);
    // Warnings: the run itself is not failed.
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        seq_codes(&report),
        [
            (3, "activity.content.schema".to_owned()),
            (4, "state.content.schema".to_owned())
        ]
    );
    let d = &report["diagnostics"][0];
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["messageId"], "s1");
    assert_eq!(d["path"], "/content/found");
    // Without the folder nothing is checked.
    let (_, plain) = check_json(&[broken.s()]);
    assert!(seq_codes(&plain).is_empty(), "{plain:#}");
    // The text report has the line.
    let text = stdout(&run(&["check", broken.s(), "--schemas", p(&out)]));
    assert!(
        text.lines().any(|l| l.contains("activity.content.schema")
            && l.contains("s1")
            && l.contains("/found")),
        "{text}"
    );
}

// Issue 42: the output is deterministic, and files that exist (edited by
// hand) are not overwritten without `--force`; nothing is written then.
#[test]
fn infer_keeps_existing_files_unless_forced_and_is_deterministic() {
    let stream = search_stream("s42-cli-force");
    let dir = TempDir::new("s42-cli-force-out");
    run_ok(&["schemas", "infer", stream.s(), "--out", dir.s()]);
    let first = std::fs::read(dir.path().join("web%2Fsearch.schema.json")).expect("written");
    let edited = dir.write("_state.schema.json", "{\"type\": \"object\"}\n");

    let output = run(&["schemas", "infer", stream.s(), "--out", dir.s()]);
    assert_eq!(code(&output), 2);
    let error = stderr(&output);
    assert!(
        error.contains("--force") && error.contains("_state.schema.json"),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(&edited).expect("kept"),
        "{\"type\": \"object\"}\n"
    );

    run_ok(&["schemas", "infer", stream.s(), "--out", dir.s(), "--force"]);
    let second = std::fs::read(dir.path().join("web%2Fsearch.schema.json")).expect("written");
    assert_eq!(first, second, "the same recording gives the same bytes");
    assert_ne!(
        std::fs::read_to_string(&edited).expect("replaced"),
        "{\"type\": \"object\"}\n"
    );
}

// Issue 42: a schema that cannot be used is an error naming the file
// (exit 2), before anything is replayed; so is a missing folder.
#[test]
fn an_unreadable_schema_is_an_error_naming_the_file() {
    let stream = search_stream("s42-cli-bad");
    for (name, text, says) in [
        ("search.schema.json", "{not json", "is not JSON"),
        (
            "search.schema.json",
            "{\"type\": \"no-such-type\"}",
            "is not a valid JSON Schema",
        ),
        ("bad%zz.schema.json", "{}", "does not decode"),
    ] {
        let dir = TempDir::new("s42-cli-bad-dir");
        dir.write(name, text);
        let output = run(&["check", stream.s(), "--schemas", dir.s()]);
        assert_eq!(code(&output), 2, "{name}: {}", stdout(&output));
        let error = stderr(&output);
        assert!(
            error.contains(name) && error.contains(says),
            "{name}: {error}"
        );
        assert!(stdout(&output).is_empty());
    }
    let dir = TempDir::new("s42-cli-missing");
    let missing = dir.path().join("nowhere");
    let output = run(&["check", stream.s(), "--schemas", p(&missing)]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("nowhere"), "{}", stderr(&output));
}

// Issue 42: a vector's or fixture's expectation holds the schema warnings
// only with `export --schemas`, so that an exported case replays without
// the folder.
#[test]
fn export_keeps_schema_warnings_out_of_expectations_unless_asked() {
    let dir = TempDir::new("s42-cli-export");
    dir.write(
        "web%2Fsearch.schema.json",
        json!({"properties": {"found": {"type": "string"}}}).to_string(),
    );
    let stream = search_stream("s42-cli-export-stream");
    let expected_codes = |path: &std::path::Path, list: &str| -> Vec<String> {
        let document = load(path);
        match list {
            "vector" => document["expect"]["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
                .collect(),
            // A fixture without warnings has no `warnings` member.
            _ => document["expect"]["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|w| w.as_str().unwrap_or_default().to_owned())
                .collect(),
        }
    };
    let plain = dir.path().join("plain.json");
    run_ok(&["export", stream.s(), "--out", p(&plain)]);
    assert!(expected_codes(&plain, "vector").is_empty());

    let with = dir.path().join("with.json");
    run_ok(&[
        "export",
        stream.s(),
        "--out",
        p(&with),
        "--schemas",
        dir.s(),
    ]);
    assert_eq!(
        expected_codes(&with, "vector"),
        ["activity.content.schema"],
        "the snapshot's found is a number"
    );

    let fixture = dir.path().join("fixture.json");
    run_ok(&[
        "export",
        stream.s(),
        "--format",
        "conformance",
        "--out",
        p(&fixture),
        "--schemas",
        dir.s(),
    ]);
    let warnings = expected_codes(&fixture, "fixture");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("web%2Fsearch.schema.json"),
        "{warnings:?}"
    );
    let plain_fixture = dir.path().join("plain-fixture.json");
    run_ok(&[
        "export",
        stream.s(),
        "--format",
        "conformance",
        "--out",
        p(&plain_fixture),
    ]);
    assert!(expected_codes(&plain_fixture, "fixture").is_empty());
}

// Issue 42: `timing --schemas DIR` lists the findings as `check --schemas`
// reports them, in text after the stalls and in JSON beside the figures;
// without the folder nothing is checked, and an unusable folder fails.
#[test]
fn timing_lists_the_schema_findings_of_a_folder() {
    let stream = search_stream("s42-cli-timing");
    let dir = TempDir::new("s42-cli-timing-out");
    let out = dir.path().join("schemas");
    run_ok(&["schemas", "infer", stream.s(), "--out", p(&out)]);
    let broken = TempPath::jsonl(
        "s42-cli-timing-broken",
        "b.jsonl",
        &[
            run_started(),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "s1", "activityType": "web/search",
                   "content": {"query": "hotels", "found": 0}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "s1", "activityType": "web/search",
                   "patch": [{"op": "replace", "path": "/found", "value": "2"}]}),
            run_finished(),
        ],
    );
    let text = stdout(&run_ok(&["timing", broken.s(), "--schemas", p(&out)]));
    assert!(text.contains("schema findings: 1"), "{text}");
    assert!(
        text.lines().any(|l| l.contains("activity.content.schema")
            && l.contains("s1")
            && l.contains("/found")),
        "{text}"
    );
    let json = run_ok(&[
        "timing",
        broken.s(),
        "--schemas",
        p(&out),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let findings = report["schema_findings"].as_array().expect("the findings");
    assert_eq!(findings.len(), 1, "{report:#}");
    assert_eq!(findings[0]["seq"], 3);
    assert_eq!(findings[0]["code"], "activity.content.schema");
    assert!(report["runs"].is_array(), "the figures are still there");
    // The recording the folder was inferred from has none.
    let clean = stdout(&run_ok(&["timing", stream.s(), "--schemas", p(&out)]));
    assert!(clean.contains("schema findings: none"), "{clean}");
    // Without the folder: no findings, no key.
    let plain = stdout(&run_ok(&["timing", broken.s()]));
    assert!(!plain.contains("schema findings"), "{plain}");
    let plain_json = run_ok(&["timing", broken.s(), "--format", "json"]);
    let plain_json: serde_json::Value = serde_json::from_slice(&plain_json.stdout).expect("JSON");
    assert!(plain_json.get("schema_findings").is_none());
    // A folder that is not there fails, naming it.
    let missing = dir.path().join("missing");
    let output = run(&["timing", broken.s(), "--schemas", p(&missing)]);
    assert_ne!(code(&output), 0);
    assert!(stderr(&output).contains("missing"), "{}", stderr(&output));
}
