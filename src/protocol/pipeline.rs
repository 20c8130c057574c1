//! Reading a stream's events on two threads while the caller applies them:
//! reading is independent per event, applying is sequential. Reading costs
//! more than applying, so both threads read: a helper reads batch after
//! batch, and the applying thread, whenever the batch it needs next is not
//! ready, reads a later one itself instead of waiting. What applying leaves
//! of a batch goes back to the thread that read it, to be freed there.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{TryRecvError, sync_channel};

use serde_json::Value;

use super::EventBody;
use super::parse::{ParseOutcome, parse_event};
use crate::diagnostic::Seq;
#[cfg(test)]
use crate::event_log::EventLog;
use crate::event_log::RawEvents;

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

/// Reads a byte of each heap allocation of the batch that applying reads
/// first (ids and activity types, the paths and values of patches,
/// snapshot contents), all in one pass before the batch is applied;
/// returns their sum, to be kept.
///
/// The helper wrote them on its core. When the machine places the two
/// cores apart (no cache shared: a round trip between them of about 420 ns
/// instead of 85 on this project's virtual machines), each line the
/// applying thread reads first is a transfer of hundreds of nanoseconds,
/// paid one after the other as applying reaches them; read in one pass,
/// with no dependence between events, the transfers overlap (issue 14: a
/// replay in that placement took 9% less time, and 1–2% more in the
/// other).
fn bring_over(events: &Batch) -> u64 {
    fn text(text: &str) -> u64 {
        text.as_bytes().first().map_or(0, |&byte| u64::from(byte))
    }
    fn value(of: &Value) -> u64 {
        match of {
            Value::String(s) => text(s),
            Value::Array(items) => items.iter().map(value).sum(),
            Value::Object(members) => members.iter().map(|(k, v)| text(k) + value(v)).sum(),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }
    fn ops(ops: &[json_patch::PatchOperation]) -> u64 {
        use json_patch::PatchOperation as Op;
        ops.iter()
            .map(|op| match op {
                Op::Add(op) => text(op.path.as_str()) + value(&op.value),
                Op::Replace(op) => text(op.path.as_str()) + value(&op.value),
                Op::Test(op) => text(op.path.as_str()) + value(&op.value),
                Op::Remove(op) => text(op.path.as_str()),
                Op::Move(op) => text(op.path.as_str()) + text(op.from.as_str()),
                Op::Copy(op) => text(op.path.as_str()) + text(op.from.as_str()),
            })
            .sum()
    }
    let mut sum = 0;
    for (_, _, parsed) in events {
        let ParseOutcome::Event { event, .. } = parsed else {
            continue;
        };
        sum += match &event.body {
            EventBody::ActivityDelta {
                message_id,
                activity_type,
                patch,
            } => text(message_id.as_str()) + text(activity_type) + ops(&patch.ops),
            EventBody::ActivitySnapshot {
                message_id,
                activity_type,
                content,
                ..
            } => text(message_id.as_str()) + text(activity_type) + value(content),
            EventBody::StateDelta { delta } => ops(&delta.ops),
            _ => 0,
        };
    }
    sum
}

/// Calls `apply` with every event of `log`, in order: its seq, its size in
/// bytes, and what reading it gave. `apply` takes what it keeps of the
/// event; the rest is dropped after, on the thread that read it. Long
/// streams are read on two threads.
pub fn for_each_parsed<E: RawEvents + ?Sized>(
    log: &E,
    apply: impl FnMut(Seq, usize, &mut ParseOutcome),
) {
    for_each_parsed_in(log, 0..log.len(), apply);
}

/// Which thread read a batch, and therefore frees what applying leaves of
/// it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ReadBy {
    Helper,
    Applier,
}

