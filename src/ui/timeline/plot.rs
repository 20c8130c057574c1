//! The plot of the timeline ([`super::timeline`]): the ruler, the density,
//! the diagnostics and the lanes on one axis of steps, with the playhead and
//! the marks over them. Click or drag to scrub; Ctrl + wheel zooms around
//! the pointer; the wheel, Shift + drag or a middle drag pans.

use crate::app_model::time_axis::TimeMap;
use crate::app_model::time_control::TimeCommand;
use std::ops::RangeInclusive;
use std::sync::Arc;

use egui::{PointerButton, Rangef, Rect, Sense, Shape, Stroke};

use super::density::{self, paint_density};
use super::hover::Hover;
use super::lanes::{content_height, lanes_ui};
use super::marks;
use super::range::{bin_steps, follow_playhead, pan_range, step_at, visible_bins, zoom_range};
use super::schema_marks;
use super::strips::{paint_ruler, paint_ticks, strip_labels_ui, tick_at};
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::state::{AppState, TimelineRange};
use crate::diagnostic::Seq;
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// The ruler, the density, the diagnostics and the lanes, with the
/// playhead over them; scrubbing, zooming and panning.
pub(super) fn plot_ui(
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
    let in_time = state.timeline_in_time();
    let axis = StepAxis {
        first_step: range.first,
        last_step: range.last,
        left_x: plot_x.min + theme::TIMELINE_PLOT_PADDING,
        right_x: plot_x.max - theme::TIMELINE_PLOT_PADDING,
        time: in_time.then(|| time_map(ui, doc, state.generation())),
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
            new_range = zoom_in_time(&axis, pos.x, f64::from(zoom), num_events)
                .unwrap_or_else(|| zoom_range(new_range, anchor, f64::from(zoom), num_events));
        }
        let lanes_scroll = lanes_rect.contains(pos)
            && content_height(ui, doc, state.generation()) > lanes_rect.height();
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

    strip_labels_ui(ui, rect, ruler, density_rect, ticks_rect, in_time);
    let painter = ui.painter_at(plot_rect);
    let k = bin_steps(axis.steps_per_pixel());
    let bins = visible_bins(range, k, num_events);
    paint_ruler(ui, &painter, &axis, ruler);
    let density = bins
        .as_ref()
        .map(|bins| density::density(ui, doc, state.generation(), k, bins));
    if let Some(density) = &density {
        paint_density(&painter, &axis, density_rect, density, num_events);
    }
    let ticks = match &bins {
        Some(bins) => paint_ticks(
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
    // Issue 42: the state's schema findings, over the Diagnostics row (the
    // state has no lane).
    schema_marks::paint_schema_marks(&painter, ui.visuals(), &axis, ticks_rect, doc, None);
    ui.advance_cursor_after_rect(strips);

    let lanes = lanes_ui(
        ui,
        state,
        doc,
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
    response.widget_info(|| egui::WidgetInfo::slider(true, playhead.get() as f64, "Timeline"));
    let (shift, primary_down) = ui.input(|i| (i.modifiers.shift, i.pointer.primary_down()));
    if response.dragged_by(PointerButton::Middle)
        || (response.dragged_by(PointerButton::Primary) && shift)
    {
        let delta = -f64::from(response.drag_delta().x) * axis.steps_per_pixel();
        new_range = pan_range(new_range, delta, num_events);
    } else if ((response.is_pointer_button_down_on() && primary_down)
        // Issue 43: the last move and the release in one frame (frames
        // slower than the pointer) end the scrub where it was let go.
        || response.drag_stopped_by(PointerButton::Primary))
        && !shift
        && let Some(pos) = response.interact_pointer_pos()
    {
        let step = step_at(&axis, pos.x, num_events);
        if step != playhead {
            commands.push(Command::Time(TimeCommand::Set(step)));
            playhead = step;
        }
    }
    let dragging = marks::drag_range(ui, &response, |x| step_at(&axis, x, num_events), commands);
    // Where a click goes: a mark's step, or else the step under it (issue
    // 43: a tap sends its press and its release in one frame, so the
    // button is no longer down when the scrub above looks).
    let clicked_step = response
        .clicked()
        .then(|| response.interact_pointer_pos())
        .flatten()
        .and_then(|pos| {
            if let Some(finding) = schema_marks::finding_at(ui.ctx(), doc, pos) {
                let (step, activity) = schema_marks::go_to(finding);
                if activity.is_some() {
                    commands.push(Command::SelectActivity(activity));
                }
                Some(step)
            } else if let Some((lane, mark)) = lanes.hit(pos) {
                let id = doc.timeline.index().lanes()[lane].message_id.clone();
                commands.push(Command::SelectActivity(Some(id)));
                Some(mark.seq)
            } else if let Some((_, hit)) = lanes.entity_hit(doc.timeline.index(), pos) {
                // Issue 43: a click on an entity's mark goes to its event,
                // on its bar to the step under the pointer.
                Some(hit.step())
            } else if let Some(tick) = tick_at(&ticks, ticks_rect, pos) {
                Some(tick.step)
            } else if let Some(divergence) = marks::divergence_at(
                &axis,
                &doc.divergences,
                ticks_rect.center().y,
                pos,
                super::HIT_RADIUS,
            ) {
                Some(divergence.seq)
            } else {
                Some(step_at(&axis, pos.x, num_events)).filter(|&step| !shift && step != playhead)
            }
        });
    if let Some(step) = clicked_step {
        commands.push(Command::Time(TimeCommand::Set(step)));
        playhead = step;
    }
    // Issue 41: a right-click on a mark (or a step) asks "what if…".
    let menu_step = ui.make_persistent_id("timeline_whatif_step");
    if response.secondary_clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        let step = match lanes.hit(pos) {
            Some((_, mark)) => mark.seq,
            None => step_at(&axis, pos.x, num_events),
        };
        ui.data_mut(|d| d.insert_temp(menu_step, step));
    }
    response.context_menu(|ui| {
        let step = ui.data(|d| d.get_temp(menu_step)).unwrap_or(playhead);
        crate::ui::whatif::event_menu_ui(ui, step, commands);
    });
    if state.time().is_playing() && new_range == range {
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
    let rows = marks::MarkRows {
        lines: rect.top()..=bottom,
        letters_y: density_rect.top() + 1.0,
        flags_y: ticks_rect.center().y,
    };
    if let (Some(list), Some(bins)) = (state.search().list(), &bins) {
        marks::paint_matches(ui, &painter, &axis, list.matches(), bins, k, density_rect);
    }
    marks::paint_marks(ui, &painter, &axis, state, dragging, &rows);
    marks::paint_divergences(ui, &painter, &axis, &doc.divergences, &rows);
    paint_playhead(ui, &painter, &axis, playhead, rect.top()..=bottom);
    ui.data_mut(|d| {
        d.insert_temp(
            painted_playhead_id(),
            PaintedPlayhead {
                step: playhead,
                plot: plot_rect,
                axis: axis.clone(),
                num_events,
            },
        );
    });

    if !response.dragged() {
        response.on_hover_ui_at_pointer(|ui| {
            let Some(pos) = ui.ctx().pointer_hover_pos() else {
                return;
            };
            if let Some(finding) = schema_marks::finding_at(ui.ctx(), doc, pos) {
                schema_marks::finding_ui(ui, finding);
                return;
            }
            let hover = Hover {
                doc,
                axis: &axis,
                density: density.as_deref(),
                density_rect,
                ticks: &ticks,
                ticks_rect,
                lanes: &lanes,
                bookmarks: state.annotations().bookmarks(),
            };
            hover.ui(ui, pos);
        });
    }
}

/// Where the plot painted its playhead in the last frame, and on which
/// axis: `bench ui` and the tests compare it with the step under the
/// pointer (issue 43: the playhead under the pointer while scrubbing).
#[derive(Clone, Debug)]
pub struct PaintedPlayhead {
    /// The step the playhead was painted at.
    pub step: Seq,
    /// The plot's rectangle (where a drag scrubs).
    pub plot: Rect,
    /// The axis it was painted on.
    pub axis: StepAxis,
    /// The stream's events then.
    pub num_events: u64,
}

impl PaintedPlayhead {
    /// The step a press or a drag at `x` goes to.
    pub fn step_at(&self, x: f32) -> Seq {
        step_at(&self.axis, x, self.num_events)
    }

    /// The x the playhead was painted at.
    pub fn x(&self) -> f32 {
        self.axis.x_from_step(self.step.get() as f64)
    }
}

fn painted_playhead_id() -> egui::Id {
    egui::Id::unique("timeline_painted_playhead")
}

/// Where the timeline painted its playhead in the last frame (none before
/// it showed a stream).
pub fn painted_playhead(ctx: &egui::Context) -> Option<PaintedPlayhead> {
    ctx.data(|d| d.get_temp(painted_playhead_id()))
}

/// Zooms a time axis by `factor` (above 1: in) keeping the time under `x`
/// where it is (issue 43); none on an axis of steps, which
/// [`zoom_range`] zooms around the step under the pointer.
fn zoom_in_time(axis: &StepAxis, x: f32, factor: f64, num_events: u64) -> Option<TimelineRange> {
    let (t0, t1) = axis.nanos_range()?;
    let map = axis.time.as_deref()?;
    let width = f64::from((axis.right_x - axis.left_x).max(1.0));
    let fraction = (f64::from(x - axis.left_x) / width).clamp(0.0, 1.0);
    let anchor = t0 + fraction * (t1 - t0);
    let span = (t1 - t0) / factor.max(f64::EPSILON);
    let range = TimelineRange {
        first: map.step_from_nanos(anchor - fraction * span),
        last: map.step_from_nanos(anchor + (1.0 - fraction) * span),
    };
    Some(super::range::clamp_range(range, num_events))
}

/// The steps' recorded times (issue 43), kept between frames while the
/// document and its number of events stay the same (a live recording's
/// grow).
fn time_map(ui: &egui::Ui, doc: &Doc, generation: u64) -> Arc<TimeMap> {
    let id = egui::Id::unique("timeline_time_map");
    let key = (generation, doc.arrival_nanos.len());
    type Kept = Option<((u64, usize), Arc<TimeMap>)>;
    ui.data_mut(|d| {
        let kept = d.get_temp_mut_or_default::<Kept>(id);
        match kept {
            Some((for_key, map)) if *for_key == key => Arc::clone(map),
            _ => {
                let map = Arc::new(TimeMap::from_arrivals(&doc.arrival_nanos));
                *kept = Some((key, Arc::clone(&map)));
                map
            }
        }
    })
}

/// The playhead: a line across every row, with a handle on the ruler.
fn paint_playhead(
    ui: &egui::Ui,
    painter: &egui::Painter,
    axis: &StepAxis,
    step: Seq,
    y: RangeInclusive<f32>,
) {
    let x = axis.x_from_step(step.get() as f64);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_axis_zooms_around_the_time_under_the_pointer() {
        // 1,000 steps a millisecond apart, then one 10 s later: the
        // pointer a twentieth in, at 0.55 s, among the first.
        let mut arrivals: Vec<u64> = (0..1000).map(|i| i * 1_000_000).collect();
        arrivals.push(10_999_000_000);
        let map = Arc::new(TimeMap::from_arrivals(&arrivals));
        let axis = StepAxis {
            first_step: 0.0,
            last_step: 1001.0,
            left_x: 0.0,
            right_x: 1000.0,
            time: Some(Arc::clone(&map)),
        };
        let x = 50.0;
        let before = map.nanos_from_step(axis.step_from_x(x));
        let zoomed = zoom_in_time(&axis, x, 4.0, 1001).expect("a time axis");
        let after = StepAxis {
            first_step: zoomed.first,
            last_step: zoomed.last,
            ..axis.clone()
        };
        let (t0, t1) = after.nanos_range().expect("times");
        assert!((t1 - t0 - 10_999e6 / 4.0).abs() < 1e6, "{t0} to {t1}");
        let still = map.nanos_from_step(after.step_from_x(x));
        assert!((still - before).abs() < 1e6, "{before} then {still}");
        // On an axis of steps, the step zoom does it.
        let steps = StepAxis { time: None, ..axis };
        assert_eq!(zoom_in_time(&steps, x, 4.0, 1001), None);
    }
}
