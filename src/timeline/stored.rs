//! A timeline's derived data as a recording stores it (issue 14): the
//! checkpoints, the state at the last event with every diagnostic and
//! effect, the per-activity lanes, the diagnostic steps and the event kinds
//! (the density histogram), in one compact blob ([`crate::replay::codec`]).
//!
//! [`Timeline::encode_index`] writes it; [`Timeline::from_stored_index`]
//! rebuilds the timeline from it and the events without replaying, after
//! checking it against them: a blob of another format, another checkpoint
//! policy, other options, another number of events or damaged in any way is
//! refused with a reason, and the caller replays.

use super::{CheckpointPolicy, Events, StreamIndex, Timeline};
use crate::input::EventLog;
use crate::protocol::for_each_parsed;
use crate::replay::codec::{DecodeError, Decoded, Decoder, Encoder, MessageTable, decode_messages};
use crate::replay::{FrozenReplay, Options, Replayer};

/// The version of the blob's layout and of what it means. Bump it whenever
/// the encoding or the replay's results change (a new rule, a new
/// checkpoint policy): an index of another version is never believed.
pub const INDEX_FORMAT_VERSION: i64 = 2;

/// The engine that wrote an index, stored beside it: an index written by
/// another build is not believed either.
pub const INDEX_ENGINE: &str = concat!("agui-replay ", env!("CARGO_PKG_VERSION"));

/// The first bytes of a stored index.
const MAGIC: &[u8; 4] = b"AGTI";

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
    /// one blob; an error when a value is nested too deeply to be read back.
    pub fn encode_index(&self) -> Result<Vec<u8>, DecodeError> {
        let mut table = MessageTable::default();
        let mut body = Encoder::default();
        self.head.encode(&mut body, &mut table)?;
        body.usize(self.checkpoints.len());
        for checkpoint in &self.checkpoints {
            checkpoint.encode(&mut body, &mut table)?;
        }
        self.index.encode(&mut body);
        let mut out = Encoder::default();
        out.buf.extend_from_slice(MAGIC);
        out.u64(INDEX_FORMAT_VERSION as u64);
        out.u64(self.policy.max_cost);
        out.u64(self.policy.op_cost);
        out.u64(self.cost_since_checkpoint);
        out.u64(self.head.step().get());
        out.buf.extend_from_slice(&table.finish());
        out.buf.extend_from_slice(&body.buf);
        Ok(out.buf)
    }

    /// Rebuilds the timeline of `events` replayed with `options` from its
    /// stored index `blob`, without replaying. Refused (with the reason)
    /// unless the blob is whole and agrees with the events: the same format,
    /// the default checkpoint policy, the same options, as many events, every
    /// step within the stream.
    pub fn from_stored_index(
        events: impl Into<Events>,
        blob: &[u8],
        options: Options,
    ) -> Decoded<Self> {
        let events: Events = events.into();
        let fail = |why: &str| Err(DecodeError(why.to_owned()));
        let d = &mut Decoder::new(blob);
        if blob.get(..MAGIC.len()) != Some(&MAGIC[..]) {
            return fail("the index does not start as one");
        }
        for _ in 0..MAGIC.len() {
            d.u8()?;
        }
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
        let messages = decode_messages(d)?;
        let head = Replayer::decode(d, &messages)?;
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
        let mut checkpoints: Vec<FrozenReplay> = Vec::with_capacity(n);
        for _ in 0..n {
            let checkpoint = FrozenReplay::decode(d, &messages)?;
            let in_order = match checkpoints.last() {
                Some(last) => last.step() < checkpoint.step(),
                None => checkpoint.step().get() == 0,
            };
            if !in_order || checkpoint.step().get() > last_step {
                return fail("the index's checkpoints are out of order");
            }
            if checkpoint.options() != options {
                return fail("the index was built with other options");
            }
            checkpoints.push(checkpoint);
        }
        if checkpoints.is_empty() {
            return fail("the index holds no checkpoint");
        }
        let index = StreamIndex::decode(d, last_step)?;
        if index.num_events() as u64 != last_step {
            return fail("the index's event kinds do not cover the stream");
        }
        if !d.at_end() {
            return fail("the index has bytes after its end");
        }
        Ok(Self {
            events,
            head,
            checkpoints,
            policy,
            cost_since_checkpoint,
            index,
        })
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
            Timeline::from_stored_index(demo(), &blob, Options::default()).expect("decodes");
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
        assert!(Timeline::from_stored_index(demo(), &blob, other).is_err());
        let mut shorter = demo();
        shorter.push(br#"{"type":"RUN_STARTED"}"#);
        assert!(Timeline::from_stored_index(shorter, &blob, Options::default()).is_err());
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
            if let Ok(timeline) = Timeline::from_stored_index(demo(), &damaged, Options::default())
            {
                let _ = timeline.seek(Seq::new(7));
                let _ = timeline.index().counts(Seq::new(1)..=Seq::new(40));
            }
        }
    }
}
