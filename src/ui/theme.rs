//! Every colour and size of the app, in one place.

use egui::Color32;

use crate::diagnostic::Severity;
use crate::replay::ActivityChange;

/// The colour of a severity, taken from the theme's own error and warning
/// colours (see [`visuals`]) so that light and dark themes both read.
pub fn severity_color(visuals: &egui::Visuals, severity: Severity) -> Color32 {
    match severity {
        Severity::Error => visuals.error_fg_color,
        Severity::Warning => visuals.warn_fg_color,
        Severity::Note => note_color(visuals),
        Severity::Info => visuals.weak_text_color(),
    }
}

/// The colour of a note (blue).
pub fn note_color(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgb(0x6a, 0xb0, 0xe6)
    } else {
        Color32::from_rgb(0x1d, 0x5f, 0x9e)
    }
}

/// egui's visuals of `theme`, with every text colour raised to WCAG AA
/// (4.5:1) on the backgrounds the app draws it on (issue 13, point 7):
/// egui's own dark grey text, its orange warnings and red errors on white,
/// and its translucent weak text fall short. The test below computes every
/// ratio.
pub fn visuals(theme: egui::Theme) -> egui::Visuals {
    let mut visuals = theme.default_visuals();
    match theme {
        egui::Theme::Dark => {
            visuals.widgets.noninteractive.fg_stroke.color = Color32::from_gray(200);
            visuals.weak_text_color = Some(Color32::from_gray(170));
            visuals.warn_fg_color = Color32::from_rgb(0xff, 0x9a, 0x1a);
            visuals.error_fg_color = Color32::from_rgb(0xff, 0x84, 0x7a);
            visuals.hyperlink_color = Color32::from_rgb(0x6a, 0xb0, 0xff);
            visuals.selection.bg_fill = Color32::from_rgb(0x00, 0x3e, 0x5c);
            // A hovered row (and button) darker than egui's grey 70, so
            // that coloured text still reads on it.
            visuals.widgets.hovered.bg_fill = Color32::from_gray(46);
            visuals.widgets.hovered.weak_bg_fill = Color32::from_gray(46);
        }
        egui::Theme::Light => {
            visuals.widgets.noninteractive.fg_stroke.color = Color32::from_gray(40);
            visuals.weak_text_color = Some(Color32::from_gray(88));
            visuals.warn_fg_color = Color32::from_rgb(0x9a, 0x46, 0x00);
            visuals.error_fg_color = Color32::from_rgb(0xb0, 0x00, 0x00);
            visuals.hyperlink_color = Color32::from_rgb(0x00, 0x5a, 0xa0);
            visuals.selection.bg_fill = Color32::from_rgb(0xc8, 0xe4, 0xff);
            visuals.widgets.hovered.bg_fill = Color32::from_gray(232);
            visuals.widgets.hovered.weak_bg_fill = Color32::from_gray(232);
        }
    }
    // egui draws a disabled widget at half opacity: its text fell to 2.6:1
    // (light) and 3.8:1 (dark) (issue 43). Still paler than an enabled one.
    visuals.disabled_alpha = DISABLED_ALPHA;
    visuals
}

/// The opacity of a disabled widget.
pub const DISABLED_ALPHA: f32 = 0.8;

/// Solid scroll bars (egui's floating ones are drawn over the content, so a
/// horizontal one hid the last row of a table, issue 13, point 5), and no
/// fade at the ends of a scroll area: it dimmed the last line shown, a
/// rule's text to 3.5–4.4:1 (issue 43).
pub fn scroll_style() -> egui::style::ScrollStyle {
    let mut style = egui::style::ScrollStyle::solid();
    style.fade.strength = 0.0;
    style
}

/// Installs [`visuals`] for both themes in `ctx`, and the
/// [`scroll_style`].
pub fn install(ctx: &egui::Context) {
    for theme in [egui::Theme::Dark, egui::Theme::Light] {
        ctx.set_visuals_of(theme, visuals(theme));
    }
    ctx.all_styles_mut(|style| style.spacing.scroll = scroll_style());
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
        ActivityChange::Created | ActivityChange::Replaced => pick(visuals, GREEN, GREEN_ON_LIGHT),
        ActivityChange::DeltaApplied => pick(visuals, BLUE, BLUE_ON_LIGHT),
        ActivityChange::Retyped => pick(visuals, PURPLE, PURPLE_ON_LIGHT),
        ActivityChange::Declined | ActivityChange::SnapshotSkipped => visuals.weak_text_color(),
        ActivityChange::DeltaSkipped | ActivityChange::PatchFailed => visuals.warn_fg_color,
        ActivityChange::Fatal => visuals.error_fg_color,
        ActivityChange::NotApplied => visuals.weak_text_color().gamma_multiply(0.5),
    }
}

