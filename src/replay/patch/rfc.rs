//! Applying a patch atomically (R11), within the limits of what a patch may
//! build ([`crate::limits`]), and saying in plain words why an operation
//! did not apply (R14).

use std::fmt;

use json_patch::jsonptr::index::Index;
use json_patch::jsonptr::{Pointer, Token};
use json_patch::{AddOperation, PatchErrorKind, PatchOperation, ReplaceOperation};
use serde_json::Value;

use super::budget::{self, Budget, Passed, check_ops, weigh_placed};
use crate::limits::{Limit, MAX_PATCH_OPS, MEMBER_BYTES, document_bytes};
use crate::protocol::{Patch, ValueWeight, json_kind, op_name, weight_in};

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
    /// The limit it would have passed, when that is why it failed.
    pub limit: Option<Limit>,
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
    let mut bytes = document_bytes(doc);
    apply_patch_weighed(doc, &mut bytes, patch)
}

/// [`apply_patch`] for a document whose weight ([`document_bytes`]) is
/// `bytes`, kept up to date: what the replay calls, so that no operation
/// walks the whole document to know its size.
///
/// [`document_bytes`]: crate::limits::document_bytes
pub fn apply_patch_weighed(
    doc: &mut Value,
    bytes: &mut usize,
    patch: &Patch,
) -> Result<(), PatchFailure> {
    if patch.ops.is_empty() {
        return Ok(());
    }
    let ops = patch.ops.iter().enumerate();
    let ops = ops.map(|(i, op)| Op::of(op).weighed(patch.weight_of(i)));
    match apply_atomically(doc, bytes, ops) {
        Ok(()) => Ok(()),
        Err(error) => Err(failure_of(patch, error)),
    }
}

/// [`apply_patch_weighed`] that moves the values of `add` and `replace`
/// operations into the document instead of copying them: what the replay
/// calls, since it drops the patch once applied (issue 14). Applied, the
/// operations' values are left `null`; on failure the patch is exactly as
/// it was (the values come back as the operations are taken back), and the
/// failure is the one [`apply_patch_weighed`] gives.
pub(crate) fn apply_patch_taking(
    doc: &mut Value,
    bytes: &mut usize,
    patch: &mut Patch,
) -> Result<(), PatchFailure> {
    if patch.ops.is_empty() {
        return Ok(());
    }
    // With the weights the reader measured of the values (issue 14).
    let num_ops = patch.ops.len();
    let Patch { ops, weights, .. } = patch;
    let weights: &[Option<ValueWeight>] = weights;
    let ops = ops.iter_mut().enumerate();
    let ops = ops.map(|(i, op)| Op::of_mut(op).weighed(weight_in(weights, num_ops, i)));
    match apply_atomically(doc, bytes, ops) {
        Ok(()) => Ok(()),
        Err(error) => Err(failure_of(patch, error)),
    }
}

/// What a failed patch reports: the failing operation, as sent, and why.
fn failure_of(patch: &Patch, error: OpError) -> PatchFailure {
    let failing = error.operation;
    let op = &patch.ops[failing];
    let (reason, limit) = match error.kind {
        Failure::Limit(limit, reason) => (reason, Some(limit)),
        // Explained as the failing operation saw the document, when it
        // failed (issue 14: no copy of the document to replay it).
        Failure::Patch(kind) => (error.explained.unwrap_or_else(|| kind.to_string()), None),
    };
    PatchFailure {
        index: patch.original_index(failing),
        op: op_name(op),
        path: op.path().to_string(),
        reason,
        limit,
    }
}

/// One operation as applied: its pointers, and its value borrowed (copied
/// into the document) or held to be moved into it.
enum Op<'a> {
    Add(&'a Pointer, OpValue<'a>, Option<ValueWeight>),
    Remove(&'a Pointer),
    Replace(&'a Pointer, OpValue<'a>, Option<ValueWeight>),
    Move {
        from: &'a Pointer,
        path: &'a Pointer,
    },
    Copy {
        from: &'a Pointer,
        path: &'a Pointer,
    },
    Test(&'a Pointer, &'a Value),
}

/// The value of an `add` or `replace`.
enum OpValue<'a> {
    /// Copied into the document.
    Shared(&'a Value),
    /// Moved into the document (the operation keeps `null`) and moved back
    /// if the operation is taken back.
    Owned(&'a mut Value),
}

impl OpValue<'_> {
    fn get(&self) -> &Value {
        match self {
            Self::Shared(value) => value,
            Self::Owned(value) => value,
        }
    }

    fn take(&mut self) -> Value {
        match self {
            Self::Shared(value) => (*value).clone(),
            Self::Owned(value) => std::mem::take(*value),
        }
    }

    /// Returns a value [`Self::take`] gave, once the document lets it go.
    fn give_back(&mut self, value: Value) {
        if let Self::Owned(slot) = self {
            **slot = value;
        }
    }
}

