//! The protobuf wire format, walked by the schema: bytes of a message to
//! JSON ([`decode_message`]) and JSON to bytes ([`encode_message`]), with
//! `google.protobuf.Value` and `Struct` as the JSON they stand for. The
//! varints and keys are prost's.
//!
//! Decoding follows `@ag-ui/proto` 1.0.0 (ts-proto's reader): a singular
//! scalar that is absent reads as its default (`""`, `0`, `false`), a
//! repeated field as `[]`, an absent `optional` or message field is left
//! out; strings are read as UTF-8 with U+FFFD for a bad byte, as
//! JavaScript's `TextDecoder` reads them. Nothing here panics on any bytes.

use prost::encoding::{WireType, decode_key, decode_varint, encode_key, encode_varint};
use serde_json::Value;

use super::ProtoError;
use super::json::{J, MAX_SAFE_INTEGER};
use super::schema::{Field, FieldType, Label, Schema};

/// How deep messages and values may nest (prost's own limit).
pub(crate) const MAX_DEPTH: usize = 100;

fn bad(reason: impl Into<String>) -> ProtoError {
    ProtoError::Decode(reason.into())
}

fn too_deep() -> ProtoError {
    bad(format!("nested more than {MAX_DEPTH} levels deep"))
}

/// One field as read off the wire.
enum Read<'a> {
    Varint(u64),
    Fixed64([u8; 8]),
    Bytes(&'a [u8]),
}

/// Reads the next field of a message: its number and value.
fn read_field<'a>(buf: &mut &'a [u8]) -> Result<(u32, Read<'a>), ProtoError> {
    let (number, wire_type) = decode_key(buf).map_err(|e| bad(e.to_string()))?;
    let value = match wire_type {
        WireType::Varint => Read::Varint(decode_varint(buf).map_err(|e| bad(e.to_string()))?),
        WireType::SixtyFourBit => {
            let Some((bytes, rest)) = buf.split_first_chunk::<8>() else {
                return Err(bad(format!("field {number}: a 64-bit value cut short")));
            };
            *buf = rest;
            Read::Fixed64(*bytes)
        }
        WireType::LengthDelimited => {
            let len = decode_varint(buf).map_err(|e| bad(e.to_string()))?;
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            if len > buf.len() {
                return Err(bad(format!(
                    "field {number} says {len} bytes, {} remain",
                    buf.len()
                )));
            }
            let (bytes, rest) = buf.split_at(len);
            *buf = rest;
            Read::Bytes(bytes)
        }
        WireType::ThirtyTwoBit => {
            let Some((_, rest)) = buf.split_first_chunk::<4>() else {
                return Err(bad(format!("field {number}: a 32-bit value cut short")));
            };
            *buf = rest;
            // No field of the schema is 32-bit: an unknown field, skipped.
            return Ok((0, Read::Varint(0)));
        }
        WireType::StartGroup | WireType::EndGroup => {
            return Err(bad(format!(
                "field {number} is a group (proto2), not proto3"
            )));
        }
    };
    Ok((number, value))
}

