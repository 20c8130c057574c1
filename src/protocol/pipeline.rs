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
    let shape = Shape {
        batch_events: BATCH_EVENTS,
        in_flight: BATCHES_IN_FLIGHT,
    };
    pipelined(
        log,
        indices,
        shape,
        || (),
        |(), seq, num_bytes, parsed| {
            apply(seq, num_bytes, parsed);
        },
    );
}

/// Events per batch when reading a seek's events: small, so that the
/// applying thread reads at most one batch the helper was still reading.
const SEEK_BATCH_EVENTS: usize = 64;

/// At most this many of a seek's events are read by the helper from the
/// end of the range backwards (what it read waits in memory until it is
/// applied); the rest, if any, are read as [`for_each_parsed_in`] does.
const SEEK_OVERLAP_EVENTS: usize = 8 * 1024;

/// Below this many events a seek reads them on its own thread: starting a
/// scoped thread costs about as much as reading this many (issue 14).
pub const MIN_EVENTS_FOR_OVERLAP: usize = 96;

/// [`for_each_parsed_in`] onto what `prepare` gives (issue 14: a seek's
/// state, thawed from a checkpoint): a helper thread reads the events from
/// the end of the range backwards, starting while `prepare` runs on the
/// calling thread, which then reads and applies them from the start until
/// it reaches what the helper read. The calling thread never waits for the
/// helper (on a loaded machine the helper may not run at all): a batch the
/// helper is still reading it reads itself. Fewer than
/// [`MIN_EVENTS_FOR_OVERLAP`] events are read on the calling thread, after
/// `prepare`.
pub fn for_each_parsed_in_after<E: RawEvents + ?Sized, T>(
    log: &E,
    indices: Range<usize>,
    prepare: impl FnOnce() -> T,
    mut apply: impl FnMut(&mut T, Seq, usize, ParseOutcome),
) -> T {
    let indices = indices.start.min(log.len())..indices.end.min(log.len());
    if indices.len() < MIN_EVENTS_FOR_OVERLAP {
        let mut prepared = prepare();
        log.for_each_raw(indices, &mut |seq, raw| {
            apply(&mut prepared, seq, raw.len(), parse_event(raw));
        });
        return prepared;
    }
    let overlapped = indices.start..indices.end.min(indices.start + SEEK_OVERLAP_EVENTS);
    let rest = overlapped.end..indices.end;
    let mut prepared = meeting(log, overlapped, prepare, &mut apply);
    for_each_parsed_in(log, rest, |seq, num_bytes, parsed| {
        apply(&mut prepared, seq, num_bytes, parsed);
    });
    prepared
}

/// A batch nobody reads yet.
const UNCLAIMED: u8 = 0;
/// A batch the calling thread reads.
const MINE: u8 = 1;
/// A batch the helper reads.
const HELPERS: u8 = 2;
/// A batch the helper has read (in its slot).
const READ: u8 = 3;

/// The calling thread reads `indices` from the start, the helper from the
/// end; each claims a batch before reading it, and they stop where they
/// meet.
fn meeting<E: RawEvents + ?Sized, T>(
    log: &E,
    indices: Range<usize>,
    prepare: impl FnOnce() -> T,
    apply: &mut impl FnMut(&mut T, Seq, usize, ParseOutcome),
) -> T {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicU8;
    let num_batches = indices.len().div_ceil(SEEK_BATCH_EVENTS);
    let states: Vec<AtomicU8> = (0..num_batches).map(|_| AtomicU8::new(UNCLAIMED)).collect();
    let slots: Vec<Mutex<Batch>> = (0..num_batches).map(|_| Mutex::default()).collect();
    let indices = &indices;
    let read = |batch| read_batch(log, indices, SEEK_BATCH_EVENTS, batch);
    let claim = |batch: usize, by: u8| {
        states[batch].compare_exchange(UNCLAIMED, by, Ordering::AcqRel, Ordering::Acquire)
    };
    std::thread::scope(|scope| {
        let (helper_claim, helper_read, helper_slots, helper_states) =
            (&claim, &read, &slots, &states);
        scope.spawn(move || {
            for batch in (0..num_batches).rev() {
                if helper_claim(batch, HELPERS).is_err() {
                    return;
                }
                let events = helper_read(batch);
                *helper_slots[batch]
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = events;
                helper_states[batch].store(READ, Ordering::Release);
            }
        });
        let mut prepared = prepare();
        for batch in 0..num_batches {
            let events = match claim(batch, MINE) {
                Ok(_) => read(batch),
                Err(READ) => {
                    std::mem::take(&mut *slots[batch].lock().unwrap_or_else(|e| e.into_inner()))
                }
                // The helper is reading it (or, descheduled, not): read it
                // here too rather than wait.
                Err(_) => read(batch),
            };
            for (seq, num_bytes, parsed) in events {
                apply(&mut prepared, seq, num_bytes, parsed);
            }
        }
        prepared
    })
}

