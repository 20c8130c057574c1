//! Errors told once. [`error_chain`] writes an error with its causes, as
//! `main` prints them and the app's banner shows them: the cause first
//! where the message already ends with it, each cause once.

use std::error::Error;

/// An error and its sources, joined by `: ` (`cannot read (permission
/// denied): x.rec`). A source the message before it already says (a
/// `thiserror` message that prints its source, or its cause in plain words
/// with [`io_cause`]) is not said twice.
pub fn error_chain(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        let plain = cause.downcast_ref::<std::io::Error>().map(io_cause);
        let already = said.is_empty()
            || text.contains(&said)
            || plain
                .as_ref()
                .is_some_and(|plain| text.contains(plain.as_str()));
        if !already {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

/// What went wrong with a file, in plain words for a message that names
/// the file after it: `permission denied`, `no such file`, `is a
/// directory`, or what the system said.
pub fn io_cause(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "no such file or directory".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        ErrorKind::IsADirectory => "is a directory".to_owned(),
        ErrorKind::StorageFull => "no space left on the device".to_owned(),
        ErrorKind::ReadOnlyFilesystem => "read-only file system".to_owned(),
        _ => error.to_string(),
    }
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

    #[test]
    fn a_cause_in_plain_words_is_not_said_again() {
        // Issue 16, point 4: `cannot read (permission denied): x.rec`, and
        // not the system's words for it after the path.
        let error = crate::input::ReadError::Io {
            path: "x.rec".into(),
            source: denied(),
        };
        assert_eq!(
            error_chain(&error),
            "cannot read (permission denied): x.rec"
        );
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(io_cause(&missing), "no such file or directory");
    }
}
