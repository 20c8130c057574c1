//! One activity's minimal repro: the smallest stream that reproduces what
//! that activity went through up to a step.

use serde_json::json;

use super::{ExportError, Selection};
use crate::diagnostic::Seq;
use crate::input::EventLog;
use crate::protocol::{EventBody, EventType, ParseOutcome, parse_event};
use crate::replay::{Replayer, RunPhase};

/// What the repro needs to know of each event.
struct Scanned {
    event_type: Option<EventType>,
    names_message: bool,
    run_ids: Option<(String, String)>,
}

fn scan(parsed: &ParseOutcome, message_id: &str) -> Scanned {
    match parsed {
        ParseOutcome::Event { event, .. } => Scanned {
            event_type: Some(event.event_type()),
            // A MESSAGES_SNAPSHOT that carries the message can create or
            // replace it (R51): it names it too.
            names_message: event.message_id_member() == Some(message_id)
                || matches!(&event.body, EventBody::MessagesSnapshot { messages }
                    if messages.iter().any(|m| m.get("id").and_then(serde_json::Value::as_str) == Some(message_id))),
            run_ids: match &event.body {
                EventBody::RunStarted {
                    thread_id, run_id, ..
                } => Some((thread_id.clone(), run_id.clone())),
                _ => None,
            },
        },
        ParseOutcome::Malformed {
            event_type,
            message_id: named,
            ..
        } => Scanned {
            event_type: Some(*event_type),
            names_message: named.as_deref() == Some(message_id),
            run_ids: None,
        },
        _ => Scanned {
            event_type: None,
            names_message: false,
            run_ids: None,
        },
    }
}

/// Picks the repro of `message_id` up to step `to`:
///
/// - the `RUN_STARTED` in force at the baseline, and every run boundary
///   (`RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR`) after it: they decide what
///   is applied (R60, R61) and who owns the activity (R23);
/// - the baseline: the first event naming the activity, normally the
///   snapshot that created it. Starting later would lose metadata, which
///   accumulates across snapshots (R5, R30), and the diagnostics raised
///   before; the repro must reproduce every diagnostic of the activity;
/// - every later event naming `message_id`, and the `MESSAGES_SNAPSHOT`s
///   between (they can replace or drop it, R51);
/// - the fatal error that stopped the run, wherever it is (R43);
/// - a closing `RUN_FINISHED` when the run is still open.
///
/// Everything else (other activities, other messages, state) is left out.
pub fn minimal_repro(
    events: &EventLog,
    start: &Replayer,
    message_id: &str,
    to: Seq,
) -> Result<Selection, ExportError> {
    let mut replayer = start.checkpoint();
    let mut scanned = Vec::new();
    for (seq, raw) in events.iter() {
        if seq > to {
            break;
        }
        let parsed = parse_event(raw);
        scanned.push(scan(&parsed, message_id));
        replayer.apply(parsed);
    }
    let fatal = replayer.fatal().and_then(|d| d.seq.index());
    let Some(begin) = scanned.iter().position(|s| s.names_message) else {
        return Err(ExportError::Scope(format!(
            "no event names {message_id:?} up to step {to}"
        )));
    };
    // The run in force at the baseline: the last RUN_STARTED before it.
    let run_start = scanned[..begin]
        .iter()
        .rposition(|s| s.event_type == Some(EventType::RunStarted))
        .unwrap_or(begin);

    let mut selection = Selection {
        events: EventLog::default(),
        origins: Vec::new(),
    };
    let mut last_run: Option<(String, String)> = None;
    for (index, info) in scanned.iter().enumerate() {
        let lifecycle = matches!(
            info.event_type,
            Some(EventType::RunStarted | EventType::RunFinished | EventType::RunError)
        );
        let keep = Some(index) == fatal
            || (index >= run_start && lifecycle)
            || (index >= begin
                && (info.names_message || info.event_type == Some(EventType::MessagesSnapshot)));
        if !keep {
            continue;
        }
        let seq = Seq::from_index(index);
        if let Some(raw) = events.get(seq) {
            selection.events.push(raw);
            selection.origins.push(Some(seq));
        }
        if let Some(ids) = &info.run_ids {
            last_run = Some(ids.clone());
        }
    }
    // Close the run if the repro leaves it open.
    let mut check = start.checkpoint();
    for (_, raw) in selection.events.iter() {
        check.apply_bytes(raw);
    }
    if check.run_phase() == RunPhase::Open {
        let (thread_id, run_id) =
            last_run.unwrap_or_else(|| ("repro-thread".to_owned(), "repro-run".to_owned()));
        let closing = json!({"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id});
        selection.events.push(closing.to_string().as_bytes());
        selection.origins.push(None);
    }
    Ok(selection)
}
