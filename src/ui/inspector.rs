//! The inspector (the right panel's first tab): the selected activity at the
//! cursor — its content and metadata with what the current event changed —
//! then the current event itself: its raw JSON, its patch operation by
//! operation, and the diagnostics of the step.

use std::collections::BTreeMap;
use std::sync::Arc;

use egui::{Id, RichText, Ui};
use serde_json::{Map, Value};

use super::conversation::cursor_key;
use super::json_tree::{Highlights, JsonTree, compact_json, highlights_between, memoized};
use super::state::{AppState, Command, CursorView, Doc};
use super::theme;
use crate::diagnostic::{Diagnostic, Seq};
use crate::protocol::{EventBody, ParseOutcome, Patch, op_name, parse_event};
use crate::replay::{ActivityChange, ActivityMessage, Effect, Message, Profile, apply_patch};

/// Characters of a patch value shown in the grid (the rest on hover).
const MAX_VALUE_CHARS: usize = 32;
/// Characters of a value shown on hover.
const MAX_HOVER_CHARS: usize = 4000;
/// Characters of the raw event shown (the rest can be copied).
const MAX_RAW_CHARS: usize = 20_000;

/// Draws the inspector panel.
pub fn inspector_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    let (Some(doc), Some(view)) = (&state.doc, &state.view) else {
        ui.weak("No stream open");
        return;
    };
    egui::ScrollArea::vertical()
        .id_salt("inspector")
        .auto_shrink(false)
        .show(ui, |ui| {
            match &state.selected_activity {
                Some(id) => activity_ui(ui, doc, view, id, commands),
                None => {
                    ui.weak(
                        "No activity selected: click one in the conversation or on the timeline",
                    );
                }
            }
            ui.separator();
            current_event_ui(ui, doc, view);
        });
}

fn as_activity(message: Option<&Message>) -> Option<&ActivityMessage> {
    match message? {
        Message::Activity(activity) => Some(activity),
        Message::Other(_) => None,
    }
}

/// The selected activity: header, content and metadata.
fn activity_ui(ui: &mut Ui, doc: &Doc, view: &CursorView, id: &str, commands: &mut Vec<Command>) {
    let at_message = view.at.conversation().get(id);
    let activity = as_activity(at_message);
    let old = as_activity(view.before.conversation().get(id));
    ui.horizontal(|ui| {
        ui.heading(RichText::new(id).monospace());
        let clear = ui.small_button("×").on_hover_text("Clear the selection");
        clear.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::Button, true, "Clear the selection")
        });
        if clear.clicked() {
            commands.push(Command::SelectActivity(None));
        }
    });
    let lane = doc.timeline.index().lane(id);
    let here = lane.and_then(|lane| {
        lane.events
            .binary_search_by_key(&view.step, |(seq, _)| *seq)
            .ok()
            .map(|i| lane.events[i].1)
    });
    egui::Grid::new("activity-header")
        .num_columns(2)
        .spacing([12.0, 2.0])
        .show(ui, |ui| {
            let shown = activity.or(old);
            if let Some(shown) = shown {
                ui.weak("type");
                match old.filter(|o| activity.is_some() && o.activity_type != shown.activity_type) {
                    Some(o) => {
                        ui.label(format!("{} (was {})", shown.activity_type, o.activity_type))
                    }
                    None => ui.label(&shown.activity_type),
                };
                ui.end_row();
                ui.weak("owner");
                ui.label(match &shown.subagent_run_id {
                    Some(owner) => format!("subagent {owner}"),
                    None => "parent agent".to_owned(),
                });
                ui.end_row();
            }
            ui.weak(format!("at step {}", view.step));
            ui.label(existence(activity.is_some(), old.is_some(), at_message));
            ui.end_row();
            if let Some(change) = here {
                ui.weak("this event");
                let color = theme::change_color(ui.visuals(), change);
                ui.colored_label(color, change_label(change));
                ui.end_row();
            }
        });
    if let Some(lane) = lane {
        lane_navigation_ui(ui, &lane.events, view.step, commands);
    }
    let Some(shown) = activity.or(old) else {
        return;
    };
    let key = cursor_key(doc, view);
    let removed = activity.is_none();
    let content_title = if removed {
        "Content (before this event)"
    } else {
        "Content"
    };
    egui::CollapsingHeader::new(content_title)
        .id_salt("inspector-content")
        .default_open(true)
        .show(ui, |ui| {
            let highlights = match (activity, old) {
                (Some(a), Some(o)) if Arc::ptr_eq(&a.content, &o.content) => Arc::default(),
                (Some(a), o) => memoized(
                    ui.ctx(),
                    Id::unique(("inspector-content-highlights", id)),
                    key,
                    || Arc::new(highlights_between(o.map(|o| &*o.content), &a.content)),
                ),
                (None, _) => Arc::default(),
            };
            JsonTree::new(("content", id), &shown.content)
                .highlights(&highlights)
                .show(ui);
        });
    egui::CollapsingHeader::new("Metadata")
        .id_salt("inspector-metadata")
        .default_open(true)
        .show(ui, |ui| {
            let Some(metadata) = &shown.metadata else {
                ui.weak("No metadata");
                return;
            };
            let view_of_metadata = memoized(
                ui.ctx(),
                Id::unique(("inspector-metadata", id)),
                key,
                || Arc::new(metadata_view(doc, view, id, metadata, old, removed)),
            );
            JsonTree::new(("metadata", id), &view_of_metadata.value)
                .highlights(&view_of_metadata.highlights)
                .notes(&view_of_metadata.notes)
                .show(ui);
        });
}

