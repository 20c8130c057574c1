//! The message cards of the conversation: an activity as a card with a
//! preview of its content (click to inspect it), and a text, tool or
//! reasoning message with its text ("Show more" when long) and tool calls.

use crate::app_model::words::thousands;
use std::borrow::Cow;

use egui::text::{LayoutJob, TextWrapping};
use egui::{Align, Id, Layout, RichText, Sense, TextFormat, Ui};
use serde_json::{Map, Value};

use super::Change;
use crate::app_model::command::Command;
use crate::app_model::json_text::compact_json;
use crate::diagnostic::Seq;
use crate::replay::{ActivityMessage, OtherMessage, Role};
use crate::ui::theme;

/// The most characters of an activity's content its card's tooltip shows.
const CARD_HOVER_CHARS: usize = 2_000;

/// Characters of a text shown before "Show more".
const MAX_TEXT_CHARS: usize = 600;
/// Lines of a text shown before "Show more".
const MAX_TEXT_LINES: usize = 12;
/// Members of an activity's content in its card's preview.
const PREVIEW_KEYS: usize = 4;
/// Characters of each value in the preview.
const PREVIEW_VALUE_CHARS: usize = 48;

/// The frame of a message: its background says what the event did.
fn message_frame(ui: &Ui, change: Change, selected: bool) -> egui::Frame {
    let visuals = ui.visuals();
    let fill = match change {
        Change::Same => visuals.faint_bg_color,
        Change::New | Change::Changed => theme::changed_background(visuals),
        Change::Removed => theme::removed_background(visuals),
    };
    let stroke = if selected {
        theme::selected_stroke(visuals)
    } else {
        visuals.widgets.noninteractive.bg_stroke
    };
    egui::Frame::new()
        .fill(fill)
        .stroke(stroke)
        .corner_radius(4)
        .inner_margin(6)
}

/// "new", "changed" or "removed" after a message's title.
fn change_badge_ui(ui: &mut Ui, change: Change) {
    let text = match change {
        Change::Same => return,
        Change::New => "new",
        Change::Changed => "changed",
        Change::Removed => "removed",
    };
    ui.label(RichText::new(text).small().strong());
}

/// A small "input" label on a message that joined from a recorded run
/// input (E11, issue 18): the request body (step 0) or a `RUN_STARTED`.
fn input_badge_ui(ui: &mut Ui, input: Option<Seq>) {
    let Some(step) = input else { return };
    let from = if step == Seq::START {
        "the recorded request body (step 0)".to_owned()
    } else {
        format!("the input of RUN_STARTED at step {}", thousands(step.get()))
    };
    ui.label(RichText::new("input").small().strong())
        .on_hover_text(format!("Joined the conversation from {from} (E11)"));
}

/// A bar down the left edge of a run input's message (E11), so the group
/// reads as one, apart from what the agent sent.
fn input_bar(ui: &Ui, rect: egui::Rect, input: Option<Seq>) {
    if input.is_some() {
        let x = rect.left() + 1.5;
        ui.painter().line_segment(
            [
                egui::pos2(x, rect.top() + 2.0),
                egui::pos2(x, rect.bottom() - 2.0),
            ],
            egui::Stroke::new(3.0, ui.visuals().selection.stroke.color),
        );
    }
}

/// Struck through when the message is gone.
fn struck(text: RichText, change: Change) -> RichText {
    if change == Change::Removed {
        text.strikethrough()
    } else {
        text
    }
}

