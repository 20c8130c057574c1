//! Random access to a replayed stream: the state at any step in bounded time,
//! however long the recording.
//!
//! A [`Timeline`] owns the events and replays them once, as they are
//! appended. While it does, it keeps *checkpoints* (copies of the replay
//! state) spaced by cost (bytes of events and patch operations applied since
//! the last one) and builds the indices the timeline view draws from
//! ([`StreamIndex`]). [`Timeline::seek`] then starts from the nearest
//! checkpoint at or before the step and applies a bounded number of events.
//!
//! Checkpoints are small: a checkpoint shares every message that did not
//! change with the live state, and keeps activity contents and the shared
//! state (which change all the time) as compact JSON text
//! ([`FrozenReplay`]).

mod build;
mod dropper;
mod entities;
mod events;
mod index;
mod prefix;
mod stored;

pub use build::TimelineBuilder;
pub use dropper::drop_in_background;
pub use entities::{EntityKind, EntityLane, EntityLanes};
pub use events::{BLOCK_EVENTS, BlockSource, Events, FileEvents, RawEvent, Spliced};
pub use index::{ActivityLane, EventKind, KindCounts, LaneEvent, NUM_KINDS, Pending, StreamIndex};
pub use stored::{
    ArrivalTimes, INDEX_FORMAT_VERSION, IndexEncoder, IndexPieces, REPLAY_ENGINE_VERSION,
    StoredPieces, index_engine, index_is_readable,
};

use crate::diagnostic::{Diagnostic, Seq};
use crate::event_log::{EventLog, RawEvents};
use crate::protocol::{EventBody, ParseOutcome, for_each_parsed, for_each_parsed_in, parse_event};
use crate::replay::{EventEffect, FreezeCache, FrozenReplay, Options, Replayer};

/// When to take a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointPolicy {
    /// Take one once the events applied since the last one cost this much:
    /// their bytes plus [`Self::op_cost`] per patch operation; or, when the
    /// last checkpoint weighs more ([`FrozenReplay::weight`]: its contents
    /// and state as text), that much, so that the checkpoints of a stream
    /// whose documents grow weigh about no more than its events (issue
    /// 14). A growing message list no longer counts: a stored checkpoint
    /// keeps only the changes from the last state's list.
    pub max_cost: u64,
    /// The cost of one patch operation, in bytes-equivalent.
    pub op_cost: u64,
}

impl CheckpointPolicy {
    /// The policy replays and recordings use: about 2,000 typical events
    /// between checkpoints (491 for the generated 1,000,000-event stream):
    /// a seek applies at most that many. A stored checkpoint is the activities' contents as text,
    /// the changes from the last state's message list and the recent
    /// drift tracking: 40 MB of index for that stream's 177 MB.
    /// Issue 14: 256 KiB apart, writing the checkpoints' text was a
    /// seventh of the applying thread's time when a replay's two threads
    /// ran on cores apart; twice as far apart, a replay there took 7%
    /// less time and a seek's p99 went from 1.2–1.7 to 1.9–2.8 ms
    /// (`bench replay`; 384 KiB before the message list stopped counting).
    pub const DEFAULT: Self = Self {
        max_cost: 512 * 1024,
        op_cost: 48,
    };
}

impl Default for CheckpointPolicy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A replayed stream with random access by step.
#[derive(Clone, Debug)]
pub struct Timeline {
    events: Events,
    /// The state at the last event; its logs hold every diagnostic and effect.
    head: Replayer,
    /// Checkpoints in step order; the first is step 0.
    checkpoints: Checkpoints,
    policy: CheckpointPolicy,
    cost_since_checkpoint: u64,
    /// The cost at which the next checkpoint is taken: the policy's
    /// `max_cost`, or the last checkpoint's weight when more.
    next_checkpoint_cost: u64,
    /// The last checkpoint's texts, shared by the next where unchanged.
    freeze_cache: FreezeCache,
    index: StreamIndex,
}

