//! Redaction: values named by JSON pointers (RFC 6901) replaced in every
//! exported event, in place, so that an event keeps every other byte (its
//! member order, its spacing, its numbers as written) and an event the
//! pointers do not reach is not touched at all.

use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::Value;
use serde_json::value::RawValue;

use super::ExportError;
use crate::diagnostic::Seq;

/// What an export hides. The default hides nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Redaction {
    /// Leave the HTTP request and response headers out of a recording
    /// export (their secrets are redacted already; this drops the rest).
    /// The other formats carry no headers: it has no effect on them.
    pub drop_headers: bool,
    /// `(pointer, replacement)`: wherever `pointer` (RFC 6901, `/a/0/b`)
    /// resolves in an exported event, or in the run input, the value there
    /// is replaced by `replacement`.
    pub replace: Vec<(String, Value)>,
}

/// The default replacement of the command line's `--redact POINTER`.
pub const REDACTED_VALUE: &str = "[REDACTED]";

/// What a redaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedactionReport {
    /// How many values were replaced, in events and run input together.
    pub redacted_values: usize,
    /// The source steps of the events that could not be redacted because
    /// they are not JSON: written as they are.
    pub unredactable_events: Vec<Seq>,
    /// Whether the recorded request body (the run input) could not be
    /// redacted because it is not JSON: written as it is.
    pub request_body_unredactable: bool,
    /// The pointers that resolved nowhere (a typo, or nothing to hide).
    pub unmatched_pointers: Vec<String>,
    /// Replaced values that were objects or arrays: operations that patch
    /// inside them no longer apply.
    pub replaced_containers: usize,
}

impl RedactionReport {
    /// What to tell the user, one line each; empty when nothing was asked.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.redacted_values > 0 {
            let plural = if self.redacted_values == 1 { "" } else { "s" };
            notes.push(format!("{} value{plural} redacted", self.redacted_values));
        }
        if !self.unredactable_events.is_empty() {
            let num = self.unredactable_events.len();
            let shown: Vec<String> = self
                .unredactable_events
                .iter()
                .take(10)
                .map(Seq::to_string)
                .collect();
            let more = if num > shown.len() { ", …" } else { "" };
            let (events, steps) = if num == 1 {
                ("event", "step")
            } else {
                ("events", "steps")
            };
            notes.push(format!(
                "{num} {events} could not be redacted (not JSON; written as they are): {steps} {}{more}",
                shown.join(", ")
            ));
        }
        if self.request_body_unredactable {
            notes.push(
                "the request body could not be redacted (not JSON; written as it is)".to_owned(),
            );
        }
        for pointer in &self.unmatched_pointers {
            notes.push(format!("{pointer} matched nothing"));
        }
        if self.replaced_containers > 0 {
            notes.push(format!(
                "{} replaced values were objects or arrays: a later patch inside them \
                 may now fail (point at the values inside to keep the structure)",
                self.replaced_containers
            ));
        }
        notes
    }
}

/// The reference tokens of a JSON pointer (RFC 6901), unescaped: `/a~1b/0`
/// is `["a/b", "0"]`. The empty pointer (the whole event) is refused: it
/// would replace every event by the replacement.
pub fn parse_pointer(pointer: &str) -> Result<Vec<String>, ExportError> {
    let invalid = |reason: &str| ExportError::Pointer {
        pointer: pointer.to_owned(),
        reason: reason.to_owned(),
    };
    if pointer.is_empty() {
        return Err(invalid(
            "the empty pointer names the whole event; name a member, such as /delta",
        ));
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(invalid(
            "a JSON pointer starts with `/`, such as /delta/0/value",
        ));
    };
    rest.split('/')
        .map(|token| {
            let mut unescaped = String::with_capacity(token.len());
            let mut chars = token.chars();
            while let Some(c) = chars.next() {
                if c != '~' {
                    unescaped.push(c);
                    continue;
                }
                match chars.next() {
                    Some('0') => unescaped.push('~'),
                    Some('1') => unescaped.push('/'),
                    _ => {
                        return Err(invalid(
                            "`~` must be followed by 0 or 1 (`~0` is `~`, `~1` is `/`)",
                        ));
                    }
                }
            }
            Ok(unescaped)
        })
        .collect()
}