/// [`for_each_parsed`] for the events at 0-based `indices` (clamped to the
/// log).
pub fn for_each_parsed_in<E: RawEvents + ?Sized>(
    log: &E,
    indices: Range<usize>,
    mut apply: impl FnMut(Seq, usize, &mut ParseOutcome),
) {
    let indices = indices.start.min(log.len())..indices.end.min(log.len());
    if indices.len() < MIN_EVENTS_FOR_THREAD {
        log.for_each_raw(indices, &mut |seq, raw| {
            apply(seq, raw.len(), &mut parse_event(raw));
        });
        return;
    }
    let num_batches = indices.len().div_ceil(BATCH_EVENTS);
    let indices = &indices;
    let next_unread = AtomicUsize::new(0);
    let claim = || next_unread.fetch_add(1, Ordering::Relaxed);
    std::thread::scope(|scope| {
        let (sender, receiver) = sync_channel::<(usize, Batch)>(BATCHES_IN_FLIGHT);
        // The helper's batches go back to it once applied: it frees what is
        // left of them (ids, patches' paths, the batch itself) into its own
        // allocator's caches, which it allocates the next batches from.
        // Freed here, each would be handed back to the helper's arena
        // through shared bookkeeping that both cores then write, line by
        // line (issue 14).
        let (give_back, given_back) = sync_channel::<Batch>(2 * BATCHES_IN_FLIGHT);
        let helper_claim = &claim;
        // A helper that cannot be started leaves every batch to this
        // thread: its sender dropped, the loop below reads them itself.
        let _ = std::thread::Builder::new()
            .name("read-events".into())
            .spawn_scoped(scope, move || {
                let claim = helper_claim;
                loop {
                    let batch = claim();
                    if batch >= num_batches {
                        break;
                    }
                    let events = read_batch(log, indices, batch);
                    given_back.try_iter().for_each(drop);
                    if sender.send((batch, events)).is_err() {
                        break;
                    }
                }
                drop(sender);
                given_back.iter().for_each(drop);
            });
        let mut ready: BTreeMap<usize, (Batch, ReadBy)> = BTreeMap::new();
        for wanted in 0..num_batches {
            let (mut events, read_by) = loop {
                if let Some(ready) = ready.remove(&wanted) {
                    break ready;
                }
                match receiver.try_recv() {
                    Ok((batch, events)) => {
                        ready.insert(batch, (events, ReadBy::Helper));
                    }
                    Err(TryRecvError::Empty) => {
                        // Read a batch here rather than wait, while any is left.
                        let batch = claim();
                        if batch < num_batches {
                            let events = read_batch(log, indices, batch);
                            ready.insert(batch, (events, ReadBy::Applier));
                        } else if let Ok((batch, events)) = receiver.recv() {
                            ready.insert(batch, (events, ReadBy::Helper));
                        } else {
                            return;
                        }
                    }
                    Err(TryRecvError::Disconnected) => {
                        let batch = claim();
                        if batch >= num_batches {
                            return;
                        }
                        let events = read_batch(log, indices, batch);
                        ready.insert(batch, (events, ReadBy::Applier));
                    }
                }
            };
            if read_by == ReadBy::Helper {
                std::hint::black_box(bring_over(&events));
            }
            for (seq, num_bytes, parsed) in &mut events {
                apply(*seq, *num_bytes, parsed);
            }
            if read_by == ReadBy::Helper {
                // A full queue (the helper busy reading) or a helper gone:
                // freed here after all.
                let _ = give_back.try_send(events);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event arrives once, in order: a range short enough for one
    /// thread, ranges read on two with a last batch cut short, and ranges
    /// that start past the first event.
    #[test]
    fn every_event_arrives_once_in_order() {
        let num_events = 8 * BATCH_EVENTS + 77;
        let mut log = EventLog::default();
        for i in 0..num_events {
            log.push(format!(r#"{{"type":"CUSTOM","name":"n","value":{i}}}"#).as_bytes());
        }
        let ranges = [
            0..MIN_EVENTS_FOR_THREAD - 1,
            0..MIN_EVENTS_FOR_THREAD,
            5..MIN_EVENTS_FOR_THREAD + 200,
            0..8 * BATCH_EVENTS - 1,
            1..num_events,
            0..num_events,
        ];
        for range in ranges {
            let mut seen = Vec::new();
            for_each_parsed_in(&log, range.clone(), |seq, _, parsed| {
                let ParseOutcome::Event { event, .. } = parsed else {
                    panic!("a CUSTOM event is read");
                };
                let crate::protocol::EventBody::Custom { value, .. } = &event.body else {
                    panic!("a CUSTOM event is read as one");
                };
                assert_eq!(value.as_ref().and_then(Value::as_u64), Some(seq.get() - 1));
                seen.push(seq.get());
            });
            let expected: Vec<u64> = (range.start as u64 + 1..=range.end as u64).collect();
            assert_eq!(seen, expected, "{range:?}");
        }
    }
}
