//! `export --format conformance` (issue 11, point 4): a repro as a fixture
//! of the AG-UI conformance corpus. Exported from every vector of
//! `tests/vectors` and from steps of the demo, through the binary; each
//! file is checked against the fixture format (`fixture.ts`: the members it
//! requires and their types, and the corpus gate's "a failure says which
//! failure"), judged by the project's conformance judge ([`judge`], the
//! one `tests/engine/conformance.rs` runs the AG-UI corpus through; §11, C1) and
//! compared with what `check` reports on the same events.

use std::path::Path;

use agui_replay::conformance::{Fixture, run_fixture, subset_match};
use agui_replay::{Options, Profile};
use serde_json::Value;

use crate::common::{TempDir, manifest_path, run, stderr, vector_paths};

/// Runs `export SOURCE --format conformance --out OUT EXTRA…` and returns
/// the fixture.
fn export_fixture(source: &Path, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "export",
        source.to_str().expect("a UTF-8 path"),
        "--format",
        "conformance",
        "--out",
        out.to_str().expect("a UTF-8 path"),
        "--force",
    ];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert!(
        output.status.success(),
        "export {args:?} failed: {}",
        stderr(&output)
    );
    let bytes = std::fs::read(out).expect("the fixture was written");
    serde_json::from_slice(&bytes).expect("the fixture is JSON")
}

/// `check SOURCE EXTRA… --format json`.
fn check_json(source: &Path, extra: &[&str]) -> Value {
    let source = source.to_str().expect("a UTF-8 path");
    let (output, report) = crate::common::check_json(&[&[source], extra].concat());
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "check {source} {extra:?}: {}",
        stderr(&output)
    );
    report
}

// ---------------------------------------------------------------------------
// The fixture format (fixture.ts), checked member by member.

fn is_string_array(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|a| a.iter().all(Value::is_string))
}

fn is_object_array(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|a| a.iter().all(Value::is_object))
}

/// The problems of a fixture against the format: the required members
/// (`name` equal to the file name without `.json`, `area`, `description`,
/// `kill`, `stream` of objects, `expect`), the optional ones with their
/// types, no member the format does not define, and the corpus gate's
/// rules (a key beyond `outcome`; `errorContains` where it failed).
fn fixture_problems(fixture: &Value, file: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(object) = fixture.as_object() else {
        return vec!["a fixture is a JSON object".into()];
    };
    for key in object.keys() {
        if ![
            "name",
            "area",
            "description",
            "specPage",
            "kill",
            "client",
            "input",
            "stream",
            "expect",
            "expectOverrides",
        ]
        .contains(&key.as_str())
        {
            problems.push(format!("member {key} is not in the fixture format"));
        }
    }
    for key in ["name", "area", "description", "kill"] {
        match object.get(key).and_then(Value::as_str) {
            Some(text) if !text.trim().is_empty() => {}
            _ => problems.push(format!("{key} must be a non-empty string")),
        }
    }
    let stem = file
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".json"))
        .unwrap_or_default();
    if object.get("name").and_then(Value::as_str) != Some(stem) {
        problems.push(format!(
            "name must equal the file name without .json ({stem})"
        ));
    }
    if let Some(page) = object.get("specPage")
        && !page.is_string()
    {
        problems.push("specPage must be a string".into());
    }
    if let Some(client) = object.get("client") {
        match client.as_object() {
            Some(client) => {
                if client
                    .get("maxProtocolVersion")
                    .is_some_and(|v| !v.is_string())
                {
                    problems.push("client.maxProtocolVersion must be a string".into());
                }
            }
            None => problems.push("client must be an object".into()),
        }
    }
    if let Some(input) = object.get("input") {
        match input.as_object() {
            Some(input) => {
                for key in ["messages", "tools", "context"] {
                    if input.get(key).is_some_and(|v| !is_object_array(v)) {
                        problems.push(format!("input.{key} must be an array of objects"));
                    }
                }
            }
            None => problems.push("input must be an object".into()),
        }
    }
    match object.get("stream") {
        Some(stream) if is_object_array(stream) => {}
        _ => problems.push("stream must be an array of JSON objects".into()),
    }
    let Some(expect) = object.get("expect").and_then(Value::as_object) else {
        problems.push("expect must be an object".into());
        return problems;
    };
    for (key, value) in expect {
        let well_typed = match key.as_str() {
            "outcome" => matches!(value.as_str(), Some("completed" | "failed")),
            "errorContains" => value.is_string(),
            "runError" => value.is_boolean() || value.is_string(),
            "eventTypes" | "eventTypesAbsent" | "eventAbsentPaths" | "warnings"
            | "requestAbsentPaths" => is_string_array(value),
            "eventPaths" | "request" => value.is_object(),
            "noWarnings" => value.is_boolean(),
            "messageCount" => value.is_u64(),
            "messages" => is_object_array(value),
            "state" => true,
            _ => {
                problems.push(format!("expect.{key} is not a key of the format"));
                continue;
            }
        };
        if !well_typed {
            problems.push(format!("expect.{key} has the wrong type: {value}"));
        }
    }
    if expect.keys().all(|k| k == "outcome") {
        problems.push("expect asserts nothing beyond outcome".into());
    }
    if expect.get("outcome").and_then(Value::as_str) == Some("failed")
        && !expect.contains_key("errorContains")
        && !expect.contains_key("runError")
    {
        problems.push("a failed outcome needs errorContains (which failure)".into());
    }
    problems
}

