//! The conversation at the cursor (the centre panel): the messages of the
//! thread as the replay holds them at the step, with what the current event
//! changed highlighted. Activity messages are cards; clicking one selects it
//! for the inspector.
//!
//! Only the visible messages are drawn. Rows keep their measured heights
//! between frames (estimated until first drawn), so a conversation of
//! thousands of messages costs what its visible part costs; a message is
//! compared with its previous version only when it is visible, and only by
//! pointer when the replay shares it.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use egui::text::{LayoutJob, TextWrapping};
use egui::{Align, Id, Layout, Rect, RichText, Sense, TextFormat, Ui, UiBuilder, pos2, vec2};
use serde_json::{Map, Value};

use super::json_tree::{compact_json, memoized};
use super::state::{AppState, Command, CursorView, Doc};
use super::theme;
use crate::protocol::{EventType, ParseOutcome};
use crate::replay::{ActivityMessage, Conversation, Message, OtherMessage, Role};

/// Characters of a text shown before "Show more".
const MAX_TEXT_CHARS: usize = 600;
/// Lines of a text shown before "Show more".
const MAX_TEXT_LINES: usize = 12;
/// Members of an activity's content in its card's preview.
const PREVIEW_KEYS: usize = 4;
/// Characters of each value in the preview.
const PREVIEW_VALUE_CHARS: usize = 48;
/// The height of a row not drawn yet.
const ESTIMATED_ROW_HEIGHT: f32 = 64.0;

/// What the current event did to a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing.
    Same,
    /// It appeared.
    New,
    /// Its JSON differs.
    Changed,
    /// It is gone (shown struck through where it was).
    Removed,
}

/// One row of the list: a message at the cursor, or one the current event
/// removed (by its position one step earlier).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    At(usize),
    Removed(usize),
}

/// Draws the conversation panel.
pub fn conversation_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    let (Some(doc), Some(view)) = (&state.doc, &state.view) else {
        empty_hint_ui(ui, state);
        return;
    };
    let at = view.at.conversation();
    let before = view.before.conversation();
    let rows = removal_rows(ui.ctx(), doc, view);
    let num_rows = rows.as_ref().as_ref().map_or(at.len(), Vec::len);
    let row = |i: usize| rows.as_ref().as_ref().map_or(Row::At(i), |rows| rows[i]);

    ui.horizontal(|ui| {
        ui.strong("Conversation");
        let plural = if at.len() == 1 { "" } else { "s" };
        ui.label(format!(
            "{} message{plural} at step {}",
            at.len(),
            view.step
        ));
        if num_rows > at.len() {
            ui.weak(format!("({} removed by this event)", num_rows - at.len()));
        }
    });
    ui.separator();
    if num_rows == 0 {
        ui.weak("No messages at this step");
        return;
    }

    // When the cursor moves, bring what the event touched into view.
    let list_id = ui.make_persistent_id("conversation");
    let step_id = list_id.with("step");
    let moved = ui.ctx().data(|d| d.get_temp::<u64>(step_id)) != Some(view.step.0);
    ui.ctx().data_mut(|d| d.insert_temp(step_id, view.step.0));
    let target = if moved {
        touched_row(view, num_rows, row)
    } else {
        None
    };

    let selected = state.selected_activity.as_deref();
    virtual_rows_ui(ui, list_id, num_rows, target, |ui, i| {
        let (message, change) = match row(i) {
            Row::At(i) => match at.at(i) {
                Some(message) => (message, change_of(before, message)),
                None => return,
            },
            Row::Removed(j) => match before.at(j) {
                Some(message) => (message, Change::Removed),
                None => return,
            },
        };
        ui.push_id(message.id(), |ui| match message {
            Message::Activity(activity) => {
                let is_selected = selected == Some(activity.id.as_str());
                activity_card_ui(ui, activity, change, is_selected, commands);
            }
            Message::Other(other) => other_message_ui(ui, other, change),
        });
    });
}

/// The hint shown without a document.
fn empty_hint_ui(ui: &mut Ui, state: &AppState) {
    ui.vertical_centered(|ui| {
        ui.add_space(ui.available_height() / 3.0);
        match &state.loading {
            Some(loading) => {
                ui.spinner();
                ui.label(format!("Opening {}…", loading.path.display()));
            }
            None => {
                ui.heading("No recording open");
                ui.label("File › Open… or drop a recording here");
            }
        }
    });
}