impl Timeline {
    /// A timeline to build, replayed with `options` (see [`TimelineBuilder`]
    /// for its step 0, its checkpoint policy and what it starts with).
    pub fn builder(options: Options) -> TimelineBuilder {
        TimelineBuilder::new(options)
    }

    /// Replays a whole stream (taking its events) and runs the
    /// end-of-stream checks: `Timeline::builder(options).replay(events)`.
    pub fn from_log(events: EventLog, options: Options) -> Self {
        Self::builder(options).replay(events)
    }

    /// A timeline to build whose step 0 is `start`'s state (for example
    /// [`Replayer::with_run_input`]: a recorded run input).
    pub fn starting_from(start: Replayer) -> TimelineBuilder {
        TimelineBuilder::starting_from(start)
    }

    /// An empty timeline whose step 0 is `start`'s state.
    fn empty_from(start: Replayer, policy: CheckpointPolicy) -> Self {
        let mut index = StreamIndex::default();
        for diagnostic in start.diagnostics() {
            index.record_diagnostic(diagnostic);
        }
        let mut freeze_cache = FreezeCache::default();
        Self {
            events: Events::default(),
            checkpoints: Checkpoints::from(start.freeze_sharing(&mut freeze_cache)),
            freeze_cache,
            head: start,
            policy,
            cost_since_checkpoint: 0,
            next_checkpoint_cost: policy.max_cost,
            index,
        }
    }

    /// Appends one event (its raw bytes), applies it, and updates the
    /// indices and checkpoints. Returns its seq.
    pub fn append(&mut self, raw: &[u8]) -> Seq {
        self.append_parsed(raw, parse_event(raw))
    }

    /// [`Self::append`] of an event its caller has read already
    /// ([`parse_event`] of `raw`): reading can happen elsewhere, on another
    /// thread or ahead of time (`bench replay` times applying alone so).
    pub fn append_parsed(&mut self, raw: &[u8], mut parsed: ParseOutcome) -> Seq {
        let seq = self.events.push(raw);
        self.apply_parsed(seq, raw.len(), &mut parsed);
        seq
    }

    /// Appends and applies the next `count` events of `source` (the same
    /// events as the timeline's, from its length on: another reader of the
    /// same file, or the stream in memory), read on two threads. Returns how
    /// many there were.
    pub fn extend_from<E: RawEvents + ?Sized>(&mut self, source: &E, count: usize) -> usize {
        let from = self.events.len();
        let to = from.saturating_add(count).min(source.len());
        let mut appended = 0;
        let mut events = std::mem::take(&mut self.events);
        for_each_parsed_in(source, from..to, |_, num_bytes, parsed| {
            // The bytes are counted (a file's) or copied (in memory).
            let seq = if events.is_file() {
                events.push(b"")
            } else {
                let mut raw = None;
                source.for_each_raw(from + appended..from + appended + 1, &mut |_, r| {
                    raw = Some(events.push(r));
                });
                raw.unwrap_or_else(|| events.push(b""))
            };
            self.apply_parsed(seq, num_bytes, parsed);
            appended += 1;
        });
        self.events = events;
        appended
    }

    /// Applies `events`, the next ones after the head, without keeping
    /// them: what a writer that keeps the events elsewhere builds its index
    /// from ([`TimelineBuilder::index_of`]), a chunk at a time where the
    /// events are read so (issue 40: an import in bounded memory).
    pub fn index_more(&mut self, events: &EventLog) {
        let before = self.head.step().get();
        self.head.reserve(events.len());
        self.index.reserve(events.len());
        for_each_parsed(events, |seq, num_bytes, parsed| {
            self.apply_parsed(Seq::new(before + seq.get()), num_bytes, parsed);
        });
    }

