//! The inspector (the right panel's first tab): the activity (or message)
//! the current event names, or the one pinned ([`crate::app_model::follow`]), at the
//! cursor — its content and metadata with what the current event changed —
//! then the current event itself: its raw JSON, its patch operation by
//! operation, and the diagnostics of the step.
//!
//! This file draws the panel and the selected activity; the current event is
//! drawn by [`self::event`], its patch by [`self::patch`].

mod event;
mod patch;
mod raw;

use crate::app_model::command::SearchCommand;
use crate::app_model::time_control::TimeCommand;
use crate::app_model::words::thousands;
use std::collections::BTreeMap;
use std::sync::Arc;

use egui::{Id, RichText, Ui};
use serde_json::{Map, Value};

use self::event::current_event_ui;
use super::blame;
use super::json_tree::JsonTree;
use super::memo::memoized;
use super::rule_text;
use super::theme;
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::follow::Inspected;
use crate::app_model::highlights::{Highlights, highlights_between};
use crate::app_model::state::{AppState, CursorView};
use crate::diagnostic::Seq;
use crate::protocol::{ParseOutcome, parse_event};
use crate::replay::{ActivityChange, ActivityMessage, Message, Profile};
use crate::search::Target;

pub use self::event::pretty_raw;
pub use self::patch::{OpStatus, op_statuses};

/// Draws the inspector panel.
pub fn inspector_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    let (Some(doc), Some(view)) = (state.doc(), state.view()) else {
        ui.weak("No stream open");
        return;
    };
    // Both ways: a wide JSON row scrolls instead of widening the panel (and
    // shows whole on hover where the edge cuts it), while text wraps at the
    // panel's width, not at the widest row's (issue 13.5).
    // The width inside the scroll bar.
    let width =
        (ui.available_width() - ui.spacing().scroll.bar_width - ui.spacing().item_spacing.x)
            .max(0.0);
    egui::ScrollArea::both()
        .id_salt("inspector")
        .auto_shrink(false)
        .show(ui, |ui| {
            // Each part in a scope of the panel's width: a wide row of one
            // does not widen the text of the next.
            let inspected = state.inspected();
            match inspected.shown() {
                Some(id) => {
                    ui.scope(|ui| {
                        ui.set_max_width(width);
                        header_ui(ui, view, inspected, id, commands);
                    });
                    let before = view.before.conversation().get(id);
                    ui.scope(|ui| {
                        ui.set_max_width(width);
                        match view.at.conversation().get(id).or(before) {
                            Some(Message::Other(_)) => message_ui(ui, doc, view, id, commands),
                            _ => activity_ui(ui, doc, view, id, commands),
                        }
                    });
                }
                None => {
                    ui.weak(
                        "The current event names no message: click an activity in the \
                         conversation or on the timeline to pin it",
                    );
                }
            }
            ui.separator();
            // Issue 41: what if the event at the cursor were different?
            ui.horizontal(|ui| {
                ui.menu_button("What if…", |ui| {
                    crate::ui::whatif::event_menu_ui(ui, view.step, commands);
                })
                .response
                .on_hover_text("Skip, edit or insert an event here and replay");
                if state.whatif().is_edited(view.step) {
                    crate::ui::whatif::edited_marker_ui(ui);
                }
            });
            ui.scope(|ui| {
                ui.set_max_width(width);
                current_event_ui(ui, doc, view);
            });
        });
}

/// The shown message's id, the pin, and why it is shown (followed here,
/// followed from an earlier event, or pinned), discreetly.
fn header_ui(
    ui: &mut Ui,
    view: &CursorView,
    inspected: &Inspected,
    id: &str,
    commands: &mut Vec<Command>,
) {
    let pinned = inspected.pinned().is_some();
    ui.horizontal(|ui| {
        let heading = ui.heading(RichText::new(id).monospace());
        heading.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::Label, true, format!("Inspecting {id}"))
        });
        let (text, hover) = if pinned {
            (
                "Pinned",
                format!("{id} stays shown as the cursor moves: click to follow the current event"),
            )
        } else {
            (
                "Pin",
                format!("Keep showing {id} as the cursor moves (the diff compares it too)"),
            )
        };
        let pin = ui
            .add(egui::Button::new(text).small().selected(pinned))
            .on_hover_text(hover);
        pin.widget_info(|| {
            egui::WidgetInfo::selected(
                egui::Role::Button,
                true,
                pinned,
                "Pin the inspected message",
            )
        });
        if pin.clicked() {
            commands.push(Command::PinInspected(!pinned));
        }
    });
    let why = match inspected.followed() {
        Some(followed) if pinned && followed.id != id && followed.named_at == view.step => {
            format!("pinned; the current event names {}", followed.id)
        }
        _ if pinned => "pinned".to_owned(),
        Some(followed) if followed.named_at == view.step => "named by the current event".to_owned(),
        Some(followed) if followed.named_at == Seq::START => {
            "from the recorded request body: no event names a message yet".to_owned()
        }
        Some(followed) => format!(
            "step {} names no message: the last one named, at step {}",
            view.step, followed.named_at
        ),
        None => String::new(),
    };
    ui.weak(why);
}

