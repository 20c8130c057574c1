//! The toolbar of the timeline ([`super::timeline`]): playback, speed, the
//! step, the previous and next diagnostic, and zoom.

use super::range::{MIN_SPAN_STEPS, full_range, zoom_range};
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::state::{AppState, TimelineRange};
use crate::app_model::time_control::SPEEDS;
use crate::app_model::time_control::TimeCommand;
use crate::app_model::words::thousands;
use crate::diagnostic::Seq;

/// Playback, speed, the step, navigation and zoom.
pub(super) fn toolbar_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    doc: &Doc,
    range: TimelineRange,
    commands: &mut Vec<Command>,
) {
    let step = state.step();
    let num_events = doc.num_events();
    let at_start = step == Seq::START;
    let at_end = step.get() >= num_events;
    ui.horizontal_wrapped(|ui| {
        // Home and this button go to the first event (issue 43, point 4).
        let at_first = step.get() == num_events.min(1);
        if icon_button(ui, !at_first, "|◂", "First step", "First step (Home)") {
            commands.push(Command::Time(TimeCommand::ToStart));
        }
        if icon_button(ui, !at_start, "◂", "Previous step", "Previous step (←)") {
            commands.push(Command::Time(TimeCommand::Step(-1)));
        }
        let playing = state.time().is_playing();
        let (icon, name, hover) = if playing {
            ("▮▮", "Pause", "Pause (Space)")
        } else {
            ("▶", "Play", "Play at the recorded timing (Space)")
        };
        if ui
            .add_enabled(num_events > 0, egui::Button::new((glyph(icon), name)))
            .on_hover_text(hover)
            .accessible_name(name)
            .clicked()
        {
            commands.push(Command::Time(TimeCommand::TogglePlay));
        }
        if icon_button(ui, !at_end, "▸", "Next step", "Next step (→)") {
            commands.push(Command::Time(TimeCommand::Step(1)));
        }
        if icon_button(ui, !at_end, "▸|", "Last step", "Last step (End)") {
            commands.push(Command::Time(TimeCommand::ToEndAndFollow));
        }
        ui.separator();
        speed_ui(ui, state.time().speed(), commands);
        ui.separator();
        let label = ui.label("Step");
        let mut value = step.get();
        if ui
            .add(
                egui::DragValue::new(&mut value)
                    .range(0..=num_events)
                    .speed((num_events as f64 / 1000.0).max(1.0))
                    // Grouped as every count the app shows (issue 13.12);
                    // typed with or without the commas.
                    .custom_formatter(|n, _| thousands(n.max(0.0) as u64))
                    .custom_parser(|text| text.replace([',', ' ', '_'], "").parse().ok()),
            )
            .labelled_by(label.id)
            .on_hover_text("Type a step, or drag")
            .changed()
        {
            commands.push(Command::Time(TimeCommand::Set(Seq::new(value))));
        }
        ui.label(format!("of {}", thousands(num_events)));
        let seconds = state.arrival_at(step) as f64 / 1e9;
        let timing = doc.timing;
        let time = ui.weak(format!("at {seconds:.3} s"));
        match timing.label() {
            None => {
                time.on_hover_text("When the event arrived, from the first");
            }
            // Times the stream does not have are said to be made up
            // (issue 13, point 10).
            Some(label) => {
                time.on_hover_text(timing.explanation());
                ui.colored_label(ui.visuals().warn_fg_color, label)
                    .on_hover_text(timing.explanation());
            }
        }
        time_axis_toggle_ui(ui, state, commands);
        ui.separator();
        let previous = state.diagnostic_step(false);
        if ui
            .add_enabled(
                previous.is_some(),
                egui::Button::new((glyph("◂"), "Diagnostic")),
            )
            .on_hover_text("Previous step with a diagnostic (P)")
            .accessible_name("Previous diagnostic")
            .clicked()
        {
            commands.push(Command::Time(TimeCommand::ToPreviousDiagnostic));
        }
        let next = state.diagnostic_step(true);
        if ui
            .add_enabled(
                next.is_some(),
                egui::Button::new(("Diagnostic", glyph("▸"))),
            )
            .on_hover_text("Next step with a diagnostic (N)")
            .accessible_name("Next diagnostic")
            .clicked()
        {
            commands.push(Command::Time(TimeCommand::ToNextDiagnostic));
        }
        ui.separator();
        zoom_buttons_ui(ui, step, range, num_events, commands);
    });
}

