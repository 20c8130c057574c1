//! Marks A and B on the timeline, and the bookmarks: a line with a letter
//! for each mark, the range between them shaded, a small flag for each
//! bookmark; a drag with the secondary (right) button over the plot puts
//! both marks.

use crate::app_model::command::MarkCommand;
use std::ops::RangeInclusive;

use egui::{Align2, FontId, PointerButton, Rect, Response, Stroke};

use crate::app_model::state::AppState;

use crate::app_model::command::Command;
use crate::diagnostic::Seq;
use crate::ui::step_axis::StepAxis;

/// The marks' color.
fn mark_color(visuals: &egui::Visuals) -> egui::Color32 {
    crate::ui::theme::mark_color(visuals)
}

/// A right-drag over the plot: both marks, from where it started to where
/// it ends. Returns the range being dragged, to paint.
pub fn drag_range(
    ui: &egui::Ui,
    response: &Response,
    step_at: impl Fn(f32) -> Seq,
    commands: &mut Vec<Command>,
) -> Option<(Seq, Seq)> {
    let id = response.id.with("range_drag");
    if response.drag_started_by(PointerButton::Secondary)
        && let Some(pos) = response.interact_pointer_pos()
    {
        ui.ctx().data_mut(|d| d.insert_temp(id, step_at(pos.x)));
    }
    let start = ui.ctx().data(|d| d.get_temp::<Seq>(id))?;
    let end = response
        .interact_pointer_pos()
        .or_else(|| ui.ctx().pointer_latest_pos())
        .map_or(start, |pos| step_at(pos.x));
    if response.drag_stopped_by(PointerButton::Secondary) || !response.dragged() {
        ui.ctx().data_mut(|d| d.remove::<Seq>(id));
        if start != end {
            commands.push(Command::Mark(MarkCommand::SetBoth(
                start.min(end),
                start.max(end),
            )));
        }
        return None;
    }
    Some((start.min(end), start.max(end)))
}

/// Where the marks go, vertically.
pub struct MarkRows {
    /// The lines of A and B, and the shaded range between them.
    pub lines: RangeInclusive<f32>,
    /// The top of the letters A and B (below the ruler's numbers).
    pub letters_y: f32,
    /// The middle of the bookmarks' flags (on the diagnostics row).
    pub flags_y: f32,
}

/// Paints marks A and B (or a range being dragged), and the bookmarks.
pub fn paint_marks(
    ui: &egui::Ui,
    painter: &egui::Painter,
    axis: &StepAxis,
    state: &AppState,
    dragging: Option<(Seq, Seq)>,
    rows: &MarkRows,
) {
    let color = mark_color(ui.visuals());
    let (top, bottom) = (*rows.lines.start(), *rows.lines.end());
    let x = |step: Seq| axis.x_from_step(step.get() as f64);
    let marks = match dragging {
        Some((a, b)) => [Some(a), Some(b)],
        None => state.marks(),
    };
    if let [Some(a), Some(b)] = marks {
        let (left, right) = (x(a.min(b)), x(a.max(b)));
        let shade = Rect::from_x_y_ranges(left..=right.max(left + 1.0), top..=bottom);
        painter.rect_filled(shade, 0.0, color.gamma_multiply(0.12));
    }
    for (mark, letter) in marks.iter().zip(["A", "B"]) {
        let Some(step) = mark else { continue };
        let x = x(*step);
        painter.vline(x, top..=bottom, Stroke::new(1.0, color));
        painter.text(
            egui::pos2(x + 2.0, rows.letters_y),
            Align2::LEFT_TOP,
            letter,
            FontId::proportional(11.0),
            color,
        );
    }
    let flag = ui.visuals().hyperlink_color;
    let y = rows.flags_y;
    for bookmark in state.annotations().bookmarks() {
        let x = x(bookmark.seq);
        let points = vec![
            egui::pos2(x, y - 7.0),
            egui::pos2(x + 7.0, y - 4.0),
            egui::pos2(x, y - 1.0),
        ];
        painter.add(egui::Shape::convex_polygon(points, flag, Stroke::NONE));
        painter.vline(x, y - 8.0..=y + 6.0, Stroke::new(1.5, flag));
    }
}

/// The color of the marks where the two profiles part (P13).
pub fn divergence_color(visuals: &egui::Visuals) -> egui::Color32 {
    crate::ui::theme::divergence_color(visuals)
}

/// A small hollow diamond on the diagnostics row at each event where the
/// deployed client shows something else than the spec (P13, issue 18); one
/// per pixel column.
pub fn paint_divergences(
    ui: &egui::Ui,
    painter: &egui::Painter,
    axis: &StepAxis,
    divergences: &[crate::diagnostic::Diagnostic],
    rows: &MarkRows,
) {
    let color = divergence_color(ui.visuals());
    let y = rows.flags_y - 5.0;
    let mut last_x = f32::NEG_INFINITY;
    for divergence in divergences {
        let x = axis.x_from_step(divergence.seq.get() as f64);
        if x - last_x < 2.0 {
            continue;
        }
        last_x = x;
        let points = vec![
            egui::pos2(x, y - 3.5),
            egui::pos2(x + 3.5, y),
            egui::pos2(x, y + 3.5),
            egui::pos2(x - 3.5, y),
        ];
        painter.add(egui::Shape::closed_line(points, Stroke::new(1.2, color)));
    }
}

/// The first divergence whose mark is within `radius` of `pos`.
pub fn divergence_at<'a>(
    axis: &StepAxis,
    divergences: &'a [crate::diagnostic::Diagnostic],
    rows_y: f32,
    pos: egui::Pos2,
    radius: f32,
) -> Option<&'a crate::diagnostic::Diagnostic> {
    if (pos.y - (rows_y - 5.0)).abs() > radius {
        return None;
    }
    divergences
        .iter()
        .find(|d| (axis.x_from_step(d.seq.get() as f64) - pos.x).abs() <= radius)
}

/// The colour of the matches of a "find all" on the timeline.
pub fn match_color(visuals: &egui::Visuals) -> egui::Color32 {
    if visuals.dark_mode {
        egui::Color32::from_rgb(0xff, 0x6e, 0xd8)
    } else {
        egui::Color32::from_rgb(0xb0, 0x00, 0x7a)
    }
}

/// The matches of the last "find all" (issue 13, point 4): per visible bin
/// with a match, a line through the density strip (`strip`) and a small
/// triangle over it, as `agui-replay find` lists them. Returns how many it
/// drew.
pub fn paint_matches(
    ui: &egui::Ui,
    painter: &egui::Painter,
    axis: &StepAxis,
    matches: &[crate::search::Match],
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
    strip: Rect,
) -> usize {
    let color = match_color(ui.visuals());
    let groups = super::range::bin_groups(matches, |m| m.step, bins, bin_steps);
    for (_, group) in &groups {
        let x = axis.x_from_step(matches[group.start].step.get() as f64);
        let line = Rect::from_x_y_ranges(x - 0.75..=x + 0.75, strip.y_range());
        painter.rect_filled(line, 0.0, color);
        let top = strip.top();
        let triangle = vec![
            egui::pos2(x - 4.0, top),
            egui::pos2(x + 4.0, top),
            egui::pos2(x, top + 6.0),
        ];
        painter.add(egui::Shape::convex_polygon(triangle, color, Stroke::NONE));
    }
    groups.len()
}