impl<'a> Op<'a> {
    fn of(op: &'a PatchOperation) -> Self {
        match op {
            PatchOperation::Add(add) => Op::Add(&add.path, OpValue::Shared(&add.value), None),
            PatchOperation::Remove(remove) => Op::Remove(&remove.path),
            PatchOperation::Replace(replace) => {
                Op::Replace(&replace.path, OpValue::Shared(&replace.value), None)
            }
            PatchOperation::Move(mv) => Op::Move {
                from: &mv.from,
                path: &mv.path,
            },
            PatchOperation::Copy(copy) => Op::Copy {
                from: &copy.from,
                path: &copy.path,
            },
            PatchOperation::Test(test) => Op::Test(&test.path, &test.value),
        }
    }

    fn of_mut(op: &'a mut PatchOperation) -> Self {
        match op {
            PatchOperation::Add(AddOperation { path, value }) => {
                Op::Add(path, OpValue::Owned(value), None)
            }
            PatchOperation::Replace(ReplaceOperation { path, value }) => {
                Op::Replace(path, OpValue::Owned(value), None)
            }
            other => Op::of(other),
        }
    }

    /// With the weight the reader measured of its value, if it did.
    fn weighed(mut self, weight: Option<ValueWeight>) -> Self {
        if let Op::Add(_, _, slot) | Op::Replace(_, _, slot) = &mut self {
            *slot = weight;
        }
        self
    }

    /// Gives back the value a taken-back operation had put in place.
    fn give_back(&mut self, value: Option<Value>) {
        if let (Op::Add(_, source, _) | Op::Replace(_, source, _), Some(value)) = (self, value) {
            source.give_back(value);
        }
    }
}

/// The operation that failed and why.
struct OpError {
    operation: usize,
    /// Why an operation RFC 6902 refuses failed, in words
    /// ([`explain`]), found before the operations before it were taken back.
    explained: Option<String>,
    kind: Failure,
}

/// Why one operation failed.
enum Failure {
    /// It does not apply (RFC 6902).
    Patch(PatchErrorKind),
    /// It would pass a limit; the reason in plain words.
    Limit(Limit, String),
}

impl From<PatchErrorKind> for Failure {
    fn from(kind: PatchErrorKind) -> Self {
        Self::Patch(kind)
    }
}

impl From<Passed> for Failure {
    fn from(passed: Passed) -> Self {
        Self::Limit(passed.limit, passed.reason)
    }
}

/// The weight of a value inserted at `path`, if it keeps the document
/// within [`MAX_DOCUMENT_DEPTH`]: a value at a path of N tokens sits inside
/// N arrays and objects.
fn weigh_at(value: &Value, path: &Pointer) -> Result<usize, Failure> {
    weigh_measured_at(value, None, path)
}

/// [`weigh_at`] with the weight the reader measured of the value, if it
/// did (the same answer without walking the value; issue 14).
fn weigh_measured_at(
    value: &Value,
    measured: Option<ValueWeight>,
    path: &Pointer,
) -> Result<usize, Failure> {
    weigh_placed(value, measured, depth(path)).ok_or_else(|| too_deep(path))
}

/// The number of tokens of `path`: its slashes, since a token writes a
/// slash of its own as `~1`. `Pointer::count` walks a `Split` iterator,
/// making a `Token` of each piece, to count them (issue 14: with
/// `split_back` below, about 4% of the applying thread's samples).
fn depth(path: &Pointer) -> usize {
    path.as_str().bytes().filter(|&byte| byte == b'/').count()
}

/// `path` split into its parent and its last token, as
/// `Pointer::split_back` splits it (`None` for the root), found by a plain
/// search for the last slash: `split_back` compares each candidate through
/// a call to `memcmp` (issue 14).
fn split_last(path: &Pointer) -> Option<(&Pointer, Token<'_>)> {
    let offset = path.as_str().bytes().rposition(|byte| byte == b'/')?;
    let (parent, last) = path.split_at_offset(offset)?;
    Some((parent, last.first()?))
}

fn too_deep(path: &Pointer) -> Failure {
    budget::too_deep(Some(&display_pointer(path))).into()
}