    /// Applies the event at `seq`, the one after the head, once read.
    fn apply_parsed(&mut self, seq: Seq, num_bytes: usize, parsed: &mut ParseOutcome) {
        let cost = num_bytes as u64 + self.policy.op_cost * num_ops(parsed);
        let pending = self.index.prepare(parsed);
        let num_diagnostics = self.head.diagnostics().len();
        let effect = self.head.apply_taking(parsed);
        self.index.record(
            seq,
            pending,
            effect,
            &self.head.diagnostics()[num_diagnostics..],
        );
        self.cost_since_checkpoint += cost;
        if self.cost_since_checkpoint >= self.next_checkpoint_cost {
            let checkpoint = self.head.freeze_sharing(&mut self.freeze_cache);
            self.next_checkpoint_cost = self.policy.max_cost.max(checkpoint.weight());
            self.checkpoints.push(checkpoint);
            self.cost_since_checkpoint = 0;
        }
    }

    /// The end-of-stream checks (R62). Appending after it is allowed (a live
    /// recording that grows), but the checks are not run again.
    pub fn finish(&mut self) {
        let num_diagnostics = self.head.diagnostics().len();
        self.head.finish();
        for diagnostic in &self.head.diagnostics()[num_diagnostics..] {
            self.index.record_diagnostic(diagnostic);
        }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The last step (the seq of the last event; 0 when empty).
    pub fn last_step(&self) -> Seq {
        self.head.step()
    }

    /// The events' raw bytes (in memory, or read from the recording).
    pub fn events(&self) -> &Events {
        &self.events
    }

    /// The options the stream is replayed with.
    pub fn options(&self) -> Options {
        self.head.options()
    }

    /// The replay at the last event.
    pub fn head(&self) -> &Replayer {
        &self.head
    }

    /// Every diagnostic, in step order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.head.diagnostics()
    }

    /// The diagnostics of steps `0..=step`.
    pub fn diagnostics_until(&self, step: Seq) -> &[Diagnostic] {
        let all = self.head.diagnostics();
        &all[..all.partition_point(|d| d.seq <= step)]
    }

    /// What became of each event (index 0 is seq 1).
    pub fn effects(&self) -> &[EventEffect] {
        self.head.effects()
    }

    /// The indices for drawing.
    pub fn index(&self) -> &StreamIndex {
        &self.index
    }

    /// Keeps the activity lanes' events as the index encodes them
    /// ([`StreamIndex::pack_lanes`]): for a writer's timeline, whose index
    /// is encoded and not read (issue 40: an import).
    pub fn pack_lanes(&mut self) {
        self.index.pack_lanes();
    }

    /// The number of checkpoints kept (step 0 included).
    pub fn num_checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// The steps of the checkpoints, in order (the first is step 0): where
    /// [`Self::seek`] starts from without replaying.
    pub fn checkpoint_steps(
        &self,
    ) -> impl DoubleEndedIterator<Item = Seq> + ExactSizeIterator + '_ {
        (0..self.checkpoints.len()).map(|i| self.checkpoints.step(i))
    }

    /// The JSON of the shared state at the `i`th checkpoint
    /// ([`Self::checkpoint_steps`]), thawing only the state; `None` when
    /// there is no such checkpoint.
    pub fn state_at_checkpoint(&self, i: usize) -> Option<serde_json::Value> {
        Some(self.checkpoints.get(i)?.state_json())
    }

    /// The JSON of the message `id` at the `i`th checkpoint
    /// ([`Self::checkpoint_steps`]), thawing only that message; `None` when
    /// there is no such message or checkpoint.
    pub fn message_at_checkpoint(&self, i: usize, id: &str) -> Option<serde_json::Value> {
        self.checkpoints.get(i)?.message_json(id)
    }

    /// The replay state at `step` (clamped to the last step): from the
    /// nearest checkpoint at or before it, plus the events in between. Its
    /// own logs hold only the diagnostics and effects of those events; use
    /// [`Self::diagnostics_until`] for all of them.
    ///
    /// A checkpoint a recent seek thawed is kept live and shared (issue
    /// 14): a seek starting from it again does not decode or thaw it.
    pub fn seek(&self, step: Seq) -> Replayer {
        let step = step.min(self.last_step());
        if step == self.last_step() {
            return self.head.checkpoint();
        }
        let at = self.checkpoints.partition_point(step).saturating_sub(1);
        let mut replayer = self.checkpoints.thaw_at_or_before(at);
        self.replay_onto(&mut replayer, step.get() as usize);
        replayer
    }

    /// Applies the events after `replayer`'s step up to step `to`.
    fn replay_onto(&self, replayer: &mut Replayer, to: usize) {
        let from = replayer.step().get() as usize;
        if from < to {
            for_each_parsed_in(&self.events, from..to, |_, _, parsed| {
                replayer.apply_taking(parsed);
            });
        }
    }
}

