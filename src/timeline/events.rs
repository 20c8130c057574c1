//! A timeline's events: in memory, or read from the recording they are
//! stored in, block by block, when they are shown or replayed (issue 14,
//! point 3). Opening a recording then needs no event in memory before its
//! first frame.
//!
//! Timelines are cloned (a snapshot of one being indexed) and read from
//! several threads (a replay parses on two): the events read from a file
//! are shared, behind an [`Arc`], with one reader and one cache of blocks
//! behind a lock; each clone knows how many of them it holds.

use std::borrow::Cow;
use std::fmt;
use std::ops::{Deref, Range};
use std::sync::{Arc, Mutex};

use crate::diagnostic::Seq;
use crate::event_log::{EventLog, RawEvents};

/// Events per block read from a file.
pub const BLOCK_EVENTS: usize = 1024;

/// Blocks kept in memory: about 8 MB of typical events; a seek reads at
/// most about 4 blocks.
const CACHED_BLOCKS: usize = 32;

/// Where a file's events are read from, a block of consecutive events at a
/// time (a read-only connection to a recording).
pub trait BlockSource: Send {
    /// The events at 0-based `indices` (fewer when the file ends first).
    fn read(&mut self, indices: Range<usize>) -> Result<EventLog, String>;

    /// When each of the events at 0-based `indices` arrived, in
    /// nanoseconds from the stream's start.
    fn arrivals(&mut self, indices: Range<usize>) -> Result<Vec<u64>, String>;
}

/// A timeline's events.
#[derive(Clone, Debug)]
pub enum Events {
    /// In memory: the events a stream file holds, or a live recording's.
    Memory(EventLog),
    /// The first events of a recording, read from it when needed.
    File(FileEvents),
    /// The first events of another timeline, shared, then events of its
    /// own: a stream that equals a recording up to an edit (issue 41,
    /// [`super::Timeline::shared_prefix`]).
    Spliced(Spliced),
}

/// The first `shared_len` events of another timeline, then `own`.
#[derive(Clone, Debug)]
pub struct Spliced {
    shared: Arc<super::Timeline>,
    shared_len: usize,
    own: EventLog,
}

impl Spliced {
    /// The first `shared_len` events of `shared`, and none of its own yet.
    pub fn new(shared: Arc<super::Timeline>, shared_len: usize) -> Self {
        let shared_len = shared_len.min(shared.len());
        Self {
            shared,
            shared_len,
            own: EventLog::default(),
        }
    }

    fn len(&self) -> usize {
        self.shared_len + self.own.len()
    }

    fn get(&self, seq: Seq) -> Option<RawEvent<'_>> {
        let index = seq.index()?;
        match index.checked_sub(self.shared_len) {
            None => self.shared.events().get(seq),
            Some(own) => self.own.get(Seq::from_index(own)).map(RawEvent::Borrowed),
        }
    }

    fn for_each_raw(&self, indices: Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        let end = indices.end.min(self.len());
        let start = indices.start.min(end);
        if start < self.shared_len {
            let shared_end = end.min(self.shared_len);
            self.shared.events().for_each_raw(start..shared_end, each);
        }
        let own_start = start.max(self.shared_len) - self.shared_len;
        let own_end = end.saturating_sub(self.shared_len);
        if own_start < own_end {
            let shared_len = self.shared_len;
            self.own.for_each_raw(own_start..own_end, &mut |seq, raw| {
                each(Seq::from_index(shared_len + seq.index().unwrap_or(0)), raw);
            });
        }
    }
}

impl Default for Events {
    fn default() -> Self {
        Self::Memory(EventLog::default())
    }
}

impl From<EventLog> for Events {
    fn from(log: EventLog) -> Self {
        Self::Memory(log)
    }
}

impl From<FileEvents> for Events {
    fn from(events: FileEvents) -> Self {
        Self::File(events)
    }
}

/// One event's bytes: borrowed from memory, or from a block read from a
/// file (kept while the bytes are).
pub enum RawEvent<'a> {
    /// Bytes in memory.
    Borrowed(&'a [u8]),
    /// The event at an index of a block read from a file.
    Block(Arc<EventLog>, Seq),
}