/// R11: the operations apply in place, each recording how to take it back;
/// when one fails, those before it are taken back in reverse order.
///
/// `json_patch::patch` is not used to apply: its undo loses the value of a
/// `move` whose removal succeeded and whose insertion failed (and can then
/// panic undoing the operations before it), and it allocates for every
/// pointer token it resolves. `jsonptr` resolves without allocating.
fn apply_atomically<'a>(
    doc: &mut Value,
    bytes: &mut usize,
    ops: impl ExactSizeIterator<Item = Op<'a>>,
) -> Result<(), OpError> {
    let num_ops = ops.len();
    if let Err(passed) = check_ops(num_ops) {
        return Err(OpError {
            operation: MAX_PATCH_OPS,
            explained: None,
            kind: passed.into(),
        });
    }
    // A single operation that fails has changed nothing: it needs no undo.
    let keep_undo = num_ops > 1;
    let mut undo: Vec<(Undo<'a>, Op<'a>)> = Vec::new();
    let mut budget = Budget::new(*bytes);
    let mut ops = ops.enumerate().peekable();
    while let Some((operation, mut op)) = ops.next() {
        let failed = match apply_op(doc, &mut op, keep_undo, &mut budget) {
            Ok(step) if keep_undo => {
                let run = run_after(&step, &op, ops.peek().map(|(_, next)| next));
                undo.push((step, op));
                // Issue 38: the adds at the same array position after it,
                // inserted at once.
                match run {
                    Some((parent, index, path)) => {
                        insert_run(doc, &mut ops, &mut undo, &mut budget, (parent, index, path))
                    }
                    None => None,
                }
            }
            Ok(_) => None,
            Err(kind) => Some((operation, op, kind)),
        };
        if let Some((operation, op, kind)) = failed {
            // A failing operation changed nothing: the document is as it
            // saw it.
            let explained = match &kind {
                Failure::Patch(why) => Some(explain(doc, &op, why)),
                Failure::Limit(..) => None,
            };
            take_back(doc, undo);
            return Err(OpError {
                operation,
                kind,
                explained,
            });
        }
    }
    *bytes = budget.bytes();
    Ok(())
}

/// Where an `add` that inserted an element at a numbered position
/// (`step`, `op`) inserted it, when `next` is an `add` at the very same
/// path: the start of a run of inserts at one position (issue 38).
fn run_after<'a>(
    step: &Undo<'a>,
    op: &Op<'a>,
    next: Option<&Op<'a>>,
) -> Option<(&'a Pointer, usize, &'a Pointer)> {
    let (Undo::Inserted(Slot::Index(parent, index)), Op::Add(path, ..), Some(Op::Add(next, ..))) =
        (step, op, next)
    else {
        return None;
    };
    let numbered =
        split_last(path).is_some_and(|(_, last)| matches!(last.to_index(), Ok(Index::Num(_))));
    (numbered && path == next).then_some((*parent, *index, *path))
}

/// Applies the `add`s at `path` that come next in `ops` (after one that
/// inserted an element at `index` of the array at `parent`), as applying
/// each in turn does, but moving the elements after `index` once for all
/// of them rather than once each (issue 38: front inserts spread over a
/// stream were quadratic): each is checked against the limits in turn,
/// then all are inserted together. Each goes on `undo` as inserted at
/// `index`, as applied one by one. Returns the first that fails, if one
/// does (those before it inserted).
fn insert_run<'a, I: Iterator<Item = (usize, Op<'a>)>>(
    doc: &mut Value,
    ops: &mut std::iter::Peekable<I>,
    undo: &mut Vec<(Undo<'a>, Op<'a>)>,
    budget: &mut Budget,
    (parent, index, path): (&'a Pointer, usize, &'a Pointer),
) -> Option<(usize, Op<'a>, Failure)> {
    let mut values = Vec::new();
    let mut failed = None;
    while let Some((operation, mut op)) =
        ops.next_if(|(_, op)| matches!(op, Op::Add(p, ..) if *p == path))
    {
        let Op::Add(_, source, measured) = &mut op else {
            break;
        };
        // What `apply_op` checks: the value's depth and weight there, the
        // document's weight once it is in (an element adds no member).
        let checked = weigh_measured_at(source.get(), *measured, path)
            .and_then(|bytes| budget.change(bytes, 0).map_err(Failure::from));
        if let Err(kind) = checked {
            failed = Some((operation, op, kind));
            break;
        }
        values.push(source.take());
        undo.push((Undo::Inserted(Slot::Index(parent, index)), op));
    }
    if let Ok(Value::Array(items)) = parent.resolve_mut(doc) {
        // The last one applied is the first element.
        items.splice(index..index, values.into_iter().rev());
    }
    failed
}

