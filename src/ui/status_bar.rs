//! The status bar: the step, the stream's diagnostics counted by severity,
//! the outcome, live following, the file.
//!
//! Words as a reader says them (issue 13, point 12): "No diagnostics", or
//! only the severities that occur ("2 warnings", "1 error"), each in its
//! colour; grouped digits ("Step 1 of 1,000,000").

use egui::Ui;

use super::{rule_text, theme};
use crate::app_model::command::Command;
use crate::app_model::state::AppState;
use crate::app_model::time_control::TimeCommand;
use crate::app_model::words;
use crate::diagnostic::{Severity, SeverityCounts};

/// The counts the status bar shows: one `(severity, "2 warnings")` per
/// severity that occurs, the worst first; empty when there is none.
pub fn diagnostic_counts(counts: &SeverityCounts) -> Vec<(Severity, String)> {
    Severity::ALL
        .into_iter()
        .filter(|&severity| counts.get(severity) > 0)
        .map(|severity| {
            let plural = match severity {
                Severity::Error => "errors",
                Severity::Warning => "warnings",
                Severity::Note => "notes",
                // "info" has no plural.
                Severity::Info => "info",
            };
            let count = counts.get(severity) as u64;
            (severity, words::count(count, severity.as_str(), plural))
        })
        .collect()
}

/// "Step 3 of 1,000,000".
pub fn step_label(step: u64, num_events: u64) -> String {
    format!(
        "Step {} of {}",
        words::thousands(step),
        words::thousands(num_events)
    )
}

/// Draws the status bar.
pub fn status_bar_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        let Some(doc) = state.doc() else {
            ui.label(match state.loading() {
                // The centre says what is being opened.
                Some(_) => String::new(),
                None => "No stream open: File › Open…, or drop a file here".to_owned(),
            });
            return;
        };
        ui.label(step_label(state.step().get(), doc.num_events()));
        // Issue 43: the panels show an earlier step while a long seek runs.
        if let Some(shown) = state.catching_up() {
            ui.weak(format!("catching up: panels at step {shown}"))
                .on_hover_text(
                    "The playhead is at the cursor; the panels show the last state computed \
                     until the state at the cursor is",
                );
        }
        // Issue 41: the stream shown is not the recording.
        if state.whatif().showing_edited() {
            let marker = super::whatif::edited_marker_ui(ui);
            let hover = if state.whatif().is_edited(state.step()) {
                "The stream as edited; this step's event is not the recorded one (E: as recorded)"
            } else {
                "The stream as edited (E: as recorded)"
            };
            marker.on_hover_text(hover);
        }
        ui.separator();
        let counts = diagnostic_counts(&doc.counts);
        if counts.is_empty() {
            ui.label("No diagnostics");
        }
        for (severity, text) in counts {
            ui.colored_label(theme::severity_color(ui.visuals(), severity), text)
                .on_hover_text(
                    "The stream's diagnostics: n and p go to the next and previous one; \
                     the Diagnostics tab lists them",
                );
        }
        ui.separator();
        if doc.live {
            // The end-of-stream checks wait for the end.
            ui.label("Outcome: running");
        } else {
            let outcome = doc.timeline.head().outcome();
            ui.label(format!("Outcome: {}", outcome.as_str()));
        }
        if let Some(fatal) = doc.timeline.head().fatal() {
            let response = ui.colored_label(
                ui.visuals().error_fg_color,
                format!(
                    "failed at step {} ({})",
                    words::thousands(fatal.seq.get()),
                    fatal.code
                ),
            );
            rule_text::on_hover_code(response, fatal.code);
        }
        if doc.live {
            ui.separator();
            let mut text = if doc.session.is_none() {
                "LIVE, waiting for the first session"
            } else if state.time().is_following() {
                "LIVE, following"
            } else {
                "LIVE"
            }
            .to_owned();
            if let Some(quiet) = state.live().quiet_for().filter(|q| q.as_secs() >= 10) {
                text.push_str(&format!(" (no new event for {} s)", quiet.as_secs()));
            }
            ui.colored_label(ui.visuals().warn_fg_color, text)
                .on_hover_text(
                    "The session is still being written (or its writer stopped without ending \
                 it); End follows its last event",
                );
            let mut following = state.time().is_following();
            if ui
                .checkbox(&mut following, "Follow (End)")
                .on_hover_text("Keep the playhead on the last event as events arrive")
                .changed()
            {
                commands.push(Command::Time(if following {
                    TimeCommand::ToEndAndFollow
                } else {
                    TimeCommand::StopFollowing
                }));
            }
        }
        // Issue 42: the schema folder the contents are checked against,
        // with a way to stop (as View › No activity schemas).
        if let Some(folder) = state.schemas().folder() {
            ui.separator();
            let findings = doc.schema_findings.len();
            ui.label(format!("schemas: {}", folder.display()))
                .on_hover_text(format!(
                    "Each activity's content is checked against these JSON Schemas (rule S1): \
                     {findings} finding{}",
                    if findings == 1 { "" } else { "s" }
                ));
            if ui
                .small_button("×")
                .on_hover_text("No activity schemas: stop checking the contents")
                .clicked()
            {
                commands.push(Command::Schemas(
                    crate::app_model::schemas::SchemaCommand::Clear,
                ));
            }
        }
        if let Some(notice) = state.current_notice() {
            ui.separator();
            ui.label(notice);
        }
        ui.separator();
        // The path gives way first: cut on the left, whole on hover.
        ui.add(egui::Label::new(doc.path.display().to_string()).truncate());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_severities_that_occur_are_counted_with_their_plural() {
        // Issue 13, point 12: "no diagnostics 0 errors 0 warnings…".
        assert!(diagnostic_counts(&SeverityCounts::default()).is_empty());
        let counts = SeverityCounts {
            error: 1,
            warning: 2,
            note: 0,
            info: 1_000_000,
        };
        assert_eq!(
            diagnostic_counts(&counts),
            vec![
                (Severity::Error, "1 error".to_owned()),
                (Severity::Warning, "2 warnings".to_owned()),
                (Severity::Info, "1,000,000 info".to_owned()),
            ]
        );
    }

    #[test]
    fn the_step_label_groups_thousands() {
        assert_eq!(step_label(1, 45), "Step 1 of 45");
        assert_eq!(step_label(12_345, 1_000_000), "Step 12,345 of 1,000,000");
    }
}
