//! A timeline's derived data as a recording stores it (issue 14): the
//! checkpoints, the state at the last event with every diagnostic and
//! effect, the per-activity lanes, the diagnostic steps and the event kinds
//! (the density histogram), in one compact blob ([`crate::replay::codec`]).
//!
//! [`Timeline::encode_index`] writes it; [`Timeline::from_stored_index`]
//! rebuilds the timeline from it and the events without replaying, after
//! checking it against them: a blob of another format, another checkpoint
//! policy, other options, another number of events or damaged in any way
//! (a checksum covers it whole) is refused with a reason, and the caller
//! replays.
//!
//! Opening reads only what the first frame needs: the state at the last
//! event (every diagnostic and effect), the lanes and kinds, and where each
//! checkpoint and each message is. The checkpoints stay encoded, each
//! decoded when a seek needs it (the last few kept), and a message is
//! decoded once, the first time a state needs it, then shared by every
//! state that refers to it.

use std::sync::{Arc, Mutex};

use super::{CheckpointPolicy, Checkpoints, Events, StreamIndex, Timeline};
use crate::diagnostic::Seq;
use crate::input::EventLog;
use crate::protocol::for_each_parsed;
use crate::replay::codec::{DecodeError, Decoded, Decoder, Encoder, LazyMessages, MessageTable};
use crate::replay::{FrozenReplay, Options, Replayer};

/// The version of the blob's layout. Bump it whenever the encoding
/// changes: an index of another version is never believed.
pub const INDEX_FORMAT_VERSION: i64 = 3;

/// The version of what the replay computes (its rules, diagnostics,
/// checkpoint policy) as far as a stored index holds it. Bump it by hand
/// whenever the replay of a stream can give another result: an index
/// written by another engine version is not believed. The test
/// `the_encoded_index_of_a_fixed_stream_changes_only_with_the_engine_version`
/// fails when the index of a fixed stream changes while this stays.
pub const REPLAY_ENGINE_VERSION: u32 = 3;

/// The engine that wrote an index, stored beside it: the crate's version
/// and [`REPLAY_ENGINE_VERSION`]. An index written by another is not
/// believed.
pub fn index_engine() -> String {
    format!(
        "agui-replay {} engine {REPLAY_ENGINE_VERSION}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The first bytes of a stored index.
const MAGIC: &[u8; 4] = b"AGTI";

/// Decoded checkpoints kept for the next seeks (scrubbing stays near one).
const RECENT_CHECKPOINTS: usize = 4;

/// A checksum of the index's body: any damaged byte changes it (each word
/// goes through a bijection of its lane), so a damaged index is refused
/// before anything is decoded from it lazily.
fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut lanes: [u64; 4] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    ];
    let mix = |lane: u64, word: u64| (lane ^ word).wrapping_mul(K).rotate_left(29);
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, word) in lanes.iter_mut().zip(chunk.chunks_exact(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            *lane = mix(*lane, u64::from_le_bytes(w));
        }
    }
    for (i, &byte) in chunks.remainder().iter().enumerate() {
        lanes[i % 4] = mix(lanes[i % 4], u64::from(byte) | 0x100);
    }
    let mut h = bytes.len() as u64;
    for lane in lanes {
        h = mix(h, lane);
    }
    h
}

/// The checkpoints of a stored index, kept encoded (issue 14): each is
/// decoded when a seek needs it.
pub(super) struct StoredCheckpoints {
    blob: Vec<u8>,
    messages: LazyMessages,
    /// Each checkpoint's step and where its bytes are.
    entries: Vec<(Seq, usize, usize)>,
    /// The first (step 0), decoded: a seek always has one to start from.
    first: Arc<FrozenReplay>,
    options: Options,
    /// The last checkpoints decoded, the most recent last.
    recent: Mutex<Vec<(usize, Arc<FrozenReplay>)>>,
}

impl std::fmt::Debug for StoredCheckpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredCheckpoints")
            .field("bytes", &self.blob.len())
            .field("checkpoints", &self.entries.len())
            .field("messages", &self.messages.len())
            .finish_non_exhaustive()
    }
}

impl StoredCheckpoints {
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn step(&self, i: usize) -> Seq {
        self.entries.get(i).map_or(Seq::START, |e| e.0)
    }

    /// The number of checkpoints at or before `step`.
    pub(super) fn partition_point(&self, step: Seq) -> usize {
        self.entries.partition_point(|e| e.0 <= step)
    }

