//! Values as short text: cut to a number of characters, as one bounded line
//! of JSON, or as the inline summary a tree row shows.

use crate::app_model::words::thousands;
use std::borrow::Cow;
use std::io;

use serde_json::Value;

/// Characters of a scalar shown inline (the rest on hover).
pub const MAX_INLINE_CHARS: usize = 120;

/// `text` cut to `max_chars` characters, with `…` when cut.
pub fn truncate_chars(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// A value as one line of JSON, cut to `max_chars` characters (with `…`).
/// Serializes at most about `max_chars` bytes, however big the value.
pub fn compact_json(value: &Value, max_chars: usize) -> String {
    /// A writer that refuses bytes past its limit, stopping the serializer.
    struct Bounded {
        bytes: Vec<u8>,
        limit: usize,
    }
    impl io::Write for Bounded {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let room = self.limit.saturating_sub(self.bytes.len());
            if room == 0 {
                return Err(io::Error::other("full"));
            }
            let n = room.min(buf.len());
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    // Characters take up to 4 bytes; one more byte tells "cut" from "fits".
    let mut writer = Bounded {
        bytes: Vec::new(),
        limit: max_chars.saturating_mul(4).saturating_add(1),
    };
    let _ = serde_json::to_writer(&mut writer, value);
    let text = String::from_utf8_lossy(&writer.bytes);
    let text = text.strip_suffix('\u{fffd}').unwrap_or(&text);
    let full = writer.bytes.len() < writer.limit;
    let text = match truncate_chars(text, max_chars) {
        Cow::Borrowed(fits) if full => fits.to_owned(),
        Cow::Borrowed(fits) => format!("{fits}…"),
        Cow::Owned(cut) => cut,
    };
    // Issue 39: a lone UTF-16 surrogate shows as its JSON escape.
    crate::surrogate::escape_json(text)
}

/// The inline text of a scalar (strings quoted and escaped), or a short
/// summary of a container (`{3 keys}`, `[5 items]`).
pub fn inline_text(value: &Value) -> String {
    match value {
        Value::Object(map) => count_label(map.len(), "key", "{", "}"),
        Value::Array(items) => count_label(items.len(), "item", "[", "]"),
        scalar => compact_json(scalar, MAX_INLINE_CHARS),
    }
}

fn count_label(n: usize, noun: &str, open: &str, close: &str) -> String {
    if n == 0 {
        return format!("{open}{close}");
    }
    let plural = if n == 1 { "" } else { "s" };
    format!("{open}{} {noun}{plural}{close}", thousands(n as u64))
}

/// JSON text re-indented by two spaces, members kept in the order sent;
/// text that is not JSON comes out re-indented as far as it reads.
pub fn pretty_raw(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.trim().chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("héllo", 10), "héllo");
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(truncate_chars("", 0), "");
    }

    /// Issue 39: a lone UTF-16 surrogate the replay holds (as a stand-in)
    /// shows as the escape it came as, not as a private-use character.
    #[test]
    fn a_lone_surrogate_shows_as_its_escape() {
        let rewritten = crate::surrogate::rewrite(r#""ok \ud83d""#).expect("lone");
        let value: Value = serde_json::from_str(&rewritten).expect("JSON");
        assert_eq!(compact_json(&value, 100), r#""ok \ud83d""#);
        assert_eq!(inline_text(&value), r#""ok \ud83d""#);
    }

    #[test]
    fn compact_json_is_bounded_and_marks_cuts() {
        assert_eq!(compact_json(&json!({"a": [1, 2]}), 100), r#"{"a":[1,2]}"#);
        assert_eq!(compact_json(&json!("abcdef"), 8), r#""abcdef""#);
        assert_eq!(compact_json(&json!("abcdefg"), 8), r#""abcdefg…"#);
        let big = Value::Array((0..100_000).map(Value::from).collect());
        let text = compact_json(&big, 20);
        assert_eq!(text.chars().count(), 21);
        assert!(text.starts_with("[0,1,2,3"));
        assert!(text.ends_with('…'));
        assert_eq!(compact_json(&json!("ééééé"), 3), "\"éé…");
    }

    #[test]
    fn inline_text_quotes_strings_and_counts_containers() {
        assert_eq!(inline_text(&json!("a\nb")), r#""a\nb""#);
        assert_eq!(inline_text(&json!(null)), "null");
        assert_eq!(inline_text(&json!({"a": 1})), "{1 key}");
        assert_eq!(inline_text(&json!([1, 2])), "[2 items]");
        assert_eq!(inline_text(&json!([])), "[]");
    }
}
