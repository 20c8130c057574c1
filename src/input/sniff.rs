//! Telling what a file is when it is not an event stream (issue 12): a
//! recording whose header is damaged, an image, a configuration file. The
//! reader refuses such a file with one clear error rather than replaying
//! it as a stream of unparseable events.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

/// Whether `raw` is a JSON object with a string `type` (the last `type`
/// wins, as in `JSON.parse`): an event, perhaps a malformed one. Any depth
/// of nesting is skipped without recursion.
pub(super) fn reads_as_event(raw: &[u8]) -> bool {
    struct Probe;
    impl<'de> Visitor<'de> for Probe {
        type Value = bool;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut typed = false;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "type" {
                    match map.next_value::<serde_json::Value>() {
                        Ok(value) => typed = value.is_string(),
                        Err(_) => return Ok(false),
                    }
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(typed)
        }
    }
    let start = raw.iter().position(|b| !b.is_ascii_whitespace());
    if start.is_none_or(|i| raw[i] != b'{') {
        return false;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(raw);
    deserializer
        .deserialize_map(Probe)
        .is_ok_and(|typed| typed && deserializer.end().is_ok())
}

/// Whether the bytes are an SQLite database whose first 16 bytes (the
/// magic string) are damaged: the rest of the header and the pages are
/// there. A recording so damaged must be reported as one, not read as
/// text.
pub(super) fn is_damaged_sqlite(bytes: &[u8]) -> bool {
    let Some(header) = bytes.get(..100) else {
        return false;
    };
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => usize::from(n),
    };
    // The payload fractions are fixed at 64, 32 and 32 (SQLite's file
    // format, section 1.3); the page size is a power of two from 512.
    page_size >= 512
        && page_size.is_power_of_two()
        && header[21..24] == [64, 32, 32]
        && matches!(header[18], 1 | 2)
        && matches!(header[19], 1 | 2)
        && bytes.len().is_multiple_of(page_size)
}

/// Whether the bytes are a recording whose SQLite header is damaged beyond
/// [`is_damaged_sqlite`]'s reading (issue 38: a zeroed header was "binary
/// data"): its first 100 bytes, SQLite's header, all zero in a file of
/// whole pages; or binary bytes in a file named as a recording (`.rec`).
pub(super) fn is_damaged_recording(bytes: &[u8], path: &std::path::Path) -> bool {
    let zeroed_header = bytes.len() > 100
        && bytes.len().is_multiple_of(512)
        && bytes[..100].iter().all(|&b| b == 0);
    let named_recording = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("rec"));
    zeroed_header || (named_recording && looks_like(bytes) == "binary data")
}

/// What the bytes look like, in words, for the error that says they are
/// not an event stream.
pub(super) fn looks_like(bytes: &[u8]) -> &'static str {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xFF\xD8\xFF", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"\x1F\x8B", "gzip-compressed data"),
        (b"\x7FELF", "an executable"),
    ];
    if let Some((_, name)) = MAGIC.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return name;
    }
    let Ok(text) = std::str::from_utf8(super::strip_bom(bytes)) else {
        return "binary data";
    };
    if text.contains('\0') {
        return "binary data";
    }
    let body = text.trim_start();
    if serde_json::from_str::<IgnoredAny>(body).is_ok() {
        return "JSON that holds no event";
    }
    if body.starts_with('<') {
        return "an HTML or XML document";
    }
    if looks_like_ini(body) {
        return "a TOML or INI file";
    }
    if body
        .lines()
        .filter(|line| !line.trim().is_empty())
        .all(|line| serde_json::from_str::<IgnoredAny>(line).is_ok())
    {
        return "JSON lines that hold no event";
    }
    "text that is not JSON"
}

/// Whether most lines are `[section]` headers, `key = value` pairs or
/// comments.
fn looks_like_ini(text: &str) -> bool {
    let mut lines = 0usize;
    let mut ini = 0usize;
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(200)
    {
        lines += 1;
        let section = line.starts_with('[') && line.ends_with(']') && !line.contains(',');
        let pair = line
            .split_once('=')
            .is_some_and(|(key, _)| is_bare_key(key.trim()));
        let comment = line.starts_with('#') || line.starts_with(';');
        if section || pair || comment {
            ini += 1;
        }
    }
    lines > 0 && ini * 2 > lines
}

fn is_bare_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_objects_with_a_string_type() {
        assert!(reads_as_event(br#"{"type":"RUN_STARTED"}"#));
        assert!(reads_as_event(br#" {"a":[[[{}]]],"type":"X"} "#));
        assert!(!reads_as_event(br#"{"type":5}"#));
        assert!(!reads_as_event(br#"[{"type":"X"}]"#));
        assert!(!reads_as_event(br#"{"kind":"X"}"#));
        assert!(!reads_as_event(b"[package]"));
        assert!(!reads_as_event(br#"{"type":"X"} trailing"#));
        let deep = format!(
            "{{\"type\":\"X\",\"a\":{}{}}}",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert!(reads_as_event(deep.as_bytes()));
    }

    /// Issue 38: a recording whose 100-byte header is zeroed, or a
    /// binary `.rec`, is a damaged recording, not "binary data".
    #[test]
    fn a_zeroed_header_or_a_binary_rec_file_is_a_damaged_recording() {
        use std::path::Path;
        let mut pages = vec![0u8; 4096];
        pages[100..110].copy_from_slice(b"\x0d\x00\x00\x00\x01\x0f\xf0\x00\x0f\xf0");
        assert!(is_damaged_recording(&pages, Path::new("x.bin")));
        assert!(is_damaged_recording(
            b"\xff\xfe\x00\x01",
            Path::new("x.REC")
        ));
        assert!(!is_damaged_recording(
            b"\xff\xfe\x00\x01",
            Path::new("x.jsonl")
        ));
        assert!(!is_damaged_recording(
            b"{\"type\":\"RUN_STARTED\"}\n",
            Path::new("x.rec")
        ));
    }

    #[test]
    fn what_files_look_like() {
        assert_eq!(looks_like(b"\x89PNG\r\n\x1a\n\0\0"), "a PNG image");
        assert_eq!(
            looks_like(b"[package]\nname = \"x\"\nversion = \"1\"\n"),
            "a TOML or INI file"
        );
        assert_eq!(looks_like(b"[[[]]]"), "JSON that holds no event");
        assert_eq!(looks_like(b"hello\nworld"), "text that is not JSON");
        assert_eq!(looks_like(b"\xff\xfe\x00"), "binary data");
    }
}
