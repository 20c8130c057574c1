//! The strips of the timeline ([`super::timeline`]) around the density
//! ([`super::density`]): the names of the rows, the ruler of steps,
//! and the diagnostics (a tick per bin and severity, and which one the
//! pointer is near).

use std::ops::RangeInclusive;

use egui::{Align, Layout, Rect, Sense, Stroke, UiBuilder};

use super::HIT_RADIUS;
use super::density::KindGroup;
use super::range::{bin_groups, ruler_spacing};
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
}

/// The names of the rows, in the label column.
pub(super) fn strip_labels_ui(
    ui: &mut egui::Ui,
    rect: Rect,
    ruler: Rect,
    density: Rect,
    ticks: Rect,
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
    put(ruler, "Steps").on_hover_text(
        "Click or drag to scrub · Ctrl + wheel to zoom · wheel, Shift + drag or middle drag to pan",
    );
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
    let spacing = ruler_spacing(axis.steps_per_pixel(), RULER_LABEL_POINTS);
    let first = (axis.first_step.max(0.0) / spacing as f64).ceil() as u64;
    let last = (axis.last_step.max(0.0) / spacing as f64).floor() as u64;
    let font = egui::FontId::proportional(10.0);
    for i in first..=last {
        let step = i.saturating_mul(spacing);
        let x = axis.x_from_step(step as f64);
        painter.vline(
            x,
            rect.bottom() - 4.0..=rect.bottom(),
            Stroke::new(1.0, color),
        );
        painter.text(
            egui::pos2(x + 2.0, rect.bottom() - 1.0),
            egui::Align2::LEFT_BOTTOM,
            step.to_string(),
            font.clone(),
            color,
        );
    }
}

/// A tick per bin with diagnostics of a severity, the milder first so that
/// errors and warnings end on top.
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
        let color = theme::severity_color(ui.visuals(), severity);
        let (height, width) = match severity {
            Severity::Error => (1.0, 2.5),
            Severity::Warning => (0.8, 2.0),
            Severity::Note => (0.55, 1.5),
            Severity::Info => (0.35, 1.0),
        };
        let steps = index.steps_with(severity);
        for (_, group) in bin_groups(steps, |s| *s, bins, bin_steps) {
            let step = steps[group.start];
            let x = axis.x_from_step(step.get() as f64);
            let top = rect.bottom() - rect.height() * height;
            painter.vline(x, top..=rect.bottom(), Stroke::new(width, color));
            ticks.push(Tick {
                x,
                step,
                severity,
                num_steps: group.len(),
            });
        }
    }
    ticks
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
