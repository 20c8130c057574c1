//! One row of the timeline's lanes ([`super::lanes`]): a group's
//! header; an activity's name with its lifetime and its marks, each
//! mark's shape and colour telling what the event did; or another
//! entity's id with its bar and the marks of its events.

use crate::app_model::words::thousands;
use egui::{Align, Layout, Pos2, Rangef, Rect, RichText, Shape, Stroke, UiBuilder, pos2};

use super::lanes::{DriftMark, EntityMark, LaneGroup, LaneMark, MarkRole};
use crate::app_model::command::Command;
use crate::app_model::time_control::TimeCommand;
use crate::replay::ActivityChange;
use crate::timeline::{ActivityLane, EntityKind, EntityLane};
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// Indent of a lane's name under its group's.
const LANE_INDENT: f32 = 12.0;

/// Lays out one widget at the left of a rect, vertically centred.
fn left_aligned_ui<R>(ui: &mut egui::Ui, rect: Rect, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    ui.scope_builder(
        UiBuilder::new()
            .max_rect(rect)
            .layout(Layout::left_to_right(Align::Center)),
        add,
    )
    .inner
}

/// A group's header: its name with a triangle that collapses or shows its
/// lanes, and a line across the plot. Returns whether it was clicked.
pub(super) fn group_row_ui(
    ui: &mut egui::Ui,
    rect: Rect,
    plot_x: Rangef,
    group: &LaneGroup,
    num_lanes: usize,
    collapsed: bool,
) -> bool {
    let label_rect = Rect::from_x_y_ranges(rect.left()..=plot_x.min - 4.0, rect.y_range());
    let name = group.label();
    let response = left_aligned_ui(ui, label_rect, |ui| {
        ui.spacing_mut().button_padding.y = 0.0;
        ui.spacing_mut().interact_size.y = rect.height();
        // Room for the triangle, painted: the fonts have no such glyph.
        ui.add_space(14.0);
        ui.add(
            egui::Button::new(RichText::new(name).strong())
                .frame(false)
                .truncate(),
        )
    });
    let color = ui.visuals().text_color();
    let center = pos2(response.rect.left() - 7.0, response.rect.center().y);
    let points = if collapsed {
        vec![
            center + egui::vec2(-2.5, -4.0),
            center + egui::vec2(3.5, 0.0),
            center + egui::vec2(-2.5, 4.0),
        ]
    } else {
        vec![
            center + egui::vec2(-4.0, -2.5),
            center + egui::vec2(4.0, -2.5),
            center + egui::vec2(0.0, 3.5),
        ]
    };
    ui.painter()
        .add(Shape::convex_polygon(points, color, Stroke::NONE));
    let what = match group {
        LaneGroup::Entities(kind) => format!(
            "{name}: {} ({} each)",
            thousands(num_lanes as u64),
            kind.id_name()
        ),
        LaneGroup::Type(_) => format!(
            "activityType {name}: {} activities",
            thousands(num_lanes as u64)
        ),
        LaneGroup::NeverCreated => format!(
            "{num_lanes} ids that events named but no snapshot created as an activity (deltas to unknown ids, R12)"
        ),
    };
    let action = if collapsed {
        "Click to show them"
    } else {
        "Click to collapse"
    };
    let clicked = response
        .on_hover_text(format!("{what}\n{action}"))
        .clicked();
    let color = ui.visuals().weak_text_color().gamma_multiply(0.3);
    ui.painter()
        .hline(plot_x, rect.center().y, Stroke::new(1.0, color));
    clicked
}

/// One activity's row: its name on the left, its marks on the right.
pub(super) struct LaneRow<'a> {
    pub(super) rect: Rect,
    pub(super) plot_x: Rangef,
    pub(super) axis: &'a StepAxis,
    pub(super) activity: &'a ActivityLane,
    pub(super) striped: bool,
    pub(super) selected: bool,
    /// Whether the current event is the activity's.
    pub(super) current: bool,
    /// The activity's drifts (E20) in view, merged per bin: a ring around
    /// each.
    pub(super) drifts: &'a [DriftMark],
}

