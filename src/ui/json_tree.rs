//! A collapsible JSON tree with highlighted paths: what the current event
//! added, changed or removed, with the ancestors of those paths opened.
//!
//! [`highlights_between`] turns two versions of a value into [`Highlights`]
//! (JSON pointers marked [`Mark::Added`], [`Mark::Changed`] or
//! [`Mark::Removed`]); [`json_tree_ui`] draws a value with them. Objects and
//! arrays collapse, keyed by their pointer; a container shows at most
//! [`MAX_CHILDREN`] children at first, so that a value with thousands of
//! members costs no more per frame than one with a few hundred.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::io;
use std::ops::Bound;

use egui::{AsIdSalt, Id, IdSalt, RichText, Ui};
use json_patch::PatchOperation;
use serde_json::Value;

use super::theme;

/// Children of a container shown before "… N more".
pub const MAX_CHILDREN: usize = 200;
/// Characters of a scalar shown inline (the rest on hover).
pub const MAX_INLINE_CHARS: usize = 120;
/// Characters of a value shown on hover.
const MAX_HOVER_CHARS: usize = 4000;
/// Characters of an old value shown after a changed one.
const MAX_OLD_CHARS: usize = 40;
/// Characters of a closed container's JSON shown in its header.
const MAX_CLOSED_CHARS: usize = 60;
/// Top-level containers with at most this many children start open.
const OPEN_BELOW: usize = 12;

/// What the current event did at a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The path is new.
    Added,
    /// The value at the path was replaced.
    Changed,
    /// The path is gone (shown struck through with its old value).
    Removed,
}

/// A member the current event removed, kept to be shown where it was.
#[derive(Clone, Debug, PartialEq)]
pub struct RemovedMember {
    /// Its key or index, decoded.
    pub key: String,
    /// Its pointer (in the value before).
    pub pointer: String,
    /// Its value before.
    pub value: Value,
}

/// The paths of a value that an event added, changed or removed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Highlights {
    marks: BTreeMap<String, Mark>,
    /// Proper ancestors of marked paths: open by default.
    open: BTreeSet<String>,
    /// Removed members, by the pointer of their container.
    removed: BTreeMap<String, Vec<RemovedMember>>,
    /// The old value of changed scalars (shown after the new one).
    old: BTreeMap<String, Value>,
    fingerprint: u64,
}

impl Highlights {
    /// No highlight.
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether nothing is marked.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    /// The number of marked paths.
    pub fn len(&self) -> usize {
        self.marks.len()
    }

    /// The marked paths, in pointer order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Mark)> + '_ {
        self.marks.iter().map(|(p, m)| (p.as_str(), *m))
    }

    /// The mark at a pointer.
    pub fn mark(&self, pointer: &str) -> Option<Mark> {
        self.marks.get(pointer).copied()
    }

    /// Whether a marked path lies strictly below `pointer` (so it opens).
    pub fn is_open(&self, pointer: &str) -> bool {
        self.open.contains(pointer)
    }

    /// The members removed from the container at `pointer`.
    pub fn removed_in(&self, pointer: &str) -> &[RemovedMember] {
        self.removed.get(pointer).map_or(&[], Vec::as_slice)
    }

    /// The old value of a changed scalar.
    pub fn old_value(&self, pointer: &str) -> Option<&Value> {
        self.old.get(pointer)
    }

    /// The decoded keys of the direct children of `pointer` that are marked
    /// or lead to a mark (present in the value after; removed members are
    /// listed by [`Self::removed_in`]).
    pub fn highlighted_children(&self, pointer: &str) -> BTreeSet<String> {
        let prefix = format!("{pointer}/");
        let below = |set: &mut BTreeSet<String>, key: &str| {
            if let Some(rest) = key.strip_prefix(prefix.as_str()) {
                let token = rest.split('/').next().unwrap_or(rest);
                set.insert(decode_token(token).into_owned());
            }
        };
        let mut children = BTreeSet::new();
        let range = (Bound::Included(prefix.as_str()), Bound::Unbounded);
        for (key, mark) in self.marks.range::<str, _>(range) {
            if !key.starts_with(prefix.as_str()) {
                break;
            }
            if *mark != Mark::Removed || key[prefix.len()..].contains('/') {
                below(&mut children, key);
            }
        }
        for key in self.open.range::<str, _>(range) {
            if !key.starts_with(prefix.as_str()) {
                break;
            }
            below(&mut children, key);
        }
        children
    }

    /// A hash of the marked paths: when it changes, the tree opens the
    /// ancestors of the new marks again, even those the user closed.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The open set and the fingerprint again, after marks were dropped.
    fn rebuild_open(&mut self) {
        self.open = self
            .marks
            .keys()
            .flat_map(|pointer| ancestors(pointer).map(str::to_owned))
            .collect();
        self.fingerprint = fingerprint_of(&self.marks);
    }

    fn insert(&mut self, pointer: String, mark: Mark) {
        for ancestor in ancestors(&pointer) {
            self.open.insert(ancestor.to_owned());
        }
        self.marks.insert(pointer, mark);
    }
}

