//! The fast path of [`parse_event`](super::parse_event): one pass of
//! `serde_json` into one slot per member name the schema (`schema.rs`)
//! defines, borrowing strings from the input; the schema's `fast_event`
//! then reads the event's members from the slots.
//!
//! It only ever *accepts*: an event it cannot take whole (a member of the
//! wrong type, a member foreign to the event's type, a malformed or unknown
//! patch operation, `null` where a value is required…) makes it give up, and
//! the precise reader in `parse.rs` reads the event again to say exactly what
//! is wrong. Both must agree on every event the fast path accepts; a property
//! test checks it.

use std::borrow::Cow;
use std::fmt;

use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, PatchOperation, RemoveOperation, ReplaceOperation,
    TestOperation,
};
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::event::{Event, EventType};
use super::patch::Patch;
use super::schema::{Form, OCCURRENCES, fast_event};

/// The distinct member names of the schema, in first-seen order: one slot
/// each.
const NAMES: [&str; NUM_SLOTS] = distinct_names();

/// How each slot's value is read off the wire.
const FORMS: [Form; NUM_SLOTS] = {
    let mut forms = [Form::Raw; NUM_SLOTS];
    let mut i = 0;
    while i < OCCURRENCES.len() {
        let (name, kind) = OCCURRENCES[i];
        let at = slot(name);
        // One name, one form: a schema that gives a name two forms (a
        // string here, an object there) does not compile.
        if i == first_occurrence(name) {
            forms[at] = kind.form();
        } else {
            assert!(
                same_form(forms[at], kind.form()),
                "a member name has two wire forms in the schema"
            );
        }
        i += 1;
    }
    forms
};

/// Number of distinct member names.
const NUM_SLOTS: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < OCCURRENCES.len() {
        if first_occurrence(OCCURRENCES[i].0) == i {
            count += 1;
        }
        i += 1;
    }
    count
};

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn same_form(a: Form, b: Form) -> bool {
    matches!(
        (a, b),
        (Form::StrOrOps, Form::StrOrOps)
            | (Form::Raw, Form::Raw)
            | (Form::Bool, Form::Bool)
            | (Form::Int, Form::Int)
    )
}

const fn first_occurrence(name: &str) -> usize {
    let mut i = 0;
    while i < OCCURRENCES.len() {
        if same_str(OCCURRENCES[i].0, name) {
            return i;
        }
        i += 1;
    }
    panic!("not a member name of the schema")
}

const fn distinct_names() -> [&'static str; NUM_SLOTS] {
    let mut names = [""; NUM_SLOTS];
    let mut count = 0;
    let mut i = 0;
    while i < OCCURRENCES.len() {
        if first_occurrence(OCCURRENCES[i].0) == i {
            names[count] = OCCURRENCES[i].0;
            count += 1;
        }
        i += 1;
    }
    names
}

/// The slot of member `name` (evaluated when compiling: the schema's
/// readers ask with `const { slot("messageId") }`).
pub(super) const fn slot(name: &str) -> usize {
    let first = first_occurrence(name);
    let mut at = 0;
    let mut i = 0;
    while i < first {
        if first_occurrence(OCCURRENCES[i].0) == i {
            at += 1;
        }
        i += 1;
    }
    at
}

/// A member's value as read off the wire, before its type says what it
/// must be. Strings are borrowed unless they had escapes.
pub(crate) enum WireValue<'a> {
    /// A string.
    Str(Cow<'a, str>),
    /// An array of patch operations, with only the members the RFC defines.
    Ops(Vec<WireOp<'a>>),
    /// Raw JSON text.
    Raw(&'a RawValue),
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
}

/// The members of one event, one slot per member name of the schema.
pub(crate) struct Slots<'a>([Option<WireValue<'a>>; NUM_SLOTS]);

impl<'a> Slots<'a> {
    /// Takes the value of a slot, leaving it empty.
    pub(super) fn take(&mut self, slot: usize) -> Option<WireValue<'a>> {
        self.0[slot].take()
    }

    /// Whether a member that the event's type does not define is left.
    fn has_leftovers(&self) -> bool {
        self.0.iter().any(Option::is_some)
    }
}

/// The slot of each member name, by hash: an open-addressed table built
/// when compiling, so that a member's name is found with one hash and,
/// nearly always, one comparison (not a scan of every name).
const SLOT_TABLE_LEN: usize = 128;

/// `SLOT_TABLE_LEN` entries, each a slot number or `EMPTY`.
const SLOT_TABLE: [u8; SLOT_TABLE_LEN] = {
    assert!(NUM_SLOTS < SLOT_TABLE_LEN / 2 && NUM_SLOTS < EMPTY as usize);
    let mut table = [EMPTY; SLOT_TABLE_LEN];
    let mut at = 0;
    while at < NUM_SLOTS {
        let mut i = name_hash(NAMES[at].as_bytes()) % SLOT_TABLE_LEN;
        while table[i] != EMPTY {
            i = (i + 1) % SLOT_TABLE_LEN;
        }
        table[i] = at as u8;
        at += 1;
    }
    table
};

const EMPTY: u8 = u8::MAX;

