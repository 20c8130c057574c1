//! The event list: a filter bar, then one row per event that passes the
//! filter (seq, arrival time, type, `messageId`, a one-line summary, the
//! worst diagnostic).
//!
//! A frame only touches the rows on screen: the table is virtualized, and
//! each visible row is parsed, summarized and looked up in the sorted
//! diagnostics as it is drawn. The filter runs over the whole stream, but
//! only when it changes ([`filter_rows`]).

use std::borrow::Cow;
use std::collections::BTreeSet;

use egui::{Align, Label, Layout, RichText};
use egui_extras::{Column, TableBuilder};

use super::state::{AppState, Command, Doc, EventFilter};
use super::theme;
use crate::diagnostic::{Diagnostic, Seq, Severity};
use crate::protocol::{EventBody, EventType, ParseOutcome, Patch, op_name, parse_event};
use crate::replay::Effect;
use crate::timeline::{EventKind, NUM_KINDS};

/// Summaries longer than this (in characters) are cut with `…`.
const MAX_SUMMARY_CHARS: usize = 160;
/// Bytes of an unparseable event shown as its summary.
const UNPARSEABLE_PREFIX_BYTES: usize = 60;
/// Operations of a patch named in a summary.
const MAX_SUMMARY_OPS: usize = 3;

/// Draws the event list.
pub fn event_list_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let Some(doc) = &state.doc else {
        ui.weak("No stream open");
        return;
    };
    filter_bar_ui(ui, doc, state, commands);
    ui.separator();
    table_ui(ui, doc, state, commands);
}

/// From this many events, the text fields apply on Enter (or when left)
/// rather than on every key: filtering a million events by text takes a few
/// hundred milliseconds.
const LIVE_FILTER_MAX_EVENTS: u64 = 100_000;

/// What is typed in the text fields, not applied yet, and the applied
/// values it started from (when those change elsewhere, the draft follows).
#[derive(Clone, Debug, Default)]
struct Draft {
    text: String,
    message_id: String,
    applied: (String, String),
}

/// The filter bar: text, `messageId`, types, severity. Pushes the new
/// filter when any of them changes.
fn filter_bar_ui(ui: &mut egui::Ui, doc: &Doc, state: &AppState, commands: &mut Vec<Command>) {
    let current = &state.event_filter;
    let applied = (current.text.clone(), current.message_id.clone());
    let draft_id = ui.scope_id().with("event-filter-draft");
    let mut draft = ui
        .data(|d| d.get_temp::<Draft>(draft_id))
        .filter(|draft| draft.applied == applied)
        .unwrap_or_else(|| Draft {
            text: current.text.clone(),
            message_id: current.message_id.clone(),
            applied,
        });
    let live = doc.num_events() < LIVE_FILTER_MAX_EVENTS;
    let (text_hint, id_hint) = if live {
        ("in the raw event", "exact")
    } else {
        ("Enter to apply", "exact, Enter")
    };
    let mut edited = current.clone();
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("Filter text");
        let text = ui
            .add(
                egui::TextEdit::singleline(&mut draft.text)
                    .hint_text(text_hint)
                    .desired_width(120.0),
            )
            .labelled_by(label.id);
        let label = ui.label("messageId");
        let id = ui
            .add(
                egui::TextEdit::singleline(&mut draft.message_id)
                    .hint_text(id_hint)
                    .desired_width(90.0),
            )
            .labelled_by(label.id);
        // A single-line field loses focus on Enter too.
        if live || text.lost_focus() || id.lost_focus() {
            edited.text.clone_from(&draft.text);
            edited.message_id.clone_from(&draft.message_id);
        }
    });
    ui.data_mut(|d| d.insert_temp(draft_id, draft));
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("Type");
        kinds_ui(ui, doc, &mut edited.kinds).labelled_by(label.id);
        let label = ui.label("Severity");
        severity_ui(ui, &mut edited.min_severity).labelled_by(label.id);
        if *current != EventFilter::default() && ui.button("Clear").clicked() {
            edited = EventFilter::default();
        }
        let count = format!("{} of {}", state.event_rows.len(), doc.num_events());
        ui.add(Label::new(RichText::new(count).weak()).extend());
    });
    if edited != *current {
        commands.push(Command::SetEventFilter(edited));
    }
}