/// Checkpoints recent seeks thawed, kept live (issue 14): scrubbing back
/// and forth starts from one of them again, and a live state is shared at
/// once where thawing parses every activity's content.
const THAWED_CHECKPOINTS: usize = 8;

/// The live states of the checkpoints recent seeks started from, the most
/// recent last; each a state with empty logs, shared by the seeks that
/// start from it (what they patch is copied then). Not shared by a clone of
/// the timeline.
#[derive(Default)]
struct Thawed(std::sync::Mutex<Vec<(usize, Seq, Replayer)>>);

impl Clone for Thawed {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for Thawed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Thawed").field(&self.lock().len()).finish()
    }
}

impl Thawed {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(usize, Seq, Replayer)>> {
        // A seek that panicked leaves the list as consistent as before.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of checkpoint `i`'s live state (at `step`), if kept.
    fn get(&self, i: usize, step: Seq) -> Option<Replayer> {
        let mut kept = self.lock();
        let at = kept.iter().position(|(n, s, _)| *n == i && *s == step)?;
        let entry = kept.remove(at);
        let copy = entry.2.checkpoint();
        kept.push(entry);
        Some(copy)
    }

    /// Keeps `replayer` as checkpoint `i`'s live state.
    fn put(&self, i: usize, replayer: Replayer) {
        let mut kept = self.lock();
        let step = replayer.step();
        if kept.iter().any(|(n, s, _)| *n == i && *s == step) {
            return;
        }
        if kept.len() >= THAWED_CHECKPOINTS {
            drop_in_background(kept.remove(0));
        }
        kept.push((i, step, replayer));
    }
}

impl Timeline {
    /// [`Self::seek`], going on from `near` (a state of this timeline, the
    /// one shown before) when that applies fewer events than starting from
    /// the checkpoint before `step`: scrubbing forward replays only what
    /// it moved over (issue 14).
    pub fn seek_from(&self, near: &Replayer, step: Seq) -> Replayer {
        let step = step.min(self.last_step());
        let from = near.step();
        if step == self.last_step() || from > step || near.options() != self.options() {
            return self.seek(step);
        }
        let at = self.checkpoints.partition_point(step).saturating_sub(1);
        if self.checkpoints.step(at) > from {
            return self.seek(step);
        }
        let mut replayer = near.checkpoint();
        for_each_parsed_in(
            &self.events,
            from.get() as usize..step.get() as usize,
            |_, _, parsed| {
                replayer.apply_taking(parsed);
            },
        );
        replayer
    }
}

/// A timeline's checkpoints: in memory, or, for a timeline read from the
/// index its recording stores (issue 14), kept encoded and decoded when a
/// seek needs one; then those taken after (a stored timeline appended to).
#[derive(Clone, Debug)]
struct Checkpoints {
    stored: Option<std::sync::Arc<stored::StoredCheckpoints>>,
    /// How many of the stored ones count: all of them, or fewer in a
    /// timeline that shares only the first ones (an edited stream, issue
    /// 41: [`Timeline::shared_prefix`]).
    stored_len: usize,
    /// Shared, so that a timeline sharing the first steps of another
    /// shares its checkpoints without copying them (issue 41).
    frozen: Vec<std::sync::Arc<FrozenReplay>>,
    thawed: Thawed,
}

impl From<FrozenReplay> for Checkpoints {
    fn from(first: FrozenReplay) -> Self {
        Self {
            stored: None,
            stored_len: 0,
            frozen: vec![std::sync::Arc::new(first)],
            thawed: Thawed::default(),
        }
    }
}

impl Checkpoints {
    fn num_stored(&self) -> usize {
        self.stored.as_ref().map_or(0, |_| self.stored_len)
    }