    /// Decodes checkpoint `i` from the blob, checking it is what the
    /// directory says.
    fn decode(&self, i: usize) -> Decoded<FrozenReplay> {
        let Some(&(step, start, end)) = self.entries.get(i) else {
            return Err(DecodeError("no such checkpoint".into()));
        };
        let bytes = self.blob.get(start..end).unwrap_or_default();
        let d = &mut Decoder::new(bytes);
        let blob = &self.blob;
        let checkpoint = FrozenReplay::decode(d, &|n| self.messages.get(blob, n))?;
        if !d.at_end() || checkpoint.step() != step || checkpoint.options() != self.options {
            return Err(DecodeError(
                "a checkpoint in the index is not what its directory says".into(),
            ));
        }
        Ok(checkpoint)
    }

    /// Checkpoint `i`, decoded (or kept from a recent seek); `None` when it
    /// cannot be decoded.
    pub(super) fn decoded(&self, i: usize) -> Option<Arc<FrozenReplay>> {
        if i == 0 {
            return Some(Arc::clone(&self.first));
        }
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = recent.iter().position(|(n, _)| *n == i) {
            let entry = recent.remove(at);
            let checkpoint = Arc::clone(&entry.1);
            recent.push(entry);
            return Some(checkpoint);
        }
        drop(recent);
        let checkpoint = Arc::new(self.decode(i).ok()?);
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() >= RECENT_CHECKPOINTS {
            recent.remove(0);
        }
        recent.push((i, Arc::clone(&checkpoint)));
        Some(checkpoint)
    }

    /// A live replayer at checkpoint `i`, or at the last one before it that
    /// decodes (the first always does).
    pub(super) fn thaw_at_or_before(&self, i: usize) -> Replayer {
        for at in (1..=i.min(self.len().saturating_sub(1))).rev() {
            if let Some(checkpoint) = self.decoded(at) {
                return checkpoint.thaw();
            }
        }
        self.first.thaw()
    }
}

impl Timeline {
    /// The timeline of `events` from `start`, with the end-of-stream checks,
    /// holding no events itself: what a writer that keeps the events
    /// elsewhere builds to store its index ([`Self::encode_index`]).
    pub fn index_of(start: Replayer, events: &EventLog) -> Self {
        let mut timeline = Self::starting_from(start, CheckpointPolicy::default());
        timeline.head.reserve(events.len());
        timeline.index.reserve(events.len());
        for_each_parsed(events, |seq, num_bytes, parsed| {
            timeline.apply_parsed(seq, num_bytes, parsed);
        });
        timeline.finish();
        timeline
    }

    /// The derived data of this timeline (everything but its events), as
    /// one blob; an error when a value is nested too deeply to be read back
    /// (or a stored checkpoint cannot be decoded).
    pub fn encode_index(&self) -> Result<Vec<u8>, DecodeError> {
        self.encode_index_with(None)
    }

    /// [`Self::encode_index`] with the events' arrival times (nanoseconds
    /// from the start, one per event): a reader then has them without
    /// reading every event's row (issue 14). Times of another count are
    /// left out.
    pub fn encode_index_with(&self, arrivals: Option<&[u64]>) -> Result<Vec<u8>, DecodeError> {
        let mut table = MessageTable::default();
        let mut head = Encoder::default();
        self.head.encode(&mut head, &mut table)?;
        let Some(checkpoints) = self.checkpoints.all() else {
            return Err(DecodeError("a stored checkpoint cannot be decoded".into()));
        };
        let mut encoded = Encoder::default();
        encoded.usize(checkpoints.len());
        for checkpoint in &checkpoints {
            let mut one = Encoder::default();
            checkpoint.encode(&mut one, &mut table)?;
            encoded.u64(checkpoint.step().get());
            encoded.bytes(&one.buf);
        }
        let mut body = Encoder::default();
        body.buf.extend_from_slice(&table.finish());
        body.bytes(&head.buf);
        body.buf.extend_from_slice(&encoded.buf);
        self.index.encode(&mut body);
        // A writer's timeline holds no events itself (`index_of`): its
        // length is its last step.
        match arrivals.filter(|a| a.len() as u64 == self.last_step().get()) {
            Some(arrivals) => {
                body.u8(1);
                let mut last = 0u64;
                for &arrival in arrivals {
                    // Zigzag deltas: recorded times may go backwards.
                    let delta = arrival.wrapping_sub(last) as i64;
                    body.u64(((delta << 1) ^ (delta >> 63)) as u64);
                    last = arrival;
                }
            }
            None => body.u8(0),
        }
        let mut out = Encoder::default();
        out.buf.extend_from_slice(MAGIC);
        out.u64(INDEX_FORMAT_VERSION as u64);
        out.u64(self.policy.max_cost);
        out.u64(self.policy.op_cost);
        out.u64(self.cost_since_checkpoint);
        out.u64(self.head.step().get());
        out.buf
            .extend_from_slice(&checksum(&body.buf).to_le_bytes());
        out.buf.extend_from_slice(&body.buf);
        Ok(out.buf)
    }