/// Whether the activity exists at the cursor.
fn existence(now: bool, before: bool, message: Option<&Message>) -> String {
    match (now, before, message) {
        (true, false, _) => "created by this event".to_owned(),
        (true, true, _) => "exists".to_owned(),
        (false, true, _) => "removed by this event".to_owned(),
        (false, false, Some(other)) => {
            format!("not an activity: a {} message", other.role_name())
        }
        (false, false, None) => "does not exist at this step".to_owned(),
    }
}

/// What an activity event did, in words.
fn change_label(change: ActivityChange) -> &'static str {
    match change {
        ActivityChange::Created => "created (R2)",
        ActivityChange::Replaced => "replaced (R3)",
        ActivityChange::Declined => "snapshot declined, replace: false (R4)",
        ActivityChange::SnapshotSkipped => "snapshot skipped: id of a non-activity message (R9)",
        ActivityChange::DeltaApplied => "delta applied (R10)",
        ActivityChange::Retyped => "delta applied, type changed (R10)",
        ActivityChange::DeltaSkipped => "delta skipped (R12, R13)",
        ActivityChange::PatchFailed => "patch failed, delta skipped (R14)",
        ActivityChange::Fatal => "fatal",
        ActivityChange::NotApplied => "not applied: the run failed earlier (R43)",
    }
}

/// Buttons to the activity's previous and next events.
fn lane_navigation_ui(
    ui: &mut Ui,
    events: &[(Seq, ActivityChange)],
    step: Seq,
    commands: &mut Vec<Command>,
) {
    let first_after = events.partition_point(|(seq, _)| *seq <= step);
    let first_here = events.partition_point(|(seq, _)| *seq < step);
    let previous = first_here.checked_sub(1).map(|i| events[i].0);
    let next = events.get(first_after).map(|(seq, _)| *seq);
    ui.horizontal(|ui| {
        ui.weak(format!("{} events", events.len()));
        if let Some(seq) = previous
            && ui
                .small_button(format!("‹ step {seq}"))
                .on_hover_text("This activity's previous event")
                .clicked()
        {
            commands.push(Command::SetStep(seq));
        }
        if let Some(seq) = next
            && ui
                .small_button(format!("step {seq} ›"))
                .on_hover_text("This activity's next event")
                .clicked()
        {
            commands.push(Command::SetStep(seq));
        }
    });
}

/// The metadata shown: the value, what the current event changed, and for
/// each key the step of the event that set it.
#[derive(Clone)]
struct MetadataView {
    value: Value,
    highlights: Highlights,
    notes: BTreeMap<String, String>,
}

