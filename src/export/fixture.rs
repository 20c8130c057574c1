//! A conformance fixture: the AG-UI corpus's own format (`name`, `area`,
//! `description`, `kill`, optionally `input`, the `stream` of events, and an
//! `expect` block), so that a repro can be filed upstream or run through
//! the reference client's harness. Its expectation is what this replay saw
//! (REPLAY-RULES.md §11, rule C1 of `docs/RULES.md`).

use std::path::Path;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{ExportContext, ExportError, Scope, Selection};
use crate::diagnostic::{Diagnostic, Severity};
use crate::replay::{Options, Outcome, Replayer, replay_from};

/// The members of a recorded run input a fixture's `input` carries: those
/// the fixture format lists, and the `state` the replay starts from (R50).
const INPUT_MEMBERS: [&str; 5] = ["messages", "tools", "context", "forwardedProps", "state"];

#[derive(Serialize)]
struct Fixture<'a> {
    name: &'a str,
    area: &'static str,
    description: String,
    kill: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<Map<String, Value>>,
    stream: Vec<Box<RawValue>>,
    expect: Expectation,
}

/// The `expect` block: only the keys the replay can vouch for.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Expectation {
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_contains: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    no_warnings: bool,
    message_count: usize,
    messages: Value,
    state: Value,
}

/// The name of a fixture written to `out`: its file name without `.json`
/// (the corpus names a fixture after its file); without a file, one made of
/// the scope (`export-to-12`, `range-3-9`, `repro-search-1-20`).
pub fn fixture_name(out: Option<&Path>, scope: &Scope) -> String {
    if let Some(name) = out.and_then(Path::file_name).and_then(|n| n.to_str()) {
        let stem = match name.len().checked_sub(5) {
            Some(cut)
                if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".json") =>
            {
                &name[..cut]
            }
            _ => name,
        };
        if !stem.is_empty() {
            return stem.to_owned();
        }
    }
    match scope {
        Scope::UpTo(to) => format!("export-to-{to}"),
        Scope::Range(from, to) => format!("range-{from}-{to}"),
        Scope::Repro { message_id, to } => {
            let id: String = message_id
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            format!("repro-{id}-{to}")
        }
    }
}

/// The fixture of a selection (already redacted), its expectation replayed
/// from the run input in `context`, without best effort: a fixture states
/// what a consumer does, and a consumer stops at a fatal error (R43). An
/// event that is not a JSON object cannot be a fixture's event: that is an
/// error naming it.
pub fn fixture_document(
    selection: &Selection,
    context: &ExportContext<'_>,
) -> Result<Vec<u8>, ExportError> {
    fixture_document_with(selection, context, None)
}