/// A key for what depends only on the document and the cursor (the step,
/// the replay options, the event's bytes): panels memoize by it.
pub fn cursor_key(doc: &Doc, view: &CursorView) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    doc.path.hash(&mut hasher);
    doc.session.hash(&mut hasher);
    let options = doc.options();
    options.profile.hash(&mut hasher);
    options.best_effort.hash(&mut hasher);
    doc.num_events().hash(&mut hasher);
    view.step.hash(&mut hasher);
    if let Some(raw) = doc.raw(view.step) {
        raw.as_ptr().hash(&mut hasher);
        raw.len().hash(&mut hasher);
    }
    hasher.finish()
}

/// The rows when the current event removed messages (a `MESSAGES_SNAPSHOT`
/// drops those it does not list, R51); `None` when it removed none, so the
/// rows are the messages at the cursor.
fn removal_rows(ctx: &egui::Context, doc: &Doc, view: &CursorView) -> Arc<Option<Vec<Row>>> {
    let (at, before) = (view.at.conversation(), view.before.conversation());
    let snapshot = matches!(
        &view.event,
        Some(ParseOutcome::Event { event, .. })
            if event.event_type() == EventType::MessagesSnapshot
    );
    if !snapshot && at.len() >= before.len() {
        // Only a messages snapshot removes messages; anything else keeps
        // every message (and a list that shrank is checked anyway).
        return Arc::new(None);
    }
    memoized(
        ctx,
        Id::unique("conversation-removed-rows"),
        cursor_key(doc, view),
        || Arc::new(rows_with_removed(before, at)),
    )
}

/// The messages of `at` with those of `before` that are gone, each placed
/// after the message that preceded it (first when none did).
fn rows_with_removed(before: &Conversation, at: &Conversation) -> Option<Vec<Row>> {
    let mut removed: Vec<(Option<usize>, usize)> = Vec::new();
    let mut previous = None;
    for (j, message) in before.iter().enumerate() {
        match at.position(message.id()) {
            Some(i) => previous = Some(i),
            None => removed.push((previous, j)),
        }
    }
    if removed.is_empty() {
        return None;
    }
    removed.sort_by_key(|&(anchor, _)| anchor.map_or(0, |i| i + 1));
    let mut rows = Vec::with_capacity(at.len() + removed.len());
    let mut pending = removed.into_iter().peekable();
    while let Some((_, j)) = pending.next_if(|(anchor, _)| anchor.is_none()) {
        rows.push(Row::Removed(j));
    }
    for i in 0..at.len() {
        rows.push(Row::At(i));
        while let Some((_, j)) = pending.next_if(|(anchor, _)| *anchor == Some(i)) {
            rows.push(Row::Removed(j));
        }
    }
    Some(rows)
}

/// What the current event did to `message` (a message at the cursor).
fn change_of(before: &Conversation, message: &Message) -> Change {
    match before.get(message.id()) {
        None => Change::New,
        // Shared messages (and shared activity contents) compare by pointer.
        Some(old) if std::ptr::eq(old, message) || old == message => Change::Same,
        Some(_) => Change::Changed,
    }
}

/// The row the current event touched: the message it names, else the last
/// one if it is new or changed.
fn touched_row(view: &CursorView, num_rows: usize, row: impl Fn(usize) -> Row) -> Option<usize> {
    let (at, before) = (view.at.conversation(), view.before.conversation());
    let named = match &view.event {
        Some(ParseOutcome::Event { event, .. }) => event.message_id(),
        Some(ParseOutcome::Malformed { message_id, .. }) => message_id.as_deref(),
        _ => None,
    };
    if let Some(id) = named {
        if let Some(i) = at.position(id) {
            if num_rows == at.len() {
                return Some(i);
            }
            return (0..num_rows).find(|&r| row(r) == Row::At(i));
        }
        if let Some(j) = before.position(id) {
            return (0..num_rows).find(|&r| row(r) == Row::Removed(j));
        }
    }
    let last = at.len().checked_sub(1)?;
    let message = at.at(last)?;
    (change_of(before, message) != Change::Same && num_rows == at.len()).then_some(last)
}

