//! RFC 6902 patches as they arrive in `ACTIVITY_DELTA.patch` and
//! `STATE_DELTA.delta`: validated (R40), with unknown operations dropped (R17)
//! and members RFC 6902 does not define kept (R16).

use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation, ReplaceOperation,
    TestOperation,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::fields::{Fields, Malformed, kind_of};
use crate::limits::ValueWeight;

/// What RFC 6902 does not carry of one operation: its position in the patch
/// as sent, and the members the RFC does not define.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpMeta {
    /// 0-based index in the patch as sent (dropped operations keep theirs).
    pub index: usize,
    /// Members RFC 6902 does not define, kept as sent (R16).
    pub extra: Map<String, Value>,
}

/// The `op` name of an operation.
pub fn op_name(op: &PatchOperation) -> &'static str {
    match op {
        PatchOperation::Add(_) => "add",
        PatchOperation::Remove(_) => "remove",
        PatchOperation::Replace(_) => "replace",
        PatchOperation::Move(_) => "move",
        PatchOperation::Copy(_) => "copy",
        PatchOperation::Test(_) => "test",
    }
}

/// An operation dropped because its `op` is not one RFC 6902 defines (R17),
/// or is no string at all (absent, a number, `null`: R17 as amended, E9).
#[derive(Clone, Debug, PartialEq)]
pub struct DroppedOp {
    /// 0-based index in the patch as sent.
    pub index: usize,
    /// The unknown `op` name; `None` when the operation has no string `op`.
    pub op: Option<String>,
    /// The operation as sent.
    pub value: Value,
}

/// A validated patch.
#[derive(Clone, Default)]
pub struct Patch {
    /// The operations to apply, in order, in the form `json_patch` takes.
    pub ops: Vec<PatchOperation>,
    /// For each of `ops`, its original index and extra members; empty when
    /// every operation sits at its own index and has no extra member.
    pub meta: Vec<OpMeta>,
    /// Operations dropped by R17.
    pub dropped: Vec<DroppedOp>,
    /// For each of `ops`, what the value of an `add` or `replace` weighs,
    /// measured as the patch was read ([`Self::measure_values`]): on the
    /// thread that reads events, not the one that applies them (issue 14).
    /// Empty when not measured (the replay then measures as it applies).
    /// Not part of the patch's value: it is left out of `==` and `{:?}`.
    pub(crate) weights: Vec<Option<ValueWeight>>,
}

impl PartialEq for Patch {
    fn eq(&self, other: &Self) -> bool {
        self.ops == other.ops && self.meta == other.meta && self.dropped == other.dropped
    }
}

impl std::fmt::Debug for Patch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Patch")
            .field("ops", &self.ops)
            .field("meta", &self.meta)
            .field("dropped", &self.dropped)
            .finish()
    }
}

impl Patch {
    /// A patch of these operations, each at its own index, none dropped,
    /// their values measured.
    pub fn from_ops(ops: Vec<PatchOperation>) -> Self {
        let mut patch = Self {
            ops,
            ..Self::default()
        };
        patch.measure_values();
        patch
    }

    /// Measures the values of the `add` and `replace` operations for the
    /// limits (issue 14: the reader does it, so that the applying thread
    /// does not walk each inserted value). Call again after changing `ops`.
    pub fn measure_values(&mut self) {
        self.weights = self
            .ops
            .iter()
            .map(|op| match op {
                PatchOperation::Add(AddOperation { value, .. })
                | PatchOperation::Replace(ReplaceOperation { value, .. }) => {
                    crate::limits::value_weight(value)
                }
                _ => None,
            })
            .collect();
    }

    /// What the value of `ops[i]` weighs, if it was measured.
    pub(crate) fn weight_of(&self, i: usize) -> Option<ValueWeight> {
        weight_in(&self.weights, self.ops.len(), i)
    }

    /// The index, in the patch as sent, of `ops[i]`.
    pub fn original_index(&self, i: usize) -> usize {
        self.meta.get(i).map_or(i, |meta| meta.index)
    }
}

/// What the value of operation `i` of `num_ops` weighs, from the weights
/// measured (none if they were not, or the operations changed in number).
pub(crate) fn weight_in(
    weights: &[Option<ValueWeight>],
    num_ops: usize,
    i: usize,
) -> Option<ValueWeight> {
    if weights.len() == num_ops {
        weights.get(i).copied().flatten()
    } else {
        None
    }
}