/// The type multi-select: a checkbox per kind present in the stream, with
/// its count. No kind ticked means every kind.
fn kinds_ui(ui: &mut egui::Ui, doc: &Doc, kinds: &mut BTreeSet<EventKind>) -> egui::Response {
    let selected = match kinds.len() {
        0 => "all types".to_owned(),
        1 => kinds.iter().next().map_or("", |k| k.name()).to_owned(),
        n => format!("{n} types"),
    };
    let inner = egui::ComboBox::from_id_salt("event-kinds")
        .selected_text(selected)
        .width(110.0)
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
        .show_ui(ui, |ui| {
            // Bucket sums: cheap, and only while the popup is open.
            let counts = doc.timeline.index().counts(Seq(1)..=Seq(doc.num_events()));
            if ui.selectable_label(kinds.is_empty(), "all types").clicked() {
                kinds.clear();
            }
            for (index, &count) in counts.iter().enumerate() {
                let Some(kind) = EventKind::from_index(index).filter(|_| count > 0) else {
                    continue;
                };
                let mut ticked = kinds.contains(&kind);
                if ui
                    .checkbox(&mut ticked, format!("{} ({count})", kind.name()))
                    .changed()
                {
                    if ticked {
                        kinds.insert(kind);
                    } else {
                        kinds.remove(&kind);
                    }
                }
            }
        });
    inner.response
}

/// The severity selector: every event, or those with a diagnostic at least
/// this severe.
fn severity_ui(ui: &mut egui::Ui, min_severity: &mut Option<Severity>) -> egui::Response {
    fn label(min_severity: Option<Severity>) -> &'static str {
        match min_severity {
            None => "all events",
            Some(Severity::Info) => "info or worse",
            Some(Severity::Note) => "note or worse",
            Some(Severity::Warning) => "warning or worse",
            Some(Severity::Error) => "errors",
        }
    }
    let choices = [
        None,
        Some(Severity::Info),
        Some(Severity::Note),
        Some(Severity::Warning),
        Some(Severity::Error),
    ];
    egui::ComboBox::from_id_salt("event-severity")
        .selected_text(label(*min_severity))
        .width(105.0)
        .show_ui(ui, |ui| {
            for choice in choices {
                ui.selectable_value(min_severity, choice, label(choice));
            }
        })
        .response
}