// ---------------------------------------------------------------------------
// The judge: replay a fixture and hold it to its `expect` block.

/// The format's subset match (the library's: arrays of the same length,
/// objects on the keys the expectation names).
fn subset_matches(expected: &Value, actual: &Value) -> bool {
    subset_match(expected, actual).is_ok()
}

/// Replays a fixture's stream from its input under `profile` (no best
/// effort: a consumer stops at a fatal error, R43) and returns the keys of
/// its `expect` block that do not hold; a key the replay cannot show is
/// listed as not judged.
fn judge(fixture: &Value, profile: Profile) -> Vec<String> {
    // The project's own conformance judge (src/conformance.rs), the one
    // `tests/engine/conformance.rs` runs the AG-UI corpus through.
    let fixture = match Fixture::from_json(&fixture.to_string()) {
        Ok(fixture) => fixture,
        Err(error) => return vec![format!("not a fixture: {error}")],
    };
    let options = Options {
        profile,
        ..Options::default()
    };
    let result = run_fixture(&fixture, options);
    let mut failures: Vec<String> = result
        .failed()
        .chain(result.not_judged())
        .map(|key| format!("expect.{}: {:?}", key.key, key.verdict))
        .collect();
    if result.judged() == 0 {
        failures.push("nothing judged".to_owned());
    }
    failures
}

