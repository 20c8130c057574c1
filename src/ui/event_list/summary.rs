//! One-line summaries of events, for the rows of the event list: what a
//! reader wants to see in a list (patch operations, the text of a delta, the
//! replace flag of a snapshot…).

use crate::app_model::words::thousands;
use std::borrow::Cow;

use crate::protocol::{EventBody, ParseOutcome, Patch, op_name};
use crate::surrogate;

/// Summaries longer than this (in characters) are cut with `…`.
const MAX_SUMMARY_CHARS: usize = 160;
/// Bytes of an unparseable event shown as its summary.
const UNPARSEABLE_PREFIX_BYTES: usize = 60;
/// Operations of a patch named in a summary.
const MAX_SUMMARY_OPS: usize = 3;

/// A one-line summary of an event: what a reader wants to see in a list
/// (patch operations, the text of a delta, the replace flag of a snapshot…).
pub fn summary(parsed: &ParseOutcome, raw: &[u8]) -> String {
    use EventBody as B;
    let text = match parsed {
        ParseOutcome::Event { event, .. } => match &event.body {
            B::RunStarted { run_id, .. } | B::RunFinished { run_id, .. } => {
                format!("run {run_id}")
            }
            B::RunError { message, code, .. } | B::SubagentError { message, code } => match code {
                Some(code) => format!("{code}: {message}"),
                None => message.clone(),
            },
            B::StepStarted { step_name } | B::StepFinished { step_name } => step_name.clone(),
            B::TextMessageStart { role, name, .. } => {
                let role = role.map_or("", |r| r.as_str());
                match name {
                    Some(name) => format!("{role} {name}"),
                    None => role.to_owned(),
                }
            }
            B::TextMessageContent { delta, .. }
            | B::ReasoningMessageContent { delta, .. }
            | B::ToolCallArgs { delta, .. } => quoted(delta),
            B::TextMessageChunk { delta, .. } | B::ReasoningMessageChunk { delta, .. } => {
                delta.as_deref().map(quoted).unwrap_or_default()
            }
            B::ToolCallStart {
                tool_call_id,
                tool_call_name,
                ..
            } => format!("{tool_call_name} ({tool_call_id})"),
            B::ToolCallEnd { tool_call_id } => tool_call_id.clone(),
            B::ToolCallChunk {
                tool_call_id,
                tool_call_name,
                delta,
                ..
            } => [
                tool_call_name.clone(),
                tool_call_id.as_ref().map(|id| format!("({id})")),
                delta.as_deref().map(quoted),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" "),
            B::ToolCallResult {
                tool_call_id,
                content,
                ..
            } => match content.as_str() {
                Some(text) => format!("{tool_call_id}: {}", quoted(text)),
                None => format!("{tool_call_id}: {}", compact_json(content)),
            },
            B::ReasoningStart { .. }
            | B::ReasoningMessageStart { .. }
            | B::ReasoningMessageEnd { .. }
            | B::ReasoningEnd { .. }
            | B::TextMessageEnd { .. } => String::new(),
            B::ReasoningEncryptedValue {
                subtype, entity_id, ..
            } => format!("{subtype:?} {entity_id}"),
            B::StateSnapshot { snapshot } => compact_json(snapshot),
            B::StateDelta { delta } => patch_summary(delta),
            B::MessagesSnapshot { messages } => plural(messages.len(), "message"),
            B::ActivitySnapshot {
                activity_type,
                content,
                replace,
                ..
            } => {
                let keys = content.as_object().map_or(0, |o| o.len());
                let mut text = format!("{activity_type}, {}", plural(keys, "key"));
                if let Some(replace) = replace {
                    text.push_str(&format!(", replace={replace}"));
                }
                text
            }
            B::ActivityDelta { patch, .. } => patch_summary(patch),
            B::SubagentStarted { name, .. } => name.clone(),
            B::SubagentFinished { outcome, .. } => {
                outcome.as_ref().map(compact_json).unwrap_or_default()
            }
            B::Raw { event, source } => {
                let event = event.as_ref().map(compact_json).unwrap_or_default();
                match source {
                    Some(source) => format!("{source}: {event}"),
                    None => event,
                }
            }
            B::Custom { name, value } => match value {
                Some(value) => format!("{name}: {}", compact_json(value)),
                None => name.clone(),
            },
        },
        ParseOutcome::UnknownType { type_name, .. } => format!("unknown type {type_name:?}"),
        ParseOutcome::Malformed { issue, .. } => issue.message.clone(),
        ParseOutcome::Unparseable { .. } => {
            let prefix = &raw[..raw.len().min(UNPARSEABLE_PREFIX_BYTES)];
            let mut text = escaped_text(prefix).replace(['\n', '\r'], " ");
            if prefix.len() < raw.len() {
                text.push('…');
            }
            text
        }
    };
    // Issue 39: a lone UTF-16 surrogate in an id, a name or a message
    // shows as `�⟨\ud83d⟩`, not as the private-use stand-in the replay
    // holds it as.
    one_line(surrogate::display(&text).into_owned())
}

