//! The one table of known divergences between the `ag-ui-client-1.0`
//! profile and the real `@ag-ui/client` 1.0.0: each row names a cause, the
//! rule or issue item that decides it, and a predicate that recognises its
//! minimal stream. When an engine fix lands, its row stops matching
//! anything (the run prints the count per row): delete the row.

use serde_json::Value;

use super::shrink::Case;
use super::streams::NUM;

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

fn of_type<'a>(case: &'a Case, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    case.events.iter().filter(move |e| e["type"] == kind)
}

fn has(case: &Case, kind: &str) -> bool {
    of_type(case, kind).next().is_some()
}

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

/// A JSON string as sent (a number placeholder is a number on the wire).
fn is_text(value: &Value) -> bool {
    value.as_str().is_some_and(|s| !s.starts_with(NUM))
}

/// Whether any op of any delta matches.
fn any_op(case: &Case, test: impl Fn(&Value) -> bool) -> bool {
    ops(case).any(test)
}

/// The ids of every activity the stream creates before event `before`
/// (snapshots, activity messages of a messages snapshot or a run input).
fn activity_ids_before(case: &Case, before: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for event in &case.events[..before] {
        if event["type"] == "ACTIVITY_SNAPSHOT"
            && let Some(id) = event["messageId"].as_str()
        {
            ids.push(id.to_owned());
        }
        let lists = [event.get("messages"), event.pointer("/input/messages")];
        for message in lists
            .into_iter()
            .flatten()
            .filter_map(Value::as_array)
            .flatten()
        {
            if message["role"] == "activity"
                && let Some(id) = message["id"].as_str()
            {
                ids.push(id.to_owned());
            }
        }
    }
    ids
}

/// A text message start, or a tool call start's parent, naming an activity.
fn start_on_activity(case: &Case) -> bool {
    case.events.iter().enumerate().any(|(i, e)| {
        let id = match e["type"].as_str() {
            Some("TEXT_MESSAGE_START") => e["messageId"].as_str(),
            Some("TOOL_CALL_START") => e["parentMessageId"].as_str(),
            _ => None,
        };
        id.is_some_and(|id| activity_ids_before(case, i).iter().any(|a| a == id))
    })
}

