//! Applying a patch atomically (R11), and saying in plain words why an
//! operation did not apply (R14).

use std::fmt;

use json_patch::jsonptr::Pointer;
use json_patch::jsonptr::index::Index;
use json_patch::{PatchErrorKind, PatchOperation};
use serde_json::Value;

use crate::protocol::{Patch, json_kind, op_name};

/// Why a patch did not apply: the failing operation and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchFailure {
    /// 0-based index of the failing operation in the patch as sent.
    pub index: usize,
    /// Its `op`.
    pub op: &'static str,
    /// Its `path`.
    pub path: String,
    /// Why it failed, in plain words.
    pub reason: String,
}

impl fmt::Display for PatchFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "\"\""
        } else {
            &self.path
        };
        write!(
            f,
            "op {} ({} {}): {}",
            self.index, self.op, path, self.reason
        )
    }
}

/// Applies `patch` to `doc` atomically: on failure `doc` is exactly as before.
pub fn apply_patch(doc: &mut Value, patch: &Patch) -> Result<(), PatchFailure> {
    if patch.ops.is_empty() {
        return Ok(());
    }
    let Err(error) = apply_atomically(doc, &patch.ops) else {
        return Ok(());
    };
    // The failure path: rebuild the document as the failing operation saw it
    // to explain precisely what was missing. Never on the hot path.
    let failing = error.operation;
    let mut before = doc.clone();
    let replay_ok = json_patch::patch_unsafe(&mut before, &patch.ops[..failing]).is_ok();
    let op = &patch.ops[failing];
    let reason = if replay_ok {
        explain(&before, op, &error.kind)
    } else {
        error.kind.to_string()
    };
    Err(PatchFailure {
        index: patch.original_index(failing),
        op: op_name(op),
        path: op.path().to_string(),
        reason,
    })
}

/// R11 without trusting `json_patch::patch`'s undo, which loses the value of
/// a `move` whose removal succeeded and whose insertion failed (and can then
/// panic undoing earlier operations): patches with a `move` are applied to a
/// copy. A single other operation fails before it changes anything, so it
/// needs no undo at all.
fn apply_atomically(doc: &mut Value, ops: &[PatchOperation]) -> Result<(), json_patch::PatchError> {
    let has_move = ops.iter().any(|op| matches!(op, PatchOperation::Move(_)));
    if has_move {
        let mut copy = doc.clone();
        json_patch::patch_unsafe(&mut copy, ops)?;
        *doc = copy;
        Ok(())
    } else if ops.len() == 1 {
        json_patch::patch_unsafe(doc, ops)
    } else {
        json_patch::patch(doc, ops)
    }
}

fn explain(doc: &Value, op: &PatchOperation, kind: &PatchErrorKind) -> String {
    match (op, kind) {
        (PatchOperation::Test(test), PatchErrorKind::TestFailed) => {
            let found = doc
                .pointer(test.path.as_str())
                .map_or_else(|| "nothing".to_owned(), |v| abbreviated(v));
            format!(
                "value differs: expected {}, found {found}",
                abbreviated(&test.value)
            )
        }
        (PatchOperation::Move(m), PatchErrorKind::CannotMoveInsideItself) => {
            format!("cannot move {} inside itself", m.from)
        }
        (PatchOperation::Move(m), PatchErrorKind::InvalidFromPointer) => {
            format!("from {}", missing(doc, &m.from, true))
        }
        (PatchOperation::Copy(c), PatchErrorKind::InvalidFromPointer) => {
            format!("from {}", missing(doc, &c.from, false))
        }
        (PatchOperation::Add(a), _) => missing_parent(doc, &a.path),
        (PatchOperation::Move(m), _) => missing_parent(doc, &m.path),
        (PatchOperation::Copy(c), _) => missing_parent(doc, &c.path),
        (PatchOperation::Remove(r), _) if r.path.is_root() => {
            "the whole document cannot be removed".to_owned()
        }
        (op, _) => missing(doc, op.path(), false),
    }
}

/// Why the parent of `path` cannot take a new member at its last token.
fn missing_parent(doc: &Value, path: &Pointer) -> String {
    let Some((parent, last)) = path.split_back() else {
        return "path is invalid".to_owned();
    };
    let Some(container) = doc.pointer(parent.as_str()) else {
        return missing(doc, parent, false);
    };
    match container {
        Value::Array(items) => match last.to_index() {
            Ok(Index::Num(i)) => format!(
                "index {i} is out of range for {} (length {})",
                display_pointer(parent),
                items.len()
            ),
            _ => format!("{:?} is not an array index", last.decoded()),
        },
        Value::Object(_) => "path is invalid".to_owned(),
        other => format!(
            "{} is {}, not an object or array",
            display_pointer(parent),
            json_kind(other)
        ),
    }
}