/// Bytes as text, each byte that is not UTF-8 written `\xff`: the bytes
/// are shown as received, not as `�` (issue 13, point 10).
pub(crate) fn escaped_text(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    text
}

/// `3 ops: replace /found, add /results/-, remove /x, …`
fn patch_summary(patch: &Patch) -> String {
    let mut text = plural(patch.ops.len(), "op");
    for (i, op) in patch.ops.iter().take(MAX_SUMMARY_OPS).enumerate() {
        text.push_str(if i == 0 { ": " } else { ", " });
        text.push_str(op_name(op));
        text.push(' ');
        text.push_str(op.path().as_str());
    }
    if patch.ops.len() > MAX_SUMMARY_OPS {
        text.push_str(", …");
    }
    if !patch.dropped.is_empty() {
        text.push_str(&format!(
            " (+{} dropped)",
            thousands(patch.dropped.len() as u64)
        ));
    }
    text
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n as u64))
    }
}

/// A string in quotes with its escapes shown, cut to the summary's length
/// first (a delta can be megabytes). A lone UTF-16 surrogate shows as
/// `�⟨\ud83d⟩` (issue 39), where `{:?}` would write its stand-in's code.
fn quoted(text: &str) -> String {
    let text = cut(text, MAX_SUMMARY_CHARS);
    if !surrogate::may_hold_stand_in(&text) {
        return format!("{text:?}");
    }
    let mut out = String::from("\"");
    let mut rest: &str = &text;
    while let Some((at, half)) = rest
        .char_indices()
        .find(|(_, c)| surrogate::unit_of(*c).is_some())
    {
        push_escaped(&mut out, &rest[..at]);
        let end = at + half.len_utf8();
        out.push_str(&surrogate::display(&rest[at..end]));
        rest = &rest[end..];
    }
    push_escaped(&mut out, rest);
    out.push('"');
    out
}

/// `text` with its escapes shown as `{:?}` shows them, without the quotes.
fn push_escaped(out: &mut String, text: &str) {
    let debug = format!("{text:?}");
    out.push_str(&debug[1..debug.len() - 1]);
}

/// A value as one line of JSON, a lone UTF-16 surrogate written as its
/// escape (issue 39), as the JSON tree writes it.
fn compact_json(value: &serde_json::Value) -> String {
    let text = surrogate::escape_json(value.to_string());
    cut(&text, MAX_SUMMARY_CHARS).into_owned()
}

/// The first `max_chars` characters of `text`, with `…` if cut.
fn cut(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
        None => Cow::Borrowed(text),
    }
}