/// How a pipeline cuts its events: events per batch, and how many batches
/// the helper may read ahead of the applying thread.
#[derive(Clone, Copy)]
struct Shape {
    batch_events: usize,
    in_flight: usize,
}

fn read_batch<E: RawEvents + ?Sized>(
    log: &E,
    indices: &Range<usize>,
    batch_events: usize,
    batch: usize,
) -> Batch {
    let first = indices.start + batch * batch_events;
    let last = (first + batch_events).min(indices.end);
    let mut events = Vec::with_capacity(last.saturating_sub(first));
    log.for_each_raw(first..last, &mut |seq, raw| {
        events.push((seq, raw.len(), parse_event(raw)));
    });
    events
}

/// Reads `indices` on two threads and applies them in order on the calling
/// one, after `prepare` (run on it while the helper already reads).
fn pipelined<E: RawEvents + ?Sized, T>(
    log: &E,
    indices: Range<usize>,
    shape: Shape,
    prepare: impl FnOnce() -> T,
    mut apply: impl FnMut(&mut T, Seq, usize, ParseOutcome),
) -> T {
    let Shape {
        batch_events,
        in_flight,
    } = shape;
    let num_batches = indices.len().div_ceil(batch_events);
    let indices = &indices;
    let next_unread = AtomicUsize::new(0);
    let claim = || next_unread.fetch_add(1, Ordering::Relaxed);
    let read = |batch| read_batch(log, indices, batch_events, batch);
    std::thread::scope(|scope| {
        let (sender, receiver) = sync_channel::<(usize, Batch)>(in_flight);
        let (helper_claim, helper_read) = (&claim, &read);
        scope.spawn(move || {
            loop {
                let batch = helper_claim();
                if batch >= num_batches || sender.send((batch, helper_read(batch))).is_err() {
                    return;
                }
            }
        });
        let mut prepared = prepare();
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
                            ready.insert(batch, read(batch));
                        } else if let Ok((batch, events)) = receiver.recv() {
                            ready.insert(batch, events);
                        } else {
                            return prepared;
                        }
                    }
                    Err(TryRecvError::Disconnected) => {
                        let batch = claim();
                        if batch >= num_batches {
                            return prepared;
                        }
                        ready.insert(batch, read(batch));
                    }
                }
            };
            for (seq, num_bytes, parsed) in events {
                apply(&mut prepared, seq, num_bytes, parsed);
            }
        }
        prepared
    })
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

    #[test]
    fn after_prepare_every_event_arrives_once_in_order() {
        // Issue 14: a seek's events, read from both ends while its
        // checkpoint thaws, are applied once each, in order, after it.
        let mut log = EventLog::default();
        for i in 0..(SEEK_OVERLAP_EVENTS + 2 * SEEK_BATCH_EVENTS + 5) {
            log.push(format!(r#"{{"type":"CUSTOM","name":"n","value":{i}}}"#).as_bytes());
        }
        for (start, len) in [
            (0, 0),
            (3, MIN_EVENTS_FOR_OVERLAP - 1),
            (3, MIN_EVENTS_FOR_OVERLAP),
            (0, SEEK_BATCH_EVENTS * 5),
            (7, SEEK_BATCH_EVENTS * 5 + 1),
            (1, 1500),
            (2, SEEK_OVERLAP_EVENTS + SEEK_BATCH_EVENTS + 3),
        ] {
            let seen = for_each_parsed_in_after(
                &log,
                start..start + len,
                || vec![0u64],
                |seen, seq, _, parsed| {
                    assert!(matches!(parsed, ParseOutcome::Event { .. }));
                    seen.push(seq.get());
                },
            );
            let expected: Vec<u64> = std::iter::once(0)
                .chain(start as u64 + 1..=(start + len) as u64)
                .collect();
            assert_eq!(seen, expected, "{start}..{}", start + len);
        }
    }
}
