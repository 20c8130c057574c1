//! How the window is shared (issue 13, point 5): the event list, the
//! conversation and the inspector take shares of the width, not fixed
//! widths, so a small window still gives each a readable column and a wide
//! one gives the room to all; each side panel and the timeline can be
//! hidden from the View menu, and "Reset layout" brings back the defaults.
//!
//! egui remembers a panel's width under its id. A panel dragged wider
//! keeps its share: its width is read back every frame. When the window's
//! width changes, the panels take new ids (a new `generation`), so they
//! open again at their share of the new width.

use egui::Ui;

use super::theme::{EVENTS_SHARE, INSPECTOR_SHARE};
pub use super::theme::{MIN_CENTRAL_WIDTH, MIN_EVENTS_WIDTH, MIN_INSPECTOR_WIDTH};

/// Which panels show and how wide.
#[derive(Clone, Debug)]
pub struct PanelLayout {
    /// The event list shows.
    pub show_events: bool,
    /// The inspector (and its tabs) shows.
    pub show_inspector: bool,
    /// The timeline shows.
    pub show_timeline: bool,
    events_share: f32,
    inspector_share: f32,
    generation: u64,
    window_width: f32,
    widths: PanelWidths,
}

/// The widths the panels took in the last frame (tests, and the shares).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PanelWidths {
    /// The event list, if it showed.
    pub events: Option<f32>,
    /// The inspector, if it showed.
    pub inspector: Option<f32>,
    /// The conversation (or the diff).
    pub central: f32,
}

impl Default for PanelLayout {
    fn default() -> Self {
        Self {
            show_events: true,
            show_inspector: true,
            show_timeline: true,
            events_share: EVENTS_SHARE,
            inspector_share: INSPECTOR_SHARE,
            generation: 0,
            window_width: 0.0,
            widths: PanelWidths::default(),
        }
    }
}

/// A side panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The event list, on the left.
    Events,
    /// The inspector, on the right.
    Inspector,
}

impl PanelLayout {
    /// Every panel shown at its default share.
    pub fn reset(&mut self) {
        let generation = self.generation + 1;
        *self = Self {
            generation,
            ..Self::default()
        };
    }

    /// The widths of the last frame.
    pub fn widths(&self) -> PanelWidths {
        self.widths
    }

    /// Starts a frame in a window `width` wide.
    pub fn begin(&mut self, width: f32) {
        if (width - self.window_width).abs() > 0.5 {
            self.window_width = width;
            self.generation += 1;
        }
        self.widths = PanelWidths::default();
    }

    /// The egui id of a panel: new when the window's width changed or the
    /// layout was reset, so that it opens at its share.
    pub fn panel_id(&self, side: Side) -> (&'static str, u64) {
        let name = match side {
            Side::Events => "events",
            Side::Inspector => "inspector",
        };
        (name, self.generation)
    }

    /// The width a panel opens at, and the widths it may be dragged to: it
    /// leaves the conversation and the other panel their minimums.
    pub fn size_of(&self, side: Side) -> (f32, egui::Rangef) {
        let width = self.window_width;
        let (share, min, other_shown, other_share, other_min) = match side {
            Side::Events => (
                self.events_share,
                MIN_EVENTS_WIDTH,
                self.show_inspector,
                self.inspector_share,
                MIN_INSPECTOR_WIDTH,
            ),
            Side::Inspector => (
                self.inspector_share,
                MIN_INSPECTOR_WIDTH,
                self.show_events,
                self.events_share,
                MIN_EVENTS_WIDTH,
            ),
        };
        let other = if other_shown {
            (other_share * width).max(other_min)
        } else {
            0.0
        };
        // In a window too small for every minimum, the minimums give way.
        let min = min.min(width * 0.25);
        let max = (width - other - MIN_CENTRAL_WIDTH).max(min);
        ((share * width).clamp(min, max), egui::Rangef::new(min, max))
    }

    /// Records the width a panel took (after a drag, its new share).
    pub fn took(&mut self, side: Side, width: f32) {
        let share = if self.window_width > 0.0 {
            width / self.window_width
        } else {
            return;
        };
        match side {
            Side::Events => {
                self.events_share = share;
                self.widths.events = Some(width);
            }
            Side::Inspector => {
                self.inspector_share = share;
                self.widths.inspector = Some(width);
            }
        }
    }

    /// Records the central panel's width.
    pub fn took_central(&mut self, width: f32) {
        self.widths.central = width;
    }

    /// The View menu's entries: a toggle per panel, and the reset.
    pub fn view_menu_ui(&mut self, ui: &mut Ui) {
        ui.checkbox(&mut self.show_events, "Event list");
        ui.checkbox(&mut self.show_inspector, "Inspector");
        ui.checkbox(&mut self.show_timeline, "Timeline");
        ui.separator();
        if ui
            .button("Reset layout")
            .on_hover_text("Show every panel at its default width")
            .clicked()
        {
            self.reset();
            ui.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_take_shares_of_the_width_and_leave_the_conversation_its_minimum() {
        for width in [1024.0, 1400.0, 1920.0] {
            let mut layout = PanelLayout::default();
            layout.begin(width);
            let (events, _) = layout.size_of(Side::Events);
            let (inspector, _) = layout.size_of(Side::Inspector);
            assert!(events >= MIN_EVENTS_WIDTH, "{width}: {events}");
            assert!(inspector >= MIN_INSPECTOR_WIDTH, "{width}: {inspector}");
            assert!(width - events - inspector >= MIN_CENTRAL_WIDTH, "{width}");
            // In proportion: a wider window, wider panels.
            if width > 1024.0 {
                assert!(events > 0.25 * width);
            }
        }
    }

    #[test]
    fn a_dragged_panel_keeps_its_share_when_the_window_grows() {
        let mut layout = PanelLayout::default();
        layout.begin(1000.0);
        layout.took(Side::Events, 400.0);
        let before = layout.panel_id(Side::Events);
        layout.begin(1500.0);
        assert_ne!(
            layout.panel_id(Side::Events),
            before,
            "reopened at its share"
        );
        assert_eq!(layout.size_of(Side::Events).0, 600.0);
    }

    #[test]
    fn reset_shows_every_panel_again() {
        let mut layout = PanelLayout::default();
        layout.begin(1400.0);
        layout.show_events = false;
        layout.show_timeline = false;
        layout.took(Side::Inspector, 700.0);
        let before = layout.panel_id(Side::Inspector);
        layout.reset();
        assert!(layout.show_events && layout.show_inspector && layout.show_timeline);
        assert_ne!(layout.panel_id(Side::Inspector), before);
        layout.begin(1400.0);
        assert_eq!(layout.size_of(Side::Inspector).0, 1400.0 * INSPECTOR_SHARE);
    }
}
