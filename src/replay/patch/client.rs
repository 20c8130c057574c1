//! How the reference client applies a patch (P7, issue 18): `@ag-ui/client`
//! 1.0.0 calls `fast-json-patch` 3.1.1 as `applyPatch(document, patch,
//! true, false)` (operations validated, the document cloned first,
//! `__proto__` banned), and that library departs from RFC 6902 in ways a
//! deployed UI showed. This module reproduces them on JSON documents, so
//! that the `ag-ui-client-1.0` profile shows what the user saw; the `spec`
//! profile keeps [`super::rfc`].
//!
//! What is reproduced (docs/RULES.md P7): a pointer token is looked up as a
//! JavaScript property, so the names JavaScript objects inherit
//! (`toString`, `constructor`, `hasOwnProperty`…) resolve as if present;
//! a `move` checks its target in the document before the source is
//! removed, has no "inside itself" check and no bounds check; `remove ""`
//! leaves `null`; writing below a primitive is a silent no-op; an array
//! index is any run of digits, the empty token included, taken modulo 2^32;
//! `__proto__` and `constructor/prototype` fail; `test` compares as
//! JavaScript does (numbers as doubles). A patch that would place a
//! JavaScript function (a `move` or `copy` from an inherited name) fails,
//! as the client's clone of the result does.

use std::borrow::Cow;

use json_patch::PatchOperation;
use serde_json::{Map, Value};

use super::budget::{Budget, Passed, check_ops, too_deep, weigh_placed};
use super::rfc::PatchFailure;
use crate::limits::{Limit, MAX_PATCH_OPS, document_bytes};
use crate::protocol::{Patch, op_name};

impl From<Passed> for ClientError {
    fn from(passed: Passed) -> Self {
        Self::Limit(passed.limit, passed.reason)
    }
}

/// Why the client's applier rejected an operation.
#[derive(Debug)]
pub(in crate::replay) enum ClientError {
    /// The library threw: the client logs it and skips the delta.
    Thrown(String),
    /// The result holds a JavaScript function, which the client cannot
    /// clone (`structuredClone` throws). An activity delta is skipped; a
    /// state delta fails the run (the clone happens outside any `catch`).
    Uncloneable(&'static str),
    /// A limit of [`crate::limits`] (L1–L3).
    Limit(Limit, String),
}

/// Why a patch failed under the client, with [`ClientError::Uncloneable`]
/// told apart.
pub(in crate::replay) struct ClientFailure {
    /// The failure in the form the diagnostics take.
    pub failure: PatchFailure,
    /// Whether the client could not clone the result (see [`ClientError`]).
    pub uncloneable: bool,
}

/// What an applied patch left besides the document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::replay) struct Applied {
    /// The client's document is `undefined` (a `move` or `copy` to `""`
    /// from a path that does not resolve): `doc` is left as it was, for the
    /// caller to decide what the client shows.
    pub undefined: bool,
}

/// Applies `patch` to `doc` as `fast-json-patch` 3.1.1 does when
/// `@ag-ui/client` 1.0.0 calls it; on failure `doc` is unchanged (the
/// client patched a clone). `bytes` is the document's weight, kept up to
/// date.
pub(in crate::replay) fn apply_patch_client(
    doc: &mut Value,
    bytes: &mut usize,
    patch: &Patch,
) -> Result<Applied, ClientFailure> {
    if patch.ops.is_empty() {
        return Ok(Applied::default());
    }
    let fail = |index: usize, error: ClientError| {
        let op = &patch.ops[index.min(patch.ops.len() - 1)];
        let (reason, limit, uncloneable) = match error {
            ClientError::Thrown(reason) => (reason, None, false),
            ClientError::Uncloneable(name) => (
                format!(
                    "the client moved or copied the JavaScript function `{name}` into the document, which it cannot clone"
                ),
                None,
                true,
            ),
            ClientError::Limit(limit, reason) => (reason, Some(limit), false),
        };
        ClientFailure {
            failure: PatchFailure {
                index: patch.original_index(index.min(patch.ops.len() - 1)),
                op: op_name(op),
                path: op.path().to_string(),
                reason,
                limit,
            },
            uncloneable,
        }
    };
    if let Err(passed) = check_ops(patch.ops.len()) {
        return Err(fail(MAX_PATCH_OPS, passed.into()));
    }
    let mut work = doc.clone();
    let mut run = Run {
        budget: Budget::new(*bytes),
        functions: false,
        undefined: false,
    };
    let mut index = 0;
    while let Some(op) = patch.ops.get(index) {
        apply_op(&mut work, op, &mut run).map_err(|error| fail(index, error))?;
        index += 1;
        // Issue 38: the adds at the same array position after it, at once
        // (at the root, each replaces the document: no run).
        if let PatchOperation::Add(first) = op
            && !first.path.as_str().is_empty()
            && matches!(patch.ops.get(index), Some(PatchOperation::Add(next)) if next.path == first.path)
        {
            index = insert_run(&mut work, &patch.ops, index, first.path.as_str(), &mut run)
                .map_err(|(at, error)| fail(at, error))?;
        }
    }
    // The client clones the result: a function left in it cannot be.
    if run.functions
        && let Some(name) = find_function(&work)
    {
        return Err(fail(patch.ops.len() - 1, ClientError::Uncloneable(name)));
    }
    if run.undefined {
        // Left to the caller: the client holds `undefined`, not `null`.
        return Ok(Applied { undefined: true });
    }
    *bytes = document_bytes(&work);
    *doc = work;
    Ok(Applied { undefined: false })
}

/// Whether `patch`, applied by the client to `doc` (an object weighing
/// `bytes`), certainly does what RFC 6902 does with it whenever RFC 6902
/// applies it (issue 40: `check` then replays the client's profile only
/// where the two can differ). It holds for `add`, `remove` and `replace`
/// (and `move`, no deeper than from where it takes the value) at paths
/// below the root whose every token is a plain name (ASCII
/// letters, digits, `_`, `-`, `.`; no escape, no name JavaScript objects,
/// arrays, strings or numbers inherit, no `__proto__`), with values that
/// keep the document within the depth and, counted as the client counts
/// them ([`Budget::add_bounded`]), within the weight of the limits. Where
/// RFC 6902 applies such a patch, every parent on each path is an object
/// or an array, every array position is a canonical index within bounds,
/// and the validator's checks pass: the client walks, inserts, replaces
/// and removes the same values, and has no function, `undefined` or falsy
/// root to depart on (a moved value is taken as JSON, never as a
/// function). Anything else (`copy`, `test`, a root operation, an odd
/// token) answers `false`, and the caller applies the client's library
/// itself.
pub(in crate::replay) fn applies_as_rfc(doc: &Value, bytes: usize, patch: &Patch) -> bool {
    if !doc.is_object() || patch.ops.is_empty() || patch.ops.len() > MAX_PATCH_OPS {
        return false;
    }
    let mut bound = bytes;
    for (index, op) in patch.ops.iter().enumerate() {
        let Some(tokens) = plain_tokens(op.path().as_str()) else {
            return false;
        };
        let value = match op {
            PatchOperation::Add(a) => &a.value,
            PatchOperation::Replace(r) => &r.value,
            PatchOperation::Remove(_) => continue,
            // `objOps.move`: removed from `from`, then added at `path`
            // with no check; where RFC 6902 applies it, the same, as long
            // as the value goes no deeper (the client then counts it
            // against the limits, which RFC 6902 does not).
            PatchOperation::Move(m) => match plain_tokens(m.from.as_str()) {
                Some(from) if tokens <= from => continue,
                _ => return false,
            },
            PatchOperation::Copy(_) | PatchOperation::Test(_) => return false,
        };
        let weight = match patch.weight_of(index) {
            Some(weight) => weight,
            None => match crate::limits::value_weight(value) {
                Some(weight) => weight,
                None => return false,
            },
        };
        if tokens + weight.depth > crate::limits::MAX_DOCUMENT_DEPTH {
            return false;
        }
        bound = bound.saturating_add(weight.bytes + super::budget::INSERT_ALLOWANCE);
        if bound > crate::limits::MAX_DOCUMENT_BYTES {
            return false;
        }
    }
    true
}

/// Every name a JavaScript object, array, string or number inherits, and
/// `length`: the names the client's lookups tell apart ([`lookup`]).
fn inherited_names() -> &'static rustc_hash::FxHashSet<&'static str> {
    static NAMES: std::sync::OnceLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        OBJECT_PROTO
            .iter()
            .chain(&ARRAY_PROTO)
            .chain(&STRING_PROTO)
            .chain(&NUMBER_PROTO)
            .chain(&["length"])
            .copied()
            .collect()
    })
}

