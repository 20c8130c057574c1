//! A collapsible JSON tree with highlighted paths: what the current event
//! added, changed or removed, with the ancestors of those paths opened.
//!
//! [`crate::app_model::highlights::highlights_between`] turns two versions of a value into [`Highlights`]
//! (JSON pointers marked [`Mark::Added`], [`Mark::Changed`] or
//! [`Mark::Removed`]); [`json_tree_ui`] draws a value with them. Objects and
//! arrays collapse, keyed by their pointer; a container shows at most
//! [`MAX_CHILDREN`] children at first, so that a value with thousands of
//! members costs no more per frame than one with a few hundred.

use crate::app_model::highlights::{Highlights, Mark, RemovedMember, child_pointer};
use crate::app_model::json_text::{MAX_INLINE_CHARS, compact_json, inline_text};

use crate::app_model::words::thousands;
use std::collections::BTreeMap;

use egui::{AsIdSalt, Id, IdSalt, RichText, Ui};
use serde_json::Value;

use super::theme;

/// Children of a container shown before "… N more".
pub const MAX_CHILDREN: usize = 200;
/// Characters of a value shown on hover.
const MAX_HOVER_CHARS: usize = 4000;
/// Characters of an old value shown after a changed one.
const MAX_OLD_CHARS: usize = 40;
/// Characters of a closed container's JSON shown in its header.
const MAX_CLOSED_CHARS: usize = 60;
/// Top-level containers with at most this many children start open.
const OPEN_BELOW: usize = 12;

/// Draws `value` as a collapsible tree with `highlights`; `id_salt` keeps
/// the open state of its nodes apart from other trees.
pub fn json_tree_ui(ui: &mut Ui, id_salt: impl AsIdSalt, value: &Value, highlights: &Highlights) {
    JsonTree::new(id_salt, value)
        .highlights(highlights)
        .show(ui);
}

/// A blame hint: the line to show and the step a click goes to.
pub type BlameHint = (String, crate::diagnostic::Seq);

/// What answers a pointer with its hint.
type HintFn<'a> = dyn Fn(&str) -> Option<BlameHint> + 'a;

/// Blame on hover (issue 17.2): for a value's pointer in the tree, the
/// line to show ("set at step 412 by op 2 of ACTIVITY_DELTA; 7 changes")
/// and the step a click goes to; after [`JsonTree::show`], the step
/// clicked.
pub struct BlameHook<'a> {
    hint: Box<HintFn<'a>>,
    clicked: std::cell::Cell<Option<crate::diagnostic::Seq>>,
}

impl<'a> BlameHook<'a> {
    /// A hook answering a pointer (relative to the tree's root) with the
    /// hint and its step, or `None` for no tooltip.
    pub fn new(hint: impl Fn(&str) -> Option<BlameHint> + 'a) -> Self {
        Self {
            hint: Box::new(hint),
            clicked: std::cell::Cell::new(None),
        }
    }

    /// The step of the value clicked while the tree showed, if any.
    pub fn clicked(&self) -> Option<crate::diagnostic::Seq> {
        self.clicked.get()
    }
}

/// A JSON tree with options: highlights, and notes after some members.
pub struct JsonTree<'a> {
    id_salt: IdSalt,
    value: &'a Value,
    highlights: Option<&'a Highlights>,
    notes: Option<&'a BTreeMap<String, String>>,
    collapse_unchanged: bool,
    /// The pointer of the tree's root in the document search reads
    /// (`/content` for an activity's content), when rows offer a search.
    search_prefix: Option<&'a str>,
    blame: Option<&'a BlameHook<'a>>,
}

impl<'a> JsonTree<'a> {
    /// A tree of `value`.
    pub fn new(id_salt: impl AsIdSalt, value: &'a Value) -> Self {
        Self {
            id_salt: IdSalt::new(id_salt),
            value,
            highlights: None,
            notes: None,
            collapse_unchanged: false,
            search_prefix: None,
            blame: None,
        }
    }