/// A redaction ready to apply: parsed pointers, serialized replacements,
/// and what it did so far.
pub(super) struct Redactor {
    rules: Vec<Rule>,
    report: RedactionReport,
    matches: Vec<usize>,
}

struct Rule {
    text: String,
    tokens: Vec<String>,
    replacement: Vec<u8>,
}

impl Redactor {
    pub(super) fn new(redaction: &Redaction) -> Result<Self, ExportError> {
        let rules = redaction
            .replace
            .iter()
            .map(|(pointer, replacement)| {
                Ok(Rule {
                    text: pointer.clone(),
                    tokens: parse_pointer(pointer)?,
                    replacement: serde_json::to_vec(replacement).unwrap_or_default(),
                })
            })
            .collect::<Result<Vec<_>, ExportError>>()?;
        let matches = vec![0; rules.len()];
        Ok(Self {
            rules,
            report: RedactionReport::default(),
            matches,
        })
    }

    /// Whether there is anything to replace.
    pub(super) fn has_rules(&self) -> bool {
        !self.rules.is_empty()
    }

    /// An event with the pointed values replaced; `None` when it is left as
    /// it is (nothing resolved, or no rules). An event that is not JSON is
    /// left as it is and reported under `origin`.
    pub(super) fn event(&mut self, raw: &[u8], origin: Option<Seq>) -> Option<Vec<u8>> {
        match self.bytes(raw) {
            Ok(changed) => changed,
            Err(NotJson) => {
                if let Some(seq) = origin {
                    self.report.unredactable_events.push(seq);
                }
                None
            }
        }
    }

    /// A request body (the run input) with the pointed values replaced;
    /// `None` when it is left as it is.
    pub(super) fn request_body(&mut self, body: &[u8]) -> Option<Vec<u8>> {
        match self.bytes(body) {
            Ok(changed) => changed,
            Err(NotJson) => {
                self.report.request_body_unredactable = true;
                None
            }
        }
    }

    /// A run input with the pointed values replaced: at the pointers, and
    /// where it carries activity content (its activity messages) or state.
    pub(super) fn value(&mut self, value: &Value) -> Value {
        let mut value = value.clone();
        for (rule, matches) in self.rules.iter().zip(&mut self.matches) {
            let mut targets = vec![rule.tokens.clone()];
            match rule.carried() {
                Some((Carrier::State, inside)) => {
                    targets.push(
                        std::iter::once("state".to_owned())
                            .chain(inside.iter().cloned())
                            .collect(),
                    );
                }
                Some((Carrier::ActivityContent, inside)) => {
                    let messages = value.get("messages").and_then(Value::as_array);
                    for (i, message) in messages.into_iter().flatten().enumerate() {
                        if message.get("role").and_then(Value::as_str) == Some("activity") {
                            let prefix =
                                ["messages".to_owned(), i.to_string(), "content".to_owned()];
                            targets
                                .push(prefix.into_iter().chain(inside.iter().cloned()).collect());
                        }
                    }
                }
                None => {}
            }
            for tokens in targets {
                let mut target = Some(&mut value);
                for token in &tokens {
                    target = target.and_then(|v| step_mut(v, token));
                }
                if let Some(target) = target {
                    *target = serde_json::from_slice(&rule.replacement).unwrap_or(Value::Null);
                    *matches += 1;
                    self.report.redacted_values += 1;
                }
            }
        }
        value
    }

    /// What it did, once everything went through it.
    pub(super) fn finish(mut self) -> RedactionReport {
        self.report.unmatched_pointers = self
            .rules
            .iter()
            .zip(&self.matches)
            .filter(|(_, matches)| **matches == 0)
            .map(|(rule, _)| rule.text.clone())
            .collect();
        self.report
    }