    fn len(&self) -> usize {
        self.num_stored() + self.frozen.len()
    }

    fn step(&self, i: usize) -> Seq {
        match &self.stored {
            Some(stored) if i < self.num_stored() => stored.step(i),
            _ => self
                .frozen
                .get(i - self.num_stored())
                .map_or(Seq::START, |frozen| frozen.step()),
        }
    }

    fn push(&mut self, checkpoint: FrozenReplay) {
        self.frozen.push(std::sync::Arc::new(checkpoint));
    }

    /// Checkpoint `i`, decoded if it is a stored one; `None` when there is
    /// none or it cannot be decoded.
    fn get(&self, i: usize) -> Option<std::borrow::Cow<'_, FrozenReplay>> {
        match &self.stored {
            Some(stored) if i < self.num_stored() => stored
                .decoded(i)
                .map(|decoded| std::borrow::Cow::Owned(FrozenReplay::clone(&decoded))),
            _ => self
                .frozen
                .get(i - self.num_stored())
                .map(|frozen| std::borrow::Cow::Borrowed(&**frozen)),
        }
    }

    /// The number of checkpoints at or before `step`.
    fn partition_point(&self, step: Seq) -> usize {
        let num_stored = match &self.stored {
            Some(stored) => match stored.partition_point(step) {
                n if n < self.num_stored() => return n,
                _ => self.num_stored(),
            },
            None => 0,
        };
        num_stored + self.frozen.partition_point(|c| c.step() <= step)
    }

    /// A live replayer at checkpoint `i`, or (a stored one that cannot be
    /// decoded) at the last one before it that can; the first always can.
    /// Kept live for the next seeks ([`Thawed`]).
    fn thaw_at_or_before(&self, i: usize) -> Replayer {
        let step = self.step(i);
        if let Some(kept) = self.thawed.get(i, step) {
            return kept;
        }
        let replayer = self.thaw_uncached(i);
        if replayer.step() == step {
            let copy = replayer.checkpoint();
            self.thawed.put(i, replayer);
            return copy;
        }
        replayer
    }

    /// [`Self::thaw_at_or_before`] without the kept states.
    fn thaw_uncached(&self, i: usize) -> Replayer {
        let num_stored = self.num_stored();
        if i >= num_stored
            && let Some(frozen) = self.frozen.get(i - num_stored)
        {
            return frozen.thaw();
        }
        match &self.stored {
            Some(stored) => stored.thaw_at_or_before(i.min(num_stored.saturating_sub(1))),
            None => self.frozen[0].thaw(),
        }
    }

    /// Takes the checkpoints in memory (for [`Timeline::hand_checkpoints_to`]).
    fn take_frozen(&mut self) -> Vec<std::sync::Arc<FrozenReplay>> {
        self.thawed = Thawed::default();
        std::mem::take(&mut self.frozen)
    }
}

/// Patch operations an event applies (its cost beyond its bytes).
fn num_ops(parsed: &ParseOutcome) -> u64 {
    match parsed {
        ParseOutcome::Event { event, .. } => match &event.body {
            EventBody::ActivityDelta { patch, .. } => patch.ops.len() as u64,
            EventBody::StateDelta { delta } => delta.ops.len() as u64,
            _ => 0,
        },
        _ => 0,
    }
}

/// Streams the tests of the timeline and of the store share.
#[cfg(test)]
pub(crate) mod test_streams {
    use crate::event_log::EventLog;