    /// Show, on hover of a value, which step last set it; a click on the
    /// value goes there ([`BlameHook::clicked`]).
    pub fn blame(mut self, hook: &'a BlameHook<'a>) -> Self {
        self.blame = Some(hook);
        self
    }

    /// Highlight what an event added, changed or removed.
    pub fn highlights(mut self, highlights: &'a Highlights) -> Self {
        self.highlights = Some(highlights);
        self
    }

    /// Open only the containers that lead to a mark (a diff), not the small
    /// top-level ones.
    pub fn collapse_unchanged(mut self) -> Self {
        self.collapse_unchanged = true;
        self
    }

    /// Offer, in each row's context menu, to search over time for the
    /// steps where that value changes; `prefix` is the pointer of the tree's
    /// root in the searched document. [`Self::show`] returns the pointer
    /// picked.
    pub fn search_menu(mut self, prefix: &'a str) -> Self {
        self.search_prefix = Some(prefix);
        self
    }

    /// A short note shown after the member at each pointer (weak text).
    pub fn notes(mut self, notes: &'a BTreeMap<String, String>) -> Self {
        self.notes = Some(notes);
        self
    }

    /// Draws the tree; returns the pointer (prefixed) a row's context menu
    /// asked to search for, if any.
    pub fn show(self, ui: &mut Ui) -> Option<String> {
        let none = Highlights::default();
        let highlights = self.highlights.unwrap_or(&none);
        let base = ui.make_persistent_id(self.id_salt);
        // Reveal the marks of a new event once, even in nodes the user closed.
        let seen = ui.ctx().data(|d| d.get_temp::<u64>(base));
        let reveal = !highlights.is_empty() && seen != Some(highlights.fingerprint());
        ui.ctx().data_mut(|d| {
            d.insert_temp(base, highlights.fingerprint());
            if reveal {
                for pointer in &highlights.open {
                    d.insert_temp(open_id(base, pointer), true);
                }
            }
        });
        let painter = Painter {
            base,
            highlights,
            notes: self.notes,
            search_prefix: self.search_prefix,
            search_chosen: std::cell::RefCell::new(None),
            blame: self.blame,
            open_below: if self.collapse_unchanged {
                0
            } else {
                OPEN_BELOW
            },
        };
        ui.push_id(base, |ui| {
            let mark = highlights.mark("");
            match self.value {
                Value::Object(_) | Value::Array(_) if !container_is_empty(self.value) => {
                    painter.row_background(ui, mark, |ui| {
                        painter.children_ui(ui, "", self.value, mark.is_some(), 0);
                    });
                }
                scalar => painter.scalar_ui(ui, None, "", scalar, mark),
            }
        });
        painter.search_chosen.into_inner()
    }
}

fn container_is_empty(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => true,
    }
}

fn container_len(value: &Value) -> usize {
    match value {
        Value::Object(map) => map.len(),
        Value::Array(items) => items.len(),
        _ => 0,
    }
}

/// What every node of one tree needs.
struct Painter<'a> {
    base: Id,
    highlights: &'a Highlights,
    notes: Option<&'a BTreeMap<String, String>>,
    search_prefix: Option<&'a str>,
    /// The pointer a row's context menu asked to search for.
    search_chosen: std::cell::RefCell<Option<String>>,
    blame: Option<&'a BlameHook<'a>>,
    /// Top-level containers with at most this many children start open.
    open_below: usize,
}

/// Where the tree keeps whether the container at `pointer` is open.
fn open_id(base: Id, pointer: &str) -> Id {
    base.with(("open", pointer))
}