/// Row heights, measured when drawn, with their running sums.
#[derive(Clone, Default)]
struct RowHeights {
    heights: Vec<f32>,
    /// `tops[i]`: where row `i` starts; one more entry than rows.
    tops: Vec<f32>,
    stale: bool,
}

impl RowHeights {
    fn resize(&mut self, num_rows: usize) {
        if self.heights.len() != num_rows {
            self.heights.resize(num_rows, ESTIMATED_ROW_HEIGHT);
            self.stale = true;
        }
    }

    fn refresh(&mut self) {
        if !self.stale && self.tops.len() == self.heights.len() + 1 {
            return;
        }
        self.tops.clear();
        self.tops.reserve(self.heights.len() + 1);
        let mut y = 0.0;
        self.tops.push(y);
        for h in &self.heights {
            y += h;
            self.tops.push(y);
        }
        self.stale = false;
    }

    fn top(&self, row: usize) -> f32 {
        self.tops[row]
    }

    fn total(&self) -> f32 {
        self.tops.last().copied().unwrap_or(0.0)
    }

    /// The row at offset `y` (clamped to the rows).
    fn row_at(&self, y: f32) -> usize {
        let after = self.tops.partition_point(|&top| top <= y);
        after
            .saturating_sub(1)
            .min(self.heights.len().saturating_sub(1))
    }

    /// Records a measured height; returns whether it changed.
    fn set(&mut self, row: usize, height: f32) -> bool {
        let changed = (self.heights[row] - height).abs() > 0.5;
        if changed {
            self.heights[row] = height;
            self.stale = true;
        }
        changed
    }
}

/// A vertical list that draws only the rows in view.
fn virtual_rows_ui(
    ui: &mut Ui,
    id: Id,
    num_rows: usize,
    scroll_to: Option<usize>,
    mut row_ui: impl FnMut(&mut Ui, usize),
) {
    let heights_id = id.with("heights");
    let mut heights = ui
        .ctx()
        .data_mut(|d| d.remove_temp::<RowHeights>(heights_id))
        .unwrap_or_default();
    heights.resize(num_rows);
    heights.refresh();
    let mut remeasured = false;
    egui::ScrollArea::vertical()
        .id_salt(id)
        .auto_shrink(false)
        .show_viewport(ui, |ui, viewport| {
            ui.set_height(heights.total());
            let origin = ui.max_rect().min;
            let width = ui.available_width();
            let mut i = heights.row_at(viewport.min.y);
            while i < num_rows && heights.top(i) < viewport.max.y {
                let top = origin.y + heights.top(i);
                let rect = Rect::from_min_size(pos2(origin.x, top), vec2(width, 1.0e6));
                let mut child = ui.new_child(
                    UiBuilder::new()
                        .max_rect(rect)
                        .layout(Layout::top_down(Align::Min))
                        .id_salt(("row", i)),
                );
                row_ui(&mut child, i);
                let height = child.min_rect().height() + theme::MESSAGE_GAP;
                remeasured |= heights.set(i, height);
                i += 1;
            }
            if let Some(target) = scroll_to.filter(|&t| t < num_rows) {
                let top = origin.y + heights.top(target);
                let rect =
                    Rect::from_min_size(pos2(origin.x, top), vec2(width, heights.heights[target]));
                ui.scroll_to_rect(rect, None);
            }
        });
    if remeasured {
        // Rows below a re-measured one move: draw again with the new sums.
        ui.ctx().request_repaint();
    }
    ui.ctx().data_mut(|d| d.insert_temp(heights_id, heights));
}

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

/// Struck through when the message is gone.
fn struck(text: RichText, change: Change) -> RichText {
    if change == Change::Removed {
        text.strikethrough()
    } else {
        text
    }
}

/// An activity message: type, id, owner and a preview of its content.
fn activity_card_ui(
    ui: &mut Ui,
    activity: &ActivityMessage,
    change: Change,
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
        ui.add(egui::Label::new(job).wrap());
    });
    let rect = frame.response.rect;
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
    let response = response.on_hover_text("Inspect this activity");
    if response.clicked() {
        commands.push(Command::SelectActivity(Some(activity.id.clone())));
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
        parts.push(format!("+{} more", map.len() - max_keys));
    }
    parts.join("  ·  ")
}

