//! Errors told once. [`error_chain`] writes an error with its causes, as
//! `main` prints them and the app's banner shows them: the cause first
//! where the message already ends with it, each cause once.

use std::error::Error;

/// An error and its sources, joined by `: ` (`cannot read the recording:
/// permission denied`). A source whose text the message before it already
/// ends with (a `thiserror` message that prints its source) is not said
/// twice.
pub fn error_chain(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !said.is_empty() && !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer {
        source: std::io::Error,
        repeats: bool,
    }

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            if self.repeats {
                write!(f, "cannot read x.rec: {}", self.source)
            } else {
                write!(f, "cannot read x.rec")
            }
        }
    }

    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.source)
        }
    }

    fn denied() -> std::io::Error {
        std::io::Error::from(std::io::ErrorKind::PermissionDenied)
    }

    #[test]
    fn the_chain_says_each_cause_once() {
        // Issue 16, point 4: the cause reaches the user, and only once.
        let apart = Outer {
            source: denied(),
            repeats: false,
        };
        let text = error_chain(&apart);
        assert!(text.starts_with("cannot read x.rec: "), "{text}");
        assert!(text.ends_with(&denied().to_string()), "{text}");
        let repeated = Outer {
            source: denied(),
            repeats: true,
        };
        assert_eq!(error_chain(&repeated), text);
    }
}