/// Takes back the operations of `undo`, the last first. Elements inserted
/// one after another at the same position of an array are taken out
/// together (issue 38), each given back to its operation.
fn take_back<'a>(doc: &mut Value, undo: Vec<(Undo<'a>, Op<'a>)>) {
    let mut undo = undo.into_iter().rev().peekable();
    while let Some((step, mut op)) = undo.next() {
        if let Undo::Inserted(Slot::Index(parent, index)) = &step {
            let (parent, index) = (*parent, *index);
            let same = |(next, _): &(Undo<'a>, Op<'a>)| matches!(next, Undo::Inserted(Slot::Index(p, i)) if *p == parent && *i == index);
            if undo.peek().is_some_and(same) {
                let mut run = vec![op];
                while let Some((_, op)) = undo.next_if(same) {
                    run.push(op);
                }
                let n = run.len();
                if let Ok(Value::Array(items)) = parent.resolve_mut(doc)
                    && index + n <= items.len()
                {
                    // The element at `index` is the last one inserted.
                    for (op, value) in run.iter_mut().zip(items.drain(index..index + n)) {
                        op.give_back(Some(value));
                    }
                }
                continue;
            }
        }
        op.give_back(step.revert(doc));
    }
}

/// A place in a document: a member of an object or an element of an array.
enum Slot<'a> {
    Key(&'a Pointer, String),
    Index(&'a Pointer, usize),
}

impl Slot<'_> {
    /// What the member of an object slot weighs besides its value.
    fn member_bytes(&self) -> usize {
        match self {
            Slot::Key(_, key) => MEMBER_BYTES + key.len(),
            Slot::Index(..) => 0,
        }
    }

    /// Takes the value out of the slot.
    fn take(&self, doc: &mut Value) -> Option<Value> {
        match (self, doc) {
            (Slot::Key(parent, key), doc) => match parent.resolve_mut(doc) {
                Ok(Value::Object(map)) => map.remove(key),
                _ => None,
            },
            (Slot::Index(parent, index), doc) => match parent.resolve_mut(doc) {
                Ok(Value::Array(items)) if *index < items.len() => Some(items.remove(*index)),
                _ => None,
            },
        }
    }

    /// Puts a value into the slot.
    fn put(&self, doc: &mut Value, value: Value) {
        match self {
            Slot::Key(parent, key) => {
                if let Ok(Value::Object(map)) = parent.resolve_mut(doc) {
                    map.insert(key.clone(), value);
                }
            }
            Slot::Index(parent, index) => {
                if let Ok(Value::Array(items)) = parent.resolve_mut(doc)
                    && *index <= items.len()
                {
                    items.insert(*index, value);
                }
            }
        }
    }
}

/// How to take back one applied operation.
enum Undo<'a> {
    /// Nothing to take back (`test`, a `move` onto itself).
    Nothing,
    /// Put the old value back at the pointer (the operation replaced it).
    Restore(&'a Pointer, Value),
    /// Take out what the operation inserted into the slot.
    Inserted(Slot<'a>),
    /// Put back what the operation took out of the slot.
    Removed(Slot<'a>, Value),
    /// Take back the insertion, then return the value to where it came from.
    Moved(Box<Undo<'a>>, Slot<'a>),
}

impl Undo<'_> {
    /// Reverts one operation; returns the value it had put in place, if it
    /// put one. The document is exactly as the operation left it (later
    /// operations were reverted first), so every pointer resolves.
    fn revert(self, doc: &mut Value) -> Option<Value> {
        match self {
            Undo::Nothing => None,
            Undo::Restore(path, old) => match path.resolve_mut(doc) {
                Ok(target) => Some(std::mem::replace(target, old)),
                Err(_) => None,
            },
            Undo::Inserted(slot) => slot.take(doc),
            Undo::Removed(slot, value) => {
                slot.put(doc, value);
                None
            }
            Undo::Moved(insertion, origin) => {
                if let Some(value) = insertion.revert(doc) {
                    origin.put(doc, value);
                }
                None
            }
        }
    }
}

/// RFC 6902 §4.6 equality: numbers by their value, not their text (`1`,
/// `1.0` and `1e2`/`100` are equal; so are `0` and `-0`), arrays element by
/// element, objects member by member whatever their order (issue 18).
/// Integers compare exactly (no rounding through a double); an integer
/// equals a float only if the float is exactly that integer.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| json_equal(x, y)))
        }
        (x, y) => x == y,
    }
}

fn number_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    let integer = |n: &serde_json::Number| {
        n.as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from))
    };
    match (integer(x), integer(y)) {
        (Some(x), Some(y)) => x == y,
        (Some(i), None) => float_is_integer(y.as_f64(), i),
        (None, Some(i)) => float_is_integer(x.as_f64(), i),
        (None, None) => x.as_f64() == y.as_f64(),
    }
}

