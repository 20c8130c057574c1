//! The AG-UI conformance corpus (§11 of `REPLAY-RULES.md`): reading a
//! fixture (one event stream and what a consumer must make of it), replaying
//! it under a profile and a protocol version, and judging every `expect` key
//! the replay can show.
//!
//! A fixture's `expect` keys are judged against the replay:
//!
//! - `outcome`: `completed` when no fatal error failed the run, `failed`
//!   when one did (a producer's `RUN_ERROR` is not a failure);
//! - `errorContains`: the fatal diagnostic's message contains the text (or
//!   the text with its JSON escapes undone), or the diagnostic names the same
//!   entity (`messageId`) or field (last token of its path);
//! - `runError`: a `RUN_ERROR` was delivered (with that message text);
//! - `warnings` / `noWarnings`: warning-severity diagnostics;
//! - `messages` / `messageCount` / `state`: the final conversation and
//!   state, subset-matched (arrays the same length, objects on the keys
//!   named);
//! - `eventTypes`, `eventTypesAbsent`, `eventPaths`, `eventAbsentPaths`: the
//!   events as delivered, which are the events applied or skipped (not the
//!   dropped, fatal or not applied ones), each without the members the replay
//!   stripped (the paths of its strip diagnostics).
//!
//! `request` and `requestAbsentPaths` are about the run input a client
//! sends, which a replay of the stream cannot see: they are reported as not
//! judged, never as passed. So is an empty `warnings` list or
//! `noWarnings: false`, which assert nothing.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, Severity};
use crate::protocol::{ProtocolVersion, parse_event_str};
use crate::replay::{Effect, Options, Outcome, Profile, Replayer};

/// One fixture of the corpus (the format of its `fixture.ts`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fixture {
    /// `name`: equals the file name without `.json`.
    pub name: String,
    /// `area`: which part of the specification it exercises.
    pub area: String,
    /// `description`: one line, what it proves.
    pub description: String,
    /// `kill`: the change to an implementation that must make it fail.
    pub kill: String,
    /// `client.maxProtocolVersion`: the peer era it pins, if any.
    pub max_protocol_version: Option<String>,
    /// `input`: the run input the run starts from (its messages and state
    /// are step 0 of the replay, R50).
    pub input: Option<Value>,
    /// `stream`: the events, verbatim.
    pub stream: Vec<Value>,
    /// `expect`: what every client must show.
    pub expect: Map<String, Value>,
    /// `expectOverrides`: per lane (`typescript`, `dotnet`), the keys that
    /// replace those of `expect` for that lane, with `intentional`.
    pub overrides: Map<String, Value>,
}