fn metadata_view(
    doc: &Doc,
    view: &CursorView,
    id: &str,
    metadata: &Map<String, Value>,
    old: Option<&ActivityMessage>,
    removed: bool,
) -> MetadataView {
    let value = Value::Object(metadata.clone());
    let highlights = if removed {
        Highlights::none()
    } else {
        let before = old.map(|o| Value::Object(o.metadata.clone().unwrap_or_default()));
        highlights_between(before.as_ref(), &value)
    };
    let step = if removed {
        Seq(view.step.0.saturating_sub(1))
    } else {
        view.step
    };
    let origins = metadata_origins(doc, step, id, metadata);
    let notes = metadata
        .keys()
        .map(|key| {
            let note = match origins.get(key) {
                Some(seq) => format!("set at step {seq}"),
                None => "not set by an activity event".to_owned(),
            };
            (super::json_tree::child_pointer("", key), note)
        })
        .collect();
    MetadataView {
        value,
        highlights,
        notes,
    }
}

/// For each metadata key, the step of the activity event that last set it
/// (R30): the activity's events are read backwards from `step`, and only
/// until every key is found.
fn metadata_origins(
    doc: &Doc,
    step: Seq,
    id: &str,
    metadata: &Map<String, Value>,
) -> BTreeMap<String, Seq> {
    let mut origins = BTreeMap::new();
    let Some(lane) = doc.timeline.index().lane(id) else {
        return origins;
    };
    let profile = doc.options().profile;
    let mut pending: Vec<&String> = metadata.keys().collect();
    let end = lane.events.partition_point(|(seq, _)| *seq <= step);
    for &(seq, change) in lane.events[..end].iter().rev() {
        if pending.is_empty() {
            break;
        }
        if !merges_metadata(change, profile) {
            continue;
        }
        let Some(raw) = doc.raw(seq) else { continue };
        let ParseOutcome::Event { event, .. } = parse_event(raw) else {
            continue;
        };
        let Some(sent) = event.envelope.metadata else {
            continue;
        };
        pending.retain(|key| match sent.get(key.as_str()) {
            // The latest event that sent the key set it, unless something
            // else (a messages snapshot) replaced the value since.
            Some(value) => {
                if metadata.get(key.as_str()) == Some(value) {
                    origins.insert((*key).clone(), seq);
                }
                false
            }
            None => true,
        });
    }
    origins
}

/// Whether an activity event with this outcome merged its metadata (R30, D3,
/// D4; the reference client merges it on a failed patch too).
fn merges_metadata(change: ActivityChange, profile: Profile) -> bool {
    match change {
        ActivityChange::Created
        | ActivityChange::Replaced
        | ActivityChange::Declined
        | ActivityChange::DeltaApplied
        | ActivityChange::Retyped => true,
        ActivityChange::PatchFailed => profile == Profile::AgUiClient10,
        ActivityChange::SnapshotSkipped
        | ActivityChange::DeltaSkipped
        | ActivityChange::Fatal
        | ActivityChange::NotApplied => false,
    }
}

