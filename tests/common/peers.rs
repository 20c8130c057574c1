//! The session files of other AG-UI tools in `tests/interop/` (issue 17.5),
//! and what each holds, worked out here from the file's own structure with
//! plain `serde_json` as `tests/interop/FORMATS.md` describes it (never
//! from what agui-replay reads): its sessions, each one's events, arrival
//! times and run input.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::files::manifest_path;

/// Which tool wrote a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// AG-UI DevTools `.agui.jsonl` (FORMATS.md §1).
    DevTools,
    /// agui-inspector session export (FORMATS.md §2).
    Inspector,
    /// aimock fixture file (FORMATS.md §1.10).
    Fixtures,
}

/// One event as the file holds it: a JSON value, or a payload that is not
/// JSON, as its text.
#[derive(Clone, Debug, PartialEq)]
pub enum Held {
    /// A payload that parses.
    Json(Value),
    /// A payload that does not parse, as received.
    Text(String),
}

impl Held {
    /// Whether `raw` (an event as agui-replay keeps it) is this one.
    pub fn matches(&self, raw: &[u8]) -> bool {
        match (self, serde_json::from_slice::<Value>(raw)) {
            (Self::Json(expected), Ok(actual)) => *expected == actual,
            (Self::Text(expected), _) => expected.as_bytes() == raw,
            (Self::Json(_), Err(_)) => false,
        }
    }
}

/// One session as the file holds it.
#[derive(Clone, Debug)]
pub struct HeldSession {
    /// The file's name for it (`c1`, `exchange-2`, `fixture 1`).
    pub label: String,
    /// Its events, in order.
    pub events: Vec<Held>,
    /// Their arrival times in nanoseconds, when the file records times.
    pub arrival_nanos: Option<Vec<u64>>,
    /// The run input it records.
    pub run_input: Option<Value>,
}

/// What a file holds.
#[derive(Clone, Debug)]
pub struct HeldFile {
    /// Which tool wrote it.
    pub tool: Tool,
    /// Its sessions, in order.
    pub sessions: Vec<HeldSession>,
    /// The redaction groups its header declares (DevTools only).
    pub redacted: Vec<String>,
    /// The number of records that are not events (headers, keepalives,
    /// control frames, findings, derived entries).
    pub num_other_records: usize,
}

/// The folder of the peers' files.
pub fn interop_dir() -> PathBuf {
    manifest_path("tests/interop")
}

/// Every session file of the folder (not its `.md` notes), sorted.
pub fn peer_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![interop_dir()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("tests/interop reads") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e != "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `path` relative to the crate, as an argument typed in its folder.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .expect("under the crate")
        .display()
        .to_string()
}

/// The file `name` of `tests/interop/`.
pub fn peer_file(name: &str) -> PathBuf {
    interop_dir().join(name)
}

/// What the file at `path` holds, by its format.
pub fn held(path: &Path) -> HeldFile {
    let text = std::fs::read_to_string(path).expect("a text file");
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name.ends_with(".agui.jsonl") {
        devtools(&text)
    } else {
        let document: Value = serde_json::from_str(&text).expect("JSON");
        if document.get("session").is_some() {
            inspector(&document)
        } else {
            fixtures(&document)
        }
    }
}

fn millis(value: &Value) -> Option<f64> {
    value.as_f64()
}

fn nanos_from(ms: f64, base: f64) -> u64 {
    ((ms - base) * 1e6).round() as u64
}