/// [`fixture_document`] whose expected warnings hold those of `schemas`
/// too (S1, `export --schemas`); the area and the kill stay the replay's.
pub fn fixture_document_with(
    selection: &Selection,
    context: &ExportContext<'_>,
    schemas: Option<&crate::schemas::SchemaSet>,
) -> Result<Vec<u8>, ExportError> {
    let mut stream = Vec::with_capacity(selection.events.len());
    let mut types = Vec::with_capacity(selection.events.len());
    for ((position, raw), origin) in selection.events.iter().zip(&selection.origins) {
        let (event, event_type) = fixture_event(raw).map_err(|reason| ExportError::NotFixture {
            seq: origin.unwrap_or(position),
            reason,
        })?;
        stream.push(event);
        types.push(event_type);
    }
    let options = Options {
        best_effort: false,
        ..context.options
    };
    let start = match context.run_input {
        Some(input) => Replayer::with_run_input(options, input),
        None => Replayer::new(options),
    };
    let found = schemas.map(|schemas| {
        crate::schemas::check_stream(schemas, start.clone(), context.run_input, &selection.events)
    });
    let replayer = replay_from(start, &selection.events);
    let diagnostics = replayer.diagnostics();
    let fatal = replayer.fatal();
    let mut warnings: Vec<String> = Vec::new();
    let merged = found
        .as_deref()
        .map(|found| crate::replay::merge_divergences(diagnostics, found));
    for diagnostic in merged
        .as_deref()
        .unwrap_or(diagnostics)
        .iter()
        .filter(|d| d.severity == Severity::Warning)
    {
        if !warnings.contains(&diagnostic.message) {
            warnings.push(diagnostic.message.clone());
        }
    }
    let first_warning = diagnostics.iter().find(|d| d.severity == Severity::Warning);
    let deciding = fatal.or(first_warning).or(diagnostics.first());
    let failed = replayer.outcome() == Outcome::Failed;
    let messages = replayer.conversation().to_json();
    let fixture = Fixture {
        name: &context.name,
        area: area(deciding, &types),
        description: description(context, selection, fatal, warnings.len()),
        kill: kill(fatal, first_warning, replayer.conversation().len()),
        input: context.run_input.and_then(fixture_input),
        stream,
        expect: Expectation {
            outcome: if failed { "failed" } else { "completed" },
            error_contains: fatal.map(error_substring),
            no_warnings: warnings.is_empty(),
            warnings,
            message_count: replayer.conversation().len(),
            messages,
            state: replayer.state().clone(),
        },
    };
    // Issue 39: a lone surrogate the replay holds is written as its escape.
    let text = serde_json::to_string_pretty(&fixture).unwrap_or_default();
    let mut bytes = crate::surrogate::escape_json(text).into_bytes();
    bytes.push(b'\n');
    Ok(bytes)
}

/// An event as the fixture's stream holds it (its text verbatim) and its
/// `type`; or why it cannot be one.
fn fixture_event(raw: &[u8]) -> Result<(Box<RawValue>, Option<String>), String> {
    let text = std::str::from_utf8(raw)
        .map_err(|_| "it is not UTF-8 text, and a fixture's stream holds JSON objects".to_owned())?
        .trim();
    // Issue 39: lone surrogate escapes read as the replay reads them (the
    // stream keeps the text verbatim).
    let rewritten = crate::surrogate::rewrite(text);
    let value: Value = serde_json::from_str(rewritten.as_deref().unwrap_or(text))
        .map_err(|e| format!("it is not JSON ({e}), and a fixture's stream holds JSON objects"))?;
    let Value::Object(object) = &value else {
        return Err(format!(
            "it is a JSON {}, not an object, and a fixture's stream holds objects",
            json_kind(&value)
        ));
    };
    let event_type = object
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let raw = RawValue::from_string(crate::input::without_whitespace(text))
        .map_err(|e| format!("it is not JSON ({e}), and a fixture's stream holds JSON objects"))?;
    Ok((raw, event_type))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The members of a run input a fixture's `input` takes, if it has any.
fn fixture_input(input: &Value) -> Option<Map<String, Value>> {
    let object = input.as_object()?;
    let kept: Map<String, Value> = INPUT_MEMBERS
        .iter()
        .filter_map(|&key| object.get(key).map(|v| (key.to_owned(), v.clone())))
        .collect();
    (!kept.is_empty()).then_some(kept)
}

/// A distinctive part of the fatal error's text: the entity it names, or
/// the member, when the text holds it; the whole text otherwise.
fn error_substring(fatal: &Diagnostic) -> String {
    let message = &fatal.message;
    if let Some(id) = &fatal.message_id
        && !id.is_empty()
        && message.contains(id.as_str())
    {
        return id.clone();
    }
    if let Some(path) = &fatal.path {
        let member = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("");
        if message.contains(path.as_str()) && path.len() > 1 {
            return path.clone();
        }
        if member.len() > 1 && message.contains(member) {
            return member.to_owned();
        }
    }
    message.clone()
}

/// The corpus's area for a fixture: that of the diagnostic deciding it (the
/// fatal error, else the first warning, else the first diagnostic), else
/// that of the stream's first event beyond the run's own.
fn area(deciding: Option<&Diagnostic>, types: &[Option<String>]) -> &'static str {
    if let Some(diagnostic) = deciding {
        let name = diagnostic.code.as_str();
        let prefix = name.split('.').next().unwrap_or(name);
        let by_code = match prefix {
            "lifecycle" | "stream" => Some("lifecycle"),
            "protocol" => Some("versioning"),
            "event" | "sse" => Some("processing"),
            "input" => Some("compatibility"),
            "subagent" => Some("subagents"),
            "chunk" | "sequence" | "text" => Some("streaming"),
            "activity" => Some("activity"),
            "state" => Some("state"),
            "reference" => Some("tool-calls"),
            _ => None,
        };
        let by_event = diagnostic
            .seq
            .index()
            .and_then(|i| types.get(i))
            .and_then(|t| t.as_deref())
            .and_then(area_of_type);
        if let Some(area) = by_code.or(by_event) {
            return area;
        }
    }
    types
        .iter()
        .flatten()
        .find_map(|t| area_of_type(t).filter(|&a| a != "lifecycle"))
        .unwrap_or("lifecycle")
}

