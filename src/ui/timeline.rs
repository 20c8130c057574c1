//! The timeline panel, at the bottom of the window: the whole stream on one
//! axis of steps, with the playhead at the cursor.
//!
//! From the top: a toolbar (playback, speed, the step, navigation, zoom); a
//! ruler of steps; a density strip (the kinds of the events under each pixel
//! column); the diagnostics; one lane per activity. Click or drag to scrub;
//! Ctrl + wheel zooms around the pointer; the wheel, Shift + drag or a
//! middle drag pans. This module holds the toolbar, the pointer and the
//! range and bin arithmetic; [`super::timeline_lanes`] draws the rows.
//!
//! Everything is looked up in the stream's indices for the visible range
//! only, in *bins* of a power of two steps at least a pixel wide (bin `i`
//! holds steps `i·k+1 ..= (i+1)·k`; step 0 joins bin 0). A frame costs what
//! its pixels and visible marks cost, however long the stream; what depends
//! only on the range (the density, the lanes' marks) is kept between frames,
//! so scrubbing recomputes nothing.

use std::ops::{Range, RangeInclusive};

use egui::{PointerButton, Rangef, Rect, Sense, Shape, Stroke};

use super::state::{AppState, Command, Doc, SPEEDS, TimelineRange};
use super::theme;
use super::time_axis::TimeAxis;
pub use super::timeline_lanes::KindGroup;
use super::timeline_lanes::{self as rows, Density, LanesView, Tick};
use super::timeline_marks;
use crate::diagnostic::Seq;
use crate::timeline::StreamIndex;

/// The narrowest visible range, in steps.
const MIN_SPAN_STEPS: f64 = 4.0;
/// How near the pointer must be to a mark or a tick to hover or click it.
pub(super) const HIT_RADIUS: f32 = 5.0;

/// The whole stream: step 0 (before any event) to the last.
pub fn full_range(num_events: u64) -> TimelineRange {
    TimelineRange {
        first: 0.0,
        last: num_events.max(1) as f64,
    }
}

/// A range moved and narrowed to fit the stream, and no narrower than a few
/// steps.
pub fn clamp_range(range: TimelineRange, num_events: u64) -> TimelineRange {
    let full = full_range(num_events);
    let full_span = full.last - full.first;
    let span = range.last - range.first;
    let span = if span.is_finite() {
        span.clamp(MIN_SPAN_STEPS.min(full_span), full_span)
    } else {
        full_span
    };
    let first = if range.first.is_finite() {
        range.first.clamp(full.first, full.last - span)
    } else {
        full.first
    };
    TimelineRange {
        first,
        last: first + span,
    }
}

/// Zooms by `factor` (above 1: in) keeping `anchor_step` where it is.
pub fn zoom_range(
    range: TimelineRange,
    anchor_step: f64,
    factor: f64,
    num_events: u64,
) -> TimelineRange {
    let full = full_range(num_events);
    let full_span = full.last - full.first;
    let span = (range.last - range.first).max(f64::EPSILON);
    let new_span = (span / factor).clamp(MIN_SPAN_STEPS.min(full_span), full_span);
    let t = ((anchor_step - range.first) / span).clamp(0.0, 1.0);
    let first = anchor_step - t * new_span;
    clamp_range(
        TimelineRange {
            first,
            last: first + new_span,
        },
        num_events,
    )
}

/// Moves a range by a number of steps (negative: back), within the stream.
pub fn pan_range(range: TimelineRange, delta_steps: f64, num_events: u64) -> TimelineRange {
    clamp_range(
        TimelineRange {
            first: range.first + delta_steps,
            last: range.last + delta_steps,
        },
        num_events,
    )
}

/// Steps per bin: the least power of two at least `steps_per_pixel`, so
/// that a bin is at least a pixel wide and bins stay put while panning.
pub fn bin_steps(steps_per_pixel: f64) -> u64 {
    if steps_per_pixel.is_nan() || steps_per_pixel <= 1.0 {
        return 1;
    }
    (steps_per_pixel.min(1e18).ceil() as u64).next_power_of_two()
}

/// The bin of a step (step 0 joins bin 0).
pub fn bin_of(step: Seq, bin_steps: u64) -> u64 {
    step.0.saturating_sub(1) / bin_steps
}

