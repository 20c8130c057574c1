//! The one table of known divergences between the `ag-ui-client-1.0`
//! profile and the real `@ag-ui/client` 1.0.0: each row names a cause, the
//! rule or issue item that decides it, and a predicate that recognises its
//! minimal stream. When an engine fix lands, its row stops matching
//! anything (the run prints the count per row): delete the row.

use serde_json::Value;

use super::shrink::Case;

/// One known divergence.
pub struct Known {
    /// What differs and why.
    pub cause: &'static str,
    /// The rule, decision or issue item that decides it.
    pub rule: &'static str,
    /// Recognises the minimal stream of this cause.
    pub recognise: fn(&Case) -> bool,
}

/// The row of [`KNOWN`] that recognises a case, if any.
pub fn classify(case: &Case) -> Option<usize> {
    KNOWN.iter().position(|known| (known.recognise)(case))
}

// ------------------------------------------------------------ helpers

/// The patch operations of every activity and state delta.
fn ops(case: &Case) -> impl Iterator<Item = &Value> + '_ {
    case.events.iter().flat_map(|e| {
        let list = match e["type"].as_str() {
            Some("ACTIVITY_DELTA") => e.get("patch"),
            Some("STATE_DELTA") => e.get("delta"),
            _ => None,
        };
        list.and_then(Value::as_array).into_iter().flatten()
    })
}

/// Whether any op of any delta matches.
fn any_op(case: &Case, test: impl Fn(&Value) -> bool) -> bool {
    ops(case).any(test)
}

/// The table: what the client profile does not reproduce (docs/RULES.md
/// P14, all of it the client's patch library, P7). Order matters only
/// where two rows could match one case: the first wins, so the narrower
/// rows come first.
pub const KNOWN: &[Known] = &[
    Known {
        cause: "a JavaScript prototype key (`/toString`) in a pointer resolves as present in the client's patch library (and moving the function out fails the client's structuredClone)",
        rule: "P14, P7 (prototype keys; not reproduced: reading on into a function's own properties through move or copy)",
        recognise: |case| {
            any_op(case, |op| {
                ["path", "from"]
                    .iter()
                    .any(|k| op[*k].as_str().is_some_and(|p| p.contains("/toString")))
            })
        },
    },
    Known {
        cause: "an operation below a content (or state) that a root operation made a primitive: the client's patch library lets it succeed as a no-op",
        rule: "P14, P7 (writing below a primitive)",
        recognise: |case| {
            ops(case).count() >= 2
                && any_op(case, |op| {
                    op["path"] == ""
                        && !op["value"].is_object()
                        && !op["value"].is_array()
                        && !op["value"].is_null()
                        && op.get("value").is_some()
                })
        },
    },
    Known {
        cause: "`copy` to an array index past the end (or from a missing path): the client's patch library appends (or copies `undefined`), where RFC 6902 fails the patch",
        rule: "P14, P7 (a copy to \"\" from a path that does not resolve; reading on into an array's own properties)",
        recognise: |case| any_op(case, |op| op["op"] == "copy"),
    },
    Known {
        cause: "the client's `move` checks the target before removing the source: some valid moves fail, some invalid ones run and lose the value (a move of the whole document into itself makes a cycle)",
        rule: "P14, P7 (not reproduced: a move of the whole document into itself)",
        recognise: |case| any_op(case, |op| op["op"] == "move"),
    },
];