/// Why `path` does not resolve in `doc`: the first token that fails.
fn missing(doc: &Value, path: &Pointer, allow_dash: bool) -> String {
    let mut current = doc;
    let mut walked = String::new();
    for token in path.tokens() {
        let name = token.decoded();
        let parent = if walked.is_empty() {
            "the document".to_owned()
        } else {
            walked.clone()
        };
        walked.push('/');
        walked.push_str(token.encoded());
        current = match current {
            Value::Object(map) => match map.get(name.as_ref()) {
                Some(next) => next,
                None => return format!("{walked} does not exist"),
            },
            Value::Array(items) => match token.to_index() {
                Ok(Index::Num(i)) if i < items.len() => &items[i],
                Ok(Index::Num(i)) => {
                    return format!(
                        "index {i} is out of range for {parent} (length {})",
                        items.len()
                    );
                }
                Ok(Index::Next) if allow_dash && !items.is_empty() => &items[items.len() - 1],
                Ok(Index::Next) => return format!("{walked}: \"-\" names no existing element"),
                Err(_) => return format!("{name:?} is not an array index"),
            },
            other => return format!("{parent} is {}, not an object or array", json_kind(other)),
        };
    }
    format!("{} cannot be resolved", display_pointer(path))
}

fn display_pointer(pointer: &Pointer) -> String {
    if pointer.is_root() {
        "the document".to_owned()
    } else {
        pointer.to_string()
    }
}

/// A value's JSON, cut to a length a one-line message can hold.
fn abbreviated(value: &Value) -> String {
    const MAX_CHARS: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX_CHARS {
        text
    } else {
        let cut: String = text.chars().take(MAX_CHARS).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failure(doc: Value, patch: Value) -> (Value, PatchFailure) {
        let elements: Vec<Value> = serde_json::from_value(patch.clone()).expect("array");
        let text = serde_json::to_string(&json!({"type": "STATE_DELTA", "delta": elements}))
            .expect("json");
        let crate::protocol::ParseOutcome::Event { event, .. } =
            crate::protocol::parse_event_str(&text)
        else {
            panic!("not an event");
        };
        let crate::protocol::EventBody::StateDelta { delta } = event.body else {
            panic!("not a delta");
        };
        let mut doc = doc;
        let err = apply_patch(&mut doc, &delta).expect_err("must fail");
        (doc, err)
    }

    #[test]
    fn r11_failure_leaves_the_document_unchanged() {
        let original = json!({"query": "q", "found": 0});
        let (doc, err) = failure(
            original.clone(),
            json!([{"op": "replace", "path": "/found", "value": 9},
                   {"op": "test", "path": "/query", "value": "other"}]),
        );
        assert_eq!(doc, original);
        assert_eq!(
            err.to_string(),
            "op 1 (test /query): value differs: expected \"other\", found \"q\""
        );
    }

    #[test]
    fn r14_reasons_name_what_is_missing() {
        let doc = json!({"a": {"list": [1, 2]}, "n": 3});
        let cases = [
            (
                json!([{"op": "replace", "path": "/missing/deep", "value": 1}]),
                "op 0 (replace /missing/deep): /missing does not exist",
            ),
            (
                json!([{"op": "add", "path": "/a/list/7", "value": 1}]),
                "op 0 (add /a/list/7): index 7 is out of range for /a/list (length 2)",
            ),
            (
                json!([{"op": "add", "path": "/n/x", "value": 1}]),
                "op 0 (add /n/x): /n is a number, not an object or array",
            ),
            (
                json!([{"op": "remove", "path": "/a/list/x"}]),
                "op 0 (remove /a/list/x): \"x\" is not an array index",
            ),
            (
                json!([{"op": "move", "from": "/nope", "path": "/b"}]),
                "op 0 (move /b): from /nope does not exist",
            ),
            (
                json!([{"op": "move", "from": "/a", "path": "/a/b"}]),
                "op 0 (move /a/b): cannot move /a inside itself",
            ),
            (
                json!([{"op": "add", "path": "/b", "value": 1}, {"op": "remove", "path": "/b/c"}]),
                "op 1 (remove /b/c): /b is a number, not an object or array",
            ),
            (
                json!([{"op": "remove", "path": ""}]),
                "op 0 (remove \"\"): the whole document cannot be removed",
            ),
        ];
        for (patch, expected) in cases {
            let (after, err) = failure(doc.clone(), patch);
            assert_eq!(after, doc);
            assert_eq!(err.to_string(), expected);
        }
    }

    #[test]
    fn a_failing_move_loses_nothing() {
        // Regression (issue 2): json_patch's undo dropped the moved value.
        let original = json!({"x": 1});
        let (doc, err) = failure(
            original.clone(),
            json!([{"op": "move", "from": "/x", "path": "/a/0"}]),
        );
        assert_eq!(doc, original);
        assert_eq!(err.index, 0);
        let (doc, _) = failure(
            original.clone(),
            json!([{"op": "replace", "path": "/x", "value": 2},
                   {"op": "move", "from": "/x", "path": "/a/0"}]),
        );
        assert_eq!(doc, original);
    }

    #[test]
    fn failing_index_counts_dropped_operations() {
        let (_, err) = failure(
            json!({}),
            json!([{"op": "frob", "path": "/x"}, {"op": "remove", "path": "/y"}]),
        );
        assert_eq!(err.index, 1);
    }
}