/// The number of tokens of `path` if it is below the root and every token
/// is a plain name ([`applies_as_rfc`]).
fn plain_tokens(path: &str) -> Option<usize> {
    let rest = path.strip_prefix('/')?;
    let mut tokens = 0;
    for token in rest.split('/') {
        let plain = !token.is_empty()
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            && (token.bytes().all(|b| b.is_ascii_digit()) || !inherited_names().contains(token));
        if !plain {
            return None;
        }
        tokens += 1;
    }
    Some(tokens)
}

/// A patch being applied: its budget ([`Budget`], the document's weight
/// kept as an upper bound), and what the client's document holds besides
/// JSON.
struct Run {
    budget: Budget,
    /// Whether an operation put a function in the document.
    functions: bool,
    /// Whether the document is `undefined` (held as `null`).
    undefined: bool,
}

impl Run {
    /// Counts `value` inserted `depth` deep into `doc`.
    fn insert(&mut self, doc: &Value, value: &Value, depth: usize) -> Result<(), ClientError> {
        let weight = weigh(value, depth)?;
        Ok(self.budget.add_bounded(doc, weight)?)
    }

    /// Counts a copy of `value`.
    fn copy(&mut self, value: &Value) -> Result<(), ClientError> {
        Ok(self.budget.copy(document_bytes(value))?)
    }
}

/// The weight of `value` placed `depth` deep, if it keeps the document
/// within its depth.
fn weigh(value: &Value, depth: usize) -> Result<usize, ClientError> {
    weigh_placed(value, None, depth).ok_or_else(|| too_deep(None).into())
}

/// The names every JavaScript object inherits (`Object.prototype`).
const OBJECT_PROTO: [&str; 12] = [
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

/// What arrays add (`Array.prototype`, Node 20).
const ARRAY_PROTO: [&str; 40] = [
    "at",
    "concat",
    "copyWithin",
    "fill",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "lastIndexOf",
    "pop",
    "push",
    "reverse",
    "shift",
    "unshift",
    "slice",
    "sort",
    "splice",
    "includes",
    "indexOf",
    "join",
    "keys",
    "entries",
    "values",
    "forEach",
    "filter",
    "flat",
    "flatMap",
    "map",
    "every",
    "some",
    "reduce",
    "reduceRight",
    "toLocaleString",
    "toString",
    "toReversed",
    "toSorted",
    "toSpliced",
    "with",
    "constructor",
    "length",
];

/// What strings add (`String.prototype`, Node 20; `length` apart).
const STRING_PROTO: [&str; 50] = [
    "anchor",
    "at",
    "big",
    "blink",
    "bold",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "concat",
    "endsWith",
    "fontcolor",
    "fontsize",
    "fixed",
    "includes",
    "indexOf",
    "isWellFormed",
    "italics",
    "lastIndexOf",
    "link",
    "localeCompare",
    "match",
    "matchAll",
    "normalize",
    "padEnd",
    "padStart",
    "repeat",
    "replace",
    "replaceAll",
    "search",
    "slice",
    "small",
    "split",
    "strike",
    "sub",
    "substr",
    "substring",
    "sup",
    "startsWith",
    "toWellFormed",
    "trim",
    "trimStart",
    "trimLeft",
    "trimEnd",
    "trimRight",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "toLowerCase",
    "toUpperCase",
    "toString",
    "valueOf",
];

/// What numbers add (`Number.prototype`).
const NUMBER_PROTO: [&str; 3] = ["toExponential", "toFixed", "toPrecision"];

/// How a JavaScript function that a `move` or `copy` put in the document
/// is held while the patch applies: a string no JSON text carries by
/// accident (NUL-delimited), read back as the function it stands for.
const FUNCTION_MARK: &str = "\u{0}fast-json-patch function ";

/// The stand-in for the inherited function `name`.
fn function_value(name: &str) -> Value {
    Value::String(format!("{FUNCTION_MARK}{name}\u{0}"))
}

/// The function a stand-in names.
fn function_name(value: &Value) -> Option<&'static str> {
    let name = value
        .as_str()?
        .strip_prefix(FUNCTION_MARK)?
        .strip_suffix('\u{0}')?;
    let known = OBJECT_PROTO
        .iter()
        .chain(&ARRAY_PROTO)
        .chain(&STRING_PROTO)
        .chain(&NUMBER_PROTO)
        .find(|known| **known == name);
    Some(known.copied().unwrap_or("function"))
}

/// The first function stand-in left in the document.
fn find_function(value: &Value) -> Option<&'static str> {
    match value {
        Value::String(_) => function_name(value),
        Value::Array(items) => items.iter().find_map(find_function),
        Value::Object(map) => map.values().find_map(find_function),
        _ => None,
    }
}

/// A value moved or copied into the document.
fn placed(found: Js<'_>, run: &mut Run) -> Value {
    match found {
        Js::Json(value) => value.into_owned(),
        // `_deepClone(undefined)` is `null`; a moved `undefined` is shown
        // as `null` too.
        Js::Undefined => Value::Null,
        Js::Function(name) => {
            run.functions = true;
            function_value(name)
        }
    }
}

/// `obj[key]` in JavaScript, for a JSON value.
enum Js<'a> {
    Undefined,
    Json(Cow<'a, Value>),
    /// An inherited method: a function, which JSON has no word for.
    Function(&'static str),
}

impl Js<'_> {
    fn is_undefined(&self) -> bool {
        matches!(self, Js::Undefined)
    }
}

fn thrown(message: &str, name: &str) -> ClientError {
    ClientError::Thrown(format!("{message} ({name})"))
}

fn type_error(message: String) -> ClientError {
    ClientError::Thrown(format!("TypeError: {message}"))
}

fn inherited(key: &str, table: &[&'static str]) -> Option<&'static str> {
    table
        .iter()
        .chain(OBJECT_PROTO.iter())
        .copied()
        .find(|name| *name == key)
}

/// The canonical array index `key` names (`"1"`, not `"01"`), if any.
fn canonical_index(key: &str) -> Option<usize> {
    let index: usize = key.parse().ok()?;
    (index.to_string() == key && index < u32::MAX as usize).then_some(index)
}

/// `obj[key]`: an own member, else an inherited name. `null` throws.
fn lookup<'a>(obj: &'a Value, key: &str) -> Result<Js<'a>, ClientError> {
    Ok(match obj {
        Value::Null => {
            return Err(type_error(format!(
                "Cannot read properties of null (reading '{key}')"
            )));
        }
        Value::Object(map) => match map.get(key) {
            Some(value) => as_js(value),
            None => inherited(key, &[]).map_or(Js::Undefined, Js::Function),
        },
        Value::Array(items) => match canonical_index(key) {
            Some(i) if i < items.len() => as_js(&items[i]),
            Some(_) => Js::Undefined,
            None if key == "length" => Js::Json(Cow::Owned(Value::from(items.len()))),
            None => inherited(key, &ARRAY_PROTO).map_or(Js::Undefined, Js::Function),
        },
        Value::String(text) => {
            let units = text.encode_utf16().count();
            match canonical_index(key) {
                Some(i) if i < units => {
                    let unit: Vec<u16> = text.encode_utf16().skip(i).take(1).collect();
                    Js::Json(Cow::Owned(Value::String(String::from_utf16_lossy(&unit))))
                }
                Some(_) => Js::Undefined,
                None if key == "length" => Js::Json(Cow::Owned(Value::from(units))),
                None => inherited(key, &STRING_PROTO).map_or(Js::Undefined, Js::Function),
            }
        }
        Value::Number(_) => inherited(key, &NUMBER_PROTO).map_or(Js::Undefined, Js::Function),
        Value::Bool(_) => inherited(key, &[]).map_or(Js::Undefined, Js::Function),
    })
}

/// A member as JavaScript sees it: a stand-in is its function.
fn as_js(value: &Value) -> Js<'_> {
    match function_name(value) {
        Some(name) => Js::Function(name),
        None => Js::Json(Cow::Borrowed(value)),
    }
}

/// `helpers.isInteger`: every character an ASCII digit, the empty string
/// included.
fn is_integer(key: &str) -> bool {
    key.bytes().all(|b| b.is_ascii_digit())
}

/// `~~key` for a string of digits: JavaScript's ToInt32 of the number.
fn to_int32(key: &str) -> i64 {
    let number: f64 = if key.is_empty() {
        0.0
    } else {
        key.parse().unwrap_or(0.0)
    };
    if !number.is_finite() {
        return 0;
    }
    let wrapped = number.trunc().rem_euclid(4_294_967_296.0);
    let wrapped = wrapped as i64;
    if wrapped >= 1 << 31 {
        wrapped - (1 << 32)
    } else {
        wrapped
    }
}

