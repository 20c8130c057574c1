//! Limits (issue 12, items 1–4, 7, 11, 12, 14): what a patch may build,
//! what a recording may declare, files that are not streams, and errors
//! that say what is wrong. Every hostile input is generated here.

use std::path::{Path, PathBuf};

use agui_replay::replay::{MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH};
use serde_json::{Value, json};

use crate::common::bin::{exit_code as code, run_capped};
use crate::common::events::{codes, jsonl as lines};
use crate::common::{TempDir, json_out, run, stderr};

fn start() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
}

fn finish() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
}

fn snapshot(content: Value) -> Value {
    json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "m", "activityType": "t", "content": content})
}

fn activity_delta(patch: Value) -> Value {
    json!({"type": "ACTIVITY_DELTA", "messageId": "m", "activityType": "t", "patch": patch})
}

/// How deep JSON text nests arrays and objects: the outputs here are
/// deeper than `serde_json` parses (128), so they are measured as text.
fn text_depth(text: &[u8]) -> usize {
    let (mut level, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                level += 1;
                deepest = deepest.max(level);
            }
            b']' | b'}' => level = level.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Three operations that wrap the value at `/a` in one more object.
fn nest_once() -> Value {
    json!([
        {"op": "add", "path": "/b", "value": {}},
        {"op": "move", "from": "/a", "path": "/b/a"},
        {"op": "move", "from": "/b", "path": "/a"}
    ])
}

// Issue 12, item 1: 60,000 deltas that each nest the content one level
// deeper built a document the replay could not drop or print (stack
// overflow, exit 134). The depth stops at the limit and the run goes on.
#[test]
fn self_nesting_deltas_stop_at_the_depth_limit() {
    const LEVELS: usize = 60_000;
    let dir = TempDir::new("nesting");
    let mut events = vec![start(), snapshot(json!({"a": {}}))];
    events.extend((0..LEVELS).map(|_| activity_delta(nest_once())));
    events.push(finish());
    let file = dir.write("nesting.jsonl", lines(&events));
    let file = file.to_str().expect("utf8");

    let output = run(&["check", file]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        report.contains("outcome ok"),
        "{}",
        &report[report.len().saturating_sub(300)..]
    );
    let limited = report
        .lines()
        .filter(|line| line.contains("  patch.limit.depth  "))
        .count();
    // The content starts 2 deep; each applied delta adds one level.
    let applied = MAX_DOCUMENT_DEPTH - 2;
    assert_eq!(limited, LEVELS - applied);

    // `state --at` and `diff` walk the same documents: the activity
    // message (one object) around content as deep as a document may be.
    let at = (events.len() - 1).to_string();
    let output = run(&["state", file, "--at", &at, "--message", "m"]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    assert_eq!(text_depth(&output.stdout), MAX_DOCUMENT_DEPTH + 1);
    let output = run(&["diff", file, "--from", "2", "--to", &at, "--message", "m"]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
}

/// Operations that each copy the document into its deepest object,
/// doubling its depth: `{"a":{}}` → 2, 4, 8, … levels.
fn doubling_copies(num_ops: u32) -> Value {
    let ops: Vec<Value> = (0..num_ops)
        .map(|i| {
            let path = "/a".repeat(1 << i);
            json!({"op": "copy", "from": "", "path": path})
        })
        .collect();
    Value::Array(ops)
}

// Issue 12, item 1: the same in one delta, and in the state.
#[test]
fn one_delta_doubling_the_depth_is_skipped_whole() {
    let dir = TempDir::new("doubling");
    let events = [
        start(),
        snapshot(json!({})),
        activity_delta(doubling_copies(17)),
        json!({"type": "STATE_DELTA", "delta": doubling_copies(17)}),
        finish(),
    ];
    let file = dir.write("doubling.jsonl", lines(&events));
    let output = run(&["check", file.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    let report = json_out(&output);
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    let limited: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "patch.limit.depth")
        .collect();
    assert_eq!(limited.len(), 2, "{diagnostics:?}");
    assert_eq!(limited[0]["seq"], 3);
    assert_eq!(limited[0]["messageId"], "m");
    // 2^7 = 128 levels fit; the eighth copy would pass them.
    assert_eq!(limited[0]["path"], "/patch/7");
    assert_eq!(limited[1]["seq"], 4);
    // Atomic (R11): nothing of the skipped patches applied.
    assert_eq!(report["messages"][0]["content"], json!({}));
    assert_eq!(report["state"], json!({}));
}

// Issue 12, item 2: one 3.9 KB delta of 20 copies, each doubling an array
// into itself, took 1.84 GB. It now stops at the size limit, under a
// memory cap the old code could not run within.
#[test]
fn doubling_copies_stop_at_the_size_limit() {
    let dir = TempDir::new("bomb");
    let items: Vec<Value> = (0..100)
        .map(|i| json!(format!("item {i:03} of the list")))
        .collect();
    let ops: Vec<Value> = (0..20)
        .map(|_| json!({"op": "copy", "from": "/a", "path": "/a/-"}))
        .collect();
    let events = [
        start(),
        snapshot(json!({"a": items})),
        activity_delta(Value::Array(ops.clone())),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": items}}),
        json!({"type": "STATE_DELTA", "delta": ops}),
        activity_delta(json!([{"op": "add", "path": "/after", "value": true}])),
        finish(),
    ];
    let text = lines(&events);
    assert!(text.len() < 16 * 1024, "the bomb is small: {}", text.len());
    let file = dir.write("bomb.jsonl", text);
    // 1.5 GB of address space: the limit needs a fraction of it.
    let output = run_capped(
        1_500_000,
        &["check", file.to_str().expect("utf8"), "--format", "json"],
    );
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    let report = json_out(&output);
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    let limited: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "patch.limit.size")
        .collect();
    assert_eq!(limited.len(), 2, "{diagnostics:?}");
    assert_eq!(limited[0]["seq"], 3);
    assert_eq!(limited[1]["seq"], 5);
    // The run goes on: the delta after the bomb applied.
    let content = &report["messages"][0]["content"];
    assert_eq!(content["after"], true);
    assert_eq!(content["a"].as_array().map(Vec::len), Some(100));
    let message = limited[0]["message"].as_str().expect("message");
    assert!(
        message.contains(&MAX_DOCUMENT_BYTES.to_string()),
        "{message}"
    );
}

// Issue 12, item 2: operations per patch are bounded.
#[test]
fn a_patch_of_too_many_operations_is_skipped() {
    let dir = TempDir::new("ops");
    let ops: Vec<Value> = (0..10_001)
        .map(|_| json!({"op": "test", "path": "/x", "value": 1}))
        .collect();
    let events = [
        start(),
        snapshot(json!({"x": 1})),
        activity_delta(Value::Array(ops)),
        finish(),
    ];
    let file = dir.write("ops.jsonl", lines(&events));
    let output = run(&["check", file.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(codes(&report), ["patch.limit.ops"]);
    assert_eq!(report["diagnostics"][0]["path"], "/patch/10000");
}

// Issue 12, item 14: content nested past the parse limit said "`content`
// must be an object, found an object".
#[test]
fn content_nested_past_the_parse_limit_says_so() {
    let dir = TempDir::new("deep-content");
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let text = format!(
        "{}\n{{\"type\":\"ACTIVITY_SNAPSHOT\",\"messageId\":\"m\",\"activityType\":\"t\",\"content\":{{\"a\":{deep}}}}}\n",
        start()
    );
    let file = dir.write("deep.jsonl", text);
    let output = run(&["check", file.to_str().expect("utf8"), "--format", "json"]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let report = json_out(&output);
    let diagnostic = &report["diagnostics"][0];
    assert_eq!(diagnostic["code"], "event.malformed");
    let message = diagnostic["message"].as_str().expect("message");
    assert!(message.contains("deeper than the parse limit"), "{message}");
    assert!(!message.contains("found an object"), "{message}");
}

/// A recording of `events`, made by `import`.
fn recording(dir: &TempDir, name: &str, inputs: &[(&str, &str)]) -> PathBuf {
    let mut args = vec!["import".to_owned()];
    for (file, text) in inputs {
        args.push(dir.write(file, text).to_str().expect("utf8").to_owned());
    }
    let out = dir.join(name);
    args.extend(["--out".to_owned(), out.to_str().expect("utf8").to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    out
}

fn small_stream() -> String {
    lines(&[start(), snapshot(json!({"n": 1})), finish()])
}

fn sql(path: &Path, statement: &str) {
    let conn = rusqlite::Connection::open(path).expect("opens");
    conn.execute_batch(statement).expect("runs");
}

// Issue 12, item 3: a row id moved to 2^40 - 1 made the reader reserve
// num_events x 200 bytes and abort.
#[test]
fn a_recording_declaring_a_huge_session_is_refused() {
    let dir = TempDir::new("huge");
    let rec = recording(&dir, "huge.rec", &[("a.jsonl", &small_stream())]);
    let last = (1i64 << 40) + 3;
    let moved = (1i64 << 40) + (1i64 << 40) - 1;
    sql(
        &rec,
        &format!("UPDATE events SET id = {moved} WHERE id = {last}"),
    );
    let output = run(&["check", rec.to_str().expect("utf8")]);
    assert_eq!(code(&output), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("recording is damaged"), "{message}");
    assert!(message.contains("1099511627775 events"), "{message}");
    assert!(message.contains("huge.rec"), "{message}");
}

// Issue 12, item 4: `session << 40` wrapped for session ids of 2^23 and
// more: session 2^24 + 1 read the rows of session 1.
#[test]
fn session_ids_past_the_row_id_range_are_refused() {
    let dir = TempDir::new("session-ids");
    let rec = recording(&dir, "ids.rec", &[("a.jsonl", &small_stream())]);
    let wrapping = (1i64 << 24) + 1;
    sql(
        &rec,
        &format!(
            "INSERT INTO sessions (id, source, format, started_at_unix_ms, status)
             VALUES ({wrapping}, 'forged', 'jsonl', 0, 'complete')"
        ),
    );
    let session = wrapping.to_string();
    let output = run(&["check", rec.to_str().expect("utf8"), "--session", &session]);
    assert_eq!(code(&output), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.contains(&format!("session id {wrapping} is out of range")),
        "{message}"
    );

    // The writer refuses to start the session that would wrap.
    let dir = TempDir::new("session-ids-writer");
    let rec = recording(&dir, "full.rec", &[("a.jsonl", &small_stream())]);
    sql(
        &rec,
        "PRAGMA foreign_keys = OFF;
         UPDATE sessions SET id = 8388607;
         UPDATE events SET session_id = 8388607;",
    );
    let mut writer = agui_replay::store::RecordingWriter::open(&rec).expect("opens");
    let err = writer
        .begin_session(agui_replay::store::NewSession {
            source: "next".into(),
            format: "jsonl".into(),
            ..Default::default()
        })
        .expect_err("no session past 2^23 - 1");
    assert!(err.to_string().contains("recording is full"), "{err}");
}

// Issue 12, item 7: one byte that is not UTF-8 refused a whole JSON array.
#[test]
fn an_invalid_byte_in_a_json_array_costs_one_element() {
    let dir = TempDir::new("utf8");
    let mut text = b"[\n".to_vec();
    text.extend(start().to_string().as_bytes());
    text.extend(b",\n{\"type\":\"CUSTOM\",\"name\":\"bad \xff byte\",\"value\":1},\n");
    text.extend(snapshot(json!({"kept": true})).to_string().as_bytes());
    text.extend(b"\n]\n");
    let file = dir.write("array.json", &text);
    let output = run(&[
        "check",
        file.to_str().expect("utf8"),
        "--format",
        "json",
        "--best-effort",
    ]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["events"], 3);
    assert_eq!(report["diagnostics"][0]["code"], "event.unparseable");
    assert_eq!(report["diagnostics"][0]["seq"], 2);
    assert_eq!(report["messages"][0]["content"]["kept"], true);

    // Import keeps the damaged element byte for byte.
    let rec = dir.join("array.rec");
    let output = run(&[
        "import",
        file.to_str().expect("utf8"),
        "--out",
        rec.to_str().expect("utf8"),
    ]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    let conn = rusqlite::Connection::open(&rec).expect("opens");
    let raw: Vec<u8> = conn
        .query_row("SELECT raw FROM events WHERE seq = 2", [], |row| row.get(0))
        .expect("row");
    assert_eq!(
        raw,
        b"{\"type\":\"CUSTOM\",\"name\":\"bad \xff byte\",\"value\":1}"
    );
}

// Issue 12, item 11: a recording whose first 16 bytes are zeroed was
// replayed as JSON lines (122 unparseable events, exit 1).
#[test]
fn a_recording_with_a_zeroed_header_is_damaged_not_text() {
    let dir = TempDir::new("zeroed");
    let rec = recording(&dir, "zeroed.rec", &[("a.jsonl", &small_stream())]);
    let mut bytes = std::fs::read(&rec).expect("reads");
    bytes[..16].fill(0);
    std::fs::write(&rec, &bytes).expect("writes");
    let output = run(&["check", rec.to_str().expect("utf8")]);
    assert_eq!(code(&output), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("recording is damaged"), "{message}");
    assert!(message.contains("zeroed.rec"), "{message}");
}

// Issue 12, item 11: a PNG, a TOML file starting with `[` and `[[[]]]` were
// accepted as event streams (or `[[[]]]` as a HAR file).
#[test]
fn files_in_which_nothing_is_an_event_are_refused() {
    let dir = TempDir::new("foreign");
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend((0..2000u32).map(|i| (i * 7 % 251) as u8));
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("image.png", png, "a PNG image"),
        (
            "Cargo.toml",
            b"[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n"
                .to_vec(),
            "a TOML or INI file",
        ),
        (
            "nested.json",
            b"[[[]]]".to_vec(),
            "JSON that holds no event",
        ),
        (
            "objects.jsonl",
            b"{\"a\":1}\n{\"kind\":\"X\"}\n".to_vec(),
            "JSON",
        ),
    ];
    for (name, bytes, looks) in cases {
        let file = dir.write(name, bytes);
        let file = file.to_str().expect("utf8");
        for command in ["check", "import"] {
            let out = dir.join(format!("{name}.rec"));
            let args = match command {
                "check" => vec!["check", file],
                _ => vec!["import", file, "--out", out.to_str().expect("utf8")],
            };
            let output = run(&args);
            assert_eq!(
                code(&output),
                Some(2),
                "{command} {name}: {}",
                stderr(&output)
            );
            let message = stderr(&output);
            assert!(message.contains("not an AG-UI event stream"), "{message}");
            assert!(message.contains(looks), "{name}: {message}");
            assert!(message.contains(name), "{message}");
            assert!(!message.contains("HAR"), "{message}");
        }
        // The app opens files with the same library function.
        let err = agui_replay::open::open_source(Path::new(file), None).expect_err(name);
        assert!(
            err.to_string().contains("not an AG-UI event stream"),
            "{err}"
        );
    }

    // Some garbage in a stream is kept, byte for byte, as events.
    let text = format!(
        "{}garbage \u{1} here\n{}",
        lines(&[start()]),
        lines(&[finish()])
    );
    let file = dir.write("some-garbage.jsonl", &text);
    let output = run(&[
        "check",
        file.to_str().expect("utf8"),
        "--format",
        "json",
        "--best-effort",
    ]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["events"], 3);
    assert_eq!(codes(&report), ["event.unparseable"]);
}

// Issue 12, item 11: an empty HAR exchange's error named `response.sse`.
#[test]
fn an_empty_har_exchange_is_reported_of_the_har_file() {
    let dir = TempDir::new("har");
    let har = json!({"log": {"entries": [{
        "request": {"method": "POST", "url": "https://agent.example/run", "headers": []},
        "response": {"status": 200, "headers": [],
                     "content": {"mimeType": "text/event-stream", "text": ""}}
    }]}});
    let file = dir.write("empty.har", har.to_string());
    let output = run(&["check", file.to_str().expect("utf8")]);
    assert_eq!(code(&output), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("empty.har"), "{message}");
    assert!(
        message.contains("POST https://agent.example/run"),
        "{message}"
    );
    assert!(!message.contains("response.sse"), "{message}");
}

// Issue 12, item 12: importing a vector dropped its profile, so the
// recording replayed differently from the vector.
#[test]
fn an_imported_vector_replays_with_its_profile() {
    let dir = TempDir::new("profile");
    let vector = json!({
        "name": "a delta for an unknown activity",
        "profile": "ag-ui-client-1.0",
        "events": [
            start(),
            json!({"type": "ACTIVITY_DELTA", "messageId": "ghost", "activityType": "t",
                   "patch": [{"op": "add", "path": "/x", "value": 1}]}),
            finish()
        ]
    });
    let file = dir.write("vector.json", vector.to_string());
    let file = file.to_str().expect("utf8");
    let rec = dir.join("vector.rec");
    let output = run(&["import", file, "--out", rec.to_str().expect("utf8")]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));

    let from_vector = json_out(&run(&["check", file, "--format", "json"]));
    let from_recording = json_out(&run(&[
        "check",
        rec.to_str().expect("utf8"),
        "--format",
        "json",
    ]));
    // The reference client only notes it; the spec warns.
    assert_eq!(from_vector["diagnostics"][0]["severity"], "note");
    assert_eq!(from_recording["diagnostics"], from_vector["diagnostics"]);
    // `--profile` still overrides.
    let spec = json_out(&run(&[
        "check",
        rec.to_str().expect("utf8"),
        "--format",
        "json",
        "--profile",
        "spec",
    ]));
    assert_eq!(spec["diagnostics"][0]["severity"], "warning");

    // A recording exported from it keeps the profile too.
    let exported = dir.join("exported.rec");
    let output = run(&[
        "export",
        rec.to_str().expect("utf8"),
        "--out",
        exported.to_str().expect("utf8"),
    ]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    let from_export = json_out(&run(&[
        "check",
        exported.to_str().expect("utf8"),
        "--format",
        "json",
    ]));
    assert_eq!(from_export["diagnostics"], from_vector["diagnostics"]);
}

/// Serves one HTTP response (`content_type`, `body`) to the first request
/// on a loopback port; returns the agent's URL.
fn serve_once(content_type: &'static str, body: Vec<u8>) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let url = format!("http://{}/agent", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        // The request: headers, then as many body bytes as they announce.
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buffer) {
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if request.len() >= end + 4 + length {
                    break;
                }
            }
        }
        let head =
            format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n");
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&body);
    });
    url
}

/// Runs `run` against a server answering `body`; the recorded events'
/// lengths and the session's status.
fn run_against(name: &str, content_type: &'static str, body: Vec<u8>) -> (Vec<usize>, String) {
    let dir = TempDir::new(name);
    let url = serve_once(content_type, body);
    let input = dir.write(
        "run.json",
        json!({"threadId": "t", "runId": "r"}).to_string(),
    );
    let rec = dir.join("run.rec");
    let output = run(&[
        "run",
        &url,
        "--input",
        input.to_str().expect("utf8"),
        "--out",
        rec.to_str().expect("utf8"),
    ]);
    assert!(output.status.code().is_some(), "{}", stderr(&output));
    let conn = rusqlite::Connection::open(&rec).expect("opens");
    let mut statement = conn
        .prepare("SELECT length(raw) FROM events ORDER BY id")
        .expect("prepares");
    let lengths = statement
        .query_map([], |row| row.get::<_, i64>(0))
        .expect("queries")
        .map(|n| usize::try_from(n.expect("row")).expect("length"))
        .collect();
    let status = conn
        .query_row("SELECT status FROM sessions", [], |row| row.get(0))
        .expect("session");
    (lengths, status)
}

// Issue 12, item 4: `run` kept an SSE line that never ends, and a body that
// is not an event stream, whole in memory. Both are bounded; the session
// says it is not whole.
#[test]
fn run_bounds_what_it_records_of_a_response() {
    let frame_limit = agui_replay::record::MAX_RECORDED_FRAME_BYTES;
    let mut sse = b"data: ".to_vec();
    sse.extend(std::iter::repeat_n(b'x', frame_limit + (4 << 20)));
    sse.extend(b"\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n");
    let (lengths, status) = run_against("run-sse", "text/event-stream", sse);
    assert_eq!(lengths.len(), 2);
    assert_eq!(lengths[0], frame_limit);
    assert_eq!(status, "truncated");

    let (lengths, status) = run_against("run-body", "text/plain", vec![b'y'; 6 << 20]);
    assert_eq!(lengths, [4 << 20]);
    assert_eq!(status, "truncated");
}

// Issue 12, item 4: the framer a live recording uses holds at most its
// bound of a line that never ends.
#[test]
fn a_bounded_sse_framer_cuts_an_endless_line() {
    let mut framer = agui_replay::input::SseFramer::with_max_frame_bytes(1 << 10);
    let mut events: Vec<Vec<u8>> = Vec::new();
    framer.push(b"data: ", &mut |e| events.push(e.to_vec()));
    for _ in 0..1024 {
        framer.push(&[b'z'; 1024], &mut |e| events.push(e.to_vec()));
    }
    framer.push(b"\n\n", &mut |e| events.push(e.to_vec()));
    framer.finish(&mut |e| events.push(e.to_vec()));
    assert_eq!(events, [vec![b'z'; 1 << 10]]);
    assert_eq!(framer.num_truncated(), 1);
}