/// The activity message of `message`, if it is one.
pub(super) fn as_activity(message: Option<&Message>) -> Option<&ActivityMessage> {
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
    let lane = doc.timeline.index().lane(id);
    let here = lane.and_then(|lane| {
        lane.events
            .binary_search_by_key(&view.step, |e| e.seq())
            .ok()
            .map(|i| lane.events[i].change())
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
            ui.weak(format!("at step {}", thousands(view.step.get())));
            ui.label(existence(activity.is_some(), old.is_some(), at_message));
            ui.end_row();
            if let Some(change) = here {
                ui.weak("this event");
                let color = theme::change_color(ui.visuals(), change);
                let label = change_label(change);
                rule_text::on_hover_cited(ui.colored_label(color, label), label, None);
                ui.end_row();
            }
        });
    if here.is_some() {
        event::why_ui(ui, doc, view.step, id);
    }
    if let Some(lane) = lane {
        lane_navigation_ui(ui, &lane.events, view.step, commands);
    }
    drift_ui(ui, doc, view.step, Some(id));
    let schema_notes = schema_ui(ui, doc, view.step, id);
    let Some(shown) = activity.or(old) else {
        return;
    };
    let key = view.step;
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
                    view.generation,
                    key,
                    || Arc::new(highlights_between(o.map(|o| &*o.content), &a.content)),
                ),
                (None, _) => Arc::default(),
            };
            // Issue 42: the tree opens down to where the content breaks its
            // schema, the expectation beside it (the notes).
            let highlights = if schema_notes.is_empty() {
                highlights
            } else {
                let mut opened = (*highlights).clone();
                for pointer in schema_notes.keys() {
                    opened.open_to(pointer);
                }
                Arc::new(opened)
            };
            let ctx = ui.ctx().clone();
            let target = Target::Message(id.to_owned());
            let blame = blame::hook(&ctx, doc, view.generation, target, "/content", view.step);
            let picked = JsonTree::new(("content", id), &shown.content)
                .highlights(&highlights)
                .notes(&schema_notes)
                .search_menu("/content")
                .blame(&blame)
                .show(ui);
            search_picked(picked, id, commands);
            blame::go_to_clicked(&blame, commands);
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
                view.generation,
                key,
                || Arc::new(metadata_view(doc, view, id, metadata, old, removed)),
            );
            let ctx = ui.ctx().clone();
            let target = Target::Message(id.to_owned());
            let blame = blame::hook(&ctx, doc, view.generation, target, "/metadata", view.step);
            let picked = JsonTree::new(("metadata", id), &view_of_metadata.value)
                .highlights(&view_of_metadata.highlights)
                .notes(&view_of_metadata.notes)
                .search_menu("/metadata")
                .blame(&blame)
                .show(ui);
            search_picked(picked, id, commands);
            blame::go_to_clicked(&blame, commands);
        });
}

