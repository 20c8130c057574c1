//! Lone UTF-16 surrogates (issue 39): a JavaScript producer that slices
//! text by UTF-16 units can cut a character outside the Basic Multilingual
//! Plane (an emoji) in two, and `JSON.stringify` then sends each half as a
//! lone escape (`"ok \ud83d"`, then `"\ude42"`). That is valid JSON text, and
//! the reference client keeps such strings and joins the halves when it
//! concatenates deltas.
//!
//! A Rust `String` cannot hold a surrogate, so the replay holds each lone
//! half as a *stand-in*: the code point `U+10F800 + (unit − 0xD800)`, the
//! last 2,048 code points of Supplementary Private Use Area-B
//! (`U+10F800`–`U+10FFFF`). Only events that hold a lone escape pay for it:
//! their text is rewritten once ([`rewrite`]) before it is read, and every
//! other event takes the one-pass reader untouched. Where text is
//! concatenated ([`push_joined`]) a high stand-in meeting a low one becomes
//! the character they encode; JSON written out ([`escape_json`]) carries a
//! stand-in as the escape it came as (`\ud83d`, what `JSON.stringify`
//! writes), and text shown to a person ([`display`]) as `�⟨\ud83d⟩`.
//!
//! A producer that sends a real code point of that range (private use,
//! two of them noncharacters) is read as if it had sent the escape: the
//! one known confusion of this representation, documented in docs/RULES.md.
//! The raw bytes of every event are kept as they came, so exports of the
//! events (JSON lines, SSE, vectors, fixtures, recordings) are exact.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

use crate::pointer::escape as pointer_token;

/// The stand-in of unit `0xD800`.
const BASE: u32 = 0x10_F800;

/// The stand-in for a surrogate unit (`0xD800..=0xDFFF`).
fn stand_in(unit: u16) -> char {
    char::from_u32(BASE + u32::from(unit.saturating_sub(0xD800)).min(0x7FF))
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The surrogate unit a stand-in holds, if `c` is one.
pub fn unit_of(c: char) -> Option<u16> {
    let offset = u32::from(c).checked_sub(BASE)?;
    u16::try_from(offset).ok().map(|offset| 0xD800 + offset)
}

/// Whether `unit` is a high (leading) surrogate.
fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

/// Whether `unit` is a low (trailing) surrogate.
fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// Whether `text` may hold a stand-in: the lead byte of plane 16 (`F4`),
/// which ordinary text nearly never has, so this is one `memchr`.
pub fn may_hold_stand_in(text: &str) -> bool {
    memchr::memchr(0xF4, text.as_bytes()).is_some()
}

/// The value of four hex digits.
fn hex4(bytes: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(bytes.get(..4)?).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(text, 16).ok()
}

/// The lone surrogate escapes of a JSON text, as (byte offset of the `\u`,
/// unit), in order. A high escape directly followed by a low one is a pair
/// (a character), not lone.
fn lone_escapes(text: &str) -> Vec<(usize, u16)> {
    let bytes = text.as_bytes();
    let mut lone = Vec::new();
    let mut pending_high: Option<(usize, u16)> = None;
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + found;
        let unit = (bytes.get(at + 1) == Some(&b'u'))
            .then(|| bytes.get(at + 2..).and_then(hex4))
            .flatten();
        let Some(unit) = unit else {
            // Another escape (`\\`, `\"`, `\n`…): two bytes.
            if let Some(high) = pending_high.take() {
                lone.push(high);
            }
            i = at + 2;
            if i >= bytes.len() {
                break;
            }
            continue;
        };
        if let Some((high_at, high)) = pending_high.take() {
            if is_low(unit) && high_at + 6 == at {
                i = at + 6;
                continue;
            }
            lone.push((high_at, high));
        }
        if is_high(unit) {
            pending_high = Some((at, unit));
        } else if is_low(unit) {
            lone.push((at, unit));
        }
        i = at + 6;
    }
    lone.extend(pending_high);
    lone
}

/// Whether a JSON text holds a lone surrogate escape. Cheap when it holds
/// no `\u` escape of a surrogate at all.
pub fn has_lone_escape(text: &str) -> bool {
    // A surrogate escape starts `\ud` or `\uD`; most events have none.
    let finder = memchr::memmem::find(text.as_bytes(), b"\\ud").is_some()
        || memchr::memmem::find(text.as_bytes(), b"\\uD").is_some();
    finder && !lone_escapes(text).is_empty()
}

