//! Reading the members of a JSON object one by one, borrowing the raw text.
//!
//! An event is first split into `(name, raw value)` pairs without building a
//! `serde_json::Value` tree; each known member is then parsed into its typed
//! form, and whatever is left over is reported as unknown (R42). This keeps
//! the raw text of every member at hand for precise diagnostics and avoids
//! parsing members twice.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A member whose value is not what the protocol allows (R40).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// A JSON pointer to the member inside the event (`/content`).
    pub path: String,
    /// What is wrong, in plain words.
    pub reason: String,
}

impl Malformed {
    pub(crate) fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// The JSON kind of a raw value, for messages ("found an array").
pub(crate) fn kind_of(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'"') => "a string",
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// Why a value of the expected kind could not be read: nested past the
/// parser's depth limit (issue 12: not "must be an object, found an
/// object"), or a number out of range.
pub(crate) fn unreadable(name: &str, error: &serde_json::Error) -> String {
    if error.to_string().starts_with("recursion limit exceeded") {
        format!(
            "`{name}` nests arrays and objects deeper than the parse limit of 127 levels; not read"
        )
    } else {
        format!("`{name}` cannot be read: {error}")
    }
}

/// Escapes a member name as one JSON pointer token.
pub(crate) fn pointer_token(name: &str) -> Cow<'_, str> {
    crate::pointer::escape(name)
}

/// The members of one JSON object, in order, with their raw text.
pub(crate) struct Fields<'a> {
    /// The pointer of this object inside the event (`""` for the event).
    base: String,
    items: Vec<(Cow<'a, str>, &'a RawValue)>,
    used: Vec<bool>,
}

impl<'a> Fields<'a> {
    /// Splits `text` into members. Fails when it is not valid JSON or not an
    /// object.
    pub fn parse(text: &'a str, base: impl Into<String>) -> Result<Self, serde_json::Error> {
        let Members(items) = serde_json::from_str(text)?;
        let used = vec![false; items.len()];
        Ok(Self {
            base: base.into(),
            items,
            used,
        })
    }

    /// The pointer to member `name`.
    pub fn path(&self, name: &str) -> String {
        format!("{}/{}", self.base, pointer_token(name))
    }

    /// The raw value of member `name`, marking it used. With duplicate names
    /// the last one wins, as in `JSON.parse`.
    pub fn take(&mut self, name: &str) -> Option<&'a RawValue> {
        let mut found = None;
        for (i, (key, raw)) in self.items.iter().enumerate() {
            if key == name {
                self.used[i] = true;
                found = Some(*raw);
            }
        }
        found
    }

    /// Looks at member `name` without marking it used.
    pub fn peek_str(&self, name: &str) -> Option<String> {
        let (_, raw) = self.items.iter().rev().find(|(key, _)| key == name)?;
        serde_json::from_str(raw.get()).ok()
    }

    /// The names of the members nothing took, in order.
    pub fn unused(&self) -> impl Iterator<Item = &str> {
        self.items
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| !**used)
            .map(|((key, _), _)| key.as_ref())
    }

    fn wrong_type(&self, name: &str, expected: &str, raw: &RawValue) -> Malformed {
        Malformed::new(
            self.path(name),
            format!("`{name}` must be {expected}, found {}", kind_of(raw)),
        )
    }

    /// An optional string member. `null` is not a string (R40).
    pub fn string(&mut self, name: &str) -> Result<Option<String>, Malformed> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<String>(raw.get())
                .map(Some)
                .map_err(|_| self.wrong_type(name, "a string", raw)),
        }
    }

    /// A required string member.
    pub fn required_string(&mut self, name: &str) -> Result<String, Malformed> {
        self.string(name)?.ok_or_else(|| self.missing(name))
    }

    /// An optional boolean member.
    pub fn boolean(&mut self, name: &str) -> Result<Option<bool>, Malformed> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<bool>(raw.get())
                .map(Some)
                .map_err(|_| self.wrong_type(name, "a boolean", raw)),
        }
    }

    /// An optional integer member (a number with a fraction or exponent that
    /// is not a whole number is not an integer).
    pub fn integer(&mut self, name: &str) -> Result<Option<i64>, Malformed> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| {
                    Malformed::new(
                        self.path(name),
                        format!("`{name}` must be an integer, found {n}"),
                    )
                }),
                _ => Err(self.wrong_type(name, "an integer", raw)),
            },
        }
    }

    /// An optional member of any JSON value (`null` included).
    pub fn value(&mut self, name: &str) -> Result<Option<Value>, Malformed> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<Value>(raw.get())
                .map(Some)
                .map_err(|e| Malformed::new(self.path(name), unreadable(name, &e))),
        }
    }

    /// A required member of any JSON value.
    pub fn required_value(&mut self, name: &str) -> Result<Value, Malformed> {
        self.value(name)?.ok_or_else(|| self.missing(name))
    }

    /// An optional object member. `null` is not an object (R40).
    pub fn object(&mut self, name: &str) -> Result<Option<Map<String, Value>>, Malformed> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<Map<String, Value>>(raw.get())
                .map(Some)
                .map_err(|e| match kind_of(raw) {
                    "an object" => Malformed::new(self.path(name), unreadable(name, &e)),
                    _ => self.wrong_type(name, "an object", raw),
                }),
        }
    }

    /// An optional member that must be a JSON array; its elements stay raw.
    pub fn array(&mut self, name: &str) -> Result<Option<Vec<&'a RawValue>>, Malformed> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<Vec<&'a RawValue>>(raw.get())
                .map(Some)
                .map_err(|_| self.wrong_type(name, "an array", raw)),
        }
    }

    /// The error for a required member that is absent.
    pub fn missing(&self, name: &str) -> Malformed {
        Malformed::new(
            self.path(name),
            format!("required member `{name}` is missing"),
        )
    }
}

/// The `(name, raw value)` pairs of a JSON object.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(map.size_hint().unwrap_or(8));
        while let Some(Key(key)) = map.next_key()? {
            let raw: &'de RawValue = map.next_value()?;
            items.push((key, raw));
        }
        Ok(Members(items))
    }
}

/// A member name, borrowed from the input unless it had escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_order_and_borrow_raw_text() {
        let mut fields = Fields::parse(r#"{"b": [1, 2], "a\u0041": "x", "b": 3}"#, "").expect("ok");
        assert_eq!(fields.take("b").map(|r| r.get()), Some("3"));
        assert_eq!(fields.string("aA"), Ok(Some("x".to_owned())));
        assert_eq!(fields.unused().count(), 0);
    }

    #[test]
    fn wrong_types_name_the_member_and_what_was_found() {
        let mut fields = Fields::parse(r#"{"messageId": null, "n": 1.5}"#, "").expect("ok");
        let err = fields
            .string("messageId")
            .expect_err("null is not a string");
        assert_eq!(err.path, "/messageId");
        assert!(err.reason.contains("found null"), "{}", err.reason);
        assert!(fields.integer("n").is_err());
    }

    #[test]
    fn not_an_object_fails() {
        assert!(Fields::parse("[1]", "").is_err());
        assert!(Fields::parse("{", "").is_err());
    }
}
