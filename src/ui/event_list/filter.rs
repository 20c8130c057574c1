//! The event list's filter bar, above the table (text, `messageId`, types,
//! severity). [`crate::app_model::event_filter::filter_rows`] runs the filter
//! over the whole stream when it changes.

use crate::app_model::words::thousands;
use std::collections::BTreeSet;

use egui::{Label, RichText};

use crate::app_model::state::{AppState, EventFilter};

use crate::app_model::command::Command;

use crate::app_model::document::Doc;
use crate::diagnostic::{Seq, Severity};
use crate::timeline::EventKind;

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
pub(super) fn filter_bar_ui(
    ui: &mut egui::Ui,
    doc: &Doc,
    state: &AppState,
    commands: &mut Vec<Command>,
) {
    let current = state.event_filter();
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
                    .id(super::filter_text_id())
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
        let count = format!(
            "{} of {}",
            thousands(state.event_rows().len() as u64),
            thousands(doc.num_events())
        );
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
            let counts = doc
                .timeline
                .index()
                .counts(Seq::new(1)..=Seq::new(doc.num_events()));
            if ui.selectable_label(kinds.is_empty(), "all types").clicked() {
                kinds.clear();
            }
            for (index, &count) in counts.iter().enumerate() {
                let Some(kind) = EventKind::from_index(index).filter(|_| count > 0) else {
                    continue;
                };
                let mut ticked = kinds.contains(&kind);
                if ui
                    .checkbox(
                        &mut ticked,
                        format!("{} ({})", kind.name(), thousands(count as u64)),
                    )
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

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable;

    use super::*;
    use crate::app_model::test_support::{STREAM, seqs, state_of};
    use crate::protocol::EventType;
    use crate::ui::event_list::tests::harness;

    #[test]
    fn typing_in_the_filter_narrows_the_rows() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label("Filter text").focus();
        harness.get_by_label("Filter text").type_text("lisbon");
        harness.run();
        assert_eq!(harness.state().event_filter().text, "lisbon");
        assert_eq!(seqs(harness.state().event_rows()), [6]);
        harness.get_by_label("1 of 8");
        harness.get_by_label("Clear").click();
        harness.run();
        assert_eq!(harness.state().event_filter(), &EventFilter::default());
        assert_eq!(harness.state().event_rows().len(), 8);
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
            harness.state().event_filter().min_severity,
            Some(Severity::Warning)
        );
        assert_eq!(seqs(harness.state().event_rows()), [4]);
        harness.get_by_label("Type").click();
        harness.run();
        harness.get_by_label("TEXT_MESSAGE_END (1)").click();
        harness.run();
        let kinds = &harness.state().event_filter().kinds;
        assert!(kinds.contains(&EventKind::Known(EventType::TextMessageEnd)));
        assert!(harness.state().event_rows().is_empty());
    }
}
