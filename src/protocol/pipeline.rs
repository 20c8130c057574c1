//! Reading a stream's events on two threads while the caller applies them:
//! reading is independent per event, applying is sequential. Reading costs
//! more than applying, so both threads read: a helper reads batch after
//! batch, and the applying thread, whenever the batch it needs next is not
//! ready, reads a later one itself instead of waiting.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{TryRecvError, sync_channel};

use super::parse::{ParseOutcome, parse_event};
use crate::diagnostic::Seq;
#[cfg(test)]
use crate::input::EventLog;
use crate::input::RawEvents;

/// Events per batch.
const BATCH_EVENTS: usize = 512;

/// Batches the helper may have read ahead: enough to keep both threads
/// busy, little memory.
const BATCHES_IN_FLIGHT: usize = 4;

/// Below this many events a second thread costs more than it saves.
const MIN_EVENTS_FOR_THREAD: usize = 4 * BATCH_EVENTS;

type Batch = Vec<(Seq, usize, ParseOutcome)>;

fn read_batch<E: RawEvents + ?Sized>(log: &E, indices: &Range<usize>, batch: usize) -> Batch {
    let first = indices.start + batch * BATCH_EVENTS;
    let last = (first + BATCH_EVENTS).min(indices.end);
    let mut events = Vec::with_capacity(last.saturating_sub(first));
    log.for_each_raw(first..last, &mut |seq, raw| {
        events.push((seq, raw.len(), parse_event(raw)));
    });
    events
}

/// Calls `apply` with every event of `log`, in order: its seq, its size in
/// bytes, and what reading it gave. Long streams are read on two threads.
pub fn for_each_parsed<E: RawEvents + ?Sized>(
    log: &E,
    apply: impl FnMut(Seq, usize, ParseOutcome),
) {
    for_each_parsed_in(log, 0..log.len(), apply);
}

/// [`for_each_parsed`] for the events at 0-based `indices` (clamped to the
/// log).
pub fn for_each_parsed_in<E: RawEvents + ?Sized>(
    log: &E,
    indices: Range<usize>,
    mut apply: impl FnMut(Seq, usize, ParseOutcome),
) {
    let indices = indices.start.min(log.len())..indices.end.min(log.len());
    if indices.len() < MIN_EVENTS_FOR_THREAD {
        log.for_each_raw(indices, &mut |seq, raw| {
            apply(seq, raw.len(), parse_event(raw));
        });
        return;
    }
    let num_batches = indices.len().div_ceil(BATCH_EVENTS);
    let indices = &indices;
    let next_unread = AtomicUsize::new(0);
    let claim = || next_unread.fetch_add(1, Ordering::Relaxed);
    std::thread::scope(|scope| {
        let (sender, receiver) = sync_channel::<(usize, Batch)>(BATCHES_IN_FLIGHT);
        let helper_claim = &claim;
        scope.spawn(move || {
            let claim = helper_claim;
            loop {
                let batch = claim();
                if batch >= num_batches
                    || sender
                        .send((batch, read_batch(log, indices, batch)))
                        .is_err()
                {
                    return;
                }
            }
        });
        let mut ready: BTreeMap<usize, Batch> = BTreeMap::new();
        for wanted in 0..num_batches {
            let events = loop {
                if let Some(events) = ready.remove(&wanted) {
                    break events;
                }
                match receiver.try_recv() {
                    Ok((batch, events)) => {
                        ready.insert(batch, events);
                    }
                    Err(TryRecvError::Empty) => {
                        // Read a batch here rather than wait, while any is left.
                        let batch = claim();
                        if batch < num_batches {
                            ready.insert(batch, read_batch(log, indices, batch));
                        } else if let Ok((batch, events)) = receiver.recv() {
                            ready.insert(batch, events);
                        } else {
                            return;
                        }
                    }
                    Err(TryRecvError::Disconnected) => {
                        let batch = claim();
                        if batch >= num_batches {
                            return;
                        }
                        ready.insert(batch, read_batch(log, indices, batch));
                    }
                }
            };
            for (seq, num_bytes, parsed) in events {
                apply(seq, num_bytes, parsed);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_arrives_once_in_order() {
        let mut log = EventLog::default();
        for i in 0..(MIN_EVENTS_FOR_THREAD + 77) {
            log.push(format!(r#"{{"type":"CUSTOM","name":"n","value":{i}}}"#).as_bytes());
        }
        let mut seen = Vec::new();
        for_each_parsed(&log, |seq, _, parsed| {
            assert!(matches!(parsed, ParseOutcome::Event { .. }));
            seen.push(seq.get());
        });
        let expected: Vec<u64> = (1..=log.len() as u64).collect();
        assert_eq!(seen, expected);
    }
}
