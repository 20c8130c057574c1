//! The raw text of a stream's events, packed in one buffer.

use std::ops::Range;

use crate::diagnostic::Seq;

/// Events read by position, wherever their bytes are: in memory
/// ([`EventLog`]) or in a recording read block by block (the timeline's
/// `Events`). What a replay reads from (shared between
/// the threads that parse).
pub trait RawEvents: Sync {
    /// The number of events.
    fn len(&self) -> usize;

    /// Whether there is no event.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `each` with the seq and the bytes of every event at 0-based
    /// `indices` (clamped to the events), in order.
    fn for_each_raw(&self, indices: Range<usize>, each: &mut dyn FnMut(Seq, &[u8]));
}

/// Events borrowed (issue 41: an edited stream is read over the
/// recording's events).
impl<E: RawEvents + ?Sized> RawEvents for &E {
    fn len(&self) -> usize {
        (**self).len()
    }

    fn for_each_raw(&self, indices: Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        (**self).for_each_raw(indices, each);
    }
}

impl RawEvents for EventLog {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn for_each_raw(&self, indices: Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        let end = indices.end.min(self.ends.len());
        for index in indices.start.min(end)..end {
            let start = if index == 0 { 0 } else { self.ends[index - 1] };
            each(Seq::from_index(index), &self.bytes[start..self.ends[index]]);
        }
    }
}

/// The raw bytes of every event of one stream, in arrival order. One buffer
/// and an end offset per event: a million events are two allocations, not a
/// million.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLog {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl EventLog {
    /// An empty log with room for `num_bytes` bytes and `num_events` events.
    pub fn with_capacity(num_bytes: usize, num_events: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(num_bytes),
            ends: Vec::with_capacity(num_events),
        }
    }

    /// The log of events packed in `bytes`, each ending at its offset in
    /// `ends` (in order, within `bytes`; the last may leave bytes after it,
    /// which belong to no event and are dropped).
    pub(crate) fn from_packed(mut bytes: Vec<u8>, ends: Vec<usize>) -> Self {
        debug_assert!(ends.is_sorted(), "the ends are in order");
        bytes.truncate(ends.last().copied().unwrap_or(0));
        Self { bytes, ends }
    }

    /// Makes room for `num_bytes` more bytes of events.
    pub fn reserve_bytes(&mut self, num_bytes: usize) {
        self.bytes.reserve(num_bytes);
    }

    /// Appends one event's raw bytes; returns its seq.
    pub fn push(&mut self, raw: &[u8]) -> Seq {
        self.bytes.extend_from_slice(raw);
        self.ends.push(self.bytes.len());
        Seq::from_index(self.ends.len() - 1)
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The total size of the events' raw bytes.
    pub fn num_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The raw bytes of the event at `seq` (from 1).
    pub fn get(&self, seq: Seq) -> Option<&[u8]> {
        let index = seq.index()?;
        let end = *self.ends.get(index)?;
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        Some(&self.bytes[start..end])
    }

    /// Every event with its seq, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Seq, &[u8])> + '_ {
        self.ends.iter().enumerate().map(move |(index, &end)| {
            let start = if index == 0 { 0 } else { self.ends[index - 1] };
            (Seq::from_index(index), &self.bytes[start..end])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_keep_their_bytes_and_seqs() {
        let mut log = EventLog::default();
        assert_eq!(log.push(b"{\"a\":1}"), Seq::new(1));
        assert_eq!(log.push(b""), Seq::new(2));
        assert_eq!(log.push(b"x"), Seq::new(3));
        assert_eq!(log.len(), 3);
        assert_eq!(log.get(Seq::new(1)), Some(&b"{\"a\":1}"[..]));
        assert_eq!(log.get(Seq::new(2)), Some(&b""[..]));
        assert_eq!(log.get(Seq::new(0)), None);
        assert_eq!(log.get(Seq::new(4)), None);
        let all: Vec<_> = log
            .iter()
            .map(|(seq, raw)| (seq.get(), raw.len()))
            .collect();
        assert_eq!(all, vec![(1, 7), (2, 0), (3, 1)]);
    }
}