/// The fixture's `expect` against `check --format json` of the same
/// events: the same outcome, the fatal's text holding `errorContains`, the
/// warning messages exactly (none: `noWarnings`), the same final messages
/// and state.
fn assert_matches_check(fixture: &Value, check: &Value, what: &str) {
    let expect = &fixture["expect"];
    let outcome = match check["outcome"].as_str() {
        Some("ok") => "completed",
        Some("failed") => "failed",
        other => panic!("{what}: check's outcome {other:?}"),
    };
    assert_eq!(expect["outcome"], outcome, "{what}: outcome");
    match check["fatal"]["message"].as_str() {
        Some(message) => {
            let contains = expect["errorContains"].as_str().expect("errorContains");
            assert!(
                message.contains(contains),
                "{what}: {contains:?} is not in the fatal {message:?}"
            );
        }
        None => assert!(expect.get("errorContains").is_none(), "{what}"),
    }
    let mut warnings: Vec<&str> = Vec::new();
    for diagnostic in check["diagnostics"].as_array().expect("diagnostics") {
        if diagnostic["severity"] == "warning" {
            let message = diagnostic["message"].as_str().expect("a message");
            if !warnings.contains(&message) {
                warnings.push(message);
            }
        }
    }
    if warnings.is_empty() {
        assert_eq!(expect["noWarnings"], true, "{what}: noWarnings");
        assert!(expect.get("warnings").is_none(), "{what}");
    } else {
        let expected: Vec<&str> = expect["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(expected, warnings, "{what}: warnings");
        assert!(expect.get("noWarnings").is_none(), "{what}");
    }
    assert_eq!(expect["messages"], check["messages"], "{what}: messages");
    assert_eq!(
        expect["messageCount"].as_u64(),
        check["messages"].as_array().map(|m| m.len() as u64),
        "{what}: messageCount"
    );
    assert_eq!(expect["state"], check["state"], "{what}: state");
}

// ---------------------------------------------------------------------------

#[test]
fn every_vector_exports_as_a_fixture_that_passes_and_matches_check() {
    let dir = TempDir::new("vectors");
    let vectors = vector_paths();
    assert!(vectors.len() >= 30, "the vectors are there");
    let mut num_failed = 0;
    for vector in &vectors {
        let document: Value =
            serde_json::from_slice(&std::fs::read(vector).expect("read")).expect("JSON");
        let profile: Profile = document["profile"]
            .as_str()
            .unwrap_or("spec")
            .parse()
            .expect("a profile");
        let stem = vector.file_stem().and_then(|s| s.to_str()).expect("stem");
        let out = dir.join(format!("{stem}.json"));
        let fixture = export_fixture(vector, &out, &[]);
        let what = vector.display().to_string();
        let problems = fixture_problems(&fixture, &out);
        assert!(problems.is_empty(), "{what}: {problems:#?}");
        assert_eq!(fixture["name"], stem);
        // The stream is the vector's events, verbatim.
        assert_eq!(fixture["stream"], document["events"], "{what}: stream");
        let failures = judge(&fixture, profile);
        assert!(failures.is_empty(), "{what}: {failures:#?}");
        assert_matches_check(&fixture, &check_json(vector, &[]), &what);
        // The description says which profile decided it.
        let description = fixture["description"].as_str().unwrap_or_default();
        assert!(description.contains(profile.as_str()), "{description}");
        if fixture["expect"]["outcome"] == "failed" {
            num_failed += 1;
        }
    }
    assert!(num_failed >= 5, "some vectors fail their run: {num_failed}");
}

#[test]
fn demo_steps_export_as_fixtures_that_pass_and_match_check() {
    let dir = TempDir::new("demo");
    let demo = manifest_path("recordings/demo.jsonl");
    // (the export's scope, a name): the stream up to a step, a range, one
    // activity's minimal repro, and the whole stream.
    let scopes: [(&[&str], &str); 7] = [
        (&["--to", "3"], "demo-to-3"),
        (&["--to", "33"], "demo-first-run"),
        (&["--to", "45"], "demo-whole"),
        (&["--from", "1", "--to", "20"], "demo-range"),
        (&["--message", "plan-1", "--to", "33"], "demo-repro-plan"),
        (
            &["--message", "search-1", "--to", "45"],
            "demo-repro-search",
        ),
        (
            &["--message", "hotels-1", "--to", "45"],
            "demo-repro-hotels",
        ),
    ];
    let mut outcomes = Vec::new();
    for (scope, name) in scopes {
        let out = dir.join(format!("{name}.json"));
        let fixture = export_fixture(&demo, &out, scope);
        let what = format!("demo {scope:?}");
        let problems = fixture_problems(&fixture, &out);
        assert!(problems.is_empty(), "{what}: {problems:#?}");
        let failures = judge(&fixture, Profile::Spec);
        assert!(failures.is_empty(), "{what}: {failures:#?}");
        // `check` of the same events: the same scope exported as JSON lines.
        let jsonl = dir.join(format!("{name}.jsonl"));
        let mut args = vec![
            "export",
            demo.to_str().expect("UTF-8"),
            "--format",
            "jsonl",
            "--out",
            jsonl.to_str().expect("UTF-8"),
        ];
        args.extend_from_slice(scope);
        assert!(run(&args).status.success(), "{args:?}");
        assert_matches_check(&fixture, &check_json(&jsonl, &[]), &what);
        let expect = &fixture["expect"];
        outcomes.push((
            expect.get("noWarnings").is_some(),
            expect["messageCount"].as_u64(),
        ));
    }
    // Both kinds were seen: a clean prefix and one with warnings.
    assert!(outcomes.iter().any(|(quiet, _)| *quiet), "{outcomes:?}");
    assert!(outcomes.iter().any(|(quiet, _)| !*quiet), "{outcomes:?}");
}

#[test]
fn a_fixture_under_the_client_profile_holds_what_that_profile_saw() {
    let dir = TempDir::new("client");
    let demo = manifest_path("recordings/demo.jsonl");
    for profile in Profile::ALL {
        let out = dir.join(format!("demo-{profile}.json"));
        let fixture = export_fixture(&demo, &out, &["--profile", profile.as_str()]);
        assert!(fixture_problems(&fixture, &out).is_empty());
        let failures = judge(&fixture, profile);
        assert!(failures.is_empty(), "{profile}: {failures:#?}");
        assert_matches_check(
            &fixture,
            &check_json(&demo, &["--profile", profile.as_str()]),
            profile.as_str(),
        );
    }
    // The two profiles differ on the demo (R12 is a warning under spec, P2
    // a note under the client), so each fixture is its own profile's.
    let spec: Value =
        serde_json::from_slice(&std::fs::read(dir.join("demo-spec.json")).expect("read"))
            .expect("JSON");
    let client: Value = serde_json::from_slice(
        &std::fs::read(dir.join("demo-ag-ui-client-1.0.json")).expect("read"),
    )
    .expect("JSON");
    assert_ne!(spec["expect"], client["expect"]);
}

#[test]
fn a_fixture_is_deterministic_and_named_after_its_file() {
    let dir = TempDir::new("deterministic");
    let demo = manifest_path("recordings/demo.jsonl");
    let first = dir.join("lisbon-weekend.json");
    let second = dir.join("again.json");
    export_fixture(&demo, &first, &["--to", "20"]);
    export_fixture(&demo, &second, &["--to", "20"]);
    let first_bytes = std::fs::read(&first).expect("read");
    let second_bytes = std::fs::read(&second).expect("read");
    let first: Value = serde_json::from_slice(&first_bytes).expect("JSON");
    let second: Value = serde_json::from_slice(&second_bytes).expect("JSON");
    assert_eq!(first["name"], "lisbon-weekend");
    assert_eq!(second["name"], "again");
    // Same input, same bytes, but for the name.
    let renamed = String::from_utf8(second_bytes).expect("UTF-8").replacen(
        r#""name": "again""#,
        r#""name": "lisbon-weekend""#,
        1,
    );
    assert_eq!(renamed.as_bytes(), first_bytes.as_slice());
    // The preview is the same fixture, named after --out.
    let preview = run(&[
        "export",
        demo.to_str().expect("UTF-8"),
        "--format",
        "conformance",
        "--to",
        "20",
        "--out",
        dir.join("lisbon-weekend.json").to_str().expect("UTF-8"),
        "--preview",
    ]);
    assert!(preview.status.success(), "{}", stderr(&preview));
    assert_eq!(preview.stdout, first_bytes);
}

#[test]
fn a_fatal_fixture_names_the_failing_entity() {
    // A delta tagged with another owner than the activity's is fatal (R22):
    // errorContains is the activity's id, which the fatal's text names.
    let vector = manifest_path("tests/vectors/tagged-delta-owner-mismatch-is-fatal.json");
    let dir = TempDir::new("fatal");
    let out = dir.join("owner.json");
    let fixture = export_fixture(&vector, &out, &[]);
    let check = check_json(&vector, &[]);
    let fatal = &check["fatal"];
    assert_eq!(fixture["expect"]["outcome"], "failed");
    let contains = fixture["expect"]["errorContains"].as_str().expect("a text");
    assert!(
        fatal["message"]
            .as_str()
            .is_some_and(|m| m.contains(contains)),
        "{contains:?} in {fatal}"
    );
    if let Some(id) = fatal["messageId"].as_str() {
        assert_eq!(contains, id, "the entity, not the whole text");
    }
    let kill = fixture["kill"].as_str().unwrap_or_default();
    assert!(kill.contains("subagent.owner-mismatch"), "{kill}");
    assert_eq!(fixture["area"], "subagents");
}

#[test]
fn an_event_that_is_not_an_object_cannot_be_a_fixture_event() {
    let dir = TempDir::new("not-object");
    let stream = dir.join("stream.jsonl");
    std::fs::write(
        &stream,
        concat!(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            "\n[1, 2]\n",
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
            "\n"
        ),
    )
    .expect("write");
    let out = dir.join("bad.json");
    let output = run(&[
        "export",
        stream.to_str().expect("UTF-8"),
        "--format",
        "conformance",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let error = stderr(&output);
    assert!(
        error.contains("event 2 cannot go into a conformance fixture") && error.contains("array"),
        "{error}"
    );
    assert!(!out.exists(), "nothing written");
    // Leaving it out works.
    let fixture = export_fixture(&stream, &out, &["--to", "1"]);
    assert!(fixture_problems(&fixture, &out).is_empty());
}

#[test]
fn a_json_file_stays_a_vector_unless_conformance_is_asked_for() {
    let dir = TempDir::new("json-default");
    let demo = manifest_path("recordings/demo.jsonl");
    let out = dir.join("plain.json");
    let output = run(&[
        "export",
        demo.to_str().expect("UTF-8"),
        "--to",
        "5",
        "--out",
        out.to_str().expect("UTF-8"),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let vector: Value = serde_json::from_slice(&std::fs::read(&out).expect("read")).expect("JSON");
    assert!(vector.get("events").is_some() && vector.get("stream").is_none());
}

#[test]
fn a_recorded_run_input_becomes_the_fixture_input() {
    // A HAR exchange's request body is the run input (step 0, R50).
    let har = manifest_path("tests/samples/two-streams.har");
    let dir = TempDir::new("input");
    let out = dir.join("har-1.json");
    let fixture = export_fixture(&har, &out, &["--session", "1"]);
    assert!(fixture_problems(&fixture, &out).is_empty());
    let input = fixture["input"].as_object().expect("an input");
    assert!(input.contains_key("messages"), "{input:?}");
    for key in input.keys() {
        assert!(
            ["messages", "tools", "context", "forwardedProps", "state"].contains(&key.as_str()),
            "{key}"
        );
    }
    assert!(judge(&fixture, Profile::Spec).is_empty());
    assert_matches_check(&fixture, &check_json(&har, &["--session", "1"]), "har");
}

#[test]
fn redaction_applies_to_the_fixture_stream_and_its_expectation() {
    let dir = TempDir::new("redact");
    let demo = manifest_path("recordings/demo.jsonl");
    let out = dir.join("redacted.json");
    let fixture = export_fixture(
        &demo,
        &out,
        &["--to", "10", "--redact", "/snapshot/city=\"[city]\""],
    );
    assert_eq!(fixture["stream"][1]["type"], "STATE_SNAPSHOT");
    assert_eq!(fixture["stream"][1]["snapshot"]["city"], "[city]");
    assert_eq!(fixture["expect"]["state"]["city"], "[city]");
    assert!(judge(&fixture, Profile::Spec).is_empty());
}

#[test]
fn the_judge_catches_a_fixture_that_does_not_hold() {
    // The judge is what the exports above pass; it must be able to fail.
    let demo = manifest_path("recordings/demo.jsonl");
    let dir = TempDir::new("judge");
    let out = dir.join("demo.json");
    let fixture = export_fixture(&demo, &out, &[]);
    let mut wrong = fixture.clone();
    wrong["expect"]["messageCount"] = Value::from(999);
    assert_eq!(judge(&wrong, Profile::Spec).len(), 1);
    let mut wrong = fixture.clone();
    wrong["expect"]["outcome"] = Value::from("failed");
    assert!(!judge(&wrong, Profile::Spec).is_empty());
    let mut wrong = fixture.clone();
    wrong["expect"]["warnings"] = serde_json::json!(["no warning says this"]);
    assert!(!judge(&wrong, Profile::Spec).is_empty());
    let mut wrong = fixture;
    wrong["expect"]["eventTypes"] = serde_json::json!(["RUN_STARTED"]);
    let failures = judge(&wrong, Profile::Spec);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].starts_with("expect.eventTypes: Failed"),
        "{failures:?}"
    );
    assert!(subset_matches(
        &serde_json::json!({"a": [1, {"b": 2}]}),
        &serde_json::json!({"a": [1, {"b": 2, "c": 3}], "d": 4})
    ));
    assert!(!subset_matches(
        &serde_json::json!({"a": [1]}),
        &serde_json::json!({"a": [1, 2]})
    ));
}