/// An activity message: type, id, owner and a preview of its content.
pub(super) fn activity_card_ui(
    ui: &mut Ui,
    activity: &ActivityMessage,
    change: Change,
    input: Option<Seq>,
    selected: bool,
    commands: &mut Vec<Command>,
) {
    let frame = message_frame(ui, change, selected).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            ui.label(struck(
                RichText::new(&activity.activity_type).strong(),
                change,
            ));
            ui.label(struck(
                RichText::new(&activity.id).monospace().weak(),
                change,
            ));
            change_badge_ui(ui, change);
            input_badge_ui(ui, input);
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                ui.label(RichText::new(owner_label(activity)).small().weak());
            });
        });
        let preview = content_preview(&activity.content, PREVIEW_KEYS, PREVIEW_VALUE_CHARS);
        let mut job = LayoutJob::single_section(
            preview,
            TextFormat {
                font_id: egui::TextStyle::Monospace.resolve(ui.style()),
                color: ui.visuals().weak_text_color(),
                strikethrough: if change == Change::Removed {
                    egui::Stroke::new(1.0, ui.visuals().weak_text_color())
                } else {
                    egui::Stroke::NONE
                },
                ..Default::default()
            },
        );
        job.wrap = TextWrapping {
            max_rows: 2,
            break_anywhere: true,
            overflow_character: Some('…'),
            ..Default::default()
        };
        // Not selectable: the card owns the hover (its tooltip holds the
        // whole content) and the click.
        ui.add(egui::Label::new(job).wrap().selectable(false));
    });
    let rect = frame.response.rect;
    input_bar(ui, rect, input);
    let response = ui.interact(rect, ui.scope_id().with("card"), Sense::click());
    let label = format!("Activity {}", activity.id);
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &label));
    if response.hovered() && !selected {
        ui.painter().rect_stroke(
            rect,
            4,
            ui.visuals().widgets.hovered.bg_stroke,
            egui::StrokeKind::Inside,
        );
    }
    // The preview is cut to two rows: the content shows whole on hover
    // (issue 13, point 5).
    let response = response.on_hover_ui(|ui| {
        ui.label("Inspect this activity");
        ui.add(
            egui::Label::new(
                RichText::new(compact_json(&activity.content, CARD_HOVER_CHARS)).monospace(),
            )
            .wrap(),
        );
    });
    if response.clicked() {
        commands.push(Command::SelectActivity(Some(activity.id.to_string())));
    }
}

/// Who owns an activity (R21).
fn owner_label(activity: &ActivityMessage) -> String {
    match &activity.subagent_run_id {
        Some(owner) => format!("subagent {owner}"),
        None => "parent agent".to_owned(),
    }
}

/// The first members of a content, `key: value` on one line, values cut.
pub fn content_preview(content: &Value, max_keys: usize, max_value_chars: usize) -> String {
    let Value::Object(map) = content else {
        return compact_json(content, max_keys * max_value_chars);
    };
    if map.is_empty() {
        return "{}".to_owned();
    }
    let mut parts: Vec<String> = map
        .iter()
        .take(max_keys)
        .map(|(key, value)| format!("{key}: {}", compact_json(value, max_value_chars)))
        .collect();
    if map.len() > max_keys {
        parts.push(format!(
            "+{} more",
            thousands((map.len() - max_keys) as u64)
        ));
    }
    parts.join("  ·  ")
}

/// A text, tool or reasoning message.
pub(super) fn other_message_ui(
    ui: &mut Ui,
    message: &OtherMessage,
    change: Change,
    input: Option<Seq>,
) {
    let frame = message_frame(ui, change, false).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            ui.label(struck(
                RichText::new(message.role.as_str()).strong(),
                change,
            ));
            if let Some(name) = message.fields.get("name").and_then(Value::as_str) {
                ui.label(struck(RichText::new(name).italics(), change));
            }
            if message.role == Role::Tool
                && let Some(call) = message.fields.get("toolCallId").and_then(Value::as_str)
            {
                ui.label(struck(
                    RichText::new(format!("for {call}")).monospace(),
                    change,
                ));
            }
            ui.label(struck(
                RichText::new(&message.id).monospace().weak(),
                change,
            ));
            change_badge_ui(ui, change);
            input_badge_ui(ui, input);
        });
        let text = text_of(message.fields.get("content"));
        match message.role {
            Role::Reasoning => {
                long_text_ui(ui, &message.id, &text, change, |t| t.italics().weak());
            }
            Role::Tool => {
                let text = pretty_if_json(&text);
                long_text_ui(ui, &message.id, &text, change, RichText::monospace);
                if let Some(error) = message.fields.get("error").and_then(Value::as_str) {
                    ui.colored_label(ui.visuals().warn_fg_color, format!("error: {error}"));
                }
            }
            _ => {
                if !text.is_empty() {
                    long_text_ui(ui, &message.id, &text, change, |t| t);
                }
                tool_calls_ui(ui, &message.id, &message.fields, change);
            }
        }
    });
    input_bar(ui, frame.response.rect, input);
}

/// An assistant's tool calls: name, id, and arguments (pretty JSON when
/// they parse).
fn tool_calls_ui(ui: &mut Ui, message_id: &str, fields: &Map<String, Value>, change: Change) {
    let Some(Value::Array(calls)) = fields.get("toolCalls") else {
        return;
    };
    for call in calls {
        let id = call.get("id").and_then(Value::as_str).unwrap_or("");
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        let arguments = function
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
            .unwrap_or("");
        ui.horizontal(|ui| {
            ui.label(struck(
                RichText::new(format!("→ {name}")).monospace().strong(),
                change,
            ));
            ui.label(struck(RichText::new(id).monospace().weak(), change));
        });
        let arguments = pretty_if_json(arguments);
        if !arguments.is_empty() {
            ui.indent(id, |ui| {
                long_text_ui(
                    ui,
                    &format!("{message_id}/{id}"),
                    &arguments,
                    change,
                    RichText::monospace,
                );
            });
        }
    }
}