/// What a message's field holds so far.
enum Slot {
    Scalar(J),
    /// A singular message, `Value` or `Struct`: its encodings, concatenated
    /// (protobuf merges a message sent twice).
    Bytes(Vec<u8>),
    List(Vec<J>),
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Decodes one message of the schema into a JSON object.
pub(crate) fn decode_message(
    schema: &Schema,
    message: usize,
    mut buf: &[u8],
    depth: usize,
) -> Result<J, ProtoError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let def = &schema.messages[message];
    let mut slots: Vec<Option<Slot>> = def.fields.iter().map(|_| None).collect();
    while !buf.is_empty() {
        let (number, read) = read_field(&mut buf)?;
        let Some(index) = def.fields.iter().position(|f| f.number == number) else {
            continue;
        };
        let field = &def.fields[index];
        let wrong = || {
            bad(format!(
                "{}.{} (field {number}) has the wrong wire type",
                def.name, field.name
            ))
        };
        let value = match (field.ty, read) {
            (FieldType::String, Read::Bytes(b)) => Slot::Scalar(J::Str(text(b))),
            (FieldType::Int64, Read::Varint(v)) => {
                let n = v as i64;
                if n.abs() > MAX_SAFE_INTEGER {
                    return Err(bad(format!(
                        "{}.{} is {n}, beyond what a JavaScript number holds",
                        def.name, field.name
                    )));
                }
                Slot::Scalar(J::Int(n))
            }
            (FieldType::Int32 | FieldType::Enum(_), Read::Varint(v)) => {
                Slot::Scalar(J::Int(i64::from(v as i32)))
            }
            (FieldType::Bool, Read::Varint(v)) => Slot::Scalar(J::Bool(v != 0)),
            (FieldType::Double, Read::Fixed64(b)) => Slot::Scalar(J::number(f64::from_le_bytes(b))),
            (FieldType::Message(m), Read::Bytes(b)) if field.label == Label::Repeated => {
                Slot::List(vec![decode_message(schema, m, b, depth + 1)?])
            }
            (FieldType::Message(_) | FieldType::Value | FieldType::Struct, Read::Bytes(b))
                if field.label == Label::Repeated =>
            {
                // No repeated Value or Struct in the schema; read as one.
                let item = decode_typed(schema, field, b, depth + 1)?.unwrap_or(J::Null);
                Slot::List(vec![item])
            }
            (FieldType::Message(_) | FieldType::Value | FieldType::Struct, Read::Bytes(b)) => {
                Slot::Bytes(b.to_vec())
            }
            _ => return Err(wrong()),
        };
        let slot = &mut slots[index];
        match (slot.as_mut(), value) {
            (Some(Slot::List(items)), Slot::List(more)) => items.extend(more),
            (Some(Slot::List(items)), Slot::Scalar(item)) => items.push(item),
            (Some(Slot::Bytes(bytes)), Slot::Bytes(more)) => bytes.extend(more),
            (_, Slot::Scalar(item)) if field.label == Label::Repeated => {
                *slot = Some(Slot::List(vec![item]));
            }
            (_, value) => *slot = Some(value),
        }
    }
    let mut members = Vec::with_capacity(def.fields.len());
    for (field, slot) in def.fields.iter().zip(slots) {
        let value = match slot {
            Some(Slot::Scalar(value)) => Some(value),
            Some(Slot::List(items)) => Some(J::Arr(items)),
            Some(Slot::Bytes(bytes)) => decode_typed(schema, field, &bytes, depth + 1)?,
            None if field.label == Label::Repeated => Some(J::Arr(Vec::new())),
            None if field.label == Label::Singular => default_of(field),
            None => None,
        };
        if let Some(value) = value {
            members.push((field.json.clone(), value));
        }
    }
    Ok(J::Obj(members))
}

/// A singular scalar's default; nothing for a message.
fn default_of(field: &Field) -> Option<J> {
    Some(match field.ty {
        FieldType::String => J::Str(String::new()),
        FieldType::Int64 | FieldType::Int32 | FieldType::Enum(_) => J::Int(0),
        FieldType::Bool => J::Bool(false),
        FieldType::Double => J::Int(0),
        FieldType::Message(_) | FieldType::Value | FieldType::Struct => return None,
    })
}

fn decode_typed(
    schema: &Schema,
    field: &Field,
    bytes: &[u8],
    depth: usize,
) -> Result<Option<J>, ProtoError> {
    match field.ty {
        FieldType::Message(m) => decode_message(schema, m, bytes, depth).map(Some),
        FieldType::Value => decode_value(bytes, depth),
        FieldType::Struct => decode_struct(bytes, depth).map(Some),
        _ => Ok(None),
    }
}