/// A fixture that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// The file could not be read.
    #[error("cannot read ({}): {path}", crate::error::io_cause(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not a fixture.
    #[error("{path}: {reason}")]
    Format {
        /// The file (empty for text).
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl Fixture {
    /// Reads a fixture from its JSON text.
    pub fn from_json(text: &str) -> Result<Self, String> {
        // Issue 39: lone surrogate escapes read as the replay reads them.
        let rewritten = crate::surrogate::rewrite(text);
        let value: Value = serde_json::from_str(rewritten.as_deref().unwrap_or(text))
            .map_err(|e| format!("not JSON: {e}"))?;
        let Value::Object(mut object) = value else {
            return Err("a fixture must be a JSON object".into());
        };
        let mut string = |name: &str, required: bool| -> Result<String, String> {
            match object.remove(name) {
                Some(Value::String(s)) => Ok(s),
                None if !required => Ok(String::new()),
                None => Err(format!("`{name}` is missing")),
                Some(_) => Err(format!("`{name}` must be a string")),
            }
        };
        let name = string("name", true)?;
        let area = string("area", true)?;
        let description = string("description", true)?;
        let kill = string("kill", true)?;
        let max_protocol_version = match object.remove("client") {
            None => None,
            Some(Value::Object(client)) => match client.get("maxProtocolVersion") {
                None => None,
                Some(Value::String(v)) => Some(v.clone()),
                Some(_) => return Err("`client.maxProtocolVersion` must be a string".into()),
            },
            Some(_) => return Err("`client` must be an object".into()),
        };
        let input = match object.remove("input") {
            None => None,
            Some(input @ Value::Object(_)) => Some(input),
            Some(_) => return Err("`input` must be an object".into()),
        };
        let stream = match object.remove("stream") {
            Some(Value::Array(events)) => events,
            _ => return Err("`stream` must be an array of events".into()),
        };
        let expect = match object.remove("expect") {
            Some(Value::Object(expect)) => expect,
            _ => return Err("`expect` must be an object".into()),
        };
        let overrides = match object.remove("expectOverrides") {
            None => Map::new(),
            Some(Value::Object(overrides)) => overrides,
            Some(_) => return Err("`expectOverrides` must be an object".into()),
        };
        Ok(Self {
            name,
            area,
            description,
            kill,
            max_protocol_version,
            input,
            stream,
            expect,
            overrides,
        })
    }

    /// Reads a fixture file; its `name` must be the file's stem.
    pub fn read(path: &Path) -> Result<Self, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|source| FixtureError::Io {
            path: path.to_owned(),
            source,
        })?;
        let fixture = Self::from_json(&text).map_err(|reason| FixtureError::Format {
            path: path.to_owned(),
            reason,
        })?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if fixture.name != stem {
            return Err(FixtureError::Format {
                path: path.to_owned(),
                reason: format!("`name` is {:?}, the file is {stem:?}", fixture.name),
            });
        }
        Ok(fixture)
    }

    /// The expectation for a profile: `spec` judges the base `expect`;
    /// `ag-ui-client-1.0` is the TypeScript lane, so the `typescript`
    /// override's keys replace the base's (its `intentional` is a reason,
    /// not a key).
    pub fn expectation(&self, profile: Profile) -> Map<String, Value> {
        let mut expect = self.expect.clone();
        if profile == Profile::AgUiClient10
            && let Some(Value::Object(lane)) = self.overrides.get("typescript")
        {
            for (key, value) in lane {
                if key != "intentional" {
                    expect.insert(key.clone(), value.clone());
                }
            }
        }
        expect
    }
}

/// The fixtures of a folder (`*.json`, by name).
pub fn read_dir(dir: &Path) -> Result<Vec<Fixture>, FixtureError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FixtureError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| FixtureError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            paths.push(path);
        }
    }
    paths.sort();
    paths.iter().map(|path| Fixture::read(path)).collect()
}

/// The protocol version a corpus folder is judged with: its name when it is
/// one (`1.0`, `1.1`, `draft`), else `None`.
pub fn folder_version(dir: &Path) -> Option<ProtocolVersion> {
    dir.file_name()?.to_str()?.parse().ok()
}

/// What became of one `expect` key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "why", rename_all = "kebab-case")]
pub enum Verdict {
    /// The replay shows what the key asserts.
    Passed,
    /// It does not; why, in plain words.
    Failed(String),
    /// The replay cannot show it (or the key asserts nothing); why.
    NotJudged(String),
}

/// One judged (or not judged) key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyResult {
    /// The `expect` key.
    pub key: String,
    /// What became of it.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// The result of one fixture under one profile and protocol version.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureResult {
    /// The fixture's name.
    pub name: String,
    /// The profile it was replayed under.
    pub profile: String,
    /// The protocol version the consumer implemented.
    pub protocol: String,
    /// Every key of the resolved expectation, in the fixture's order.
    pub keys: Vec<KeyResult>,
    /// The diagnostics the replay reported (for a failure's context).
    pub diagnostics: Vec<Diagnostic>,
}

impl FixtureResult {
    /// How many keys were judged.
    pub fn judged(&self) -> usize {
        self.keys
            .iter()
            .filter(|k| !matches!(k.verdict, Verdict::NotJudged(_)))
            .count()
    }

    /// The keys that failed.
    pub fn failed(&self) -> impl Iterator<Item = &KeyResult> {
        self.keys
            .iter()
            .filter(|k| matches!(k.verdict, Verdict::Failed(_)))
    }