impl LaneRow<'_> {
    /// Draws the row's background and name; a click on the name selects
    /// the activity. Its plot is [`Self::plot_layers`] and
    /// [`Self::dot_shapes`].
    pub(super) fn ui(&self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        let visuals = ui.visuals().clone();
        let rect = self.rect;
        if self.selected {
            ui.painter()
                .rect_filled(rect, 0.0, visuals.selection.bg_fill.gamma_multiply(0.35));
        } else if self.striped {
            ui.painter().rect_filled(rect, 0.0, visuals.faint_bg_color);
        }
        if self.current {
            paint_current(ui, rect);
        }
        let label_rect = Rect::from_x_y_ranges(
            rect.left() + LANE_INDENT..=self.plot_x.min - 4.0,
            rect.y_range(),
        );
        let id = &self.activity.message_id;
        // Issue 39: a lone UTF-16 surrogate in the id shows as such.
        let shown = crate::surrogate::display(id);
        let response = left_aligned_ui(ui, label_rect, |ui| {
            ui.spacing_mut().button_padding.y = 0.0;
            ui.spacing_mut().interact_size.y = rect.height();
            let text = RichText::new(shown.as_ref()).monospace().size(11.0);
            ui.add(egui::Button::selectable(self.selected, text).truncate())
        });
        let response = response.on_hover_text(format!(
            "{shown}\nactivityType {} · {} events\nClick to select",
            crate::surrogate::display(&self.activity.activity_type),
            self.activity.events.len()
        ));
        if response.clicked() && !self.selected {
            commands.push(Command::SelectActivity(Some(id.clone())));
        }
    }

    /// The row's plot but its dots, in two layers kept tessellated between
    /// frames by the caller: the activity's lifetime and its marks, then its
    /// drift rings. The dots go between them ([`Self::dot_shapes`]).
    pub(super) fn plot_layers(
        &self,
        visuals: &egui::Visuals,
        marks: &[LaneMark],
    ) -> Vec<Vec<Shape>> {
        let rect = self.rect;
        let plot = Rect::from_x_y_ranges(self.plot_x, rect.y_range());
        let y = rect.center().y;
        let mut under = Vec::new();
        // Its lifetime: from its first event to its last.
        if let (Some(first), Some(last)) =
            (self.activity.events.first(), self.activity.events.last())
        {
            let x0 = self
                .axis
                .x_from_step(first.seq().get() as f64)
                .max(plot.left());
            let x1 = self
                .axis
                .x_from_step(last.seq().get() as f64)
                .min(plot.right());
            if x0 <= x1 {
                let color = visuals.weak_text_color().gamma_multiply(0.35);
                under.push(Shape::hline(x0..=x1, y, Stroke::new(1.0, color)));
            }
        }
        for mark in marks {
            let x = self.axis.x_from_step(mark.seq.get() as f64);
            mark_shapes(&mut under, visuals, pos2(x, y), mark.change);
        }
        // E20 (issue 17.1): where a snapshot found the consumer's copy
        // drifted, a ring around its mark.
        let rings = self
            .drifts
            .iter()
            .map(|ring| {
                let x = self.axis.x_from_step(ring.seq.get() as f64);
                let stroke = Stroke::new(1.6, theme::drift_color(visuals, ring.kind));
                Shape::circle_stroke(pos2(x, y), theme::LANE_HEIGHT * 0.42, stroke)
            })
            .collect();
        vec![under, rings]
    }

    /// The marks drawn as filled circles (deltas applied, events not
    /// applied), which egui draws cheaply itself.
    pub(super) fn dot_shapes(&self, visuals: &egui::Visuals, marks: &[LaneMark]) -> Vec<Shape> {
        let y = self.rect.center().y;
        marks
            .iter()
            .filter_map(|mark| {
                let x = self.axis.x_from_step(mark.seq.get() as f64);
                dot_shape(visuals, pos2(x, y), mark.change)
            })
            .collect()
    }
}

/// The mark of the lane holding the current event (issue 43): a bar at
/// its left edge and a frame in the selection's colour.
fn paint_current(ui: &egui::Ui, rect: Rect) {
    let stroke = ui.visuals().selection.stroke;
    let color = ui.visuals().selection.bg_fill;
    let edge = Rect::from_x_y_ranges(rect.left()..=rect.left() + 3.0, rect.y_range());
    ui.painter().rect_filled(edge, 0.0, color);
    ui.painter().rect_stroke(
        rect.shrink(0.5),
        0.0,
        Stroke::new(1.0, stroke.color.gamma_multiply(0.6)),
        egui::StrokeKind::Inside,
    );
}

