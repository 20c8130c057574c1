//! How a timeline is built (issue 44): one builder for where its step 0
//! comes from and how far apart its checkpoints are, and for what it
//! starts with: nothing, a stream replayed (finished or not), a file's
//! events to be replayed as they are read, or a stream replayed only for
//! its index.

use super::{CheckpointPolicy, Events, FileEvents, Timeline};
use crate::event_log::EventLog;
use crate::protocol::for_each_parsed;
use crate::replay::{Options, Replayer};

/// A timeline to be built: its step 0 (a fresh replay with some options,
/// or a given replayer's state) and its [`CheckpointPolicy`] (the default
/// unless [`Self::policy`] says otherwise). [`Timeline::builder`] and
/// [`Timeline::starting_from`] make one.
#[derive(Clone, Debug)]
#[must_use]
pub struct TimelineBuilder {
    start: Replayer,
    policy: CheckpointPolicy,
}

impl TimelineBuilder {
    /// A timeline replayed with `options` from an empty state.
    pub fn new(options: Options) -> Self {
        Self::starting_from(Replayer::new(options))
    }

    /// A timeline whose step 0 is the given replayer's state (for example
    /// [`Replayer::with_run_input`]: a recorded run input).
    pub fn starting_from(start: Replayer) -> Self {
        Self {
            start,
            policy: CheckpointPolicy::default(),
        }
    }

    /// With a given checkpoint policy.
    pub fn policy(mut self, policy: CheckpointPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// An empty timeline, which [`Timeline::append`] extends.
    pub fn empty(self) -> Timeline {
        Timeline::empty_from(self.start, self.policy)
    }

    /// Replays a whole stream (taking its events) and runs the
    /// end-of-stream checks.
    pub fn replay(self, events: impl Into<Events>) -> Timeline {
        let mut timeline = self.replay_unfinished(events);
        timeline.finish();
        timeline
    }

    /// Replays the events a stream has so far, without the end-of-stream
    /// checks: a live recording, which [`Timeline::append`] extends and
    /// [`Timeline::finish`] ends.
    pub fn replay_unfinished(self, events: impl Into<Events>) -> Timeline {
        let events = events.into();
        let mut timeline = self.empty();
        timeline.head.reserve(events.len());
        timeline.index.reserve(events.len());
        for_each_parsed(&events, |seq, num_bytes, parsed| {
            timeline.apply_parsed(seq, num_bytes, parsed);
        });
        timeline.events = events;
        timeline
    }

    /// An empty timeline over events read from a file, which
    /// [`Timeline::extend_from`] replays (a recording opened without its
    /// index, indexed as it is shown).
    pub fn over_file(self, events: FileEvents) -> Timeline {
        let mut timeline = self.empty();
        timeline.events = Events::File(events.with_len(0));
        timeline
    }

    /// The timeline of `events`, with the end-of-stream checks, holding no
    /// events itself: what a writer that keeps the events elsewhere builds
    /// to store its index ([`Timeline::encode_index`]).
    pub fn index_of(self, events: &EventLog) -> Timeline {
        let mut timeline = self.empty();
        timeline.index_more(events);
        timeline.finish();
        timeline
    }
}