/// The current event: type, outcome, raw JSON, and its patch.
fn current_event_ui(ui: &mut Ui, doc: &Doc, view: &CursorView) {
    ui.strong("Current event");
    let Some(event) = &view.event else {
        ui.weak("Step 0: the starting state, before any event");
        step_diagnostics_ui(ui, doc, view.step);
        return;
    };
    let effect = view
        .step
        .index()
        .and_then(|i| doc.timeline.effects().get(i))
        .copied();
    ui.horizontal_wrapped(|ui| {
        let name = match event {
            ParseOutcome::Event { event, .. } => event.event_type().as_str().to_owned(),
            ParseOutcome::Malformed { event_type, .. } => {
                format!("{} (malformed)", event_type.as_str())
            }
            ParseOutcome::UnknownType { type_name } => format!("{type_name} (unknown type)"),
            ParseOutcome::Unparseable { .. } => "unparseable".to_owned(),
        };
        ui.label(format!("step {}:", view.step));
        ui.label(RichText::new(name).monospace().strong());
        if let Some(effect) = effect {
            let (text, color) = match effect.effect {
                Effect::Applied => ("applied", ui.visuals().text_color()),
                Effect::Skipped => ("skipped", ui.visuals().warn_fg_color),
                Effect::Dropped => ("dropped", ui.visuals().warn_fg_color),
                Effect::Fatal => ("fatal", ui.visuals().error_fg_color),
                Effect::NotApplied => ("not applied", ui.visuals().weak_text_color()),
            };
            ui.colored_label(color, text);
        }
    });
    match event {
        ParseOutcome::Malformed { issue, .. } => {
            let place = issue.path.as_deref().unwrap_or("");
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{} {place}: {}", issue.code.as_str(), issue.message),
            );
        }
        ParseOutcome::Unparseable { reason } => {
            ui.colored_label(ui.visuals().error_fg_color, reason);
        }
        _ => {}
    }
    step_diagnostics_ui(ui, doc, view.step);
    if let ParseOutcome::Event { event, .. } = event {
        match &event.body {
            EventBody::ActivityDelta {
                message_id, patch, ..
            } => {
                let before =
                    as_activity(view.before.conversation().get(message_id)).map(|a| &*a.content);
                let reached = effect.is_some_and(|e| {
                    matches!(
                        e.activity,
                        Some(
                            ActivityChange::DeltaApplied
                                | ActivityChange::Retyped
                                | ActivityChange::PatchFailed
                        )
                    )
                });
                let title = format!("Patch of {message_id}");
                patch_ui(ui, doc, view, &title, patch, before.filter(|_| reached));
            }
            EventBody::StateDelta { delta } => {
                let reached =
                    effect.is_some_and(|e| matches!(e.effect, Effect::Applied | Effect::Skipped));
                let before = Some(view.before.state()).filter(|_| reached);
                patch_ui(ui, doc, view, "Patch of the state", delta, before);
            }
            _ => {}
        }
    }
    raw_json_ui(ui, doc, view);
}

/// The event's bytes, pretty-printed (members in the order sent).
fn raw_json_ui(ui: &mut Ui, doc: &Doc, view: &CursorView) {
    let Some(raw) = doc.raw(view.step) else {
        return;
    };
    egui::CollapsingHeader::new("Raw JSON")
        .id_salt("inspector-raw")
        .default_open(true)
        .show(ui, |ui| {
            let pretty = memoized(
                ui.ctx(),
                Id::unique("inspector-raw-pretty"),
                cursor_key(doc, view),
                || Arc::new(pretty_raw(&String::from_utf8_lossy(raw))),
            );
            if ui
                .small_button("Copy")
                .on_hover_text("Copy the event as sent")
                .clicked()
            {
                ui.ctx()
                    .copy_text(String::from_utf8_lossy(raw).into_owned());
            }
            let shown = super::json_tree::truncate_chars(&pretty, MAX_RAW_CHARS);
            ui.add(
                egui::Label::new(RichText::new(shown.as_ref()).monospace())
                    .wrap()
                    .selectable(true),
            );
            let total = pretty.chars().count();
            if total > MAX_RAW_CHARS {
                ui.weak(format!(
                    "{} more characters (Copy takes all)",
                    total - MAX_RAW_CHARS
                ));
            }
        });
}

/// JSON text re-indented by two spaces, members kept in the order sent;
/// text that is not JSON comes out re-indented as far as it reads.
pub fn pretty_raw(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.trim().chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// What became of one operation of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpStatus {
    /// It applied.
    Applied,
    /// It applied, then was taken back when a later one failed (R11).
    Undone,
    /// It failed, for this reason (R14).
    Failed(String),
    /// After the failing one: never tried.
    NotReached,
    /// Its `op` is unknown: dropped from the patch (R17).
    Dropped,
    /// The event never reached its patch (skipped, fatal, or after a fatal
    /// error).
    NotApplied,
}

