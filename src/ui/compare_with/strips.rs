//! The two timelines of a comparison, one above the other: A's events on
//! the upper strip, B's on the lower, each a tick coloured by what became
//! of it (the same in both, changed, in one only), aligned events linked
//! across, and each stream's cursor with the link between them.
//!
//! A click or a drag on A's strip moves the cursor (B follows to the
//! aligned step); on B's strip it puts B at that step and A at the step
//! aligned with it. A strip wide enough draws every event; a longer stream
//! draws the events alike as one grey tick every other pixel and one link
//! per column, and each difference over them (in one only winning over
//! changed where two share a column): a frame costs its pixels and the
//! differences, however long the streams.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Ui, pos2, vec2};

use crate::app_model::command::Command;
use crate::app_model::compare_with::CompareCommand;
use crate::app_model::time_control::TimeCommand;
use crate::compare::{DifferenceKind, EventMatch, StreamComparison};
use crate::diagnostic::Seq;
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// The accessible name of the widget (tests find it by it).
pub const LABEL: &str = "Timelines of A and B";

/// Heights of the parts, top to bottom.
const STRIP_HEIGHT: f32 = 18.0;
const LINK_HEIGHT: f32 = 34.0;
const LABEL_WIDTH: f32 = 22.0;

/// The rectangles of the widget's parts.
#[derive(Clone, Copy, Debug)]
pub struct StripsLayout {
    /// A's strip.
    pub a: Rect,
    /// B's strip.
    pub b: Rect,
}

impl StripsLayout {
    /// The parts of a widget drawn in `rect`.
    pub fn of(rect: Rect) -> Self {
        let left = rect.left() + LABEL_WIDTH;
        let a = Rect::from_min_size(
            pos2(left, rect.top()),
            vec2(rect.right() - left, STRIP_HEIGHT),
        );
        let b = Rect::from_min_size(
            pos2(left, rect.top() + STRIP_HEIGHT + LINK_HEIGHT),
            vec2(rect.right() - left, STRIP_HEIGHT),
        );
        Self { a, b }
    }

    /// The height the widget takes.
    pub const HEIGHT: f32 = 2.0 * STRIP_HEIGHT + LINK_HEIGHT;
}

/// The axis of a strip of `num_events` events: step 1 at its left end,
/// the last at its right (step 0 at the left end too).
pub fn axis(strip: Rect, num_events: u64) -> StepAxis {
    let pad = theme::TIMELINE_PLOT_PADDING;
    StepAxis {
        first_step: 1.0,
        last_step: num_events.max(2) as f64,
        left_x: strip.left() + pad,
        right_x: strip.right() - pad,
        time: None,
    }
}

/// The step under an x of a strip.
pub fn step_at(axis: &StepAxis, x: f32, num_events: u64) -> Seq {
    let step = axis.step_from_x(x).round().max(1.0) as u64;
    Seq::new(step.min(num_events))
}

/// Draws the two strips: A at `a_step`, B at `b_step`.
pub fn strips_ui(
    ui: &mut Ui,
    comparison: &StreamComparison,
    a_step: Seq,
    b_step: Seq,
    commands: &mut Vec<Command>,
) {
    let width = ui.available_width().max(120.0);
    let (rect, response) =
        ui.allocate_exact_size(vec2(width, StripsLayout::HEIGHT), Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, ui.is_enabled(), LABEL));
    let layout = StripsLayout::of(rect);
    let (num_a, num_b) = (comparison.num_events_a, comparison.num_events_b);
    let (axis_a, axis_b) = (axis(layout.a, num_a), axis(layout.b, num_b));
    let visuals = ui.visuals().clone();
    let painter = ui.painter_at(rect);

    for (strip, name) in [(layout.a, "A"), (layout.b, "B")] {
        painter.rect_filled(strip, 2.0, visuals.extreme_bg_color);
        painter.text(
            pos2(rect.left() + 4.0, strip.center().y),
            egui::Align2::LEFT_CENTER,
            name,
            egui::FontId::proportional(13.0),
            visuals.text_color(),
        );
    }

    // The links first, the ticks over them: one link per pixel column
    // for the events alike, one per changed event (a frame costs what its
    // pixels and the differences cost, however long the streams).
    let columns = (layout.a.width().max(1.0)) as u64;
    let stride_a = num_a.div_ceil(columns.max(1)).max(1);
    let link = |a: Seq, color: Color32| {
        let b = comparison.alignment.b_of_a(a);
        painter.line_segment(
            [
                pos2(axis_a.x_from_step(a.get() as f64), layout.a.bottom()),
                pos2(axis_b.x_from_step(b.get() as f64), layout.b.top()),
            ],
            Stroke::new(1.0, color),
        );
    };
    let alike = visuals.weak_text_color().gamma_multiply(0.5);
    for a in (1..=num_a).step_by(stride_a as usize) {
        if comparison.alignment.match_of_a(Seq::new(a)) == Some(EventMatch::Same) {
            link(Seq::new(a), alike);
        }
    }
    let changed = theme::compare_color(&visuals, EventMatch::Changed);
    let mut last_x = None;
    for d in &comparison.differences {
        let x = axis_a.x_from_step(d.a.get() as f64).round();
        if d.kind == DifferenceKind::Changed && last_x != Some(x) {
            link(d.a, changed);
            last_x = Some(x);
        }
    }
    let of_a = comparison.differences.iter().filter_map(|d| match d.kind {
        DifferenceKind::Changed => Some((d.a, EventMatch::Changed)),
        DifferenceKind::OnlyInA => Some((d.a, EventMatch::Only)),
        DifferenceKind::OnlyInB => None,
    });
    let of_b = comparison.differences.iter().filter_map(|d| match d.kind {
        DifferenceKind::Changed => Some((d.b, EventMatch::Changed)),
        DifferenceKind::OnlyInB => Some((d.b, EventMatch::Only)),
        DifferenceKind::OnlyInA => None,
    });
    let matches = &comparison.alignment;
    ticks(
        &painter,
        &visuals,
        layout.a,
        &axis_a,
        matches.matches_a(),
        of_a,
    );
    ticks(
        &painter,
        &visuals,
        layout.b,
        &axis_b,
        matches.matches_b(),
        of_b,
    );

    // The cursors, and the link between them.
    let cursor = Stroke::new(2.0, theme::playhead_color(&visuals));
    let xa = axis_a.x_from_step(a_step.get().max(1) as f64);
    let xb = axis_b.x_from_step(b_step.get().max(1) as f64);
    painter.line_segment(
        [pos2(xa, layout.a.top()), pos2(xa, layout.a.bottom())],
        cursor,
    );
    painter.line_segment(
        [pos2(xb, layout.b.top()), pos2(xb, layout.b.bottom())],
        cursor,
    );
    painter.line_segment(
        [pos2(xa, layout.a.bottom()), pos2(xb, layout.b.top())],
        cursor,
    );

    if let Some(pointer) = response.interact_pointer_pos()
        && (response.clicked() || response.dragged())
    {
        commands.push(command_at(pointer, &layout, num_a, num_b));
    }
    if let Some(pointer) = response.hover_pos() {
        response.on_hover_text_at_pointer(hover_text(pointer, &layout, comparison));
    }
}

