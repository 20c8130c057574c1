//! What a patch may build (issue 12): bounds that no real stream reaches
//! and that keep every document a debugger can show, serialise, diff and
//! drop without exhausting the stack or the memory.
//!
//! A document (an activity's `content`, or the shared state) comes either
//! from an event, which the parser bounds (`serde_json` refuses JSON nested
//! deeper than 127 arrays and objects), or from patches. Patches are
//! bounded here: `copy` and `move` can nest a value into itself, and
//! `copy` doubles a value per operation, so a few kilobytes of patch could
//! otherwise build a document tens of thousands of levels deep (every
//! recursive walk of it overflows the stack) or gigabytes large. An
//! operation that would pass a limit fails the patch, which is skipped
//! atomically like any failed patch (R11), with a diagnostic of its own.

use serde_json::Value;

use crate::diagnostic::Code;

/// The deepest a document may nest arrays and objects: `serde_json`'s own
/// parse limit (127 levels in an event, so a snapshot's content has at most
/// 126) with a little room, so that every document a stream can send fits
/// and every recursive walk of a document (clone, drop, serialisation, the
/// diff, the JSON tree) stays within 128 frames.
pub const MAX_DOCUMENT_DEPTH: usize = 128;

/// The most a patch may make a document weigh, as [`document_bytes`]
/// counts it (about what the tree takes in memory): 64 MiB. An operation
/// that makes a document heavier than this fails; one that shrinks or
/// keeps a heavier document (a large snapshot) applies. A patch may also
/// copy at most this much in all, so that copying and removing a value over
/// and over cannot make it work without end.
pub const MAX_DOCUMENT_BYTES: usize = 64 << 20;

/// The most operations a patch may apply: 10,000 (a generated diff of a
/// large document has hundreds).
pub const MAX_PATCH_OPS: usize = 10_000;

/// What [`document_bytes`] counts for every value (a `serde_json::Value`).
const VALUE_BYTES: usize = std::mem::size_of::<Value>();

/// What it counts for an object member, besides its value and its name.
pub(super) const MEMBER_BYTES: usize = 32;

/// What an operation's value weighs and how deeply it nests, as the limits
/// of what a patch may build count them ([`MAX_DOCUMENT_BYTES`],
/// [`MAX_DOCUMENT_DEPTH`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueWeight {
    /// [`document_bytes`] of the value.
    pub bytes: usize,
    /// The arrays and objects it nests (0 for a scalar, one more than the
    /// deepest element for an array or object).
    pub depth: usize,
}

/// The limit a patch would have passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// [`MAX_DOCUMENT_DEPTH`].
    Depth,
    /// [`MAX_DOCUMENT_BYTES`].
    Bytes,
    /// [`MAX_PATCH_OPS`].
    Ops,
}

impl Limit {
    /// Its diagnostic code.
    pub fn code(self) -> Code {
        match self {
            Self::Depth => Code::PatchLimitDepth,
            Self::Bytes => Code::PatchLimitBytes,
            Self::Ops => Code::PatchLimitOps,
        }
    }
}

/// The weight of a document: for every value the size of a
/// `serde_json::Value`, plus the bytes of strings, plus for every object
/// member its name and a fixed overhead. Exact and additive, so a patch
/// keeps it up to date from what each operation inserts and removes.
pub fn document_bytes(value: &Value) -> usize {
    // A walk bounded in depth is the fast way for every document the
    // replay holds; a value built by code may nest deeper.
    measure(value, MAX_DOCUMENT_DEPTH).unwrap_or_else(|| weigh_iteratively(value))
}