/// A text, tool or reasoning message.
fn other_message_ui(ui: &mut Ui, message: &OtherMessage, change: Change) {
    message_frame(ui, change, false).show(ui, |ui| {
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
        Some(Value::String(text)) => Cow::Borrowed(text),
        Some(Value::Array(parts)) => Cow::Owned(
            parts
                .iter()
                .map(|part| match part.get("text").and_then(Value::as_str) {
                    Some(text) => text.to_owned(),
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
    use crate::diagnostic::Seq;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use serde_json::json;

    fn text(id: &str, role: Role) -> Message {
        Message::Other(OtherMessage::empty_text(id, role))
    }

    fn conversation(ids: &[&str]) -> Conversation {
        let mut conversation = Conversation::default();
        for id in ids {
            conversation.push(text(id, Role::User));
        }
        conversation
    }

    #[test]
    fn removed_messages_sit_where_they_were() {
        let before = conversation(&["a", "b", "c", "d"]);
        let at = conversation(&["a", "c", "e"]);
        assert_eq!(
            rows_with_removed(&before, &at),
            Some(vec![
                Row::At(0),
                Row::Removed(1),
                Row::At(1),
                Row::Removed(3),
                Row::At(2),
            ])
        );
        let at = conversation(&["c"]);
        assert_eq!(
            rows_with_removed(&before, &at),
            Some(vec![
                Row::Removed(0),
                Row::Removed(1),
                Row::At(0),
                Row::Removed(3),
            ])
        );
        assert_eq!(rows_with_removed(&at, &before), None);
    }

    #[test]
    fn change_compares_by_id_then_json() {
        let before = conversation(&["a", "b"]);
        let same = text("a", Role::User);
        assert_eq!(change_of(&before, &same), Change::Same);
        let mut edited = OtherMessage::empty_text("b", Role::User);
        edited.append_content("hi");
        assert_eq!(change_of(&before, &Message::Other(edited)), Change::Changed);
        assert_eq!(change_of(&before, &text("z", Role::User)), Change::New);
    }

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

    #[test]
    fn row_heights_find_rows_by_offset() {
        let mut heights = RowHeights::default();
        heights.resize(3);
        heights.refresh();
        assert_eq!(heights.total(), 3.0 * ESTIMATED_ROW_HEIGHT);
        assert!(heights.set(1, 10.0));
        assert!(!heights.set(1, 10.2));
        heights.refresh();
        assert_eq!(heights.top(2), ESTIMATED_ROW_HEIGHT + 10.0);
        assert_eq!(heights.row_at(0.0), 0);
        assert_eq!(heights.row_at(ESTIMATED_ROW_HEIGHT + 5.0), 1);
        assert_eq!(heights.row_at(1.0e9), 2);
    }

    fn demo_state(step: u64) -> AppState {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![Command::SetStep(Seq(step))]);
        state
    }

    fn harness(state: AppState) -> Harness<'static, AppState> {
        Harness::builder()
            .with_size(egui::vec2(700.0, 900.0))
            .build_ui_state(
                |ui, state: &mut AppState| {
                    let mut commands = Vec::new();
                    conversation_ui(ui, state, &mut commands);
                    state.apply(commands);
                },
                state,
            )
    }

    #[test]
    fn clicking_a_card_selects_its_activity() {
        let mut harness = harness(demo_state(14));
        harness.run();
        harness.get_by_label("Activity search-1");
        harness.get_by_label("Activity plan-1").click();
        harness.run();
        assert_eq!(harness.state().selected_activity.as_deref(), Some("plan-1"));
        harness.get_by_label("Activity search-1").click();
        harness.run();
        assert_eq!(
            harness.state().selected_activity.as_deref(),
            Some("search-1")
        );
    }

    #[test]
    fn the_current_events_change_is_marked() {
        let mut harness = harness(demo_state(13));
        harness.run();
        harness.get_by_label("new");
        harness.state_mut().apply(vec![Command::SetStep(Seq(14))]);
        harness.run();
        harness.get_by_label("changed");
        assert!(harness.query_by_label("new").is_none());
    }

    #[test]
    fn without_a_document_a_hint_is_shown() {
        let mut harness = harness(AppState::default());
        harness.run();
        harness.get_by_label("File › Open… or drop a recording here");
    }
}