/// What changed from `before` to `after`: `add` → [`Mark::Added`], `replace`
/// → [`Mark::Changed`], `remove` → [`Mark::Removed`] (with the old value),
/// from `json_patch::diff`. With no `before`, the whole value is added.
///
/// Arrays are compared position by position (as `json_patch::diff` does): an
/// element inserted at the front marks every later one changed.
pub fn highlights_between(before: Option<&Value>, after: &Value) -> Highlights {
    let mut highlights = Highlights::default();
    let Some(before) = before else {
        highlights.insert(String::new(), Mark::Added);
        highlights.fingerprint = fingerprint_of(&highlights.marks);
        return highlights;
    };
    // `diff` names every removal at the tail of an array by the same index
    // (the array shrinks as it goes): the k-th one was k elements further.
    let mut tail_removals: BTreeMap<String, usize> = BTreeMap::new();
    for op in json_patch::diff(before, after).0 {
        match op {
            PatchOperation::Add(add) => highlights.insert(add.path.to_string(), Mark::Added),
            PatchOperation::Replace(replace) => {
                let pointer = replace.path.to_string();
                if let Some(old) = before.pointer(&pointer).filter(|v| is_scalar(v)) {
                    highlights.old.insert(pointer.clone(), old.clone());
                }
                highlights.insert(pointer, Mark::Changed);
            }
            PatchOperation::Remove(remove) => {
                let sent = remove.path.to_string();
                let Some((parent, token)) = sent.rsplit_once('/') else {
                    continue;
                };
                let seen = tail_removals.entry(sent.clone()).or_default();
                let pointer = match (before.pointer(parent), token.parse::<usize>()) {
                    (Some(Value::Array(_)), Ok(index)) => format!("{parent}/{}", index + *seen),
                    _ => sent.clone(),
                };
                *seen += 1;
                let Some(value) = before.pointer(&pointer).cloned() else {
                    continue;
                };
                let key = decode_token(pointer.rsplit_once('/').map_or("", |(_, t)| t));
                highlights
                    .removed
                    .entry(parent.to_owned())
                    .or_default()
                    .push(RemovedMember {
                        key: key.into_owned(),
                        pointer: pointer.clone(),
                        value,
                    });
                highlights.insert(pointer, Mark::Removed);
            }
            // `diff` emits only add, replace and remove.
            PatchOperation::Move(_) | PatchOperation::Copy(_) | PatchOperation::Test(_) => {}
        }
    }
    highlights.fingerprint = fingerprint_of(&highlights.marks);
    highlights
}

/// The two sides of a side-by-side diff: `before` with what is gone marked
/// [`Mark::Removed`] and what was replaced [`Mark::Changed`]; `after` with
/// what is new marked [`Mark::Added`] and what was replaced
/// [`Mark::Changed`] (its old value shown after it). Neither side repeats
/// the other's members.
pub fn side_by_side(before: &Value, after: &Value) -> (Highlights, Highlights) {
    let mut right = highlights_between(Some(before), after);
    right.removed.clear();
    right.marks.retain(|_, mark| *mark != Mark::Removed);
    right.rebuild_open();
    let mut left = highlights_between(Some(after), before);
    left.removed.clear();
    left.old.clear();
    for mark in left.marks.values_mut() {
        match *mark {
            Mark::Added => *mark = Mark::Removed,
            Mark::Removed => *mark = Mark::Added,
            Mark::Changed => {}
        }
    }
    left.marks.retain(|_, mark| *mark != Mark::Added);
    left.rebuild_open();
    (left, right)
}