/// Parses the elements of a patch array; `base` is the pointer of the array
/// inside the event (`/patch`). A malformed operation fails the whole event.
pub(crate) fn parse_patch(elements: &[&RawValue], base: &str) -> Result<Patch, Malformed> {
    let mut patch = Patch {
        ops: Vec::with_capacity(elements.len()),
        meta: Vec::with_capacity(elements.len()),
        ..Patch::default()
    };
    for (index, raw) in elements.iter().enumerate() {
        let here = format!("{base}/{index}");
        let mut fields = Fields::parse(raw.get(), here.clone()).map_err(|_| {
            Malformed::new(
                here.clone(),
                format!(
                    "operation {index} must be an object, found {}",
                    kind_of(raw)
                ),
            )
        })?;
        // E9 (issue 18): `op` is the discriminator of the union of RFC 6902
        // operations; an element whose `op` is absent or not a string is
        // an unrecognised member of that union like an unknown name (R17,
        // corpus `state-delta-unknown-op-dropped`): dropped with a warning.
        let name = match fields.value("op")? {
            Some(Value::String(name)) => Some(name),
            _ => None,
        };
        let op = match name.as_deref() {
            Some(known @ ("add" | "remove" | "replace" | "move" | "copy" | "test")) => {
                parse_known_op(&mut fields, known)?
            }
            _ => {
                let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                patch.dropped.push(DroppedOp {
                    index,
                    op: name,
                    value,
                });
                continue;
            }
        };
        let mut extra = Map::new();
        let unused: Vec<String> = fields.unused().map(str::to_owned).collect();
        for key in unused {
            if let Some(value) = fields.value(&key)? {
                extra.insert(key, value);
            }
        }
        patch.ops.push(op);
        patch.meta.push(OpMeta { index, extra });
    }
    let trivial = patch
        .meta
        .iter()
        .enumerate()
        .all(|(i, meta)| meta.index == i && meta.extra.is_empty());
    if trivial {
        patch.meta = Vec::new();
    }
    patch.measure_values();
    Ok(patch)
}

fn parse_known_op(fields: &mut Fields<'_>, name: &str) -> Result<PatchOperation, Malformed> {
    let path = pointer(fields, "path")?;
    Ok(match name {
        "add" => PatchOperation::Add(AddOperation {
            path,
            value: fields.required_value("value")?,
        }),
        "remove" => PatchOperation::Remove(RemoveOperation { path }),
        "replace" => PatchOperation::Replace(ReplaceOperation {
            path,
            value: fields.required_value("value")?,
        }),
        "move" => PatchOperation::Move(MoveOperation {
            from: pointer(fields, "from")?,
            path,
        }),
        "copy" => PatchOperation::Copy(CopyOperation {
            from: pointer(fields, "from")?,
            path,
        }),
        _ => PatchOperation::Test(TestOperation {
            path,
            value: fields.required_value("value")?,
        }),
    })
}

fn pointer(fields: &mut Fields<'_>, name: &str) -> Result<PointerBuf, Malformed> {
    let text = fields.required_string(name)?;
    PointerBuf::parse(text.as_str()).map_err(|e| {
        Malformed::new(
            fields.path(name),
            format!("`{name}` {text:?} is not a JSON pointer: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Patch, Malformed> {
        let elements: Vec<&RawValue> = serde_json::from_str(text).expect("array");
        parse_patch(&elements, "/patch")
    }

    #[test]
    fn r16_extra_members_are_kept_and_r17_unknown_ops_dropped() {
        let patch = parse(
            r#"[{"op":"replace","path":"/a","value":2,"acme.note":"x"},
                {"op":"frobnicate","path":"/a"},{"op":"add","path":"/b","value":3}]"#,
        )
        .expect("valid");
        assert_eq!(patch.ops.len(), 2);
        assert_eq!(
            patch.meta[0].extra.get("acme.note"),
            Some(&Value::from("x"))
        );
        assert_eq!(patch.original_index(1), 2);
        assert_eq!(patch.dropped.len(), 1);
        assert_eq!(patch.dropped[0].op.as_deref(), Some("frobnicate"));
    }

    #[test]
    fn e9_an_operation_without_a_string_op_is_dropped_not_fatal() {
        // issue 18: the reference client drops it as unrecognised material.
        for element in [
            r#"{"path":"/m","value":2}"#,
            r#"{"op":7,"path":"/m"}"#,
            r#"{"op":null}"#,
        ] {
            let text = format!(r#"[{element},{{"op":"add","path":"/k","value":3}}]"#);
            let patch = parse(&text).expect("dropped, not malformed");
            assert_eq!(patch.ops.len(), 1, "{element}");
            assert_eq!(patch.original_index(0), 1);
            assert_eq!(patch.dropped.len(), 1);
            assert_eq!(patch.dropped[0].index, 0);
            assert_eq!(patch.dropped[0].op, None);
        }
    }

    #[test]
    fn r40_malformed_operations_name_the_member() {
        let err = parse(r#"[{"op":"add","path":"/a","value":1}, 5]"#).expect_err("not object");
        assert_eq!(err.path, "/patch/1");
        let err = parse(r#"[{"op":"add","value":1}]"#).expect_err("no path");
        assert_eq!(err.path, "/patch/0/path");
        let err = parse(r#"[{"op":"add","path":"/a"}]"#).expect_err("no value");
        assert_eq!(err.path, "/patch/0/value");
        let err = parse(r#"[{"op":"move","path":"/a"}]"#).expect_err("no from");
        assert_eq!(err.path, "/patch/0/from");
        let err = parse(r#"[{"op":"add","path":"a","value":1}]"#).expect_err("bad pointer");
        assert_eq!(err.path, "/patch/0/path");
    }

    #[test]
    fn add_with_null_value_is_valid() {
        let patch = parse(r#"[{"op":"add","path":"/a","value":null}]"#).expect("valid");
        assert_eq!(patch.ops.len(), 1);
    }
}
