//! Exports (`src/export`, `agui-replay export`): import then export gives
//! the input back byte for byte, exports are deterministic, a vector export
//! is a vector that passes, and an activity's minimal repro reproduces what
//! that activity went through.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agui_replay::export::{ExportContext, Scope, select, vector_document};
use agui_replay::{EventLog, Options, Profile, Replayer, Seq, read_path, replay_log, replay_to};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_agui-replay");

fn manifest_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn demo() -> PathBuf {
    manifest_path("recordings/demo.jsonl")
}

fn sample() -> PathBuf {
    manifest_path("tests/samples/search-agent.sse")
}

fn har() -> PathBuf {
    manifest_path("tests/samples/two-streams.har")
}

fn vector_paths() -> Vec<PathBuf> {
    let dir = manifest_path("tests/vectors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 35, "the shared vectors are there");
    paths
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned()
}

const SIDECARS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// A path under the temp dir unique to this process and test; the file and
/// its SQLite sidecars are removed when dropped.
struct TempPath(PathBuf);

impl TempPath {
    fn new(test: &str, name: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "agui-replay-export-{}-{test}-{name}",
            std::process::id()
        ));
        let temp = Self(path);
        temp.remove();
        temp
    }

    fn with_bytes(test: &str, name: &str, bytes: &[u8]) -> Self {
        let temp = Self::new(test, name);
        std::fs::write(&temp.0, bytes).expect("write temp file");
        temp
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn s(&self) -> &str {
        p(&self.0)
    }

    fn read(&self) -> Vec<u8> {
        std::fs::read(&self.0).unwrap_or_else(|e| panic!("cannot read {}: {e}", self.0.display()))
    }

    fn remove(&self) {
        let _ = std::fs::remove_file(&self.0);
        for suffix in SIDECARS {
            let mut name = self.0.as_os_str().to_owned();
            name.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(name));
        }
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        self.remove();
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited with a code")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs the binary and requires exit 0.
fn run_ok(args: &[&str]) -> Output {
    let output = run(args);
    assert_eq!(
        code(&output),
        0,
        "agui-replay {}\nstdout: {}\nstderr: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    output
}

fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            stderr(output)
        )
    })
}

fn spec() -> Options {
    Options {
        profile: Profile::Spec,
        best_effort: false,
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
    let expected: Vec<(u64, String)> = expect["diagnostics"]
        .as_array()
        .expect("array")
        .iter()
        .map(|d| {
            (
                d["seq"].as_u64().expect("seq"),
                d["code"].as_str().expect("code").to_owned(),
            )
        })
        .collect();
    let replayed: Vec<(u64, String)> = replayer
        .diagnostics()
        .iter()
        .map(|d| (d.seq.0, d.code.as_str().to_owned()))
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
                d.seq.0,
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
    let mut last_origin = Seq(0);
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
        },
    );
    let original = replay_to(events, options, to);

    let expected = activity_diagnostics(&original, id);
    let mapped: Vec<(u64, String, String)> = activity_diagnostics(&repro, id)
        .into_iter()
        .map(|(seq, code, severity)| {
            let origin = Seq(seq)
                .index()
                .and_then(|i| selection.origins.get(i).copied().flatten())
                .map_or(0, |s| s.0);
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
        };
        let events = log_of(&path);
        let last = Seq(events.len() as u64);
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
            .map(|(seq, _)| seq.0)
            .expect("named");
        for to in first..=events.len() as u64 {
            problems.extend(repro_problems(
                "repro_demo",
                "demo.jsonl",
                &events,
                spec(),
                id,
                Seq(to),
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
            to: Seq(19),
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
            to: agui_replay::Seq(3),
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