    /// Rebuilds the timeline of `events` replayed with `options` from its
    /// stored index `blob`, without replaying. Refused (with the reason)
    /// unless the blob is whole and agrees with the events: the same format,
    /// the checksum, the default checkpoint policy, the same options, as
    /// many events, every step within the stream. The checkpoints stay
    /// encoded in the blob, each decoded when a seek needs it.
    pub fn from_stored_index(
        events: impl Into<Events>,
        blob: impl Into<Vec<u8>>,
        options: Options,
    ) -> Decoded<Self> {
        Self::from_stored_index_with_arrivals(events, blob, options).map(|(timeline, _)| timeline)
    }

    /// [`Self::from_stored_index`], with the events' arrival times when
    /// the index holds them ([`Self::encode_index_with`]).
    pub fn from_stored_index_with_arrivals(
        events: impl Into<Events>,
        blob: impl Into<Vec<u8>>,
        options: Options,
    ) -> Decoded<(Self, Option<Vec<u64>>)> {
        let events: Events = events.into();
        let blob: Vec<u8> = blob.into();
        let fail = |why: &str| Err(DecodeError(why.to_owned()));
        if blob.get(..MAGIC.len()) != Some(&MAGIC[..]) {
            return fail("the index does not start as one");
        }
        let d = &mut Decoder::new(&blob);
        d.skip(MAGIC.len())?;
        if d.u64()? != INDEX_FORMAT_VERSION as u64 {
            return fail("the index is of another format");
        }
        let policy = CheckpointPolicy {
            max_cost: d.u64()?,
            op_cost: d.u64()?,
        };
        if policy != CheckpointPolicy::default() {
            return fail("the index was built with another checkpoint policy");
        }
        let cost_since_checkpoint = d.u64()?;
        let last_step = d.u64()?;
        if last_step != events.len() as u64 {
            return fail("the index covers another number of events");
        }
        let mut sum = [0u8; 8];
        for byte in &mut sum {
            *byte = d.u8()?;
        }
        if u64::from_le_bytes(sum) != checksum(&blob[d.pos()..]) {
            return fail("the index is damaged (its checksum differs)");
        }
        let messages = LazyMessages::scan(d)?;
        let message = |n: usize| messages.get(&blob, n);
        let head_bytes = d.bytes()?;
        let head_d = &mut Decoder::new(head_bytes);
        let head = Replayer::decode(head_d, &message)?;
        if !head_d.at_end() {
            return fail("the index's last state has bytes after its end");
        }
        if head.options() != options {
            return fail("the index was built with other options");
        }
        if head.step().get() != last_step || head.effects().len() as u64 != last_step {
            return fail("the index's last state is not at the last event");
        }
        let diagnostics = head.diagnostics();
        if diagnostics.windows(2).any(|w| w[0].seq > w[1].seq)
            || diagnostics.last().is_some_and(|d| d.seq.get() > last_step)
        {
            return fail("the index's diagnostics are out of order");
        }
        let n = d.count()?;
        let mut entries: Vec<(Seq, usize, usize)> = Vec::with_capacity(n);
        for _ in 0..n {
            let step = d.seq()?;
            let len = d.count()?;
            let start = d.pos();
            d.skip(len)?;
            let in_order = match entries.last() {
                Some(last) => last.0 < step,
                None => step == Seq::START,
            };
            if !in_order || step.get() > last_step {
                return fail("the index's checkpoints are out of order");
            }
            entries.push((step, start, start + len));
        }
        let Some(&(_, first_start, first_end)) = entries.first() else {
            return fail("the index holds no checkpoint");
        };
        let first_d = &mut Decoder::new(&blob[first_start..first_end]);
        let first = FrozenReplay::decode(first_d, &message)?;
        if !first_d.at_end() || first.step() != Seq::START {
            return fail("the index's first checkpoint is not at step 0");
        }
        if first.options() != options {
            return fail("the index was built with other options");
        }
        let index = StreamIndex::decode(d, last_step)?;
        if index.num_events() as u64 != last_step {
            return fail("the index's event kinds do not cover the stream");
        }
        let arrivals = match d.u8()? {
            0 => None,
            1 => {
                let n = usize::try_from(last_step).unwrap_or(usize::MAX);
                if n > d.remaining() {
                    return fail("the index's arrival times do not cover the stream");
                }
                let mut arrivals = Vec::with_capacity(n);
                let mut last = 0u64;
                for _ in 0..n {
                    let zigzag = d.u64()?;
                    let delta = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
                    last = last.wrapping_add(delta as u64);
                    arrivals.push(last);
                }
                Some(arrivals)
            }
            _ => return fail("the index's arrival times are of an unknown kind"),
        };
        if !d.at_end() {
            return fail("the index has bytes after its end");
        }
        let stored = StoredCheckpoints {
            blob,
            messages,
            entries,
            first: Arc::new(first),
            options,
            recent: Mutex::new(Vec::new()),
        };
        let timeline = Self {
            events,
            head,
            checkpoints: Checkpoints {
                stored: Some(Arc::new(stored)),
                frozen: Vec::new(),
            },
            policy,
            cost_since_checkpoint,
            index,
        };
        Ok((timeline, arrivals))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Seq;

    fn demo() -> EventLog {
        let mut log = EventLog::default();
        for line in include_str!("../../recordings/demo.jsonl").lines() {
            log.push(line.as_bytes());
        }
        log
    }

    #[test]
    fn a_stored_index_gives_back_the_replayed_timeline() {
        let replayed = Timeline::from_log(demo(), Options::default());
        let blob = replayed.encode_index().expect("encodes");
        let stored =
            Timeline::from_stored_index(demo(), &blob[..], Options::default()).expect("decodes");
        assert_eq!(stored.diagnostics(), replayed.diagnostics());
        assert_eq!(stored.effects(), replayed.effects());
        assert_eq!(stored.index().lanes(), replayed.index().lanes());
        for step in 0..=replayed.len() as u64 {
            let step = Seq::new(step);
            assert_eq!(stored.seek(step).document(), replayed.seek(step).document());
        }
        // The same blob is refused for other options or other events.
        let other = Options {
            best_effort: true,
            ..Options::default()
        };
        assert!(Timeline::from_stored_index(demo(), &blob[..], other).is_err());
        let mut shorter = demo();
        shorter.push(br#"{"type":"RUN_STARTED"}"#);
        assert!(Timeline::from_stored_index(shorter, &blob[..], Options::default()).is_err());
    }

    /// Every engine version and the fingerprint of the indexes it writes
    /// for [`fixed_streams`]. Never edit an entry: when the test below
    /// fails because the replay's results or the encoding changed, bump
    /// [`REPLAY_ENGINE_VERSION`] and append its fingerprint.
    const ENGINE_FINGERPRINTS: &[(u32, u64)] = &[
        (1, 0x1d40_361e_b5d0_8c03),
        // Drift (issue 17.1): the replay reports it, and its tracking is stored.
        (2, 0x8915_d4d6_52a0_4972),
        // Checkpoints twice as dense (issue 14: seek p99).
        (3, 0xf53e_22d0_e3c8_35fc),
    ];

    /// The demo under both profiles, strict and best effort.
    fn fixed_streams() -> Vec<Vec<u8>> {
        let mut blobs = Vec::new();
        for profile in crate::replay::Profile::ALL {
            for best_effort in [false, true] {
                let options = Options {
                    profile,
                    best_effort,
                    ..Options::default()
                };
                let timeline = Timeline::from_log(demo(), options);
                blobs.push(timeline.encode_index().expect("encodes"));
            }
        }
        blobs
    }

    #[test]
    fn the_encoded_index_of_a_fixed_stream_changes_only_with_the_engine_version() {
        // Issue 14: a stored index is believed only when written by the
        // same engine version; this fails when what it holds changes while
        // the version stays.
        let mut fingerprint = 0u64;
        for blob in fixed_streams() {
            fingerprint = fingerprint.rotate_left(17) ^ checksum(&blob);
        }
        let versions: Vec<u32> = ENGINE_FINGERPRINTS.iter().map(|e| e.0).collect();
        assert!(
            versions.windows(2).all(|w| w[0] < w[1]),
            "engine versions only grow"
        );
        assert_eq!(
            ENGINE_FINGERPRINTS.last(),
            Some(&(REPLAY_ENGINE_VERSION, fingerprint)),
            "the stored index of the demo changed: bump REPLAY_ENGINE_VERSION and append \
             ({}, {fingerprint:#x}) to ENGINE_FINGERPRINTS",
            REPLAY_ENGINE_VERSION + 1
        );
        assert!(index_engine().ends_with(&format!(" engine {REPLAY_ENGINE_VERSION}")));
    }

    #[test]
    fn a_damaged_byte_anywhere_changes_the_checksum() {
        let blob = Timeline::from_log(demo(), Options::default())
            .encode_index()
            .expect("encodes");
        let sum = checksum(&blob);
        for at in 0..blob.len() {
            let mut damaged = blob.clone();
            damaged[at] ^= 1 << (at % 8);
            assert_ne!(checksum(&damaged), sum, "byte {at}");
        }
        assert_ne!(checksum(&blob[..blob.len() - 1]), sum);
    }

    /// A stream long enough for several checkpoints under the default
    /// policy: state deltas of many operations, messages and an activity.
    fn long() -> EventLog {
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

    #[test]
    fn a_stored_timeline_decodes_its_checkpoints_on_demand() {
        // Issue 14: opening keeps the checkpoints encoded; each seek
        // decodes the one it starts from, and gives the replayed state.
        let replayed = Timeline::from_log(long(), Options::default());
        assert!(
            replayed.num_checkpoints() > 3,
            "{}",
            replayed.num_checkpoints()
        );
        let blob = replayed.encode_index().expect("encodes");
        let stored =
            Timeline::from_stored_index(long(), &blob[..], Options::default()).expect("decodes");
        assert_eq!(
            stored.checkpoint_steps().collect::<Vec<_>>(),
            replayed.checkpoint_steps().collect::<Vec<_>>()
        );
        // Backwards, then jumping about: more checkpoints than are kept
        // decoded.
        let last = replayed.len() as u64;
        let steps = (0..=last)
            .rev()
            .step_by(11)
            .chain((0..=last).step_by(97))
            .chain([3, last - 2, 5]);
        for step in steps {
            let step = Seq::new(step);
            let sought = stored.seek(step);
            assert_eq!(sought.step(), step);
            assert_eq!(
                sought.document(),
                replayed.seek(step).document(),
                "step {step}"
            );
        }
        assert_eq!(stored.diagnostics(), replayed.diagnostics());
        // Encoding the stored timeline again gives the same blob.
        assert_eq!(stored.encode_index().expect("encodes again"), blob);
        // With arrival times (some going backwards), they come back.
        let arrivals: Vec<u64> = (0..replayed.len() as u64)
            .map(|i| {
                if i % 7 == 3 {
                    i * 10
                } else {
                    i * 1_000_000_007
                }
            })
            .collect();
        let blob = replayed
            .encode_index_with(Some(&arrivals))
            .expect("encodes");
        let (_, back) =
            Timeline::from_stored_index_with_arrivals(long(), &blob[..], Options::default())
                .expect("decodes");
        assert_eq!(back.as_deref(), Some(&arrivals[..]));
        // A writer's timeline (holding no events) stores them too (issue 14).
        let written = Timeline::index_of(Replayer::new(Options::default()), &long());
        let blob = written.encode_index_with(Some(&arrivals)).expect("encodes");
        let (_, back) =
            Timeline::from_stored_index_with_arrivals(long(), &blob[..], Options::default())
                .expect("decodes");
        assert_eq!(back.as_deref(), Some(&arrivals[..]));
        // Times of another count are left out.
        let blob = replayed
            .encode_index_with(Some(&arrivals[1..]))
            .expect("encodes");
        let (_, back) =
            Timeline::from_stored_index_with_arrivals(long(), &blob[..], Options::default())
                .expect("decodes");
        assert_eq!(back, None);
    }

    #[test]
    fn every_cut_or_flipped_index_is_refused_or_decodes_without_panicking() {
        let replayed = Timeline::from_log(demo(), Options::default());
        let blob = replayed.encode_index().expect("encodes");
        for cut in (0..blob.len()).step_by(7) {
            assert!(
                Timeline::from_stored_index(demo(), &blob[..cut], Options::default()).is_err(),
                "cut at {cut}"
            );
        }
        for at in (0..blob.len()).step_by(5) {
            let mut damaged = blob.clone();
            damaged[at] ^= 0x5a;
            // A flipped byte in a message's text may still decode; it must
            // never panic, and seeking what it gives must not either.
            if let Ok(timeline) =
                Timeline::from_stored_index(demo(), &damaged[..], Options::default())
            {
                let _ = timeline.seek(Seq::new(7));
                let _ = timeline.index().counts(Seq::new(1)..=Seq::new(40));
            }
        }
    }
}