/// The status of every operation of `patch`, by index as sent, applying it
/// again to `before` (the target as the event found it; `None` when the event
/// did not reach its patch).
pub fn op_statuses(patch: &Patch, before: Option<&Value>) -> Vec<(usize, OpStatus)> {
    let failure = before.and_then(|before| apply_patch(&mut before.clone(), patch).err());
    let mut statuses: Vec<(usize, OpStatus)> = (0..patch.ops.len())
        .map(|i| {
            let index = patch.original_index(i);
            let status = match (&failure, before) {
                (_, None) => OpStatus::NotApplied,
                (None, Some(_)) => OpStatus::Applied,
                (Some(f), _) if index < f.index => OpStatus::Undone,
                (Some(f), _) if index == f.index => OpStatus::Failed(f.reason.clone()),
                (Some(_), _) => OpStatus::NotReached,
            };
            (index, status)
        })
        .chain(patch.dropped.iter().map(|d| (d.index, OpStatus::Dropped)))
        .collect();
    statuses.sort_by_key(|(index, _)| *index);
    statuses
}

/// One operation of a patch as a row of the grid.
struct OpRow<'a> {
    op: &'a str,
    path: String,
    from: Option<String>,
    value: Option<&'a Value>,
    extra: Option<&'a Map<String, Value>>,
}

fn op_rows(patch: &Patch) -> BTreeMap<usize, OpRow<'_>> {
    use json_patch::PatchOperation as P;
    let mut rows = BTreeMap::new();
    for (i, op) in patch.ops.iter().enumerate() {
        let (from, value) = match op {
            P::Add(o) => (None, Some(&o.value)),
            P::Replace(o) => (None, Some(&o.value)),
            P::Test(o) => (None, Some(&o.value)),
            P::Move(o) => (Some(o.from.to_string()), None),
            P::Copy(o) => (Some(o.from.to_string()), None),
            P::Remove(_) => (None, None),
        };
        let extra = patch
            .meta
            .get(i)
            .map(|m| &m.extra)
            .filter(|e| !e.is_empty());
        rows.insert(
            patch.original_index(i),
            OpRow {
                op: op_name(op),
                path: op.path().to_string(),
                from,
                value,
                extra,
            },
        );
    }
    for dropped in &patch.dropped {
        let text = |key: &str| {
            dropped
                .value
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        rows.insert(
            dropped.index,
            OpRow {
                op: &dropped.op,
                path: text("path").unwrap_or_default(),
                from: text("from"),
                value: dropped.value.get("value"),
                extra: None,
            },
        );
    }
    rows
}

/// The patch op by op: index, op, path, from, value, extra members (R16)
/// and what became of it.
fn patch_ui(
    ui: &mut Ui,
    doc: &Doc,
    view: &CursorView,
    title: &str,
    patch: &Patch,
    before: Option<&Value>,
) {
    egui::CollapsingHeader::new(title)
        .id_salt("inspector-patch")
        .default_open(true)
        .show(ui, |ui| {
            if patch.ops.is_empty() && patch.dropped.is_empty() {
                ui.weak("An empty patch: nothing to do");
                return;
            }
            let statuses = memoized(
                ui.ctx(),
                Id::unique("inspector-patch-statuses"),
                cursor_key(doc, view),
                || Arc::new(op_statuses(patch, before)),
            );
            let rows = op_rows(patch);
            let with_extra = rows.values().any(|row| row.extra.is_some());
            egui::ScrollArea::horizontal()
                .id_salt("inspector-patch-scroll")
                .show(ui, |ui| {
                    egui::Grid::new("inspector-patch-grid")
                        .striped(true)
                        .num_columns(if with_extra { 7 } else { 6 })
                        .show(ui, |ui| {
                            for header in ["#", "op", "path", "result", "from", "value"] {
                                ui.strong(header);
                            }
                            if with_extra {
                                ui.strong("extra (R16)");
                            }
                            ui.end_row();
                            for (index, status) in statuses.iter() {
                                let Some(row) = rows.get(index) else { continue };
                                op_row_ui(ui, *index, row, status, with_extra);
                            }
                        });
                });
            for (index, status) in statuses.iter() {
                if let OpStatus::Failed(reason) = status {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!("op {index} failed: {reason}. Nothing of the patch applied (R11)"),
                    );
                }
            }
            if before.is_none() {
                ui.weak("The event did not reach its patch: see the diagnostics below");
            }
        });
}