/// The bins a range shows, or none for an empty stream.
pub fn visible_bins(
    range: TimelineRange,
    bin_steps: u64,
    num_events: u64,
) -> Option<RangeInclusive<u64>> {
    if num_events == 0 {
        return None;
    }
    let step = |s: f64| Seq((s.max(0.0) as u64).min(num_events));
    let first = bin_of(step(range.first.floor()), bin_steps);
    let last = bin_of(step(range.last.ceil()), bin_steps);
    Some(first..=last)
}

/// The events of a bin.
pub fn bin_seqs(bin: u64, bin_steps: u64, num_events: u64) -> RangeInclusive<Seq> {
    let first = bin.saturating_mul(bin_steps).saturating_add(1);
    let last = bin
        .saturating_add(1)
        .saturating_mul(bin_steps)
        .min(num_events);
    Seq(first)..=Seq(last)
}

/// The visible items of a list sorted by step, grouped by bin: each group
/// is a bin and the range of the items in it. One binary search per group,
/// so the cost grows with the groups drawn, not with the items.
pub fn bin_groups<T>(
    items: &[T],
    step_of: impl Fn(&T) -> Seq,
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<(u64, Range<usize>)> {
    let first_step = match *bins.start() {
        0 => 0,
        bin => bin.saturating_mul(bin_steps).saturating_add(1),
    };
    let last_step = bins.end().saturating_add(1).saturating_mul(bin_steps);
    let mut i = items.partition_point(|t| step_of(t).0 < first_step);
    let end = items.partition_point(|t| step_of(t).0 <= last_step);
    let mut groups = Vec::new();
    while i < end {
        let bin = bin_of(step_of(&items[i]), bin_steps);
        let bin_last = bin.saturating_add(1).saturating_mul(bin_steps);
        let j = i + items[i..end].partition_point(|t| step_of(t).0 <= bin_last);
        groups.push((bin, i..j));
        i = j;
    }
    groups
}

/// Steps between two labels of the ruler: 1, 2 or 5 times a power of ten,
/// at least `min_points` apart.
pub fn ruler_spacing(steps_per_pixel: f64, min_points: f32) -> u64 {
    let min_steps = steps_per_pixel * f64::from(min_points);
    let mut power = 1u64;
    loop {
        for multiple in [1, 2, 5] {
            let spacing = power.saturating_mul(multiple);
            if spacing as f64 >= min_steps || spacing == u64::MAX {
                return spacing;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// The step nearest an x, within the stream.
fn step_at(axis: &TimeAxis, x: f32, num_events: u64) -> Seq {
    Seq(axis.step_from_x(x).round().clamp(0.0, num_events as f64) as u64)
}

/// Draws the timeline panel.
pub fn timeline_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let Some(doc) = &state.doc else {
        ui.add_space(4.0);
        ui.weak(match state.loading {
            Some(_) => "Opening…",
            None => "No stream open",
        });
        return;
    };
    let num_events = doc.num_events();
    let range = state
        .timeline_range
        .map_or_else(|| full_range(num_events), |r| clamp_range(r, num_events));
    let num_commands = commands.len();
    toolbar_ui(ui, state, doc, range, commands);
    plot_ui(ui, state, doc, range, commands);
    if commands.len() > num_commands {
        // The commands apply at the end of the frame: show their result.
        ui.ctx().request_repaint();
    }
}

/// Playback, speed, the step, navigation and zoom.
fn toolbar_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    doc: &Doc,
    range: TimelineRange,
    commands: &mut Vec<Command>,
) {
    let step = state.step();
    let num_events = doc.num_events();
    let at_start = step == Seq::START;
    let at_end = step.0 >= num_events;
    ui.horizontal_wrapped(|ui| {
        if icon_button(ui, !at_start, "|◂", "First step", "First step (Home)") {
            commands.push(Command::SetStep(Seq::START));
        }
        if icon_button(ui, !at_start, "◂", "Previous step", "Previous step (←)") {
            commands.push(Command::StepBy(-1));
        }
        let playing = state.playback.playing_since.is_some();
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
            commands.push(Command::TogglePlay);
        }
        if icon_button(ui, !at_end, "▸", "Next step", "Next step (→)") {
            commands.push(Command::StepBy(1));
        }
        if icon_button(ui, !at_end, "▸|", "Last step", "Last step (End)") {
            commands.push(Command::SetStep(Seq(num_events)));
        }
        ui.separator();
        speed_ui(ui, state.playback.speed, commands);
        ui.separator();
        let label = ui.label("Step");
        let mut value = step.0;
        if ui
            .add(
                egui::DragValue::new(&mut value)
                    .range(0..=num_events)
                    .speed((num_events as f64 / 1000.0).max(1.0)),
            )
            .labelled_by(label.id)
            .on_hover_text("Type a step, or drag")
            .changed()
        {
            commands.push(Command::SetStep(Seq(value)));
        }
        ui.label(format!("of {num_events}"));
        let seconds = state.arrival_at(step) as f64 / 1e9;
        ui.weak(format!("at {seconds:.3} s"))
            .on_hover_text("When the event arrived, from the first");
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
            commands.push(Command::PreviousDiagnostic);
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
            commands.push(Command::NextDiagnostic);
        }
        ui.separator();
        zoom_buttons_ui(ui, step, range, num_events, commands);
    });
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
                    commands.push(Command::SetSpeed(candidate));
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
    let anchor = match step.0 as f64 {
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

/// The ruler, the density, the diagnostics and the lanes, with the
/// playhead over them; scrubbing, zooming and panning.
fn plot_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    doc: &Doc,
    range: TimelineRange,
    commands: &mut Vec<Command>,
) {
    let num_events = doc.num_events();
    let rect = ui.available_rect_before_wrap();
    let bar_room = ui.spacing().scroll.allocated_width() + 4.0;
    let plot_x = Rangef::new(
        rect.left() + theme::TIMELINE_LABEL_WIDTH,
        (rect.right() - bar_room).max(rect.left() + theme::TIMELINE_LABEL_WIDTH + 1.0),
    );
    let axis = TimeAxis {
        first_step: range.first,
        last_step: range.last,
        left_x: plot_x.min + theme::TIMELINE_PLOT_PADDING,
        right_x: plot_x.max - theme::TIMELINE_PLOT_PADDING,
    };
    let row = |top: f32, height: f32| Rect::from_x_y_ranges(plot_x, top..=top + height);
    let ruler = row(rect.top(), theme::RULER_HEIGHT);
    let density_rect = row(ruler.bottom(), theme::DENSITY_HEIGHT);
    let ticks_rect = row(density_rect.bottom() + 2.0, theme::AXIS_HEIGHT);
    let strips = Rect::from_min_max(rect.min, egui::pos2(rect.right(), ticks_rect.bottom()));
    let lanes_rect = Rect::from_min_max(egui::pos2(rect.left(), strips.bottom()), rect.max);
    let plot_rect = Rect::from_x_y_ranges(plot_x, rect.y_range());

    // The wheel, before the lanes' scroll area takes its share: over the
    // lanes, a vertical wheel scrolls them when they overflow.
    let mut new_range = range;
    let pointer = ui.input(|i| i.pointer.hover_pos());
    if let Some(pos) = pointer.filter(|_| ui.rect_contains_pointer(plot_rect)) {
        let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta(), i.zoom_delta()));
        if zoom != 1.0 {
            let anchor = axis.step_from_x(pos.x);
            new_range = zoom_range(new_range, anchor, f64::from(zoom), num_events);
        }
        let lanes_scroll =
            lanes_rect.contains(pos) && rows::content_height(ui, doc) > lanes_rect.height();
        let pan_points = if lanes_scroll {
            scroll.x
        } else {
            scroll.x + scroll.y
        };
        if pan_points != 0.0 {
            let delta = -f64::from(pan_points) * axis.steps_per_pixel();
            new_range = pan_range(new_range, delta, num_events);
            ui.input_mut(|i| {
                i.smooth_scroll_delta.x = 0.0;
                if !lanes_scroll {
                    i.smooth_scroll_delta.y = 0.0;
                }
            });
        }
    }

    rows::strip_labels_ui(ui, rect, ruler, density_rect, ticks_rect);
    let painter = ui.painter_at(plot_rect);
    let k = bin_steps(axis.steps_per_pixel());
    let bins = visible_bins(range, k, num_events);
    rows::paint_ruler(ui, &painter, &axis, ruler);
    let density = bins.as_ref().map(|bins| rows::density(ui, doc, k, bins));
    if let Some(density) = &density {
        rows::paint_density(&painter, &axis, density_rect, density, num_events);
    }
    let ticks = match &bins {
        Some(bins) => rows::paint_ticks(
            ui,
            &painter,
            doc.timeline.index(),
            &axis,
            ticks_rect,
            bins,
            k,
        ),
        None => Vec::new(),
    };
    ui.advance_cursor_after_rect(strips);

    let lanes = rows::lanes_ui(
        ui,
        doc,
        state.selected_activity.as_deref(),
        &axis,
        plot_x,
        bins.as_ref().map(|b| (b.clone(), k)),
        commands,
    );

    // Over the lanes' contents, so that it gets the pointer in the plot.
    let response = ui.interact(
        plot_rect,
        ui.make_persistent_id("timeline_plot"),
        Sense::click_and_drag(),
    );
    let mut playhead = state.step();
    response.widget_info(|| egui::WidgetInfo::slider(true, playhead.0 as f64, "Timeline"));
    let (shift, primary_down) = ui.input(|i| (i.modifiers.shift, i.pointer.primary_down()));
    if response.dragged_by(PointerButton::Middle)
        || (response.dragged_by(PointerButton::Primary) && shift)
    {
        let delta = -f64::from(response.drag_delta().x) * axis.steps_per_pixel();
        new_range = pan_range(new_range, delta, num_events);
    } else if response.is_pointer_button_down_on()
        && primary_down
        && !shift
        && let Some(pos) = response.interact_pointer_pos()
    {
        let step = step_at(&axis, pos.x, num_events);
        if step != playhead {
            commands.push(Command::SetStep(step));
            playhead = step;
        }
    }
    let dragging =
        timeline_marks::drag_range(ui, &response, |x| step_at(&axis, x, num_events), commands);
    if response.clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        if let Some((lane, mark)) = lanes.hit(pos) {
            let id = doc.timeline.index().lanes()[lane].message_id.clone();
            commands.push(Command::SelectActivity(Some(id)));
            commands.push(Command::SetStep(mark.seq));
            playhead = mark.seq;
        } else if let Some(tick) = rows::tick_at(&ticks, ticks_rect, pos) {
            commands.push(Command::SetStep(tick.step));
            playhead = tick.step;
        }
    }
    if state.playback.playing_since.is_some() && new_range == range {
        new_range = follow_playhead(range, playhead, num_events);
    }
    if new_range != range {
        commands.push(Command::SetTimelineRange(new_range));
    }

    let bottom = lanes.viewport.bottom().max(ticks_rect.bottom());
    let painter = ui.painter_at(Rect::from_x_y_ranges(plot_x, rect.top()..=bottom));
    if let Some(pos) = response.hover_pos().filter(|_| !response.dragged()) {
        let color = ui.visuals().weak_text_color().gamma_multiply(0.5);
        painter.vline(pos.x, rect.top()..=bottom, Stroke::new(1.0, color));
    }
    timeline_marks::paint_marks(ui, &painter, &axis, state, dragging, rect.top()..=bottom);
    paint_playhead(ui, &painter, &axis, playhead, rect.top()..=bottom);

    if !response.dragged() {
        response.on_hover_ui_at_pointer(|ui| {
            let Some(pos) = ui.ctx().pointer_hover_pos() else {
                return;
            };
            let hover = Hover {
                doc,
                axis: &axis,
                density: density.as_deref(),
                density_rect,
                ticks: &ticks,
                ticks_rect,
                lanes: &lanes,
            };
            hover.ui(ui, pos);
        });
    }
}

