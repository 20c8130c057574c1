//! Redaction: values named by JSON pointers (RFC 6901) replaced in every
//! exported event, in place, so that an event keeps every other byte (its
//! member order, its spacing, its numbers as written) and an event the
//! pointers do not reach is not touched at all.
//!
//! Pointers are resolved in the bytes as written, through every member of a
//! name: of members named twice a reader keeps the last, but the file holds
//! both, and both are redacted. What is written is checked again after each
//! rule; an event that still holds a value the rule names is refused
//! ([`ExportError::Unredacted`]) rather than written (issue 12).

use serde_json::Value;

use super::ExportError;
use crate::diagnostic::Seq;
use crate::pointer::PointerError;
use crate::store::raw_json::{self, array_index};

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
    crate::pointer::tokens(pointer).map_err(|error| match error {
        PointerError::NoLeadingSlash => {
            invalid("a JSON pointer starts with `/`, such as /delta/0/value")
        }
        PointerError::BadEscape => {
            invalid("`~` must be followed by 0 or 1 (`~0` is `~`, `~1` is `/`)")
        }
    })
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
    /// An event that still holds a value a rule names after redaction is
    /// an error: it is not written.
    pub(super) fn event(
        &mut self,
        raw: &[u8],
        origin: Option<Seq>,
    ) -> Result<Option<Vec<u8>>, ExportError> {
        match self.bytes(raw) {
            Ok(changed) => Ok(changed),
            Err(Failure::NotJson) => {
                if let Some(seq) = origin {
                    self.report.unredactable_events.push(seq);
                }
                Ok(None)
            }
            Err(Failure::Unverified(pointer)) => Err(ExportError::Unredacted {
                what: origin
                    .map_or_else(|| "an added event".to_owned(), |seq| format!("step {seq}")),
                pointer,
            }),
        }
    }

    /// A request body (the run input) with the pointed values replaced;
    /// `None` when it is left as it is.
    pub(super) fn request_body(&mut self, body: &[u8]) -> Result<Option<Vec<u8>>, ExportError> {
        match self.bytes(body) {
            Ok(changed) => Ok(changed),
            Err(Failure::NotJson) => {
                self.report.request_body_unredactable = true;
                Ok(None)
            }
            Err(Failure::Unverified(pointer)) => Err(ExportError::Unredacted {
                what: "the run input".to_owned(),
                pointer,
            }),
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

    fn bytes(&mut self, raw: &[u8]) -> Result<Option<Vec<u8>>, Failure> {
        if self.rules.is_empty() {
            return Ok(None);
        }
        let text = std::str::from_utf8(raw).map_err(|_| Failure::NotJson)?;
        if raw_json::parse(text).is_none() {
            return Err(Failure::NotJson);
        }
        let mut text = std::borrow::Cow::Borrowed(text);
        for (rule, matches) in self.rules.iter().zip(&mut self.matches) {
            // Serialized JSON is UTF-8.
            let replacement = std::str::from_utf8(&rule.replacement).unwrap_or("null");
            let ranges = raw_json::outermost(rule.ranges_in(&text));
            if ranges.is_empty() {
                continue;
            }
            for range in &ranges {
                if matches!(text.as_bytes()[range.start], b'{' | b'[') {
                    self.report.replaced_containers += 1;
                }
            }
            *matches += ranges.len();
            self.report.redacted_values += ranges.len();
            let spliced = raw_json::splice(&text, ranges, replacement);
            // What is written is checked, not what was parsed: every value
            // the rule names in the new text, each duplicate included, is
            // the replacement.
            if rule
                .ranges_in(&spliced)
                .iter()
                .any(|range| &spliced[range.clone()] != replacement)
            {
                return Err(Failure::Unverified(rule.text.clone()));
            }
            text = std::borrow::Cow::Owned(spliced);
        }
        Ok(match text {
            std::borrow::Cow::Owned(text) if text.as_bytes() != raw => Some(text.into_bytes()),
            _ => None,
        })
    }
}

/// Why bytes could not be redacted.
enum Failure {
    /// They are not one JSON value: written as they are, and reported.
    NotJson,
    /// A value the rule (this pointer) names is still there after it.
    Unverified(String),
}

/// What a pointer into a snapshot names, which other events carry too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carrier {
    /// An activity's content (`/content/…` of `ACTIVITY_SNAPSHOT`).
    ActivityContent,
    /// The state (`/snapshot/…` of `STATE_SNAPSHOT`).
    State,
}