    fn bytes(&mut self, raw: &[u8]) -> Result<Option<Vec<u8>>, NotJson> {
        if self.rules.is_empty() {
            return Ok(None);
        }
        let text = std::str::from_utf8(raw).map_err(|_| NotJson)?;
        serde_json::from_str::<&RawValue>(text).map_err(|_| NotJson)?;
        let mut text = std::borrow::Cow::Borrowed(text);
        // Where else the event carries content or state, read once if a rule
        // may need it.
        let mut carriers: Option<Carriers> = None;
        for (rule, matches) in self.rules.iter().zip(&mut self.matches) {
            let mut targets = Vec::new();
            if locate(&text, &rule.tokens).is_some() {
                targets.push(rule.tokens.clone());
            }
            if let Some((carrier, inside)) = rule.carried() {
                let carriers = carriers.get_or_insert_with(|| Carriers::of(&text));
                targets.extend(carriers.targets(carrier, inside));
            }
            for target in targets {
                let Some(range) = locate(&text, &target) else {
                    continue;
                };
                if matches!(text.as_bytes()[range.start], b'{' | b'[') {
                    self.report.replaced_containers += 1;
                }
                let mut spliced = String::with_capacity(text.len() + rule.replacement.len());
                spliced.push_str(&text[..range.start]);
                // Serialized JSON is UTF-8.
                spliced.push_str(std::str::from_utf8(&rule.replacement).unwrap_or("null"));
                spliced.push_str(&text[range.end..]);
                text = std::borrow::Cow::Owned(spliced);
                *matches += 1;
                self.report.redacted_values += 1;
            }
        }
        Ok(match text {
            std::borrow::Cow::Owned(text) if text.as_bytes() != raw => Some(text.into_bytes()),
            _ => None,
        })
    }
}

/// Bytes that are not one JSON value.
struct NotJson;

/// What a pointer into a snapshot names, which other events carry too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carrier {
    /// An activity's content (`/content/…` of `ACTIVITY_SNAPSHOT`).
    ActivityContent,
    /// The state (`/snapshot/…` of `STATE_SNAPSHOT`).
    State,
}

impl Rule {
    /// For a pointer into a snapshot's content (`/content/…`) or state
    /// (`/snapshot/…`), what it names and the path inside it: the same value
    /// reaches a UI through deltas, message snapshots and run inputs, which
    /// are redacted too.
    fn carried(&self) -> Option<(Carrier, &[String])> {
        match self.tokens.split_first() {
            Some((first, inside)) if first == "content" => Some((Carrier::ActivityContent, inside)),
            Some((first, inside)) if first == "snapshot" => Some((Carrier::State, inside)),
            _ => None,
        }
    }
}

/// Where one event carries activity content or state besides a snapshot:
/// the operations of a delta, the activity messages of a
/// `MESSAGES_SNAPSHOT`, the messages and state of a `RUN_STARTED` input.
#[derive(Default)]
struct Carriers {
    event_type: String,
    /// Each operation's `path` as tokens (`None`: no readable path).
    ops: Vec<Option<Vec<String>>>,
    /// Indices of the activity messages in `messages`.
    activity_messages: Vec<usize>,
    /// Indices of the activity messages in `input.messages`.
    input_activity_messages: Vec<usize>,
}