/// Keeps the playhead in view while playing: when it leaves the range, the
/// range moves so that it shows near the left.
fn follow_playhead(range: TimelineRange, playhead: Seq, num_events: u64) -> TimelineRange {
    let step = playhead.0 as f64;
    if (range.first..=range.last).contains(&step) {
        return range;
    }
    let span = range.last - range.first;
    let first = step - span * 0.1;
    clamp_range(
        TimelineRange {
            first,
            last: first + span,
        },
        num_events,
    )
}

/// The playhead: a line across every row, with a handle on the ruler.
fn paint_playhead(
    ui: &egui::Ui,
    painter: &egui::Painter,
    axis: &TimeAxis,
    step: Seq,
    y: RangeInclusive<f32>,
) {
    let x = axis.x_from_step(step.0 as f64);
    let color = theme::playhead_color(ui.visuals());
    let top = *y.start();
    let plot = painter.clip_rect().x_range();
    if !plot.contains(x) {
        // Out of view: an arrow at the edge it is beyond.
        let (edge, out) = if x < plot.min {
            (plot.min + 1.0, -1.0)
        } else {
            (plot.max - 1.0, 1.0)
        };
        let arrow = vec![
            egui::pos2(edge, top + 5.0),
            egui::pos2(edge - out * 7.0, top),
            egui::pos2(edge - out * 7.0, top + 10.0),
        ];
        painter.add(Shape::convex_polygon(arrow, color, Stroke::NONE));
        return;
    }
    painter.vline(x, y, Stroke::new(1.5, color));
    let handle = vec![
        egui::pos2(x - 5.0, top),
        egui::pos2(x + 5.0, top),
        egui::pos2(x, top + 7.0),
    ];
    painter.add(Shape::convex_polygon(handle, color, Stroke::NONE));
}

