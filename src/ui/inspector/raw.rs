//! The current event's bytes: pretty-printed when they are JSON, else
//! exactly as received (an unparseable event's white space and stray
//! characters are the bug: re-indenting would alter them), and as hex for
//! bytes that are not text, or on request (issue 13, point 10).

use crate::app_model::words::thousands;
use std::sync::Arc;

use egui::{Id, RichText, Ui};

use super::event::pretty_raw;
use crate::app_model::document::Doc;
use crate::app_model::state::CursorView;
use crate::protocol::ParseOutcome;
use crate::ui::memo::memoized;

/// Characters of the raw event shown (the rest can be copied).
const MAX_RAW_CHARS: usize = 20_000;

/// Bytes of the hex view shown.
const MAX_HEX_BYTES: usize = 4_096;

/// How the raw event shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawView {
    /// JSON re-indented (members in the order sent): for events that are
    /// JSON.
    Pretty,
    /// The text exactly as received.
    AsReceived,
    /// Every byte, in hex, with the printable ones beside.
    Hex,
}

impl RawView {
    fn label(self) -> &'static str {
        match self {
            Self::Pretty => "Pretty",
            Self::AsReceived => "As received",
            Self::Hex => "Hex",
        }
    }
}

/// The views offered for an event: pretty only for JSON, the text only for
/// UTF-8.
pub fn views_for(unparseable: bool, is_text: bool) -> Vec<RawView> {
    let mut views = Vec::new();
    if is_text && !unparseable {
        views.push(RawView::Pretty);
    }
    if is_text {
        views.push(RawView::AsReceived);
    }
    views.push(RawView::Hex);
    views
}

/// The view shown: the one chosen if offered, else the first offered
/// (an unparseable event shows as received, bytes that are not text as
/// hex).
pub fn view_shown(chosen: Option<RawView>, offered: &[RawView]) -> RawView {
    chosen
        .filter(|c| offered.contains(c))
        .or_else(|| offered.first().copied())
        .unwrap_or(RawView::Hex)
}

/// Bytes a line of the hex view: 8 fit the inspector's width.
const BYTES_PER_LINE: usize = 8;

/// `bytes` as lines of [`BYTES_PER_LINE`]: the offset, the bytes in hex,
/// the printable ASCII ones (a `.` for the others).
pub fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 5 + 16);
    for (line, chunk) in bytes.chunks(BYTES_PER_LINE).enumerate() {
        out.push_str(&format!("{:08x} ", line * BYTES_PER_LINE));
        for i in 0..BYTES_PER_LINE {
            match chunk.get(i) {
                Some(byte) => out.push_str(&format!(" {byte:02x}")),
                None => out.push_str("   "),
            }
        }
        out.push_str("  |");
        out.extend(chunk.iter().map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '.'
            }
        }));
        out.push_str("|\n");
    }
    out.pop();
    out
}

/// What the white space of a text holds besides single spaces: tabs,
/// carriage returns, other control characters, white space at the ends.
pub fn unusual_whitespace(text: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    if text.contains('\t') {
        found.push("tabs");
    }
    if text.contains('\r') {
        found.push("carriage returns");
    }
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\r' | '\n'))
    {
        found.push("control characters");
    }
    if text.chars().any(|c| c.is_whitespace() && !c.is_ascii()) {
        found.push("non-ASCII spaces");
    }
    if text.starts_with(char::is_whitespace) || text.ends_with(char::is_whitespace) {
        found.push("white space at the ends");
    }
    found
}