/// The JSON text with each lone surrogate escape replaced by its stand-in
/// (which `serde_json` reads as any other character), or `None` when it
/// holds none.
pub fn rewrite(text: &str) -> Option<String> {
    if !has_lone_escape(text) {
        return None;
    }
    let lone = lone_escapes(text);
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (at, unit) in lone {
        out.push_str(&text[from..at]);
        out.push(stand_in(unit));
        from = at + 6;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Appends `delta` to `text` as JavaScript's `+=` does on UTF-16 strings:
/// a high half at the end of `text` and a low half at the start of `delta`
/// join into the character they encode. Returns that character when two
/// halves joined.
pub fn push_joined(text: &mut String, delta: &str) -> Option<char> {
    if delta.as_bytes().first() == Some(&0xF4)
        && let Some(low) = delta.chars().next()
        && let Some(low_unit) = unit_of(low).filter(|u| is_low(*u))
        && let Some(high) = text.chars().next_back()
        && let Some(high_unit) = unit_of(high).filter(|u| is_high(*u))
    {
        let code =
            0x1_0000 + ((u32::from(high_unit) - 0xD800) << 10) + (u32::from(low_unit) - 0xDC00);
        if let Some(joined) = char::from_u32(code) {
            text.truncate(text.len() - high.len_utf8());
            text.push(joined);
            text.push_str(&delta[low.len_utf8()..]);
            return Some(joined);
        }
    }
    text.push_str(delta);
    None
}

/// JSON text (as `serde_json` writes it) with every stand-in written as the
/// escape it stands for (`\ud83d`), as `JSON.stringify` writes a lone
/// surrogate. Stand-ins only occur inside strings, so the result is JSON.
pub fn escape_json(json: String) -> String {
    if !may_hold_stand_in(&json) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        match unit_of(c) {
            Some(unit) => {
                let _ = write!(out, "\\u{unit:04x}");
            }
            None => out.push(c),
        }
    }
    out
}

/// Text for a person: every stand-in shown as `�⟨\ud83d⟩`, a replacement
/// character (what a browser shows) and the half it is.
pub fn display(text: &str) -> Cow<'_, str> {
    if !may_hold_stand_in(text) || !text.chars().any(|c| unit_of(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match unit_of(c) {
            Some(unit) => {
                let _ = write!(out, "\u{FFFD}⟨\\u{unit:04x}⟩");
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One string of an event that holds a lone half: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// A JSON pointer to the string (or to the member whose name holds it).
    pub path: String,
    /// Plain words: which halves, and where in the string.
    pub what: String,
}

/// The strings of a value (read from a rewritten text) that hold stand-ins.
pub fn splits(value: &Value) -> Vec<Split> {
    let mut found = Vec::new();
    walk(value, &mut String::new(), &mut found);
    found
}

fn walk(value: &Value, path: &mut String, found: &mut Vec<Split>) {
    match value {
        Value::String(text) => {
            if let Some(what) = describe(text) {
                found.push(Split {
                    path: path.clone(),
                    what,
                });
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                let _ = write!(path, "/{i}");
                walk(item, path, found);
                path.truncate(len);
            }
        }
        Value::Object(members) => {
            for (name, item) in members {
                let len = path.len();
                path.push('/');
                path.push_str(&pointer_token(name));
                if let Some(what) = describe(name) {
                    found.push(Split {
                        path: path.clone(),
                        what: format!("its name {what}"),
                    });
                }
                walk(item, path, found);
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Where the lone halves of `text` are, in words, or `None` if it has none.
fn describe(text: &str) -> Option<String> {
    if !may_hold_stand_in(text) {
        return None;
    }
    let count = text.chars().count();
    let mut parts = Vec::new();
    for (i, c) in text.chars().enumerate() {
        let Some(unit) = unit_of(c) else { continue };
        let half = if is_high(unit) { "first" } else { "second" };
        let place = if i + 1 == count && is_high(unit) {
            "ends with"
        } else if i == 0 && is_low(unit) {
            "starts with"
        } else {
            "holds"
        };
        parts.push(format!("{place} the lone {half} half \\u{unit:04x}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39: a pair is a character, a half alone is lone; other
    /// escapes (`\\u` is a backslash then `u`) are not surrogates.
    #[test]
    fn lone_escapes_are_found_and_pairs_are_not() {
        assert!(lone_escapes(r#""\ud83d\ude42""#).is_empty());
        assert_eq!(lone_escapes(r#""ok \ud83d""#), vec![(4, 0xD83D)]);
        assert_eq!(lone_escapes(r#""\uDE42!""#), vec![(1, 0xDE42)]);
        assert_eq!(
            lone_escapes(r#""\ud83d\ud83d\ude42""#),
            vec![(1, 0xD83D)],
            "the second high pairs with the low"
        );
        assert_eq!(
            lone_escapes(r#""\ud83d x\ude42""#).len(),
            2,
            "halves apart do not pair"
        );
        assert!(lone_escapes(r#""\\ud83d""#).is_empty());
        assert!(!has_lone_escape(r#"{"a":"\u00e9\n"}"#));
        assert_eq!(lone_escapes(r#""\ud83d\n""#), vec![(1, 0xD83D)]);
        assert_eq!(lone_escapes("\"\\ud83d"), vec![(1, 0xD83D)]);
        assert!(lone_escapes("\\").is_empty());
        assert!(lone_escapes("\"\\ud8").is_empty());
    }

    /// Issue 39: rewritten, read, joined and written back as the escape.
    #[test]
    fn halves_join_on_concatenation_and_lone_ones_are_written_as_escapes() {
        let first = rewrite(r#""ok \ud83d""#).expect("lone");
        let second = rewrite(r#""\ude42!""#).expect("lone");
        let first: String = serde_json::from_str(&first).expect("JSON");
        let second: String = serde_json::from_str(&second).expect("JSON");
        let mut text = first.clone();
        assert_eq!(push_joined(&mut text, &second), Some('🙂'));
        assert_eq!(text, "ok 🙂!");
        let json = escape_json(serde_json::to_string(&first).expect("string"));
        assert_eq!(json, r#""ok \ud83d""#);
        assert_eq!(display(&first), "ok \u{FFFD}⟨\\ud83d⟩");
        assert_eq!(display("plain"), "plain");
        let mut plain = String::from("a");
        assert_eq!(push_joined(&mut plain, "b"), None);
        assert_eq!(plain, "ab");
        assert_eq!(rewrite(r#""\ud83d\ude42""#), None);
    }
}