/// One entity's row (a run, a step, a message, a tool call…): its id
/// and name on the left, its bar and marks on the right.
pub(super) struct EntityRow<'a> {
    pub(super) rect: Rect,
    pub(super) plot_x: Rangef,
    pub(super) axis: &'a StepAxis,
    pub(super) lane: &'a EntityLane,
    pub(super) striped: bool,
    /// Whether the current event is the entity's.
    pub(super) current: bool,
}

impl EntityRow<'_> {
    /// Draws the row's background and label; a click on the label goes to
    /// the entity's first event.
    pub(super) fn ui(&self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        let rect = self.rect;
        if self.striped {
            ui.painter()
                .rect_filled(rect, 0.0, ui.visuals().faint_bg_color);
        }
        if self.current {
            paint_current(ui, rect);
        }
        let label_rect = Rect::from_x_y_ranges(
            rect.left() + LANE_INDENT..=self.plot_x.min - 4.0,
            rect.y_range(),
        );
        let lane = self.lane;
        let id = crate::surrogate::display(&lane.id);
        let response = left_aligned_ui(ui, label_rect, |ui| {
            ui.spacing_mut().button_padding.y = 0.0;
            ui.spacing_mut().interact_size.y = rect.height();
            let text = RichText::new(id.as_ref()).monospace().size(11.0);
            let response = ui.add(egui::Button::selectable(self.current, text).truncate());
            // A tool call's tool, a subagent's name, beside the id.
            if !lane.name.is_empty() && lane.kind != EntityKind::Run {
                let name = crate::surrogate::display(&lane.name);
                let name = RichText::new(name.as_ref()).monospace().size(11.0).weak();
                ui.add(egui::Label::new(name).truncate().selectable(false));
            }
            response
        });
        let response = response.on_hover_text(format!(
            "{}\nClick to go to its first event",
            entity_summary(lane)
        ));
        if response.clicked() {
            commands.push(Command::Time(TimeCommand::Set(lane.first())));
        }
    }

    /// The bar from the entity's first event to its last, and the marks of
    /// its events (merged per bin).
    pub(super) fn plot_shapes(&self, visuals: &egui::Visuals, marks: &[EntityMark]) -> Vec<Shape> {
        let lane = self.lane;
        let y = self.rect.center().y;
        let color = theme::entity_color(visuals, lane.kind, lane.failed);
        let x0 = self.axis.x_from_step(lane.first().get() as f64);
        let x1 = self.axis.x_from_step(lane.last().get() as f64);
        let half = theme::LANE_HEIGHT * 0.2;
        let mut shapes = Vec::with_capacity(marks.len() + 1);
        // Clamped to the plot: a bar from far outside the view is drawn
        // across it, not over thousands of points.
        let bar_x0 = x0.max(self.plot_x.min - 10.0);
        let bar_x1 = x1.min(self.plot_x.max + 10.0).max(bar_x0);
        let bar = Rect::from_x_y_ranges(bar_x0..=bar_x1, y - half..=y + half);
        // An entity not ended has a fainter bar.
        let fill = if lane.ended {
            color.gamma_multiply(0.45)
        } else {
            color.gamma_multiply(0.25)
        };
        shapes.push(Shape::rect_filled(
            bar.expand2(egui::vec2(1.0, 0.0)),
            2.0,
            fill,
        ));
        for mark in marks {
            let x = self.axis.x_from_step(mark.seq.get() as f64);
            match mark.role {
                MarkRole::Part => shapes.push(Shape::vline(
                    x,
                    y - half * 0.6..=y + half * 0.6,
                    Stroke::new(1.0, color.gamma_multiply(0.9)),
                )),
                MarkRole::Start | MarkRole::End => shapes.push(Shape::vline(
                    x,
                    y - half - 2.0..=y + half + 2.0,
                    Stroke::new(2.0, visuals.text_color()),
                )),
                MarkRole::Error => {
                    let error = theme::entity_color(visuals, lane.kind, true);
                    let big = half + 2.5;
                    let triangle = vec![
                        pos2(x, y - big),
                        pos2(x + big, y + big * 0.8),
                        pos2(x - big, y + big * 0.8),
                    ];
                    shapes.push(Shape::convex_polygon(triangle, error, Stroke::NONE));
                }
            }
        }
        shapes
    }
}