/// The table of events: only the visible rows are built.
fn table_ui(ui: &mut egui::Ui, doc: &Doc, state: &AppState, commands: &mut Vec<Command>) {
    let rows = &state.event_rows;
    let step = state.step();
    // Scroll to the current step when it (or the rows) changed since the
    // last frame, not every frame: the user may scroll away from it.
    let memory_id = ui.scope_id().with("event-list-scrolled-to");
    let now = (step, rows.len(), rows.first().copied());
    let last: Option<(Seq, usize, Option<Seq>)> = ui.data(|d| d.get_temp(memory_id));
    let current_row = rows.binary_search(&step);
    let scroll_to = (last != Some(now)).then(|| {
        let row = current_row.unwrap_or_else(|next| next);
        let last_row = last.and_then(|(s, ..)| rows.binary_search(&s).ok());
        // A step to the next row scrolls just enough; a jump centres it.
        let align = match last_row {
            Some(last_row) if last_row.abs_diff(row) <= 1 => None,
            _ => Some(Align::Center),
        };
        (row, align)
    });
    ui.data_mut(|d| d.insert_temp(memory_id, now));

    let seq_width = text_width(ui, &doc.num_events().to_string());
    let last_millis = doc.arrival_nanos.last().map_or(0.0, |&n| millis(n));
    let millis_width = text_width(ui, &format!("{last_millis:.0}"));
    let mut builder = TableBuilder::new(ui)
        .id_salt("event-table")
        .striped(true)
        .resizable(true)
        .sense(egui::Sense::click())
        .cell_layout(Layout::left_to_right(Align::Center))
        .column(Column::exact(seq_width))
        .column(Column::exact(millis_width))
        .column(Column::initial(125.0).at_least(40.0).clip(true))
        .column(Column::initial(70.0).at_least(30.0).clip(true))
        .column(Column::remainder().at_least(60.0).clip(true))
        .column(Column::exact(14.0));
    if let Some((row, align)) = scroll_to {
        builder = builder.scroll_to_row(row, align);
    }
    let mut clicked = None;
    builder
        .header(theme::ROW_HEIGHT, |mut header| {
            for (title, hover) in [
                ("seq", "The event's position in the stream"),
                ("ms", "Arrival, in milliseconds from the first event"),
                ("type", "The event's type"),
                ("messageId", "The event's messageId"),
                ("summary", "What the event carries"),
                ("", "The worst diagnostic of the event"),
            ] {
                header.col(|ui| {
                    ui.strong(title).on_hover_text(hover);
                });
            }
        })
        .body(|body| {
            body.rows(theme::ROW_HEIGHT, rows.len(), |mut row| {
                let seq = rows[row.index()];
                let Some(raw) = doc.raw(seq) else { return };
                let parsed = parse_event(raw);
                let kind = doc.timeline.index().kind(seq);
                let not_applied = seq.index().is_some_and(|i| {
                    doc.timeline
                        .effects()
                        .get(i)
                        .is_some_and(|e| e.effect == Effect::NotApplied)
                });
                let text = |text: String| {
                    let text = RichText::new(text);
                    if not_applied {
                        text.weak().strikethrough()
                    } else {
                        text
                    }
                };
                row.set_selected(seq == step);
                row.col(|ui| {
                    right_aligned_label(ui, text(seq.to_string()));
                });
                row.col(|ui| {
                    let nanos = seq.index().and_then(|i| doc.arrival_nanos.get(i));
                    let shown = nanos.map_or(String::new(), |&n| format!("{:.0}", millis(n)));
                    right_aligned_label(ui, text(shown));
                });
                row.col(|ui| {
                    let name = kind.map_or("?", EventKind::name);
                    ui.add(
                        Label::new(text(name.to_owned()))
                            .selectable(false)
                            .truncate(),
                    );
                });
                let message_id = message_id_of(&parsed);
                row.col(|ui| {
                    let id = message_id.unwrap_or_default().to_owned();
                    ui.add(Label::new(text(id)).selectable(false).truncate());
                });
                row.col(|ui| {
                    let summary = summary(&parsed, raw);
                    ui.add(Label::new(text(summary)).selectable(false).truncate());
                });
                row.col(|ui| severity_icon_ui(ui, diagnostics_at(doc, seq)));
                let mut response = row.response();
                if not_applied {
                    response = response.on_hover_text("not applied: after the fatal error (R43)");
                }
                if response.clicked() {
                    clicked = Some(seq);
                    commands.push(Command::SetStep(seq));
                    let is_activity = matches!(
                        kind,
                        Some(EventKind::Known(
                            EventType::ActivitySnapshot | EventType::ActivityDelta
                        ))
                    );
                    if let (true, Some(id)) = (is_activity, message_id) {
                        commands.push(Command::SelectActivity(Some(id.to_owned())));
                    }
                }
            });
        });
    if let Some(seq) = clicked {
        // The clicked row is on screen already: do not scroll to it.
        ui.data_mut(|d| d.insert_temp(memory_id, (seq, rows.len(), rows.first().copied())));
    }
}

fn right_aligned_label(ui: &mut egui::Ui, text: RichText) {
    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
        ui.add(Label::new(text).selectable(false));
    });
}

/// The icon of the worst of `diagnostics`, with all of them on hover.
fn severity_icon_ui(ui: &mut egui::Ui, diagnostics: &[Diagnostic]) {
    let Some(worst) = diagnostics.iter().map(|d| d.severity).min() else {
        return;
    };
    let color = theme::severity_color(ui.visuals(), worst);
    ui.add(
        Label::new(
            RichText::new(theme::severity_symbol(worst))
                .color(color)
                .strong(),
        )
        .selectable(false),
    )
    .on_hover_ui(|ui| {
        for diagnostic in diagnostics {
            ui.label(format!(
                "{} {}: {}",
                diagnostic.severity, diagnostic.code, diagnostic.message
            ));
        }
    });
}