/// [`document_bytes`] without recursion, for values of any depth.
fn weigh_iteratively(value: &Value) -> usize {
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total = total.saturating_add(VALUE_BYTES);
        match value {
            Value::String(text) => total = total.saturating_add(text.len()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (key, item) in map {
                    total = total.saturating_add(MEMBER_BYTES + key.len());
                    stack.push(item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    total
}

/// The weight of `value` ([`document_bytes`]) if it nests at most
/// `max_depth` arrays and objects; `None` if it nests deeper. The walk
/// stops at `max_depth`, so it recurses at most that deep whatever the
/// value.
pub(super) fn measure(value: &Value, max_depth: usize) -> Option<usize> {
    weigh(value, max_depth).map(|weight| weight.bytes)
}

/// The weight ([`document_bytes`]) and nesting depth of `value`, in one
/// walk, if it nests at most [`MAX_DOCUMENT_DEPTH`] arrays and objects:
/// what a reader records of a patch's values so that applying it need not
/// walk them (issue 14). `measure(value, room)` is then `Some(bytes)`
/// exactly when `depth <= room`.
pub(crate) fn value_weight(value: &Value) -> Option<ValueWeight> {
    weigh(value, MAX_DOCUMENT_DEPTH)
}

/// The weight and depth of `value` if it nests at most `room` arrays and
/// objects (a scalar needs no room, an array or object one more than its
/// deepest element); the walk recurses at most `room` deep.
fn weigh(value: &Value, room: usize) -> Option<ValueWeight> {
    let scalar = |bytes| {
        Some(ValueWeight {
            bytes: VALUE_BYTES + bytes,
            depth: 0,
        })
    };
    let mut total = ValueWeight {
        bytes: VALUE_BYTES,
        depth: 1,
    };
    let mut add = |member_bytes: usize, item: ValueWeight| {
        total.bytes = total.bytes.saturating_add(member_bytes + item.bytes);
        total.depth = total.depth.max(item.depth + 1);
    };
    match value {
        Value::String(text) => return scalar(text.len()),
        Value::Null | Value::Bool(_) | Value::Number(_) => return scalar(0),
        Value::Array(items) => {
            let inner = room.checked_sub(1)?;
            for item in items {
                add(0, weigh(item, inner)?);
            }
        }
        Value::Object(map) => {
            let inner = room.checked_sub(1)?;
            for (key, item) in map {
                add(MEMBER_BYTES + key.len(), weigh(item, inner)?);
            }
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn measure_agrees_with_document_bytes_and_stops_at_the_depth() {
        let value = json!({"a": [1, "xyz", {"b": null}], "cd": true});
        assert_eq!(measure(&value, 3), Some(weigh_iteratively(&value)));
        assert_eq!(document_bytes(&value), weigh_iteratively(&value));
        assert_eq!(measure(&value, 2), None);
        assert_eq!(measure(&json!(5), 0), Some(VALUE_BYTES));
        assert_eq!(measure(&json!([]), 0), None);
    }

    /// Issue 14: what the reader records of a value gives, for every
    /// room, exactly what measuring it as it is applied gives.
    #[test]
    fn a_value_weight_answers_as_measure_does_for_every_room() {
        let deep = (0..MAX_DOCUMENT_DEPTH).fold(json!("x"), |v, i| {
            if i % 2 == 0 {
                json!([v, 1])
            } else {
                json!({"k": v, "e": []})
            }
        });
        let values = [
            json!(null),
            json!("text"),
            json!([]),
            json!({}),
            json!({"a": [1, "xyz", {"b": null}], "cd": true}),
            json!([[[]], {"x": {"y": {"z": []}}}, 2.5]),
            deep.clone(),
        ];
        for value in &values {
            let weight = value_weight(value).expect("within the depth");
            for room in 0..=MAX_DOCUMENT_DEPTH {
                let measured = measure(value, room);
                let recorded = (weight.depth <= room).then_some(weight.bytes);
                assert_eq!(recorded, measured, "{value} in room {room}");
            }
        }
        assert_eq!(value_weight(&json!([deep])), None, "deeper than the limit");
    }

    #[test]
    fn document_bytes_adds_up_members_and_strings() {
        let empty = document_bytes(&json!({}));
        let one = document_bytes(&json!({"key": "value"}));
        assert_eq!(one - empty, MEMBER_BYTES + 3 + VALUE_BYTES + 5);
    }
}
