//! The protobuf encoding through the binary (issue 15, points 6 and 7):
//! `check` reads a `.pb` file, standard input and a HAR exchange in it
//! exactly as their SSE twins, and `export --format proto` writes it.

use std::path::Path;

use serde_json::Value;

use crate::common::TempDir;
use crate::common::bin::{json_out, run, run_with_stdin};

fn fixture(name: &str) -> (Vec<u8>, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/proto");
    let pb = std::fs::read(dir.join(format!("{name}.pb"))).expect("the .pb");
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("the .json");
    (pb, serde_json::from_str(&json).expect("JSON"))
}

fn sse_twin(events: &Value) -> Vec<u8> {
    let mut body = Vec::new();
    for event in events.as_array().expect("events") {
        body.extend_from_slice(format!("data: {event}\n\n").as_bytes());
    }
    body
}

/// `check --format json` of a file, without what names the input.
fn check(path: &str, stdin: Option<&[u8]>) -> Value {
    let output = run_with_stdin(&["check", path, "--format", "json"], stdin);
    let mut report = json_out(&output);
    if let Value::Object(members) = &mut report {
        for key in ["file", "path", "format", "source", "input"] {
            members.remove(key);
        }
    }
    report
}

#[test]
fn check_reads_a_pb_file_and_standard_input_as_their_sse_twin() {
    let dir = TempDir::new("proto-check");
    for name in [
        "events",
        "vectors/snapshot-creates-then-delta-amends",
        "vectors/failed-patch-is-atomic",
    ] {
        let (pb, fixture) = fixture(name);
        let stem = name.replace('/', "-");
        let pb_path = dir.write(&format!("{stem}.pb"), &pb);
        let sse_path = dir.write(&format!("{stem}.sse"), sse_twin(&fixture["events"]));
        let twin = check(sse_path.to_str().expect("utf8"), None);
        let num_events = fixture["events"].as_array().map(Vec::len);
        assert_eq!(twin["events"].as_u64(), num_events.map(|n| n as u64));
        assert_eq!(check(pb_path.to_str().expect("utf8"), None), twin, "{name}");
        assert_eq!(check("-", Some(&pb)), twin, "{name} from standard input");
        // Any extension: the first frame tells.
        let bin_path = dir.write(&format!("{stem}.bin"), &pb);
        assert_eq!(
            check(bin_path.to_str().expect("utf8"), None),
            twin,
            "{name} as .bin"
        );
    }
}

#[test]
fn export_format_proto_writes_what_reads_back_as_the_same_events() {
    let dir = TempDir::new("proto-export");
    let (pb, fixture) = fixture("events");
    let sse = dir.write("events.sse", sse_twin(&fixture["events"]));
    let out = dir.path().join("out.bin");
    let output = run(&[
        "export",
        sse.to_str().expect("utf8"),
        "--format",
        "proto",
        "--out",
        out.to_str().expect("utf8"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written = std::fs::read(&out).expect("written");
    let (events, undecodable) = agui_replay::protocol::proto::read_body(&written);
    assert_eq!(undecodable, 0);
    let events: Vec<Value> = events
        .iter()
        .map(|raw| serde_json::from_slice(raw).expect("JSON"))
        .collect();
    assert_eq!(Value::Array(events), fixture["events"]);
    // `.pb` picks the format by itself, and the official bytes export back
    // to frames that decode the same.
    let pb_in = dir.write("in.pb", &pb);
    let out = dir.path().join("again.pb");
    let output = run(&[
        "export",
        pb_in.to_str().expect("utf8"),
        "--out",
        out.to_str().expect("utf8"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let again = std::fs::read(&out).expect("written");
    // (Compared as JSON: an object's members may come in another order.)
    let values = |body: &[u8]| -> Vec<Value> {
        agui_replay::protocol::proto::read_body(body)
            .0
            .iter()
            .map(|raw| serde_json::from_slice(raw).expect("JSON"))
            .collect()
    };
    assert_eq!(values(&again), values(&pb));
}

#[test]
fn export_format_proto_refuses_an_event_it_cannot_carry() {
    let dir = TempDir::new("proto-refuse");
    let sse = dir.write(
        "bad.sse",
        "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"frob\",\"path\":\"/a\"}]}\n\n",
    );
    let out = dir.path().join("out.pb");
    let output = run(&[
        "export",
        sse.to_str().expect("utf8"),
        "--best-effort",
        "--out",
        out.to_str().expect("utf8"),
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("step 2") && stderr.contains("frob"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn a_har_exchange_with_a_protobuf_body_reads_as_its_sse_twin() {
    use base64::Engine as _;
    let dir = TempDir::new("proto-har");
    let (pb, fixture) = fixture("vectors/snapshot-creates-then-delta-amends");
    let har = serde_json::json!({"log": {"version": "1.2", "entries": [{
        "startedDateTime": "2026-12-01T10:00:00.000Z",
        "request": {"method": "POST", "url": "https://agent.example/run", "headers": []},
        "response": {"status": 200, "headers": [
            {"name": "content-type", "value": "application/vnd.ag-ui.event+proto"}],
            "content": {"mimeType": "application/vnd.ag-ui.event+proto",
                        "encoding": "base64",
                        "text": base64::engine::general_purpose::STANDARD.encode(&pb)}}}]}});
    let har_path = dir.write("s.har", har.to_string());
    let sse_path = dir.write("s.sse", sse_twin(&fixture["events"]));
    assert_eq!(
        check(har_path.to_str().expect("utf8"), None),
        check(sse_path.to_str().expect("utf8"), None)
    );
}

#[test]
fn export_preview_of_proto_shows_the_frames_decoded() {
    // Issue 15.7: the bytes are binary; the preview says what they hold.
    let dir = TempDir::new("proto-preview");
    let (_, fixture) = fixture("vectors/snapshot-creates-then-delta-amends");
    let sse = dir.write("s.sse", sse_twin(&fixture["events"]));
    let output = run(&[
        "export",
        sse.to_str().expect("utf8"),
        "--format",
        "proto",
        "--preview",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let num_events = fixture["events"].as_array().expect("events").len();
    assert!(
        text.contains(&format!(
            "application/vnd.ag-ui.event+proto): {num_events} frames"
        )),
        "{text}"
    );
    let first = serde_json::to_string(&fixture["events"][0]).expect("JSON");
    let first: Value = serde_json::from_str(&first).expect("JSON");
    let shown: Vec<Value> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    assert_eq!(shown.first(), Some(&first), "{text}");
}