/// A text, shortened with "Show more" when long.
fn long_text_ui(
    ui: &mut Ui,
    key: &str,
    text: &str,
    change: Change,
    style: impl Fn(RichText) -> RichText,
) {
    let Some(short) = shortened(text, MAX_TEXT_CHARS, MAX_TEXT_LINES) else {
        ui.add(egui::Label::new(struck(style(RichText::new(text)), change)).wrap());
        return;
    };
    let expanded_id = Id::unique(("show-more", key));
    let expanded = ui
        .ctx()
        .data(|d| d.get_temp::<bool>(expanded_id))
        .unwrap_or(false);
    let shown = if expanded {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{short}…"))
    };
    ui.add(egui::Label::new(struck(style(RichText::new(shown)), change)).wrap());
    let toggle = if expanded { "Show less" } else { "Show more" };
    if ui.small_button(toggle).clicked() {
        ui.ctx().data_mut(|d| d.insert_temp(expanded_id, !expanded));
    }
}

/// The start of `text` when it has more than `max_chars` characters or
/// `max_lines` lines; `None` when it is short enough.
fn shortened(text: &str, max_chars: usize, max_lines: usize) -> Option<&str> {
    let by_chars = text.char_indices().nth(max_chars).map(|(i, _)| i);
    let by_lines = text
        .match_indices('\n')
        .nth(max_lines.saturating_sub(1))
        .map(|(i, _)| i);
    match (by_chars, by_lines) {
        (None, None) => None,
        (a, b) => Some(&text[..a.unwrap_or(usize::MAX).min(b.unwrap_or(usize::MAX))]),
    }
}

/// The text of a message's `content`: a string, or the text parts of an
/// array of parts (others named by their type).
fn text_of(content: Option<&Value>) -> Cow<'_, str> {
    match content {
        None | Some(Value::Null) => Cow::Borrowed(""),
        // Issue 39: a lone UTF-16 surrogate shows as `�⟨\ud83d⟩`.
        Some(Value::String(text)) => crate::surrogate::display(text),
        Some(Value::Array(parts)) => Cow::Owned(
            parts
                .iter()
                .map(|part| match part.get("text").and_then(Value::as_str) {
                    Some(text) => crate::surrogate::display(text).into_owned(),
                    None => {
                        let kind = part.get("type").and_then(Value::as_str).unwrap_or("part");
                        format!("[{kind}]")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Some(other) => Cow::Owned(compact_json(other, MAX_TEXT_CHARS * 4)),
    }
}

/// `text` pretty-printed when it is a JSON object or array, as is otherwise.
fn pretty_if_json(text: &str) -> Cow<'_, str> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Cow::Borrowed(text);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => serde_json::to_string_pretty(&value).map_or(Cow::Borrowed(text), Cow::Owned),
        Err(_) => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn preview_shows_the_first_members_cut() {
        let content = json!({"a": "x".repeat(100), "b": [1, 2], "c": null, "d": 1, "e": 2});
        let preview = content_preview(&content, 4, 10);
        assert_eq!(
            preview,
            format!(
                "a: \"{}…  ·  b: [1,2]  ·  c: null  ·  d: 1  ·  +1 more",
                "x".repeat(9)
            )
        );
        assert_eq!(content_preview(&json!({}), 4, 10), "{}");
        assert_eq!(content_preview(&json!(5), 4, 10), "5");
    }

    #[test]
    fn long_texts_are_shortened_by_characters_or_lines() {
        assert_eq!(shortened("short", 10, 3), None);
        assert_eq!(shortened("abcdefghij", 4, 3), Some("abcd"));
        assert_eq!(shortened("a\nb\nc\nd", 100, 2), Some("a\nb"));
        assert_eq!(shortened("a\nb", 100, 2), None);
        assert_eq!(shortened("ééé", 2, 5), Some("éé"));
    }

    #[test]
    fn text_parts_and_json_arguments() {
        let parts = json!([{"type": "text", "text": "q"}, {"type": "image"}]);
        assert_eq!(text_of(Some(&parts)), "q\n[image]");
        assert_eq!(text_of(None), "");
        assert_eq!(pretty_if_json("{\"a\":1}"), "{\n  \"a\": 1\n}");
        assert_eq!(pretty_if_json("{\"a\":"), "{\"a\":");
        assert_eq!(pretty_if_json("plain"), "plain");
    }
}