impl Rule {
    /// The byte ranges in an event of every value this rule names: at its
    /// pointer, and where the event carries the snapshot content or state it
    /// points into; through every duplicate member.
    fn ranges_in(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let mut targets = vec![self.tokens.clone()];
        if let Some((carrier, inside)) = self.carried() {
            targets.extend(Carriers::of(text).targets(carrier, inside));
        }
        targets
            .iter()
            .flat_map(|target| raw_json::ranges_at(text, target))
            .collect()
    }

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
/// Read from the bytes as written: every duplicate member counts (a
/// `type` named twice makes the event both kinds, an operation with two
/// `path`s carries its value to both).
#[derive(Default)]
struct Carriers {
    /// Every `type` the event names.
    types: Vec<String>,
    /// Each operation: its array member (`patch`, `delta`), its index, and
    /// one of its `path`s as tokens (`None`: no readable path).
    ops: Vec<(&'static str, usize, Option<Vec<String>>)>,
    /// Indices of the activity messages in `messages`.
    activity_messages: Vec<usize>,
    /// Indices of the activity messages in `input.messages`.
    input_activity_messages: Vec<usize>,
}

impl Carriers {
    fn of(text: &str) -> Self {
        let Some(root) = raw_json::parse(text) else {
            return Self::default();
        };
        let at = |tokens: &[&str]| {
            let tokens: Vec<String> = tokens.iter().map(|t| (*t).to_owned()).collect();
            raw_json::values_at(root, &tokens)
        };
        let types: Vec<String> = at(&["type"])
            .into_iter()
            .filter_map(raw_json::as_str)
            .collect();
        let mut ops = Vec::new();
        for (member, kind) in [("patch", "ACTIVITY_DELTA"), ("delta", "STATE_DELTA")] {
            if !types.iter().any(|t| t == kind) {
                continue;
            }
            for array in at(&[member]) {
                for (i, op) in raw_json::items(array)
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    let paths = raw_json::values_at(op, &["path".to_owned()]);
                    if paths.is_empty() {
                        ops.push((member, i, None));
                    }
                    for path in paths {
                        let tokens = match raw_json::as_str(path).as_deref() {
                            Some("") => Some(Vec::new()),
                            Some(path) => parse_pointer(path).ok(),
                            None => None,
                        };
                        ops.push((member, i, tokens));
                    }
                }
            }
        }
        let activities = |arrays: Vec<&serde_json::value::RawValue>| -> Vec<usize> {
            let mut found = Vec::new();
            for array in arrays {
                for (i, message) in raw_json::items(array)
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    let activity = raw_json::values_at(message, &["role".to_owned()])
                        .into_iter()
                        .any(|role| raw_json::as_str(role).as_deref() == Some("activity"));
                    if activity && !found.contains(&i) {
                        found.push(i);
                    }
                }
            }
            found
        };
        Self {
            ops,
            activity_messages: activities(at(&["messages"])),
            input_activity_messages: activities(at(&["input", "messages"])),
            types,
        }
    }

    fn has_type(&self, name: &str) -> bool {
        self.types.iter().any(|t| t == name)
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
        let mut targets = Vec::new();
        match carrier {
            Carrier::ActivityContent => {
                if self.has_type("ACTIVITY_DELTA") {
                    targets.extend(op_targets("patch", &self.ops, inside));
                }
                if self.has_type("MESSAGES_SNAPSHOT") {
                    targets.extend(
                        self.activity_messages
                            .iter()
                            .map(|i| under(&["messages", &i.to_string(), "content"])),
                    );
                }
                if self.has_type("RUN_STARTED") {
                    targets.extend(
                        self.input_activity_messages
                            .iter()
                            .map(|i| under(&["input", "messages", &i.to_string(), "content"])),
                    );
                }
            }
            Carrier::State => {
                if self.has_type("STATE_DELTA") {
                    targets.extend(op_targets("delta", &self.ops, inside));
                }
                if self.has_type("RUN_STARTED") {
                    targets.push(under(&["input", "state"]));
                }
            }
        }
        targets
    }
}