    /// A stream long enough for several checkpoints under the default
    /// policy: state deltas of many operations, messages and an activity.
    pub(crate) fn long() -> EventLog {
        let mut log = EventLog::default();
        log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        log.push(
            br#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"n":0}}"#,
        );
        for i in 0..400 {
            let ops: Vec<String> = (0..100)
                .map(|k| format!(r#"{{"op":"add","path":"/k{k}","value":{i}}}"#))
                .collect();
            log.push(format!(r#"{{"type":"STATE_DELTA","delta":[{}]}}"#, ops.join(",")).as_bytes());
            log.push(
                format!(
                    r#"{{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{{"op":"replace","path":"/n","value":{i}}}]}}"#
                )
                .as_bytes(),
            );
            if i % 50 == 0 {
                log.push(
                    format!(
                        r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}","role":"assistant"}}"#
                    )
                    .as_bytes(),
                );
                log.push(
                    format!(
                        r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m{i}","delta":"step {i}"}}"#
                    )
                    .as_bytes(),
                );
                log.push(format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"m{i}"}}"#).as_bytes());
            }
        }
        log.push(br#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#);
        log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_of_a_growing_document_are_spaced_by_their_weight() {
        // Issue 14: checkpoints keep every content whole, so a stream whose
        // documents grow would take checkpoints heavier than its events
        // (10M generated events: 5.6 GB of them). Each is taken once the
        // events since the last cost at least what that one weighs.
        let mut log = EventLog::default();
        log.push(
            br#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"items":[]}}"#,
        );
        for i in 0..3_000 {
            log.push(
                format!(
                    r#"{{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{{"op":"add","path":"/items/-","value":"item {i:0>60}"}}]}}"#
                )
                .as_bytes(),
            );
        }
        let stream_bytes = log.num_bytes() as u64;
        let policy = CheckpointPolicy {
            max_cost: 2_000,
            op_cost: 48,
        };
        let timeline = Timeline::builder(Options::default())
            .policy(policy)
            .replay(log.clone());
        let weights: Vec<u64> = (0..timeline.num_checkpoints())
            .map(|i| timeline.checkpoints.get(i).expect("a checkpoint").weight())
            .collect();
        // The content ends at about 200 KB: spaced by the policy alone
        // (about 20 events apart), the checkpoints would weigh 15 MB.
        let total: u64 = weights.iter().sum();
        assert!(
            total <= 2 * stream_bytes,
            "{total} bytes of checkpoints for {stream_bytes} of events"
        );
        assert!(
            timeline.num_checkpoints() > 10,
            "{}",
            timeline.num_checkpoints()
        );
        let steps: Vec<u64> = timeline.checkpoint_steps().map(Seq::get).collect();
        // Early on (a light content) they are the policy's distance apart.
        assert!(steps[2] - steps[1] < 30, "{steps:?}");
        // Seeking still gives the replayed state everywhere.
        let reference = Timeline::from_log(log, Options::default());
        for step in (0..=3_001).step_by(97) {
            let step = Seq::new(step);
            assert_eq!(
                timeline.seek(step).document(),
                reference.seek(step).document()
            );
        }
    }

    fn demo() -> EventLog {
        let text = include_str!("../../recordings/demo.jsonl");
        let mut log = EventLog::default();
        for line in text.lines() {
            log.push(line.as_bytes());
        }
        log
    }

    #[test]
    fn seek_equals_replay_from_zero_on_the_demo() {
        let log = demo();
        let options = Options::default();
        // A tiny policy: a checkpoint every few events.
        let mut timeline = Timeline::builder(options)
            .policy(CheckpointPolicy {
                max_cost: 600,
                op_cost: 48,
            })
            .empty();
        for (_, raw) in log.iter() {
            timeline.append(raw);
        }
        timeline.finish();
        assert!(timeline.num_checkpoints() > 5);
        for step in 0..=log.len() as u64 {
            let expected = crate::replay::replay_to(&log, options, Seq::new(step));
            let sought = timeline.seek(Seq::new(step));
            assert_eq!(sought.step(), Seq::new(step));
            assert_eq!(sought.document(), expected.document(), "step {step}");
            assert_eq!(sought.fatal(), expected.fatal(), "step {step}");
            assert_eq!(
                timeline.diagnostics_until(Seq::new(step)),
                expected.diagnostics(),
                "step {step}"
            );
        }
    }

    #[test]
    fn seek_equals_replay_from_zero_with_short_long_and_stored_segments() {
        // Issue 14: short segments (a few events), long ones (thousands,
        // past where a seek's events are read on two threads) and a stored
        // index's checkpoints all give the state replayed from step 0.
        let mut log = test_streams::long();
        for i in 0..9_000 {
            log.push(format!(r#"{{"type":"CUSTOM","name":"pad","value":{i}}}"#).as_bytes());
        }
        let last = log.len() as u64;
        let steps: Vec<u64> = [0, 1, 2, 50, 95, 96, 97, 400, 801, 1_200, 1_500]
            .into_iter()
            .chain((0..last).step_by(997))
            .chain([last - 9_000, last - 1, last])
            .collect();
        let mut expected = std::collections::BTreeMap::new();
        let mut replayer = Replayer::new(Options::default());
        for seq in 0..=last {
            if seq > 0 {
                replayer.apply_bytes(log.get(Seq::new(seq)).expect("an event"));
            }
            if steps.contains(&seq) {
                expected.insert(seq, (replayer.document(), replayer.fatal().cloned()));
            }
        }
        let policy = |max_cost| CheckpointPolicy {
            max_cost,
            op_cost: 48,
        };
        let short = Timeline::builder(Options::default())
            .policy(policy(900))
            .replay(log.clone());
        let long = Timeline::builder(Options::default())
            .policy(policy(1 << 40))
            .replay(log.clone());
        assert_eq!(long.num_checkpoints(), 1, "one segment of every event");
        let blob = Timeline::from_log(log.clone(), Options::default())
            .encode_index()
            .expect("encodes");
        let stored =
            Timeline::from_stored_index(log.clone(), blob, Options::default()).expect("decodes");
        assert!(stored.num_checkpoints() > 2, "{}", stored.num_checkpoints());
        for (name, timeline) in [("short", &short), ("long", &long), ("stored", &stored)] {
            // Twice: from fresh checkpoints, then from kept ones.
            for _ in 0..2 {
                for &step in &steps {
                    let sought = timeline.seek(Seq::new(step));
                    assert_eq!(sought.step(), Seq::new(step), "{name} {step}");
                    let (document, fatal) = &expected[&step];
                    assert_eq!(&sought.document(), document, "{name} {step}");
                    assert_eq!(sought.fatal(), fatal.as_ref(), "{name} {step}");
                }
            }
        }
    }

    #[test]
    fn seeking_from_a_nearby_state_equals_seeking_from_a_checkpoint() {
        // Issue 14: scrubbing forward goes on from the state shown.
        let timeline = Timeline::builder(Options::default())
            .policy(CheckpointPolicy {
                max_cost: 600,
                op_cost: 48,
            })
            .replay(demo());
        let last = timeline.len() as u64;
        for from in 0..=last {
            let near = timeline.seek(Seq::new(from));
            for step in [
                from,
                from + 1,
                from + 3,
                from + 20,
                from.saturating_sub(2),
                last,
            ] {
                let step = Seq::new(step);
                let sought = timeline.seek_from(&near, step);
                let expected = timeline.seek(step);
                assert_eq!(sought.step(), expected.step(), "{from} to {step}");
                assert_eq!(sought.document(), expected.document(), "{from} to {step}");
                assert_eq!(sought.fatal(), expected.fatal(), "{from} to {step}");
            }
        }
    }

    #[test]
    fn a_kept_checkpoint_is_never_changed_by_the_seeks_that_start_from_it() {
        // Issue 14: the checkpoints recent seeks thawed are kept live and
        // shared with the states seeks return; patching a returned state
        // (applying more events to it) must never show in a later seek.
        let log = test_streams::long();
        // Checkpoints close together: more of them than are kept.
        let dense = Timeline::builder(Options::default())
            .policy(CheckpointPolicy {
                max_cost: 20_000,
                op_cost: 48,
            })
            .replay(log.clone());
        assert!(
            dense.num_checkpoints() > THAWED_CHECKPOINTS + 2,
            "{}",
            dense.num_checkpoints()
        );
        // A stored index's checkpoints, decoded when first needed.
        let blob = Timeline::from_log(log.clone(), Options::default())
            .encode_index()
            .expect("encodes");
        let stored =
            Timeline::from_stored_index(log.clone(), blob, Options::default()).expect("decodes");
        for timeline in [&dense, &stored] {
            seeks_are_unchanged_by_patching_what_they_gave(timeline, &log);
        }
    }

    fn seeks_are_unchanged_by_patching_what_they_gave(timeline: &Timeline, log: &EventLog) {
        let last = timeline.len() as u64;
        let steps: Vec<u64> = timeline
            .checkpoint_steps()
            .map(Seq::get)
            .flat_map(|s| [s, s + 1, s + 40, s + 200])
            .filter(|&s| s < last)
            .collect();
        // The documents replayed from step 0, in one pass.
        let mut expected = std::collections::BTreeMap::new();
        let mut replayer = Replayer::new(Options::default());
        for seq in 0..last {
            if seq > 0 {
                replayer.apply_bytes(log.get(Seq::new(seq)).expect("an event"));
            }
            if steps.contains(&seq) {
                expected.insert(seq, replayer.document());
            }
        }
        // Twice over, forwards then backwards: the second pass starts from
        // kept checkpoints, the first from fresh ones, and more of them
        // than are kept.
        for pass in 0..2 {
            let order: Vec<u64> = if pass == 0 {
                steps.clone()
            } else {
                steps.iter().rev().copied().collect()
            };
            for &step in &order {
                let mut sought = timeline.seek(Seq::new(step));
                let expected = &expected[&step];
                assert_eq!(sought.step(), Seq::new(step));
                assert_eq!(&sought.document(), expected, "step {step}");
                // Scribble on it: the next events, applied to the copy.
                for seq in step + 1..(step + 30).min(last) {
                    sought.apply_bytes(log.get(Seq::new(seq)).expect("an event"));
                }
                assert_eq!(
                    &timeline.seek(Seq::new(step)).document(),
                    expected,
                    "step {step} after patching what it gave"
                );
            }
        }
    }

    #[test]
    fn seek_keeps_floats_exactly() {
        // Regression (issue 3): checkpoints keep contents as JSON text, and a
        // float must read back to the same number or a `test` could differ.
        let mut log = EventLog::default();
        let padding = format!(
            r#"{{"type":"CUSTOM","name":"pad","value":"{}"}}"#,
            "x".repeat(700)
        );
        for event in [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            padding.as_str(),
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"x":1.947700395895162e-169}}"#,
            padding.as_str(),
            r#"{"type":"STATE_DELTA","delta":[{"op":"test","path":"/x","value":1.947700395895162e-169},{"op":"add","path":"/ok","value":true}]}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ] {
            log.push(event.as_bytes());
        }
        let options = Options::default();
        let mut timeline = Timeline::builder(options)
            .policy(CheckpointPolicy {
                max_cost: 500,
                op_cost: 48,
            })
            .empty();
        for (_, raw) in log.iter() {
            timeline.append(raw);
        }
        timeline.finish();
        let sought = timeline.seek(Seq::new(5));
        let expected = crate::replay::replay_to(&log, options, Seq::new(5));
        assert_eq!(sought.document(), expected.document());
        assert_eq!(
            sought.state().get("ok"),
            Some(&serde_json::Value::Bool(true))
        );
    }

    #[test]
    fn index_holds_lanes_severities_and_counts() {
        let timeline = Timeline::from_log(demo(), Options::default());
        let index = timeline.index();
        let search = index.lane("search-1").expect("lane");
        assert_eq!(search.activity_type, "web_search");
        assert_eq!(
            search.events.first(),
            Some(&(Seq::new(13), crate::replay::ActivityChange::Created).into())
        );
        assert!(
            search
                .events
                .contains(&(Seq::new(16), crate::replay::ActivityChange::PatchFailed).into())
        );
        assert_eq!(
            index.steps_with(crate::diagnostic::Severity::Warning),
            &[Seq::new(16), Seq::new(17)]
        );
        let counts = index.counts(Seq::new(1)..=Seq::new(timeline.len() as u64));
        assert_eq!(counts.iter().sum::<u32>() as usize, timeline.len());
        let delta = EventKind::Known(crate::protocol::EventType::ActivityDelta).index();
        assert_eq!(counts[delta], 9);
    }
}