/// The toggle between the timeline in steps and in recorded time (issue
/// 43), disabled for a stream without times of its own.
fn time_axis_toggle_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let in_time = state.timeline_in_time();
    let enabled = state.has_recorded_times();
    let hover = if in_time {
        "The timeline is in recorded time, the gaps visible: click for steps (T)"
    } else {
        "Read the timeline in recorded time, the gaps visible, as Chrome's Performance panel does (T)"
    };
    if ui
        .add_enabled(enabled, egui::Button::new("Time").selected(in_time))
        .on_hover_text(hover)
        .on_disabled_hover_text(crate::app_model::time_axis::NO_RECORDED_TIMES)
        .clicked()
    {
        commands.push(Command::SetTimelineInTime(!in_time));
    }
}

/// A symbol (`▶`, `◂`…) in the monospace font: the proportional one of
/// egui's default fonts has none of them.
fn glyph(symbol: &str) -> egui::RichText {
    egui::RichText::new(symbol).monospace()
}

/// A button showing a glyph, named for screen readers and tests.
fn icon_button(ui: &mut egui::Ui, enabled: bool, icon: &str, name: &str, hover: &str) -> bool {
    ui.add_enabled(enabled, egui::Button::new(glyph(icon)))
        .on_hover_text(hover)
        .on_disabled_hover_text(hover)
        .accessible_name(name)
        .clicked()
}

fn speed_ui(ui: &mut egui::Ui, speed: f32, commands: &mut Vec<Command>) {
    let label = ui.label("Speed");
    egui::ComboBox::from_id_salt("timeline_speed")
        .selected_text(speed_label(speed))
        .width(60.0)
        .show_ui(ui, |ui| {
            for candidate in SPEEDS {
                if ui
                    .selectable_label(candidate == speed, speed_label(candidate))
                    .clicked()
                    && candidate != speed
                {
                    commands.push(Command::Time(TimeCommand::SetSpeed(candidate)));
                }
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Playback speed, relative to the recorded timing");
}

/// `0.25×`, `1×`, `16×`.
fn speed_label(speed: f32) -> String {
    format!("{speed}×")
}

fn zoom_buttons_ui(
    ui: &mut egui::Ui,
    step: Seq,
    range: TimelineRange,
    num_events: u64,
    commands: &mut Vec<Command>,
) {
    let full = full_range(num_events);
    // Around the playhead when it shows, else around the middle.
    let anchor = match step.get() as f64 {
        s if (range.first..=range.last).contains(&s) => s,
        _ => (range.first + range.last) / 2.0,
    };
    let hover = "Or Ctrl + wheel over the timeline";
    let span = range.last - range.first;
    let can_zoom_in = span > MIN_SPAN_STEPS.min(full.last - full.first);
    if ui
        .add_enabled(can_zoom_in, egui::Button::new("Zoom in"))
        .on_hover_text(hover)
        .clicked()
    {
        let zoomed = zoom_range(range, anchor, 2.0, num_events);
        commands.push(Command::SetTimelineRange(zoomed));
    }
    let zoomed_in = range != full;
    if ui
        .add_enabled(zoomed_in, egui::Button::new("Zoom out"))
        .on_hover_text(hover)
        .clicked()
    {
        let zoomed = zoom_range(range, anchor, 0.5, num_events);
        commands.push(Command::SetTimelineRange(zoomed));
    }
    if ui
        .add_enabled(zoomed_in, egui::Button::new("Fit"))
        .on_hover_text("Show the whole stream")
        .clicked()
    {
        commands.push(Command::SetTimelineRange(full));
    }
}
