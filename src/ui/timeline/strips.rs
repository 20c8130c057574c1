//! The strips of the timeline ([`super::timeline`]) around the density
//! ([`super::density`]): the names of the rows, the ruler of steps,
//! and the diagnostics (a tick per bin and severity, and which one the
//! pointer is near).

use std::ops::RangeInclusive;

use egui::{Align, Layout, Rect, Sense, Stroke, UiBuilder};
use rustc_hash::FxHashMap;

use super::HIT_RADIUS;
use super::density::KindGroup;
use super::range::{bin_groups, ruler_spacing};
use crate::app_model::time_axis::{time_label, time_spacing};
use crate::diagnostic::{Seq, Severity};
use crate::timeline::StreamIndex;
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// The least room between two labels of the ruler, in points.
const RULER_LABEL_POINTS: f32 = 90.0;

/// A diagnostic tick drawn on the axis (several merged when in one bin).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tick {
    /// Where it is drawn.
    pub(super) x: f32,
    /// The step of the first diagnostic in its bin.
    pub(super) step: Seq,
    /// The severity.
    pub(super) severity: Severity,
    /// How many steps with diagnostics of that severity it stands for.
    pub(super) num_steps: usize,
    /// Its bin.
    pub(super) bin: u64,
}

/// The names of the rows, in the label column.
pub(super) fn strip_labels_ui(
    ui: &mut egui::Ui,
    rect: Rect,
    ruler: Rect,
    density: Rect,
    ticks: Rect,
    in_time: bool,
) {
    let label_rect = |row: Rect| {
        Rect::from_x_y_ranges(
            rect.left()..=rect.left() + theme::TIMELINE_LABEL_WIDTH - 4.0,
            row.y_range(),
        )
    };
    let mut put = |row: Rect, text: &str| {
        ui.scope_builder(
            UiBuilder::new()
                .max_rect(label_rect(row))
                .layout(Layout::left_to_right(Align::Center)),
            |ui| ui.add(egui::Label::new(text).selectable(false).truncate()),
        )
        .inner
    };
    let gestures =
        "Click or drag to scrub · Ctrl + wheel to zoom · wheel, Shift + drag or middle drag to pan";
    if in_time {
        // Issue 43: the axis in recorded time, `t` to go back to steps.
        put(ruler, "Recorded time").on_hover_text(format!(
            "Recorded time from the start: each event where it arrived, the gaps visible\n{gestures}"
        ));
    } else {
        put(ruler, "Steps").on_hover_text(gestures);
    }
    put(density, "Events").on_hover_ui(|ui| {
        ui.label("The kinds of the events under each column:");
        for group in KindGroup::ALL {
            ui.horizontal(|ui| {
                let (swatch, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), Sense::hover());
                ui.painter()
                    .rect_filled(swatch, 2.0, theme::kind_group_color(group));
                ui.label(group.label());
            });
        }
    });
    put(ticks, "Diagnostics").on_hover_text("Steps with diagnostics, errors and warnings on top");
}

/// Step numbers at round intervals.
pub(super) fn paint_ruler(ui: &egui::Ui, painter: &egui::Painter, axis: &StepAxis, rect: Rect) {
    let visuals = ui.visuals();
    let color = visuals.weak_text_color();
    painter.hline(
        rect.x_range(),
        rect.bottom(),
        Stroke::new(1.0, color.gamma_multiply(0.4)),
    );
    if let Some((t0, t1)) = axis.nanos_range() {
        paint_time_ruler(painter, axis, rect, (t0, t1), color);
        return;
    }
    let spacing = ruler_spacing(axis.steps_per_pixel(), RULER_LABEL_POINTS);
    let first = (axis.first_step.max(0.0) / spacing as f64).ceil() as u64;
    let last = (axis.last_step.max(0.0) / spacing as f64).floor() as u64;
    for i in first..=last {
        let step = i.saturating_mul(spacing);
        paint_ruler_tick(
            painter,
            rect,
            axis.x_from_step(step as f64),
            step.to_string(),
            color,
        );
    }
}

/// One tick of a ruler at `x`, its label to its right.
fn paint_ruler_tick(
    painter: &egui::Painter,
    rect: Rect,
    x: f32,
    label: String,
    color: egui::Color32,
) {
    painter.vline(
        x,
        rect.bottom() - 4.0..=rect.bottom(),
        Stroke::new(1.0, color),
    );
    painter.text(
        egui::pos2(x + 2.0, rect.bottom() - 1.0),
        egui::Align2::LEFT_BOTTOM,
        label,
        egui::FontId::proportional(10.0),
        color,
    );
}

/// The ruler of a time axis (issue 43): a tick and a label (ms, s, min)
/// at round times, at least [`RULER_LABEL_POINTS`] apart.
fn paint_time_ruler(
    painter: &egui::Painter,
    axis: &StepAxis,
    rect: Rect,
    (t0, t1): (f64, f64),
    color: egui::Color32,
) {
    let width = f64::from((axis.right_x - axis.left_x).max(1.0));
    let nanos_per_point = (t1 - t0) / width;
    let spacing = time_spacing(nanos_per_point * f64::from(RULER_LABEL_POINTS));
    let x_of = |t: f64| axis.left_x + ((t - t0) / (t1 - t0) * width) as f32;
    let first = (t0 / spacing).ceil();
    // Bounded however the times are spread: far from 0, a spacing of a
    // nanosecond adds nothing to an f64 (hostile timestamps).
    for i in 0..=(width as usize / 8 + 2) {
        let t = (first + i as f64) * spacing;
        if t > t1 {
            break;
        }
        paint_ruler_tick(painter, rect, x_of(t), time_label(t, spacing), color);
    }
}