/// `unescapePathComponent`.
fn unescape(token: &str) -> Cow<'_, str> {
    crate::pointer::unescape(token)
}

/// The `__proto__` / `constructor/prototype` ban (`banPrototypeModifications`).
fn banned(keys: &[&str], t: usize, key: &str) -> Result<(), ClientError> {
    if key == "__proto__" || (key == "prototype" && t > 0 && keys[t - 1] == "constructor") {
        return Err(type_error(
            "JSON-Patch: modifying `__proto__` or `constructor/prototype` prop is banned for security reasons"
                .to_owned(),
        ));
    }
    Ok(())
}

/// The kind of an operation as the library's tables know it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Add,
    Remove,
    Replace,
    Move,
    Copy,
    Test,
    Get,
}

fn kind(op: &PatchOperation) -> Kind {
    match op {
        PatchOperation::Add(_) => Kind::Add,
        PatchOperation::Remove(_) => Kind::Remove,
        PatchOperation::Replace(_) => Kind::Replace,
        PatchOperation::Move(_) => Kind::Move,
        PatchOperation::Copy(_) => Kind::Copy,
        PatchOperation::Test(_) => Kind::Test,
    }
}

/// Where a validated walk of a path ends: the steps to the parent and the
/// last key, as JavaScript would use them.
struct Target {
    /// Concrete steps from the root to the parent.
    steps: Vec<Step>,
    /// The last key: an array position, or a property name.
    last: Last,
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

enum Last {
    /// A position in an array parent (`-` resolved to the length).
    Index(i64),
    /// A property of an object or primitive parent.
    Key(String),
    /// A name that is no index, in an array parent, on the unchecked walk
    /// `move` and `copy` take (`arr.splice("constructor", 1)`…).
    Prop(String),
}

/// The validator's document checks, run once a path's existing part is
/// known (`existingPathFragment`).
fn validate_with_document(
    kind: Kind,
    path: &str,
    from: Option<&str>,
    doc: &Value,
    existing: &str,
) -> Result<(), ClientError> {
    // `else if (document)`: the library checks paths only against a truthy
    // document, so below a root of `0`, `""` or `false` nothing is checked
    // and the operation is a silent no-op (P7).
    let falsy = match doc {
        Value::Null | Value::Bool(false) => true,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        _ => false,
    };
    if falsy {
        return Ok(());
    }
    match kind {
        Kind::Add => {
            let path_len = path.split('/').count();
            let existing_len = existing.split('/').count();
            if path_len != existing_len + 1 && path_len != existing_len {
                return Err(thrown(
                    "Cannot perform an `add` operation at the desired path",
                    "OPERATION_PATH_CANNOT_ADD",
                ));
            }
        }
        Kind::Replace | Kind::Remove | Kind::Get => {
            if path != existing {
                return Err(thrown(
                    "Cannot perform the operation at a path that does not exist",
                    "OPERATION_PATH_UNRESOLVABLE",
                ));
            }
        }
        Kind::Move | Kind::Copy => {
            // `validate([{op: "_get", path: from}], document)`: only an
            // unresolvable `from` counts; its other errors are ignored.
            let from = from.unwrap_or_default();
            if !from.is_empty() {
                match walk(doc, from, Kind::Get, None) {
                    Ok(_) => {}
                    Err(Walk::Unresolvable) => {
                        return Err(thrown(
                            "Cannot perform the operation from a path that does not exist",
                            "OPERATION_FROM_UNRESOLVABLE",
                        ));
                    }
                    Err(Walk::Error(ClientError::Thrown(text)))
                        if text.starts_with("TypeError") =>
                    {
                        return Err(ClientError::Thrown(text));
                    }
                    Err(Walk::Error(_)) => {}
                }
            }
        }
        Kind::Test => {}
    }
    Ok(())
}

/// Why a validated walk stopped.
enum Walk {
    /// `OPERATION_PATH_UNRESOLVABLE`, which `validate` tells apart.
    Unresolvable,
    Error(ClientError),
}

impl From<ClientError> for Walk {
    fn from(error: ClientError) -> Self {
        Walk::Error(error)
    }
}

/// The walk of `applyOperation` with validation, for a path other than `""`.
fn walk(doc: &Value, path: &str, kind: Kind, from: Option<&str>) -> Result<Target, Walk> {
    let keys: Vec<&str> = path.split('/').collect();
    let len = keys.len();
    let mut here: &Value = doc;
    let mut steps = Vec::new();
    let mut existing_found = false;
    let mut t = 1;
    loop {
        let key = unescape(keys[t]);
        banned(&keys, t, &key)?;
        if !existing_found {
            let fragment = if lookup(here, &key)?.is_undefined() {
                Some(keys[..t].join("/"))
            } else if t == len - 1 {
                Some(path.to_owned())
            } else {
                None
            };
            if let Some(fragment) = fragment {
                existing_found = true;
                validate_with_document(kind, path, from, doc, &fragment).map_err(|e| match e {
                    ClientError::Thrown(text) if text.contains("OPERATION_PATH_UNRESOLVABLE") => {
                        Walk::Unresolvable
                    }
                    other => Walk::Error(other),
                })?;
            }
        }
        t += 1;
        let next = if let Value::Array(items) = here {
            let index = if key == "-" {
                items.len() as i64
            } else if !is_integer(&key) {
                return Err(thrown(
                    "Expected an unsigned base-10 integer value, making the new referenced value the array element with the zero-based index",
                    "OPERATION_PATH_ILLEGAL_ARRAY_INDEX",
                )
                .into());
            } else {
                to_int32(&key)
            };
            if t >= len {
                if kind == Kind::Add && index > items.len() as i64 {
                    return Err(thrown(
                        "The specified index MUST NOT be greater than the number of elements in the array",
                        "OPERATION_VALUE_OUT_OF_BOUNDS",
                    )
                    .into());
                }
                return Ok(Target {
                    steps,
                    last: Last::Index(index),
                });
            }
            let next = usize::try_from(index).ok().filter(|i| *i < items.len());
            next.map(|i| (Step::Index(i), &items[i]))
        } else {
            if t >= len {
                return Ok(Target {
                    steps,
                    last: Last::Key(key.into_owned()),
                });
            }
            match lookup(here, &key)? {
                Js::Json(Cow::Borrowed(value)) => Some((Step::Key(key.into_owned()), value)),
                _ => None,
            }
        };
        // `!obj || typeof obj !== "object"` with more keys to go: throws.
        match next {
            Some((step, value)) if value.is_object() || value.is_array() => {
                steps.push(step);
                here = value;
            }
            _ => return Err(Walk::Unresolvable),
        }
    }
}

/// The value the steps lead to.
fn resolve<'a>(doc: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    let mut here = doc;
    for step in steps {
        here = match (step, here) {
            (Step::Key(key), Value::Object(map)) => map.get(key)?,
            (Step::Index(i), Value::Array(items)) => items.get(*i)?,
            _ => return None,
        };
    }
    Some(here)
}

fn resolve_mut<'a>(doc: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut here = doc;
    for step in steps {
        here = match (step, here) {
            (Step::Key(key), Value::Object(map)) => map.get_mut(key)?,
            (Step::Index(i), Value::Array(items)) => items.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(here)
}

/// JavaScript's `splice` start for a position `index` in an array of `len`.
fn splice_start(index: i64, len: usize) -> usize {
    if index < 0 {
        (len as i64 + index).max(0) as usize
    } else {
        (index as usize).min(len)
    }
}

/// JavaScript's `Number(text)` for a string: `NaN` where it is no number.
fn js_number(text: &str) -> f64 {
    let text = text.trim();
    if text.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, radix: u32| {
        u128::from_str_radix(digits, radix).map_or(f64::NAN, |n| n as f64)
    };
    if let Some(digits) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return radix(digits, 16);
    }
    if let Some(digits) = text.strip_prefix("0o").or_else(|| text.strip_prefix("0O")) {
        return radix(digits, 8);
    }
    if let Some(digits) = text.strip_prefix("0b").or_else(|| text.strip_prefix("0B")) {
        return radix(digits, 2);
    }
    match text {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    if text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        text.parse().unwrap_or(f64::NAN)
    } else {
        f64::NAN
    }
}

/// `splice`'s start for a number: `NaN` is 0, negatives count from the end.
fn splice_start_of(number: f64, len: usize) -> usize {
    if number.is_nan() {
        return 0;
    }
    let number = number.trunc();
    if number < 0.0 {
        (len as f64 + number).max(0.0) as usize
    } else {
        number.min(len as f64) as usize
    }
}

