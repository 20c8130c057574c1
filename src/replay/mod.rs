//! The replay engine: applies an event stream rule by rule
//! (`REPLAY-RULES.md`), holding the conversation, the shared state and the
//! run bookkeeping, and reporting every problem as a [`Diagnostic`] attached
//! to the event that caused it.
//!
//! [`Replayer`] takes events one at a time ([`Replayer::apply`]) so that the
//! state at any step is the state after applying events `1..=N`.
//!
//! [`Diagnostic`]: crate::diagnostic::Diagnostic

mod activity;
pub mod codec;
mod conversation;
mod divergence;
mod drift;
mod engine;
mod frozen;
mod layered;
use crate::limits;
mod patch;
mod streams;

use std::fmt;
use std::str::FromStr;

use crate::protocol::ProtocolVersion;

pub use crate::limits::{
    Limit, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_PATCH_OPS, document_bytes,
};
pub use conversation::{ActivityMessage, Conversation, Message, OtherMessage, Role};
pub use divergence::{Lockstep, merge_divergences, replay_comparing, replay_comparing_fully};
pub use engine::{
    ActivityChange, Effect, EventEffect, Outcome, Replayer, RunPhase, replay_from, replay_from_to,
    replay_log, replay_to,
};
pub use frozen::{FreezeCache, FrozenReplay};
pub use patch::{PatchFailure, apply_patch, apply_patch_weighed};

/// Which consumer the replay imitates (`REPLAY-RULES.md` §10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The rules as written: a faithful consumer and a linter.
    #[default]
    Spec,
    /// What the reference TypeScript client `@ag-ui/client` 1.0.0 does where
    /// it differs, so a user can see what a deployed UI showed.
    AgUiClient10,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Self; 2] = [Self::Spec, Self::AgUiClient10];

    /// Its name for a person (the app's profile switch).
    pub fn label(self) -> &'static str {
        match self {
            Self::Spec => "spec",
            Self::AgUiClient10 => "@ag-ui/client 1.0",
        }
    }

    /// The name used on the command line and in vectors.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spec => "spec",
            Self::AgUiClient10 => "ag-ui-client-1.0",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == name)
            .ok_or_else(|| format!("unknown profile {name:?} (expected spec or ag-ui-client-1.0)"))
    }
}

/// How to replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The consumer to imitate.
    pub profile: Profile,
    /// R43: keep applying events after a fatal error.
    pub best_effort: bool,
    /// The protocol version the consumer implements (§11; `--protocol`,
    /// default 1.1). The `ag-ui-client-1.0` profile is a 1.0 consumer
    /// whatever this says: see [`Options::consumer_version`].
    pub protocol: ProtocolVersion,
}

impl Options {
    /// Options for a profile, with the default protocol version.
    pub fn for_profile(profile: Profile) -> Self {
        Self {
            profile,
            ..Self::default()
        }
    }

    /// The version the replay consumes by (§10, §11): the setting, except
    /// that `ag-ui-client-1.0` implements 1.0.
    pub fn consumer_version(&self) -> ProtocolVersion {
        match self.profile {
            Profile::AgUiClient10 => ProtocolVersion::V1_0,
            Profile::Spec => self.protocol,
        }
    }
}