fn op_row_ui(ui: &mut Ui, index: usize, row: &OpRow<'_>, status: &OpStatus, with_extra: bool) {
    ui.label(index.to_string());
    ui.label(RichText::new(row.op).monospace());
    ui.label(RichText::new(display_path(&row.path)).monospace());
    op_status_ui(ui, status);
    ui.label(RichText::new(row.from.as_deref().map_or(String::new(), display_path)).monospace());
    match row.value {
        Some(value) => {
            let text = compact_json(value, MAX_VALUE_CHARS);
            let response = ui.label(
                RichText::new(&text)
                    .monospace()
                    .color(theme::json_value_color(ui.visuals(), value)),
            );
            if text.ends_with('…') {
                response.on_hover_text(compact_json(value, MAX_HOVER_CHARS));
            }
        }
        None => {
            ui.label("");
        }
    }
    if with_extra {
        match row.extra {
            Some(extra) => {
                let extra = Value::Object(extra.clone());
                ui.label(RichText::new(compact_json(&extra, MAX_VALUE_CHARS)).monospace())
                    .on_hover_text(compact_json(&extra, MAX_HOVER_CHARS));
            }
            None => {
                ui.label("");
            }
        }
    }
    ui.end_row();
}

/// What became of an operation, coloured, with why on hover.
fn op_status_ui(ui: &mut Ui, status: &OpStatus) {
    let visuals = ui.visuals();
    let (text, color, hover) = match status {
        OpStatus::Applied => ("applied", visuals.text_color(), None),
        OpStatus::Undone => (
            "undone",
            visuals.weak_text_color(),
            Some("Applied, then taken back when a later operation failed: a patch is atomic (R11)"),
        ),
        OpStatus::Failed(reason) => ("failed", visuals.warn_fg_color, Some(reason.as_str())),
        OpStatus::NotReached => (
            "not reached",
            visuals.weak_text_color(),
            Some("After the failing operation: never tried"),
        ),
        OpStatus::Dropped => (
            "dropped",
            visuals.warn_fg_color,
            Some("Unknown op: dropped from the patch, the rest applies (R17)"),
        ),
        OpStatus::NotApplied => ("not applied", visuals.weak_text_color(), None),
    };
    let response = ui.colored_label(color, text);
    if let Some(hover) = hover {
        response.on_hover_text(hover);
    }
}

/// A pointer for display: the root is `""`.
fn display_path(path: &str) -> String {
    if path.is_empty() {
        "\"\"".to_owned()
    } else {
        path.to_owned()
    }
}

/// The diagnostics of the step (and the reader's at step 0).
fn step_diagnostics_ui(ui: &mut Ui, doc: &Doc, step: Seq) {
    ui.label(RichText::new(format!("Diagnostics at step {step}")).weak());
    let until = doc.timeline.diagnostics_until(step);
    let here = &until[until.partition_point(|d| d.seq < step)..];
    let reader: &[Diagnostic] = if step == Seq::START {
        &doc.source.diagnostics
    } else {
        &[]
    };
    if here.is_empty() && reader.is_empty() {
        ui.weak("none");
        return;
    }
    for diagnostic in reader.iter().chain(here) {
        diagnostic_ui(ui, diagnostic);
    }
}

