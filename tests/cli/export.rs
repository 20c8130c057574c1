//! Exports (`src/export`, `agui-replay export`): import then export gives
//! the input back byte for byte, exports are deterministic, a vector export
//! is a vector that passes, an activity's minimal repro reproduces what
//! that activity went through, redaction replaces exactly the values named
//! (and a redacted vector still passes), and a preview is the start of
//! exactly what gets written.

use std::path::Path;

use agui_replay::export::{
    ExportContext, ExportError, ExportFormat, ExportRequest, Redaction, Scope, export, preview,
    select, vector_document,
};
use agui_replay::open::open_source;
use agui_replay::store::Recording;
use agui_replay::{EventLog, Options, Profile, Replayer, Seq, read_path, replay_log, replay_to};
use serde_json::{Value, json};

use crate::common::events::seq_codes;
use crate::common::snapshot::{assert_output, transcript, transcript_with_file};
use crate::common::*;

fn spec() -> Options {
    Options {
        profile: Profile::Spec,
        best_effort: false,
        ..Options::default()
    }
}

fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .collect()
}

fn joined_lines(lines: &[&[u8]]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    bytes
}

fn log_of(path: &Path) -> EventLog {
    read_path(path)
        .unwrap_or_else(|e| panic!("{} reads: {e}", path.display()))
        .events
}

/// The `messageId`s named by `ACTIVITY_SNAPSHOT` or `ACTIVITY_DELTA` events,
/// in order of first appearance.
fn activity_ids(events: &EventLog) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for (_, raw) in events.iter() {
        let Ok(value) = serde_json::from_slice::<Value>(raw) else {
            continue;
        };
        let is_activity = matches!(
            value["type"].as_str(),
            Some("ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA")
        );
        if let (true, Some(id)) = (is_activity, value["messageId"].as_str())
            && !ids.iter().any(|known| known == id)
        {
            ids.push(id.to_owned());
        }
    }
    ids
}

// ------------------------------------------------ import, export, same bytes

#[test]
fn import_then_export_jsonl_gives_the_demo_byte_for_byte() {
    let original = std::fs::read(demo()).expect("demo reads");
    let rec = TempPath::new("demo_jsonl", "demo.rec");
    run_ok(&["import", p(&demo()), "--out", rec.s()]);

    let out = TempPath::new("demo_jsonl", "out.jsonl");
    run_ok(&["export", rec.s(), "--format", "jsonl", "--out", out.s()]);
    assert!(out.read() == original, "the export differs from the demo");

    // Through a recording export and back.
    let rec2 = TempPath::new("demo_jsonl", "again.rec");
    run_ok(&[
        "export",
        rec.s(),
        "--format",
        "recording",
        "--out",
        rec2.s(),
    ]);
    let out2 = TempPath::new("demo_jsonl", "again.jsonl");
    run_ok(&["export", rec2.s(), "--format", "jsonl", "--out", out2.s()]);
    assert!(
        out2.read() == original,
        "recording → recording → jsonl differs"
    );

    // And straight from the JSON-lines file.
    let out3 = TempPath::new("demo_jsonl", "direct.jsonl");
    run_ok(&["export", p(&demo()), "--out", out3.s()]);
    assert!(out3.read() == original, "jsonl → jsonl differs");
}

#[test]
fn import_then_export_jsonl_keeps_lines_that_are_not_events() {
    let lines: Vec<&[u8]> = vec![
        br#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
        b"not json",
        br#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a1","activityType":"x","content":{"n":1}}"#,
        br#"{"type":"ACTIVITY_DELTA","messageId":"a1","activityType":"x","patch":[{"op":"#,
        b"\xff\xfe\x00 binary\x01 garbage \xc3",
        b"  {\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1}  \t",
        br#"{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}"#,
    ];
    let original = joined_lines(&lines);
    let input = TempPath::with_bytes("not_events", "input.jsonl", &original);
    let rec = TempPath::new("not_events", "input.rec");
    run_ok(&["import", input.s(), "--out", rec.s()]);
    let out = TempPath::new("not_events", "out.jsonl");
    run_ok(&["export", rec.s(), "--format", "jsonl", "--out", out.s()]);
    assert!(
        out.read() == original,
        "export:\n{}\ninput:\n{}",
        String::from_utf8_lossy(&out.read()),
        String::from_utf8_lossy(&original)
    );
}

#[test]
fn import_then_export_sse_gives_the_sse_sample_byte_for_byte() {
    let original = std::fs::read(sample()).expect("sample reads");
    let rec = TempPath::new("sse", "sample.rec");
    run_ok(&["import", p(&sample()), "--out", rec.s()]);
    let out = TempPath::new("sse", "out.sse");
    run_ok(&["export", rec.s(), "--format", "sse", "--out", out.s()]);
    assert!(
        out.read() == original,
        "export:\n{}",
        String::from_utf8_lossy(&out.read())
    );
    // The format follows the extension when not given.
    let out2 = TempPath::new("sse", "by-extension.sse");
    run_ok(&["export", rec.s(), "--out", out2.s()]);
    assert!(out2.read() == original);
}

#[test]
fn range_exports_keep_exactly_the_range() {
    let demo_path = demo();
    let original = std::fs::read(demo()).expect("demo reads");
    let lines = lines_of(&original);
    let out = TempPath::new("range", "range.jsonl");
    run_ok(&[
        "export",
        p(&demo()),
        "--from",
        "5",
        "--to",
        "17",
        "--out",
        out.s(),
    ]);
    assert!(out.read() == joined_lines(&lines[4..17]));

    let upto = TempPath::new("range", "upto.jsonl");
    run_ok(&["export", p(&demo()), "--to", "9", "--out", upto.s()]);
    assert!(upto.read() == joined_lines(&lines[..9]));

    for bad in [
        vec!["--to", "46"],
        vec!["--from", "10", "--to", "5"],
        vec!["--message", "no-such-activity", "--to", "20"],
        vec!["--message", "plan-1", "--to", "3"],
    ] {
        let bad_out = TempPath::new("range", "bad.jsonl");
        let mut args = vec!["export", p(&demo_path), "--out", bad_out.s()];
        args.extend(&bad);
        let output = run(&args);
        assert_eq!(code(&output), 2, "{bad:?}: {}", stderr(&output));
        assert!(!stderr(&output).is_empty(), "{bad:?} says why");
    }

    // An existing output is kept unless --force.
    let existing = TempPath::with_bytes("range", "existing.jsonl", b"keep me\n");
    let output = run(&["export", p(&demo()), "--out", existing.s()]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains(existing.s()),
        "{}",
        stderr(&output)
    );
    assert_eq!(existing.read(), b"keep me\n");
    run_ok(&["export", p(&demo()), "--out", existing.s(), "--force"]);
    assert!(existing.read() == original);
}

