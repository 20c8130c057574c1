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
///
/// Only characters of egui's built-in fonts: a missing glyph renders as a
/// box (and fails kittest), so no emoji.
pub fn severity_symbol(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "E",
        Severity::Warning => "W",
        Severity::Note => "N",
        Severity::Info => "i",
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

/// Background of a value that was replaced (amber, as diffs show it).
pub fn modified_background(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgba_unmultiplied(0xe0, 0xa8, 0x2e, 55)
    } else {
        Color32::from_rgba_unmultiplied(0xe0, 0xa8, 0x2e, 60)
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

/// Height of the timeline's step ruler.
pub const RULER_HEIGHT: f32 = 14.0;
/// Width of the timeline's label column (lane names).
pub const TIMELINE_LABEL_WIDTH: f32 = 170.0;

/// The colour of a group of event kinds in the timeline's density strip.
pub fn kind_group_color(group: super::timeline::KindGroup) -> Color32 {
    use super::timeline::KindGroup;
    match group {
        KindGroup::Lifecycle => Color32::from_rgb(0x8a, 0x94, 0xa6),
        KindGroup::Text => Color32::from_rgb(0x5a, 0x8d, 0xd8),
        KindGroup::ToolCall => Color32::from_rgb(0x2a, 0xb3, 0xb0),
        KindGroup::State => Color32::from_rgb(0x9b, 0x6b, 0xd6),
        KindGroup::Activity => Color32::from_rgb(0x3c, 0xb3, 0x71),
        KindGroup::Other => Color32::from_rgb(0x80, 0x80, 0x80),
    }
}

/// The colour of a JSON scalar in the JSON tree: strings, numbers, and the
/// literals (`true`, `false`, `null`) each their own.
pub fn json_value_color(visuals: &egui::Visuals, value: &serde_json::Value) -> Color32 {
    use serde_json::Value;
    match (value, visuals.dark_mode) {
        (Value::String(_), true) => Color32::from_rgb(0xce, 0x91, 0x78),
        (Value::String(_), false) => Color32::from_rgb(0xa3, 0x15, 0x15),
        (Value::Number(_), true) => Color32::from_rgb(0xb5, 0xce, 0xa8),
        (Value::Number(_), false) => Color32::from_rgb(0x09, 0x86, 0x58),
        (Value::Bool(_) | Value::Null, true) => Color32::from_rgb(0x56, 0x9c, 0xd6),
        (Value::Bool(_) | Value::Null, false) => Color32::from_rgb(0x00, 0x00, 0xcc),
        _ => visuals.text_color(),
    }
}

/// Outline of the selected activity card.
pub fn selected_stroke(visuals: &egui::Visuals) -> egui::Stroke {
    egui::Stroke::new(2.0, visuals.selection.stroke.color)
}

/// Space between two messages of the conversation.
pub const MESSAGE_GAP: f32 = 6.0;

/// Room on each side of the timeline's plot, so that marks at the ends show
/// whole.
pub const TIMELINE_PLOT_PADDING: f32 = 6.0;