/// A `google.protobuf.Value`: `None` when no kind is set (JavaScript's
/// `undefined`: the member is left out). Of several kinds, the one
/// ts-proto's `unwrap` prefers wins.
pub(crate) fn decode_value(mut buf: &[u8], depth: usize) -> Result<Option<J>, ProtoError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let (mut null, mut number, mut string, mut boolean) = (false, None, None, None);
    let (mut object, mut list) = (None, None);
    while !buf.is_empty() {
        match read_field(&mut buf)? {
            (1, Read::Varint(_)) => null = true,
            (2, Read::Fixed64(b)) => number = Some(J::number(f64::from_le_bytes(b))),
            (3, Read::Bytes(b)) => string = Some(J::Str(text(b))),
            (4, Read::Varint(v)) => boolean = Some(J::Bool(v != 0)),
            (5, Read::Bytes(b)) => object = Some(decode_struct(b, depth + 1)?),
            (6, Read::Bytes(b)) => list = Some(decode_list(b, depth + 1)?),
            (1..=6, _) => {
                return Err(bad(
                    "google.protobuf.Value has a field of the wrong wire type",
                ));
            }
            _ => {}
        }
    }
    Ok(string
        .or(number)
        .or(boolean)
        .or(object)
        .or(list)
        .or(null.then_some(J::Null)))
}

/// A `google.protobuf.Struct`, as an object (a key sent twice keeps its
/// first place and its last value, as a JavaScript object does).
fn decode_struct(mut buf: &[u8], depth: usize) -> Result<J, ProtoError> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let mut object = J::Obj(Vec::new());
    while !buf.is_empty() {
        match read_field(&mut buf)? {
            (1, Read::Bytes(mut entry)) => {
                let (mut key, mut value) = (String::new(), None);
                while !entry.is_empty() {
                    match read_field(&mut entry)? {
                        (1, Read::Bytes(b)) => key = text(b),
                        (2, Read::Bytes(b)) => value = decode_value(b, depth + 1)?,
                        (1 | 2, _) => {
                            return Err(bad("a Struct entry has a field of the wrong wire type"));
                        }
                        _ => {}
                    }
                }
                if let Some(value) = value {
                    object.set(&key, value);
                }
            }
            (1, _) => {
                return Err(bad(
                    "google.protobuf.Struct has a field of the wrong wire type",
                ));
            }
            _ => {}
        }
    }
    Ok(object)
}

fn decode_list(mut buf: &[u8], depth: usize) -> Result<J, ProtoError> {
    let mut items = Vec::new();
    while !buf.is_empty() {
        match read_field(&mut buf)? {
            (1, Read::Bytes(b)) => items.push(decode_value(b, depth + 1)?.unwrap_or(J::Null)),
            (1, _) => {
                return Err(bad(
                    "google.protobuf.ListValue has a field of the wrong wire type",
                ));
            }
            _ => {}
        }
    }
    Ok(J::Arr(items))
}

// ---- encoding ----

fn cannot(path: &str, reason: impl std::fmt::Display) -> ProtoError {
    ProtoError::Encode(format!("{path}: {reason}"))
}