/// Whether the float is exactly the integer `i` (|i| < 2^64, so a float
/// that is an integer of that size converts to i128 exactly).
fn float_is_integer(float: Option<f64>, i: i128) -> bool {
    const LIMIT: f64 = 18_446_744_073_709_551_616.0; // 2^64
    float.is_some_and(|f| f.fract() == 0.0 && f.abs() < LIMIT && f as i128 == i)
}

fn invalid<E>(_: E) -> PatchErrorKind {
    PatchErrorKind::InvalidPointer
}

/// The weight of a value already in the document.
fn weight(value: &Value) -> usize {
    document_bytes(value)
}

/// The most an insertion at `path` adds besides its value: a new member.
fn member_most(path: &Pointer) -> usize {
    split_last(path).map_or(0, |(_, last)| MEMBER_BYTES + last.encoded().len())
}

/// Records what an applied operation added and removed; when that passes
/// the limit, takes the operation back (its undo is complete: see
/// [`Budget::is_tight`]) and fails.
fn settle<'a>(
    doc: &mut Value,
    budget: &mut Budget,
    step: Undo<'a>,
    added: usize,
    removed: usize,
    source: Option<&mut OpValue<'_>>,
) -> Result<Undo<'a>, Failure> {
    match budget.change(added, removed) {
        Ok(()) => Ok(step),
        Err(failure) => {
            let placed = step.revert(doc);
            if let (Some(source), Some(value)) = (source, placed) {
                source.give_back(value);
            }
            Err(failure.into())
        }
    }
}

/// Applies one operation; a failing one changes nothing. The undo it
/// returns is only complete if `keep_undo`.
fn apply_op<'a>(
    doc: &mut Value,
    op: &mut Op<'a>,
    keep_undo: bool,
    budget: &mut Budget,
) -> Result<Undo<'a>, Failure> {
    match op {
        Op::Add(path, source, measured) => {
            let path: &'a Pointer = path;
            let bytes = weigh_measured_at(source.get(), *measured, path)?;
            let exact = budget.is_tight(bytes + member_most(path));
            let (step, placed) = match insert(doc, path, source.take(), keep_undo || exact) {
                Ok(inserted) => inserted,
                Err((kind, value)) => {
                    source.give_back(value);
                    return Err(Failure::Patch(kind));
                }
            };
            settle(
                doc,
                budget,
                step,
                bytes + placed.member,
                placed.removed,
                Some(source),
            )
        }
        Op::Remove(path) => {
            let path: &'a Pointer = path;
            let (value, slot) = take(doc, path)?;
            budget.change(0, weight(&value) + slot.member_bytes())?;
            Ok(Undo::Removed(slot, value))
        }
        Op::Replace(path, source, measured) => {
            let path: &'a Pointer = path;
            let bytes = weigh_measured_at(source.get(), *measured, path)?;
            let target = path.resolve_mut(doc).map_err(invalid)?;
            let old = std::mem::replace(target, source.take());
            let removed = weight(&old);
            settle(
                doc,
                budget,
                Undo::Restore(path, old),
                bytes,
                removed,
                Some(source),
            )
        }
        Op::Test(path, value) => {
            let target = path.resolve(doc).map_err(invalid)?;
            if json_equal(target, value) {
                Ok(Undo::Nothing)
            } else {
                Err(PatchErrorKind::TestFailed.into())
            }
        }
        Op::Move { from, path } => {
            let (from, path): (&'a Pointer, &'a Pointer) = (from, path);
            if from == path {
                // RFC 6902: moving a value onto itself changes nothing.
                from.resolve(doc)
                    .map_err(|_| PatchErrorKind::InvalidFromPointer)?;
                return Ok(Undo::Nothing);
            }
            if path.starts_with(from) {
                return Err(PatchErrorKind::CannotMoveInsideItself.into());
            }
            // A value moved no deeper than it was keeps the document within
            // its depth; one moved deeper must fit where it goes.
            if depth(path) > depth(from)
                && let Ok(value) = from.resolve(doc)
            {
                weigh_at(value, path)?;
            }
            let (value, origin) =
                take(doc, from).map_err(|_| PatchErrorKind::InvalidFromPointer)?;
            let origin_member = origin.member_bytes();
            match insert(doc, path, value, true) {
                Ok((insertion, placed)) => settle(
                    doc,
                    budget,
                    Undo::Moved(Box::new(insertion), origin),
                    placed.member,
                    placed.removed + origin_member,
                    None,
                ),
                Err((kind, value)) => {
                    // The removal is taken back: nothing changed.
                    origin.put(doc, value);
                    Err(kind.into())
                }
            }
        }
        Op::Copy { from, path } => {
            let (from, path): (&'a Pointer, &'a Pointer) = (from, path);
            let source = from
                .resolve(doc)
                .map_err(|_| PatchErrorKind::InvalidFromPointer)?;
            // Weighed before it is cloned: a copy that would pass a limit
            // allocates nothing.
            let bytes = weigh_at(source, path)?;
            budget.copy(bytes)?;
            let value = source.clone();
            let exact = budget.is_tight(bytes + member_most(path));
            let (step, placed) = insert(doc, path, value, keep_undo || exact)
                .map_err(|(kind, _)| Failure::Patch(kind))?;
            settle(
                doc,
                budget,
                step,
                bytes + placed.member,
                placed.removed,
                None,
            )
        }
    }
}

