//! A timeline that shares another's first steps (issue 41): an edited
//! stream equals the recording before its first edit, so its replay starts
//! from the recording's checkpoint before that edit, reusing the
//! checkpoints, the indices and the logs up to there, and only the events
//! after it are replayed.

use std::sync::Arc;

use super::{Checkpoints, Events, Spliced, Thawed, Timeline};
use crate::diagnostic::Seq;
use crate::replay::FreezeCache;

impl Timeline {
    /// The timeline of a stream whose events before step `first_change`
    /// are this one's: this one cut at its last checkpoint before that
    /// step (and before its last step, whose end-of-stream checks the
    /// other stream runs again), sharing its events and checkpoints up to
    /// there (not copying them).
    /// [`Self::extend_from`] then replays the other stream's events from
    /// its length on, and [`Self::finish`] ends it.
    pub fn shared_prefix(self: &Arc<Self>, first_change: Seq) -> Self {
        let limit = Seq::new(
            first_change
                .get()
                .min(self.last_step().get())
                .saturating_sub(1),
        );
        let at = self.checkpoints.partition_point(limit).saturating_sub(1);
        let mut head = self.checkpoints.thaw_at_or_before(at);
        // A stored checkpoint that cannot be decoded thaws an earlier one.
        let step = head.step();
        let num_checkpoints = self.checkpoints.partition_point(step);
        let num_events = step.get() as usize;
        head.restore_logs(
            self.diagnostics_until(step).to_vec(),
            self.effects()[..num_events.min(self.effects().len())].to_vec(),
        );
        let num_stored = self.checkpoints.num_stored().min(num_checkpoints);
        // Shared, not copied.
        let frozen = self.checkpoints.frozen[..num_checkpoints - num_stored].to_vec();
        let checkpoints = Checkpoints {
            stored: self.checkpoints.stored.clone().filter(|_| num_stored > 0),
            stored_len: num_stored,
            frozen,
            thawed: Thawed::default(),
        };
        Self {
            events: Events::Spliced(Spliced::new(Arc::clone(self), num_events)),
            head,
            checkpoints,
            policy: self.policy,
            cost_since_checkpoint: 0,
            next_checkpoint_cost: self.policy.max_cost,
            freeze_cache: FreezeCache::default(),
            index: self.index.truncated(num_events),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_streams;
    use super::*;
    use crate::event_log::{EventLog, RawEvents};
    use crate::replay::Options;
    use crate::timeline::CheckpointPolicy;

    fn edited(log: &EventLog, at: usize) -> EventLog {
        let mut edited = EventLog::default();
        for (seq, raw) in log.iter() {
            if seq.index() == Some(at) {
                edited.push(br#"{"type":"CUSTOM","name":"edit","value":1}"#);
            }
            edited.push(raw);
        }
        edited
    }

    #[test]
    fn a_timeline_sharing_the_first_steps_equals_one_replayed_from_step_0() {
        // Issue 41: the edited replay starts from the recording's
        // checkpoint before the first edit.
        let log = test_streams::long();
        let policy = CheckpointPolicy {
            max_cost: 20_000,
            op_cost: 48,
        };
        let recorded = Arc::new(
            Timeline::builder(Options::default())
                .policy(policy)
                .replay(log.clone()),
        );
        let blob = Timeline::from_log(log.clone(), Options::default())
            .encode_index()
            .expect("encodes");
        let stored = Arc::new(
            Timeline::from_stored_index(log.clone(), blob, Options::default()).expect("decodes"),
        );
        for at in [0, 1, 300, 500] {
            let other = edited(&log, at);
            let reference = Timeline::builder(Options::default())
                .policy(policy)
                .replay(other.clone());
            for base in [&recorded, &stored] {
                let mut shared = base.shared_prefix(Seq::from_index(at));
                assert!(shared.len() <= at, "{} events kept", shared.len());
                if at > 300 {
                    assert!(shared.num_checkpoints() > 1, "at {at}");
                }
                shared.extend_from(&other, usize::MAX);
                shared.finish();
                assert_eq!(shared.len(), other.len());
                assert_eq!(shared.diagnostics(), reference.diagnostics(), "at {at}");
                assert_eq!(shared.effects(), reference.effects(), "at {at}");
                let last = Seq::new(other.len() as u64);
                assert_eq!(
                    shared.index().counts(Seq::new(1)..=last),
                    reference.index().counts(Seq::new(1)..=last)
                );
                assert_eq!(shared.index().lanes(), reference.index().lanes());
                assert_eq!(
                    shared.index().entities().lanes(),
                    reference.index().entities().lanes(),
                    "at {at}"
                );
                // The events read back across the splice.
                let mut read = EventLog::default();
                shared
                    .events()
                    .for_each_raw(0..shared.len(), &mut |_, raw| {
                        read.push(raw);
                    });
                assert_eq!(read, other, "at {at}");
                assert_eq!(
                    shared.events().get(Seq::from_index(at)).as_deref(),
                    other.get(Seq::from_index(at))
                );
                for step in (0..=other.len() as u64).step_by(37) {
                    let step = Seq::new(step);
                    assert_eq!(
                        shared.seek(step).document(),
                        reference.seek(step).document(),
                        "at {at}, step {step}"
                    );
                }
            }
        }
    }
}