/// The colour of a drift ring on a lane (E20, issue 17.1): an
/// unexplained drift as loud as an error, a repair as a warning's, a
/// change without a delta (issue 39) as an information's.
pub fn drift_color(visuals: &egui::Visuals, kind: crate::diagnostic::DriftKind) -> Color32 {
    match kind {
        crate::diagnostic::DriftKind::Unexplained => visuals.error_fg_color,
        crate::diagnostic::DriftKind::Repair => visuals.warn_fg_color,
        crate::diagnostic::DriftKind::Unstreamed => visuals.weak_text_color(),
    }
}

/// Green, blue and purple as marks and as text on a dark background, and
/// their darker kin for text on a light one.
const GREEN: Color32 = Color32::from_rgb(0x3c, 0xb3, 0x71);
const GREEN_ON_LIGHT: Color32 = Color32::from_rgb(0x1a, 0x66, 0x36);
const BLUE: Color32 = Color32::from_rgb(0x6a, 0x9d, 0xe8);
const BLUE_ON_LIGHT: Color32 = Color32::from_rgb(0x2f, 0x5f, 0xb0);
const PURPLE: Color32 = Color32::from_rgb(0xb0, 0x90, 0xe8);
const PURPLE_ON_LIGHT: Color32 = Color32::from_rgb(0x6a, 0x3a, 0xa8);

fn pick(visuals: &egui::Visuals, dark: Color32, light: Color32) -> Color32 {
    if visuals.dark_mode { dark } else { light }
}

/// Background of a value that was replaced (amber, as diffs show it).
pub fn modified_background(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgba_unmultiplied(0xe0, 0xa8, 0x2e, 40)
    } else {
        Color32::from_rgba_unmultiplied(0xe0, 0xa8, 0x2e, 60)
    }
}

/// Background of what the current event added or changed.
pub fn changed_background(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgba_unmultiplied(0x3c, 0xb3, 0x71, 45)
    } else {
        Color32::from_rgba_unmultiplied(0x3c, 0xb3, 0x71, 50)
    }
}

/// Background of what the current event removed.
pub fn removed_background(visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgba_unmultiplied(0xdc, 0x3c, 0x3c, 50)
    } else {
        Color32::from_rgba_unmultiplied(0xdc, 0x3c, 0x3c, 40)
    }
}

/// Background of the error banner.
pub fn error_banner_background(visuals: &egui::Visuals) -> Color32 {
    removed_background(visuals)
}

/// The marks' colour (A and B on the timeline).
pub fn mark_color(visuals: &egui::Visuals) -> Color32 {
    pick(
        visuals,
        Color32::from_rgb(0xe0, 0xa8, 0x2e),
        Color32::from_rgb(0x80, 0x50, 0x00),
    )
}

/// The colour of a content that breaks its schema (issue 42, rule S1): a
/// square over the activity's lane, apart from the failed patches' and the
/// skipped deltas' marks.
pub fn schema_color(visuals: &egui::Visuals) -> Color32 {
    pick(
        visuals,
        Color32::from_rgb(0x3f, 0xd0, 0xc8),
        Color32::from_rgb(0x00, 0x6e, 0x74),
    )
}

/// The colour of the marks where the two profiles part (P13).
pub fn divergence_color(visuals: &egui::Visuals) -> Color32 {
    pick(
        visuals,
        Color32::from_rgb(0xc0, 0x8a, 0xf0),
        Color32::from_rgb(0x80, 0x40, 0xb0),
    )
}