fn diagnostic_ui(ui: &mut Ui, diagnostic: &Diagnostic) {
    let color = theme::severity_color(ui.visuals(), diagnostic.severity);
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(
            color,
            format!(
                "{} {}",
                diagnostic.severity.as_str(),
                diagnostic.code.as_str()
            ),
        );
        if let Some(path) = &diagnostic.path {
            ui.label(RichText::new(path).monospace().weak());
        }
        ui.label(&diagnostic.message);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use serde_json::json;

    fn patch(ops: Value) -> Patch {
        let text = json!({"type": "STATE_DELTA", "delta": ops}).to_string();
        match crate::protocol::parse_event_str(&text) {
            ParseOutcome::Event { event, .. } => match event.body {
                EventBody::StateDelta { delta } => delta,
                other => panic!("not a delta: {other:?}"),
            },
            other => panic!("not an event: {other:?}"),
        }
    }

    #[test]
    fn statuses_of_an_applied_patch() {
        let patch = patch(json!([{"op": "add", "path": "/a", "value": 1}]));
        assert_eq!(
            op_statuses(&patch, Some(&json!({}))),
            vec![(0, OpStatus::Applied)]
        );
        assert_eq!(op_statuses(&patch, None), vec![(0, OpStatus::NotApplied)]);
    }

    #[test]
    fn statuses_of_a_failed_patch_with_a_dropped_op() {
        let patch = patch(json!([
            {"op": "replace", "path": "/found", "value": 3},
            {"op": "frob", "path": "/x"},
            {"op": "test", "path": "/found", "value": 9},
            {"op": "add", "path": "/b", "value": 1}
        ]));
        let statuses = op_statuses(&patch, Some(&json!({"found": 2})));
        assert_eq!(statuses[0], (0, OpStatus::Undone));
        assert_eq!(statuses[1], (1, OpStatus::Dropped));
        assert!(
            matches!(&statuses[2], (2, OpStatus::Failed(reason)) if reason.contains("expected 9"))
        );
        assert_eq!(statuses[3], (3, OpStatus::NotReached));
        let rows = op_rows(&patch);
        assert_eq!(rows[&1].op, "frob");
        assert_eq!(rows[&1].path, "/x");
        assert_eq!(rows[&3].value, Some(&json!(1)));
    }

    #[test]
    fn raw_json_is_reindented_in_the_order_sent() {
        assert_eq!(
            pretty_raw(r#"{"z":1,"a":[1,{}],"s":"x,{\"y"}"#),
            "{\n  \"z\": 1,\n  \"a\": [\n    1,\n    {}\n  ],\n  \"s\": \"x,{\\\"y\"\n}"
        );
        assert_eq!(pretty_raw("[ ]"), "[]");
        assert_eq!(pretty_raw("not json"), "notjson");
    }

    fn demo_state(step: u64, selected: &str) -> AppState {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![
            Command::SetStep(Seq(step)),
            Command::SelectActivity(Some(selected.to_owned())),
        ]);
        state
    }

    fn harness(state: AppState) -> Harness<'static, AppState> {
        Harness::builder()
            .with_size(egui::vec2(420.0, 1400.0))
            .build_ui_state(
                |ui, state: &mut AppState| {
                    let mut commands = Vec::new();
                    inspector_ui(ui, state, &mut commands);
                    state.apply(commands);
                },
                state,
            )
    }

    #[test]
    fn a_failed_patch_shows_its_failing_op() {
        let mut harness = harness(demo_state(16, "search-1"));
        harness.run();
        harness.get_by_label("patch failed, delta skipped (R14)");
        harness.get_by_label("failed");
        assert!(harness.query_by_label("applied").is_none());
    }

    #[test]
    fn metadata_keys_name_the_step_that_set_them() {
        let mut harness = harness(demo_state(40, "plan-1"));
        harness.run();
        // Step 39 declined the snapshot (R4) but merged its metadata (D4).
        harness.get_by_label("set at step 39");
        harness.get_by_label("delta applied (R10)");
        assert_eq!(harness.query_all_by_label("applied").count(), 2);
    }

    #[test]
    fn lane_buttons_move_the_cursor() {
        let mut harness = harness(demo_state(15, "search-1"));
        harness.run();
        harness.get_by_label("step 16 ›").click();
        harness.run();
        assert_eq!(harness.state().step(), Seq(16));
        harness.get_by_label("‹ step 15").click();
        harness.run();
        assert_eq!(harness.state().step(), Seq(15));
    }
}