fn area_of_type(event_type: &str) -> Option<&'static str> {
    let area = if event_type.starts_with("ACTIVITY_") {
        "activity"
    } else if event_type.starts_with("TOOL_CALL_") {
        "tool-calls"
    } else if event_type.starts_with("REASONING_") {
        "reasoning"
    } else if event_type.starts_with("STATE_") {
        "state"
    } else if event_type.starts_with("TEXT_MESSAGE_") || event_type == "MESSAGES_SNAPSHOT" {
        "streaming"
    } else if event_type.starts_with("SUBAGENT_") {
        "subagents"
    } else if event_type == "RAW" || event_type == "CUSTOM" {
        "passthrough"
    } else if event_type.starts_with("RUN_") || event_type.starts_with("STEP_") {
        "lifecycle"
    } else {
        return None;
    };
    Some(area)
}

/// One line: where the fixture comes from and what the replay saw.
fn description(
    context: &ExportContext<'_>,
    selection: &Selection,
    fatal: Option<&Diagnostic>,
    num_warnings: usize,
) -> String {
    let seen = match fatal {
        Some(fatal) => format!(
            "the run fails at event {} ({}: {})",
            fatal.seq, fatal.code, fatal.message
        ),
        None => "the stream is consumed".to_owned(),
    };
    let warned = match num_warnings {
        0 => ", with no warning".to_owned(),
        1 => ", with 1 warning".to_owned(),
        n => format!(", with {n} warnings"),
    };
    format!(
        "exported from {}, {} events, replayed by agui-replay under the {} profile \
         as a protocol {} consumer (events numbered from 1 in this stream): {seen}{warned}",
        context.source_name,
        selection.events.len(),
        context.options.profile,
        context.options.consumer_version()
    )
}

/// The one change to a consumer that must make this fixture fail.
fn kill(
    fatal: Option<&Diagnostic>,
    first_warning: Option<&Diagnostic>,
    num_messages: usize,
) -> String {
    match (fatal, first_warning) {
        (Some(fatal), _) => format!(
            "accept event {} instead of failing the run ({})",
            fatal.seq, fatal.code
        ),
        (None, Some(warning)) => format!(
            "apply event {} silently instead of warning ({})",
            warning.seq, warning.code
        ),
        (None, None) => format!(
            "warn about or reject any event of this clean stream, or assemble its {num_messages} \
             messages or its state differently"
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::input::without_whitespace;

    #[test]
    fn whitespace_between_tokens_goes_and_strings_stay() {
        let text = "{\n  \"b\" : [1, 2.50],\n\t\"a\": \"x \\\" y\\\\\", \"c\" : { }\r\n}";
        assert_eq!(
            without_whitespace(text),
            r#"{"b":[1,2.50],"a":"x \" y\\","c":{}}"#
        );
    }
}