impl Deref for RawEvent<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Self::Borrowed(bytes) => bytes,
            Self::Block(block, seq) => block.get(*seq).unwrap_or_default(),
        }
    }
}

impl AsRef<[u8]> for RawEvent<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Events {
    /// The number of events.
    pub fn len(&self) -> usize {
        match self {
            Self::Memory(log) => log.len(),
            Self::File(file) => file.len,
            Self::Spliced(spliced) => spliced.len(),
        }
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the events are read from a file.
    pub fn is_file(&self) -> bool {
        matches!(self, Self::File(_))
    }

    /// The bytes of the event at `seq` (from 1); `None` past the end, or
    /// when the file cannot be read ([`Self::read_error`] says why).
    pub fn get(&self, seq: Seq) -> Option<RawEvent<'_>> {
        match self {
            Self::Memory(log) => log.get(seq).map(RawEvent::Borrowed),
            Self::File(file) => file.get(seq),
            Self::Spliced(spliced) => spliced.get(seq),
        }
    }

    /// Adds the next event. In memory its bytes are kept; read from a file,
    /// `raw` is the file's next event, which is read again when needed.
    pub fn push(&mut self, raw: &[u8]) -> Seq {
        match self {
            Self::Memory(log) => log.push(raw),
            Self::Spliced(spliced) => {
                spliced.own.push(raw);
                Seq::from_index(spliced.len() - 1)
            }
            Self::File(file) => {
                file.len += 1;
                Seq::from_index(file.len - 1)
            }
        }
    }

    /// The events as one log: borrowed when in memory, read whole from the
    /// file otherwise (an export, which writes them all).
    pub fn to_log(&self) -> Cow<'_, EventLog> {
        match self {
            Self::Memory(log) => Cow::Borrowed(log),
            Self::File(file) => {
                let mut log = EventLog::default();
                file.for_each_raw(0..file.len, &mut |_, raw| {
                    log.push(raw);
                });
                Cow::Owned(log)
            }
            Self::Spliced(spliced) => {
                let mut log = EventLog::default();
                spliced.for_each_raw(0..spliced.len(), &mut |_, raw| {
                    log.push(raw);
                });
                Cow::Owned(log)
            }
        }
    }

    /// Why the file could not be read, the last time it failed.
    pub fn read_error(&self) -> Option<String> {
        match self {
            Self::Memory(_) => None,
            Self::File(file) => file.read_error(),
            Self::Spliced(spliced) => spliced.shared.events().read_error(),
        }
    }
}

impl RawEvents for Events {
    fn len(&self) -> usize {
        Events::len(self)
    }

    fn for_each_raw(&self, indices: Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        match self {
            Self::Memory(log) => log.for_each_raw(indices, each),
            Self::File(file) => file.for_each_raw(indices, each),
            Self::Spliced(spliced) => spliced.for_each_raw(indices, each),
        }
    }
}

/// The first [`Self::len`] events of a recording, read a block at a time
/// through a small cache shared by every clone.
#[derive(Clone)]
pub struct FileEvents {
    shared: Arc<Mutex<Blocks>>,
    len: usize,
}

impl fmt::Debug for FileEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileEvents")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// The reader and the blocks read last.
struct Blocks {
    source: Box<dyn BlockSource>,
    /// `(block number, its events, when last used)`.
    cached: Vec<(usize, Arc<EventLog>, u64)>,
    clock: u64,
    error: Option<String>,
}

impl Blocks {
    /// Block `number`, from the cache or the file.
    fn block(&mut self, number: usize) -> Option<Arc<EventLog>> {
        self.clock += 1;
        let clock = self.clock;
        if let Some(entry) = self.cached.iter_mut().find(|(n, _, _)| *n == number) {
            entry.2 = clock;
            return Some(Arc::clone(&entry.1));
        }
        let first = number * BLOCK_EVENTS;
        let block = match self.source.read(first..first + BLOCK_EVENTS) {
            Ok(block) => Arc::new(block),
            Err(error) => {
                self.error = Some(error);
                return None;
            }
        };
        if self.cached.len() >= CACHED_BLOCKS
            && let Some(oldest) = (0..self.cached.len()).min_by_key(|&i| self.cached[i].2)
        {
            self.cached.swap_remove(oldest);
        }
        self.cached.push((number, Arc::clone(&block), clock));
        Some(block)
    }
}