/// FORMATS.md §1.3–1.7: records by `connId` in order of first appearance,
/// events sorted by `seq`, times from the request's `tMs`.
fn devtools(text: &str) -> HeldFile {
    let records: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("every line of these files is JSON"))
        .collect();
    let mut order: Vec<String> = Vec::new();
    for record in &records {
        if let Some(id) = record["connId"].as_str()
            && !order.iter().any(|o| o == id)
        {
            order.push(id.to_owned());
        }
    }
    let header = records.iter().find(|r| r["kind"] == "header");
    let redacted = header
        .and_then(|h| h["redacted"].as_array())
        .map(|groups| {
            groups
                .iter()
                .filter_map(|g| g.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let sessions = order
        .iter()
        .map(|id| {
            let request = records
                .iter()
                .find(|r| r["kind"] == "request" && r["connId"] == id.as_str());
            let mut events: Vec<&Value> = records
                .iter()
                .filter(|r| r["kind"] == "event" && r["connId"] == id.as_str())
                .collect();
            events.sort_by(|a, b| {
                let seq = |e: &Value| e["seq"].as_f64().expect("a seq");
                seq(a).total_cmp(&seq(b))
            });
            let base = request
                .and_then(|r| millis(&r["tMs"]))
                .or_else(|| events.first().and_then(|e| millis(&e["tMs"])))
                .unwrap_or(0.0);
            HeldSession {
                label: id.clone(),
                arrival_nanos: Some(
                    events
                        .iter()
                        .map(|e| nanos_from(millis(&e["tMs"]).expect("a tMs"), base))
                        .collect(),
                ),
                events: events
                    .iter()
                    .map(|e| match &e["event"] {
                        Value::String(text) => Held::Text(text.clone()),
                        other => Held::Json(other.clone()),
                    })
                    .collect(),
                run_input: request.map(|r| r["input"].clone()).filter(Value::is_object),
            }
        })
        .collect();
    let num_other_records = records
        .iter()
        .filter(|r| r["kind"] == "header" || r["kind"] == "keepalive")
        .count();
    HeldFile {
        tool: Tool::DevTools,
        sessions,
        redacted,
        num_other_records,
    }
}

/// FORMATS.md §2.2–2.4: one session per exchange, its `data` frames in
/// `index` order, their `offsetMs`, its run's `input`.
fn inspector(document: &Value) -> HeldFile {
    let session = &document["session"];
    let list = |key: &str| session[key].as_array().cloned().unwrap_or_default();
    let (exchanges, frames, runs) = (list("exchanges"), list("frames"), list("runs"));
    let sessions = exchanges
        .iter()
        .map(|exchange| {
            let id = &exchange["id"];
            let protobuf = exchange["encoding"] == "protobuf";
            let mut data: Vec<&Value> = frames
                .iter()
                .filter(|f| f["exchangeId"] == *id && f["classification"] == "data")
                .collect();
            data.sort_by_key(|f| f["index"].as_u64());
            HeldSession {
                label: id.as_str().expect("an id").to_owned(),
                arrival_nanos: Some(
                    data.iter()
                        .map(|f| nanos_from(millis(&f["offsetMs"]).expect("an offsetMs"), 0.0))
                        .collect(),
                ),
                events: data
                    .iter()
                    .map(|f| {
                        if protobuf {
                            Held::Json(f["parsed"].clone())
                        } else {
                            let text = f["data"].as_str().expect("data");
                            serde_json::from_str(text)
                                .map_or_else(|_| Held::Text(text.to_owned()), Held::Json)
                        }
                    })
                    .collect(),
                run_input: runs
                    .iter()
                    .find(|r| r["exchangeId"] == *id)
                    .map(|r| r["input"].clone())
                    .or_else(|| Some(exchange["requestBodyJson"].clone()))
                    .filter(Value::is_object),
            }
        })
        .collect();
    let num_other_records = frames
        .iter()
        .filter(|f| f["classification"] != "data")
        .count()
        + list("findings").len()
        + list("derived").len();
    HeldFile {
        tool: Tool::Inspector,
        sessions,
        redacted: Vec::new(),
        num_other_records,
    }
}

/// FORMATS.md §1.10: one session per fixture, no time, no request.
fn fixtures(document: &Value) -> HeldFile {
    let sessions = document["fixtures"]
        .as_array()
        .expect("fixtures")
        .iter()
        .enumerate()
        .map(|(i, fixture)| HeldSession {
            label: format!("fixture {}", i + 1),
            events: fixture["events"]
                .as_array()
                .expect("events")
                .iter()
                .cloned()
                .map(Held::Json)
                .collect(),
            arrival_nanos: None,
            run_input: None,
        })
        .collect();
    HeldFile {
        tool: Tool::Fixtures,
        sessions,
        redacted: Vec::new(),
        num_other_records: 0,
    }
}

/// Whether a JSON value holds a `«redacted: N chars»` mark anywhere.
pub fn holds_mark(value: &Value) -> bool {
    match value {
        Value::String(text) => text.starts_with("«redacted: ") && text.ends_with(" chars»"),
        Value::Array(items) => items.iter().any(holds_mark),
        Value::Object(members) => members.values().any(holds_mark),
        _ => false,
    }
}
