//! Protocol versions: the one the consumer implements (a setting, §11 of
//! `REPLAY-RULES.md`) and the one a producer declares in
//! `RUN_STARTED.protocolVersion`.

use std::fmt;
use std::str::FromStr;

/// The AG-UI version a consumer implements (`--protocol 1.0|1.1|draft`;
/// §11). The order is that of the schemas: a member `since` a version is
/// known to every consumer at or after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// AG-UI 1.0 (what `@ag-ui/client` 1.0.0 implements).
    V1_0,
    /// AG-UI 1.1 (the default): adds `encryptedValueType`.
    #[default]
    V1_1,
    /// The protocol's working draft (C12, issue 39): 1.1's schema, the
    /// declarations of the draft's fixtures (1.0 quiet, 1.1 newer), and
    /// the draft's stricter rules (a truncated stream, another thread or
    /// run at a run's boundary and duplicate interrupt ids are fatal).
    Draft,
}

impl ProtocolVersion {
    /// Every version this engine can consume.
    pub const ALL: [Self; 3] = [Self::V1_0, Self::V1_1, Self::Draft];

    /// `1.0`, `1.1` or `draft`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V1_1 => "1.1",
            Self::Draft => "draft",
        }
    }

    /// `(major, minor)` of the version declarations are judged against.
    /// The draft's is 1.0: its fixtures declare 1.0 where they speak the
    /// consumer's own version (`producer-declares-same-version-quiet`,
    /// `current-peer-declares-protocol-version`) and call a declared 1.1
    /// newer (`producer-declares-newer-version-warns`); C12.
    pub fn numbers(self) -> (u64, u64) {
        match self {
            Self::V1_0 | Self::Draft => (1, 0),
            Self::V1_1 => (1, 1),
        }
    }

    /// Whether this is the working draft, whose rules go past 1.1 (C12).
    pub fn is_draft(self) -> bool {
        self == Self::Draft
    }

    /// How a stream declaring `declared` stands against this consumer
    /// (§11): the same version or an older one is quiet, a newer one is
    /// served with a warning, and text that is not a version cannot be
    /// interpreted.
    pub fn judge(self, declared: &str) -> Declared {
        let Some(numbers) = parse_numbers(declared) else {
            return Declared::Uninterpretable;
        };
        let (major, minor) = self.numbers();
        let ours = [major, minor, 0];
        let mut theirs = [0u64; 3];
        for (slot, n) in theirs.iter_mut().zip(&numbers) {
            *slot = *n;
        }
        // A patch level of our own line is not newer: 1.1.3 is 1.1.
        if theirs[..2] > ours[..2] {
            Declared::Newer
        } else {
            Declared::Compatible
        }
    }
}

/// What a declared protocol version means for this consumer (§11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    /// The consumer's version or an older one: no diagnostic.
    Compatible,
    /// A newer version: replayed by the consumer's schema, with a warning.
    Newer,
    /// Not a version: a warning.
    Uninterpretable,
}

/// `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`, decimal digits only.
fn parse_numbers(text: &str) -> Option<Vec<u64>> {
    let parts: Vec<&str> = text.split('.').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    parts
        .iter()
        .map(|part| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 9 {
                None
            } else {
                part.parse().ok()
            }
        })
        .collect()
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == name)
            .ok_or_else(|| {
                format!("unknown protocol version {name:?} (expected 1.0, 1.1 or draft)")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_judged_against_the_consumer() {
        use Declared::*;
        let cases = [
            (ProtocolVersion::V1_1, "1.1", Compatible),
            (ProtocolVersion::V1_1, "1.0", Compatible),
            (ProtocolVersion::V1_1, "1.1.4", Compatible),
            (ProtocolVersion::V1_1, "0.0.57", Compatible),
            (ProtocolVersion::V1_1, "1.2", Newer),
            (ProtocolVersion::V1_1, "2.0", Newer),
            (ProtocolVersion::V1_0, "1.1", Newer),
            (ProtocolVersion::V1_0, "1.0", Compatible),
            (ProtocolVersion::V1_1, "latest", Uninterpretable),
            (ProtocolVersion::V1_1, "1", Uninterpretable),
            (ProtocolVersion::V1_1, "1.x", Uninterpretable),
            (ProtocolVersion::V1_1, "", Uninterpretable),
            (ProtocolVersion::V1_1, "v1.1", Uninterpretable),
            // Issue 39, C12: the draft's fixtures call 1.0 the consumer's
            // own and 1.1 newer.
            (ProtocolVersion::Draft, "1.0", Compatible),
            (ProtocolVersion::Draft, "1.0.2", Compatible),
            (ProtocolVersion::Draft, "0.0.57", Compatible),
            (ProtocolVersion::Draft, "1.1", Newer),
            (ProtocolVersion::Draft, "2.0", Newer),
            (ProtocolVersion::Draft, "draft", Uninterpretable),
        ];
        for (consumer, declared, expected) in cases {
            assert_eq!(
                consumer.judge(declared),
                expected,
                "{consumer} vs {declared}"
            );
        }
    }

    #[test]
    fn versions_round_trip_their_names() {
        for v in ProtocolVersion::ALL {
            assert_eq!(v.as_str().parse::<ProtocolVersion>(), Ok(v));
        }
        assert!("1.2".parse::<ProtocolVersion>().is_err());
    }

    #[test]
    fn the_draft_has_the_1_1_schema() {
        // Issue 39, C12: nothing 1.1 defines is newer than the draft.
        assert!(ProtocolVersion::Draft > ProtocolVersion::V1_1);
        assert!(ProtocolVersion::Draft.is_draft());
        assert!(!ProtocolVersion::V1_1.is_draft());
    }
}
