//! Every colour and size of the app, in one place.

use egui::Color32;

use crate::diagnostic::Severity;
use crate::replay::ActivityChange;

/// The colour of a severity, taken from the theme's own error and warning
/// colours so that light and dark themes both read.
pub fn severity_color(visuals: &egui::Visuals, severity: Severity) -> Color32 {
    match severity {
        Severity::Error => visuals.error_fg_color,
        Severity::Warning => visuals.warn_fg_color,
        Severity::Note => Color32::from_rgb(0x4a, 0x9e, 0xd6),
        Severity::Info => visuals.weak_text_color(),
    }
}

/// A short symbol for a severity (the event list's icon column).
pub fn severity_symbol(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "⛔",
        Severity::Warning => "⚠",
        Severity::Note => "ℹ",
        Severity::Info => "·",
    }
}

/// The colour of an activity mark on the timeline.
pub fn change_color(visuals: &egui::Visuals, change: ActivityChange) -> Color32 {
    match change {
        ActivityChange::Created | ActivityChange::Replaced => Color32::from_rgb(0x3c, 0xb3, 0x71),
        ActivityChange::DeltaApplied => Color32::from_rgb(0x5a, 0x8d, 0xd8),
        ActivityChange::Retyped => Color32::from_rgb(0x9b, 0x6b, 0xd6),
        ActivityChange::Declined | ActivityChange::SnapshotSkipped => visuals.weak_text_color(),
        ActivityChange::DeltaSkipped | ActivityChange::PatchFailed => visuals.warn_fg_color,
        ActivityChange::Fatal => visuals.error_fg_color,
        ActivityChange::NotApplied => visuals.weak_text_color().gamma_multiply(0.5),
    }
}

/// Background of what the current event added or changed.
pub fn changed_background(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgba_unmultiplied(0x3c, 0xb3, 0x71, 60)
    } else {
        Color32::from_rgba_unmultiplied(0x3c, 0xb3, 0x71, 50)
    }
}

/// Background of what the current event removed.
pub fn removed_background(visuals: &egui::Visuals) -> Color32 {
    visuals.error_fg_color.gamma_multiply(0.25)
}

/// The playhead.
pub fn playhead_color(visuals: &egui::Visuals) -> Color32 {
    visuals.selection.stroke.color
}

/// Height of one activity lane on the timeline.
pub const LANE_HEIGHT: f32 = 16.0;
/// Height of the density strip.
pub const DENSITY_HEIGHT: f32 = 24.0;
/// Height of the diagnostics axis.
pub const AXIS_HEIGHT: f32 = 18.0;
/// Height of a row of the event list.
pub const ROW_HEIGHT: f32 = 18.0;
/// Default widths of the side panels.
pub const EVENT_LIST_WIDTH: f32 = 430.0;
/// Default width of the inspector.
pub const INSPECTOR_WIDTH: f32 = 380.0;
/// Default height of the timeline panel.
pub const TIMELINE_HEIGHT: f32 = 200.0;
