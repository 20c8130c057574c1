//! The inspector's patch table: an event's patch operation by operation,
//! with what became of each (applied, undone, failed, not reached, dropped).

use std::collections::BTreeMap;
use std::sync::Arc;

use egui::{Id, RichText, Ui};
use serde_json::{Map, Value};

use crate::app_model::json_text::compact_json;
use crate::app_model::state::CursorView;
use crate::protocol::{Patch, op_name};
use crate::replay::apply_patch;
use crate::ui::memo::memoized;
use crate::ui::rule_text;
use crate::ui::theme;

/// Characters of a patch value shown in the grid (the rest on hover).
const MAX_VALUE_CHARS: usize = 32;
/// Characters of a value shown on hover.
const MAX_HOVER_CHARS: usize = 4000;

/// What became of one operation of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpStatus {
    /// It applied.
    Applied,
    /// It applied, then was taken back when a later one failed (R11).
    Undone,
    /// It failed, for this reason (R14).
    Failed(String),
    /// After the failing one: never tried.
    NotReached,
    /// Its `op` is unknown: dropped from the patch (R17).
    Dropped,
    /// The event never reached its patch (skipped, fatal, or after a fatal
    /// error).
    NotApplied,
}

/// The status of every operation of `patch`, by index as sent, applying it
/// again to `before` (the target as the event found it; `None` when the event
/// did not reach its patch).
pub fn op_statuses(patch: &Patch, before: Option<&Value>) -> Vec<(usize, OpStatus)> {
    let failure = before.and_then(|before| apply_patch(&mut before.clone(), patch).err());
    let mut statuses: Vec<(usize, OpStatus)> = (0..patch.ops.len())
        .map(|i| {
            let index = patch.original_index(i);
            let status = match (&failure, before) {
                (_, None) => OpStatus::NotApplied,
                (None, Some(_)) => OpStatus::Applied,
                (Some(f), _) if index < f.index => OpStatus::Undone,
                (Some(f), _) if index == f.index => OpStatus::Failed(f.reason.clone()),
                (Some(_), _) => OpStatus::NotReached,
            };
            (index, status)
        })
        .chain(patch.dropped.iter().map(|d| (d.index, OpStatus::Dropped)))
        .collect();
    statuses.sort_by_key(|(index, _)| *index);
    statuses
}

/// One operation of a patch as a row of the grid.
struct OpRow<'a> {
    op: &'a str,
    path: String,
    from: Option<String>,
    value: Option<&'a Value>,
    extra: Option<&'a Map<String, Value>>,
}

fn op_rows(patch: &Patch) -> BTreeMap<usize, OpRow<'_>> {
    use json_patch::PatchOperation as P;
    let mut rows = BTreeMap::new();
    for (i, op) in patch.ops.iter().enumerate() {
        let (from, value) = match op {
            P::Add(o) => (None, Some(&o.value)),
            P::Replace(o) => (None, Some(&o.value)),
            P::Test(o) => (None, Some(&o.value)),
            P::Move(o) => (Some(o.from.to_string()), None),
            P::Copy(o) => (Some(o.from.to_string()), None),
            P::Remove(_) => (None, None),
        };
        let extra = patch
            .meta
            .get(i)
            .map(|m| &m.extra)
            .filter(|e| !e.is_empty());
        rows.insert(
            patch.original_index(i),
            OpRow {
                op: op_name(op),
                path: op.path().to_string(),
                from,
                value,
                extra,
            },
        );
    }
    for dropped in &patch.dropped {
        let text = |key: &str| {
            dropped
                .value
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        rows.insert(
            dropped.index,
            OpRow {
                // E9: an operation with no string `op` is dropped too.
                op: dropped.op.as_deref().unwrap_or("(no op)"),
                path: text("path").unwrap_or_default(),
                from: text("from"),
                value: dropped.value.get("value"),
                extra: None,
            },
        );
    }
    rows
}

/// The patch op by op: index, op, path, from, value, extra members (R16)
/// and what became of it.
pub(super) fn patch_ui(
    ui: &mut Ui,
    view: &CursorView,
    title: &str,
    patch: &Patch,
    before: Option<&Value>,
) {
    egui::CollapsingHeader::new(title)
        .id_salt("inspector-patch")
        .default_open(true)
        .show(ui, |ui| {
            if patch.ops.is_empty() && patch.dropped.is_empty() {
                ui.weak("An empty patch: nothing to do");
                return;
            }
            let statuses = memoized(
                ui.ctx(),
                Id::unique("inspector-patch-statuses"),
                view.generation,
                view.step,
                || Arc::new(op_statuses(patch, before)),
            );
            let rows = op_rows(patch);
            let with_extra = rows.values().any(|row| row.extra.is_some());
            egui::ScrollArea::horizontal()
                .id_salt("inspector-patch-scroll")
                .show(ui, |ui| {
                    egui::Grid::new("inspector-patch-grid")
                        .striped(true)
                        .num_columns(if with_extra { 7 } else { 6 })
                        .show(ui, |ui| {
                            for header in ["#", "op", "path", "result", "from", "value"] {
                                ui.strong(header);
                            }
                            if with_extra {
                                let extra = "extra (R16)";
                                rule_text::on_hover_cited(ui.strong(extra), extra, None);
                            }
                            ui.end_row();
                            for (index, status) in statuses.iter() {
                                let Some(row) = rows.get(index) else { continue };
                                op_row_ui(ui, *index, row, status, with_extra);
                            }
                        });
                });
            for (index, status) in statuses.iter() {
                if let OpStatus::Failed(reason) = status {
                    let text =
                        format!("op {index} failed: {reason}. Nothing of the patch applied (R11)");
                    let response = ui.colored_label(ui.visuals().warn_fg_color, &text);
                    rule_text::on_hover_cited(response, &text, None);
                }
            }
            if before.is_none() {
                ui.weak("The event did not reach its patch: see its diagnostics above");
            }
        });
}