impl Painter<'_> {
    /// Draws `add` with a full-width background for a mark.
    fn row_background<R>(
        &self,
        ui: &mut Ui,
        mark: Option<Mark>,
        add: impl FnOnce(&mut Ui) -> R,
    ) -> R {
        let Some(mark) = mark else {
            return add(ui);
        };
        let slot = ui.painter().add(egui::Shape::Noop);
        let response = ui.scope(add);
        let color = match mark {
            Mark::Added => theme::changed_background(ui.visuals()),
            Mark::Changed => theme::modified_background(ui.visuals()),
            Mark::Removed => theme::removed_background(ui.visuals()),
        };
        let rect =
            egui::Rect::from_x_y_ranges(ui.max_rect().x_range(), response.response.rect.y_range());
        ui.painter()
            .set(slot, egui::Shape::rect_filled(rect, 2.0, color));
        response.inner
    }

    fn note(&self, pointer: &str) -> Option<&str> {
        self.notes?.get(pointer).map(String::as_str)
    }

    /// The children of a container, at most [`MAX_CHILDREN`] (or as many
    /// as the user asked for) plus the highlighted ones further on, then the
    /// removed ones. `painted`: an ancestor's background covers them.
    fn children_ui(&self, ui: &mut Ui, pointer: &str, value: &Value, painted: bool, depth: usize) {
        let limit_id = self.base.with(("limit", pointer));
        let limit = ui
            .ctx()
            .data(|d| d.get_temp::<usize>(limit_id))
            .unwrap_or(MAX_CHILDREN);
        let len = container_len(value);
        let extra: Vec<String> = if len > limit {
            self.highlights
                .highlighted_children(pointer)
                .into_iter()
                .filter(|key| match value {
                    Value::Array(_) => key.parse::<usize>().is_ok_and(|i| i >= limit && i < len),
                    Value::Object(map) => {
                        map.contains_key(key.as_str())
                            && map
                                .keys()
                                .position(|k| k == key)
                                .is_some_and(|i| i >= limit)
                    }
                    _ => false,
                })
                .collect()
        } else {
            Vec::new()
        };
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter().take(limit) {
                    self.member_ui(ui, key, pointer, child, painted, depth);
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate().take(limit) {
                    self.member_ui(ui, &index.to_string(), pointer, child, painted, depth);
                }
            }
            _ => {}
        }
        if len > limit {
            let hidden = len - limit - extra.len();
            let more = ui
                .small_button(format!("… {} more", thousands(hidden as u64)))
                .on_hover_text(format!("Show {MAX_CHILDREN} more"));
            if more.clicked() {
                ui.ctx()
                    .data_mut(|d| d.insert_temp(limit_id, limit + MAX_CHILDREN));
            }
            for key in &extra {
                let child = match value {
                    Value::Object(map) => map.get(key.as_str()),
                    Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                    _ => None,
                };
                if let Some(child) = child {
                    self.member_ui(ui, key, pointer, child, painted, depth);
                }
            }
        }
        for removed in self.highlights.removed_in(pointer) {
            self.removed_ui(ui, removed);
        }
    }

    fn member_ui(
        &self,
        ui: &mut Ui,
        key: &str,
        parent: &str,
        value: &Value,
        painted: bool,
        depth: usize,
    ) {
        let pointer = child_pointer(parent, key);
        let own = self.highlights.mark(&pointer);
        // Inside a marked container, the container's background says it all.
        let mark = own.filter(|_| !painted);
        if container_is_empty(value) {
            self.scalar_ui(ui, Some(key), &pointer, value, mark);
            return;
        }
        let open_for_highlight = self.highlights.is_open(&pointer);
        let default_open =
            open_for_highlight || (depth == 0 && container_len(value) <= self.open_below);
        // The tree keeps its own open state (the header is told), so that the
        // header can show what it hides and a new event can reveal its marks.
        let open_id = open_id(self.base, &pointer);
        let stored = ui.ctx().data(|d| d.get_temp::<bool>(open_id));
        let mut open = stored.unwrap_or(default_open);
        // Closed, a container shows the start of its JSON; open, its size.
        let summary = if open {
            inline_text(value)
        } else {
            compact_json(value, MAX_CLOSED_CHARS)
        };
        let mut header = format!("{key}  {summary}");
        if let Some(note) = self.note(&pointer) {
            header.push_str("   ");
            header.push_str(note);
        }
        let clicked = self.row_background(ui, mark, |ui| {
            let header = egui::CollapsingHeader::new(RichText::new(header).monospace())
                .id_salt(("json", &pointer))
                .open(Some(open))
                .show(ui, |ui| {
                    self.children_ui(ui, &pointer, value, painted || own.is_some(), depth + 1);
                })
                .header_response;
            // Cut by the panel's edge (a narrow window): whole on hover.
            let header = whole_on_hover_if_cut(ui, header, || compact_json(value, MAX_HOVER_CHARS));
            self.row_menu(&header, &pointer, value);
            header.clicked()
        });
        if clicked {
            open = !open;
            ui.ctx().request_repaint();
        }
        if stored != Some(open) {
            ui.ctx().data_mut(|d| d.insert_temp(open_id, open));
        }
    }

    /// `key: value` on one line, strings quoted, long ones cut (whole on
    /// hover); a changed scalar shows its old value after it.
    fn scalar_ui(
        &self,
        ui: &mut Ui,
        key: Option<&str>,
        pointer: &str,
        value: &Value,
        mark: Option<Mark>,
    ) {
        self.row_background(ui, mark, |ui| {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                if let Some(key) = key {
                    // Issue 43: a key (a member's name, an array's index)
                    // offers the row's menu as its value does.
                    let key = ui.add(
                        egui::Label::new(RichText::new(format!("{key}:")).monospace())
                            .sense(egui::Sense::click()),
                    );
                    self.row_menu(&key, pointer, value);
                }
                let text = inline_text(value);
                let color = theme::json_value_color(ui.visuals(), value);
                let mut label = egui::Label::new(RichText::new(&text).monospace().color(color));
                if self.blame.is_some() {
                    label = label.sense(egui::Sense::click());
                }
                let mut response = ui.add(label);
                // Issue 17.2: which step set it, on hover; a click goes there.
                if let Some(hook) = self.blame
                    && (response.hovered() || response.clicked())
                    && let Some((hint, step)) = (hook.hint)(pointer)
                {
                    if response.clicked() {
                        hook.clicked.set(Some(step));
                    }
                    response = response
                        .on_hover_text(format!("{hint}\nClick to go to step {step}"))
                        .on_hover_cursor(egui::CursorIcon::PointingHand);
                }
                if text.ends_with('…') {
                    response = response.on_hover_text(compact_json(value, MAX_HOVER_CHARS));
                } else {
                    response = whole_on_hover_if_cut(ui, response, || {
                        compact_json(value, MAX_HOVER_CHARS)
                    });
                }
                self.row_menu(&response, pointer, value);
                if self.highlights.mark(pointer) == Some(Mark::Changed)
                    && let Some(old) = self.highlights.old_value(pointer)
                {
                    ui.label(
                        RichText::new(format!("was {}", compact_json(old, MAX_OLD_CHARS)))
                            .monospace()
                            .weak(),
                    );
                }
                if let Some(note) = self.note(pointer) {
                    ui.label(RichText::new(note).small().weak());
                }
            });
        });
    }

    /// A row's context menu: copy its value or its pointer, and search over
    /// time for when it changes (when the tree offers it).
    fn row_menu(&self, response: &egui::Response, pointer: &str, value: &Value) {
        let full = |prefix: &str| format!("{prefix}{pointer}");
        response.context_menu(|ui| {
            if ui.button("Copy value").clicked() {
                let text = serde_json::to_string_pretty(value).unwrap_or_default();
                ui.ctx().copy_text(text);
                ui.close();
            }
            let prefix = self.search_prefix.unwrap_or("");
            if ui
                .button("Copy JSON pointer")
                .on_hover_text(full(prefix))
                .clicked()
            {
                ui.ctx().copy_text(full(prefix));
                ui.close();
            }
            if let Some(prefix) = self.search_prefix
                && ui
                    .button("Find the steps where this changes")
                    .on_hover_text("Search over time, in the Search tab")
                    .clicked()
            {
                *self.search_chosen.borrow_mut() = Some(full(prefix));
                ui.close();
            }
        });
    }

    /// A removed member: struck through, with its old value.
    fn removed_ui(&self, ui: &mut Ui, removed: &RemovedMember) {
        self.row_background(ui, Some(Mark::Removed), |ui| {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                ui.label(
                    RichText::new(format!("{}:", removed.key))
                        .monospace()
                        .strikethrough(),
                );
                let text = compact_json(&removed.value, MAX_INLINE_CHARS);
                let response = ui.label(RichText::new(&text).monospace().strikethrough());
                if text.ends_with('…') {
                    response.on_hover_text(compact_json(&removed.value, MAX_HOVER_CHARS));
                }
                ui.label(RichText::new("removed").small().weak());
            });
        });
    }
}