impl Carriers {
    fn of(text: &str) -> Self {
        #[derive(serde::Deserialize)]
        struct Op {
            path: Option<String>,
        }
        #[derive(serde::Deserialize)]
        struct Message {
            role: Option<String>,
        }
        #[derive(serde::Deserialize)]
        struct Input {
            messages: Option<Vec<Message>>,
        }
        #[derive(serde::Deserialize)]
        struct Event {
            #[serde(rename = "type")]
            event_type: Option<String>,
            patch: Option<Vec<Op>>,
            delta: Option<Vec<Op>>,
            messages: Option<Vec<Message>>,
            input: Option<Input>,
        }
        // An event of another shape carries nothing more.
        let Ok(event) = serde_json::from_str::<Event>(text) else {
            return Self::default();
        };
        let activities = |messages: Option<Vec<Message>>| -> Vec<usize> {
            messages
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter(|(_, m)| m.role.as_deref() == Some("activity"))
                .map(|(i, _)| i)
                .collect()
        };
        let event_type = event.event_type.unwrap_or_default();
        let ops = match event_type.as_str() {
            "ACTIVITY_DELTA" => event.patch,
            "STATE_DELTA" => event.delta,
            _ => None,
        };
        Self {
            ops: ops
                .unwrap_or_default()
                .into_iter()
                .map(|op| match op.path.as_deref() {
                    Some("") => Some(Vec::new()),
                    Some(path) => parse_pointer(path).ok(),
                    None => None,
                })
                .collect(),
            activity_messages: activities(event.messages),
            input_activity_messages: activities(event.input.and_then(|i| i.messages)),
            event_type,
        }
    }

    /// The pointers (as tokens) in this event to the value at `inside` of
    /// what `carrier` names.
    fn targets(&self, carrier: Carrier, inside: &[String]) -> Vec<Vec<String>> {
        let under = |prefix: &[&str]| -> Vec<String> {
            prefix
                .iter()
                .map(|t| (*t).to_owned())
                .chain(inside.iter().cloned())
                .collect()
        };
        match (self.event_type.as_str(), carrier) {
            ("ACTIVITY_DELTA", Carrier::ActivityContent) => op_targets("patch", &self.ops, inside),
            ("STATE_DELTA", Carrier::State) => op_targets("delta", &self.ops, inside),
            ("MESSAGES_SNAPSHOT", Carrier::ActivityContent) => self
                .activity_messages
                .iter()
                .map(|i| under(&["messages", &i.to_string(), "content"]))
                .collect(),
            ("RUN_STARTED", Carrier::ActivityContent) => self
                .input_activity_messages
                .iter()
                .map(|i| under(&["input", "messages", &i.to_string(), "content"]))
                .collect(),
            ("RUN_STARTED", Carrier::State) => vec![under(&["input", "state"])],
            _ => Vec::new(),
        }
    }
}

/// Where, in a delta, operations carry a value at or inside `inside` (a
/// path in the document it patches): an operation whose path is at or
/// below it has its whole `value` replaced; one whose path is above it, the
/// part of its `value` that lands there. `-` (the end of an array) stands
/// for any index.
fn op_targets(member: &str, paths: &[Option<Vec<String>>], inside: &[String]) -> Vec<Vec<String>> {
    /// Whether `prefix` leads to `path`, token by token.
    fn leads_to(prefix: &[String], path: &[String]) -> bool {
        prefix.len() <= path.len()
            && prefix.iter().zip(path).all(|(a, b)| {
                a == b
                    || (a == "-" && array_index(b).is_some())
                    || (b == "-" && array_index(a).is_some())
            })
    }
    paths
        .iter()
        .enumerate()
        .filter_map(|(i, path)| {
            let path = path.as_ref()?;
            let mut target = vec![member.to_owned(), i.to_string(), "value".to_owned()];
            if leads_to(inside, path) {
                Some(target)
            } else if leads_to(path, inside) {
                target.extend(inside[path.len()..].iter().cloned());
                Some(target)
            } else {
                None
            }
        })
        .collect()
}

/// One step of a pointer into a value, for the run input.
fn step_mut<'a>(value: &'a mut Value, token: &str) -> Option<&'a mut Value> {
    match value {
        Value::Object(map) => map.get_mut(token),
        Value::Array(items) => items.get_mut(array_index(token)?),
        _ => None,
    }
}

/// An array index token: `0`, or digits without a leading zero (`-`, the
/// element after the last, never resolves to a value).
fn array_index(token: &str) -> Option<usize> {
    let digits = token.bytes().all(|b| b.is_ascii_digit());
    if token.is_empty() || !digits || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    token.parse().ok()
}