// -------------------------------------------------------------- determinism

#[test]
fn exports_are_deterministic_in_every_format() {
    let rec = TempPath::new("determinism", "demo.rec");
    run_ok(&["import", p(&demo()), "--out", rec.s()]);
    let har_rec = TempPath::new("determinism", "har.rec");
    run_ok(&["import", p(&har()), "--out", har_rec.s()]);

    let demo_path = demo();
    let sources: Vec<(&str, Vec<&str>)> = vec![
        ("demo.jsonl", vec![p(&demo_path)]),
        ("demo.rec", vec![rec.s()]),
        ("har.rec", vec![har_rec.s(), "--session", "2"]),
    ];
    let scopes: Vec<(&str, Vec<&str>, bool)> = vec![
        ("all", vec![], true),
        ("upto", vec!["--to", "7"], true),
        ("range", vec!["--from", "2", "--to", "6"], true),
        (
            "repro-plan",
            vec!["--message", "plan-1", "--to", "40"],
            false,
        ),
        (
            "repro-search",
            vec!["--message", "search-1", "--to", "19"],
            false,
        ),
    ];
    let mut compared = 0;
    for (source_name, source_args) in &sources {
        for (scope_name, scope_args, everywhere) in &scopes {
            if !everywhere && *source_name == "har.rec" {
                continue;
            }
            for format in ["jsonl", "sse", "vector", "recording"] {
                let outs = [1, 2].map(|n| {
                    TempPath::new(
                        "determinism",
                        &format!("{source_name}-{scope_name}-{n}.{format}"),
                    )
                });
                for out in &outs {
                    let mut args = vec!["export"];
                    args.extend(source_args);
                    args.extend(scope_args);
                    args.extend(["--format", format, "--out", out.s()]);
                    run_ok(&args);
                }
                let (a, b) = (outs[0].read(), outs[1].read());
                assert!(!a.is_empty(), "{source_name} {scope_name} {format}: empty");
                assert!(
                    a == b,
                    "{source_name} {scope_name} {format}: two exports differ"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 4 * (5 + 5 + 3));
}

// ------------------------------------------------ a vector export passes

/// Checks that the vector document at `path` passes: its `events` replayed
/// under its `profile` give its `expect` (outcome, diagnostics seq and code
/// in order, messages, state), through the library and through `check`.
fn vector_problems(path: &Path, label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let text = std::fs::read_to_string(path).expect("the vector reads");
    let document: Value = match serde_json::from_str(&text) {
        Ok(document) => document,
        Err(e) => return vec![format!("{label}: not JSON ({e})")],
    };
    for key in ["name", "profile"] {
        if !document[key].is_string() {
            problems.push(format!("{label}: `{key}` is not a string"));
        }
    }
    for key in ["rules", "events"] {
        if !document[key].is_array() {
            problems.push(format!("{label}: `{key}` is not an array"));
        }
    }
    let expect = &document["expect"];
    for key in ["outcome", "diagnostics", "messages", "state"] {
        if expect.get(key).is_none() {
            problems.push(format!("{label}: `expect.{key}` is missing"));
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let profile: Profile = match document["profile"].as_str().expect("string").parse() {
        Ok(profile) => profile,
        Err(e) => return vec![format!("{label}: {e}")],
    };
    let stream = read_path(path).expect("a vector document reads");
    if stream.events.len() != document["events"].as_array().expect("array").len() {
        problems.push(format!("{label}: the events do not read back one for one"));
    }
    // A vector exported from a stream with a recorded run input carries it
    // as `input`: step 0 of the replay.
    let options = Options {
        profile,
        best_effort: false,
        ..Options::default()
    };
    let start = match &stream.run_input {
        Some(input) => agui_replay::Replayer::with_run_input(options, input),
        None => agui_replay::Replayer::new(options),
    };
    let replayer = agui_replay::replay::replay_from(start, &stream.events);
    if expect["outcome"] != replayer.outcome().as_str() {
        problems.push(format!(
            "{label}: outcome: expected {}, replayed {}",
            expect["outcome"],
            replayer.outcome().as_str()
        ));
    }
    let expected: Vec<(u64, String)> = seq_codes(expect);
    let replayed: Vec<(u64, String)> = replayer
        .diagnostics()
        .iter()
        .map(|d| (d.seq.get(), d.code.as_str().to_owned()))
        .collect();
    if expected != replayed {
        problems.push(format!(
            "{label}: diagnostics: expected {expected:?}, replayed {replayed:?}"
        ));
    }
    let messages = replayer.conversation().to_json();
    if expect["messages"] != messages {
        problems.push(format!(
            "{label}: messages: expected {}, replayed {messages}",
            expect["messages"]
        ));
    }
    if &expect["state"] != replayer.state() {
        problems.push(format!(
            "{label}: state: expected {}, replayed {}",
            expect["state"],
            replayer.state()
        ));
    }

    // `check` reads it the same way.
    let output = run(&["check", p(path), "--format", "json"]);
    let want_code = if expect["outcome"] == "ok" { 0 } else { 1 };
    if code(&output) != want_code {
        problems.push(format!(
            "{label}: check exits {} for outcome {}: {}",
            code(&output),
            expect["outcome"],
            stderr(&output)
        ));
    } else {
        let report = json_out(&output);
        for key in ["outcome", "messages", "state"] {
            if report[key] != expect[key] {
                problems.push(format!(
                    "{label}: check {key}: expected {}, got {}",
                    expect[key], report[key]
                ));
            }
        }
    }
    problems
}

/// Exports `source_args` as a vector through the command line and checks it.
fn export_vector_problems(test: &str, label: &str, source_args: &[&str]) -> Vec<String> {
    let out = TempPath::new(test, &format!("{}.json", label.replace(['/', ' '], "_")));
    let mut args = vec!["export"];
    args.extend(source_args);
    args.extend(["--format", "vector", "--out", out.s()]);
    let output = run(&args);
    if code(&output) != 0 {
        return vec![format!("{label}: export failed: {}", stderr(&output))];
    }
    vector_problems(out.path(), label)
}

#[test]
fn a_vector_export_is_a_vector_that_passes() {
    let demo_s = p(&demo()).to_owned();
    let owned = |args: &[&str]| -> Vec<String> { args.iter().map(|a| (*a).to_owned()).collect() };
    let mut problems = Vec::new();
    let mut cases: Vec<(String, Vec<String>)> = vec![
        ("demo".into(), owned(&[&demo_s])),
        ("demo-to-20".into(), owned(&[&demo_s, "--to", "20"])),
        (
            "demo-13-19".into(),
            owned(&[&demo_s, "--from", "13", "--to", "19"]),
        ),
        ("sample".into(), owned(&[p(&sample())])),
    ];
    for id in activity_ids(&log_of(&demo())) {
        cases.push((
            format!("demo-repro-{id}"),
            owned(&[&demo_s, "--message", &id, "--to", "45"]),
        ));
    }
    let bad = TempPath::with_bytes(
        "vector_passes",
        "bad.jsonl",
        b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\nnot json\n\xff\xfe\n",
    );
    cases.push(("not-events".into(), owned(&[bad.s()])));
    let vectors = vector_paths();
    for path in &vectors {
        cases.push((format!("vector {}", file_name(path)), owned(&[p(path)])));
    }
    for (label, args) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        problems.extend(export_vector_problems("vector_passes", label, &args));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // A vector export of a client-profile vector keeps its profile.
    let client = vectors
        .iter()
        .find(|path| file_name(path).starts_with("client-profile"))
        .expect("a client-profile vector");
    let out = TempPath::new("vector_passes", "client.json");
    run_ok(&["export", p(client), "--format", "vector", "--out", out.s()]);
    let document: Value = serde_json::from_slice(&out.read()).expect("JSON");
    assert_eq!(document["profile"], "ag-ui-client-1.0");
}

/// A session recorded with a run input (the HAR request body holds earlier
/// messages and a state) exports as a vector that must still pass.
#[test]
fn a_vector_export_of_a_session_with_a_run_input_passes() {
    let rec = TempPath::new("run_input", "har.rec");
    run_ok(&["import", p(&har()), "--out", rec.s()]);
    let har_path = har();
    let mut problems = Vec::new();
    for session in ["1", "2"] {
        problems.extend(export_vector_problems(
            "run_input",
            &format!("har.rec session {session}"),
            &[rec.s(), "--session", session],
        ));
        problems.extend(export_vector_problems(
            "run_input",
            &format!("two-streams.har session {session}"),
            &[p(&har_path), "--session", session],
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ------------------------------------------------------------ minimal repro

/// `(seq, code, severity)` of the diagnostics that carry `id`.
fn activity_diagnostics(replayer: &Replayer, id: &str) -> Vec<(u64, String, String)> {
    replayer
        .diagnostics()
        .iter()
        .filter(|d| d.message_id.as_deref() == Some(id))
        .map(|d| {
            (
                d.seq.get(),
                d.code.as_str().to_owned(),
                d.severity.as_str().to_owned(),
            )
        })
        .collect()
}

/// Exports the repro of `id` up to `to` as a vector through the library,
/// replays the vector file, and compares with the original replayed to `to`:
/// the diagnostics that carry `id` (mapped back to the original seqs) and the
/// activity's JSON. Returns the problems.
fn repro_problems(
    test: &str,
    label: &str,
    events: &EventLog,
    options: Options,
    id: &str,
    to: Seq,
) -> Vec<String> {
    let case = format!("{label} --message {id} --to {to}");
    let mut problems = Vec::new();
    let start = Replayer::new(options);
    let scope = Scope::Repro {
        message_id: id.to_owned(),
        to,
    };
    let selection = match select(events, &start, &scope) {
        Ok(selection) => selection,
        Err(e) => return vec![format!("{case}: select failed: {e}")],
    };
    // Every event but a closing one is a source event, byte for byte, in
    // source order, up to `to`.
    assert_eq!(selection.events.len(), selection.origins.len(), "{case}");
    let mut last_origin = Seq::new(0);
    for (i, ((_, raw), origin)) in selection.events.iter().zip(&selection.origins).enumerate() {
        match origin {
            Some(seq) => {
                if *seq <= last_origin || *seq > to {
                    problems.push(format!("{case}: origin {seq} out of order or past {to}"));
                }
                last_origin = *seq;
                if events.get(*seq) != Some(raw) {
                    problems.push(format!("{case}: event {} is not source event {seq}", i + 1));
                }
            }
            None if i + 1 == selection.events.len() => {
                let closing: Value = serde_json::from_slice(raw).expect("a closing event");
                if closing["type"] != "RUN_FINISHED" {
                    problems.push(format!("{case}: synthesized {closing}"));
                }
            }
            None => problems.push(format!("{case}: synthesized event {} mid-repro", i + 1)),
        }
    }

    let context = ExportContext {
        source_name: label,
        session: None,
        run_input: None,
        options,
        name: case.clone(),
        arrival_nanos: None,
    };
    let out = TempPath::with_bytes(
        test,
        &format!("{}-{id}-{to}.json", label.replace(['/', ' ', '.'], "_")),
        &vector_document(&selection, &context),
    );
    let vector = read_path(out.path()).expect("the repro vector reads");
    let declared: Profile = vector
        .declared_profile
        .as_deref()
        .expect("a vector declares its profile")
        .parse()
        .expect("a known profile");
    if declared != options.profile {
        problems.push(format!(
            "{case}: profile {declared} instead of {}",
            options.profile
        ));
    }
    let repro = replay_log(
        &vector.events,
        Options {
            profile: declared,
            best_effort: false,
            ..Options::default()
        },
    );
    let original = replay_to(events, options, to);

    let expected = activity_diagnostics(&original, id);
    let mapped: Vec<(u64, String, String)> = activity_diagnostics(&repro, id)
        .into_iter()
        .map(|(seq, code, severity)| {
            let origin = Seq::new(seq)
                .index()
                .and_then(|i| selection.origins.get(i).copied().flatten())
                .map_or(0, |s| s.get());
            (origin, code, severity)
        })
        .collect();
    let codes = |list: &[(u64, String, String)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(_, c, s)| (c.clone(), s.clone()))
            .collect()
    };
    if codes(&expected) != codes(&mapped) {
        problems.push(format!(
            "{case}: diagnostics of {id}: original {expected:?}, repro {mapped:?}"
        ));
    } else if expected != mapped {
        problems.push(format!(
            "{case}: diagnostics of {id} on other events: original {expected:?}, repro (mapped back) {mapped:?}"
        ));
    }
    let activity = |replayer: &Replayer| replayer.conversation().get(id).map(|m| m.to_json());
    if activity(&original) != activity(&repro) {
        problems.push(format!(
            "{case}: {id}: original {:?}, repro {:?}",
            activity(&original),
            activity(&repro)
        ));
    }
    problems
}

#[test]
fn a_minimal_repro_reproduces_each_activity_of_every_vector() {
    let mut problems = Vec::new();
    let mut cases = 0;
    for path in vector_paths() {
        let document: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("reads")).expect("JSON");
        let profile: Profile = document["profile"]
            .as_str()
            .unwrap_or("spec")
            .parse()
            .expect("profile");
        let options = Options {
            profile,
            best_effort: false,
            ..Options::default()
        };
        let events = log_of(&path);
        let last = Seq::new(events.len() as u64);
        for id in activity_ids(&events) {
            cases += 1;
            problems.extend(repro_problems(
                "repro_vectors",
                &file_name(&path),
                &events,
                options,
                &id,
                last,
            ));
        }
    }
    assert!(cases >= 30, "only {cases} activities in the vectors");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_minimal_repro_reproduces_each_demo_activity_at_every_step() {
    let events = log_of(&demo());
    let ids = activity_ids(&events);
    assert_eq!(ids, ["plan-1", "search-1", "prices-7", "hotels-1"]);
    let mut problems = Vec::new();
    for id in &ids {
        let first = events
            .iter()
            .find(|(_, raw)| {
                serde_json::from_slice::<Value>(raw).is_ok_and(|v| v["messageId"] == id.as_str())
            })
            .map(|(seq, _)| seq.get())
            .expect("named");
        for to in first..=events.len() as u64 {
            problems.extend(repro_problems(
                "repro_demo",
                "demo.jsonl",
                &events,
                spec(),
                id,
                Seq::new(to),
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // A repro is smaller than the stream it comes from.
    let selection = select(
        &events,
        &Replayer::new(spec()),
        &Scope::Repro {
            message_id: "search-1".into(),
            to: Seq::new(19),
        },
    )
    .expect("selects");
    assert!(
        selection.events.len() < 19,
        "{} events for 19",
        selection.events.len()
    );
}

#[test]
fn a_repro_exported_by_the_command_line_shows_the_same_activity() {
    let demo_path = demo();
    let full = json_out(&run(&["check", p(&demo_path), "--format", "json"]));
    let mut problems = Vec::new();
    for (id, to) in [
        ("search-1", 16),
        ("search-1", 19),
        ("plan-1", 40),
        ("hotels-1", 38),
    ] {
        let to_s = to.to_string();
        let out = TempPath::new("repro_cli", &format!("{id}-{to}.json"));
        let output = run_ok(&[
            "export",
            p(&demo_path),
            "--message",
            id,
            "--to",
            &to_s,
            "--format",
            "vector",
            "--out",
            out.s(),
        ]);
        let document: Value = serde_json::from_slice(&out.read()).expect("JSON");
        let num_events = document["events"].as_array().expect("events").len();
        let said = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            said.contains(&format!("{num_events} events")),
            "export says how many events: {said}"
        );

        // The activity at the repro's last step is the one at step `to`.
        let repro_state = json_out(&run_ok(&[
            "state",
            out.s(),
            "--at",
            &num_events.to_string(),
            "--message",
            id,
        ]));
        let original_state = json_out(&run_ok(&[
            "state",
            p(&demo_path),
            "--at",
            &to_s,
            "--message",
            id,
        ]));
        if repro_state != original_state {
            problems.push(format!(
                "{id} at {to}: state of the repro {repro_state}, of the demo {original_state}"
            ));
        }

        // Its diagnostics are those of the original up to `to`.
        let codes_of = |report: &Value, up_to: Option<u64>| -> Vec<(String, String)> {
            report["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .filter(|d| d["messageId"] == id)
                .filter(|d| up_to.is_none_or(|n| d["seq"].as_u64().expect("seq") <= n))
                .map(|d| {
                    (
                        d["code"].as_str().expect("code").to_owned(),
                        d["severity"].as_str().expect("severity").to_owned(),
                    )
                })
                .collect()
        };
        let repro = json_out(&run(&["check", out.s(), "--format", "json"]));
        let (got, want) = (codes_of(&repro, None), codes_of(&full, Some(to)));
        if got != want {
            problems.push(format!(
                "{id} at {to}: diagnostics of the repro {got:?}, of the demo {want:?}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Regression (issue 4): an activity created by a MESSAGES_SNAPSHOT (R51)
/// keeps that snapshot in its repro.
#[test]
fn a_repro_keeps_the_messages_snapshot_that_created_the_activity() {
    let mut log = agui_replay::EventLog::default();
    for event in [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"activity","activityType":"t","content":{"n":1}}]}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[{"op":"replace","path":"/n","value":2}]}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ] {
        log.push(event.as_bytes());
    }
    let options = Options::default();
    let start = agui_replay::Replayer::new(options);
    let selection = agui_replay::export::select(
        &log,
        &start,
        &agui_replay::export::Scope::Repro {
            message_id: "a".into(),
            to: agui_replay::Seq::new(3),
        },
    )
    .expect("a repro");
    let original = replay_log(&log, options);
    let repro = replay_log(&selection.events, options);
    assert!(repro.diagnostics().is_empty(), "{:?}", repro.diagnostics());
    assert_eq!(
        repro.conversation().get("a").map(|m| m.to_json()),
        original.conversation().get("a").map(|m| m.to_json())
    );
}

// ------------------------------------------------- redaction and preview

/// Runs `f` with a stream opened as the command line opens it (spec
/// profile), and the context an export of it takes.
fn with_source<T>(
    path: &Path,
    session: Option<i64>,
    f: impl FnOnce(&EventLog, &Replayer, &ExportContext<'_>) -> T,
) -> T {
    let source = open_source(path, session).expect("the source opens");
    let start = source.start(spec());
    let source_name = p(path).to_owned();
    let context = ExportContext {
        source_name: &source_name,
        session: source.session.as_ref(),
        run_input: source.run_input.as_ref(),
        options: spec(),
        name: format!("test export of {source_name}"),
        arrival_nanos: source.arrival_nanos.as_deref(),
    };
    f(&source.events, &start, &context)
}

fn redaction(rules: &[(&str, Value)]) -> Redaction {
    Redaction {
        drop_headers: false,
        replace: rules
            .iter()
            .map(|(pointer, value)| ((*pointer).to_owned(), value.clone()))
            .collect(),
    }
}

/// The pointers of [`redaction_replaces_exactly_the_pointed_values`]: a
/// member of one event type, a nested one, an array element, the run input
/// inside `RUN_STARTED` (its message and its thread), and one that matches
/// nothing.
fn demo_rules() -> Vec<(&'static str, Value)> {
    vec![
        ("/threadId", json!("[REDACTED]")),
        ("/content/title", json!({"hidden": true})),
        ("/patch/1/value/price", json!(0)),
        ("/input/messages/0/content", json!("[REDACTED]")),
        ("/input/threadId", json!("[REDACTED]")),
        ("/no/such/member", json!(null)),
    ]
}

#[test]
fn redaction_replaces_exactly_the_pointed_values() {
    // The demo with a line that is not JSON in the middle.
    let original = std::fs::read(demo()).expect("demo reads");
    let mut lines = lines_of(&original);
    lines.insert(10, b"not json: {\"threadId\":\"secret\"}");
    let input = TempPath::with_bytes("redact_exact", "input.jsonl", &joined_lines(&lines));
    let out = TempPath::new("redact_exact", "out.jsonl");
    let rules = demo_rules();
    let request = ExportRequest {
        scope: Scope::UpTo(Seq::new(lines.len() as u64)),
        format: ExportFormat::Jsonl,
        redaction: redaction(&rules),
    };
    let summary = with_source(input.path(), None, |events, start, context| {
        export(events, start, &request, context, out.path())
    })
    .expect("exports");

    let written = out.read();
    let written_lines = lines_of(&written);
    assert_eq!(written_lines.len(), lines.len());
    let mut resolved = 0;
    let mut changed = 0;
    for (index, (before, after)) in lines.iter().zip(&written_lines).enumerate() {
        let Ok(mut expected) = serde_json::from_slice::<Value>(before) else {
            assert_eq!(before, after, "line {}: not JSON, kept as is", index + 1);
            continue;
        };
        let mut hits = 0;
        for (pointer, replacement) in &rules {
            if let Some(target) = expected.pointer_mut(pointer) {
                *target = replacement.clone();
                hits += 1;
            }
        }
        resolved += hits;
        if hits == 0 {
            assert_eq!(
                before,
                after,
                "line {}: untouched, byte for byte",
                index + 1
            );
            continue;
        }
        changed += 1;
        let redacted: Value = serde_json::from_slice(after).expect("a redacted line is JSON");
        assert_eq!(redacted, expected, "line {}", index + 1);
        assert!(
            after.starts_with(br#"{"type":"#),
            "line {}: the members keep their order: {}",
            index + 1,
            String::from_utf8_lossy(after)
        );
    }
    assert!(
        changed >= 6,
        "the pointers reached several events ({changed})"
    );
    assert_eq!(summary.num_events, lines.len());
    assert_eq!(summary.num_bytes, written.len() as u64);
    assert_eq!(summary.redaction.redacted_values, resolved);
    assert_eq!(summary.redaction.unredactable_events, [Seq::new(11)]);
    assert_eq!(summary.redaction.unmatched_pointers, ["/no/such/member"]);
    let notes = summary.redaction.notes().join("\n");
    assert!(
        notes.contains("1 event could not be redacted (not JSON; written as they are): step 11"),
        "{notes}"
    );
    let text = String::from_utf8_lossy(&written);
    assert!(!text.contains("thread-42"), "a threadId is left");
    assert!(
        !text.contains("Plan a weekend"),
        "the run input's message is left"
    );
}

#[test]
fn an_invalid_pointer_is_a_clear_error() {
    for (pointer, reason) in [
        ("threadId", "starts with `/`"),
        ("/a~2b", "`~` must be followed by 0 or 1"),
        ("", "names the whole event"),
    ] {
        let request = ExportRequest {
            scope: Scope::UpTo(Seq::new(45)),
            format: ExportFormat::Jsonl,
            redaction: redaction(&[(pointer, json!(null))]),
        };
        let out = TempPath::new("bad_pointer", "out.jsonl");
        let err = with_source(&demo(), None, |events, start, context| {
            export(events, start, &request, context, out.path())
        })
        .expect_err("refused");
        assert!(
            matches!(&err, ExportError::Pointer { pointer: p, .. } if p == pointer),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("invalid JSON pointer {pointer:?}"))
                && message.contains(reason),
            "{message}"
        );
        assert!(!out.path().exists(), "nothing written");
    }

    for (arg, says) in [
        ("threadId", "invalid JSON pointer"),
        ("/a~2", "`~` must be followed by 0 or 1"),
        ("/threadId=not json", "is not JSON"),
    ] {
        let out = TempPath::new("bad_pointer", "cli.jsonl");
        let output = run(&["export", p(&demo()), "--redact", arg, "--out", out.s()]);
        assert_eq!(code(&output), 2, "{arg}: {}", stderr(&output));
        assert!(stderr(&output).contains(says), "{arg}: {}", stderr(&output));
        assert!(!out.path().exists(), "{arg}: nothing written");
    }
    // `--out` is needed, unless previewing.
    let output = run(&["export", p(&demo())]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("export needs --out OUT (or --preview"),
        "{}",
        stderr(&output)
    );
}

/// The redaction of a vector export is applied before its replay: its
/// expectation is what the redacted events do, so that it still passes.
#[test]
fn a_redacted_vector_export_is_a_vector_that_passes() {
    let demo_s = p(&demo()).to_owned();
    let rec = TempPath::new("redacted_vector", "har.rec");
    run_ok(&["import", p(&har()), "--out", rec.s()]);
    let cases: Vec<(&str, Vec<&str>)> = vec![
        // Every delta's patch becomes a string: the run fails at the first.
        ("patches", vec![&demo_s, "--redact", "/patch"]),
        (
            "values",
            vec![
                &demo_s,
                "--redact",
                "/patch/0/value=42",
                "--redact",
                "/delta",
            ],
        ),
        (
            "repro",
            vec![
                &demo_s,
                "--message",
                "search-1",
                "--to",
                "30",
                "--redact",
                "/patch/1/value",
                "--redact",
                "/runId",
            ],
        ),
        (
            "run-input",
            vec![
                rec.s(),
                "--session",
                "1",
                "--redact",
                "/messages/0/content",
                "--redact",
                "/state/theme=\"light\"",
            ],
        ),
    ];
    let mut problems = Vec::new();
    for (label, args) in &cases {
        problems.extend(export_vector_problems("redacted_vector", label, args));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // Redacting the patches changed what the replay does, and the
    // expectation says so.
    let plain = TempPath::new("redacted_vector", "plain.json");
    run_ok(&["export", &demo_s, "--format", "vector", "--out", plain.s()]);
    let redacted = TempPath::new("redacted_vector", "patches.json");
    run_ok(&[
        "export",
        &demo_s,
        "--format",
        "vector",
        "--redact",
        "/patch",
        "--out",
        redacted.s(),
    ]);
    let plain: Value = serde_json::from_slice(&plain.read()).expect("JSON");
    let redacted: Value = serde_json::from_slice(&redacted.read()).expect("JSON");
    assert_eq!(plain["expect"]["outcome"], "ok");
    assert_eq!(redacted["expect"]["outcome"], "failed");
    assert_ne!(
        plain["expect"]["diagnostics"],
        redacted["expect"]["diagnostics"]
    );

    // The run input is redacted with the same pointers.
    let out = TempPath::new("redacted_vector", "input.json");
    let output = run_ok(&[
        "export",
        rec.s(),
        "--session",
        "1",
        "--redact",
        "/messages/0/content",
        "--redact",
        "/state/theme=\"light\"",
        "--format",
        "vector",
        "--out",
        out.s(),
    ]);
    let document: Value = serde_json::from_slice(&out.read()).expect("JSON");
    assert_eq!(document["input"]["messages"][0]["content"], "[REDACTED]");
    assert_eq!(document["input"]["state"]["theme"], "light");
    assert_eq!(document["expect"]["state"]["theme"], "light", "{document}");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("2 values redacted"), "{report}");
}

#[test]
fn a_preview_is_the_start_of_what_export_writes() {
    let rules = demo_rules();
    let scopes = [
        Scope::UpTo(Seq::new(45)),
        Scope::Range(Seq::new(3), Seq::new(20)),
        Scope::Repro {
            message_id: "search-1".into(),
            to: Seq::new(30),
        },
    ];
    let mut compared = 0;
    for format in [ExportFormat::Jsonl, ExportFormat::Sse, ExportFormat::Vector] {
        for scope in &scopes {
            let request = ExportRequest {
                scope: scope.clone(),
                format,
                redaction: redaction(&rules),
            };
            let out = TempPath::new("preview", "out");
            let summary = with_source(&demo(), None, |events, start, context| {
                export(events, start, &request, context, out.path())
            })
            .expect("exports");
            let written = out.read();
            for max_bytes in [0, 1, 57, 300, 1000, 4096, 1 << 20] {
                let label = format!("{format:?} {scope:?} {max_bytes}");
                let preview = with_source(&demo(), None, |events, start, context| {
                    preview(events, start, &request, context, max_bytes)
                })
                .expect("previews");
                assert!(
                    written.starts_with(preview.text.as_bytes()),
                    "{label}: the preview is not the start of the file"
                );
                assert!(preview.text.len() <= max_bytes, "{label}: too long");
                assert_eq!(
                    preview.truncated,
                    preview.text.len() < written.len(),
                    "{label}"
                );
                assert_eq!(preview.total_bytes, Some(written.len() as u64), "{label}");
                assert_eq!(preview.num_events, summary.num_events, "{label}");
                assert_eq!(preview.redaction, summary.redaction, "{label}");
                if preview.truncated && max_bytes >= 300 {
                    assert!(preview.text.ends_with('\n'), "{label}: cut at a line end");
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 3 * 3 * 7);

    // The command line prints the same, and writes nothing.
    let demo_path = demo();
    for format in ["jsonl", "sse", "vector"] {
        let out = TempPath::new("preview", &format!("cli.{format}"));
        let args = [
            "export",
            p(&demo_path),
            "--message",
            "plan-1",
            "--to",
            "40",
            "--redact",
            "/threadId",
            "--format",
            format,
        ];
        let mut with_out = args.to_vec();
        with_out.extend(["--out", out.s()]);
        run_ok(&with_out);
        let written = out.read();
        out.remove();
        let mut previewing = with_out.clone();
        previewing.extend(["--preview", "--preview-bytes", "700"]);
        let output = run_ok(&previewing);
        assert!(!out.path().exists(), "--preview wrote {}", out.s());
        assert!(output.stdout.len() <= 700 && !output.stdout.is_empty());
        assert!(
            written.starts_with(&output.stdout),
            "{format}: the printed preview is not the start of the file"
        );
        let mut whole = args.to_vec();
        whole.push("--preview");
        let output = run_ok(&whole);
        assert!(output.stdout == written, "{format}: the whole preview");
        assert!(
            stderr(&output).contains("1 value redacted")
                || stderr(&output).contains("values redacted"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn a_recording_preview_summarizes_its_session() {
    let rec = TempPath::new("preview_rec", "har.rec");
    run_ok(&["import", p(&har()), "--out", rec.s()]);
    let request = |drop_headers| ExportRequest {
        scope: Scope::UpTo(Seq::new(7)),
        format: ExportFormat::Recording,
        redaction: Redaction {
            drop_headers,
            replace: vec![("/state/theme".into(), json!("[REDACTED]"))],
        },
    };
    let kept = with_source(rec.path(), Some(1), |events, start, context| {
        preview(events, start, &request(false), context, 1 << 20)
    })
    .expect("previews");
    assert!(
        kept.text
            .starts_with("a recording with one session of 7 events\n"),
        "{}",
        kept.text
    );
    assert_eq!(kept.total_bytes, None);
    assert!(!kept.truncated);
    assert!(
        kept.text
            .contains("request: POST https://app.example.com/agent")
    );
    assert!(
        kept.text.contains("  User-Agent: Mozilla/5.0"),
        "{}",
        kept.text
    );
    assert!(
        kept.text.contains("  Authorization: [redacted]"),
        "{}",
        kept.text
    );
    assert!(
        kept.text.contains(r#""theme":"[REDACTED]""#),
        "{}",
        kept.text
    );
    let events = log_of(session_jsonl(&rec, 1).path());
    let last = events.get(Seq::new(7)).expect("7 events");
    assert!(
        kept.text
            .ends_with(&format!("{}\n", String::from_utf8_lossy(last))),
        "ends with the events: {}",
        kept.text
    );
    assert_eq!(kept.redaction.redacted_values, 1);

    let dropped = with_source(rec.path(), Some(1), |events, start, context| {
        preview(events, start, &request(true), context, 1 << 20)
    })
    .expect("previews");
    assert!(
        dropped.text.contains("request headers: none"),
        "{}",
        dropped.text
    );
    assert!(
        dropped.text.contains("response headers: none"),
        "{}",
        dropped.text
    );
    assert!(!dropped.text.contains("User-Agent"));

    let short = with_source(rec.path(), Some(1), |events, start, context| {
        preview(events, start, &request(true), context, 200)
    })
    .expect("previews");
    assert!(short.truncated && short.text.len() <= 200);
    assert!(dropped.text.starts_with(&short.text));
}

/// The events of session `n` of a recording, as a JSON-lines file.
fn session_jsonl(rec: &TempPath, n: u32) -> TempPath {
    let out = TempPath::new("session_jsonl", &format!("session-{n}.jsonl"));
    run_ok(&[
        "export",
        rec.s(),
        "--session",
        &n.to_string(),
        "--format",
        "jsonl",
        "--out",
        out.s(),
    ]);
    out
}

#[test]
fn drop_headers_leaves_no_headers_in_an_exported_recording() {
    let rec = TempPath::new("drop_headers", "har.rec");
    run_ok(&["import", p(&har()), "--out", rec.s()]);
    let kept = TempPath::new("drop_headers", "kept.rec");
    run_ok(&[
        "export",
        rec.s(),
        "--session",
        "2",
        "--format",
        "recording",
        "--out",
        kept.s(),
    ]);
    let dropped = TempPath::new("drop_headers", "dropped.rec");
    let output = run_ok(&[
        "export",
        rec.s(),
        "--session",
        "2",
        "--format",
        "recording",
        "--drop-headers",
        "--out",
        dropped.s(),
    ]);
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with(&format!("wrote {}: ", dropped.s()))
    );

    let session = |path: &Path| {
        let recording = Recording::open(path).expect("opens");
        recording.pick_session(None).expect("one session").clone()
    };
    let with_headers = session(kept.path());
    let request = with_headers.request.as_ref().expect("a request");
    assert!(request.headers.iter().any(|(name, _)| name == "User-Agent"));
    let without = session(dropped.path());
    let request = without.request.as_ref().expect("the request is kept");
    assert!(request.headers.is_empty(), "{:?}", request.headers);
    assert_eq!(request.method, "POST");
    assert_eq!(
        without.run_input(),
        with_headers.run_input(),
        "the body (run input) is kept"
    );
    let response = without.response.as_ref().expect("the response is kept");
    assert!(response.headers.is_empty(), "{:?}", response.headers);
    assert_eq!(
        response.status,
        with_headers.response.as_ref().expect("a response").status
    );
    let bytes = dropped.read();
    for header in ["User-Agent", "Mozilla/5.0", "X-Accel-Buffering", "Referer"] {
        assert!(
            !bytes.windows(header.len()).any(|w| w == header.as_bytes()),
            "the file still holds {header:?}"
        );
    }
    // The events are the same.
    let events = |path: &Path| {
        let recording = Recording::open(path).expect("opens");
        let id = recording.sessions()[0].id;
        recording.load_events(id).expect("loads")
    };
    assert_eq!(events(kept.path()), events(dropped.path()));

    // Other formats carry no headers: it changes nothing there.
    for format in ["jsonl", "sse", "vector"] {
        let plain = TempPath::new("drop_headers", &format!("plain.{format}"));
        let flagged = TempPath::new("drop_headers", &format!("flagged.{format}"));
        run_ok(&[
            "export",
            rec.s(),
            "--session",
            "2",
            "--format",
            format,
            "--out",
            plain.s(),
        ]);
        run_ok(&[
            "export",
            rec.s(),
            "--session",
            "2",
            "--format",
            format,
            "--drop-headers",
            "--out",
            flagged.s(),
        ]);
        assert!(plain.read() == flagged.read(), "{format}");
    }
}

#[test]
fn redacted_exports_are_deterministic() {
    let rec = TempPath::new("redacted_determinism", "har.rec");
    run_ok(&["import", p(&har()), "--out", rec.s()]);
    let demo_path = demo();
    let sources: Vec<Vec<&str>> = vec![vec![p(&demo_path)], vec![rec.s(), "--session", "2"]];
    for source in &sources {
        for format in ["jsonl", "sse", "vector", "recording"] {
            let outs = [1, 2].map(|n| {
                TempPath::new(
                    "redacted_determinism",
                    &format!("{n}-{}.{format}", source.len()),
                )
            });
            for out in &outs {
                let mut args = vec!["export"];
                args.extend(source);
                args.extend([
                    "--redact",
                    "/threadId",
                    "--redact",
                    "/messages/0/content={\"a\":[1,2.50]}",
                    "--redact",
                    "/patch/0",
                    "--drop-headers",
                    "--format",
                    format,
                    "--out",
                    out.s(),
                ]);
                run_ok(&args);
            }
            let (a, b) = (outs[0].read(), outs[1].read());
            assert!(!a.is_empty());
            assert!(a == b, "{source:?} {format}: two redacted exports differ");
        }
    }
}

/// The values a redaction names in snapshots also reach a UI through the
/// deltas' operations: those are redacted too (whole values at or below the
/// pointer, the part inside values set above it), and the export replays as
/// the original did.
#[test]
fn redaction_follows_the_pointed_value_into_deltas() {
    let demo = demo();
    let out = TempPath::new("redact-deltas", "out.jsonl");
    run_ok(&[
        "export",
        p(&demo),
        "--format",
        "jsonl",
        "--out",
        out.s(),
        "--redact",
        "/content/found",
        "--redact",
        "/snapshot/budget=0",
    ]);
    let written = out.read();
    let mut found_ops = 0;
    let mut budget_ops = 0;
    for line in lines_of(&written) {
        let event: Value = serde_json::from_slice(line).expect("JSON");
        match event["type"].as_str() {
            Some("ACTIVITY_SNAPSHOT") if event["content"].get("found").is_some() => {
                assert_eq!(event["content"]["found"], "[REDACTED]");
            }
            Some("STATE_SNAPSHOT") => assert_eq!(event["snapshot"]["budget"], 0),
            Some("ACTIVITY_DELTA") | Some("STATE_DELTA") => {
                let ops = event.get("patch").or(event.get("delta")).expect("ops");
                for op in ops.as_array().expect("an array") {
                    match op["path"].as_str() {
                        Some("/found") => {
                            found_ops += 1;
                            assert_eq!(op["value"], "[REDACTED]", "{op}");
                        }
                        Some("/budget") => {
                            budget_ops += 1;
                            assert_eq!(op["value"], 0, "{op}");
                        }
                        Some("") if op.get("value").is_some_and(|v| v.get("found").is_some()) => {
                            assert_eq!(op["value"]["found"], "[REDACTED]", "{op}");
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    assert!(found_ops >= 2, "the demo's deltas set /found: {found_ops}");
    assert_eq!(budget_ops, 1, "the demo's state delta sets /budget");
    // Consistent: the redacted stream replays with the original's
    // diagnostics (a `test` of the redacted value still passes).
    let codes = |path: &str| -> Vec<String> {
        let report = json_out(&run(&["check", path, "--format", "json"]));
        report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| format!("{} {}", d["seq"], d["code"]))
            .collect()
    };
    assert_eq!(codes(out.s()), codes(p(&demo)));
}

/// A write that fails at the last moment (the rename over `out`) leaves
/// what was there, the files SQLite keeps beside it included, and nothing
/// of its own.
#[test]
fn a_write_that_fails_at_the_rename_puts_everything_back() {
    let dir = TempPath::new("rename-fails", "dir");
    std::fs::create_dir_all(dir.path()).expect("a directory");
    std::fs::write(dir.path().join("keep"), b"inside").expect("written");
    let wal = TempPath::with_bytes("rename-fails", "dir-wal", b"log of the replaced file");
    let request = ExportRequest {
        scope: Scope::UpTo(Seq::new(5)),
        format: ExportFormat::Jsonl,
        redaction: Redaction::default(),
    };
    let result = with_source(&demo(), None, |events, start, context| {
        export(events, start, &request, context, dir.path())
    });
    assert!(result.is_err(), "a directory cannot be replaced by a file");
    assert_eq!(std::fs::read(dir.path().join("keep")).unwrap(), b"inside");
    assert_eq!(wal.read(), b"log of the replaced file");
    let parent = dir.path().parent().unwrap();
    let stem = file_name(dir.path());
    let leftovers: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&format!(".{stem}")))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    std::fs::remove_dir_all(dir.path()).expect("removed");
}

#[test]
fn a_recording_export_that_fails_names_the_file_asked_for() {
    let out = Path::new("/nonexistent-agui-replay-dir/out.rec");
    let request = ExportRequest {
        scope: Scope::UpTo(Seq::new(5)),
        format: ExportFormat::Recording,
        redaction: Redaction::default(),
    };
    let error = with_source(&demo(), None, |events, start, context| {
        export(events, start, &request, context, out)
    })
    .expect_err("no such directory");
    let message = error.to_string();
    assert!(
        message.contains("/nonexistent-agui-replay-dir/out.rec"),
        "{message}"
    );
    assert!(!message.contains(".partial"), "{message}");
}
#[test]
fn an_export_that_fails_leaves_the_file_it_would_replace() {
    let demo = demo();
    for (format, name) in [("jsonl", "keep.jsonl"), ("recording", "keep.rec")] {
        let out = TempPath::new("failed-export", name);
        std::fs::write(out.path(), "precious\n").expect("written");
        for bad in [
            vec!["--to", "999"],
            vec!["--redact", "content/title"],
            vec!["--message", "no-such-activity", "--to", "10"],
        ] {
            let mut args = vec!["export", p(&demo), "--format", format, "--out", out.s()];
            args.push("--force");
            args.extend(bad.iter().copied());
            let output = run(&args);
            assert_eq!(code(&output), 2, "{args:?}");
            assert_eq!(
                std::fs::read_to_string(out.path()).expect("still there"),
                "precious\n",
                "{args:?}"
            );
        }
        // A good export replaces it, and leaves nothing beside it.
        let output = run(&[
            "export",
            p(&demo),
            "--format",
            format,
            "--out",
            out.s(),
            "--force",
        ]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_ne!(std::fs::read(out.path()).expect("written"), b"precious\n");
        let dir = out.path().parent().unwrap();
        let partial = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.contains("failed-export") && name.ends_with(".partial")
            });
        assert!(!partial, "no partial file is left");
    }
}

#[test]
fn export_refuses_to_write_over_its_input() {
    let copy = TempPath::new("over-input", "demo.jsonl");
    std::fs::copy(demo(), copy.path()).expect("copied");
    let before = std::fs::read(copy.path()).unwrap();
    let output = run(&["export", copy.s(), "--out", copy.s(), "--force"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("the output is the input"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(copy.path()).unwrap(), before);
}

// ---------------------------------------------------------------- snapshots

#[test]
fn export_outputs_are_the_snapshots() {
    // What `export` says and what it writes, in each text format.
    let demo = "recordings/demo.jsonl";
    for (name, args, out) in [
        (
            "range_jsonl",
            &["export", demo, "--from", "13", "--to", "19"][..],
            "range.jsonl",
        ),
        (
            "range_sse",
            &["export", demo, "--from", "1", "--to", "4"],
            "range.sse",
        ),
        (
            "repro_plan_1_vector",
            &["export", demo, "--message", "plan-1", "--to", "27"],
            "repro.json",
        ),
        (
            "repro_search_1_conformance",
            &[
                "export",
                demo,
                "--message",
                "search-1",
                "--to",
                "19",
                "--format",
                "conformance",
            ],
            "search-1-repro.json",
        ),
        (
            "redacted_jsonl",
            &[
                "export",
                demo,
                "--to",
                "3",
                "--redact",
                "/input/messages/0/content",
            ],
            "redacted.jsonl",
        ),
        (
            "har_session_2_vector",
            &["export", "tests/samples/two-streams.har", "--session", "2"],
            "session-2.json",
        ),
    ] {
        assert_output!(name, transcript_with_file(args, out));
    }
    assert_output!(
        "preview_sse",
        transcript(&["export", demo, "--to", "3", "--format", "sse", "--preview"])
    );
    assert_output!(
        "bad_pointer",
        transcript_with_file(&["export", demo, "--redact", "content/title"], "bad.jsonl")
    );
}
