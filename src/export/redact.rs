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

    /// A run input with the pointed values replaced.
    pub(super) fn value(&mut self, value: &Value) -> Value {
        let mut value = value.clone();
        for (rule, matches) in self.rules.iter().zip(&mut self.matches) {
            let mut target = Some(&mut value);
            for token in &rule.tokens {
                target = target.and_then(|v| step_mut(v, token));
            }
            if let Some(target) = target {
                *target = serde_json::from_slice(&rule.replacement).unwrap_or(Value::Null);
                *matches += 1;
                self.report.redacted_values += 1;
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
        // The patch operations of a delta, read once if a rule may need them.
        let mut ops: Option<(&str, Vec<Option<Vec<String>>>)> = None;
        for (rule, matches) in self.rules.iter().zip(&mut self.matches) {
            let mut targets = Vec::new();
            if locate(&text, &rule.tokens).is_some() {
                targets.push(rule.tokens.clone());
            }
            if let Some(inside) = rule.delta_suffix() {
                let (member, paths) = ops.get_or_insert_with(|| delta_ops(&text));
                targets.extend(op_targets(member, paths, inside));
            }
            for target in targets {
                let Some(range) = locate(&text, &target) else {
                    continue;
                };
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

impl Rule {
    /// For a pointer into a snapshot's content (`/content/…`) or state
    /// (`/snapshot/…`), the part inside it: the same value reaches a UI
    /// through the deltas' operations, which are redacted too.
    fn delta_suffix(&self) -> Option<&[String]> {
        match self.tokens.split_first() {
            Some((first, inside)) if first == "content" || first == "snapshot" => Some(inside),
            _ => None,
        }
    }
}

/// The member holding a delta's operations (`patch` of `ACTIVITY_DELTA`,
/// `delta` of `STATE_DELTA`) and each operation's `path` as tokens (`None`
/// for an operation without a readable path).
fn delta_ops(text: &str) -> (&'static str, Vec<Option<Vec<String>>>) {
    #[derive(serde::Deserialize)]
    struct Op {
        path: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Delta {
        #[serde(rename = "type")]
        event_type: Option<String>,
        patch: Option<Vec<Op>>,
        delta: Option<Vec<Op>>,
    }
    let Ok(delta) = serde_json::from_str::<Delta>(text) else {
        return ("", Vec::new());
    };
    let (member, ops) = match delta.event_type.as_deref() {
        Some("ACTIVITY_DELTA") => ("patch", delta.patch),
        Some("STATE_DELTA") => ("delta", delta.delta),
        _ => return ("", Vec::new()),
    };
    let paths = ops
        .unwrap_or_default()
        .into_iter()
        .map(|op| match op.path.as_deref() {
            Some("") => Some(Vec::new()),
            Some(path) => parse_pointer(path).ok(),
            None => None,
        })
        .collect();
    (member, paths)
}

/// Where, in a delta, operations carry a value at or inside `inside` (a
/// path in the document it patches): an operation whose path is at or
/// below it has its whole `value` replaced; one whose path is above it, the
/// part of its `value` that lands there.
fn op_targets<'a>(
    member: &'a str,
    paths: &'a [Option<Vec<String>>],
    inside: &'a [String],
) -> impl Iterator<Item = Vec<String>> + 'a {
    paths.iter().enumerate().filter_map(move |(i, path)| {
        let path = path.as_ref()?;
        let mut target = vec![member.to_owned(), i.to_string(), "value".to_owned()];
        if path.starts_with(inside) {
            Some(target)
        } else if inside.starts_with(path) {
            target.extend(inside[path.len()..].iter().cloned());
            Some(target)
        } else {
            None
        }
    })
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
}
