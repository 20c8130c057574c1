//! The splitter above the timeline (issue 43): egui draws a panel's
//! resizable edge as a hairline grabbed within 3 points of it, which one
//! hunts for. This widens the zone that grabs it and paints a grip on it.

use egui::{CursorIcon, Rangef, Stroke};

/// How far from the splitter's line the pointer grabs it, in points, on
/// each side: a zone 12 points tall.
pub const GRAB_RADIUS: f32 = 6.0;

/// The grip's two lines: their length and how far each is from the
/// splitter's line, in points.
const GRIP_LENGTH: f32 = 28.0;
const GRIP_GAP: f32 = 2.0;

/// Where a splitter's grip goes, and whether the pointer is on it.
#[derive(Clone, Copy, Debug)]
pub struct Grip {
    /// The splitter's line.
    y: f32,
    /// Across what it runs.
    x: Rangef,
    /// Hovered or dragged: drawn stronger.
    active: bool,
}

impl Grip {
    /// Paints the grip: two short lines centred on the splitter, in the
    /// weak text colour, or the text colour while hovered or dragged.
    ///
    /// Call it after the panels on both sides of the splitter are drawn:
    /// each panel's fill would cover its half.
    pub fn paint(self, ui: &egui::Ui) {
        let visuals = ui.visuals();
        let color = if self.active {
            visuals.strong_text_color()
        } else {
            visuals.weak_text_color()
        };
        let centre = self.x.center();
        let half = GRIP_LENGTH / 2.0;
        for dy in [-GRIP_GAP, GRIP_GAP] {
            ui.painter().hline(
                centre - half..=centre + half,
                self.y + dy,
                Stroke::new(1.5, color),
            );
        }
    }
}

/// Shows `panel`, a resizable bottom panel, grabbed within
/// [`GRAB_RADIUS`] of its top edge (egui shows the resize cursor there).
/// Returns its contents' result and where to paint its grip.
pub fn bottom_panel_ui<R>(
    ui: &mut egui::Ui,
    panel: egui::Panel,
    add_contents: impl FnOnce(&mut egui::Ui) -> R,
) -> (R, Grip) {
    let radius = ui.style().interaction.resize_grab_radius_side;
    // egui reads it from the panel's parent when it makes the resize zone,
    // after the contents: the contents keep the usual one.
    ui.style_mut().interaction.resize_grab_radius_side = GRAB_RADIUS;
    let response = panel.show(ui, |ui| {
        ui.style_mut().interaction.resize_grab_radius_side = radius;
        add_contents(ui)
    });
    ui.style_mut().interaction.resize_grab_radius_side = radius;
    // egui sets the resize cursor while the edge is hovered or dragged,
    // and the panels drawn before this one set none.
    let active = ui.ctx().output(|o| {
        matches!(
            o.cursor_icon,
            CursorIcon::ResizeVertical | CursorIcon::ResizeNorth | CursorIcon::ResizeSouth
        )
    });
    let rect = response.response.rect;
    let grip = Grip {
        y: rect.top(),
        x: rect.x_range(),
        active,
    };
    (response.inner, grip)
}