/// A text, tool or reasoning message: its role, whether it exists at the
/// cursor, whether it joined from a run input, and its JSON with what the
/// current event changed.
fn message_ui(ui: &mut Ui, doc: &Doc, view: &CursorView, id: &str, commands: &mut Vec<Command>) {
    let (at, before) = (view.at.conversation(), view.before.conversation());
    let (now, old) = (at.get(id), before.get(id));
    let Some(shown) = now.or(old) else {
        return;
    };
    drift_ui(ui, doc, view.step, Some(id));
    egui::Grid::new("message-header")
        .num_columns(2)
        .spacing([12.0, 2.0])
        .show(ui, |ui| {
            ui.weak("role");
            ui.label(shown.role_name());
            ui.end_row();
            ui.weak(format!("at step {}", thousands(view.step.get())));
            ui.label(match (now.is_some(), old.is_some()) {
                (true, false) => "created by this event",
                (false, true) => "removed by this event",
                _ if now != old => "changed by this event",
                _ => "exists",
            });
            ui.end_row();
            if let Some(step) = at.from_input(id).or_else(|| before.from_input(id)) {
                ui.weak("input");
                ui.label(if step == Seq::START {
                    "joined from the recorded request body (E11)".to_owned()
                } else {
                    format!(
                        "joined from the input of RUN_STARTED at step {} (E11)",
                        thousands(step.get())
                    )
                });
                ui.end_row();
            }
        });
    let title = if now.is_none() {
        "Message (before this event)"
    } else {
        "Message"
    };
    egui::CollapsingHeader::new(title)
        .id_salt("inspector-message")
        .default_open(true)
        .show(ui, |ui| {
            let shown = memoized(
                ui.ctx(),
                Id::unique(("inspector-message", id)),
                view.generation,
                view.step,
                || {
                    let value = shown.to_json();
                    let highlights = match (now, old) {
                        (Some(n), Some(o)) if std::ptr::eq(n, o) || n == o => Highlights::none(),
                        (Some(_), o) => {
                            highlights_between(o.map(Message::to_json).as_ref(), &value)
                        }
                        (None, _) => Highlights::none(),
                    };
                    Arc::new((value, highlights))
                },
            );
            let ctx = ui.ctx().clone();
            let target = Target::Message(id.to_owned());
            let blame = blame::hook(&ctx, doc, view.generation, target, "", view.step);
            let picked = JsonTree::new(("message", id), &shown.0)
                .highlights(&shown.1)
                .search_menu("")
                .blame(&blame)
                .show(ui);
            search_picked(picked, id, commands);
            blame::go_to_clicked(&blame, commands);
        });
}

/// The drift diagnostics (E20, issue 17.1) at `step` about message `id`
/// (or, with `None`, about the state).
pub(crate) fn drifts_at<'d>(
    doc: &'d Doc,
    step: Seq,
    id: Option<&'d str>,
) -> impl Iterator<Item = &'d crate::diagnostic::Diagnostic> {
    let all = doc.timeline.diagnostics();
    let from = all.partition_point(|d| d.seq < step);
    all[from..]
        .iter()
        .take_while(move |d| d.seq == step)
        .filter(move |d| d.drift.is_some() && d.message_id.as_deref() == id)
}

/// A box saying that the snapshot at the cursor found the consumer's copy
/// drifted (E20): which of the two kinds, and the drifted paths, which the
/// tree below highlights as what this event changed.
pub(crate) fn drift_ui(ui: &mut Ui, doc: &Doc, step: Seq, id: Option<&str>) {
    for diagnostic in drifts_at(doc, step, id) {
        let Some(drift) = &diagnostic.drift else {
            continue;
        };
        let color = theme::drift_color(ui.visuals(), drift.kind);
        egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(1.0, color))
            .show(ui, |ui| {
                let title = match drift.kind {
                    crate::diagnostic::DriftKind::Repair => "Drift repaired (R44, R8)",
                    crate::diagnostic::DriftKind::Unexplained => "Unexplained drift",
                    crate::diagnostic::DriftKind::Unstreamed => "Changed without a delta",
                };
                let heading = ui.colored_label(color, RichText::new(title).strong());
                rule_text::on_hover_cited(heading, diagnostic.code.as_str(), None);
                ui.add(egui::Label::new(&diagnostic.message).wrap());
                ui.weak("Drifted paths, from what the consumer held to the snapshot:");
                for op in drift.patch.value().as_array().into_iter().flatten() {
                    let name = op.get("op").and_then(Value::as_str).unwrap_or("?");
                    let path = op.get("path").and_then(Value::as_str).unwrap_or("");
                    ui.colored_label(color, RichText::new(format!("{name} {path}")).monospace());
                }
            });
    }
}

/// A box for each place where the activity's content breaks its schema
/// at `step` (issue 42, rule S1): the schema's file, the path and what it
/// expected. Returns the expectations by pointer into the content, which
/// the content tree shows beside the violating member (as the metadata's
/// notes).
fn schema_ui(ui: &mut Ui, doc: &Doc, step: Seq, id: &str) -> BTreeMap<String, String> {
    use crate::app_model::schemas::{content_pointer, expectation, findings_at};
    let mut notes = BTreeMap::new();
    let color = theme::schema_color(ui.visuals());
    for finding in findings_at(doc, step, Some(id)) {
        let pointer = content_pointer(finding).unwrap_or("");
        let expected = expectation(finding);
        egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(1.0, color))
            .show(ui, |ui| {
                let heading = ui.colored_label(
                    color,
                    RichText::new(format!("Breaks its schema at {pointer}")).strong(),
                );
                rule_text::on_hover_cited(heading, finding.code.as_str(), None);
                ui.add(egui::Label::new(&finding.message).wrap());
            });
        notes.insert(pointer.to_owned(), format!("schema: {expected}"));
    }
    notes
}