fn fingerprint_of(marks: &BTreeMap<String, Mark>) -> u64 {
    if marks.is_empty() {
        return 0;
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    marks.hash(&mut hasher);
    hasher.finish()
}

/// The proper ancestors of a pointer, root (`""`) first.
fn ancestors(pointer: &str) -> impl Iterator<Item = &str> + '_ {
    pointer
        .char_indices()
        .filter(|&(_, c)| c == '/')
        .map(move |(i, _)| &pointer[..i])
}

/// The pointer of a member of the container at `parent` (RFC 6901 escaping).
pub fn child_pointer(parent: &str, key: &str) -> String {
    let mut pointer = String::with_capacity(parent.len() + key.len() + 1);
    pointer.push_str(parent);
    pointer.push('/');
    for c in key.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
    pointer
}

/// A pointer token, unescaped.
fn decode_token(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Object(_) | Value::Array(_))
}

/// `text` cut to `max_chars` characters, with `…` when cut.
pub fn truncate_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// A value as one line of JSON, cut to `max_chars` characters (with `…`).
/// Serializes at most about `max_chars` bytes, however big the value.
pub fn compact_json(value: &Value, max_chars: usize) -> String {
    /// A writer that refuses bytes past its limit, stopping the serializer.
    struct Bounded {
        bytes: Vec<u8>,
        limit: usize,
    }
    impl io::Write for Bounded {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let room = self.limit.saturating_sub(self.bytes.len());
            if room == 0 {
                return Err(io::Error::other("full"));
            }
            let n = room.min(buf.len());
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    // Characters take up to 4 bytes; one more byte tells "cut" from "fits".
    let mut writer = Bounded {
        bytes: Vec::new(),
        limit: max_chars.saturating_mul(4).saturating_add(1),
    };
    let _ = serde_json::to_writer(&mut writer, value);
    let text = String::from_utf8_lossy(&writer.bytes);
    let text = text.strip_suffix('\u{fffd}').unwrap_or(&text);
    let full = writer.bytes.len() < writer.limit;
    match truncate_chars(text, max_chars) {
        Cow::Borrowed(fits) if full => fits.to_owned(),
        Cow::Borrowed(fits) => format!("{fits}…"),
        Cow::Owned(cut) => cut,
    }
}

/// The inline text of a scalar (strings quoted and escaped), or a short
/// summary of a container (`{3 keys}`, `[5 items]`).
pub fn inline_text(value: &Value) -> String {
    match value {
        Value::Object(map) => count_label(map.len(), "key", "{", "}"),
        Value::Array(items) => count_label(items.len(), "item", "[", "]"),
        scalar => compact_json(scalar, MAX_INLINE_CHARS),
    }
}

fn count_label(n: usize, noun: &str, open: &str, close: &str) -> String {
    if n == 0 {
        return format!("{open}{close}");
    }
    let plural = if n == 1 { "" } else { "s" };
    format!("{open}{n} {noun}{plural}{close}")
}

/// Draws `value` as a collapsible tree with `highlights`; `id_salt` keeps
/// the open state of its nodes apart from other trees.
pub fn json_tree_ui(ui: &mut Ui, id_salt: impl AsIdSalt, value: &Value, highlights: &Highlights) {
    JsonTree::new(id_salt, value)
        .highlights(highlights)
        .show(ui);
}

/// A JSON tree with options: highlights, and notes after some members.
pub struct JsonTree<'a> {
    id_salt: IdSalt,
    value: &'a Value,
    highlights: Option<&'a Highlights>,
    notes: Option<&'a BTreeMap<String, String>>,
    collapse_unchanged: bool,
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
        }
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

    /// A short note shown after the member at each pointer (weak text).
    pub fn notes(mut self, notes: &'a BTreeMap<String, String>) -> Self {
        self.notes = Some(notes);
        self
    }

    /// Draws the tree.
    pub fn show(self, ui: &mut Ui) {
        let none = Highlights::default();
        let highlights = self.highlights.unwrap_or(&none);
        let base = ui.make_persistent_id(self.id_salt);
        // Reveal the marks of a new event once, even in nodes the user closed.
        let seen = ui.ctx().data(|d| d.get_temp::<u64>(base));
        let reveal = !highlights.is_empty() && seen != Some(highlights.fingerprint);
        ui.ctx().data_mut(|d| {
            d.insert_temp(base, highlights.fingerprint);
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
                .small_button(format!("… {hidden} more"))
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
            egui::CollapsingHeader::new(RichText::new(header).monospace())
                .id_salt(("json", &pointer))
                .open(Some(open))
                .show(ui, |ui| {
                    self.children_ui(ui, &pointer, value, painted || own.is_some(), depth + 1);
                })
                .header_response
                .clicked()
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
                    ui.label(RichText::new(format!("{key}:")).monospace());
                }
                let text = inline_text(value);
                let color = theme::json_value_color(ui.visuals(), value);
                let response = ui.label(RichText::new(&text).monospace().color(color));
                if text.ends_with('…') {
                    response.on_hover_text(compact_json(value, MAX_HOVER_CHARS));
                }
                if self.highlights.mark(pointer) == Some(Mark::Changed)
                    && let Some(old) = self.highlights.old_value(pointer)
                {
                    ui.label(
                        RichText::new(format!("was {}", compact_json(old, MAX_OLD_CHARS)))
                            .small()
                            .weak(),
                    );
                }
                if let Some(note) = self.note(pointer) {
                    ui.label(RichText::new(note).small().weak());
                }
            });
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

