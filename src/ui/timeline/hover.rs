//! The tooltip of the timeline's plot ([`super::timeline`]): what the
//! pointer is over, the nearest mark of a lane, a diagnostic tick, a bin of
//! the density strip, or else a step.

use crate::app_model::words::{count, thousands};
use egui::Rect;

use super::density::{Density, KindGroup};
use super::lanes::{LanesView, change_label};
use super::range::{bin_of, bin_seqs, step_at};
use super::strips::{Tick, tick_at};
use crate::app_model::document::Doc;
use crate::diagnostic::Seq;
use crate::timeline::StreamIndex;
use crate::ui::rule_text;
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// What the pointer is over, for the tooltip.
pub(super) struct Hover<'a> {
    pub(super) doc: &'a Doc,
    pub(super) axis: &'a StepAxis,
    pub(super) density: Option<&'a Density>,
    pub(super) density_rect: Rect,
    pub(super) ticks: &'a [Tick],
    pub(super) ticks_rect: Rect,
    pub(super) lanes: &'a LanesView,
    pub(super) bookmarks: &'a [crate::app_model::notes::Kept<crate::store::Bookmark>],
}

impl Hover<'_> {
    /// The tooltip for the pointer at `pos`.
    pub(super) fn ui(&self, ui: &mut egui::Ui, pos: egui::Pos2) {
        let index = self.doc.timeline.index();
        let num_events = self.doc.num_events();
        // A bookmark's flag, on the diagnostics row.
        let flag = self.bookmarks.iter().find(|b| {
            self.ticks_rect.y_range().contains(pos.y)
                && (self.axis.x_from_step(b.seq.get() as f64) - pos.x).abs() <= super::HIT_RADIUS
        });
        if let Some(bookmark) = flag {
            step_line_ui(ui, index, bookmark.seq, self.axis);
            ui.label(format!("Bookmark: {}", bookmark.label));
            ui.weak("[ and ] go from one bookmark to the next");
            return;
        }
        // Where the two profiles part (P13), just below the ticks.
        if let Some(divergence) = super::marks::divergence_at(
            self.axis,
            &self.doc.divergences,
            self.ticks_rect.center().y,
            pos,
            super::HIT_RADIUS,
        ) {
            step_line_ui(ui, index, divergence.seq, self.axis);
            ui.colored_label(
                super::marks::divergence_color(ui.visuals()),
                "The two profiles part here",
            );
            ui.label(&divergence.message);
            ui.weak("Click to go there; the inspector explains it");
            return;
        }
        if let Some((lane, mark)) = self.lanes.hit(pos) {
            let lane = &index.lanes()[lane];
            step_line_ui(ui, index, mark.seq, self.axis);
            ui.label(format!(
                "{}: {}",
                lane.message_id,
                change_label(mark.change)
            ));
            if mark.num_merged > 1 {
                let more = count(u64::from(mark.num_merged) - 1, "more event", "more events");
                ui.weak(format!("and {more} of this activity here"));
            }
            // E20 (issue 17.1): a drift here, and which of the two it is.
            if let Some(ring) = self.lanes.drift_hit(pos) {
                let what = match ring.kind {
                    crate::diagnostic::DriftKind::Repair => {
                        "a delta had failed before: the normal repair (R44, R8)"
                    }
                    crate::diagnostic::DriftKind::Unexplained => {
                        "no delta failed before: producer and consumer applied the same deltas differently"
                    }
                    crate::diagnostic::DriftKind::Unstreamed => {
                        "changed without a delta: the producer changed what no delta set"
                    }
                };
                ui.colored_label(
                    theme::drift_color(ui.visuals(), ring.kind),
                    format!("Drift at step {}: {what}", thousands(ring.seq.get())),
                );
                if ring.num_merged > 1 {
                    let more = count(u64::from(ring.num_merged) - 1, "more drift", "more drifts");
                    ui.weak(format!("and {more} of this activity here"));
                }
            }
            ui.weak("Click to select it and go there");
            return;
        }
        if let Some((entity, hit)) = self.lanes.entity_hit(index, pos) {
            let lane = &index.entities().lanes()[entity];
            step_line_ui(ui, index, hit.step(), self.axis);
            ui.label(super::lane_row::entity_summary(lane));
            match hit {
                super::lanes::EntityHit::Mark(mark) => {
                    if mark.num_merged > 1 {
                        let more =
                            count(u64::from(mark.num_merged) - 1, "more event", "more events");
                        ui.weak(format!("and {more} of it here"));
                    }
                    ui.weak("Click to go to this event");
                }
                super::lanes::EntityHit::Bar(_) => {
                    ui.weak("Click to go to this step");
                }
            }
            return;
        }
        if let Some(tick) = tick_at(self.ticks, self.ticks_rect, pos) {
            step_line_ui(ui, index, tick.step, self.axis);
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
                rule_text::rule_heading_line_ui(ui, diagnostic.code);
            }
            if end - start > 4 {
                ui.weak(format!("and {} more", thousands((end - start - 4) as u64)));
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
                ui.strong(format!(
                    "Steps {} to {}",
                    thousands(seqs.start().get()),
                    thousands(seqs.end().get())
                ));
                for group in KindGroup::ALL {
                    let count = counts[group as usize];
                    if count > 0 {
                        ui.colored_label(
                            theme::kind_group_text_color(ui.visuals(), group),
                            format!("{} {}", thousands(count as u64), group.label()),
                        );
                    }
                }
                return;
            }
        }
        step_line_ui(ui, index, step, self.axis);
    }
}

/// `Step 12 · ACTIVITY_DELTA`, and on a time axis (issue 43) its time,
/// `at 1.234 s`.
fn step_line_ui(ui: &mut egui::Ui, index: &StreamIndex, step: Seq, axis: &StepAxis) {
    let kind = match index.kind(step) {
        Some(kind) => kind.name(),
        None => "before the first event",
    };
    ui.horizontal(|ui| {
        ui.strong(format!("Step {}", thousands(step.get())));
        ui.label(kind);
        if let Some(map) = axis.time.as_deref() {
            let seconds = map.nanos_from_step(step.get() as f64) / 1e9;
            ui.weak(format!("at {seconds:.3} s"));
        }
    });
}
