//! JSON as written: values found in the text itself, with every duplicate
//! member kept (a reader keeps only the last of members named twice, but the
//! bytes hold all of them), and byte ranges to replace in place. Redaction
//! (of exports, and of what a recording stores) goes through here, so that
//! it hides what is written, not what a parser kept (issue 12).

use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The members of an object in the order written, duplicates kept.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for MembersVisitor<'a> {
            type Value = Members<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    let value: &'a RawValue = map.next_value()?;
                    members.push((name, value));
                }
                Ok(Members(members))
            }
        }

        deserializer.deserialize_map(MembersVisitor(PhantomData))
    }
}

/// Parses one JSON value as written (`None` if the text is not one).
pub(crate) fn parse(json: &str) -> Option<&RawValue> {
    serde_json::from_str(json).ok()
}

/// An object's members in the order written, duplicates kept, names
/// unescaped (`None` if the value is not an object).
pub(crate) fn members(value: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    if !value.get().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Members<'_>>(value.get())
        .ok()
        .map(|m| m.0)
}

/// An array's items (`None` if the value is not an array).
pub(crate) fn items(value: &RawValue) -> Option<Vec<&RawValue>> {
    if !value.get().starts_with('[') {
        return None;
    }
    serde_json::from_str(value.get()).ok()
}

/// The string a value holds, if it is one.
pub(crate) fn as_str(value: &RawValue) -> Option<String> {
    serde_json::from_str(value.get()).ok()
}

/// Every value `tokens` (a parsed JSON pointer) reach from `root`: through
/// every member of each name on the way, not only the last one.
pub(crate) fn values_at<'a>(root: &'a RawValue, tokens: &[String]) -> Vec<&'a RawValue> {
    let mut current = vec![root];
    for token in tokens {
        let mut next = Vec::new();
        for value in current {
            if let Some(members) = members(value) {
                next.extend(
                    members
                        .into_iter()
                        .filter(|(name, _)| name == token)
                        .map(|(_, v)| v),
                );
            } else if let Some(items) = items(value)
                && let Some(item) = array_index(token).and_then(|i| items.get(i).copied())
            {
                next.push(item);
            }
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    current
}

/// The byte range of `value` in `json`, which it was parsed from.
pub(crate) fn range_in(json: &str, value: &RawValue) -> Option<Range<usize>> {
    let start = (value.get().as_ptr() as usize).checked_sub(json.as_ptr() as usize)?;
    let end = start + value.get().len();
    json.get(start..end).map(|_| start..end)
}

/// The byte ranges in `json` of every value `tokens` reach (see
/// [`values_at`]).
pub(crate) fn ranges_at(json: &str, tokens: &[String]) -> Vec<Range<usize>> {
    let Some(root) = parse(json) else {
        return Vec::new();
    };
    values_at(root, tokens)
        .into_iter()
        .filter_map(|value| range_in(json, value))
        .collect()
}

/// The ranges in order, without those inside another one (or repeated).
pub(crate) fn outermost(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut kept: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if kept
            .last()
            .is_some_and(|last| range.start < last.end || *last == range)
        {
            continue;
        }
        kept.push(range);
    }
    kept
}

/// `json` with each range replaced by `replacement`. Of ranges that
/// overlap, the outer one is replaced (it holds the others).
pub(crate) fn splice(json: &str, ranges: Vec<Range<usize>>, replacement: &str) -> String {
    let ranges = outermost(ranges);
    let mut text = String::with_capacity(json.len() + ranges.len() * replacement.len());
    let mut at = 0;
    for range in ranges {
        text.push_str(&json[at..range.start]);
        text.push_str(replacement);
        at = range.end;
    }
    text.push_str(&json[at..]);
    text
}

/// An array index token: `0`, or digits without a leading zero (`-`, the
/// element after the last, never resolves to a value).
pub(crate) fn array_index(token: &str) -> Option<usize> {
    let digits = token.bytes().all(|b| b.is_ascii_digit());
    if token.is_empty() || !digits || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    token.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(pointer: &[&str]) -> Vec<String> {
        pointer.iter().map(|t| (*t).to_owned()).collect()
    }

    #[test]
    fn every_duplicate_member_is_reached() {
        // Issue 12: `{"a":1,"a":2}` holds two values, a reader keeps one.
        let json = r#"{"a":{"k":1,"k":2},"b":0,"a":{"k":3}}"#;
        let ranges = ranges_at(json, &tokens(&["a", "k"]));
        let found: Vec<&str> = ranges.iter().map(|r| &json[r.clone()]).collect();
        assert_eq!(found, ["1", "2", "3"]);
        assert_eq!(
            splice(json, ranges, "null"),
            r#"{"a":{"k":null,"k":null},"b":0,"a":{"k":null}}"#
        );
        // Escaped names are the names they spell.
        let json = r#"{"tok\u0065n":"s"}"#;
        assert_eq!(ranges_at(json, &tokens(&["token"])).len(), 1);
    }

    #[test]
    fn nested_ranges_keep_the_outer_one() {
        let json = r#"{"a":{"b":1}}"#;
        let mut ranges = ranges_at(json, &tokens(&["a", "b"]));
        ranges.extend(ranges_at(json, &tokens(&["a"])));
        assert_eq!(splice(json, ranges, "0"), r#"{"a":0}"#);
    }
}
