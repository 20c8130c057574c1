//! Protocol versions: the one the consumer implements (a setting, §11 of
//! `REPLAY-RULES.md`) and the one a producer declares in
//! `RUN_STARTED.protocolVersion`.

use std::fmt;
use std::str::FromStr;

/// The AG-UI version a consumer implements (`--protocol 1.0|1.1`; §11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// AG-UI 1.0 (what `@ag-ui/client` 1.0.0 implements).
    V1_0,
    /// AG-UI 1.1 (the default): adds `encryptedValueType`.
    #[default]
    V1_1,
}

impl ProtocolVersion {
    /// Every version this engine can consume.
    pub const ALL: [Self; 2] = [Self::V1_0, Self::V1_1];

    /// `1.0` or `1.1`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1_0 => "1.0",
            Self::V1_1 => "1.1",
        }
    }

    /// `(major, minor)`.
    pub fn numbers(self) -> (u64, u64) {
        match self {
            Self::V1_0 => (1, 0),
            Self::V1_1 => (1, 1),
        }
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
            .ok_or_else(|| format!("unknown protocol version {name:?} (expected 1.0 or 1.1)"))
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
}