/// What an insertion did besides placing its value: the weight of the
/// member it added, or of the value it replaced.
struct Placed {
    member: usize,
    removed: usize,
}

impl Placed {
    const ELEMENT: Self = Self {
        member: 0,
        removed: 0,
    };

    fn replaced(old: &Value) -> Self {
        Self {
            member: 0,
            removed: weight(old),
        }
    }
}

/// RFC 6902 `add` of an owned value; on failure the value comes back.
fn insert<'a>(
    doc: &mut Value,
    path: &'a Pointer,
    value: Value,
    keep_undo: bool,
) -> Result<(Undo<'a>, Placed), (PatchErrorKind, Value)> {
    let Some((parent, last)) = split_last(path) else {
        let old = std::mem::replace(doc, value);
        let placed = Placed::replaced(&old);
        return Ok((Undo::Restore(path, old), placed));
    };
    match parent.resolve_mut(doc) {
        Ok(Value::Object(map)) => {
            let key = last.decoded().into_owned();
            match map.get_mut(&key) {
                Some(target) => {
                    let old = std::mem::replace(target, value);
                    let placed = Placed::replaced(&old);
                    Ok((Undo::Restore(path, old), placed))
                }
                None => {
                    let placed = Placed {
                        member: MEMBER_BYTES + key.len(),
                        removed: 0,
                    };
                    if keep_undo {
                        map.insert(key.clone(), value);
                        Ok((Undo::Inserted(Slot::Key(parent, key)), placed))
                    } else {
                        map.insert(key, value);
                        Ok((Undo::Nothing, placed))
                    }
                }
            }
        }
        Ok(Value::Array(items)) => {
            match last.to_index().map(|index| index.for_len_incl(items.len())) {
                Ok(Ok(index)) => {
                    items.insert(index, value);
                    Ok((Undo::Inserted(Slot::Index(parent, index)), Placed::ELEMENT))
                }
                _ => Err((PatchErrorKind::InvalidPointer, value)),
            }
        }
        _ => Err((PatchErrorKind::InvalidPointer, value)),
    }
}

/// RFC 6902 `remove`: the value taken out and where it was.
fn take<'a>(doc: &mut Value, path: &'a Pointer) -> Result<(Value, Slot<'a>), PatchErrorKind> {
    let (parent, last) = split_last(path).ok_or(PatchErrorKind::InvalidPointer)?;
    match parent.resolve_mut(doc).map_err(invalid)? {
        Value::Object(map) => {
            let key = last.decoded().into_owned();
            let value = map.remove(&key).ok_or(PatchErrorKind::InvalidPointer)?;
            Ok((value, Slot::Key(parent, key)))
        }
        Value::Array(items) => {
            let index = last
                .to_index()
                .map_err(invalid)?
                .for_len(items.len())
                .map_err(invalid)?;
            Ok((items.remove(index), Slot::Index(parent, index)))
        }
        _ => Err(PatchErrorKind::InvalidPointer),
    }
}

fn explain(doc: &Value, op: &Op<'_>, kind: &PatchErrorKind) -> String {
    match (op, kind) {
        (Op::Test(path, value), PatchErrorKind::TestFailed) => {
            let found = doc
                .pointer(path.as_str())
                .map_or_else(|| "nothing".to_owned(), abbreviated);
            format!(
                "value differs: expected {}, found {found}",
                abbreviated(value)
            )
        }
        (Op::Move { from, .. }, PatchErrorKind::CannotMoveInsideItself) => {
            format!("cannot move {from} inside itself")
        }
        (Op::Move { from, .. }, PatchErrorKind::InvalidFromPointer) => {
            format!("from {}", missing(doc, from, true))
        }
        (Op::Copy { from, .. }, PatchErrorKind::InvalidFromPointer) => {
            format!("from {}", missing(doc, from, false))
        }
        (Op::Add(path, ..) | Op::Move { path, .. } | Op::Copy { path, .. }, _) => {
            missing_parent(doc, path)
        }
        (Op::Remove(path), _) if path.is_root() => {
            "the whole document cannot be removed".to_owned()
        }
        (Op::Remove(path) | Op::Replace(path, ..) | Op::Test(path, _), _) => {
            missing(doc, path, false)
        }
    }
}