fn apply_op(doc: &mut Value, op: &PatchOperation, run: &mut Run) -> Result<(), ClientError> {
    let path = op.path().as_str();
    let kind = kind(op);
    let from = match op {
        PatchOperation::Move(m) => Some(m.from.as_str()),
        PatchOperation::Copy(c) => Some(c.from.as_str()),
        _ => None,
    };
    if path.is_empty() {
        // The library's root operations.
        let was_undefined = std::mem::take(&mut run.undefined);
        match op {
            PatchOperation::Add(a) => {
                run.insert(doc, &a.value, 0)?;
                *doc = a.value.clone();
            }
            PatchOperation::Replace(r) => {
                run.insert(doc, &r.value, 0)?;
                *doc = r.value.clone();
            }
            PatchOperation::Move(_) | PatchOperation::Copy(_) => {
                // No check that `from` resolves: a missing one leaves the
                // client `undefined`, which it later treats as `null`.
                let found = get_by_pointer(doc, from.unwrap_or_default())?;
                run.undefined = found.is_undefined();
                let value = placed(found, run);
                if kind == Kind::Copy {
                    run.copy(&value)?;
                }
                *doc = value;
            }
            PatchOperation::Test(test) => {
                run.undefined = was_undefined;
                let found = if was_undefined {
                    Js::Undefined
                } else {
                    as_js(doc)
                };
                if !js_equal(&found, &test.value)? {
                    return Err(thrown("Test operation failed", "TEST_OPERATION_FAILED"));
                }
            }
            // `remove ""` leaves `null` (RFC 6902 has no such result).
            PatchOperation::Remove(_) => *doc = Value::Null,
        }
        return Ok(());
    }
    let target = walk(doc, path, kind, from).map_err(|walk| match walk {
        Walk::Unresolvable => thrown(
            "Cannot perform the operation at a path that does not exist",
            "OPERATION_PATH_UNRESOLVABLE",
        ),
        Walk::Error(error) => error,
    })?;
    let depth = path.split('/').count() - 1;
    match op {
        PatchOperation::Add(a) => {
            run.insert(doc, &a.value, depth)?;
            add(doc, &target, a.value.clone())
        }
        PatchOperation::Replace(r) => {
            run.insert(doc, &r.value, depth)?;
            replace(doc, &target, r.value.clone());
            Ok(())
        }
        PatchOperation::Remove(_) => {
            remove(doc, &target)?;
            Ok(())
        }
        PatchOperation::Test(test) => {
            let parent = resolve(doc, &target.steps);
            let found = match (parent, &target.last) {
                (Some(Value::Array(items)), Last::Index(i)) => usize::try_from(*i)
                    .ok()
                    .and_then(|i| items.get(i))
                    .map_or(Js::Undefined, as_js),
                (Some(parent), Last::Key(key)) => lookup(parent, key)?,
                _ => Js::Undefined,
            };
            if js_equal(&found, &test.value)? {
                Ok(())
            } else {
                Err(thrown("Test operation failed", "TEST_OPERATION_FAILED"))
            }
        }
        PatchOperation::Move(m) => {
            // `objOps.move`: the target was checked above, in the document
            // before the source is removed; the removal and the insertion
            // are not checked at all.
            let found = remove_unchecked(doc, m.from.as_str())?;
            let value = placed(found, run);
            if depth > m.from.as_str().split('/').count() - 1 {
                run.insert(doc, &value, depth)?;
            }
            add_unchecked(doc, path, value)
        }
        PatchOperation::Copy(c) => {
            let found = get_by_pointer(doc, c.from.as_str())?;
            let value = placed(found, run);
            run.copy(&value)?;
            run.insert(doc, &value, depth)?;
            add_unchecked(doc, path, value)
        }
    }
}

/// Applies the `add`s at `path` from `ops[start]` on (after one that
/// applied at the same path), as applying each in turn does, when they
/// insert at one position of an array: each checked against the limits
/// in turn, then all inserted at once, the elements after them moved once
/// rather than once each (issue 38: front inserts spread over a stream
/// were quadratic). Returns the position of the first operation after
/// them, or the one that fails and why.
fn insert_run(
    doc: &mut Value,
    ops: &[PatchOperation],
    start: usize,
    path: &str,
    run: &mut Run,
) -> Result<usize, (usize, ClientError)> {
    // Where the one before inserted: a position within the array, which
    // it keeps however many are inserted there.
    let Ok(target) = walk(doc, path, Kind::Add, None) else {
        return Ok(start);
    };
    let (Some(Value::Array(items)), Last::Index(i)) = (resolve(doc, &target.steps), &target.last)
    else {
        return Ok(start);
    };
    let Some(at) = usize::try_from(*i).ok().filter(|&at| at < items.len()) else {
        return Ok(start);
    };
    let depth = path.split('/').count() - 1;
    let mut values = Vec::new();
    let mut next = start;
    let mut failed = None;
    while let Some(PatchOperation::Add(add)) = ops.get(next)
        && add.path.as_str() == path
    {
        // What `apply_op` checks, with the document as it would be.
        let checked = weigh(&add.value, depth).and_then(|weight| {
            if run.budget.weighs_exactly(weight) {
                place(doc, &target.steps, at, &mut values);
            }
            run.budget
                .add_bounded(doc, weight)
                .map_err(ClientError::from)
        });
        if let Err(error) = checked {
            failed = Some((next, error));
            break;
        }
        values.push(add.value.clone());
        next += 1;
    }
    place(doc, &target.steps, at, &mut values);
    match failed {
        Some(failure) => Err(failure),
        None => Ok(next),
    }
}

/// Inserts `values` (taken) at `at` of the array at `steps`, the last
/// first, as inserting each there in turn does.
fn place(doc: &mut Value, steps: &[Step], at: usize, values: &mut Vec<Value>) {
    if let Some(Value::Array(items)) = resolve_mut(doc, steps) {
        items.splice(at..at, values.drain(..).rev());
    }
}

/// `objOps.add` / `arrOps.add` at a resolved target.
fn add(doc: &mut Value, target: &Target, value: Value) -> Result<(), ClientError> {
    match (resolve_mut(doc, &target.steps), &target.last) {
        (Some(Value::Array(items)), Last::Index(i)) => {
            let start = splice_start(*i, items.len());
            items.insert(start, value);
        }
        (Some(Value::Object(map)), Last::Key(key)) => {
            map.insert(key.clone(), value);
        }
        (Some(Value::Array(_)), Last::Prop(key)) if key == "length" => {
            return Err(ClientError::Thrown(
                "the client sets an array's length here, which this replay does not reproduce"
                    .to_owned(),
            ));
        }
        // A named property of an array is no JSON, and below a primitive
        // the assignment is a silent no-op.
        (Some(_), _) => {}
        (None, _) => {
            return Err(type_error("Cannot set properties of undefined".to_owned()));
        }
    }
    Ok(())
}

/// `objOps.replace` / `arrOps.replace` at a resolved (and existing) target.
fn replace(doc: &mut Value, target: &Target, value: Value) {
    match (resolve_mut(doc, &target.steps), &target.last) {
        (Some(Value::Array(items)), Last::Index(i)) => {
            if let Some(slot) = usize::try_from(*i).ok().and_then(|i| items.get_mut(i)) {
                *slot = value;
            }
        }
        (Some(Value::Object(map)), Last::Key(key)) => {
            // An inherited name becomes an own member.
            map.insert(key.clone(), value);
        }
        _ => {}
    }
}

/// `objOps.remove` / `arrOps.remove`: an inherited name is "removed" by
/// doing nothing.
fn remove(doc: &mut Value, target: &Target) -> Result<Js<'static>, ClientError> {
    Ok(match (resolve_mut(doc, &target.steps), &target.last) {
        (Some(Value::Array(items)), Last::Index(i)) => {
            let start = splice_start(*i, items.len());
            if start < items.len() {
                Js::Json(Cow::Owned(items.remove(start)))
            } else {
                Js::Undefined
            }
        }
        (Some(Value::Array(items)), Last::Prop(key)) => {
            // `arr.splice(key, 1)`: the name becomes a start position.
            let start = splice_start_of(js_number(key), items.len());
            if start < items.len() {
                Js::Json(Cow::Owned(items.remove(start)))
            } else {
                Js::Undefined
            }
        }
        (Some(Value::Object(map)), Last::Key(key)) => match map.remove(key) {
            Some(value) => Js::Json(Cow::Owned(value)),
            None => inherited(key, &[]).map_or(Js::Undefined, Js::Function),
        },
        (Some(parent), Last::Key(key) | Last::Prop(key)) => match lookup(parent, key)? {
            Js::Json(v) => Js::Json(Cow::Owned(v.into_owned())),
            Js::Function(name) => Js::Function(name),
            Js::Undefined => Js::Undefined,
        },
        _ => Js::Undefined,
    })
}