/// `response` with `whole` as its tooltip when the panel's edge cuts it
/// (issue 13, point 5: no text cut without a tooltip).
fn whole_on_hover_if_cut(
    ui: &Ui,
    response: egui::Response,
    whole: impl FnOnce() -> String,
) -> egui::Response {
    if response.rect.right() > ui.clip_rect().right() + 0.5 {
        response.on_hover_text(whole())
    } else {
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::highlights::highlights_between;
    use serde_json::json;

    #[test]
    fn a_closed_container_shows_its_json_and_an_open_one_its_size() {
        let value = json!({"a": {"b": 1}});
        let highlights = Highlights::none();
        let mut harness = egui_kittest::Harness::new_ui(|ui| {
            json_tree_ui(ui, "small", &value, &highlights);
        });
        harness.run();
        use egui_kittest::kittest::Queryable;
        harness.get_by_label("a  {1 key}").click();
        harness.run();
        harness.get_by_label(r#"a  {"b":1}"#);
        assert!(harness.query_by_label("b:").is_none());
    }

    #[test]
    fn a_new_event_reopens_the_path_to_its_marks() {
        let before = json!({"a": {"b": {"c": 1}}, "big": (0..50).collect::<Vec<_>>()});
        let mut after = before.clone();
        after["a"]["b"]["c"] = json!(2);
        let state = (before.clone(), Highlights::none());
        let mut harness = egui_kittest::Harness::new_ui_state(
            |ui, (value, highlights): &mut (Value, Highlights)| {
                json_tree_ui(ui, "reveal", value, highlights);
            },
            state,
        );
        harness.run();
        use egui_kittest::kittest::Queryable;
        // Closed by default below the top level.
        assert!(harness.query_by_label("c:").is_none());
        *harness.state_mut() = (after.clone(), highlights_between(Some(&before), &after));
        harness.run();
        harness.get_by_label("c:");
        harness.get_by_label("was 1");
    }

    #[test]
    fn big_values_show_a_bounded_number_of_rows() {
        let big = json!({"items": (0..5000).collect::<Vec<_>>()});
        let mut after = big.clone();
        after["items"][4321] = json!("changed");
        let highlights = highlights_between(Some(&big), &after);
        let mut harness = egui_kittest::Harness::new_ui(|ui| {
            json_tree_ui(ui, "big", &after, &highlights);
        });
        harness.run();
        use egui_kittest::kittest::Queryable;
        harness.get_by_label("… 4,799 more");
        harness.get_by_label("4321:");
        assert!(harness.query_by_label("250:").is_none());
        // Far below the window: clicked through accessibility.
        harness.get_by_label("… 4,799 more").click_accesskit();
        harness.run();
        harness.get_by_label("250:");
    }
}