/// Why the parent of `path` cannot take a new member at its last token.
fn missing_parent(doc: &Value, path: &Pointer) -> String {
    let Some((parent, last)) = split_last(path) else {
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
    use crate::limits::{MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH};
    use serde_json::json;

    proptest::proptest! {
        /// Issue 14: the depth and the split the patches use are
        /// `jsonptr`'s own, for any pointer (escapes, empty tokens).
        #[test]
        fn depth_and_split_agree_with_jsonptr(text in "(/([a-z0-9]|~0|~1|-){0,3}){0,5}") {
            let path = Pointer::parse(&text).expect("a JSON pointer");
            proptest::prop_assert_eq!(depth(path), path.count());
            proptest::prop_assert_eq!(split_last(path), path.split_back());
        }
    }

    fn failure(doc: Value, patch: Value) -> (Value, PatchFailure) {
        let delta = delta_of(patch);
        let mut doc = doc;
        let err = apply_patch(&mut doc, &delta).expect_err("must fail");
        (doc, err)
    }

    fn delta_of(patch: Value) -> Patch {
        let text =
            serde_json::to_string(&json!({"type": "STATE_DELTA", "delta": patch})).expect("json");
        let crate::protocol::ParseOutcome::Event { event, .. } =
            crate::protocol::parse_event_str(&text)
        else {
            panic!("not an event");
        };
        let crate::protocol::EventBody::StateDelta { delta } = event.body else {
            panic!("not a delta");
        };
        delta
    }

    /// Issue 14, R11: the replay moves the values of a patch into the
    /// document instead of copying them. Applied, it builds what a copying
    /// apply builds; failed at any operation (a missing path, a failed
    /// test, a limit), the document and the patch are exactly as before
    /// and the failure is the same.
    #[test]
    fn r11_a_patch_whose_values_move_in_applies_and_fails_as_one_copied() {
        let doc = json!({"items": [{"id": 1}], "progress": 3, "title": "t"});
        let tail = [
            json!({"op": "add", "path": "/nowhere/x", "value": 1}),
            json!({"op": "test", "path": "/title", "value": "other"}),
            json!({"op": "replace", "path": "/missing", "value": 2}),
            json!({"op": "copy", "from": "/items", "path": "/deep/x"}),
            json!({"op": "add", "path": "/big", "value": "x".repeat(MAX_DOCUMENT_BYTES)}),
        ];
        let head = [
            json!({"op": "add", "path": "/items/-", "value": {"id": 2, "label": "two"}}),
            json!({"op": "replace", "path": "/progress", "value": {"done": [1, 2]}}),
            json!({"op": "add", "path": "/items/0", "value": "first"}),
            json!({"op": "add", "path": "", "value": {"whole": ["new"]}}),
        ];
        let mut cases: Vec<Vec<Value>> = vec![head.to_vec()];
        for failing in &tail {
            cases.push(vec![failing.clone()]);
            cases.push(head.iter().chain([failing]).cloned().collect());
        }
        for ops in cases {
            let patch = delta_of(Value::Array(ops.clone()));
            let mut copied = doc.clone();
            let mut copied_bytes = document_bytes(&copied);
            let by_copy = apply_patch_weighed(&mut copied, &mut copied_bytes, &patch);
            let mut taken = patch.clone();
            let mut moved = doc.clone();
            let mut moved_bytes = document_bytes(&moved);
            let by_move = apply_patch_taking(&mut moved, &mut moved_bytes, &mut taken);
            assert_eq!(by_move, by_copy, "{ops:?}");
            assert_eq!(moved, copied, "{ops:?}");
            assert_eq!(moved_bytes, copied_bytes, "{ops:?}");
            assert_eq!(moved_bytes, document_bytes(&moved), "{ops:?}");
            // Only the head alone applies; every other case fails at its
            // last operation, after the head's values moved in.
            assert_eq!(by_copy.is_ok(), ops.len() == head.len(), "{ops:?}");
            if let Err(failure) = &by_copy {
                assert_eq!(failure.index, ops.len() - 1, "{ops:?}");
                assert_eq!(moved, doc, "{ops:?}");
                assert_eq!(taken, patch, "the patch is given back whole: {ops:?}");
            }
        }
    }

    /// Issue 14: the values of a patch are measured as it is read (on the
    /// reading thread) instead of as it applies. Whether measured or not,
    /// a patch applies, or fails with the same failure (the depth and size
    /// limits at their edges included), leaving the same document and
    /// weight, by copy and by move.
    #[test]
    fn limits_measured_as_the_patch_is_read_reject_what_measuring_on_apply_rejects() {
        let nest = |depth: usize| (0..depth).fold(json!(0), |v, _| json!([v]));
        let doc = json!({"a": {"b": {}}, "list": [1]});
        let mut cases = Vec::new();
        // A value of depth d at a path of n tokens fits if d + n <= 128.
        for (path, tokens) in [("/x", 1), ("/a/y", 2), ("/a/b/z", 3), ("/list/-", 2)] {
            for depth in [MAX_DOCUMENT_DEPTH - tokens - 1, MAX_DOCUMENT_DEPTH - tokens] {
                cases.push(json!([{"op": "add", "path": path, "value": nest(depth)}]));
                cases.push(json!([{"op": "add", "path": "/w", "value": 1},
                    {"op": "add", "path": path, "value": nest(depth + 1)}]));
            }
            cases.push(
                json!([{"op": "replace", "path": "/a", "value": nest(MAX_DOCUMENT_DEPTH - 1)}]),
            );
            cases.push(json!([{"op": "replace", "path": "/a", "value": nest(MAX_DOCUMENT_DEPTH)}]));
        }
        cases.push(json!([{"op": "add", "path": "", "value": nest(MAX_DOCUMENT_DEPTH)}]));
        cases.push(
            json!([{"op": "add", "path": "/s", "value": "x".repeat(1000)},
            {"op": "replace", "path": "/a", "value": {"k": "y".repeat(1000)}}]),
        );
        // Close to the size limit: the document's weight as the replay
        // keeps it, given, so that the case needs no large document.
        let near_limit = [0, MAX_DOCUMENT_BYTES - 1100, MAX_DOCUMENT_BYTES - 900];
        // Built, not parsed: an event nesting so deep does not parse.
        let ops_of = |ops: &Value| -> Vec<PatchOperation> {
            serde_json::from_value(ops.clone()).expect("operations")
        };
        for ops in cases {
            let measured = Patch::from_ops(ops_of(&ops));
            assert_eq!(measured.weights.len(), measured.ops.len(), "{ops}");
            let unmeasured = Patch {
                ops: measured.ops.clone(),
                ..Patch::default()
            };
            for &start in &near_limit {
                let start = start.max(document_bytes(&doc));
                let run = |patch: &Patch, taking: bool| {
                    let mut target = doc.clone();
                    let mut bytes = start;
                    let mut patch = patch.clone();
                    let result = if taking {
                        apply_patch_taking(&mut target, &mut bytes, &mut patch)
                    } else {
                        apply_patch_weighed(&mut target, &mut bytes, &patch)
                    };
                    (result, target, bytes)
                };
                for taking in [false, true] {
                    let with = run(&measured, taking);
                    let without = run(&unmeasured, taking);
                    assert_eq!(with, without, "{ops} from {start} bytes, taking: {taking}");
                }
            }
        }
        // Both readers measure: the one-pass reader, and the precise one
        // (an extra member, R16, takes that path).
        for ops in [
            json!([{"op": "add", "path": "/x", "value": {"k": [1, "two"]}}, {"op": "remove", "path": "/a"}]),
            json!([{"op": "add", "path": "/x", "value": {"k": [1, "two"]}, "acme": 1}, {"op": "remove", "path": "/a"}]),
        ] {
            let read = delta_of(ops.clone());
            let expected = [crate::limits::value_weight(&json!({"k": [1, "two"]})), None];
            assert_eq!(read.weights, expected, "{ops}");
        }
        // The cases do reach both sides of each limit.
        let outcomes: Vec<Option<Limit>> = [
            json!([{"op": "add", "path": "/x", "value": nest(MAX_DOCUMENT_DEPTH - 1)}]),
            json!([{"op": "add", "path": "/x", "value": nest(MAX_DOCUMENT_DEPTH)}]),
        ]
        .into_iter()
        .map(|ops| {
            let mut target = doc.clone();
            let patch = Patch::from_ops(ops_of(&ops));
            apply_patch(&mut target, &patch).err().and_then(|f| f.limit)
        })
        .collect();
        assert_eq!(outcomes, [None, Some(Limit::Depth)]);
        let mut target = doc.clone();
        let mut bytes = MAX_DOCUMENT_BYTES - 900;
        let heavy = delta_of(json!([{"op": "add", "path": "/s", "value": "x".repeat(1000)}]));
        let failed = apply_patch_weighed(&mut target, &mut bytes, &heavy).expect_err("too heavy");
        assert_eq!(failed.limit, Some(Limit::Bytes));
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