fn text_width(ui: &egui::Ui, text: &str) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let galley = ui.fonts_mut(|f| f.layout_no_wrap(text.to_owned(), font, egui::Color32::WHITE));
    galley.size().x + 2.0 * ui.spacing().item_spacing.x
}

fn millis(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

/// The replay's diagnostics of one event (the timeline's are sorted by seq).
fn diagnostics_at(doc: &Doc, seq: Seq) -> &[Diagnostic] {
    let all = doc.timeline.diagnostics();
    let start = all.partition_point(|d| d.seq < seq);
    let len = all[start..].partition_point(|d| d.seq <= seq);
    &all[start..start + len]
}

/// The `messageId` member of a parsed event, where its type has one.
fn message_id_of(parsed: &ParseOutcome) -> Option<&str> {
    match parsed {
        ParseOutcome::Event { event, .. } => event.message_id_member(),
        ParseOutcome::Malformed { message_id, .. } => message_id.as_deref(),
        ParseOutcome::UnknownType { .. } | ParseOutcome::Unparseable { .. } => None,
    }
}

/// A one-line summary of an event: what a reader wants to see in a list
/// (patch operations, the text of a delta, the replace flag of a snapshot…).
pub fn summary(parsed: &ParseOutcome, raw: &[u8]) -> String {
    use EventBody as B;
    let text = match parsed {
        ParseOutcome::Event { event, .. } => match &event.body {
            B::RunStarted { run_id, .. } | B::RunFinished { run_id, .. } => {
                format!("run {run_id}")
            }
            B::RunError { message, code } | B::SubagentError { message, code } => match code {
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
            } => format!("{tool_call_id}: {}", quoted(content)),
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
            B::SubagentFinished { outcome } => {
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
        ParseOutcome::UnknownType { type_name } => format!("unknown type {type_name:?}"),
        ParseOutcome::Malformed { issue, .. } => issue.message.clone(),
        ParseOutcome::Unparseable { .. } => {
            let prefix = &raw[..raw.len().min(UNPARSEABLE_PREFIX_BYTES)];
            let mut text = String::from_utf8_lossy(prefix).replace(['\n', '\r'], " ");
            if prefix.len() < raw.len() {
                text.push('…');
            }
            text
        }
    };
    one_line(text)
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
        text.push_str(&format!(" (+{} dropped)", patch.dropped.len()));
    }
    text
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A string in quotes with its escapes shown, cut to the summary's length
/// first (a delta can be megabytes).
fn quoted(text: &str) -> String {
    format!("{:?}", cut(text, MAX_SUMMARY_CHARS))
}

fn compact_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
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

/// The seqs of the events that pass `filter`, ascending: every event when
/// the filter is empty. Runs over the whole stream: call it when the filter
/// changes, not per frame.
pub fn filter_rows(doc: &Doc, filter: &EventFilter) -> Vec<Seq> {
    let index = doc.timeline.index();
    let mut rows: Vec<Seq> = match filter.min_severity {
        None => (1..=doc.num_events()).map(Seq).collect(),
        Some(min) => {
            // Severities are ordered worst first: "at least `min`" is `<= min`.
            let mut steps: Vec<Seq> = Severity::ALL
                .iter()
                .filter(|&&severity| severity <= min)
                .flat_map(|&severity| index.steps_with(severity).iter().copied())
                .filter(|seq| (1..=doc.num_events()).contains(&seq.0))
                .collect();
            steps.sort_unstable();
            steps.dedup();
            steps
        }
    };
    let mut kinds = [false; NUM_KINDS];
    for kind in &filter.kinds {
        kinds[kind.index()] = true;
    }
    let needle = filter.text.to_ascii_lowercase().into_bytes();
    let message_id = filter.message_id.trim();
    if filter.kinds.is_empty() && needle.is_empty() && message_id.is_empty() {
        return rows;
    }
    rows.retain(|&seq| {
        if !filter.kinds.is_empty() && !index.kind(seq).is_some_and(|k| kinds[k.index()]) {
            return false;
        }
        let Some(raw) = doc.raw(seq) else {
            return false;
        };
        (needle.is_empty() || contains_ignore_ascii_case(raw, &needle))
            && (message_id.is_empty() || names_message_id(raw, message_id))
    });
    rows
}

/// Whether `haystack` contains `needle_lower` (already lowercase), ignoring
/// ASCII case. Other characters must match byte for byte.
pub(super) fn contains_ignore_ascii_case(haystack: &[u8], needle_lower: &[u8]) -> bool {
    let Some((&first, rest)) = needle_lower.split_first() else {
        return true;
    };
    if haystack.len() < needle_lower.len() {
        return false;
    }
    let first_upper = first.to_ascii_uppercase();
    (0..=haystack.len() - needle_lower.len()).any(|i| {
        let byte = haystack[i];
        (byte == first || byte == first_upper)
            && haystack[i + 1..i + needle_lower.len()].eq_ignore_ascii_case(rest)
    })
}

/// Whether the event's top-level `messageId` is `message_id`.
fn names_message_id(raw: &[u8], message_id: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct MessageIdOnly<'a> {
        #[serde(rename = "messageId", borrow, default)]
        message_id: Option<Cow<'a, str>>,
    }
    // Most events do not name it: skip the parse unless the id's bytes, or
    // an escape that could spell them, are there.
    let may_name = contains(raw, message_id.as_bytes()) || raw.contains(&b'\\');
    may_name
        && serde_json::from_slice::<MessageIdOnly<'_>>(raw)
            .is_ok_and(|e| e.message_id.as_deref() == Some(message_id))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if haystack.len() < needle.len() {
        return false;
    }
    (0..=haystack.len() - needle.len())
        .any(|i| haystack[i] == first && haystack[i + 1..i + needle.len()] == *rest)
}

// `EventFilter::kinds` is a `BTreeSet<EventKind>`, which needs an order.
#[cfg(test)]
pub(crate) mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;

    use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

    use super::*;
    use crate::replay::Options;
    use crate::ui::state::load;

    /// A document replaying `lines` (one event each), opened as the app
    /// opens a JSON lines file.
    pub(crate) fn doc_of(lines: &[&str]) -> Doc {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "agui-replay-event-list-{}-{}.jsonl",
            std::process::id(),
            NEXT.fetch_add(1, AtomicOrdering::Relaxed)
        ));
        std::fs::write(&path, lines.join("\n")).expect("write the test stream");
        let doc = load(&path, None, Options::default()).expect("open the test stream");
        let _ = std::fs::remove_file(&path);
        *doc
    }

    /// An app state with `lines` open, at step 1.
    pub(crate) fn state_of(lines: &[&str]) -> AppState {
        let mut state = AppState {
            doc: Some(doc_of(lines)),
            ..AppState::default()
        };
        state.refresh_rows();
        state.apply(vec![Command::SetStep(Seq(1))]);
        state
    }

    fn harness(state: AppState) -> Harness<'static, AppState> {
        Harness::builder()
            .with_size(egui::vec2(640.0, 400.0))
            .build_ui_state(
                |ui, state: &mut AppState| {
                    let mut commands = Vec::new();
                    event_list_ui(ui, state, &mut commands);
                    state.apply(commands);
                },
                state,
            )
    }

    #[test]
    fn clicking_an_activity_row_steps_to_it_and_selects_the_activity() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label("ghost").click();
        harness.run();
        assert_eq!(harness.state().step(), Seq(4));
        assert_eq!(harness.state().selected_activity.as_deref(), Some("ghost"));
    }

    #[test]
    fn clicking_another_row_keeps_the_selected_activity() {
        let mut state = state_of(STREAM);
        state.selected_activity = Some("a-1".into());
        let mut harness = harness(state);
        harness.run();
        harness.get_by_label(r#""Hello Lisbon""#).click();
        harness.run();
        assert_eq!(harness.state().step(), Seq(6));
        assert_eq!(harness.state().selected_activity.as_deref(), Some("a-1"));
    }

    #[test]
    fn typing_in_the_filter_narrows_the_rows() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label("Filter text").focus();
        harness.get_by_label("Filter text").type_text("lisbon");
        harness.run();
        assert_eq!(harness.state().event_filter.text, "lisbon");
        assert_eq!(seqs(&harness.state().event_rows), [6]);
        harness.get_by_label("1 of 8");
        harness.get_by_label("Clear").click();
        harness.run();
        assert_eq!(harness.state().event_filter, EventFilter::default());
        assert_eq!(harness.state().event_rows.len(), 8);
    }

    #[test]
    fn the_type_and_severity_selectors_set_the_filter() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label("Severity").click();
        harness.run();
        harness.get_by_label("warning or worse").click();
        harness.run();
        assert_eq!(
            harness.state().event_filter.min_severity,
            Some(Severity::Warning)
        );
        assert_eq!(seqs(&harness.state().event_rows), [4]);
        harness.get_by_label("Type").click();
        harness.run();
        harness.get_by_label("TEXT_MESSAGE_END (1)").click();
        harness.run();
        let kinds = &harness.state().event_filter.kinds;
        assert!(kinds.contains(&EventKind::Known(EventType::TextMessageEnd)));
        assert!(harness.state().event_rows.is_empty());
    }

    const STREAM: &[&str] = &[
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a-1","activityType":"search","content":{"found":0,"results":[]}}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"a-1","activityType":"search","patch":[{"op":"replace","path":"/found","value":1},{"op":"add","path":"/results/-","value":"x"}]}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"ghost","activityType":"search","patch":[{"op":"add","path":"/a","value":1}]}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m-1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"Hello Lisbon"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m-1"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ];

    fn seqs(rows: &[Seq]) -> Vec<u64> {
        rows.iter().map(|s| s.0).collect()
    }

    #[test]
    fn an_empty_filter_keeps_every_event() {
        let doc = doc_of(STREAM);
        let rows = filter_rows(&doc, &EventFilter::default());
        assert_eq!(seqs(&rows), (1..=8).collect::<Vec<_>>());
    }

    #[test]
    fn filters_by_kind() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            kinds: [
                EventKind::Known(EventType::ActivityDelta),
                EventKind::Known(EventType::TextMessageEnd),
            ]
            .into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [3, 4, 7]);
    }

    #[test]
    fn filters_by_text_ignoring_case() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            text: "hello LISBON".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [6]);
    }

    #[test]
    fn filters_by_top_level_message_id_exactly() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            message_id: "m-1".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [5, 6, 7]);
        let partial = EventFilter {
            message_id: "m-".into(),
            ..EventFilter::default()
        };
        assert!(filter_rows(&doc, &partial).is_empty());
    }

    #[test]
    fn a_message_id_spelled_with_escapes_still_matches() {
        let doc = doc_of(&[r#"{"type":"TEXT_MESSAGE_END","messageId":"m\u002d1"}"#]);
        let filter = EventFilter {
            message_id: "m-1".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [1]);
    }

    #[test]
    fn filters_by_severity_at_least() {
        let doc = doc_of(STREAM);
        // Seq 4 is a delta for an unknown activity: a warning.
        let warnings = EventFilter {
            min_severity: Some(Severity::Warning),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &warnings)), [4]);
        let errors = EventFilter {
            min_severity: Some(Severity::Error),
            ..EventFilter::default()
        };
        assert!(filter_rows(&doc, &errors).is_empty());
    }

    #[test]
    fn filters_combine() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            kinds: [EventKind::Known(EventType::ActivityDelta)].into(),
            message_id: "a-1".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [3]);
    }

    #[test]
    fn severity_symbols_render_in_the_default_fonts() {
        let ctx = egui::Context::default();
        let mut output = ctx.run_ui(Default::default(), |_| {});
        output.textures_delta.clear();
        let font = egui::FontId::proportional(14.0);
        for severity in Severity::ALL {
            let symbol = theme::severity_symbol(severity);
            assert!(
                ctx.fonts_mut(|f| f.has_glyphs(&font, symbol)),
                "{symbol:?} ({severity}) has no glyph in egui's default fonts"
            );
        }
    }

    fn summary_of(line: &str) -> String {
        summary(&parse_event(line.as_bytes()), line.as_bytes())
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