/// What an entity is, for its tooltips: its kind and id, its name, its
/// steps and number of events.
pub(super) fn entity_summary(lane: &EntityLane) -> String {
    let id = crate::surrogate::display(&lane.id);
    let mut text = format!("{} {id}", lane.kind.id_name());
    if !lane.name.is_empty() {
        let name = crate::surrogate::display(&lane.name);
        let what = match lane.kind {
            EntityKind::Run => "parentRunId",
            EntityKind::ToolCall => "tool",
            _ => "name",
        };
        text.push_str(&format!("\n{what} {name}"));
    }
    let (first, last) = (lane.first().get(), lane.last().get());
    let steps = if first == last {
        format!("step {}", thousands(first))
    } else {
        format!("steps {} to {}", thousands(first), thousands(last))
    };
    let events = crate::app_model::words::count(lane.num_events() as u64, "event", "events");
    text.push_str(&format!("\n{steps} · {events}"));
    if lane.failed {
        text.push_str(" · failed (RUN_ERROR)");
    } else if !lane.ended {
        text.push_str(" · not ended");
    }
    text
}

/// The filled circle of a mark that is one.
fn dot_shape(visuals: &egui::Visuals, center: Pos2, change: ActivityChange) -> Option<Shape> {
    let color = theme::change_color(visuals, change);
    let half = theme::LANE_HEIGHT * 0.22;
    match change {
        ActivityChange::DeltaApplied => Some(Shape::circle_filled(center, half * 0.6, color)),
        ActivityChange::NotApplied => Some(Shape::circle_filled(
            center,
            half * 0.5,
            color.gamma_multiply(0.8),
        )),
        _ => None,
    }
}

/// A mark that is not a dot ([`dot_shape`]): its shape and colour tell
/// the change.
fn mark_shapes(
    shapes: &mut Vec<Shape>,
    visuals: &egui::Visuals,
    center: Pos2,
    change: ActivityChange,
) {
    let color = theme::change_color(visuals, change);
    let half = theme::LANE_HEIGHT * 0.22;
    let square = Rect::from_center_size(center, egui::Vec2::splat(2.0 * half));
    let outline = Stroke::new(1.3, color);
    match change {
        ActivityChange::Created | ActivityChange::Replaced => {
            shapes.push(Shape::rect_filled(square, 1.0, color));
        }
        ActivityChange::DeltaApplied | ActivityChange::NotApplied => {}
        ActivityChange::Retyped => {
            let diamond = vec![
                center + egui::vec2(0.0, -half - 1.0),
                center + egui::vec2(half + 1.0, 0.0),
                center + egui::vec2(0.0, half + 1.0),
                center + egui::vec2(-half - 1.0, 0.0),
            ];
            shapes.push(Shape::convex_polygon(diamond, color, Stroke::NONE));
        }
        ActivityChange::Declined | ActivityChange::SnapshotSkipped => {
            shapes.push(Shape::rect_stroke(
                square.shrink(0.5),
                1.0,
                outline,
                egui::StrokeKind::Middle,
            ));
        }
        ActivityChange::DeltaSkipped => {
            shapes.push(Shape::circle_stroke(center, half, outline));
        }
        ActivityChange::PatchFailed => {
            let stroke = Stroke::new(2.0, color);
            shapes.push(Shape::line_segment(
                [square.left_top(), square.right_bottom()],
                stroke,
            ));
            shapes.push(Shape::line_segment(
                [square.left_bottom(), square.right_top()],
                stroke,
            ));
        }
        ActivityChange::Fatal => {
            let big = half + 1.5;
            let triangle = vec![
                center + egui::vec2(0.0, -big),
                center + egui::vec2(big, big * 0.8),
                center + egui::vec2(-big, big * 0.8),
            ];
            shapes.push(Shape::convex_polygon(triangle, color, Stroke::NONE));
        }
    }
}
