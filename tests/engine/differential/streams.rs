//! The seeded random AG-UI stream generator of the differential test
//! (issue 18). Streams are mostly well formed, with the producer mistakes
//! and the corners where the client profile and the reference client have
//! parted (RFC 6902 ops with numbers written differently, `null` content,
//! metadata, owners, authoritative activity types, messages snapshots with
//! duplicates and reasoning, tool results, run inputs, run resets, run
//! errors) drawn often enough to be hit in a few thousand streams.
//!
//! An event is a JSON value in which a number whose text matters is the
//! placeholder string `"#num:TEXT"`; [`render`] writes it as the bare number
//! `TEXT` (so `1.0`, `1e2` and `-0` reach both consumers as written), and
//! the shrinker works on the values.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::{Map, Value, json};

/// The prefix of a number placeholder.
pub const NUM: &str = "#num:";

/// Number texts: equal values written differently (R14, issue 18 item 1).
const NUMBERS: &[&str] = &["1", "1.0", "100", "1e2", "0", "-0", "0.0", "2", "0.5", "-1"];
const ACTIVITY_IDS: &[&str] = &["a1", "a2", "a3"];
const TEXT_IDS: &[&str] = &["m1", "m2"];
const TYPES: &[&str] = &["plan", "search"];
const OWNERS: &[&str] = &["s1", "s2"];
const KEYS: &[&str] = &["n", "list", "obj", "s"];
const PATHS: &[&str] = &[
    "",
    "/n",
    "/list",
    "/list/0",
    "/list/1",
    "/list/-",
    "/obj",
    "/obj/k",
    "/s",
    "/new",
    "/toString",
    "/obj/k/deep",
    "/n/x",
    "/list/5",
];
const OPS: &[&str] = &["add", "remove", "replace", "move", "copy", "test"];

/// One stream: the events as values (see [`render`]).
pub type Stream = Vec<Value>;

/// The stream with this index of the run with this seed: each stream has its
/// own generator, so one can be regenerated from its index alone.
pub fn stream(seed: u64, index: u64) -> Stream {
    let mut g = Gen {
        rng: Pcg64Mcg::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        events: Vec::new(),
        run: 0,
        open: false,
        texts: Vec::new(),
        tools: Vec::new(),
        reasoning: None,
        activities: Vec::new(),
        calls: Vec::new(),
    };
    g.generate();
    g.events
}