    /// The keys not judged.
    pub fn not_judged(&self) -> impl Iterator<Item = &KeyResult> {
        self.keys
            .iter()
            .filter(|k| matches!(k.verdict, Verdict::NotJudged(_)))
    }

    /// Passed: at least one key judged, and none failed.
    pub fn passed(&self) -> bool {
        self.judged() > 0 && self.failed().next().is_none()
    }
}

/// What the replay of a fixture showed.
struct Observed {
    replayer: Replayer,
    /// The events delivered to application code, as delivered.
    delivered: Vec<Value>,
}

/// Replays a fixture's stream (from its `input`) under `options`.
fn observe(fixture: &Fixture, options: Options) -> Observed {
    let mut replayer = match &fixture.input {
        Some(input) => Replayer::with_run_input(options, input),
        None => Replayer::new(options),
    };
    let texts: Vec<String> = fixture.stream.iter().map(Value::to_string).collect();
    for text in &texts {
        replayer.apply(parse_event_str(text));
    }
    replayer.finish();
    let delivered = delivered_events(&fixture.stream, &replayer);
    Observed {
        replayer,
        delivered,
    }
}

/// The events as the replay delivered them: applied or skipped events (not
/// dropped, fatal or not applied ones), without the members it stripped.
fn delivered_events(stream: &[Value], replayer: &Replayer) -> Vec<Value> {
    let effects = replayer.effects();
    let mut delivered = Vec::new();
    for (i, event) in stream.iter().enumerate() {
        let Some(effect) = effects.get(i) else { break };
        if !matches!(effect.effect, Effect::Applied | Effect::Skipped) {
            continue;
        }
        let seq = crate::diagnostic::Seq::from_index(i);
        let mut paths: Vec<Vec<String>> = replayer
            .diagnostics()
            .iter()
            .filter(|d| d.seq == seq && d.code.strips_member())
            .filter_map(|d| d.path.as_deref().map(pointer_tokens))
            .collect();
        // Remove later array elements first, so indices stay right.
        paths.sort_by(|a, b| compare_tokens(b, a));
        let mut event = event.clone();
        for path in &paths {
            remove_at(&mut event, path);
        }
        delivered.push(event);
    }
    delivered
}

/// The tokens of a JSON pointer (`/a/0` → `["a", "0"]`).
fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| crate::pointer::unescape(t).into_owned())
        .collect()
}

fn compare_tokens(a: &[String], b: &[String]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            _ => x.cmp(y),
        };
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

fn remove_at(value: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut here = value;
    for token in parents {
        let next = match here {
            Value::Object(object) => object.get_mut(token),
            Value::Array(array) => token.parse::<usize>().ok().and_then(|i| array.get_mut(i)),
            _ => None,
        };
        match next {
            Some(next) => here = next,
            None => return,
        }
    }
    match here {
        Value::Object(object) => {
            object.remove(last);
        }
        Value::Array(array) => {
            if let Ok(i) = last.parse::<usize>()
                && i < array.len()
            {
                array.remove(i);
            }
        }
        _ => {}
    }
}