/// FNV-1a over the name's bytes.
const fn name_hash(name: &[u8]) -> usize {
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < name.len() {
        hash ^= name[i] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash as usize
}

/// The slot of a member name, if the schema names it anywhere.
fn slot_of(name: &str) -> Option<usize> {
    let mut i = name_hash(name.as_bytes()) % SLOT_TABLE_LEN;
    loop {
        let at = SLOT_TABLE[i];
        if at == EMPTY {
            return None;
        }
        if NAMES[usize::from(at)] == name {
            return Some(usize::from(at));
        }
        i = (i + 1) % SLOT_TABLE_LEN;
    }
}

/// Reads one event off the wire into `slots` (filled in place, never
/// moved) and gives its `type`. Every member must be one the schema names
/// somewhere (an unknown one, a duplicate, `null` where a string is due, a
/// string with a JSON escape as `type`… give up).
struct WireSeed<'s, 'a> {
    slots: &'s mut Slots<'a>,
}

impl<'de> DeserializeSeed<'de> for WireSeed<'_, 'de> {
    type Value = &'de str;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for WireSeed<'_, 'de> {
    type Value = &'de str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AG-UI event")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut event_type = None;
        let slots = &mut self.slots.0;
        while let Some(key) = map.next_key::<&'de str>()? {
            if key == "type" {
                if event_type.is_some() {
                    return Err(de::Error::duplicate_field("type"));
                }
                event_type = Some(map.next_value::<&'de str>()?);
                continue;
            }
            let Some(at) = slot_of(key) else {
                return Err(de::Error::custom("a member the schema does not define"));
            };
            if slots[at].is_some() {
                return Err(de::Error::custom("a duplicate member"));
            }
            slots[at] = Some(match FORMS[at] {
                Form::StrOrOps => match map.next_value::<Delta<'de>>()? {
                    Delta::Text(text) => WireValue::Str(text),
                    Delta::Ops(ops) => WireValue::Ops(ops),
                },
                Form::Raw => WireValue::Raw(map.next_value()?),
                Form::Bool => WireValue::Bool(map.next_value()?),
                Form::Int => WireValue::Int(map.next_value()?),
            });
        }
        event_type.ok_or_else(|| de::Error::missing_field("type"))
    }
}

/// One RFC 6902 operation with only the members the RFC defines.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WireOp<'a> {
    op: &'a str,
    path: &'a str,
    #[serde(default, deserialize_with = "present", borrow)]
    from: Option<&'a str>,
    /// `Some(Value::Null)` for `"value": null`, which `add` may carry.
    #[serde(default, deserialize_with = "present")]
    value: Option<Value>,
}

/// `delta`: text for content events, a patch for `STATE_DELTA`.
enum Delta<'a> {
    Text(Cow<'a, str>),
    Ops(Vec<WireOp<'a>>),
}

impl<'de> Deserialize<'de> for Delta<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DeltaVisitor;
        impl<'de> Visitor<'de> for DeltaVisitor {
            type Value = Delta<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of operations")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Delta::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Delta::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut ops = Vec::with_capacity(seq.size_hint().unwrap_or(2));
                while let Some(op) = seq.next_element()? {
                    ops.push(op);
                }
                Ok(Delta::Ops(ops))
            }
        }
        deserializer.deserialize_any(DeltaVisitor)
    }
}

/// A member that is present must be a `T` (`null` is not a string).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// Reads an event in one pass, or `None` when the precise reader must.
/// The text is UTF-8 already, so no string in it is checked again.
pub(crate) fn parse_fast(text: &str) -> Option<(EventType, Event)> {
    let mut slots = Slots([const { None }; NUM_SLOTS]);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let event_type = WireSeed { slots: &mut slots }
        .deserialize(&mut deserializer)
        .ok()?;
    deserializer.end().ok()?;
    let event_type = EventType::from_name(event_type)?;
    let event = fast_event(event_type, &mut slots)?;
    if slots.has_leftovers() {
        return None;
    }
    // Every slot is empty, so there is nothing to drop; dropping the array
    // would still visit each slot (issue 14: 2.7% of `bench replay`'s
    // samples were that drop).
    std::mem::forget(slots);
    Some((event_type, event))
}

/// A patch of known operations with their required members, or `None`.
pub(super) fn patch(ops: Vec<WireOp<'_>>) -> Option<Patch> {
    let mut patch = Patch {
        ops: Vec::with_capacity(ops.len()),
        ..Patch::default()
    };
    for op in ops {
        let path = PointerBuf::parse(op.path).ok()?;
        let from = match op.from {
            Some(from) => Some(PointerBuf::parse(from).ok()?),
            None => None,
        };
        let operation = match (op.op, from, op.value) {
            ("add", None, Some(value)) => PatchOperation::Add(AddOperation { path, value }),
            ("remove", None, None) => PatchOperation::Remove(RemoveOperation { path }),
            ("replace", None, Some(value)) => {
                PatchOperation::Replace(ReplaceOperation { path, value })
            }
            ("move", Some(from), None) => PatchOperation::Move(MoveOperation { from, path }),
            ("copy", Some(from), None) => PatchOperation::Copy(CopyOperation { from, path }),
            ("test", None, Some(value)) => PatchOperation::Test(TestOperation { path, value }),
            // Unknown ops (R17), or members an op does not define (R16):
            // the precise reader keeps and reports them.
            _ => return None,
        };
        patch.ops.push(operation);
    }
    patch.measure_values();
    Some(patch)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: the table finds every member name at its own slot, and
    /// no other name.
    #[test]
    fn every_member_name_is_found_at_its_slot_by_hash() {
        for (at, name) in NAMES.iter().enumerate() {
            assert_eq!(slot_of(name), Some(at), "{name}");
            assert_eq!(slot(name), at, "{name}");
        }
        for other in ["", "type", "messageid", "messageId ", "patchx", "Ü"] {
            assert_eq!(slot_of(other), None, "{other:?}");
        }
    }
}