/// The walk of `applyOperation` without validation (what `move` and `copy`
/// call): `null` or `undefined` on the way throws, primitives are read.
fn walk_unchecked(doc: &Value, path: &str) -> Result<Target, ClientError> {
    let keys: Vec<&str> = path.split('/').collect();
    let len = keys.len();
    let mut here: Option<&Value> = Some(doc);
    let mut steps = Vec::new();
    for t in 1..len {
        let key = unescape(keys[t]);
        banned(&keys, t, &key)?;
        let Some(obj) = here else {
            return Err(type_error(format!(
                "Cannot read properties of undefined (reading '{key}')"
            )));
        };
        let last = t + 1 >= len;
        if let Value::Array(items) = obj {
            let index = if key == "-" {
                items.len() as i64
            } else if is_integer(&key) {
                to_int32(&key)
            } else if last {
                return Ok(Target {
                    steps,
                    last: Last::Prop(key.into_owned()),
                });
            } else {
                // Reading on into an array's own JavaScript property.
                return Err(ClientError::Thrown(format!(
                    "the client reads into the array property {key:?} here, which this replay does not reproduce"
                )));
            };
            if last {
                return Ok(Target {
                    steps,
                    last: Last::Index(index),
                });
            }
            here = usize::try_from(index).ok().and_then(|i| items.get(i));
            if here.is_some() {
                steps.push(Step::Index(index as usize));
            }
        } else {
            if last {
                if obj.is_null() {
                    return Err(type_error(format!(
                        "Cannot read properties of null (reading '{key}')"
                    )));
                }
                return Ok(Target {
                    steps,
                    last: Last::Key(key.into_owned()),
                });
            }
            here = match lookup(obj, &key)? {
                Js::Json(Cow::Borrowed(v)) => {
                    steps.push(Step::Key(key.into_owned()));
                    Some(v)
                }
                Js::Undefined => None,
                // A primitive's property or an inherited method: reading
                // on into it is not reproduced.
                _ => {
                    return Err(ClientError::Thrown(format!(
                        "the client reads into the JavaScript property {key:?} here, which this replay does not reproduce"
                    )));
                }
            };
        }
    }
    Ok(Target {
        steps,
        last: Last::Key(String::new()),
    })
}

/// `getValueByPointer`.
fn get_by_pointer<'a>(doc: &'a Value, pointer: &str) -> Result<Js<'a>, ClientError> {
    if pointer.is_empty() {
        return Ok(as_js(doc));
    }
    let target = walk_unchecked(doc, pointer)?;
    let Some(parent) = resolve(doc, &target.steps) else {
        return Ok(Js::Undefined);
    };
    Ok(match (&target.last, parent) {
        (Last::Index(i), Value::Array(items)) => usize::try_from(*i)
            .ok()
            .and_then(|i| items.get(i))
            .map_or(Js::Undefined, as_js),
        (Last::Key(key) | Last::Prop(key), parent) => lookup(parent, key)?,
        _ => Js::Undefined,
    })
}

/// `applyOperation(document, {op: "remove", path})`, unchecked.
fn remove_unchecked(doc: &mut Value, pointer: &str) -> Result<Js<'static>, ClientError> {
    if pointer.is_empty() {
        // A root removal inside a move: the value would be the document
        // itself, moved into itself. Not reproduced.
        return Err(ClientError::Thrown(
            "the client moves the whole document into itself here, which this replay does not reproduce"
                .to_owned(),
        ));
    }
    let target = walk_unchecked(doc, pointer)?;
    remove(doc, &target)
}

/// `applyOperation(document, {op: "add", path, value})`, unchecked: no
/// bounds check, a missing parent throws, a primitive parent ignores it.
fn add_unchecked(doc: &mut Value, pointer: &str, value: Value) -> Result<(), ClientError> {
    if pointer.is_empty() {
        *doc = value;
        return Ok(());
    }
    let target = walk_unchecked(doc, pointer)?;
    add(doc, &target, value)
}

/// The library's `_areEquals(documentValue, operationValue)`: numbers as
/// JavaScript doubles; an operation value holding its own
/// `hasOwnProperty` member makes the comparison throw.
fn js_equal(found: &Js<'_>, expected: &Value) -> Result<bool, ClientError> {
    match found {
        Js::Json(value) => json_equal_js(value, expected),
        Js::Undefined | Js::Function(_) => Ok(false),
    }
}

fn json_equal_js(a: &Value, b: &Value) -> Result<bool, ClientError> {
    Ok(match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            // From the end, as the library does.
            for (x, y) in x.iter().zip(y).rev() {
                if !json_equal_js(x, y)? {
                    return Ok(false);
                }
            }
            true
        }
        (Value::Object(x), Value::Object(y)) => object_equal_js(x, y)?,
        (Value::Object(_), Value::Array(_)) | (Value::Array(_), Value::Object(_)) => false,
        (x, y) => x == y,
    })
}