/// Same message ids on both sides, in another order.
fn same_ids_other_order(case: &Case) -> bool {
    let ids = |list: &[Value]| -> Vec<String> {
        list.iter()
            .map(|m| m["id"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let (ours, theirs) = (ids(&case.ours.messages), ids(&case.theirs.messages));
    let (mut a, mut b) = (ours.clone(), theirs.clone());
    a.sort();
    b.sort();
    ours != theirs && a == b
}

fn client_error_has(case: &Case, text: &str) -> bool {
    case.theirs
        .error
        .as_deref()
        .is_some_and(|e| e.contains(text))
}

/// `metadata["@ag-ui/client"]` of a messages snapshot that is not an object,
/// or whose `authoritativeActivityTypes` is neither null nor strings.
fn invalid_authority(case: &Case) -> bool {
    of_type(case, "MESSAGES_SNAPSHOT").any(|e| match e.pointer("/metadata/@ag-ui~1client") {
        None => false,
        Some(Value::Object(scope)) => match scope.get("authoritativeActivityTypes") {
            None | Some(Value::Null) => false,
            Some(Value::Array(types)) => !types.iter().all(Value::is_string),
            Some(_) => true,
        },
        Some(_) => true,
    })
}

/// The table. Order matters only where two rows could match one case: the
/// first wins, so the narrower rows come first.
pub const KNOWN: &[Known] = &[
    Known {
        cause: "a patch operation without a string `op`: the engine fails the run (R40), the client drops the operation",
        rule: "issue 18 item 7 (R40, R17)",
        recognise: |case| any_op(case, |op| !is_text(&op["op"])),
    },
    Known {
        cause: "a `test` comparing numbers: the engine compares their text (`1` / `1.0`, `100` / `1e2`, `0` / `-0`, nested too) and skips the delta; the client compares values",
        rule: "issue 18 item 1 (R11, R14, RFC 6902 §4.6)",
        recognise: |case| {
            case.difference.aspect != "outcome"
                && any_op(case, |op| {
                    op["op"] == "test" && op["value"].to_string().contains(NUM)
                })
        },
    },
    Known {
        cause: "a JavaScript prototype key (`/toString`) in a pointer resolves as present in the client's patch library (and moving the function out fails the client's structuredClone)",
        rule: "issue 18 item 8 (R11, R14)",
        recognise: |case| {
            any_op(case, |op| {
                ["path", "from"]
                    .iter()
                    .any(|k| op[*k].as_str().is_some_and(|p| p.contains("/toString")))
            })
        },
    },
    Known {
        cause: "`remove \"\"` sets the content (or state) to null in the client",
        rule: "issue 18 item 8 (R11)",
        recognise: |case| any_op(case, |op| op["op"] == "remove" && op["path"] == ""),
    },
    Known {
        cause: "an operation below a content (or state) that a root operation made a primitive: the client's patch library lets it succeed as a no-op",
        rule: "issue 18 item 8 (R11, R15)",
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
        rule: "not in issue 18's list (item 8's kind: R11, RFC 6902 §4.5)",
        recognise: |case| any_op(case, |op| op["op"] == "copy"),
    },
    Known {
        cause: "the client's `move` checks the target before removing the source: some valid moves fail, some invalid ones run and lose the value",
        rule: "issue 18 item 8 (R11, RFC 6902 §4.4)",
        recognise: |case| any_op(case, |op| op["op"] == "move"),
    },
    Known {
        cause: "a delta on an activity whose content is null: the client patches `{}`",
        rule: "issue 18 item 5 (R10, R15)",
        recognise: |case| {
            has(case, "ACTIVITY_DELTA")
                && (any_op(case, |op| op["path"] == "" && op["value"].is_null())
                    || case
                        .events
                        .iter()
                        .filter_map(|e| e.get("messages").and_then(Value::as_array))
                        .flatten()
                        .any(|m| m["role"] == "activity" && m["content"].is_null()))
        },
    },
    Known {
        cause: "RUN_STARTED.input messages not yet held join the client's conversation; the engine ignores them",
        rule: "issue 18 item 2 (R50, REPLAY-RULES §1)",
        recognise: |case| {
            of_type(case, "RUN_STARTED").any(|e| {
                e.pointer("/input/messages")
                    .and_then(Value::as_array)
                    .is_some_and(|m| !m.is_empty())
            })
        },
    },
    Known {
        cause: "a MESSAGES_SNAPSHOT with one id twice: the client appends both",
        rule: "issue 18 item 6 (R51)",
        recognise: |case| {
            of_type(case, "MESSAGES_SNAPSHOT").any(|e| {
                let ids: Vec<&str> = e["messages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m["id"].as_str())
                    .collect();
                ids.iter().enumerate().any(|(i, id)| ids[..i].contains(id))
            })
        },
    },
    Known {
        cause: "`authoritativeActivityTypes` (or `metadata[\"@ag-ui/client\"]`) with an invalid value: the client owns no activity type and drops none",
        rule: "issue 18 item 4 (§10, R51)",
        recognise: invalid_authority,
    },
    Known {
        cause: "a MESSAGES_SNAPSHOT carrying reasoning messages: the client drops the reasoning messages it does not name",
        rule: "issue 18 item 6 (R51)",
        recognise: |case| {
            case.difference.aspect == "messages"
                && of_type(case, "MESSAGES_SNAPSHOT").any(|e| {
                    e["messages"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|m| m["role"] == "reasoning")
                })
        },
    },
    Known {
        cause: "a TOOL_CALL_RESULT goes right after the assistant message holding its call in the client, at the end in the engine",
        rule: "issue 18 item 3",
        recognise: |case| has(case, "TOOL_CALL_RESULT") && same_ids_other_order(case),
    },
    Known {
        cause: "a TOOL_CALL_RESULT reusing a message id held already (an earlier result, a snapshot's message): the client appends a second message with that id",
        rule: "not in issue 18's list (R51: one message per id); item 3's rule should decide it",
        recognise: |case| {
            case.events.iter().enumerate().any(|(i, e)| {
                e["type"] == "TOOL_CALL_RESULT"
                    && e["messageId"].as_str().is_some_and(|id| {
                        case.events[..i].iter().any(|before| {
                            before["messageId"] == id
                                || before["messages"]
                                    .as_array()
                                    .into_iter()
                                    .flatten()
                                    .any(|m| m["id"] == id)
                        })
                    })
            })
        },
    },
    Known {
        cause: "a TOOL_CALL_START reusing a tool call id already started (ended, or left open by a run that ended): the client's verifier opens it again and its reducer merges the event's metadata into the held call; the engine refuses it",
        rule: "not in issue 18's list (conformance issue: continued entities, R30)",
        recognise: |case| {
            case.events.iter().enumerate().any(|(i, e)| {
                e["type"] == "TOOL_CALL_START"
                    && case.events[..i].iter().any(|before| {
                        before["type"] == "TOOL_CALL_START"
                            && before["toolCallId"] == e["toolCallId"]
                    })
            })
        },
    },
    Known {
        cause: "the client's verifier keeps an activity's owner after its reducer lost the activity (a MESSAGES_SNAPSHOT dropped it, a run reset): a tagged delta is fatal in the client",
        rule: "issue 18 item 8 (R22, R23)",
        recognise: |case| {
            client_error_has(case, "does not match the activity")
                && of_type(case, "ACTIVITY_DELTA").any(|e| e.get("subagentRunId").is_some())
        },
    },
    Known {
        cause: "a text message start (or a tool call's parent) naming an activity: the client's reducer refuses it but its verifier opens it (or the tool call falls back to a new assistant message named by its id); the engine skips it",
        rule: "not in issue 18's list (D2, R9, R13: ids unique across roles)",
        recognise: start_on_activity,
    },
    Known {
        cause: "a text message or tool call continued or parented under another owner: the client's verifier fails the run",
        rule: "conformance issue (attribution of continued entities, R20–R22)",
        recognise: |case| {
            client_error_has(case, "subagentRunId")
                && (client_error_has(case, "does not match the message")
                    || client_error_has(case, "does not match its parent message")
                    || client_error_has(case, "does not match the tool call"))
        },
    },
    Known {
        cause: "a RUN_ERROR after a RUN_ERROR: the client fails the run; the engine delivers it",
        rule: "conformance issue (a late RUN_ERROR, R61)",
        recognise: |case| {
            client_error_has(case, "already errored") && of_type(case, "RUN_ERROR").count() >= 2
        },
    },
];