/// What the pointer is over, for the tooltip.
struct Hover<'a> {
    doc: &'a Doc,
    axis: &'a TimeAxis,
    density: Option<&'a Density>,
    density_rect: Rect,
    ticks: &'a [Tick],
    ticks_rect: Rect,
    lanes: &'a LanesView,
}

impl Hover<'_> {
    fn ui(&self, ui: &mut egui::Ui, pos: egui::Pos2) {
        let index = self.doc.timeline.index();
        let num_events = self.doc.num_events();
        if let Some((lane, mark)) = self.lanes.hit(pos) {
            let lane = &index.lanes()[lane];
            step_line_ui(ui, index, mark.seq);
            ui.label(format!(
                "{}: {}",
                lane.message_id,
                rows::change_label(mark.change)
            ));
            if mark.num_merged > 1 {
                ui.weak(format!(
                    "and {} more events of this activity here",
                    mark.num_merged - 1
                ));
            }
            ui.weak("Click to select it and go there");
            return;
        }
        if let Some(tick) = rows::tick_at(self.ticks, self.ticks_rect, pos) {
            step_line_ui(ui, index, tick.step);
            let diagnostics = self.doc.timeline.diagnostics();
            let start = diagnostics.partition_point(|d| d.seq < tick.step);
            let end = diagnostics.partition_point(|d| d.seq <= tick.step);
            for diagnostic in diagnostics[start..end].iter().take(4) {
                ui.colored_label(
                    theme::severity_color(ui.visuals(), diagnostic.severity),
                    format!(
                        "{} {}: {}",
                        theme::severity_symbol(diagnostic.severity),
                        diagnostic.code.as_str(),
                        diagnostic.message
                    ),
                );
            }
            if end - start > 4 {
                ui.weak(format!("and {} more", end - start - 4));
            }
            if tick.num_steps > 1 {
                ui.weak(format!(
                    "and {} more steps with {}s here",
                    tick.num_steps - 1,
                    tick.severity
                ));
            }
            return;
        }
        let step = step_at(self.axis, pos.x, num_events);
        if let Some(density) = self
            .density
            .filter(|_| self.density_rect.y_range().contains(pos.y))
        {
            let bin = bin_of(step, density.bin_steps);
            if let Some(counts) = density.get(bin).filter(|_| density.bin_steps > 1) {
                let seqs = bin_seqs(bin, density.bin_steps, num_events);
                ui.strong(format!("Steps {} to {}", seqs.start(), seqs.end()));
                for group in KindGroup::ALL {
                    let count = counts[group as usize];
                    if count > 0 {
                        ui.colored_label(
                            theme::kind_group_color(group),
                            format!("{count} {}", group.label()),
                        );
                    }
                }
                return;
            }
        }
        step_line_ui(ui, index, step);
    }
}