fn op_row_ui(ui: &mut Ui, index: usize, row: &OpRow<'_>, status: &OpStatus, with_extra: bool) {
    ui.label(index.to_string());
    ui.label(RichText::new(row.op).monospace());
    ui.label(RichText::new(display_path(&row.path)).monospace());
    op_status_ui(ui, status);
    ui.label(RichText::new(row.from.as_deref().map_or(String::new(), display_path)).monospace());
    match row.value {
        Some(value) => {
            let text = compact_json(value, MAX_VALUE_CHARS);
            let response = ui.label(
                RichText::new(&text)
                    .monospace()
                    .color(theme::json_value_color(ui.visuals(), value)),
            );
            if text.ends_with('…') {
                response.on_hover_text(compact_json(value, MAX_HOVER_CHARS));
            }
        }
        None => {
            ui.label("");
        }
    }
    if with_extra {
        match row.extra {
            Some(extra) => {
                let extra = Value::Object(extra.clone());
                ui.label(RichText::new(compact_json(&extra, MAX_VALUE_CHARS)).monospace())
                    .on_hover_text(compact_json(&extra, MAX_HOVER_CHARS));
            }
            None => {
                ui.label("");
            }
        }
    }
    ui.end_row();
}

/// What became of an operation, coloured, with why on hover.
fn op_status_ui(ui: &mut Ui, status: &OpStatus) {
    let visuals = ui.visuals();
    let (text, color, hover) = match status {
        OpStatus::Applied => ("applied", visuals.text_color(), None),
        OpStatus::Undone => (
            "undone",
            visuals.weak_text_color(),
            Some("Applied, then taken back when a later operation failed: a patch is atomic (R11)"),
        ),
        OpStatus::Failed(reason) => ("failed", visuals.warn_fg_color, Some(reason.as_str())),
        OpStatus::NotReached => (
            "not reached",
            visuals.weak_text_color(),
            Some("After the failing operation: never tried"),
        ),
        OpStatus::Dropped => (
            "dropped",
            visuals.warn_fg_color,
            Some("Unknown op: dropped from the patch, the rest applies (R17)"),
        ),
        OpStatus::NotApplied => ("not applied", visuals.weak_text_color(), None),
    };
    let response = ui.colored_label(color, text);
    if let Some(hover) = hover {
        rule_text::on_hover_cited(response, hover, Some(hover));
    }
}

/// A pointer for display: the root is `""`.
fn display_path(path: &str) -> String {
    if path.is_empty() {
        "\"\"".to_owned()
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{EventBody, ParseOutcome};
    use serde_json::json;

    fn patch(ops: Value) -> Patch {
        let text = json!({"type": "STATE_DELTA", "delta": ops}).to_string();
        match crate::protocol::parse_event_str(&text) {
            ParseOutcome::Event { event, .. } => match event.body {
                EventBody::StateDelta { delta } => delta,
                other => panic!("not a delta: {other:?}"),
            },
            other => panic!("not an event: {other:?}"),
        }
    }

    #[test]
    fn statuses_of_an_applied_patch() {
        let patch = patch(json!([{"op": "add", "path": "/a", "value": 1}]));
        assert_eq!(
            op_statuses(&patch, Some(&json!({}))),
            vec![(0, OpStatus::Applied)]
        );
        assert_eq!(op_statuses(&patch, None), vec![(0, OpStatus::NotApplied)]);
    }

    #[test]
    fn statuses_of_a_failed_patch_with_a_dropped_op() {
        let patch = patch(json!([
            {"op": "replace", "path": "/found", "value": 3},
            {"op": "frob", "path": "/x"},
            {"op": "test", "path": "/found", "value": 9},
            {"op": "add", "path": "/b", "value": 1}
        ]));
        let statuses = op_statuses(&patch, Some(&json!({"found": 2})));
        assert_eq!(statuses[0], (0, OpStatus::Undone));
        assert_eq!(statuses[1], (1, OpStatus::Dropped));
        assert!(
            matches!(&statuses[2], (2, OpStatus::Failed(reason)) if reason.contains("expected 9"))
        );
        assert_eq!(statuses[3], (3, OpStatus::NotReached));
        let rows = op_rows(&patch);
        assert_eq!(rows[&1].op, "frob");
        assert_eq!(rows[&1].path, "/x");
        assert_eq!(rows[&3].value, Some(&json!(1)));
    }
}
