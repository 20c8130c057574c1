//! The marks of the schema findings (issue 42, rule S1) on the timeline: a
//! small square where a content broke its schema, over its activity's lane,
//! and for the state, which has no lane, over the Diagnostics row. Hovering
//! one shows the finding (its path, the keyword and what the schema
//! expected); a click goes to its step.
//!
//! The squares drawn in a frame are kept in the context's memory for that
//! frame, so that the plot's one pointer answers them before the lanes and
//! the ticks under them.

use egui::{Painter, Rect, Visuals};

use crate::app_model::document::Doc;
use crate::app_model::schemas::{content_pointer, expectation};
use crate::diagnostic::{Diagnostic, Seq};
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// The squares drawn in one frame: each with the position of its finding
/// in [`Doc::schema_findings`].
#[derive(Clone, Default)]
struct Drawn {
    pass: u64,
    squares: Vec<(Rect, usize)>,
}

fn drawn_id() -> egui::Id {
    egui::Id::unique("timeline_schema_marks")
}

/// Half the side of a square.
fn half_side() -> f32 {
    theme::LANE_HEIGHT * 0.16
}

/// Draws a square at the top of `rect` for each finding about message `id`
/// (`None`: about the state), one per pixel column.
pub(super) fn paint_schema_marks(
    painter: &Painter,
    visuals: &Visuals,
    axis: &StepAxis,
    rect: Rect,
    doc: &Doc,
    id: Option<&str>,
) {
    let color = theme::schema_color(visuals);
    let half = half_side();
    let y = rect.top() + half + 1.0;
    let mut last_x = f32::NEG_INFINITY;
    let mut squares = Vec::new();
    for (index, finding) in doc.schema_findings.iter().enumerate() {
        if finding.message_id.as_deref() != id {
            continue;
        }
        let x = axis.x_from_step(finding.seq.get() as f64);
        if x - last_x < 1.0 || !rect.x_range().contains(x) {
            continue;
        }
        last_x = x;
        let square = Rect::from_center_size(egui::pos2(x, y), egui::vec2(half * 2.0, half * 2.0));
        painter.rect_filled(square, 0.0, color);
        squares.push((square, index));
    }
    remember(painter.ctx(), squares);
}

/// Adds `squares` to those of this frame.
fn remember(ctx: &egui::Context, squares: Vec<(Rect, usize)>) {
    let pass = ctx.cumulative_pass_nr();
    ctx.data_mut(|d| {
        let drawn = d.get_temp_mut_or_default::<Drawn>(drawn_id());
        if drawn.pass != pass {
            *drawn = Drawn {
                pass,
                squares: Vec::new(),
            };
        }
        drawn.squares.extend(squares);
    });
}

/// The finding whose square, drawn this frame, is nearest `pos` within
/// the hit radius.
pub(super) fn finding_at<'d>(
    ctx: &egui::Context,
    doc: &'d Doc,
    pos: egui::Pos2,
) -> Option<&'d Diagnostic> {
    let pass = ctx.cumulative_pass_nr();
    let index = ctx.data(|d| {
        let drawn = d.get_temp::<Drawn>(drawn_id())?;
        (drawn.pass == pass)
            .then(|| {
                drawn
                    .squares
                    .iter()
                    .filter(|(square, _)| {
                        square.expand(super::HIT_RADIUS - half_side()).contains(pos)
                    })
                    .min_by(|(a, _), (b, _)| {
                        let distance = |r: &Rect| (r.center() - pos).length();
                        distance(a).total_cmp(&distance(b))
                    })
                    .map(|&(_, index)| index)
            })
            .flatten()
    })?;
    doc.schema_findings.get(index)
}

/// The tooltip of a finding: what broke where, and what was expected.
pub(super) fn finding_ui(ui: &mut egui::Ui, finding: &Diagnostic) {
    ui.label(format!("Step {}", finding.seq));
    let whose = match &finding.message_id {
        Some(id) => format!("{id}'s content breaks its schema"),
        None => "The state breaks its schema".to_owned(),
    };
    ui.colored_label(theme::schema_color(ui.visuals()), whose);
    if let Some(pointer) = content_pointer(finding) {
        let at = if pointer.is_empty() { "/" } else { pointer };
        ui.label(egui::RichText::new(format!("at {at}")).monospace());
    }
    ui.label(expectation(finding));
    ui.weak(format!(
        "{} · click to go to step {}",
        finding.code, finding.seq
    ));
}

/// The step a click on a finding goes to, and the activity it selects.
pub(super) fn go_to(finding: &Diagnostic) -> (Seq, Option<String>) {
    (finding.seq, finding.message_id.clone())
}