/// `Step 12 · ACTIVITY_DELTA`.
fn step_line_ui(ui: &mut egui::Ui, index: &StreamIndex, step: Seq) {
    let kind = match index.kind(step) {
        Some(kind) => kind.name(),
        None => "before the first event",
    };
    ui.horizontal(|ui| {
        ui.strong(format!("Step {step}"));
        ui.label(kind);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(first: f64, last: f64) -> TimelineRange {
        TimelineRange { first, last }
    }

    #[test]
    fn ranges_stay_inside_the_stream_and_a_few_steps_wide() {
        assert_eq!(full_range(0), range(0.0, 1.0));
        assert_eq!(clamp_range(range(-50.0, 50.0), 1000), range(0.0, 100.0));
        assert_eq!(
            clamp_range(range(950.0, 1050.0), 1000),
            range(900.0, 1000.0)
        );
        assert_eq!(clamp_range(range(-5.0, 5000.0), 1000), full_range(1000));
        assert_eq!(clamp_range(range(10.0, 10.5), 1000), range(10.0, 14.0));
        assert_eq!(clamp_range(range(f64::NAN, 3.0), 1000).first, 0.0);
        // A stream shorter than the narrowest range shows whole.
        assert_eq!(clamp_range(range(1.0, 1.5), 2), full_range(2));
    }

    #[test]
    fn zooming_keeps_the_anchor_under_the_pointer() {
        let zoomed = zoom_range(range(0.0, 1000.0), 250.0, 2.0, 1000);
        assert_eq!(zoomed, range(125.0, 625.0));
        // The anchor is a quarter of the way in, before and after.
        assert!(((250.0 - zoomed.first) / (zoomed.last - zoomed.first) - 0.25).abs() < 1e-9);
        let back = zoom_range(zoomed, 250.0, 0.5, 1000);
        assert_eq!(back, range(0.0, 1000.0));
        // No deeper than the narrowest range, no wider than the stream.
        let deep = zoom_range(range(100.0, 108.0), 104.0, 1000.0, 1000);
        assert_eq!(deep, range(102.0, 106.0));
        assert_eq!(
            zoom_range(range(0.0, 1000.0), 10.0, 0.1, 1000),
            full_range(1000)
        );
    }

    #[test]
    fn panning_stops_at_the_ends() {
        assert_eq!(
            pan_range(range(100.0, 200.0), 50.0, 1000),
            range(150.0, 250.0)
        );
        assert_eq!(
            pan_range(range(100.0, 200.0), -500.0, 1000),
            range(0.0, 100.0)
        );
        assert_eq!(
            pan_range(range(100.0, 200.0), 5000.0, 1000),
            range(900.0, 1000.0)
        );
    }

    #[test]
    fn bins_are_powers_of_two_at_least_a_pixel_wide() {
        assert_eq!(bin_steps(0.01), 1);
        assert_eq!(bin_steps(1.0), 1);
        assert_eq!(bin_steps(1.2), 2);
        assert_eq!(bin_steps(300.0), 512);
        assert_eq!(bin_steps(f64::NAN), 1);
        assert_eq!(bin_of(Seq(0), 4), 0);
        assert_eq!(bin_of(Seq(4), 4), 0);
        assert_eq!(bin_of(Seq(5), 4), 1);
        assert_eq!(bin_seqs(1, 4, 100), Seq(5)..=Seq(8));
        assert_eq!(bin_seqs(24, 4, 98), Seq(97)..=Seq(98));
        assert_eq!(visible_bins(range(0.0, 100.0), 4, 98), Some(0..=24));
        assert_eq!(visible_bins(range(10.2, 20.7), 4, 98), Some(2..=5));
        assert_eq!(visible_bins(range(0.0, 1.0), 4, 0), None);
    }

    #[test]
    fn a_column_of_bins_covers_each_event_once() {
        // Whatever the zoom, the bins of the whole stream hold every event once.
        for num_events in [1u64, 7, 256, 1000, 4097] {
            for steps_per_pixel in [0.3, 1.0, 3.7, 300.0] {
                let k = bin_steps(steps_per_pixel);
                let bins = visible_bins(full_range(num_events), k, num_events).unwrap();
                let covered: u64 = bins
                    .map(|bin| {
                        let seqs = bin_seqs(bin, k, num_events);
                        seqs.end().0 + 1 - seqs.start().0
                    })
                    .sum();
                assert_eq!(
                    covered, num_events,
                    "{num_events} events, {steps_per_pixel}"
                );
            }
        }
    }

    #[test]
    fn bin_groups_merge_what_falls_in_one_bin_and_skip_the_rest() {
        let steps: Vec<Seq> = [0, 1, 2, 3, 9, 10, 17, 40, 41].map(Seq).to_vec();
        // Bins of 4 steps; bins 1 to 4 show steps 5 to 20.
        let groups = bin_groups(&steps, |s| *s, &(1..=4), 4);
        assert_eq!(groups, vec![(2, 4..6), (4, 6..7)]);
        // Step 0 joins bin 0.
        let groups = bin_groups(&steps, |s| *s, &(0..=0), 4);
        assert_eq!(groups, vec![(0, 0..4)]);
        let all = bin_groups(&steps, |s| *s, &(0..=100), 1);
        assert_eq!(all.len(), steps.len() - 1, "steps 0 and 1 share bin 0");
        assert!(bin_groups(&steps, |s| *s, &(50..=60), 4).is_empty());
    }

    #[test]
    fn ruler_labels_are_round_and_far_enough_apart() {
        assert_eq!(ruler_spacing(0.01, 90.0), 1);
        assert_eq!(ruler_spacing(0.05, 90.0), 5);
        assert_eq!(ruler_spacing(1.0, 90.0), 100);
        assert_eq!(ruler_spacing(1.2, 90.0), 200);
        assert_eq!(ruler_spacing(1000.0, 90.0), 100_000);
    }

    #[test]
    fn the_playhead_is_followed_while_playing() {
        let r = range(0.0, 100.0);
        assert_eq!(follow_playhead(r, Seq(50), 1000), r);
        assert_eq!(follow_playhead(r, Seq(150), 1000), range(140.0, 240.0));
        assert_eq!(follow_playhead(r, Seq(995), 1000), range(900.0, 1000.0));
    }

    mod panel {
        use egui_kittest::Harness;
        use egui_kittest::kittest::Queryable;

        use super::super::timeline_ui;
        use crate::diagnostic::Seq;
        use crate::ui::state::{AppState, Command, TimelineRange};

        /// The timeline alone, on the bundled demo; its commands applied
        /// each frame as the app does.
        fn harness() -> Harness<'static, AppState> {
            let mut state = AppState::default();
            let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/recordings/demo.jsonl");
            state.open_now(std::path::Path::new(demo), None);
            assert!(state.doc.is_some(), "{:?}", state.error);
            Harness::builder()
                .with_size(egui::vec2(1200.0, 320.0))
                .build_ui_state(
                    |ui, state: &mut AppState| {
                        let mut commands: Vec<Command> = Vec::new();
                        timeline_ui(ui, state, &mut commands);
                        state.apply(commands);
                    },
                    state,
                )
        }

        #[test]
        fn buttons_step_and_every_widget_is_named() {
            let mut h = harness();
            h.run();
            h.state_mut().apply(vec![Command::SetStep(Seq(3))]);
            h.run();
            h.get_by_label("Next step").click();
            h.run();
            assert_eq!(h.state().step(), Seq(4));
            h.get_by_label("Previous step").click();
            h.get_by_label("Previous step").click();
            h.run();
            assert_eq!(h.state().step(), Seq(2));
            h.get_by_label("First step").click();
            h.run();
            assert_eq!(h.state().step(), Seq(0));
            h.get_by_label("Last step").click();
            h.run();
            let last = h.state().doc.as_ref().unwrap().num_events();
            assert_eq!(h.state().step(), Seq(last));
            let previous = h
                .state()
                .diagnostic_step(false)
                .expect("the demo has diagnostics");
            h.get_by_label("Previous diagnostic").click();
            h.run();
            assert_eq!(h.state().step(), previous);
        }

        #[test]
        fn zoom_buttons_narrow_and_restore_the_range() {
            let mut h = harness();
            h.run();
            h.get_by_label("Zoom in").click();
            h.run();
            let range = h.state().timeline_range.expect("zoomed");
            let last = h.state().doc.as_ref().unwrap().num_events() as f64;
            assert!((range.last - range.first - last / 2.0).abs() < 1e-9);
            h.get_by_label("Fit").click();
            h.run();
            assert_eq!(
                h.state().timeline_range,
                Some(super::full_range(last as u64))
            );
        }

        #[test]
        fn clicking_a_lane_name_selects_the_activity() {
            let mut h = harness();
            h.run();
            h.get_by_label("search-1").click();
            h.run();
            assert_eq!(h.state().selected_activity.as_deref(), Some("search-1"));
        }

        fn wheel(delta_y: f32, modifiers: egui::Modifiers) -> egui::Event {
            egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Line,
                delta: egui::vec2(0.0, delta_y),
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Unknown,
                modifiers,
            }
        }

        #[test]
        fn ctrl_wheel_zooms_around_the_pointer_and_the_wheel_pans() {
            let mut h = harness();
            h.run();
            let plot = h.get_by_label("Timeline").rect();
            let pointer = egui::pos2(plot.left() + plot.width() * 0.25, plot.top() + 30.0);
            h.hover_at(pointer);
            h.run();
            h.event_modifiers(wheel(3.0, egui::Modifiers::CTRL), egui::Modifiers::CTRL);
            // The wheel is smoothed over a few frames.
            h.run_steps(20);
            let zoomed = h.state().timeline_range.expect("zoomed in");
            let last = h.state().doc.as_ref().unwrap().num_events() as f64;
            assert!(zoomed.last - zoomed.first < last, "{zoomed:?}");
            // The step under the pointer stays under it: a quarter in.
            let anchor = zoomed.first + (zoomed.last - zoomed.first) * 0.25;
            assert!((anchor - last * 0.25).abs() < 0.5, "{zoomed:?}");
            // Wheel down: later steps.
            h.event(wheel(-3.0, egui::Modifiers::NONE));
            h.run_steps(20);
            let panned = h.state().timeline_range.expect("range");
            assert!(panned.first > zoomed.first, "{zoomed:?} then {panned:?}");
            let span = |r: TimelineRange| r.last - r.first;
            assert!((span(panned) - span(zoomed)).abs() < 1e-9);
        }

        #[test]
        fn clicking_a_mark_selects_its_activity_and_goes_there() {
            let mut h = harness();
            h.run();
            let index = h.state().doc.as_ref().unwrap().timeline.index();
            let (seq, _) = index.lane("prices-7").expect("lane").events[0];
            let last = h.state().doc.as_ref().unwrap().num_events() as f64;
            let plot = h.get_by_label("Timeline").rect();
            let row = h.get_by_label("prices-7").rect();
            let axis = crate::ui::time_axis::TimeAxis {
                first_step: 0.0,
                last_step: last,
                left_x: plot.left() + crate::ui::theme::TIMELINE_PLOT_PADDING,
                right_x: plot.right() - crate::ui::theme::TIMELINE_PLOT_PADDING,
            };
            // A little off the mark, and off the step: the mark wins.
            let pos = egui::pos2(axis.x_from_step(seq.0 as f64) + 3.0, row.center().y);
            h.hover_at(pos);
            h.run();
            h.event(egui::Event::PointerButton {
                pos,
                button: egui::PointerButton::Primary,
                pressed: true,
                modifiers: egui::Modifiers::NONE,
            });
            h.event(egui::Event::PointerButton {
                pos,
                button: egui::PointerButton::Primary,
                pressed: false,
                modifiers: egui::Modifiers::NONE,
            });
            h.run();
            assert_eq!(h.state().selected_activity.as_deref(), Some("prices-7"));
            assert_eq!(h.state().step(), seq);
        }

        #[test]
        fn a_short_panel_and_a_one_event_stream_draw() {
            let mut h = harness();
            h.set_size(egui::vec2(600.0, 60.0));
            h.run();
            h.set_size(egui::vec2(100.0, 400.0));
            h.run();
            let path =
                std::env::temp_dir().join(format!("timeline-one-{}.jsonl", std::process::id()));
            std::fs::write(
                &path,
                r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            )
            .unwrap();
            h.state_mut().open_now(&path, None);
            std::fs::remove_file(&path).unwrap();
            h.set_size(egui::vec2(1200.0, 320.0));
            h.run();
            assert_eq!(h.state().doc.as_ref().map(|d| d.num_events()), Some(1));
        }

        #[test]
        fn clicking_the_axis_scrubs() {
            let mut h = harness();
            h.run();
            // The middle of the plot is the middle of the stream.
            h.get_by_label("Timeline").click();
            h.run();
            let last = h.state().doc.as_ref().unwrap().num_events();
            let step = h.state().step().0 as i64;
            assert!(
                (step - (last / 2) as i64).abs() <= 1,
                "step {step} of {last}"
            );
        }
    }
}