/// Where, in a delta, operations carry a value at or inside `inside` (a
/// path in the document it patches): an operation whose path is at or
/// below it has its whole `value` replaced; one whose path is above it, the
/// part of its `value` that lands there. `-` (the end of an array) stands
/// for any index.
fn op_targets(
    member: &str,
    ops: &[(&'static str, usize, Option<Vec<String>>)],
    inside: &[String],
) -> Vec<Vec<String>> {
    /// Whether `prefix` leads to `path`, token by token.
    fn leads_to(prefix: &[String], path: &[String]) -> bool {
        prefix.len() <= path.len()
            && prefix.iter().zip(path).all(|(a, b)| {
                a == b
                    || (a == "-" && array_index(b).is_some())
                    || (b == "-" && array_index(a).is_some())
            })
    }
    ops.iter()
        .filter(|(of, _, _)| *of == member)
        .filter_map(|(_, i, path)| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(redactor: &mut Redactor, raw: &[u8], origin: Option<Seq>) -> Option<Vec<u8>> {
        redactor.event(raw, origin).expect("redacted and checked")
    }

    fn redact_body(redactor: &mut Redactor, raw: &[u8]) -> Option<Vec<u8>> {
        redactor.request_body(raw).expect("redacted and checked")
    }

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
        let out = ev(&mut r, raw, Some(Seq::new(1))).expect("changed");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            r#"{ "type" : "CUSTOM", "value": {"n": 1.50, "token":"[REDACTED]" } }"#
        );
        assert_eq!(ev(&mut r, br#"{"type":"X"}"#, Some(Seq::new(2))), None);
        assert_eq!(ev(&mut r, b"not json", Some(Seq::new(3))), None);
        let report = r.finish();
        assert_eq!(report.redacted_values, 1);
        assert_eq!(report.unredactable_events, [Seq::new(3)]);
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
        let out = ev(&mut r, raw, Some(Seq::new(1))).expect("changed");
        assert_eq!(
            String::from_utf8(out).expect("UTF-8"),
            // Both members named `d` (issue 12: only the last was).
            r#"{"a":[1,0,3],"b/c":null,"d":{"x":[1]},"d":{"x":[1]}}"#
        );
        let report = r.finish();
        assert_eq!(report.redacted_values, 4);
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
            redact_body(&mut r, body).as_deref(),
            Some(br#"{"state":{"secret":"[REDACTED]"}}"#.as_slice())
        );
        assert_eq!(redact_body(&mut r, b"a=b"), None);
        let report = r.finish();
        assert_eq!(report.redacted_values, 2);
        assert!(report.request_body_unredactable);
    }

    #[test]
    fn deltas_are_redacted_below_at_and_above_the_pointed_value() {
        let mut redactor = redactor(&[("/content/secret/key", json!("x"))]);
        let raw = br#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[{"op":"replace","path":"","value":{"secret":{"key":1,"other":2}}},{"op":"add","path":"/secret/key","value":3},{"op":"add","path":"/secret/key/deep","value":4},{"op":"remove","path":"/secret/key"},{"op":"add","path":"/public","value":5}]}"#;
        let out = ev(&mut redactor, raw, Some(Seq::new(1))).expect("changed");
        let event: Value = serde_json::from_slice(&out).expect("JSON");
        let ops = &event["patch"];
        assert_eq!(ops[0]["value"], json!({"secret": {"key": "x", "other": 2}}));
        assert_eq!(ops[1]["value"], "x");
        assert_eq!(ops[2]["value"], "x");
        assert_eq!(ops[3], json!({"op": "remove", "path": "/secret/key"}));
        assert_eq!(ops[4]["value"], 5);
        // Not a delta: the same pointer names nothing there.
        let text = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","patch":[{"path":"/secret/key","value":1}]}"#;
        assert_eq!(ev(&mut redactor, text, Some(Seq::new(2))), None);
        assert_eq!(redactor.finish().redacted_values, 3);
    }

    #[test]
    fn content_rules_follow_activities_and_snapshot_rules_follow_the_state() {
        let mut redactor = redactor(&[
            ("/content/token", json!("x")),
            ("/snapshot/key", json!("k")),
        ]);
        let mut redact = |raw: &str| -> Value {
            let out = ev(&mut redactor, raw.as_bytes(), Some(Seq::new(1)));
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
        let out = ev(&mut redactor, br#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[{"op":"add","path":"/users/-","value":{"apiKey":"S","name":"n"}}]}"#, Some(Seq::new(1)))
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
        ev(&mut redactor, br#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"creds":{"user":"u"}}}"#, Some(Seq::new(1)))
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
