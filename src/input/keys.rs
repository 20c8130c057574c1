//! The keys of an event read from its raw bytes without building it: its
//! `type`, `messageId`, `runId` and `timestamp`. The store indexes them, the
//! app's filter and stream files use them, `record` prints them: one reader
//! for all (issue 16.6).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// An event's keys, borrowed from its bytes where they had no escapes. A
/// key that is absent or not of its type (a `type` that is a number, a
/// `timestamp` with a fraction) is `None`, the others are still read; bytes
/// that are not a JSON object have none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct EventKeys<'a> {
    /// `type`.
    #[serde(rename = "type", borrow, default, deserialize_with = "string")]
    pub event_type: Option<Cow<'a, str>>,
    /// `messageId`.
    #[serde(rename = "messageId", borrow, default, deserialize_with = "string")]
    pub message_id: Option<Cow<'a, str>>,
    /// `runId`.
    #[serde(rename = "runId", borrow, default, deserialize_with = "string")]
    pub run_id: Option<Cow<'a, str>>,
    /// `timestamp`, an integer (milliseconds).
    #[serde(default, deserialize_with = "integer")]
    pub timestamp: Option<i64>,
}

impl<'a> EventKeys<'a> {
    /// Reads the keys of the event in `raw` (any other member is skipped).
    /// An object that names one of them twice has none: which one a
    /// consumer takes is the precise reader's to say.
    ///
    /// An event holding a lone UTF-16 surrogate escape anywhere (issue 39:
    /// an emoji cut in two), which `serde_json` refuses, is read as the
    /// replay reads it: each lone half as its stand-in
    /// ([`surrogate::rewrite`](crate::surrogate::rewrite)).
    pub fn of(raw: &'a [u8]) -> Self {
        match serde_json::from_slice(raw) {
            Ok(keys) => keys,
            Err(_) => std::str::from_utf8(raw)
                .ok()
                .and_then(crate::surrogate::rewrite)
                .and_then(|text| serde_json::from_str::<EventKeys<'_>>(&text).ok().map(owned))
                .unwrap_or_default(),
        }
    }
}

/// Keys that borrow nothing.
fn owned(keys: EventKeys<'_>) -> EventKeys<'static> {
    let own = |key: Option<Cow<'_, str>>| key.map(|k| Cow::Owned(k.into_owned()));
    EventKeys {
        event_type: own(keys.event_type),
        message_id: own(keys.message_id),
        run_id: own(keys.run_id),
        timestamp: keys.timestamp,
    }
}

/// A value of any kind, kept when it is a string or an integer.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Other,
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Scalar::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(i64::try_from(v).map_or(Scalar::Other, Scalar::Int))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        deserializer.deserialize_any(ScalarVisitor)
    }
}

fn string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(match Scalar::deserialize(deserializer)? {
        Scalar::Str(s) => Some(s),
        _ => None,
    })
}

fn integer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    Ok(match Scalar::deserialize(deserializer)? {
        Scalar::Int(n) => Some(n),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39: an event holding a lone UTF-16 surrogate escape (valid
    /// JSON that `serde_json` refuses) had no keys at all: `compare` said
    /// "(no type)", `timing` "(no RUN_STARTED)", the store indexed nothing.
    #[test]
    fn an_event_with_a_lone_surrogate_escape_keeps_its_keys() {
        let keys = EventKeys::of(
            br#"{"type":"RUN_ERROR","runId":"r\ud83d","message":"bad \ude42","timestamp":5}"#,
        );
        assert_eq!(keys.event_type.as_deref(), Some("RUN_ERROR"));
        assert_eq!(keys.timestamp, Some(5));
        let run_id = keys.run_id.expect("a run id");
        assert_eq!(crate::surrogate::display(&run_id), "r\u{FFFD}⟨\\ud83d⟩");
        assert_eq!(EventKeys::of(br#"{"type":"\ud83d"#), EventKeys::default());
    }

    #[test]
    fn keys_are_read_one_by_one_whatever_the_others_hold() {
        let keys = EventKeys::of(
            br#"{"type":"RUN_STARTED","runId":7,"messageId":"m\u002d1","timestamp":12,"x":{"a":[1]}}"#,
        );
        assert_eq!(keys.event_type.as_deref(), Some("RUN_STARTED"));
        assert_eq!(keys.run_id, None, "a number is not a run id");
        assert_eq!(keys.message_id.as_deref(), Some("m-1"));
        assert_eq!(keys.timestamp, Some(12));
        let keys = EventKeys::of(br#"{"type":5,"timestamp":1.5,"messageId":null}"#);
        assert_eq!(keys, EventKeys::default());
        assert_eq!(EventKeys::of(b"[1]"), EventKeys::default());
        assert_eq!(EventKeys::of(b"{\"type\":\"A\"").event_type, None);
        let twice = EventKeys::of(br#"{"type":"A","type":"B","runId":"r"}"#);
        assert_eq!(twice, EventKeys::default());
    }
}