/// The colour of an event on the timelines of a comparison (issue 17.4):
/// the same in both streams (quiet), changed (amber, as the marks), or in
/// one stream only (purple, as where the profiles part).
pub fn compare_color(visuals: &egui::Visuals, event_match: crate::compare::EventMatch) -> Color32 {
    match event_match {
        crate::compare::EventMatch::Same => visuals.weak_text_color(),
        crate::compare::EventMatch::Changed => mark_color(visuals),
        crate::compare::EventMatch::Only => divergence_color(visuals),
    }
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
/// The event list's share of the window's width, by default (issue 13,
/// point 5: shares, not fixed widths).
pub const EVENTS_SHARE: f32 = 0.34;
/// The inspector's share of the window's width, by default: at 1024×700 its
/// tabs fit one row (issue 43).
pub const INSPECTOR_SHARE: f32 = 0.32;
/// The narrowest the event list gets (its seq, type and summary columns).
pub const MIN_EVENTS_WIDTH: f32 = 240.0;
/// The narrowest the inspector gets.
pub const MIN_INSPECTOR_WIDTH: f32 = 260.0;
/// The narrowest the conversation gets: a card's title and a line of its
/// preview.
pub const MIN_CENTRAL_WIDTH: f32 = 320.0;
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

/// The colour of an entity's bar on the timeline's lanes (issue 43): that
/// of its events in the density strip; a failed run's is the error colour.
pub fn entity_color(
    visuals: &egui::Visuals,
    kind: crate::timeline::EntityKind,
    failed: bool,
) -> Color32 {
    use super::timeline::KindGroup;
    use crate::timeline::EntityKind as K;
    if failed {
        return severity_color(visuals, Severity::Error);
    }
    kind_group_color(match kind {
        K::Run | K::Subagent | K::Step => KindGroup::Lifecycle,
        K::Message | K::Reasoning => KindGroup::Text,
        K::ToolCall => KindGroup::ToolCall,
    })
}

/// The colour of a group's count in the density strip's hover: the group's
/// colour where it reads as text, the text colour on a light background.
pub fn kind_group_text_color(
    visuals: &egui::Visuals,
    group: super::timeline::KindGroup,
) -> Color32 {
    use super::timeline::KindGroup;
    match (visuals.dark_mode, group) {
        (true, KindGroup::Text) => BLUE,
        (true, KindGroup::State) => PURPLE,
        (true, KindGroup::Lifecycle | KindGroup::Other) => visuals.weak_text_color(),
        (true, group) => kind_group_color(group),
        (false, KindGroup::Text) => BLUE_ON_LIGHT,
        (false, KindGroup::ToolCall) => Color32::from_rgb(0x0e, 0x62, 0x60),
        (false, KindGroup::State) => PURPLE_ON_LIGHT,
        (false, KindGroup::Activity) => GREEN_ON_LIGHT,
        (false, KindGroup::Lifecycle | KindGroup::Other) => visuals.weak_text_color(),
    }
}

/// The colour of a JSON scalar in the JSON tree: strings, numbers, and the
/// literals (`true`, `false`, `null`) each their own.
pub fn json_value_color(visuals: &egui::Visuals, value: &serde_json::Value) -> Color32 {
    use serde_json::Value;
    match (value, visuals.dark_mode) {
        (Value::String(_), true) => Color32::from_rgb(0xdc, 0xa8, 0x90),
        (Value::String(_), false) => Color32::from_rgb(0xa3, 0x15, 0x15),
        (Value::Number(_), true) => Color32::from_rgb(0xb5, 0xce, 0xa8),
        (Value::Number(_), false) => Color32::from_rgb(0x05, 0x66, 0x42),
        (Value::Bool(_) | Value::Null, true) => Color32::from_rgb(0x80, 0xb8, 0xea),
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

/// WCAG 2's relative luminance of an opaque colour.
fn luminance(color: Color32) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(color.r()) + 0.7152 * channel(color.g()) + 0.0722 * channel(color.b())
}

/// WCAG 2's contrast ratio of two opaque colours.
pub fn contrast(a: Color32, b: Color32) -> f64 {
    let (a, b) = (luminance(a), luminance(b));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// Black or white, whichever reads better on `fill` (a label drawn over a
/// coloured bar).
pub fn text_color_on(fill: Color32) -> Color32 {
    if contrast(Color32::BLACK, fill) >= contrast(Color32::WHITE, fill) {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}

#[cfg(test)]
mod tests {
    //! Issue 13, point 7: every text colour of the app on the background it
    //! is drawn on reaches WCAG AA (4.5:1), in both themes.

    use super::*;
    use crate::ui::timeline::KindGroup;

    /// `top` (premultiplied, maybe translucent) painted over `below`.
    fn over(top: Color32, below: Color32) -> Color32 {
        let keep = 1.0 - f32::from(top.a()) / 255.0;
        let mix = |t: u8, b: u8| (f32::from(t) + f32::from(b) * keep).round().min(255.0) as u8;
        Color32::from_rgb(
            mix(top.r(), below.r()),
            mix(top.g(), below.g()),
            mix(top.b(), below.b()),
        )
    }

    /// Every (what, text colour, background) the app draws, in `visuals`.
    fn pairs(visuals: &egui::Visuals) -> Vec<(String, Color32, Color32)> {
        let panel = visuals.panel_fill;
        let json = [
            serde_json::json!("s"),
            serde_json::json!(1),
            serde_json::json!(true),
            serde_json::Value::Null,
            serde_json::json!([]),
        ];
        // Text drawn anywhere: panels, popups and hovers, striped rows,
        // text fields.
        let mut everywhere: Vec<(String, Color32)> = vec![
            ("text".into(), visuals.text_color()),
            ("weak text".into(), visuals.weak_text_color()),
            ("strong text".into(), visuals.strong_text_color()),
            ("hyperlink".into(), visuals.hyperlink_color),
            ("marks".into(), mark_color(visuals)),
            ("divergence".into(), divergence_color(visuals)),
        ];
        for severity in Severity::ALL {
            everywhere.push((format!("{severity}"), severity_color(visuals, severity)));
        }
        for change in [
            ActivityChange::Created,
            ActivityChange::Replaced,
            ActivityChange::DeltaApplied,
            ActivityChange::Retyped,
            ActivityChange::Declined,
            ActivityChange::SnapshotSkipped,
            ActivityChange::DeltaSkipped,
            ActivityChange::PatchFailed,
            ActivityChange::Fatal,
        ] {
            everywhere.push((format!("{change:?}"), change_color(visuals, change)));
        }
        for group in KindGroup::ALL {
            everywhere.push((format!("{group:?}"), kind_group_text_color(visuals, group)));
        }
        for value in &json {
            everywhere.push((format!("json {value}"), json_value_color(visuals, value)));
        }
        let backgrounds = [
            ("panel", panel),
            ("window", visuals.window_fill),
            ("striped row", over(visuals.faint_bg_color, panel)),
            ("text field", visuals.text_edit_bg_color()),
            ("hovered row", visuals.widgets.hovered.bg_fill),
        ];
        let mut pairs = Vec::new();
        for (background, fill) in backgrounds {
            for (what, color) in &everywhere {
                pairs.push((format!("{what} on {background}"), *color, fill));
            }
        }
        // Highlighted cards and JSON values (changed, replaced, removed),
        // the error banner: what is written on them.
        let mut on_highlights = vec![
            ("text".to_owned(), visuals.text_color()),
            ("weak text".into(), visuals.weak_text_color()),
            ("warning".into(), visuals.warn_fg_color),
            ("error".into(), visuals.error_fg_color),
        ];
        for value in &json {
            on_highlights.push((format!("json {value}"), json_value_color(visuals, value)));
        }
        for (background, fill) in [
            ("changed", changed_background(visuals)),
            ("modified", modified_background(visuals)),
            ("removed", removed_background(visuals)),
            ("error banner", error_banner_background(visuals)),
        ] {
            for (what, color) in &on_highlights {
                pairs.push((format!("{what} on {background}"), *color, over(fill, panel)));
            }
        }
        // The selected row of the event list: its text, its weak (not
        // applied) rows, its severity icon.
        let selected = visuals.selection.bg_fill;
        pairs.push((
            "selected text".into(),
            visuals.selection.stroke.color,
            selected,
        ));
        pairs.push((
            "weak on selected".into(),
            visuals.weak_text_color(),
            selected,
        ));
        for severity in Severity::ALL {
            pairs.push((
                format!("{severity} on selected"),
                severity_color(visuals, severity),
                selected,
            ));
        }
        // Buttons.
        for (state, widget) in [
            ("inactive", visuals.widgets.inactive),
            ("hovered", visuals.widgets.hovered),
            ("active", visuals.widgets.active),
        ] {
            pairs.push((
                format!("{state} button"),
                widget.fg_stroke.color,
                over(widget.weak_bg_fill, panel),
            ));
        }
        pairs
    }

    #[test]
    fn every_text_colour_reaches_wcag_aa_in_both_themes() {
        let mut failures = Vec::new();
        for theme in [egui::Theme::Dark, egui::Theme::Light] {
            let visuals = visuals(theme);
            let pairs = pairs(&visuals);
            assert!(pairs.len() > 100, "the pairs cover the palette");
            for (what, fg, bg) in pairs {
                let ratio = contrast(over(fg, bg), bg);
                if ratio < 4.5 {
                    failures.push(format!(
                        "{theme:?}: {what}: {ratio:.2}:1 ({fg:?} on {bg:?})"
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "below 4.5:1:\n{}", failures.join("\n"));
    }

    /// `color` at `alpha` of its opacity, as egui paints a faded widget.
    fn faded(color: Color32, alpha: f32) -> Color32 {
        color.gamma_multiply(alpha)
    }

    // Issue 43: a disabled button's text, faded with its background, was
    // 2.6:1 (light) and 3.8:1 (dark).
    #[test]
    fn a_disabled_buttons_text_reaches_wcag_aa_in_both_themes() {
        for theme in [egui::Theme::Dark, egui::Theme::Light] {
            let visuals = visuals(theme);
            let alpha = visuals.disabled_alpha();
            // A disabled widget senses nothing: egui draws it as a
            // non-interactive one, but an inactive look is checked too.
            for (state, widget) in [
                ("non-interactive", visuals.widgets.noninteractive),
                ("inactive", visuals.widgets.inactive),
            ] {
                for panel in [visuals.panel_fill, visuals.window_fill] {
                    let bg = over(faded(widget.weak_bg_fill, alpha), panel);
                    let fg = over(faded(widget.fg_stroke.color, alpha), bg);
                    let ratio = contrast(fg, bg);
                    assert!(ratio >= 4.5, "{theme:?}: {state} disabled: {ratio:.2}:1");
                }
            }
            // egui's own half opacity was the failing one.
            let widget = visuals.widgets.noninteractive;
            let bg = over(faded(widget.weak_bg_fill, 0.5), visuals.panel_fill);
            assert!(contrast(over(faded(widget.fg_stroke.color, 0.5), bg), bg) < 4.5);
        }
    }

    // Issue 43: the fade at a scroll area's end dimmed its last line (a
    // rule's weak text to 3.5–4.4:1). Every text colour, as faded at the
    // edge, still reaches AA.
    #[test]
    fn the_last_line_of_a_scroll_area_is_not_faded_below_wcag_aa() {
        let fade = scroll_style().fade.strength;
        for theme in [egui::Theme::Dark, egui::Theme::Light] {
            let visuals = visuals(theme);
            for (what, fg, bg) in pairs(&visuals) {
                // The fade paints the background over the text, at `fade`.
                let text = over(faded(bg, fade), over(fg, bg));
                let ratio = contrast(text, bg);
                assert!(
                    ratio >= 4.5,
                    "{theme:?}: {what} under the fade: {ratio:.2}:1"
                );
            }
        }
        // egui's own fade (0.5) was the failing one.
        let visuals = visuals(egui::Theme::Dark);
        let (fg, bg) = (visuals.weak_text_color(), visuals.panel_fill);
        let text = over(faded(bg, 0.5), fg);
        assert!(contrast(text, bg) < 4.5);
    }

    #[test]
    fn the_contrast_ratio_matches_wcag_for_known_pairs() {
        // Black on white is 21:1, a colour on itself 1:1, and egui's own
        // light-theme warning orange on white is the failing ~2.9:1 that
        // issue 13 reported.
        assert!((contrast(Color32::BLACK, Color32::WHITE) - 21.0).abs() < 0.01);
        assert!((contrast(Color32::GRAY, Color32::GRAY) - 1.0).abs() < 1e-9);
        let egui_orange = egui::Visuals::light().warn_fg_color;
        assert!(contrast(egui_orange, Color32::WHITE) < 3.0);
        assert!(contrast(visuals(egui::Theme::Light).warn_fg_color, Color32::WHITE) >= 4.5);
    }
}