fn one_line(text: String) -> String {
    let text = if text.contains(['\n', '\r']) {
        text.replace(['\n', '\r'], " ")
    } else {
        text
    };
    cut(&text, MAX_SUMMARY_CHARS).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::test_support::STREAM;
    use crate::protocol::parse_event;

    fn summary_of(line: &str) -> String {
        summary(&parse_event(line.as_bytes()), line.as_bytes())
    }

    #[test]
    fn bytes_that_are_not_utf8_are_summarized_escaped() {
        // Issue 13, point 10: not as U+FFFD, which hides which bytes.
        let raw = b"{\"type\":\"RUN_\xff\xfeED\"}";
        assert_eq!(
            summary(&parse_event(raw), raw),
            r#"{"type":"RUN_\xff\xfeED"}"#
        );
        assert_eq!(escaped_text("é".as_bytes()), "é");
    }

    #[test]
    fn summarizes_activity_deltas_by_their_operations() {
        assert_eq!(
            summary_of(STREAM[2]),
            "2 ops: replace /found, add /results/-"
        );
        let many = r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/b"},{"op":"move","from":"/c","path":"/d"},{"op":"test","path":"/e","value":2}]}"#;
        assert_eq!(summary_of(many), "4 ops: add /a, remove /b, move /d, …");
    }

    #[test]
    fn summarizes_snapshots_with_their_replace_flag() {
        let line = r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"x":1},"replace":false}"#;
        assert_eq!(summary_of(line), "plan, 1 key, replace=false");
        assert_eq!(summary_of(STREAM[1]), "search, 2 keys");
    }

    #[test]
    fn summarizes_text_deltas_tool_args_and_state_ops() {
        assert_eq!(summary_of(STREAM[5]), r#""Hello Lisbon""#);
        let line = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"two\nlines"}"#;
        assert_eq!(summary_of(line), r#""two\nlines""#);
        let args = r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"city\":"}"#;
        assert_eq!(summary_of(args), r#""{\"city\":""#);
        let state =
            r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/budget","value":9}]}"#;
        assert_eq!(summary_of(state), "1 op: replace /budget");
    }

    #[test]
    fn summarizes_unparseable_events_by_their_first_bytes() {
        let line = format!("not json {}", "x".repeat(100));
        let text = summary_of(&line);
        assert!(text.starts_with("not json xxx"), "{text}");
        assert!(text.ends_with('…'), "{text}");
        assert_eq!(text.chars().count(), UNPARSEABLE_PREFIX_BYTES + 1);
    }

    /// Issue 39: a lone UTF-16 surrogate (held as a private-use stand-in)
    /// is shown as such in every kind of summary, never as the stand-in
    /// nor as its code point (`\u{10f83d}`); halves that are a pair are
    /// the character.
    #[test]
    fn a_lone_surrogate_is_shown_as_such() {
        let delta = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"ok \ud83d \"\n"}"#;
        assert_eq!(summary_of(delta), "\"ok \u{FFFD}⟨\\ud83d⟩ \\\"\\n\"");
        let pair = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude42"}"#;
        assert_eq!(summary_of(pair), "\"🙂\"");
        let error = r#"{"type":"RUN_ERROR","message":"bad \ude42","code":"c"}"#;
        assert_eq!(summary_of(error), "c: bad \u{FFFD}⟨\\ude42⟩");
        let run = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r\ud83d"}"#;
        assert_eq!(summary_of(run), "run r\u{FFFD}⟨\\ud83d⟩");
        let state = r#"{"type":"STATE_SNAPSHOT","snapshot":{"k":"v\ud83d"}}"#;
        assert_eq!(summary_of(state), r#"{"k":"v\ud83d"}"#);
        let tool = r#"{"type":"TOOL_CALL_START","toolCallId":"c\udc00","toolCallName":"f"}"#;
        assert_eq!(summary_of(tool), "f (c\u{FFFD}⟨\\udc00⟩)");
        for line in [delta, error, run, state, tool] {
            let text = summary_of(line);
            assert!(
                !text.chars().any(|c| crate::surrogate::unit_of(c).is_some())
                    && !text.contains("\\u{10f"),
                "{text}"
            );
        }
    }

    #[test]
    fn long_summaries_are_cut() {
        let line = format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{}"}}"#,
            "é".repeat(1000)
        );
        let text = summary_of(&line);
        assert!(text.chars().count() <= MAX_SUMMARY_CHARS + 1);
        assert!(text.contains('…'));
    }
}