/// The event's bytes, in the view chosen (kept across steps).
pub(super) fn raw_event_ui(ui: &mut Ui, doc: &Doc, view: &CursorView) {
    let Some(raw) = doc.raw(view.step) else {
        return;
    };
    let raw: &[u8] = &raw;
    let unparseable = matches!(view.event, Some(ParseOutcome::Unparseable { .. }));
    let text = std::str::from_utf8(raw).ok();
    let offered = views_for(unparseable, text.is_some());
    let choice_id = Id::unique("inspector-raw-view");
    let chosen = ui.data(|d| d.get_temp::<RawView>(choice_id));
    let shown = view_shown(chosen, &offered);
    let title = if unparseable {
        "Raw bytes (as received)"
    } else {
        "Raw JSON"
    };
    egui::CollapsingHeader::new(title)
        .id_salt("inspector-raw")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for candidate in &offered {
                    if ui
                        .selectable_label(shown == *candidate, candidate.label())
                        .clicked()
                    {
                        ui.data_mut(|d| d.insert_temp(choice_id, *candidate));
                    }
                }
                ui.separator();
                let copy_hover = if text.is_some() {
                    "Copy the event as sent"
                } else {
                    "Copy the bytes, as hex (they are not text)"
                };
                if ui.small_button("Copy").on_hover_text(copy_hover).clicked() {
                    ui.ctx().copy_text(match text {
                        Some(text) => text.to_owned(),
                        None => hex_dump(raw),
                    });
                }
                ui.weak(format!("{} bytes", thousands(raw.len() as u64)));
            });
            match (shown, text) {
                (RawView::Pretty, Some(text)) => {
                    let pretty = memoized(
                        ui.ctx(),
                        Id::unique("inspector-raw-pretty"),
                        view.generation,
                        view.step,
                        || Arc::new(pretty_raw(text)),
                    );
                    long_text_ui(ui, &pretty);
                }
                (RawView::AsReceived, Some(text)) => {
                    let unusual = unusual_whitespace(text);
                    if !unusual.is_empty() {
                        ui.weak(format!(
                            "Holds {}: Hex shows every byte",
                            unusual.join(", ")
                        ));
                    }
                    long_text_ui(ui, text);
                }
                _ => {
                    if text.is_none() {
                        ui.weak("Not UTF-8 text: the bytes as received, in hex");
                    }
                    let shown_bytes = &raw[..raw.len().min(MAX_HEX_BYTES)];
                    let dump = memoized(
                        ui.ctx(),
                        Id::unique("inspector-raw-hex"),
                        view.generation,
                        view.step,
                        || Arc::new(hex_dump(shown_bytes)),
                    );
                    // Lines kept whole: the panel scrolls sideways.
                    ui.add(
                        egui::Label::new(RichText::new(dump.as_str()).monospace())
                            .extend()
                            .selectable(true),
                    );
                    if raw.len() > MAX_HEX_BYTES {
                        ui.weak(format!(
                            "{} more bytes (Copy takes all)",
                            raw.len() - MAX_HEX_BYTES
                        ));
                    }
                }
            }
        });
}

/// Text in monospace, wrapped and selectable, cut at [`MAX_RAW_CHARS`].
fn long_text_ui(ui: &mut Ui, text: &str) {
    let shown = crate::app_model::json_text::truncate_chars(text, MAX_RAW_CHARS);
    ui.add(
        egui::Label::new(RichText::new(shown.as_ref()).monospace())
            .wrap()
            .selectable(true),
    );
    let total = text.chars().count();
    if total > MAX_RAW_CHARS {
        ui.weak(format!(
            "{} more characters (Copy takes all)",
            total - MAX_RAW_CHARS
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unparseable_event_is_not_offered_pretty_and_binary_only_hex() {
        // Issue 13, point 10.
        assert_eq!(
            views_for(false, true),
            [RawView::Pretty, RawView::AsReceived, RawView::Hex]
        );
        assert_eq!(views_for(true, true), [RawView::AsReceived, RawView::Hex]);
        assert_eq!(views_for(true, false), [RawView::Hex]);
        let unparseable = views_for(true, true);
        assert_eq!(
            view_shown(Some(RawView::Pretty), &unparseable),
            RawView::AsReceived
        );
        assert_eq!(view_shown(None, &unparseable), RawView::AsReceived);
        assert_eq!(view_shown(Some(RawView::Hex), &unparseable), RawView::Hex);
        assert_eq!(view_shown(None, &views_for(true, false)), RawView::Hex);
    }

    #[test]
    fn the_hex_dump_shows_every_byte() {
        let dump = hex_dump(b"{\"a\":\t1}\xff\x00 0123");
        let lines: Vec<&str> = dump.lines().collect();
        assert_eq!(
            lines,
            [
                "00000000  7b 22 61 22 3a 09 31 7d  |{\"a\":.1}|",
                "00000008  ff 00 20 30 31 32 33     |.. 0123|",
            ]
        );
        assert_eq!(hex_dump(b""), "");
    }

    #[test]
    fn unusual_white_space_is_named() {
        assert!(unusual_whitespace(r#"{"a": 1}"#).is_empty());
        assert_eq!(
            unusual_whitespace("{\"a\":\t1}\r"),
            ["tabs", "carriage returns", "white space at the ends"]
        );
        assert_eq!(unusual_whitespace("a\u{a0}b"), ["non-ASCII spaces"]);
    }
}