/// The wire text of an event: its JSON with every number placeholder
/// written as the bare number.
pub fn render(event: &Value) -> String {
    let text = event.to_string();
    if !text.contains(NUM) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let marker = format!("\"{NUM}");
    while let Some(at) = rest.find(&marker) {
        out.push_str(&rest[..at]);
        let after = &rest[at + marker.len()..];
        let end = after.find('"').unwrap_or(after.len());
        out.push_str(&after[..end]);
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// A number placeholder.
pub fn num(text: &str) -> Value {
    Value::String(format!("{NUM}{text}"))
}

struct Gen {
    rng: Pcg64Mcg,
    events: Vec<Value>,
    run: u32,
    open: bool,
    texts: Vec<String>,
    tools: Vec<String>,
    reasoning: Option<String>,
    activities: Vec<String>,
    calls: Vec<String>,
}

impl Gen {
    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.rng.random_range(0..from.len())]
    }

    fn push(&mut self, event: Value) {
        self.events.push(event);
    }

    fn generate(&mut self) {
        if self.chance(0.04) {
            // R60: a stream that does not start with a run.
            let event = self.body_event();
            self.push(event);
        }
        self.start_run();
        if self.chance(0.05) {
            self.equal_numbers();
        }
        let length = self.rng.random_range(1..14);
        for _ in 0..length {
            if self.chance(0.06) {
                self.end_run();
                if self.chance(0.8) {
                    self.start_run();
                }
                continue;
            }
            let event = self.body_event();
            self.push(event);
        }
        let close = self.rng.random_range(0..10);
        if close < 7 {
            if self.chance(0.7) {
                self.close_open_work();
            }
            self.end_run();
        } else if close < 8 {
            let event = json!({"type": "RUN_ERROR", "message": "boom"});
            self.push(event);
        }
        if self.chance(0.03) {
            // R61: a late event after the run ended.
            let event = self.body_event();
            self.push(event);
        }
    }

    /// Issue 18 item 1: a snapshot holding a number, and a delta whose
    /// `test` names the same value written another way (alone or nested),
    /// then changes something.
    fn equal_numbers(&mut self) {
        const SPELLINGS: &[(&str, &str)] = &[
            ("1", "1.0"),
            ("100", "1e2"),
            ("0", "-0"),
            ("0.0", "0"),
            ("1e2", "100.0"),
        ];
        let (a, b) = SPELLINGS[self.rng.random_range(0..SPELLINGS.len())];
        let (a, b) = if self.chance(0.5) { (a, b) } else { (b, a) };
        let (path, held, tested) = match self.rng.random_range(0..3) {
            0 => ("/n", num(a), num(b)),
            1 => ("/list", json!([num(a)]), json!([num(b)])),
            _ => ("/obj", json!({"k": num(a)}), json!({"k": num(b)})),
        };
        let key = &path[1..];
        let id = self.pick(ACTIVITY_IDS).to_owned();
        if self.chance(0.7) {
            self.push(json!({
                "type": "ACTIVITY_SNAPSHOT", "messageId": id, "activityType": "plan",
                "content": {key: held},
            }));
            self.push(json!({
                "type": "ACTIVITY_DELTA", "messageId": id, "activityType": "plan",
                "patch": [{"op": "test", "path": path, "value": tested},
                          {"op": "add", "path": "/done", "value": true}],
            }));
            if !self.activities.contains(&id) {
                self.activities.push(id);
            }
        } else {
            self.push(json!({"type": "STATE_SNAPSHOT", "snapshot": {key: held}}));
            self.push(json!({
                "type": "STATE_DELTA",
                "delta": [{"op": "test", "path": path, "value": tested},
                          {"op": "add", "path": "/done", "value": true}],
            }));
        }
    }

    fn start_run(&mut self) {
        self.run += 1;
        let mut event = json!({
            "type": "RUN_STARTED",
            "threadId": "t1",
            "runId": format!("run{}", self.run),
        });
        if self.chance(0.15) {
            let count = self.rng.random_range(0..4);
            let messages: Vec<Value> = (0..count).map(|_| self.input_message()).collect();
            event["input"] = json!({
                "threadId": "t1",
                "runId": format!("run{}", self.run),
                "state": {},
                "messages": messages,
                "tools": [],
                "context": [],
                "forwardedProps": {},
            });
        }
        self.push(event);
        self.open = true;
        self.texts.clear();
        self.tools.clear();
        self.reasoning = None;
    }

    fn end_run(&mut self) {
        let event = if self.chance(0.1) {
            json!({"type": "RUN_ERROR", "message": "failed"})
        } else {
            json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": format!("run{}", self.run)})
        };
        self.push(event);
        self.open = false;
    }

    fn close_open_work(&mut self) {
        for id in std::mem::take(&mut self.texts) {
            self.push(json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
        }
        for id in std::mem::take(&mut self.tools) {
            self.push(json!({"type": "TOOL_CALL_END", "toolCallId": id}));
        }
        if let Some(id) = self.reasoning.take() {
            self.push(json!({"type": "REASONING_MESSAGE_END", "messageId": id}));
            self.push(json!({"type": "REASONING_END", "messageId": id}));
        }
    }

    fn body_event(&mut self) -> Value {
        let roll = self.rng.random_range(0..100);
        match roll {
            0..=21 => self.activity_snapshot(),
            22..=45 => self.activity_delta(),
            46..=55 => self.text_event(),
            56..=63 => self.tool_event(),
            64..=70 => self.messages_snapshot(),
            71..=76 => self.state_event(),
            77..=81 => self.reasoning_event(),
            82..=84 => json!({"type": "STEP_STARTED", "stepName": "step"}),
            85..=86 => json!({"type": "CUSTOM", "name": "c", "value": 1}),
            _ => self.activity_delta(),
        }
    }

    fn envelope(&mut self, event: &mut Value, owner: f64, metadata: f64) {
        if self.chance(owner) {
            event["subagentRunId"] = Value::from(self.pick(OWNERS));
        }
        if self.chance(metadata) {
            event["metadata"] = self.metadata();
        }
    }

    fn metadata(&mut self) -> Value {
        let mut map = Map::new();
        let count = self.rng.random_range(1..3);
        for _ in 0..count {
            let key = self.pick(&["k", "tag", "@ag-ui/client"]);
            let value = self.value(1);
            map.insert(key.to_owned(), value);
        }
        Value::Object(map)
    }

    fn number(&mut self) -> Value {
        let text = self.pick(NUMBERS);
        num(text)
    }

    fn value(&mut self, depth: u32) -> Value {
        match self.rng.random_range(0..10) {
            0..=2 => self.number(),
            3..=4 => Value::from(self.pick(&["x", "y", ""])),
            5 => Value::Null,
            6 => Value::Bool(self.chance(0.5)),
            7 if depth > 0 => {
                let count = self.rng.random_range(0..3);
                Value::Array((0..count).map(|_| self.value(depth - 1)).collect())
            }
            8 if depth > 0 => {
                let mut map = Map::new();
                map.insert("k".into(), self.value(depth - 1));
                Value::Object(map)
            }
            _ => self.number(),
        }
    }

    fn content(&mut self) -> Value {
        let mut map = Map::new();
        for key in KEYS {
            if self.chance(0.6) {
                let value = match *key {
                    "n" => self.number(),
                    "list" => {
                        let count = self.rng.random_range(0..3);
                        Value::Array((0..count).map(|_| self.value(1)).collect())
                    }
                    "obj" => json!({"k": self.value(1)}),
                    _ => Value::from("text"),
                };
                map.insert((*key).to_owned(), value);
            }
        }
        Value::Object(map)
    }

    fn activity_id(&mut self) -> String {
        if !self.activities.is_empty() && self.chance(0.7) {
            let i = self.rng.random_range(0..self.activities.len());
            return self.activities[i].clone();
        }
        if self.chance(0.08) {
            // D2 / R9 / R13: an id that is a text message's.
            return self.pick(TEXT_IDS).to_owned();
        }
        self.pick(ACTIVITY_IDS).to_owned()
    }

    fn activity_snapshot(&mut self) -> Value {
        let id = self.activity_id();
        let activity_type = self.pick(TYPES);
        let mut event = json!({
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": id,
            "activityType": activity_type,
            "content": self.content(),
        });
        match self.rng.random_range(0..10) {
            0..=1 => event["replace"] = Value::Bool(false),
            2 => event["replace"] = Value::Bool(true),
            _ => {}
        }
        self.envelope(&mut event, 0.25, 0.25);
        if !self.activities.contains(&id) {
            self.activities.push(id);
        }
        event
    }

    fn op(&mut self) -> Value {
        let op = self.pick(OPS);
        let path = self.pick(PATHS);
        let mut operation = json!({"op": op, "path": path});
        match op {
            "test" if self.chance(0.6) => {
                // Issue 18 item 1: a number compared with the same value
                // written another way (`1` / `1.0`, `100` / `1e2`, `0` / `-0`),
                // alone or nested.
                let path = self.pick(&["/n", "/list/0", "/obj/k", "/obj", "/list"]);
                let number = self.number();
                operation["path"] = Value::from(path);
                operation["value"] = match path {
                    "/obj" => json!({"k": number}),
                    "/list" => json!([number]),
                    _ => number,
                };
            }
            "add" | "replace" | "test" => operation["value"] = self.value(2),
            "move" | "copy" => operation["from"] = Value::from(self.pick(PATHS)),
            _ => {}
        }
        match self.rng.random_range(0..40) {
            0 => {
                // Issue 18 item 7: an operation without a string `op`.
                operation.as_object_mut().map(|o| o.remove("op"));
            }
            1 => operation["op"] = Value::from("frob"),
            2 => operation["op"] = num("1"),
            _ => {}
        }
        operation
    }

    fn patch(&mut self) -> Value {
        let count = self.rng.random_range(0..4);
        Value::Array((0..count).map(|_| self.op()).collect())
    }

    fn activity_delta(&mut self) -> Value {
        let id = self.activity_id();
        let activity_type = self.pick(TYPES);
        let mut event = json!({
            "type": "ACTIVITY_DELTA",
            "messageId": id,
            "activityType": activity_type,
            "patch": self.patch(),
        });
        self.envelope(&mut event, 0.2, 0.2);
        event
    }

    fn text_event(&mut self) -> Value {
        let roll = self.rng.random_range(0..10);
        if !self.texts.is_empty() && roll < 6 {
            let i = self.rng.random_range(0..self.texts.len());
            let id = self.texts[i].clone();
            if roll < 4 {
                let mut event =
                    json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "hi"});
                self.envelope(&mut event, 0.05, 0.1);
                return event;
            }
            self.texts.remove(i);
            let mut event = json!({"type": "TEXT_MESSAGE_END", "messageId": id});
            self.envelope(&mut event, 0.05, 0.1);
            return event;
        }
        if roll == 9 {
            // End or content without a start.
            let id = self.pick(TEXT_IDS);
            return json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "x"});
        }
        let id = if self.chance(0.1) {
            self.pick(ACTIVITY_IDS).to_owned()
        } else {
            self.pick(TEXT_IDS).to_owned()
        };
        let mut event = json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"});
        self.envelope(&mut event, 0.15, 0.15);
        if !self.texts.contains(&id) {
            self.texts.push(id);
        }
        event
    }

    fn tool_event(&mut self) -> Value {
        let roll = self.rng.random_range(0..10);
        if !self.tools.is_empty() && roll < 5 {
            let i = self.rng.random_range(0..self.tools.len());
            let id = self.tools[i].clone();
            if roll < 3 {
                return json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": "{\"q\":1}"});
            }
            self.tools.remove(i);
            return json!({"type": "TOOL_CALL_END", "toolCallId": id});
        }
        if !self.calls.is_empty() && roll < 8 {
            let i = self.rng.random_range(0..self.calls.len());
            let call = self.calls[i].clone();
            let id = self.pick(&["tr1", "tr2"]);
            let mut event = json!({
                "type": "TOOL_CALL_RESULT",
                "messageId": id,
                "toolCallId": call,
                "content": "ok",
            });
            if self.chance(0.5) {
                event["role"] = Value::from("tool");
            }
            self.envelope(&mut event, 0.1, 0.1);
            return event;
        }
        let id = self.pick(&["tc1", "tc2"]).to_owned();
        let mut event =
            json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "search"});
        if self.chance(0.5) {
            event["parentMessageId"] = Value::from(self.pick(TEXT_IDS));
        }
        self.envelope(&mut event, 0.15, 0.15);
        if !self.tools.contains(&id) {
            self.tools.push(id.clone());
        }
        if !self.calls.contains(&id) {
            self.calls.push(id);
        }
        event
    }

    fn reasoning_event(&mut self) -> Value {
        match self.reasoning.clone() {
            Some(id) if self.chance(0.7) => {
                if self.chance(0.6) {
                    json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": "hm"})
                } else {
                    self.reasoning = None;
                    json!({"type": "REASONING_MESSAGE_END", "messageId": id})
                }
            }
            _ => {
                let id = self.pick(&["rs1", "rs2"]).to_owned();
                self.reasoning = Some(id.clone());
                json!({"type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning"})
            }
        }
    }

    fn state_event(&mut self) -> Value {
        if self.chance(0.4) {
            let snapshot = if self.chance(0.9) {
                self.content()
            } else {
                self.value(2)
            };
            json!({"type": "STATE_SNAPSHOT", "snapshot": snapshot})
        } else {
            json!({"type": "STATE_DELTA", "delta": self.patch()})
        }
    }

    /// A message as a `MESSAGES_SNAPSHOT` or a run input carries it.
    fn message(&mut self) -> Value {
        match self.rng.random_range(0..12) {
            0..=1 => json!({"id": self.pick(&["u1", "u2"]), "role": "user", "content": "hello"}),
            2..=3 => json!({"id": self.pick(TEXT_IDS), "role": "assistant", "content": "answer"}),
            4..=7 => {
                let id = self.pick(ACTIVITY_IDS);
                let activity_type = self.pick(TYPES);
                let content = if self.chance(0.2) {
                    Value::Null
                } else {
                    self.content()
                };
                let mut message = json!({
                    "id": id,
                    "role": "activity",
                    "activityType": activity_type,
                    "content": content,
                });
                if self.chance(0.2) {
                    message["subagentRunId"] = Value::from(self.pick(OWNERS));
                }
                message
            }
            8..=9 => {
                json!({"id": self.pick(&["rs1", "rs2"]), "role": "reasoning", "content": "thought"})
            }
            _ => json!({
                "id": self.pick(&["tr1", "tr2"]),
                "role": "tool",
                "toolCallId": self.pick(&["tc1", "tc2"]),
                "content": "ok",
            }),
        }
    }

    fn input_message(&mut self) -> Value {
        self.message()
    }

    fn messages_snapshot(&mut self) -> Value {
        let count = self.rng.random_range(0..5);
        let messages: Vec<Value> = (0..count).map(|_| self.message()).collect();
        let mut event = json!({"type": "MESSAGES_SNAPSHOT", "messages": messages});
        match self.rng.random_range(0..12) {
            0 => event["metadata"] = json!({"@ag-ui/client": {"authoritativeActivityTypes": null}}),
            1 => {
                event["metadata"] =
                    json!({"@ag-ui/client": {"authoritativeActivityTypes": ["plan"]}})
            }
            2 => event["metadata"] = json!({"@ag-ui/client": {"authoritativeActivityTypes": []}}),
            3 => {
                event["metadata"] = json!({"@ag-ui/client": {"authoritativeActivityTypes": "plan"}})
            }
            4 => {
                event["metadata"] =
                    json!({"@ag-ui/client": {"authoritativeActivityTypes": ["plan", 1]}})
            }
            5 => event["metadata"] = json!({"@ag-ui/client": "plan"}),
            6 => event["metadata"] = json!({"@ag-ui/client": {}}),
            7 => event["metadata"] = json!({"other": 1}),
            _ => {}
        }
        for m in &messages {
            if m["role"] == "activity"
                && let Some(id) = m["id"].as_str()
                && !self.activities.iter().any(|a| a == id)
            {
                self.activities.push(id.to_owned());
            }
        }
        event
    }
}