fn put_bytes(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    encode_key(number, WireType::LengthDelimited, out);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// Encodes a JSON object as one message of the schema. Members the message
/// has no field for are not sent (as ts-proto does); `null` is an absent
/// field, except where any JSON value goes.
pub(crate) fn encode_message(
    schema: &Schema,
    message: usize,
    object: &serde_json::Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), ProtoError> {
    if depth > MAX_DEPTH {
        return Err(cannot(
            path,
            format!("nested more than {MAX_DEPTH} levels deep"),
        ));
    }
    let def = &schema.messages[message];
    for field in &def.fields {
        let Some(value) = object.get(&field.json) else {
            continue;
        };
        let path = format!("{path}/{}", field.json);
        if value.is_null() && field.ty != FieldType::Value {
            continue;
        }
        if field.label == Label::Repeated {
            let Value::Array(items) = value else {
                return Err(cannot(&path, "not an array"));
            };
            for (i, item) in items.iter().enumerate() {
                encode_field(schema, field, item, &format!("{path}/{i}"), depth, out)?;
            }
            continue;
        }
        if field.label == Label::Singular && is_default(value) && is_scalar(field.ty) {
            continue;
        }
        encode_field(schema, field, value, &path, depth, out)?;
    }
    Ok(())
}

fn is_scalar(ty: FieldType) -> bool {
    !matches!(
        ty,
        FieldType::Message(_) | FieldType::Value | FieldType::Struct
    )
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

fn encode_field(
    schema: &Schema,
    field: &Field,
    value: &Value,
    path: &str,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), ProtoError> {
    let number = field.number;
    match field.ty {
        FieldType::String => {
            let s = value.as_str().ok_or_else(|| cannot(path, "not a string"))?;
            put_bytes(out, number, s.as_bytes());
        }
        FieldType::Int64 | FieldType::Int32 | FieldType::Enum(_) => {
            let n = value
                .as_i64()
                .or_else(|| {
                    value
                        .as_f64()
                        .filter(|x| x.fract() == 0.0)
                        .map(|x| x as i64)
                })
                .ok_or_else(|| cannot(path, "not an integer"))?;
            let n = if field.ty == FieldType::Int64 {
                n
            } else {
                i64::from(i32::try_from(n).map_err(|_| cannot(path, "beyond 32 bits"))?)
            };
            encode_key(number, WireType::Varint, out);
            encode_varint(n as u64, out);
        }
        FieldType::Bool => {
            let b = value
                .as_bool()
                .ok_or_else(|| cannot(path, "not a boolean"))?;
            encode_key(number, WireType::Varint, out);
            encode_varint(u64::from(b), out);
        }
        FieldType::Double => {
            let x = value.as_f64().ok_or_else(|| cannot(path, "not a number"))?;
            encode_key(number, WireType::SixtyFourBit, out);
            out.extend_from_slice(&x.to_le_bytes());
        }
        FieldType::Message(m) => {
            let Value::Object(object) = value else {
                return Err(cannot(path, "not an object"));
            };
            let mut inner = Vec::new();
            encode_message(schema, m, object, path, depth + 1, &mut inner)?;
            put_bytes(out, number, &inner);
        }
        FieldType::Value => {
            let mut inner = Vec::new();
            encode_value(value, path, depth + 1, &mut inner)?;
            put_bytes(out, number, &inner);
        }
        FieldType::Struct => {
            let Value::Object(object) = value else {
                // `metadata` that is not an object is dropped, as the
                // official encoder's normalizeMetadata does.
                if field.name == "metadata" {
                    return Ok(());
                }
                return Err(cannot(path, "not an object"));
            };
            let mut inner = Vec::new();
            encode_struct(object, path, depth + 1, &mut inner)?;
            put_bytes(out, number, &inner);
        }
    }
    Ok(())
}

/// Any JSON value as a `google.protobuf.Value`.
pub(crate) fn encode_value(
    value: &Value,
    path: &str,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), ProtoError> {
    if depth > MAX_DEPTH {
        return Err(cannot(
            path,
            format!("nested more than {MAX_DEPTH} levels deep"),
        ));
    }
    match value {
        Value::Null => {
            encode_key(1, WireType::Varint, out);
            encode_varint(0, out);
        }
        Value::Number(n) => {
            encode_key(2, WireType::SixtyFourBit, out);
            out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
        }
        Value::String(s) => put_bytes(out, 3, s.as_bytes()),
        Value::Bool(b) => {
            encode_key(4, WireType::Varint, out);
            encode_varint(u64::from(*b), out);
        }
        Value::Object(object) => {
            let mut inner = Vec::new();
            encode_struct(object, path, depth + 1, &mut inner)?;
            put_bytes(out, 5, &inner);
        }
        Value::Array(items) => {
            let mut inner = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let mut element = Vec::new();
                encode_value(item, &format!("{path}/{i}"), depth + 1, &mut element)?;
                put_bytes(&mut inner, 1, &element);
            }
            put_bytes(out, 6, &inner);
        }
    }
    Ok(())
}

fn encode_struct(
    object: &serde_json::Map<String, Value>,
    path: &str,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), ProtoError> {
    for (key, value) in object {
        let mut entry = Vec::new();
        put_bytes(&mut entry, 1, key.as_bytes());
        let mut inner = Vec::new();
        encode_value(value, &format!("{path}/{key}"), depth + 1, &mut inner)?;
        put_bytes(&mut entry, 2, &inner);
        put_bytes(out, 1, &entry);
    }
    Ok(())
}