/// The byte range, in `json`, of the value `tokens` point at, if they
/// resolve. Of members named twice, the last counts (as when the event is
/// read).
fn locate(json: &str, tokens: &[String]) -> Option<Range<usize>> {
    let mut current: &RawValue = serde_json::from_str(json).ok()?;
    for token in tokens {
        let text = current.get();
        current = match text.as_bytes().first() {
            Some(b'{') => {
                let members: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
                members.get(token.as_str()).copied()?
            }
            Some(b'[') => {
                let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
                items.get(array_index(token)?).copied()?
            }
            _ => return None,
        };
    }
    // Every value borrowed above is a slice of `json`.
    let start = (current.get().as_ptr() as usize).checked_sub(json.as_ptr() as usize)?;
    let end = start + current.get().len();
    json.get(start..end).map(|_| start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn redactor(rules: &[(&str, Value)]) -> Redactor {
        Redactor::new(&Redaction {
            drop_headers: false,
            replace: rules
                .iter()
                .map(|(p, v)| ((*p).to_owned(), v.clone()))
                .collect(),
        })
        .expect("valid pointers")
    }

    #[test]
    fn pointers_are_parsed_as_rfc_6901_says() {
        assert_eq!(parse_pointer("/a").ok(), Some(vec!["a".to_owned()]));
        assert_eq!(
            parse_pointer("/a~1b/~0c/0/").ok(),
            Some(vec!["a/b".into(), "~c".into(), "0".into(), String::new()])
        );
        assert_eq!(parse_pointer("/m=n").ok(), Some(vec!["m=n".to_owned()]));
        for bad in ["", "a", "a/b", "/a~", "/a~2", "/~x"] {
            assert!(parse_pointer(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_the_pointed_bytes_change() {
        let mut r = redactor(&[("/value/token", json!("[REDACTED]"))]);
        let raw = br#"{ "type" : "CUSTOM", "value": {"n": 1.50, "token":"abc" } }"#;
        let out = r.event(raw, Some(Seq(1))).expect("changed");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            r#"{ "type" : "CUSTOM", "value": {"n": 1.50, "token":"[REDACTED]" } }"#
        );
        assert_eq!(r.event(br#"{"type":"X"}"#, Some(Seq(2))), None);
        assert_eq!(r.event(b"not json", Some(Seq(3))), None);
        let report = r.finish();
        assert_eq!(report.redacted_values, 1);
        assert_eq!(report.unredactable_events, [Seq(3)]);
        assert!(report.unmatched_pointers.is_empty());
    }

    #[test]
    fn arrays_escapes_and_duplicates_resolve() {
        let mut r = redactor(&[
            ("/a/1", json!(0)),
            ("/b~1c", json!(null)),
            ("/d", json!({"x": [1]})),
            ("/a/01", json!(9)),
            ("/a/-", json!(9)),
        ]);
        let raw = br#"{"a":[1,2,3],"b/c":"s","d":1,"d":2}"#;
        let out = r.event(raw, Some(Seq(1))).expect("changed");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            r#"{"a":[1,0,3],"b/c":null,"d":1,"d":{"x":[1]}}"#
        );
        let report = r.finish();
        assert_eq!(report.redacted_values, 3);
        assert_eq!(report.unmatched_pointers, ["/a/01", "/a/-"]);
    }

    #[test]
    fn the_run_input_is_redacted_too() {
        let mut r = redactor(&[("/state/secret", json!("[REDACTED]"))]);
        let input = json!({"state": {"secret": "s3", "keep": 1}, "messages": []});
        assert_eq!(
            r.value(&input),
            json!({"state": {"secret": "[REDACTED]", "keep": 1}, "messages": []})
        );
        let body = br#"{"state":{"secret":"s3"}}"#;
        assert_eq!(
            r.request_body(body).as_deref(),
            Some(br#"{"state":{"secret":"[REDACTED]"}}"#.as_slice())
        );
        assert_eq!(r.request_body(b"a=b"), None);
        let report = r.finish();
        assert_eq!(report.redacted_values, 2);
        assert!(report.request_body_unredactable);
    }

    #[test]
    fn deltas_are_redacted_below_at_and_above_the_pointed_value() {
        let mut redactor = redactor(&[("/content/secret/key", json!("x"))]);
        let raw = br#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[{"op":"replace","path":"","value":{"secret":{"key":1,"other":2}}},{"op":"add","path":"/secret/key","value":3},{"op":"add","path":"/secret/key/deep","value":4},{"op":"remove","path":"/secret/key"},{"op":"add","path":"/public","value":5}]}"#;
        let out = redactor.event(raw, Some(Seq(1))).expect("changed");
        let event: Value = serde_json::from_slice(&out).expect("JSON");
        let ops = &event["patch"];
        assert_eq!(ops[0]["value"], json!({"secret": {"key": "x", "other": 2}}));
        assert_eq!(ops[1]["value"], "x");
        assert_eq!(ops[2]["value"], "x");
        assert_eq!(ops[3], json!({"op": "remove", "path": "/secret/key"}));
        assert_eq!(ops[4]["value"], 5);
        // Not a delta: the same pointer names nothing there.
        let text = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","patch":[{"path":"/secret/key","value":1}]}"#;
        assert_eq!(redactor.event(text, Some(Seq(2))), None);
        assert_eq!(redactor.finish().redacted_values, 3);
    }

    #[test]
    fn content_rules_follow_activities_and_snapshot_rules_follow_the_state() {
        let mut redactor = redactor(&[
            ("/content/token", json!("x")),
            ("/snapshot/key", json!("k")),
        ]);
        let mut redact = |raw: &str| -> Value {
            let out = redactor.event(raw.as_bytes(), Some(Seq(1)));
            serde_json::from_slice(out.as_deref().unwrap_or(raw.as_bytes())).expect("JSON")
        };
        // Each rule to its own kind of delta only.
        let activity = redact(
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[{"op":"add","path":"/token","value":"S"},{"op":"add","path":"/key","value":"K"}]}"#,
        );
        assert_eq!(activity["patch"][0]["value"], "x");
        assert_eq!(activity["patch"][1]["value"], "K");
        let state = redact(
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/token","value":"S"},{"op":"add","path":"/key","value":"K"}]}"#,
        );
        assert_eq!(state["delta"][0]["value"], "S");
        assert_eq!(state["delta"][1]["value"], "k");
        // Activity messages of a messages snapshot, not the others.
        let messages = redact(
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi"},{"id":"a","role":"activity","activityType":"t","content":{"token":"S"}}]}"#,
        );
        assert_eq!(messages["messages"][0]["content"], "hi");
        assert_eq!(messages["messages"][1]["content"]["token"], "x");
        // A run input's activity messages and state.
        let start = redact(
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"messages":[{"id":"a","role":"activity","content":{"token":"S"}}],"state":{"key":"K"}}}"#,
        );
        assert_eq!(start["input"]["messages"][0]["content"]["token"], "x");
        assert_eq!(start["input"]["state"]["key"], "k");
        // `-` appends at an index: a rule under an index follows it.
        let mut redactor = redactor_for("/content/users/0/apiKey");
        let out = redactor
            .event(br#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[{"op":"add","path":"/users/-","value":{"apiKey":"S","name":"n"}}]}"#, Some(Seq(1)))
            .expect("changed");
        let event: Value = serde_json::from_slice(&out).expect("JSON");
        assert_eq!(
            event["patch"][0]["value"],
            json!({"apiKey": "[REDACTED]", "name": "n"})
        );
    }

    #[test]
    fn replacing_an_object_is_reported() {
        let mut redactor = redactor_for("/content/creds");
        redactor
            .event(br#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"creds":{"user":"u"}}}"#, Some(Seq(1)))
            .expect("changed");
        let report = redactor.finish();
        assert_eq!(report.replaced_containers, 1);
        assert!(
            report
                .notes()
                .iter()
                .any(|n| n.contains("objects or arrays")),
            "{:?}",
            report.notes()
        );
    }

    fn redactor_for(pointer: &str) -> Redactor {
        redactor(&[(pointer, json!(REDACTED_VALUE))])
    }
}