fn object_equal_js(a: &Map<String, Value>, b: &Map<String, Value>) -> Result<bool, ClientError> {
    if a.len() != b.len() {
        return Ok(false);
    }
    if a.is_empty() {
        return Ok(true);
    }
    if b.contains_key("hasOwnProperty") {
        return Err(type_error("b.hasOwnProperty is not a function".to_owned()));
    }
    if !a.keys().all(|key| b.contains_key(key)) {
        return Ok(false);
    }
    for (key, x) in a {
        if !json_equal_js(x, &b[key])? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::diagnostic::{Code, Severity};
    use crate::limits::MAX_DOCUMENT_DEPTH;
    use crate::replay::patch::apply_patch;
    use crate::replay::{Message, Options, Profile, Replayer};

    /// A patch parsed from its JSON text, as a delta carries it (numbers
    /// keep their representation: `1.0` stays a float).
    fn patch(text: &str) -> Patch {
        let event = format!(r#"{{"type":"STATE_DELTA","delta":{text}}}"#);
        let crate::protocol::ParseOutcome::Event { event, .. } =
            crate::protocol::parse_event_str(&event)
        else {
            panic!("not an event: {text}");
        };
        let crate::protocol::EventBody::StateDelta { delta } = event.body else {
            panic!("not a delta");
        };
        delta
    }

    fn doc(text: &str) -> Value {
        serde_json::from_str(text).expect("json")
    }

    /// The document after the patch under each profile, or the failure.
    fn both(document: &str, ops: &str) -> (Result<Value, String>, Result<Value, String>) {
        let patch = patch(ops);
        let mut spec = doc(document);
        let spec = apply_patch(&mut spec, &patch)
            .map(|()| spec)
            .map_err(|f| f.to_string());
        let mut client = doc(document);
        let mut bytes = document_bytes(&client);
        let client = apply_patch_client(&mut client, &mut bytes, &patch)
            .map(|_| {
                assert_eq!(bytes, document_bytes(&client), "weight kept up to date");
                client
            })
            .map_err(|f| f.failure.to_string());
        (spec, client)
    }

    /// Issue 40: where [`applies_as_rfc`] answers yes and RFC 6902 applies
    /// the patch, the client's library gives the same document (what lets
    /// `check` replay the client only where the two can differ). Random
    /// patches of `add`, `remove`, `replace` and `move` at plain paths
    /// (member names, indices in and out of bounds, `-`) on random
    /// documents; and
    /// a patch with any other operation or token is never taken for one.
    #[test]
    fn patches_of_plain_paths_apply_under_the_client_as_under_rfc_6902() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(40);
        const TOKENS: &[&str] = &[
            "a", "b", "items", "0", "1", "2", "5", "-", "x.y", "k_1", "n-2",
        ];
        const VALUES: &[&str] = &[
            "1",
            "\"s\"",
            "null",
            "[]",
            "{}",
            "[1,{\"a\":2}]",
            "{\"a\":{\"b\":[0]}}",
            "1.0",
            "-0",
        ];
        let documents = [
            r#"{}"#,
            r#"{"a":1,"items":[1,2,3]}"#,
            r#"{"a":{"b":[0,{"items":[]}]},"items":[{"a":1},[2]],"0":"zero"}"#,
            r#"{"items":[[],[[]],{"1":{"2":3}}],"b":{"a":null,"-":4}}"#,
        ];
        let (mut taken, mut compared, mut moves) = (0, 0, 0);
        for _ in 0..40_000 {
            let document = documents[rng.random_range(0..documents.len())];
            let num_ops = rng.random_range(1..4);
            let ops: Vec<String> = (0..num_ops)
                .map(|_| {
                    let depth = rng.random_range(1..4);
                    let path: String = (0..depth)
                        .map(|_| format!("/{}", TOKENS[rng.random_range(0..TOKENS.len())]))
                        .collect();
                    let value = VALUES[rng.random_range(0..VALUES.len())];
                    let from: String = (0..rng.random_range(depth..5))
                        .map(|_| format!("/{}", TOKENS[rng.random_range(0..TOKENS.len())]))
                        .collect();
                    match rng.random_range(0..4) {
                        0 => format!(r#"{{"op":"add","path":"{path}","value":{value}}}"#),
                        1 => format!(r#"{{"op":"remove","path":"{path}"}}"#),
                        2 => format!(r#"{{"op":"move","from":"{from}","path":"{path}"}}"#),
                        _ => format!(r#"{{"op":"replace","path":"{path}","value":{value}}}"#),
                    }
                })
                .collect();
            let ops = format!("[{}]", ops.join(","));
            let before = doc(document);
            if !applies_as_rfc(&before, document_bytes(&before), &patch(&ops)) {
                continue;
            }
            taken += 1;
            let (spec, client) = both(document, &ops);
            if let Ok(spec) = spec {
                compared += 1;
                moves += usize::from(ops.contains("move"));
                assert_eq!(client, Ok(spec), "{document} {ops}");
            }
        }
        assert!(
            taken > 20_000 && compared > 1_500 && moves > 200,
            "{taken} taken, {compared} compared, {moves} with a move"
        );
        let doc = doc(r#"{"a":{"b":1},"items":[1]}"#);
        let bytes = document_bytes(&doc);
        for ops in [
            r#"[{"op":"move","from":"/a","path":"/b/c"}]"#,
            r#"[{"op":"move","from":"/toString","path":"/b"}]"#,
            r#"[{"op":"copy","from":"/a","path":"/b"}]"#,
            r#"[{"op":"test","path":"/a","value":1}]"#,
            r#"[{"op":"add","path":"","value":{}}]"#,
            r#"[{"op":"add","path":"/toString","value":1}]"#,
            r#"[{"op":"add","path":"/items/length","value":1}]"#,
            r#"[{"op":"add","path":"/__proto__","value":1}]"#,
            r#"[{"op":"add","path":"/a~1b","value":1}]"#,
            r#"[{"op":"add","path":"/a/","value":1}]"#,
            r#"[{"op":"add","path":"/constructor/prototype","value":1}]"#,
            r#"[{"op":"add","path":"/a","value":1},{"op":"copy","from":"/a","path":"/b"}]"#,
        ] {
            assert!(!applies_as_rfc(&doc, bytes, &patch(ops)), "{ops}");
        }
        assert!(!applies_as_rfc(
            &Value::Null,
            0,
            &patch(r#"[{"op":"add","path":"/a","value":1}]"#)
        ));
    }

    /// Issue 38: a document whose array sits 100 deep (so that a value
    /// 28 deep passes the depth limit where it goes), and the pointer to
    /// that array.
    fn deep_array(items: &[i64]) -> (Value, String) {
        let mut value = json!({"items": items, "o": {}});
        let mut prefix = String::new();
        for _ in 0..99 {
            value = json!({ "a": value });
            prefix.push_str("/a");
        }
        (value, prefix)
    }

    /// One operation of a patch on [`deep_array`]'s document (`prefix`
    /// before its path), mostly inserts at the front.
    fn run_op(prefix: &str, choice: u8, n: u8) -> String {
        let deep = (0..28).fold("1".to_owned(), |v, _| format!("[{v}]"));
        let (op, path, value) = match choice % 12 {
            0..=4 => ("add", "/items/0", n.to_string()),
            5 => ("add", "/items/1", n.to_string()),
            6 => ("add", "/items/-", n.to_string()),
            7 => ("remove", "/items/0", String::new()),
            8 => ("add", "/items/9", n.to_string()),
            9 => ("add", "/items/0", deep),
            10 => ("test", "/items/0", n.to_string()),
            _ => ("add", "/o/x", n.to_string()),
        };
        match op {
            "remove" => format!(r#"{{"op":"remove","path":"{prefix}{path}"}}"#),
            _ => format!(r#"{{"op":"{op}","path":"{prefix}{path}","value":{value}}}"#),
        }
    }

    /// What applying each operation in turn, as a patch of its own, gives:
    /// the document after all of them, or the first failure (its index in
    /// the whole patch) with the document as it was.
    fn op_by_op(
        doc: &Value,
        ops: &[String],
        apply: impl Fn(&mut Value, &Patch) -> Result<(), PatchFailure>,
    ) -> Result<Value, PatchFailure> {
        let mut work = doc.clone();
        for (i, op) in ops.iter().enumerate() {
            if let Err(mut failure) = apply(&mut work, &patch(&format!("[{op}]"))) {
                failure.index = i;
                return Err(failure);
            }
        }
        Ok(work)
    }

    proptest::proptest! {
        /// Issue 38: a patch of inserts at one array position (applied at
        /// once) gives, under both profiles, what applying its operations
        /// one by one gives: the same document, or the same failure (the
        /// same operation, the same reason) with the document unchanged,
        /// and under `spec` the patch's values given back.
        #[test]
        fn runs_of_inserts_apply_as_their_operations_one_by_one(
            items in proptest::collection::vec(0i64..5, 0..4),
            ops in proptest::collection::vec((0u8..24, 0u8..5), 1..40),
        ) {
            let (doc, prefix) = deep_array(&items);
            let ops: Vec<String> = ops.iter().map(|&(c, n)| run_op(&prefix, c, n)).collect();
            let whole = patch(&format!("[{}]", ops.join(",")));
            let spec = |doc: &mut Value, patch: &Patch| apply_patch(doc, patch);
            let client = |doc: &mut Value, patch: &Patch| {
                let mut bytes = document_bytes(doc);
                apply_patch_client(doc, &mut bytes, patch)
                    .map(|_| ())
                    .map_err(|f| f.failure)
            };
            let mut applied = doc.clone();
            let result = spec(&mut applied, &whole).map(|()| applied);
            proptest::prop_assert_eq!(&result, &op_by_op(&doc, &ops, spec));
            let mut taken = doc.clone();
            let mut moved = whole.clone();
            let mut bytes = document_bytes(&taken);
            let outcome = super::super::rfc::apply_patch_taking(&mut taken, &mut bytes, &mut moved);
            proptest::prop_assert_eq!(outcome.map(|()| taken), result.clone());
            if result.is_err() {
                proptest::prop_assert!(moved.ops == whole.ops, "the values given back");
            }
            let mut applied = doc.clone();
            let result = client(&mut applied, &whole).map(|()| applied);
            proptest::prop_assert_eq!(&result, &op_by_op(&doc, &ops, client));
        }
    }

    #[test]
    fn adds_at_the_root_one_after_another_replace_the_document_without_a_panic() {
        // issue 38 (runs of inserts), found while running issue 44's tests:
        // two `add`s at "" were taken for a run of array inserts, and the
        // client's walk indexed past the pointer's tokens.
        let ops = r#"[{"op":"add","path":"","value":[1]},{"op":"add","path":"","value":[2]}]"#;
        let (spec, client) = both(r#"{"a":1}"#, ops);
        assert_eq!(spec, Ok(json!([2])));
        assert_eq!(client, Ok(json!([2])));
    }

    #[test]
    fn test_compares_numbers_by_value_under_both_profiles() {
        // issue 18, item 1: RFC 6902 §4.6.
        for (document, value) in [
            ("1", "1.0"),
            ("100", "1e2"),
            ("0", "-0"),
            ("-0.0", "0"),
            ("[1, {\"a\": 2.50}]", "[1.0, {\"a\": 2.5}]"),
            ("{\"a\": [100], \"b\": 0}", "{\"b\": -0, \"a\": [1E2]}"),
            ("9007199254740992", "9007199254740992.0"),
        ] {
            let ops = format!(r#"[{{"op":"test","path":"/v","value":{value}}}]"#);
            let document = format!(r#"{{"v":{document}}}"#);
            let (spec, client) = both(&document, &ops);
            assert_eq!(spec, Ok(doc(&document)), "spec: {document} vs {value}");
            assert_eq!(client, Ok(doc(&document)), "client: {document} vs {value}");
        }
        for (document, value) in [
            ("1", "1.5"),
            ("[1]", "[1, 1]"),
            ("{\"a\": 1}", "{\"b\": 1}"),
        ] {
            let ops = format!(r#"[{{"op":"test","path":"/v","value":{value}}}]"#);
            let document = format!(r#"{{"v":{document}}}"#);
            let (spec, client) = both(&document, &ops);
            assert!(spec.is_err() && client.is_err(), "{document} vs {value}");
        }
    }

    #[test]
    fn test_keeps_large_integers_exact_under_spec_and_doubles_under_the_client() {
        // issue 18, item 1: 2^53 + 1 and 2^53 are one double in JavaScript.
        for (document, value) in [
            ("9007199254740993", "9007199254740992"),
            ("18446744073709551615", "18446744073709551616.0"),
            ("-9223372036854775808", "-9223372036854775807"),
        ] {
            let ops = format!(r#"[{{"op":"test","path":"/v","value":{value}}}]"#);
            let document = format!(r#"{{"v":{document}}}"#);
            let (spec, client) = both(&document, &ops);
            assert!(spec.is_err(), "spec: {document} vs {value} differ");
            assert_eq!(client, Ok(doc(&document)), "client: {document} vs {value}");
        }
    }

    #[test]
    fn client_move_checks_the_target_before_removing_the_source() {
        // issue 18, item 8. A valid RFC move the client rejects: its target
        // /arr/1 is a number until the source is removed.
        let (spec, client) = both(
            r#"{"arr":[{},5,{}]}"#,
            r#"[{"op":"move","from":"/arr/0","path":"/arr/1/k"}]"#,
        );
        assert_eq!(spec, Ok(json!({"arr": [5, {"k": {}}]})));
        assert!(client.unwrap_err().contains("OPERATION_PATH_UNRESOLVABLE"));
        // An invalid one (into itself) that runs and loses the value.
        let (spec, client) = both(
            r#"{"arr":[{},5]}"#,
            r#"[{"op":"move","from":"/arr/0","path":"/arr/0/k"}]"#,
        );
        assert!(spec.unwrap_err().contains("inside itself"));
        assert_eq!(client, Ok(json!({"arr": [5]})));
        // An invalid one past the end that appends.
        let (spec, client) = both(
            r#"{"arr":["a","b"]}"#,
            r#"[{"op":"move","from":"/arr/0","path":"/arr/2"}]"#,
        );
        assert!(spec.unwrap_err().contains("out of range"));
        assert_eq!(client, Ok(json!({"arr": ["b", "a"]})));
        // And one that throws half way: nothing is kept.
        let (spec, client) = both(
            r#"{"a":{"b":{}}}"#,
            r#"[{"op":"move","from":"/a","path":"/a/b/c"}]"#,
        );
        assert!(spec.is_err());
        assert!(client.unwrap_err().contains("reading 'b'"));
    }

    #[test]
    fn client_remove_of_the_root_leaves_null() {
        // issue 18, item 8.
        let (spec, client) = both(r#"{"n":1}"#, r#"[{"op":"remove","path":""}]"#);
        assert!(spec.unwrap_err().contains("whole document"));
        assert_eq!(client, Ok(Value::Null));
    }

    #[test]
    fn client_resolves_inherited_javascript_names_as_if_present() {
        // issue 18, item 8: `obj[key]` finds Object.prototype's members.
        let (spec, client) = both(
            r#"{"n":1}"#,
            r#"[{"op":"replace","path":"/toString","value":1}]"#,
        );
        assert!(spec.is_err());
        assert_eq!(client, Ok(json!({"n": 1, "toString": 1})));
        let (spec, client) = both(
            r#"{"n":1}"#,
            r#"[{"op":"remove","path":"/constructor"},{"op":"add","path":"/ok","value":1}]"#,
        );
        assert!(spec.is_err());
        assert_eq!(client, Ok(json!({"n": 1, "ok": 1})));
        // A test against an inherited function never matches JSON.
        let (spec, client) = both(
            r#"{"n":1}"#,
            r#"[{"op":"test","path":"/hasOwnProperty","value":{}}]"#,
        );
        assert!(spec.is_err());
        assert!(client.unwrap_err().contains("TEST_OPERATION_FAILED"));
        // Moving or copying one would put a function in the document.
        for ops in [
            r#"[{"op":"move","from":"/toString","path":"/x"}]"#,
            r#"[{"op":"copy","from":"/valueOf","path":"/x"}]"#,
        ] {
            let (spec, client) = both(r#"{"n":1}"#, ops);
            assert!(spec.is_err());
            assert!(client.unwrap_err().contains("cannot clone"), "{ops}");
        }
        // An own member under an inherited name is an ordinary member.
        let (spec, client) = both(
            r#"{"toString":"mine"}"#,
            r#"[{"op":"remove","path":"/toString"}]"#,
        );
        assert_eq!(spec, Ok(json!({})));
        assert_eq!(client, Ok(json!({})));
    }

    #[test]
    fn client_bans_proto_paths_that_spec_applies() {
        // issue 18, item 8: banPrototypeModifications (the default).
        let (spec, client) = both(
            r#"{"n":1}"#,
            r#"[{"op":"add","path":"/__proto__","value":1}]"#,
        );
        assert_eq!(spec, Ok(json!({"n": 1, "__proto__": 1})));
        assert!(client.unwrap_err().contains("banned"));
        let (spec, client) = both(
            r#"{"__proto__":1}"#,
            r#"[{"op":"replace","path":"/__proto__","value":2}]"#,
        );
        assert_eq!(spec, Ok(json!({"__proto__": 2})));
        assert!(client.unwrap_err().contains("banned"));
    }

    #[test]
    fn client_add_below_a_primitive_is_a_no_op() {
        // issue 18, item 8: `5["x"] = 1` is silently ignored.
        for document in ["5", "\"abc\"", "true"] {
            let (spec, client) = both(document, r#"[{"op":"add","path":"/x","value":1}]"#);
            assert!(spec.is_err(), "{document}");
            assert_eq!(client, Ok(doc(document)), "{document}");
        }
        // A string's length and characters are there to test.
        let (_, client) = both(
            "\"abc\"",
            r#"[{"op":"test","path":"/length","value":3},{"op":"test","path":"/0","value":"a"}]"#,
        );
        assert_eq!(client, Ok(json!("abc")));
        // issue 18: below a falsy root (`0`, `""`, `false`) the library
        // checks no path, so a `remove` or `replace` of a missing member is
        // a no-op too; a truthy one fails the check.
        for document in ["0", "0.0", "\"\"", "false"] {
            for op in ["remove", "replace"] {
                let patch = format!(r#"[{{"op":"{op}","path":"/list","value":1}}]"#);
                let (spec, client) = both(document, &patch);
                assert!(spec.is_err(), "{document} {op}");
                assert_eq!(client, Ok(doc(document)), "{document} {op}");
            }
        }
        let (_, client) = both("5", r#"[{"op":"remove","path":"/list"}]"#);
        assert!(client.unwrap_err().contains("OPERATION_PATH_UNRESOLVABLE"));
        // Below null it throws.
        let (_, client) = both("null", r#"[{"op":"add","path":"/x","value":1}]"#);
        assert!(client.unwrap_err().contains("null"));
    }

    #[test]
    fn client_array_indices_are_runs_of_digits_taken_modulo_2_32() {
        // issue 18, item 8: `isInteger` then `~~key`.
        let cases = [
            (
                r#"[{"op":"add","path":"/arr/01","value":"x"}]"#,
                json!(["a", "x", "b"]),
            ),
            (
                r#"[{"op":"add","path":"/arr/","value":"x"}]"#,
                json!(["x", "a", "b"]),
            ),
            (
                r#"[{"op":"add","path":"/arr/4294967295","value":"x"}]"#,
                json!(["a", "x", "b"]),
            ),
            (
                r#"[{"op":"test","path":"/arr/01","value":"b"}]"#,
                json!(["a", "b"]),
            ),
        ];
        for (ops, arr) in cases {
            let (spec, client) = both(r#"{"arr":["a","b"]}"#, ops);
            assert!(spec.is_err(), "{ops}");
            assert_eq!(client, Ok(json!({ "arr": arr })), "{ops}");
        }
        // replace needs the member to exist under its own name.
        let (_, client) = both(
            r#"{"arr":["a","b"]}"#,
            r#"[{"op":"replace","path":"/arr/01","value":"x"}]"#,
        );
        assert!(client.unwrap_err().contains("does not exist"));
    }

    #[test]
    fn client_failure_keeps_the_document_and_limits_still_hold() {
        let original = doc(r#"{"a":1}"#);
        let mut document = original.clone();
        let mut bytes = document_bytes(&document);
        let failed = apply_patch_client(
            &mut document,
            &mut bytes,
            &patch(r#"[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/zz"}]"#),
        )
        .expect_err("fails");
        assert_eq!(document, original);
        assert_eq!(failed.failure.index, 1);
        let deep = (0..MAX_DOCUMENT_DEPTH + 1).fold(json!(1), |v, _| json!([v]));
        let too_deep = Patch {
            ops: vec![PatchOperation::Add(json_patch::AddOperation {
                path: json_patch::jsonptr::PointerBuf::parse("/d").expect("pointer"),
                value: deep,
            })],
            ..Patch::default()
        };
        let failed =
            apply_patch_client(&mut document, &mut bytes, &too_deep).expect_err("too deep");
        assert_eq!(failed.failure.limit, Some(Limit::Depth));
        assert_eq!(document, original);
    }

    fn replay(profile: Profile, events: &[Value]) -> Replayer {
        let mut replayer = Replayer::new(Options::for_profile(profile));
        for event in events {
            replayer.apply_bytes(event.to_string().as_bytes());
        }
        replayer.finish();
        replayer
    }

    fn content(replayer: &Replayer) -> Value {
        match replayer.conversation().get("a") {
            Some(Message::Activity(a)) => (*a.content).clone(),
            other => panic!("no activity: {other:?}"),
        }
    }

    fn stream(middle: &[Value]) -> Vec<Value> {
        let mut events = vec![json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})];
        events.extend_from_slice(middle);
        events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
        events
    }

    fn snapshot(content: Value) -> Value {
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "x", "content": content})
    }

    fn delta_text(ops: &str) -> Value {
        let patch: Value = serde_json::from_str(ops).expect("json");
        json!({"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "x", "patch": patch})
    }

    fn codes(replayer: &Replayer) -> Vec<(Code, Severity)> {
        replayer
            .diagnostics()
            .iter()
            .map(|d| (d.code, d.severity))
            .collect()
    }

    #[test]
    fn client_delta_on_null_content_patches_an_empty_object() {
        // issue 18, item 5: the client patches `content ?? {}`; spec keeps
        // R10–R15 (a pointer into null does not resolve: R14).
        let events = stream(&[
            snapshot(json!({"n": 1})),
            delta_text(r#"[{"op":"replace","path":"","value":null}]"#),
            delta_text(r#"[{"op":"add","path":"/x","value":1}]"#),
        ]);
        let client = replay(Profile::AgUiClient10, &events);
        assert_eq!(content(&client), json!({"x": 1}));
        let spec = replay(Profile::Spec, &events);
        assert_eq!(content(&spec), Value::Null);
        assert!(codes(&spec).contains(&(Code::PatchFailed, Severity::Warning)));
        // An empty patch on null content leaves `{}` under the client.
        let events = stream(&[
            snapshot(json!({"n": 1})),
            delta_text(r#"[{"op":"replace","path":"","value":null}]"#),
            delta_text("[]"),
        ]);
        assert_eq!(content(&replay(Profile::AgUiClient10, &events)), json!({}));
        assert_eq!(content(&replay(Profile::Spec, &events)), Value::Null);
    }

    #[test]
    fn activity_and_state_tests_compare_numbers_by_value() {
        // issue 18, item 1, end to end: the text `1.0` reaches the test.
        for profile in Profile::ALL {
            let events = stream(&[
                snapshot(json!({"n": 1})),
                delta_text(
                    r#"[{"op":"test","path":"/n","value":1.0},{"op":"add","path":"/ok","value":true}]"#,
                ),
                json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 100}}),
            ]);
            let mut events = events;
            let state_delta: Value = serde_json::from_str(
                r#"{"type":"STATE_DELTA","delta":[{"op":"test","path":"/n","value":1e2},{"op":"add","path":"/ok","value":true}]}"#,
            )
            .expect("json");
            events.insert(4, state_delta);
            let replayer = replay(profile, &events);
            assert_eq!(content(&replayer), json!({"n": 1, "ok": true}), "{profile}");
            assert_eq!(
                replayer.state(),
                &json!({"n": 100, "ok": true}),
                "{profile}"
            );
            assert!(
                replayer.diagnostics().is_empty(),
                "{profile}: {:?}",
                replayer.diagnostics()
            );
        }
    }

    #[test]
    fn an_operation_without_a_string_op_is_dropped_under_both_profiles() {
        // issue 18, item 7 (E9): the reference drops it as unrecognised
        // material; so does the corpus for an unknown op.
        for profile in Profile::ALL {
            let events = stream(&[
                snapshot(json!({"n": 1})),
                delta_text(r#"[{"path":"/m","value":2},{"op":"add","path":"/k","value":3}]"#),
                json!({"type": "STATE_DELTA", "delta": [{"op": 7, "path": "/m"}, {"op": "add", "path": "/k", "value": 3}]}),
            ]);
            let replayer = replay(profile, &events);
            assert_eq!(replayer.fatal(), None, "{profile}");
            assert_eq!(content(&replayer), json!({"n": 1, "k": 3}), "{profile}");
            assert_eq!(replayer.state(), &json!({"k": 3}), "{profile}");
            let dropped: Vec<_> = replayer
                .diagnostics()
                .iter()
                .filter(|d| d.code == Code::PatchOpUnknown)
                .map(|d| d.path.clone())
                .collect();
            assert_eq!(
                dropped,
                [Some("/patch/0".to_owned()), Some("/delta/0".to_owned())],
                "{profile}"
            );
        }
    }

    #[test]
    fn client_state_delta_placing_a_function_fails_the_run() {
        // issue 18, item 8: the client clones the new state outside any
        // catch, and a function cannot be cloned; spec skips the delta.
        let events = stream(&[
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "move", "from": "/toString", "path": "/x"}]}),
        ]);
        let client = replay(Profile::AgUiClient10, &events);
        let fatal = client.fatal().expect("fatal");
        assert_eq!(fatal.code, Code::StatePatchFailed);
        let spec = replay(Profile::Spec, &events);
        assert_eq!(spec.fatal(), None);
        assert!(codes(&spec).contains(&(Code::StatePatchFailed, Severity::Warning)));
        assert_eq!(spec.state(), &json!({"n": 1}));
    }

    #[test]
    fn client_function_in_the_result_fails_only_if_it_stays() {
        // issue 18, item 8: the client clones the result at the end.
        let (_, client) = both(
            r#"{"n":1}"#,
            r#"[{"op":"move","from":"/toString","path":"/x"},{"op":"remove","path":"/x"}]"#,
        );
        assert_eq!(client, Ok(json!({"n": 1})));
        let (_, client) = both(
            r#"{"arr":["a","b"]}"#,
            r#"[{"op":"copy","from":"/arr/constructor","path":"/x"},{"op":"remove","path":"/x"}]"#,
        );
        assert_eq!(client, Ok(json!({"arr": ["a", "b"]})));
        // A later operation that fails is an ordinary failure, even for
        // the state: the run goes on.
        let events = stream(&[
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
            json!({"type": "STATE_DELTA", "delta": [
                {"op": "move", "from": "/valueOf", "path": "/x"},
                {"op": "test", "path": "/n", "value": 2}]}),
        ]);
        let client = replay(Profile::AgUiClient10, &events);
        assert_eq!(client.fatal(), None);
        assert_eq!(client.state(), &json!({"n": 1}));
        assert!(codes(&client).contains(&(Code::StatePatchFailed, Severity::Warning)));
    }

    #[test]
    fn client_move_from_an_array_name_splices_from_the_start() {
        // issue 18, item 8: `arr.splice("length", 1)` removes element 0.
        let (spec, client) = both(
            r#"{"arr":["a","b"]}"#,
            r#"[{"op":"move","from":"/arr/length","path":"/x"}]"#,
        );
        assert!(spec.is_err());
        assert_eq!(client, Ok(json!({"arr": ["b"], "x": "a"})));
    }

    #[test]
    fn client_move_to_the_root_from_nowhere_leaves_undefined() {
        // issue 18, item 8: no check that `from` resolves for a root move.
        let events = stream(&[
            snapshot(json!({"n": 1})),
            delta_text(r#"[{"op":"move","from":"/zz","path":""}]"#),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "move", "from": "/zz", "path": ""}]}),
        ]);
        let client = replay(Profile::AgUiClient10, &events);
        // The activity shows no content; the state the client publishes
        // stays as it was.
        assert_eq!(content(&client), Value::Null);
        assert_eq!(client.state(), &json!({"n": 1}));
        assert!(codes(&client).contains(&(Code::StatePatchFailed, Severity::Note)));
        let spec = replay(Profile::Spec, &events);
        assert_eq!(content(&spec), json!({"n": 1}));
        assert!(codes(&spec).contains(&(Code::PatchFailed, Severity::Warning)));
    }
}
