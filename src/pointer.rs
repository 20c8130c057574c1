//! JSON pointers (RFC 6901), on the `jsonptr` crate: checking one, taking
//! it apart into its reference tokens, and escaping and unescaping one
//! token (`~1` is `/`, `~0` is `~`). What the search, the redaction of an
//! export or a recording, the conformance corpus, the patch appliers and the
//! JSON tree all read pointers with.

use std::borrow::Cow;

use jsonptr::{ParseError, Pointer, Token};

/// Why a text is not a JSON pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PointerError {
    /// It is neither empty nor starts with `/`.
    #[error("a JSON pointer is empty or starts with `/`")]
    NoLeadingSlash,
    /// A `~` is not followed by `0` or `1`.
    #[error("`~` must be followed by 0 or 1 (`~0` is `~`, `~1` is `/`)")]
    BadEscape,
}

impl From<ParseError> for PointerError {
    fn from(error: ParseError) -> Self {
        match error {
            ParseError::NoLeadingSlash => Self::NoLeadingSlash,
            ParseError::InvalidEncoding { .. } => Self::BadEscape,
        }
    }
}

/// Checks RFC 6901 syntax: empty (the whole value), or `/`-separated
/// tokens in which `~` is only ever `~0` or `~1`.
pub fn check(pointer: &str) -> Result<(), PointerError> {
    Pointer::parse(pointer)?;
    Ok(())
}

/// The reference tokens of a pointer, unescaped: `/a~1b/0` is
/// `["a/b", "0"]`, the empty pointer has none.
pub fn tokens(pointer: &str) -> Result<Vec<String>, PointerError> {
    Ok(Pointer::parse(pointer)?
        .tokens()
        .map(|token| token.decoded().into_owned())
        .collect())
}

/// One reference token, unescaped: `~1` is `/`, `~0` is `~`. A token that
/// is not valid RFC 6901 (a `~` followed by anything else) is unescaped
/// the same way, its stray `~` kept, as JavaScript's `fast-json-patch`
/// does (`unescapePathComponent`).
pub fn unescape(token: &str) -> Cow<'_, str> {
    if !token.contains('~') {
        return Cow::Borrowed(token);
    }
    match Token::from_encoded(token) {
        Ok(token) => Cow::Owned(token.decoded().into_owned()),
        Err(_) => Cow::Owned(token.replace("~1", "/").replace("~0", "~")),
    }
}

/// A member name escaped as one reference token: `/` is `~1`, `~` is `~0`.
pub fn escape(name: &str) -> Cow<'_, str> {
    Token::new(name).into_encoded()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unescaped_and_bad_pointers_refused() {
        // Issue 44: one pointer module in place of five copies.
        assert_eq!(tokens(""), Ok(vec![]));
        assert_eq!(tokens("/"), Ok(vec![String::new()]));
        assert_eq!(
            tokens("/a~1b/~0c/0/"),
            Ok(vec!["a/b".into(), "~c".into(), "0".into(), String::new()])
        );
        assert_eq!(tokens("a"), Err(PointerError::NoLeadingSlash));
        for bad in ["/a~", "/a~2", "/~/b", "/a/b~x"] {
            assert_eq!(tokens(bad), Err(PointerError::BadEscape), "{bad}");
            assert_eq!(check(bad), Err(PointerError::BadEscape), "{bad}");
        }
        assert_eq!(check(""), Ok(()));
    }

    #[test]
    fn unescape_agrees_with_the_replacements_it_stands_for() {
        // Issue 44: the copies replaced `~1` then `~0`; valid or not, a token
        // unescapes as it did.
        for token in [
            "", "a", "a~1b~0c", "~01", "~10", "~", "~2", "~~1", "a~0~1~", "é~1ß",
        ] {
            assert_eq!(
                unescape(token),
                token.replace("~1", "/").replace("~0", "~"),
                "{token:?}"
            );
        }
        assert!(matches!(unescape("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn escape_round_trips() {
        // Issue 44: a member name escapes to a token that unescapes to it.
        for name in ["", "a", "a/b~c", "~1", "/~0/"] {
            assert_eq!(unescape(&escape(name)), name);
        }
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert!(matches!(escape("plain"), Cow::Borrowed("plain")));
    }
}
