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
        rule: "P14, P7 (prototype keys resolve as present; the minimal stream moves the whole document into `/toString`, which P7 does not reproduce)",
        recognise: |case| {
            any_op(case, |op| {
                ["path", "from"]
                    .iter()
                    .any(|k| op[*k].as_str().is_some_and(|p| p.contains("/toString")))
            })
        },
    },
    Known {
        cause: "a `move` of the whole document (`from: \"\"`) into itself: the client's patch library makes the document cyclic",
        rule: "P14, P7 (not reproduced: a move of the whole document into itself)",
        recognise: |case| {
            any_op(case, |op| {
                op["op"] == "move" && op["from"] == "" && op["path"] != ""
            })
        },
    },
    Known {
        cause: "a `move` or `copy` to `\"\"` from a path that does not resolve: the client's content becomes `undefined` (no `content` member), shown as `null` here",
        rule: "P14, P7 (a move or copy to \"\" from a path that does not resolve)",
        recognise: |case| {
            any_op(case, |op| {
                (op["op"] == "move" || op["op"] == "copy") && op["path"] == ""
            })
        },
    },
];