/// The value at `"<index>.<dotted path>"` among the delivered events.
fn event_path<'a>(delivered: &'a [Value], key: &str) -> Option<&'a Value> {
    let mut tokens = key.split('.');
    let index: usize = tokens.next()?.parse().ok()?;
    let mut here = delivered.get(index)?;
    for token in tokens {
        here = match here {
            Value::Object(object) => object.get(token)?,
            Value::Array(array) => array.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(here)
}

/// The format's subset match: arrays the same length and matched element
/// by element, objects only on the keys `expected` names, other values
/// equal. `Err` says where it differs.
pub fn subset_match(expected: &Value, actual: &Value) -> Result<(), String> {
    subset_at(expected, actual, String::new())
}

fn subset_at(expected: &Value, actual: &Value, at: String) -> Result<(), String> {
    let here = || {
        if at.is_empty() {
            "/".to_owned()
        } else {
            at.clone()
        }
    };
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            for (key, value) in expected {
                let path = format!("{at}/{key}");
                match actual.get(key) {
                    Some(found) => subset_at(value, found, path)?,
                    None => return Err(format!("{path}: missing, expected {value}")),
                }
            }
            Ok(())
        }
        (Value::Array(expected), Value::Array(actual)) => {
            if expected.len() != actual.len() {
                return Err(format!(
                    "{}: {} elements, expected {}",
                    here(),
                    actual.len(),
                    expected.len()
                ));
            }
            for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
                subset_at(e, a, format!("{at}/{i}"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => Ok(()),
        (e, a) if e == a => Ok(()),
        (e, a) => Err(format!("{}: found {a}, expected {e}", here())),
    }
}

/// Undoes the JSON string escapes a fixture's text may carry verbatim
/// (`expected \"reasoning\"` is a schema library's JSON-quoted message).
fn unescape(text: &str) -> String {
    serde_json::from_str::<String>(&format!("\"{text}\"")).unwrap_or_else(|_| text.to_owned())
}

fn strings(value: &Value) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(Value::as_str).collect()
}

fn judge_key(key: &str, expected: &Value, observed: &Observed) -> Verdict {
    let replayer = &observed.replayer;
    let warnings: Vec<&Diagnostic> = replayer
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    let malformed = |what: &str| Verdict::Failed(format!("the fixture's `{key}` is not {what}"));
    let check = |ok: bool, why: String| {
        if ok {
            Verdict::Passed
        } else {
            Verdict::Failed(why)
        }
    };
    match key {
        "outcome" => {
            let actual = match replayer.outcome() {
                Outcome::Ok => "completed",
                Outcome::Failed => "failed",
            };
            match expected.as_str() {
                Some(want @ ("completed" | "failed")) => check(
                    want == actual,
                    match replayer.fatal() {
                        Some(fatal) => format!(
                            "{actual}, expected {want}: event {} {} ({})",
                            fatal.seq, fatal.code, fatal.message
                        ),
                        None => format!("{actual}, expected {want}"),
                    },
                ),
                _ => malformed("\"completed\" or \"failed\""),
            }
        }
        "errorContains" => {
            let Some(want) = expected.as_str() else {
                return malformed("a string");
            };
            let Some(fatal) = replayer.fatal() else {
                return Verdict::Failed(format!(
                    "no fatal error, expected one containing {want:?}"
                ));
            };
            let unescaped = unescape(want);
            let names_it = fatal.message_id.as_deref() == Some(want)
                || fatal
                    .path
                    .as_deref()
                    .and_then(|p| p.rsplit('/').next())
                    .is_some_and(|field| !want.is_empty() && field == want);
            check(
                fatal.message.contains(want) || fatal.message.contains(&unescaped) || names_it,
                format!(
                    "the fatal error ({} at event {}) says {:?}, expected it to contain {want:?}",
                    fatal.code, fatal.seq, fatal.message
                ),
            )
        }
        "runError" => {
            let messages: Vec<&str> = observed
                .delivered
                .iter()
                .filter(|e| e.get("type").and_then(Value::as_str) == Some("RUN_ERROR"))
                .map(|e| e.get("message").and_then(Value::as_str).unwrap_or(""))
                .collect();
            match expected {
                Value::Bool(true) => check(!messages.is_empty(), "no RUN_ERROR delivered".into()),
                Value::Bool(false) => check(
                    messages.is_empty(),
                    format!("RUN_ERROR delivered: {messages:?}"),
                ),
                Value::String(want) => check(
                    messages.iter().any(|m| m.contains(want.as_str())),
                    format!("no delivered RUN_ERROR says {want:?} (delivered: {messages:?})"),
                ),
                _ => malformed("a boolean or a string"),
            }
        }
        "warnings" => {
            let Some(wanted) = strings(expected) else {
                return malformed("a list of strings");
            };
            if wanted.is_empty() {
                return Verdict::NotJudged("an empty list asserts nothing".into());
            }
            let missing: Vec<&str> = wanted
                .iter()
                .copied()
                .filter(|want| !warnings.iter().any(|w| w.message.contains(want)))
                .collect();
            check(
                missing.is_empty(),
                format!(
                    "no warning contains {missing:?} (warnings: {:?})",
                    warnings.iter().map(|w| &w.message).collect::<Vec<_>>()
                ),
            )
        }
        "noWarnings" => match expected {
            Value::Bool(true) => check(
                warnings.is_empty(),
                format!(
                    "{} warning(s): {}",
                    warnings.len(),
                    warnings
                        .iter()
                        .map(|w| format!("{} at event {}: {}", w.code, w.seq, w.message))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ),
            Value::Bool(false) => Verdict::NotJudged("`noWarnings: false` asserts nothing".into()),
            _ => malformed("a boolean"),
        },
        "messageCount" => {
            let Some(want) = expected.as_u64() else {
                return malformed("a count");
            };
            let actual = replayer.conversation().len() as u64;
            check(
                actual == want,
                format!("{actual} messages, expected {want}"),
            )
        }
        "messages" => {
            if !expected.is_array() {
                return malformed("a list");
            }
            let actual = replayer.conversation().to_json();
            match subset_match(expected, &actual) {
                Ok(()) => Verdict::Passed,
                Err(why) => Verdict::Failed(format!("messages{why} (messages: {actual})")),
            }
        }
        "state" => match subset_match(expected, replayer.state()) {
            Ok(()) => Verdict::Passed,
            Err(why) => Verdict::Failed(format!("state{why} (state: {})", replayer.state())),
        },
        "eventTypes" => {
            let Some(wanted) = strings(expected) else {
                return malformed("a list of strings");
            };
            let actual: Vec<&str> = observed
                .delivered
                .iter()
                .map(|e| e.get("type").and_then(Value::as_str).unwrap_or(""))
                .collect();
            check(
                actual == wanted,
                format!("delivered {actual:?}, expected {wanted:?}"),
            )
        }
        "eventTypesAbsent" => {
            let Some(banned) = strings(expected) else {
                return malformed("a list of strings");
            };
            if banned.is_empty() {
                return Verdict::NotJudged("an empty list asserts nothing".into());
            }
            let found: Vec<&str> = observed
                .delivered
                .iter()
                .filter_map(|e| e.get("type").and_then(Value::as_str))
                .filter(|t| banned.contains(t))
                .collect();
            check(found.is_empty(), format!("delivered {found:?}"))
        }
        "eventPaths" => {
            let Some(paths) = expected.as_object() else {
                return malformed("an object");
            };
            if paths.is_empty() {
                return Verdict::NotJudged("an empty object asserts nothing".into());
            }
            let wrong: Vec<String> = paths
                .iter()
                .filter_map(|(path, want)| match event_path(&observed.delivered, path) {
                    Some(found) if subset_match(want, found).is_ok() && found == want => None,
                    Some(found) => Some(format!("{path} is {found}, expected {want}")),
                    None => Some(format!("{path} does not exist, expected {want}")),
                })
                .collect();
            check(wrong.is_empty(), wrong.join("; "))
        }
        "eventAbsentPaths" => {
            let Some(paths) = strings(expected) else {
                return malformed("a list of strings");
            };
            if paths.is_empty() {
                return Verdict::NotJudged("an empty list asserts nothing".into());
            }
            let present: Vec<String> = paths
                .iter()
                .filter_map(|path| {
                    event_path(&observed.delivered, path).map(|v| format!("{path} is {v}"))
                })
                .collect();
            check(present.is_empty(), present.join("; "))
        }
        "request" | "requestAbsentPaths" => Verdict::NotJudged(
            "about the run input a client sends; a replay of the stream cannot see it".into(),
        ),
        _ => Verdict::NotJudged("a key this format does not define".into()),
    }
}

/// Replays a fixture under `options` and judges every key of its resolved
/// expectation.
pub fn run_fixture(fixture: &Fixture, options: Options) -> FixtureResult {
    let observed = observe(fixture, options);
    let expect = fixture.expectation(options.profile);
    let keys = expect
        .iter()
        .map(|(key, expected)| KeyResult {
            key: key.clone(),
            verdict: judge_key(key, expected, &observed),
        })
        .collect();
    FixtureResult {
        name: fixture.name.clone(),
        profile: options.profile.as_str().to_owned(),
        protocol: options.consumer_version().as_str().to_owned(),
        keys,
        diagnostics: observed.replayer.diagnostics().to_vec(),
    }
}

/// The results of one folder under one profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderResult {
    /// The folder, as given.
    pub folder: String,
    /// The profile.
    pub profile: String,
    /// The protocol version the consumer implemented.
    pub protocol: String,
    /// One result per fixture, by name.
    pub fixtures: Vec<FixtureResult>,
}

impl FolderResult {
    /// The summary line of the table.
    pub fn summary(&self) -> Summary {
        Summary {
            fixtures: self.fixtures.len(),
            passed: self.fixtures.iter().filter(|f| f.passed()).count(),
            keys_judged: self.fixtures.iter().map(FixtureResult::judged).sum(),
            keys_not_judged: self.fixtures.iter().map(|f| f.not_judged().count()).sum(),
        }
    }
}

/// Counts for one folder and profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Fixtures run.
    pub fixtures: usize,
    /// Fixtures passed (every judged key passed).
    pub passed: usize,
    /// Keys judged, over all fixtures.
    pub keys_judged: usize,
    /// Keys not judged, over all fixtures.
    pub keys_not_judged: usize,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{} passed, {} keys judged, {} not judged",
            self.passed, self.fixtures, self.keys_judged, self.keys_not_judged
        )
    }
}

