//! The inspector's current event: its type and what the replay did with it,
//! the diagnostics of the step, its patch (see [`super::patch`]) and
//! its raw bytes (see [`super::raw`]).

use crate::app_model::words::thousands;
use egui::{RichText, Ui};

use super::as_activity;
use super::patch::patch_ui;
use crate::app_model::document::Doc;
use crate::app_model::state::CursorView;
use crate::diagnostic::{Diagnostic, Seq};
use crate::protocol::{EventBody, ParseOutcome};
use crate::replay::{ActivityChange, Effect};
use crate::ui::rule_text;
use crate::ui::theme;

/// The current event: type, outcome, its patch, and its raw bytes.
pub(super) fn current_event_ui(ui: &mut Ui, doc: &Doc, view: &CursorView) {
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
            ParseOutcome::UnknownType { type_name, .. } => format!("{type_name} (unknown type)"),
            ParseOutcome::Unparseable { .. } => "unparseable".to_owned(),
        };
        ui.label(format!("step {}:", thousands(view.step.get())));
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
            let response = ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{} {place}: {}", issue.code.as_str(), issue.message),
            );
            rule_text::on_hover_code(response, issue.code);
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
                patch_ui(ui, view, &title, patch, before.filter(|_| reached));
            }
            EventBody::StateDelta { delta } => {
                let reached =
                    effect.is_some_and(|e| matches!(e.effect, Effect::Applied | Effect::Skipped));
                let before = Some(view.before.state()).filter(|_| reached);
                patch_ui(ui, view, "Patch of the state", delta, before);
            }
            _ => {}
        }
    }
    super::raw::raw_event_ui(ui, doc, view);
}

pub use crate::app_model::json_text::pretty_raw;

/// The diagnostics of the step (and the reader's at step 0).
fn step_diagnostics_ui(ui: &mut Ui, doc: &Doc, step: Seq) {
    ui.label(RichText::new(format!("Diagnostics at step {}", thousands(step.get()))).weak());
    let until = doc.timeline.diagnostics_until(step);
    let here = &until[until.partition_point(|d| d.seq < step)..];
    let reader: &[Diagnostic] = if step == Seq::START {
        &doc.source.diagnostics
    } else {
        &[]
    };
    let divergences = &doc.divergences;
    let parted = &divergences[divergences.partition_point(|d| d.seq < step)
        ..divergences.partition_point(|d| d.seq <= step)];
    // Issue 42: the schema folder's findings follow the event's own.
    let findings = &doc.schema_findings;
    let broken = &findings
        [findings.partition_point(|d| d.seq < step)..findings.partition_point(|d| d.seq <= step)];
    if here.is_empty() && reader.is_empty() && parted.is_empty() && broken.is_empty() {
        ui.weak("none");
        return;
    }
    for diagnostic in reader.iter().chain(here).chain(broken) {
        diagnostic_ui(ui, diagnostic);
    }
    // P13: what the deployed client shows instead, and why.
    if !parted.is_empty() {
        ui.add_space(4.0);
        let other = match doc.options().profile {
            crate::replay::Profile::Spec => "Your client shows something else here",
            crate::replay::Profile::AgUiClient10 => "The spec shows something else here",
        };
        ui.label(RichText::new(other).strong());
        for diagnostic in parted {
            diagnostic_ui(ui, diagnostic);
        }
    }
}

/// Why the event at `step` failed for the message `id`: its warnings and
/// errors about it, where the inspector says what the event did (issue 43:
/// at 1024×700 the explanation of a failed patch was below the fold).
pub(super) fn why_ui(ui: &mut Ui, doc: &Doc, step: Seq, id: &str) {
    let until = doc.timeline.diagnostics_until(step);
    let here = &until[until.partition_point(|d| d.seq < step)..];
    for diagnostic in here.iter().filter(|d| {
        d.seq == step
            && d.severity <= crate::diagnostic::Severity::Warning
            && d.message_id.as_deref() == Some(id)
    }) {
        diagnostic_ui(ui, diagnostic);
    }
}

fn diagnostic_ui(ui: &mut Ui, diagnostic: &Diagnostic) {
    let color = theme::severity_color(ui.visuals(), diagnostic.severity);
    ui.horizontal_wrapped(|ui| {
        let response = ui.colored_label(
            color,
            format!(
                "{} {}",
                diagnostic.severity.as_str(),
                diagnostic.code.as_str()
            ),
        );
        rule_text::on_hover_code(response, diagnostic.code);
        if let Some(path) = &diagnostic.path {
            ui.label(RichText::new(path).monospace().weak());
        }
        ui.label(&diagnostic.message);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_json_is_reindented_in_the_order_sent() {
        assert_eq!(
            pretty_raw(r#"{"z":1,"a":[1,{}],"s":"x,{\"y"}"#),
            "{\n  \"z\": 1,\n  \"a\": [\n    1,\n    {}\n  ],\n  \"s\": \"x,{\\\"y\"\n}"
        );
        assert_eq!(pretty_raw("[ ]"), "[]");
        assert_eq!(pretty_raw("not json"), "notjson");
    }
}