/// A pointer of activity `id` picked in a tree's context menu: to the
/// search tab.
fn search_picked(pointer: Option<String>, id: &str, commands: &mut Vec<Command>) {
    if let Some(pointer) = pointer {
        commands.push(Command::Search(SearchCommand::Prefill {
            message: Some(id.to_owned()),
            pointer,
        }));
    }
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
    events: &[crate::timeline::LaneEvent],
    step: Seq,
    commands: &mut Vec<Command>,
) {
    let first_after = events.partition_point(|e| e.seq() <= step);
    let first_here = events.partition_point(|e| e.seq() < step);
    let previous = first_here.checked_sub(1).map(|i| events[i].seq());
    let next = events.get(first_after).map(|e| e.seq());
    ui.horizontal(|ui| {
        ui.weak(crate::app_model::words::count(
            events.len() as u64,
            "event",
            "events",
        ));
        if let Some(seq) = previous
            && ui
                .small_button(format!("‹ step {}", thousands(seq.get())))
                .on_hover_text("This activity's previous event")
                .clicked()
        {
            commands.push(Command::Time(TimeCommand::Set(seq)));
        }
        if let Some(seq) = next
            && ui
                .small_button(format!("step {} ›", thousands(seq.get())))
                .on_hover_text("This activity's next event")
                .clicked()
        {
            commands.push(Command::Time(TimeCommand::Set(seq)));
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
        Seq::new(view.step.get().saturating_sub(1))
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
            (crate::app_model::highlights::child_pointer("", key), note)
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
    let end = lane.events.partition_point(|e| e.seq() <= step);
    for (seq, change) in lane.events[..end]
        .iter()
        .rev()
        .map(|e| (e.seq(), e.change()))
    {
        if pending.is_empty() {
            break;
        }
        if !merges_metadata(change, profile) {
            continue;
        }
        let Some(raw) = doc.raw(seq) else { continue };
        let raw: &[u8] = &raw;
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

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::Harness;

    use crate::ui::test_harness::panel_harness;
    use egui_kittest::kittest::Queryable;

    fn demo_state(step: u64, selected: &str) -> AppState {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![
            Command::Time(TimeCommand::Set(Seq::new(step))),
            Command::SelectActivity(Some(selected.to_owned())),
        ]);
        state
    }

    fn harness(state: AppState) -> Harness<'static, AppState> {
        panel_harness(inspector_ui, egui::vec2(420.0, 1400.0), state)
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
    fn where_the_profiles_part_the_inspector_says_what_the_client_shows() {
        // issue 18 (P13): a snapshot on a text message's id (R9 against P3).
        let path = std::env::temp_dir().join(format!(
            "agui-replay-divergence-{}.jsonl",
            std::process::id()
        ));
        let stream = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"m1","activityType":"p","content":{}}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ];
        std::fs::write(&path, stream.join("\n")).expect("temp file");
        let mut state = AppState::default();
        state.open_now(&path, None);
        let _ = std::fs::remove_file(&path);
        let divergences = &state.doc().expect("opened").divergences;
        assert_eq!(divergences.len(), 1);
        assert_eq!(divergences[0].seq, Seq::new(4));
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(4)))]);
        let mut harness = harness(state);
        harness.run();
        harness.get_by_label("Your client shows something else here");
        harness.get_by_label("info profile.divergence");
        // Not at another step.
        harness
            .state_mut()
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(3)))]);
        harness.run();
        assert!(
            harness
                .query_by_label("Your client shows something else here")
                .is_none()
        );
    }

    #[test]
    fn lane_buttons_move_the_cursor() {
        let mut harness = harness(demo_state(15, "search-1"));
        harness.run();
        harness.get_by_label("step 16 ›").click();
        harness.run();
        assert_eq!(harness.state().step(), Seq::new(16));
        harness.get_by_label("‹ step 15").click();
        harness.run();
        assert_eq!(harness.state().step(), Seq::new(15));
    }
}