/// Runs every fixture of `fixtures` under `options`.
pub fn run_folder(folder: &str, fixtures: &[Fixture], options: Options) -> FolderResult {
    FolderResult {
        folder: folder.to_owned(),
        profile: options.profile.as_str().to_owned(),
        protocol: options.consumer_version().as_str().to_owned(),
        fixtures: fixtures.iter().map(|f| run_fixture(f, options)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset_match_follows_the_format() {
        assert!(subset_match(&json!({"a": 1}), &json!({"a": 1, "b": 2})).is_ok());
        assert!(subset_match(&json!([{"a": 1}]), &json!([{"a": 1}, {"a": 2}])).is_err());
        assert!(subset_match(&json!({"a": [1]}), &json!({"a": [1, 2]})).is_err());
        assert!(subset_match(&json!({"a": null}), &json!({})).is_err());
        assert!(subset_match(&json!({"a": null}), &json!({"a": null})).is_ok());
        assert!(subset_match(&json!(0), &json!(0)).is_ok());
        assert!(subset_match(&json!({}), &json!([])).is_err());
    }

    #[test]
    fn event_paths_index_the_delivered_events() {
        let delivered = vec![json!({"type": "A", "delta": [{"op": "remove"}]})];
        assert_eq!(
            event_path(&delivered, "0.delta.0.op"),
            Some(&json!("remove"))
        );
        assert_eq!(event_path(&delivered, "1.type"), None);
        assert_eq!(event_path(&delivered, "0.delta.1"), None);
    }

    #[test]
    fn stripped_paths_are_removed_last_index_first() {
        let mut v = json!({"content": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]});
        let mut paths = vec![pointer_tokens("/content/2"), pointer_tokens("/content/10")];
        paths.sort_by(|a, b| compare_tokens(b, a));
        for p in &paths {
            remove_at(&mut v, p);
        }
        assert_eq!(v, json!({"content": [0, 1, 3, 4, 5, 6, 7, 8, 9, 11]}));
    }

    #[test]
    fn escaped_fixture_text_is_read_unescaped() {
        assert_eq!(
            unescape(r#"expected \"reasoning\""#),
            r#"expected "reasoning""#
        );
        assert_eq!(unescape("plain"), "plain");
    }
}