impl FileEvents {
    /// Events read from `source`, none of them counted yet ([`Events::push`]
    /// counts them as they are replayed).
    pub fn new(source: impl BlockSource + 'static) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Blocks {
                source: Box::new(source),
                cached: Vec::new(),
                clock: 0,
                error: None,
            })),
            len: 0,
        }
    }

    /// The same events, the first `len` of them counted.
    pub fn with_len(&self, len: usize) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            len,
        }
    }

    /// The number of events counted.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none is counted.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Why the file could not be read, the last time it failed.
    pub fn read_error(&self) -> Option<String> {
        self.lock().error.clone()
    }

    /// When each of the events at 0-based `indices` arrived (read from the
    /// file, not cached).
    pub fn arrivals(&self, indices: Range<usize>) -> Result<Vec<u64>, String> {
        let mut blocks = self.lock();
        let result = blocks.source.arrivals(indices);
        if let Err(error) = &result {
            blocks.error = Some(error.clone());
        }
        result
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Blocks> {
        // A reader that panicked leaves its cache as consistent as before.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, seq: Seq) -> Option<RawEvent<'static>> {
        let index = seq.index().filter(|&i| i < self.len)?;
        let block = self.lock().block(index / BLOCK_EVENTS)?;
        let within = Seq::from_index(index % BLOCK_EVENTS);
        block.get(within)?;
        Some(RawEvent::Block(block, within))
    }
}

impl RawEvents for FileEvents {
    fn len(&self) -> usize {
        self.len
    }

    fn for_each_raw(&self, indices: Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        let end = indices.end.min(self.len);
        let mut index = indices.start.min(end);
        while index < end {
            let number = index / BLOCK_EVENTS;
            let Some(block) = self.lock().block(number) else {
                return;
            };
            let first = number * BLOCK_EVENTS;
            let block_end = end.min(first + BLOCK_EVENTS);
            for i in index..block_end {
                match block.get(Seq::from_index(i - first)) {
                    Some(raw) => each(Seq::from_index(i), raw),
                    None => return,
                }
            }
            index = block_end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source in memory that counts its reads.
    struct Counting {
        log: EventLog,
        reads: Arc<Mutex<usize>>,
    }

    impl BlockSource for Counting {
        fn read(&mut self, indices: Range<usize>) -> Result<EventLog, String> {
            *self.reads.lock().unwrap() += 1;
            let mut block = EventLog::default();
            self.log.for_each_raw(indices, &mut |_, raw| {
                block.push(raw);
            });
            Ok(block)
        }

        fn arrivals(&mut self, indices: Range<usize>) -> Result<Vec<u64>, String> {
            Ok(indices.map(|i| i as u64).collect())
        }
    }

    #[test]
    fn file_events_read_blocks_once_and_equal_memory() {
        let mut log = EventLog::default();
        for i in 0..(BLOCK_EVENTS * 3 + 5) {
            log.push(format!("event {i}").as_bytes());
        }
        let reads = Arc::new(Mutex::new(0));
        let file = FileEvents::new(Counting {
            log: log.clone(),
            reads: Arc::clone(&reads),
        });
        let events = Events::File(file.with_len(log.len()));
        for (seq, raw) in log.iter() {
            assert_eq!(&*events.get(seq).expect("in the file"), raw);
        }
        assert_eq!(*reads.lock().unwrap(), 4, "one read per block");
        let mut all = Vec::new();
        events.for_each_raw(BLOCK_EVENTS - 2..BLOCK_EVENTS + 2, &mut |seq, raw| {
            all.push((seq.get(), raw.to_vec()));
        });
        assert_eq!(all.len(), 4);
        assert_eq!(
            all[0],
            (
                BLOCK_EVENTS as u64 - 1,
                log.get(Seq::from_index(BLOCK_EVENTS - 2)).unwrap().to_vec()
            )
        );
        assert_eq!(*events.to_log(), log);
        // Only the events counted are there.
        let fewer = Events::File(file.with_len(10));
        assert!(fewer.get(Seq::new(11)).is_none());
        assert_eq!(fewer.to_log().len(), 10);
    }
}