/// A tick per bin with diagnostics of a severity, the milder first so that
/// errors and warnings end on top. Where bins merge several steps (a long
/// stream), the row is a density instead (issue 13, point 6): per bin, a bar
/// whose height is its number of steps with diagnostics against the
/// fullest bin in view, stacked by severity (errors at the bottom), so that
/// a million events show where problems gather, not a solid bar.
pub(super) fn paint_ticks(
    ui: &egui::Ui,
    painter: &egui::Painter,
    index: &StreamIndex,
    axis: &StepAxis,
    rect: Rect,
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<Tick> {
    let baseline = ui.visuals().weak_text_color().gamma_multiply(0.4);
    painter.hline(rect.x_range(), rect.bottom(), Stroke::new(1.0, baseline));
    let mut ticks = Vec::new();
    for severity in Severity::ALL.into_iter().rev() {
        let steps = index.steps_with(severity);
        for (bin, group) in bin_groups(steps, |s| *s, bins, bin_steps) {
            let step = steps[group.start];
            ticks.push(Tick {
                x: axis.x_from_step(step.get() as f64),
                step,
                severity,
                num_steps: group.len(),
                bin,
            });
        }
    }
    if bin_steps > 1 {
        paint_diagnostic_density(ui, painter, rect, &ticks);
        return ticks;
    }
    for tick in &ticks {
        let color = theme::severity_color(ui.visuals(), tick.severity);
        let (height, width) = match tick.severity {
            Severity::Error => (1.0, 2.5),
            Severity::Warning => (0.8, 2.0),
            Severity::Note => (0.55, 1.5),
            Severity::Info => (0.35, 1.0),
        };
        let top = rect.bottom() - rect.height() * height;
        painter.vline(tick.x, top..=rect.bottom(), Stroke::new(width, color));
    }
    ticks
}

/// The heights of the density's bars, one per tick, in the row's height:
/// the ticks of a bin stacked in severity order (errors at the bottom),
/// each as tall as its steps against the fullest bin's steps (all
/// severities). A bin with any diagnostic gets at least a sliver.
pub(super) fn density_bars(ticks: &[Tick], height: f32) -> Vec<(f32, f32)> {
    let column = |tick: &Tick| tick.bin;
    let mut per_column: FxHashMap<u64, usize> = FxHashMap::default();
    for tick in ticks {
        *per_column.entry(column(tick)).or_default() += tick.num_steps;
    }
    let fullest = per_column.values().copied().max().unwrap_or(1).max(1) as f32;
    let mut order: Vec<usize> = (0..ticks.len()).collect();
    order.sort_by_key(|&i| (column(&ticks[i]), ticks[i].severity));
    let mut bars = vec![(0.0, 0.0); ticks.len()];
    let mut stacked: FxHashMap<u64, f32> = FxHashMap::default();
    for i in order {
        let tick = &ticks[i];
        let below = stacked.entry(column(tick)).or_default();
        let tall = (height * tick.num_steps as f32 / fullest).max(1.0);
        bars[i] = (*below, *below + tall);
        *below += tall;
    }
    bars
}

/// Paints the density of the diagnostics: for each tick, its bar (from
/// [`density_bars`]), a pixel column wide. One mesh of plain rectangles,
/// as the events' density (issue 14: a shape per bar, about 1,100 at a
/// million events, was tessellated again every frame).
fn paint_diagnostic_density(ui: &egui::Ui, painter: &egui::Painter, rect: Rect, ticks: &[Tick]) {
    let mut mesh = egui::Mesh::default();
    for (tick, (from, to)) in ticks.iter().zip(density_bars(ticks, rect.height())) {
        let color = theme::severity_color(ui.visuals(), tick.severity);
        let bar = Rect::from_x_y_ranges(
            tick.x - 0.5..=tick.x + 0.5,
            (rect.bottom() - to).max(rect.top())..=rect.bottom() - from,
        );
        mesh.add_colored_rect(bar, color);
    }
    painter.add(egui::Shape::mesh(mesh));
}

/// The worst tick near a position on the diagnostics row.
pub(super) fn tick_at(ticks: &[Tick], rect: Rect, pos: egui::Pos2) -> Option<&Tick> {
    if !rect.y_range().contains(pos.y) {
        return None;
    }
    ticks
        .iter()
        .filter(|t| (t.x - pos.x).abs() <= HIT_RADIUS)
        .min_by(|a, b| {
            (a.severity, (a.x - pos.x).abs())
                .partial_cmp(&(b.severity, (b.x - pos.x).abs()))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(bin: u64, severity: Severity, num_steps: usize) -> Tick {
        Tick {
            x: bin as f32,
            step: Seq::new(bin * 8 + 1),
            severity,
            num_steps,
            bin,
        }
    }

    #[test]
    fn the_diagnostics_density_is_as_tall_as_each_bins_count() {
        // Issue 13, point 6: at a million events every column has
        // diagnostics; their counts, not their presence, make the row.
        let ticks = [
            tick(0, Severity::Warning, 2),
            tick(0, Severity::Error, 2),
            tick(1, Severity::Info, 1),
            tick(2, Severity::Error, 8),
        ];
        let bars = density_bars(&ticks, 16.0);
        // The fullest bin (8 steps) fills the row.
        assert_eq!(bars[3], (0.0, 16.0));
        // Bin 0: 4 of 8, errors at the bottom, warnings stacked on them.
        assert_eq!(bars[1], (0.0, 4.0));
        assert_eq!(bars[0], (4.0, 8.0));
        // One step of 8: 2 points.
        assert_eq!(bars[2], (0.0, 2.0));
        // A sliver at least.
        let bars = density_bars(
            &[tick(0, Severity::Info, 1), tick(1, Severity::Info, 100)],
            16.0,
        );
        assert_eq!(bars[0], (0.0, 1.0));
    }
}
