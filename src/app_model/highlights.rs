//! What an event did to a value, as marks on JSON pointers: [`Highlights`]
//! from two versions of a value ([`highlights_between`], [`side_by_side`]),
//! and the pointer helpers they are built with.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::ops::Bound;

use json_patch::PatchOperation;
use serde_json::Value;

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
    pub(crate) open: BTreeSet<String>,
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

    /// Opens the containers that lead to `pointer`, so that the tree shows
    /// it, without marking it: where a content breaks its schema (issue
    /// 42), which the event may not have changed.
    pub fn open_to(&mut self, pointer: &str) {
        for ancestor in ancestors(pointer) {
            self.open.insert(ancestor.to_owned());
        }
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&(self.fingerprint, pointer), &mut hasher);
        self.fingerprint = std::hash::Hasher::finish(&hasher);
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
    // A value that is not there on one side (`null`: a message not created
    // yet, or gone) is wholly added or removed on the other.
    match (before.is_null(), after.is_null()) {
        (true, false) => return (Highlights::none(), whole(Mark::Added)),
        (false, true) => return (whole(Mark::Removed), Highlights::none()),
        _ => {}
    }
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

/// The whole value marked.
fn whole(mark: Mark) -> Highlights {
    let mut highlights = Highlights::default();
    highlights.insert(String::new(), mark);
    highlights.fingerprint = fingerprint_of(&highlights.marks);
    highlights
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
    pointer.push_str(&crate::pointer::escape(key));
    pointer
}

/// A pointer token, unescaped.
fn decode_token(token: &str) -> Cow<'_, str> {
    crate::pointer::unescape(token)
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Object(_) | Value::Array(_))
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
    fn a_side_without_the_value_makes_the_other_wholly_added_or_removed() {
        let value = json!({"a": 1});
        let (left, right) = side_by_side(&Value::Null, &value);
        assert!(left.is_empty());
        assert_eq!(right.mark(""), Some(Mark::Added));
        let (left, right) = side_by_side(&value, &Value::Null);
        assert_eq!(left.mark(""), Some(Mark::Removed));
        assert!(right.is_empty());
    }
}