/// What a click at `pointer` asks: the upper half of the widget is A's,
/// the lower B's.
pub fn command_at(pointer: Pos2, layout: &StripsLayout, num_a: u64, num_b: u64) -> Command {
    let middle = (layout.a.bottom() + layout.b.top()) / 2.0;
    if pointer.y < middle {
        let step = step_at(&axis(layout.a, num_a), pointer.x, num_a);
        Command::Time(TimeCommand::SetClamped(step))
    } else {
        let step = step_at(&axis(layout.b, num_b), pointer.x, num_b);
        Command::Compare(CompareCommand::SetB(step))
    }
}

fn hover_text(pointer: Pos2, layout: &StripsLayout, comparison: &StreamComparison) -> String {
    let middle = (layout.a.bottom() + layout.b.top()) / 2.0;
    let alignment = &comparison.alignment;
    let (side, step, other, event_match) = if pointer.y < middle {
        let step = step_at(
            &axis(layout.a, comparison.num_events_a),
            pointer.x,
            comparison.num_events_a,
        );
        (
            "A",
            step,
            alignment.b_of_a(step),
            alignment.match_of_a(step),
        )
    } else {
        let step = step_at(
            &axis(layout.b, comparison.num_events_b),
            pointer.x,
            comparison.num_events_b,
        );
        (
            "B",
            step,
            alignment.a_of_b(step),
            alignment.match_of_b(step),
        )
    };
    let other_side = if side == "A" { "B" } else { "A" };
    match event_match {
        Some(EventMatch::Same) => {
            format!("{side} step {step}: the same as {other_side} step {other}")
        }
        Some(EventMatch::Changed) => {
            format!("{side} step {step}: changed from {other_side} step {other}")
        }
        Some(EventMatch::Only) => {
            format!("{side} step {step}: only in {side} (after {other_side} step {other})")
        }
        None => format!("{side} step {step}"),
    }
}

/// One tick per event where the strip is wide enough; else one grey tick
/// per pixel column, and the `differences` (their steps, in order) over
/// them, one per column, the most telling winning.
fn ticks(
    painter: &egui::Painter,
    visuals: &egui::Visuals,
    strip: Rect,
    axis: &StepAxis,
    matches: &[EventMatch],
    differences: impl Iterator<Item = (Seq, EventMatch)>,
) {
    let draw = |x: f32, event_match: EventMatch| {
        let color: Color32 = theme::compare_color(visuals, event_match);
        let same = event_match == EventMatch::Same;
        let inset = if same { 5.0 } else { 1.0 };
        painter.line_segment(
            [
                pos2(x, strip.top() + inset),
                pos2(x, strip.bottom() - inset),
            ],
            Stroke::new(if same { 1.0 } else { 2.0 }, color),
        );
    };
    let columns = strip.width().max(1.0) as usize;
    if matches.len() <= columns / 2 {
        for (i, event_match) in matches.iter().enumerate() {
            draw(
                axis.x_from_step(Seq::from_index(i).get() as f64),
                *event_match,
            );
        }
        return;
    }
    let mut x = axis.left_x;
    while x <= axis.right_x {
        draw(x, EventMatch::Same);
        x += 2.0;
    }
    let mut column: Option<(f32, EventMatch)> = None;
    for (step, event_match) in differences {
        let x = axis.x_from_step(step.get() as f64).round();
        match column {
            Some((cx, m)) if cx == x => {
                if event_match == EventMatch::Only && m != EventMatch::Only {
                    column = Some((cx, event_match));
                }
            }
            Some((cx, m)) => {
                draw(cx, m);
                column = Some((x, event_match));
            }
            None => column = Some((x, event_match)),
        }
    }
    if let Some((x, m)) = column {
        draw(x, m);
    }
}