/// A value computed once per key and kept in egui's memory under `id` (the
/// panels use it for what depends only on the cursor: recomputing it at every
/// frame would cost as much as the stream is long).
pub fn memoized<T: Clone + Send + Sync + 'static>(
    ctx: &egui::Context,
    id: Id,
    key: u64,
    compute: impl FnOnce() -> T,
) -> T {
    if let Some((stored, value)) = ctx.data(|d| d.get_temp::<(u64, T)>(id))
        && stored == key
    {
        return value;
    }
    let value = compute();
    ctx.data_mut(|d| d.insert_temp(id, (key, value.clone())));
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn marks(highlights: &Highlights) -> Vec<(&str, Mark)> {
        highlights.iter().collect()
    }

    #[test]
    fn no_before_marks_the_whole_value_added() {
        let highlights = highlights_between(None, &json!({"a": 1}));
        assert_eq!(marks(&highlights), vec![("", Mark::Added)]);
        assert!(!highlights.is_open(""));
    }

    #[test]
    fn equal_values_have_no_highlight() {
        let value = json!({"a": [1, {"b": null}]});
        let highlights = highlights_between(Some(&value), &value);
        assert!(highlights.is_empty());
        assert_eq!(highlights, Highlights::none());
    }

    #[test]
    fn add_replace_remove_map_to_marks_and_open_ancestors() {
        let before = json!({"found": 1, "results": [{"t": "a"}], "gone": {"x": 1}});
        let after = json!({"found": 2, "results": [{"t": "a"}, {"t": "b"}], "stats": {"n": 2}});
        let highlights = highlights_between(Some(&before), &after);
        assert_eq!(
            marks(&highlights),
            vec![
                ("/found", Mark::Changed),
                ("/gone", Mark::Removed),
                ("/results/1", Mark::Added),
                ("/stats", Mark::Added),
            ]
        );
        assert!(highlights.is_open(""));
        assert!(highlights.is_open("/results"));
        assert!(!highlights.is_open("/found"));
        assert!(!highlights.is_open("/stats"));
        assert_eq!(highlights.old_value("/found"), Some(&json!(1)));
        assert_eq!(
            highlights.removed_in(""),
            &[RemovedMember {
                key: "gone".into(),
                pointer: "/gone".into(),
                value: json!({"x": 1}),
            }]
        );
    }

    #[test]
    fn removals_at_an_array_tail_keep_their_own_index_and_value() {
        let before = json!({"items": ["a", "b", "c", "d"]});
        let after = json!({"items": ["a"]});
        let highlights = highlights_between(Some(&before), &after);
        let removed: Vec<(&str, &Value)> = highlights
            .removed_in("/items")
            .iter()
            .map(|r| (r.key.as_str(), &r.value))
            .collect();
        assert_eq!(
            removed,
            vec![("1", &json!("b")), ("2", &json!("c")), ("3", &json!("d"))]
        );
        assert_eq!(highlights.mark("/items/3"), Some(Mark::Removed));
        assert!(highlights.is_open("/items"));
    }

    #[test]
    fn deep_change_opens_every_ancestor_and_escapes_keys() {
        let before = json!({"a/b": {"c~d": {"e": 1}}});
        let after = json!({"a/b": {"c~d": {"e": 2}}});
        let highlights = highlights_between(Some(&before), &after);
        assert_eq!(marks(&highlights), vec![("/a~1b/c~0d/e", Mark::Changed)]);
        for open in ["", "/a~1b", "/a~1b/c~0d"] {
            assert!(highlights.is_open(open), "{open}");
        }
        assert_eq!(
            highlights.highlighted_children(""),
            BTreeSet::from(["a/b".to_owned()])
        );
        assert_eq!(
            highlights.highlighted_children("/a~1b"),
            BTreeSet::from(["c~d".to_owned()])
        );
    }

    #[test]
    fn a_type_change_is_a_replacement() {
        let highlights = highlights_between(Some(&json!({"a": [1]})), &json!({"a": {"x": 1}}));
        assert_eq!(marks(&highlights), vec![("/a", Mark::Changed)]);
        assert_eq!(highlights.old_value("/a"), None);
        let root = highlights_between(Some(&json!({})), &json!(5));
        assert_eq!(marks(&root), vec![("", Mark::Changed)]);
    }

    #[test]
    fn highlighted_children_skip_removed_members() {
        let before = json!({"keep": 1, "drop": 2});
        let after = json!({"keep": 3});
        let highlights = highlights_between(Some(&before), &after);
        assert_eq!(
            highlights.highlighted_children(""),
            BTreeSet::from(["keep".to_owned()])
        );
    }

    #[test]
    fn fingerprint_follows_the_marked_paths() {
        let a = highlights_between(Some(&json!({"x": 1})), &json!({"x": 2}));
        let b = highlights_between(Some(&json!({"x": 5})), &json!({"x": 6}));
        let c = highlights_between(Some(&json!({"x": 1})), &json!({"y": 1}));
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), c.fingerprint());
    }

    #[test]
    fn pointers_escape_tilde_and_slash() {
        assert_eq!(child_pointer("", "a"), "/a");
        assert_eq!(child_pointer("/x", "a/b~c"), "/x/a~1b~0c");
        assert_eq!(decode_token("a~1b~0c"), "a/b~c");
        assert_eq!(
            ancestors("/a/b/c").collect::<Vec<_>>(),
            vec!["", "/a", "/a/b"]
        );
        assert_eq!(ancestors("").count(), 0);
    }

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("héllo", 10), "héllo");
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(truncate_chars("", 0), "");
    }

    #[test]
    fn compact_json_is_bounded_and_marks_cuts() {
        assert_eq!(compact_json(&json!({"a": [1, 2]}), 100), r#"{"a":[1,2]}"#);
        assert_eq!(compact_json(&json!("abcdef"), 8), r#""abcdef""#);
        assert_eq!(compact_json(&json!("abcdefg"), 8), r#""abcdefg…"#);
        let big = Value::Array((0..100_000).map(Value::from).collect());
        let text = compact_json(&big, 20);
        assert_eq!(text.chars().count(), 21);
        assert!(text.starts_with("[0,1,2,3"));
        assert!(text.ends_with('…'));
        assert_eq!(compact_json(&json!("ééééé"), 3), "\"éé…");
    }

    #[test]
    fn inline_text_quotes_strings_and_counts_containers() {
        assert_eq!(inline_text(&json!("a\nb")), r#""a\nb""#);
        assert_eq!(inline_text(&json!(null)), "null");
        assert_eq!(inline_text(&json!({"a": 1})), "{1 key}");
        assert_eq!(inline_text(&json!([1, 2])), "[2 items]");
        assert_eq!(inline_text(&json!([])), "[]");
    }

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
        harness.get_by_label("… 4799 more");
        harness.get_by_label("4321:");
        assert!(harness.query_by_label("250:").is_none());
        // Far below the window: clicked through accessibility.
        harness.get_by_label("… 4799 more").click_accesskit();
        harness.run();
        harness.get_by_label("250:");
    }
}
