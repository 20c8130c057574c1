//! A timeline's derived data as a recording stores it (issue 14): the
//! checkpoints, the state at the last event with every diagnostic and
//! effect, the per-activity lanes, the diagnostic steps and the event kinds
//! (the density histogram), in one compact blob ([`crate::replay::codec`]).
//!
//! [`Timeline::encode_index`] writes it; [`Timeline::from_stored_index`]
//! rebuilds the timeline from it and the events without replaying, after
//! checking it against them: a blob of another format, a checkpoint
//! policy of no engine it believes, other options, another number of
//! events or damaged in any way (checksums cover it whole) is refused with
//! a reason, and the caller replays.
//!
//! The blob (format 11, [`IndexEncoder`]) is the checkpoints (each body,
//! with the drift tracking's layer of its own, then each message list,
//! each under a checksum of its own), a *front* (what the first frame
//! needs: the messages and the drift tracking's layers checkpoints share,
//! each stored once, the state at the last event with every
//! diagnostic and effect, the lanes and kinds, the arrival times and where
//! each checkpoint is, under one checksum) and a trailer of fixed size.
//! The checkpoints come first so that a writer stores each as it is made
//! (issue 40: an import in bounded memory). A recording stores the blob in
//! pieces ([`StoredPieces`]): opening reads the trailer, then the last
//! pieces (the front's), into one buffer, and decodes the front's parts on
//! both cores; the checkpoints' pieces are read in the background, or by
//! the first seek that needs one before that, and each checkpoint is
//! decoded (and its checksums checked) when a seek needs it (the last few
//! kept). A message is decoded once, the first
//! time a state needs it, then shared by every state that refers to it. A
//! checkpoint's message list is stored as the changes from the last
//! state's (which the front holds whole) when it is that list's first
//! messages with some replaced, and whole otherwise (a snapshot removed
//! or reordered messages since): decoding it then costs the changes, not
//! the list's length (issue 14: at 10,000,000 events, rebuilding each
//! checkpoint's list and id index was most of a seek).

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::{CheckpointPolicy, Checkpoints, Events, StreamIndex, Timeline};
use crate::diagnostic::Seq;
use crate::replay::codec::{
    DecodeError, Decoded, Decoder, Encoder, LazyMessages, MessageTable, Shared,
};
use crate::replay::{FrozenReplay, Options, Replayer};

/// The version of the blob's layout. Bump it whenever the encoding
/// changes: an index of another version is never believed. Format 4
/// (issue 14): the front first, the checkpoints after it, each checkpoint
/// under its own checksum. Format 5: a checkpoint's message list stored
/// as the changes from the last state's, and the drift tracking's layers
/// stored once, in the front, beside the messages. Format 6: the same
/// layout, but a checkpoint's emptied activities weigh nothing (thawing
/// weighs each content it puts back) and are shared between checkpoints,
/// and its drift tracking's recent keys are one more layer (issue 14).
/// This build reads format 5 as well (thawing weighs the content either
/// way); a build that knows only format 5 would take the weight of an
/// emptied activity for its content's, so it refuses format 6. Format 7
/// (issue 39): what is open holds a chunk lane per owner and the starts
/// E4 skipped; formats 5 and 6 are no longer read. Format 8 (issue 38):
/// a checkpoint holds the long text of a message being streamed as the
/// first pieces of a text log, the logs stored once, after the drift
/// layers; format 7 is no longer read. Format 9 (issue 43): the index
/// holds the lanes of runs, steps, messages and tool calls; format 8 is no
/// longer read. Format 10 (issue 40): the checkpoints first, each encoded
/// as it is made, their message lists after them, then the front and a
/// trailer ([`IndexEncoder`]); format 9 is no longer read. Format 11
/// (issue 40): a checkpoint's own newest drift layer is stored with it,
/// not in the table of shared layers; format 10 is no longer read.
pub const INDEX_FORMAT_VERSION: i64 = 11;

/// The version of what the replay computes (its rules, diagnostics,
/// checkpoint policy) as far as a stored index holds it. Bump it by hand
/// whenever the replay of a stream can give another result: an index
/// written by another engine version is not believed. The test
/// `the_encoded_index_of_a_fixed_stream_changes_only_with_the_engine_version`
/// fails when the index of a fixed stream changes while this stays.
pub const REPLAY_ENGINE_VERSION: u32 = 11;

/// The engine that wrote an index, stored beside it: the crate's version
/// and [`REPLAY_ENGINE_VERSION`]. An index written by another is not
/// believed, but for [`index_is_readable`]'s exceptions.
pub fn index_engine() -> String {
    engine_named(REPLAY_ENGINE_VERSION)
}

fn engine_named(version: u32) -> String {
    format!("agui-replay {} engine {version}", env!("CARGO_PKG_VERSION"))
}

/// The (format, engine version) pairs of the indexes this build believes:
/// its own only. Engine 8 (issue 39) replays id collisions and the client's
/// chunk lanes otherwise, and format 7 stores what is open otherwise, so
/// the indexes of formats 5 and 6 (engines 5 to 7) are rebuilt; format 8
/// (issue 38) stores long texts otherwise, so format 7 is rebuilt too;
/// format 9 (issue 43) stores the entities' lanes, so format 8 is too;
/// format 10 (issue 40) is laid out otherwise, so format 9 is too; and
/// format 11 (issue 40) stores drift layers otherwise, so format 10 is too.
const READABLE_INDEXES: [(i64, u32); 1] = [(INDEX_FORMAT_VERSION, REPLAY_ENGINE_VERSION)];

/// The checkpoint policies of the indexes this build believes: its own,
/// and that of engines 5 and 6, whose checkpoints were 256 KiB apart
/// (issue 14). A timeline rebuilt from an index keeps the index's policy,
/// for seeks and for the events appended after.
const READABLE_POLICIES: [CheckpointPolicy; 2] = [
    CheckpointPolicy::DEFAULT,
    CheckpointPolicy {
        max_cost: 256 * 1024,
        op_cost: 48,
    },
];

/// Whether this build believes an index of `format_version` written by
/// `engine` ([`READABLE_INDEXES`]).
pub fn index_is_readable(format_version: i64, engine: &str) -> bool {
    READABLE_INDEXES
        .iter()
        .any(|&(format, version)| format == format_version && engine == engine_named(version))
}

/// The first bytes of a stored index.
const MAGIC: &[u8; 4] = b"AGTI";

/// Decoded checkpoints kept for the next seeks (scrubbing stays near one).
const RECENT_CHECKPOINTS: usize = 4;

/// A checksum of some of the index's bytes: any damaged byte changes it
/// (each word goes through a bijection of its lane), so a damaged index is
/// refused before anything is decoded from it lazily.
fn checksum(bytes: &[u8]) -> u64 {
    let mut sum = Checksum::default();
    sum.update(bytes);
    sum.finish()
}

/// [`checksum`] of bytes given in parts (issue 40: the front's parts are
/// stored without being joined): the same as the checksum of the parts
/// joined.
struct Checksum {
    lanes: [u64; 4],
    /// The bytes of a word group not complete yet.
    carry: [u8; 32],
    carried: usize,
    len: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Self {
            lanes: [
                0x243f_6a88_85a3_08d3,
                0x1319_8a2e_0370_7344,
                0xa409_3822_299f_31d0,
                0x082e_fa98_ec4e_6c89,
            ],
            carry: [0; 32],
            carried: 0,
            len: 0,
        }
    }
}

impl Checksum {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    fn mix(lane: u64, word: u64) -> u64 {
        (lane ^ word).wrapping_mul(Self::K).rotate_left(29)
    }

    fn words(&mut self, chunk: &[u8]) {
        for (lane, word) in self.lanes.iter_mut().zip(chunk.chunks_exact(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            *lane = Self::mix(*lane, u64::from_le_bytes(w));
        }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.carried > 0 {
            let n = (32 - self.carried).min(bytes.len());
            self.carry[self.carried..self.carried + n].copy_from_slice(&bytes[..n]);
            self.carried += n;
            bytes = &bytes[n..];
            if self.carried < 32 {
                return;
            }
            let carry = self.carry;
            self.words(&carry);
            self.carried = 0;
        }
        let mut chunks = bytes.chunks_exact(32);
        for chunk in &mut chunks {
            self.words(chunk);
        }
        let rest = chunks.remainder();
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carried = rest.len();
    }

    fn finish(mut self) -> u64 {
        for i in 0..self.carried {
            self.lanes[i % 4] = Self::mix(self.lanes[i % 4], u64::from(self.carry[i]) | 0x100);
        }
        let mut h = self.len;
        for lane in self.lanes {
            h = Self::mix(h, lane);
        }
        h
    }
}

/// Where the pieces of a stored index are read from (issue 14): a
/// recording stores an index in pieces of at most a few MiB, because
/// SQLite cannot hold a value of a gigabyte (10,000,000 events).
pub trait IndexPieces: Send {
    /// Reads bytes `at..at + out.len()` of piece `piece` (0-based) into
    /// `out`, straight into the reader's buffer.
    fn read(&mut self, piece: usize, at: usize, out: &mut [u8]) -> Result<(), String>;

    /// The whole index at once, when it is one buffer in memory already
    /// (taken, not copied).
    fn take_whole(&mut self) -> Option<Vec<u8>> {
        None
    }

    /// Another source of the same pieces (its own connection to the
    /// file), so that two threads read the front at once (issue 14);
    /// `None` when there is no such thing.
    fn another(&self) -> Option<Box<dyn IndexPieces>> {
        None
    }
}

/// A whole blob in memory, as one piece.
struct WholeBlob(Vec<u8>);

impl IndexPieces for WholeBlob {
    fn read(&mut self, piece: usize, at: usize, out: &mut [u8]) -> Result<(), String> {
        let bytes = (piece == 0)
            .then(|| self.0.get(at..at.saturating_add(out.len())))
            .flatten()
            .ok_or_else(|| format!("a whole blob has no bytes {at}.. in piece {piece}"))?;
        out.copy_from_slice(bytes);
        Ok(())
    }

    fn take_whole(&mut self) -> Option<Vec<u8>> {
        Some(std::mem::take(&mut self.0))
    }
}

/// A stored index as its pieces: where they are read from, and their
/// sizes (every piece `piece_bytes` long, the last one at most that).
pub struct StoredPieces {
    source: Box<dyn IndexPieces>,
    piece_bytes: usize,
    num_bytes: usize,
}

impl std::fmt::Debug for StoredPieces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredPieces")
            .field("piece_bytes", &self.piece_bytes)
            .field("num_bytes", &self.num_bytes)
            .finish_non_exhaustive()
    }
}

impl StoredPieces {
    /// The pieces of an index of `num_bytes` bytes, each `piece_bytes`
    /// long but the last, read from `source`; `None` when no such split
    /// exists (no byte, or pieces of no size).
    pub fn new(source: Box<dyn IndexPieces>, piece_bytes: usize, num_bytes: usize) -> Option<Self> {
        (piece_bytes > 0 && num_bytes > 0).then_some(Self {
            source,
            piece_bytes,
            num_bytes,
        })
    }

    /// A whole blob in memory, as one piece.
    pub fn whole(blob: Vec<u8>) -> Self {
        let num_bytes = blob.len();
        Self {
            source: Box::new(WholeBlob(blob)),
            piece_bytes: num_bytes.max(1),
            num_bytes,
        }
    }

    /// How many pieces there are.
    pub fn num_pieces(&self) -> usize {
        self.num_bytes.div_ceil(self.piece_bytes)
    }

    /// Reads every piece into one buffer: the whole index.
    pub fn read_all(mut self) -> Decoded<Vec<u8>> {
        if let Some(whole) = self.source.take_whole() {
            return Ok(whole);
        }
        let mut all = vec![0u8; self.num_bytes];
        for (piece, out) in all.chunks_mut(self.piece_bytes).enumerate() {
            self.source
                .read(piece, 0, out)
                .map_err(|reason| DecodeError::Unreadable { piece, reason })?;
        }
        Ok(all)
    }

    /// Bytes `start..end` of the index, from whichever pieces hold them.
    fn read_range(&mut self, start: usize, end: usize) -> Decoded<Vec<u8>> {
        let mut out = vec![0u8; end.saturating_sub(start)];
        let mut at = start;
        let mut filled = 0;
        while filled < out.len() {
            let piece = at / self.piece_bytes;
            let within = at % self.piece_bytes;
            let n = (self.len_of(piece).saturating_sub(within)).min(out.len() - filled);
            if n == 0 {
                return Err(DecodeError::EndsEarly("the index ends before its trailer"));
            }
            self.source
                .read(piece, within, &mut out[filled..filled + n])
                .map_err(|reason| DecodeError::Unreadable { piece, reason })?;
            filled += n;
            at += n;
        }
        Ok(out)
    }

    /// The size of piece `piece`.
    fn len_of(&self, piece: usize) -> usize {
        let start = piece.saturating_mul(self.piece_bytes);
        self.num_bytes.saturating_sub(start).min(self.piece_bytes)
    }
}

/// The bytes of a stored index: the last pieces, read when it was opened
/// (those holding the front, in one buffer), and the others (the
/// checkpoints), read when first needed.
struct IndexBytes {
    /// Pieces `first..` (whole), one after the other.
    tail: Vec<u8>,
    first: usize,
    /// Where the front is in `tail`.
    front_start: usize,
    front_end: usize,
    piece_bytes: usize,
    num_bytes: usize,
    /// Pieces `..first`, each read once.
    later: Vec<OnceLock<Vec<u8>>>,
    source: Mutex<Box<dyn IndexPieces>>,
}

impl IndexBytes {
    /// Reads the pieces from `first` on into one buffer (allocated once,
    /// each piece read straight into it); the front is bytes `front` of
    /// the index.
    fn read_tail(
        pieces: StoredPieces,
        first: usize,
        front: std::ops::Range<usize>,
    ) -> Decoded<Self> {
        let StoredPieces {
            mut source,
            piece_bytes,
            num_bytes,
        } = pieces;
        let (tail, first) = match source.take_whole() {
            Some(whole) => (whole, 0),
            None => {
                let base = first.saturating_mul(piece_bytes).min(num_bytes);
                let mut tail = vec![0u8; num_bytes - base];
                let read = |source: &mut dyn IndexPieces, from: usize, out: &mut [u8]| {
                    for (i, out) in out.chunks_mut(piece_bytes).enumerate() {
                        let piece = from + i;
                        source
                            .read(piece, 0, out)
                            .map_err(|reason| DecodeError::Unreadable { piece, reason })?;
                    }
                    Ok::<_, DecodeError>(())
                };
                // The second half on another thread through a source of
                // its own, when there is one (issue 14: 168 MB at 10M).
                let count = tail.len().div_ceil(piece_bytes);
                let half = count / 2;
                match source.another().filter(|_| half > 0) {
                    Some(mut other) => {
                        let (start, end) = tail.split_at_mut(half * piece_bytes);
                        std::thread::scope(|scope| {
                            let second = scope.spawn(|| read(&mut *other, first + half, end));
                            let first_half = read(&mut *source, first, start);
                            let second = second.join().unwrap_or(Err(DecodeError::Missing(
                                "the index's pieces could not be read",
                            )));
                            first_half.and(second)
                        })?;
                    }
                    None => read(&mut *source, first, &mut tail)?,
                }
                (tail, first)
            }
        };
        let base = first * piece_bytes;
        if base + tail.len() != num_bytes || front.start < base || front.end > num_bytes {
            return Err(DecodeError::Missing("the index is not of its size"));
        }
        Ok(Self {
            tail,
            first,
            front_start: front.start - base,
            front_end: front.end - base,
            piece_bytes,
            num_bytes,
            later: (0..first).map(|_| OnceLock::new()).collect(),
            source: Mutex::new(source),
        })
    }

    /// The front.
    fn front(&self) -> &[u8] {
        &self.tail[self.front_start..self.front_end]
    }

    /// Piece `piece` (one before the tail), read on first use.
    fn later_piece(&self, piece: usize) -> Decoded<&[u8]> {
        let Some(cell) = self.later.get(piece) else {
            return Err(DecodeError::Missing("the index has no such piece"));
        };
        if let Some(bytes) = cell.get() {
            return Ok(bytes);
        }
        let mut source = self.source.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bytes) = cell.get() {
            return Ok(bytes);
        }
        self.read_later_piece(piece, cell, &mut **source)
    }

    /// Reads piece `piece` from `source` into its cell, unless another
    /// thread did meanwhile.
    fn read_later_piece<'s>(
        &'s self,
        piece: usize,
        cell: &'s OnceLock<Vec<u8>>,
        source: &mut dyn IndexPieces,
    ) -> Decoded<&'s [u8]> {
        let start = piece * self.piece_bytes;
        let mut bytes = vec![0u8; self.piece_bytes.min(self.num_bytes - start)];
        source
            .read(piece, 0, &mut bytes)
            .map_err(|reason| DecodeError::Unreadable { piece, reason })?;
        Ok(cell.get_or_init(|| bytes))
    }

    /// Reads piece `piece` (one before the tail) from `source`, a source
    /// of the background thread's own, unless it was read already: a seek
    /// that needs a piece meanwhile reads it through [`Self::later_piece`]
    /// without waiting for this one (issue 14).
    fn read_in_the_background(&self, piece: usize, source: &mut dyn IndexPieces) -> Decoded<()> {
        let Some(cell) = self.later.get(piece) else {
            return Err(DecodeError::Missing("the index has no such piece"));
        };
        if cell.get().is_none() {
            self.read_later_piece(piece, cell, source)?;
        }
        Ok(())
    }

    /// Bytes `start..end` of the index, from whichever pieces hold them.
    fn range(&self, start: usize, end: usize) -> Decoded<Cow<'_, [u8]>> {
        if start > end || end > self.num_bytes {
            return Err(DecodeError::Missing("a range past the index's end"));
        }
        let base = self.first * self.piece_bytes;
        if start >= base {
            return Ok(Cow::Borrowed(&self.tail[start - base..end - base]));
        }
        let first = start / self.piece_bytes;
        let last = (end.max(start + 1) - 1) / self.piece_bytes;
        let piece_of = |piece: usize| -> Decoded<&[u8]> {
            if piece < self.first {
                self.later_piece(piece)
            } else {
                let at = piece * self.piece_bytes - base;
                Ok(&self.tail[at..self.tail.len().min(at + self.piece_bytes)])
            }
        };
        if first == last {
            let at = first * self.piece_bytes;
            let piece = piece_of(first)?;
            return piece
                .get(start - at..end - at)
                .map(Cow::Borrowed)
                .ok_or(DecodeError::Missing("a range past a piece's end"));
        }
        let mut out = Vec::with_capacity(end - start);
        for piece in first..=last {
            let at = piece * self.piece_bytes;
            let bytes = piece_of(piece)?;
            let from = start.saturating_sub(at).min(bytes.len());
            let to = (end - at).min(bytes.len());
            out.extend_from_slice(&bytes[from..to]);
        }
        Ok(Cow::Owned(out))
    }
}

/// One checkpoint in the index's directory.
#[derive(Clone, Copy, Debug)]
struct Entry {
    step: Seq,
    /// Where its body is in the index, and its checksum.
    body: (usize, usize),
    body_sum: u64,
    /// Where its message list is, and its checksum.
    list: (usize, usize),
    list_sum: u64,
}

/// The checkpoints of a stored index, kept encoded (issue 14): each is
/// decoded when a seek needs it.
pub(super) struct StoredCheckpoints {
    bytes: IndexBytes,
    messages: LazyMessages,
    /// The last state's messages, which each checkpoint's are stored
    /// against (a shared copy).
    head: crate::replay::Conversation,
    entries: Vec<Entry>,
    /// The first (step 0), decoded: a seek always has one to start from.
    first: Arc<FrozenReplay>,
    options: Options,
    /// The last checkpoints decoded, the most recent last.
    recent: Mutex<Vec<(usize, Arc<FrozenReplay>)>>,
}

impl std::fmt::Debug for StoredCheckpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredCheckpoints")
            .field("bytes", &self.bytes.num_bytes)
            .field("front_bytes", &self.bytes.front().len())
            .field("checkpoints", &self.entries.len())
            .field("messages", &self.messages.len())
            .finish_non_exhaustive()
    }
}

/// Decodes one checkpoint from its bytes, checking its checksum and that
/// it is what the directory says.
fn decode_checkpoint(
    bytes: &IndexBytes,
    messages: &LazyMessages,
    head: &crate::replay::Conversation,
    entry: Entry,
    options: Options,
) -> Decoded<FrozenReplay> {
    let damaged =
        || DecodeError::Damaged("a checkpoint in the index is damaged (its checksum differs)");
    let body = bytes.range(entry.body.0, entry.body.1)?;
    if checksum(&body) != entry.body_sum {
        return Err(damaged());
    }
    let list = bytes.range(entry.list.0, entry.list.1)?;
    if checksum(&list) != entry.list_sum {
        return Err(damaged());
    }
    let d = &mut Decoder::new(&body);
    let list_d = &mut Decoder::new(&list);
    let shared = Shared {
        tables: messages,
        blob: bytes.front(),
        head: Some(head),
    };
    let checkpoint = FrozenReplay::decode(d, list_d, shared)?;
    if !list_d.at_end() {
        return Err(DecodeError::Malformed(
            "a checkpoint's message list in the index has bytes after its end",
        ));
    }
    if !d.at_end() || checkpoint.step() != entry.step || checkpoint.options() != options {
        return Err(DecodeError::Malformed(
            "a checkpoint in the index is not what its directory says",
        ));
    }
    Ok(checkpoint)
}

impl StoredCheckpoints {
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn step(&self, i: usize) -> Seq {
        self.entries.get(i).map_or(Seq::START, |e| e.step)
    }

    /// The number of checkpoints at or before `step`.
    pub(super) fn partition_point(&self, step: Seq) -> usize {
        self.entries.partition_point(|e| e.step <= step)
    }

    /// Decodes checkpoint `i`.
    fn decode(&self, i: usize) -> Decoded<FrozenReplay> {
        let Some(&entry) = self.entries.get(i) else {
            return Err(DecodeError::Missing("no such checkpoint"));
        };
        decode_checkpoint(&self.bytes, &self.messages, &self.head, entry, self.options)
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
            super::drop_in_background(recent.remove(0));
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

    /// Reads the pieces not read yet, one at a time, while the timeline
    /// is kept (a seek that needs one first reads it itself).
    fn read_the_rest_in_the_background(stored: &Arc<Self>) {
        if stored.bytes.later.is_empty() {
            return;
        }
        let weak: Weak<Self> = Arc::downgrade(stored);
        let count = stored.bytes.later.len();
        // A source of its own, when there is one: a seek that needs a
        // piece then never waits behind this thread's reads (issue 14).
        let own = stored
            .bytes
            .source
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .another();
        let _ = std::thread::Builder::new()
            .name("index-pieces".into())
            .spawn(move || {
                let mut own = own;
                for piece in 0..count {
                    let Some(stored) = weak.upgrade() else { return };
                    let read = match own.as_deref_mut() {
                        Some(source) => stored.bytes.read_in_the_background(piece, source),
                        None => stored.bytes.later_piece(piece).map(|_| ()),
                    };
                    if read.is_err() {
                        return;
                    }
                }
            });
    }
}

/// Arrival times as an index stores them, encoded as they come (issue 40:
/// an import keeps them so, a few bytes each, not eight): the tag of times
/// present, then zigzag deltas ([`encode_arrivals`]).
#[derive(Debug)]
pub struct ArrivalTimes {
    encoded: Encoder,
    last: u64,
    count: u64,
}

impl Default for ArrivalTimes {
    fn default() -> Self {
        Self {
            encoded: Encoder { buf: vec![1] },
            last: 0,
            count: 0,
        }
    }
}

impl ArrivalTimes {
    /// The times of `arrivals`.
    pub fn of(arrivals: &[u64]) -> Self {
        let mut times = Self::default();
        times.extend(arrivals);
        times
    }

    /// Adds the next times.
    pub fn extend(&mut self, arrivals: &[u64]) {
        for &arrival in arrivals {
            // Zigzag deltas: recorded times may go backwards.
            let delta = arrival.wrapping_sub(self.last) as i64;
            self.encoded.u64(((delta << 1) ^ (delta >> 63)) as u64);
            self.last = arrival;
        }
        self.count += arrivals.len() as u64;
    }

    /// How many times there are.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The arrival times as stored: a tag (0: none, 1: zigzag deltas), then
/// the deltas.
fn encode_arrivals(arrivals: Option<ArrivalTimes>) -> Vec<u8> {
    match arrivals {
        Some(times) => times.encoded.buf,
        None => vec![0],
    }
}

/// Decodes what [`encode_arrivals`] wrote, `n` times.
fn decode_arrivals(bytes: &[u8], n: u64) -> Decoded<Option<Vec<u64>>> {
    let d = &mut Decoder::new(bytes);
    let arrivals = match d.u8()? {
        0 => None,
        1 => {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if n > d.remaining() {
                return Err(DecodeError::Mismatch(
                    "the index's arrival times do not cover the stream",
                ));
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
        _ => {
            return Err(DecodeError::Unknown(
                "the index's arrival times are of an unknown kind",
            ));
        }
    };
    if !d.at_end() {
        return Err(DecodeError::Malformed(
            "the index's arrival times have bytes after their end",
        ));
    }
    Ok(arrivals)
}

/// The most bytes the trailer takes: eight numbers and the magic.
const TRAILER_BYTES: usize = 8 * 8 + 4;

/// Where an [`IndexEncoder`] hands its pieces out.
pub type PieceSink = Box<dyn FnMut(Vec<u8>) + Send>;

/// One checkpoint's message list, as the changes since the checkpoint
/// before: its length, and the messages (their numbers in the table) at
/// the positions that changed or were added.
struct ListChanges {
    len: usize,
    changed: Vec<(usize, usize)>,
}

/// Encodes a timeline's index as its checkpoints are made (issue 40: an
/// import in bounded memory). Each checkpoint's body (all but its message
/// list) goes into the *region* at once, and the region is handed out a
/// piece at a time to be stored; what is kept of a checkpoint is its step,
/// its checksum and its list's changes since the one before. At the end
/// ([`Self::finish`]), once the last state is known, each list is stored
/// against that state's (or whole), after the bodies, and the front and
/// the trailer follow.
///
/// The blob (format 11): the region (the checkpoints' bodies, then their
/// lists), the front (the message table, the last state, the lanes and
/// kinds, the arrival times, and the directory: each checkpoint's step,
/// and its body's and list's lengths and checksums), and a trailer of
/// fixed size (the format, the checkpoint policy, the cost since the last
/// checkpoint, the last step, the region's and the front's lengths, the
/// front's checksum, the magic).
pub struct IndexEncoder {
    table: MessageTable,
    /// The region's bytes not handed out yet.
    region: Vec<u8>,
    /// Where a checkpoint's body is encoded before it goes into the
    /// region, so that each piece handed out is allocated at its size.
    scratch: Encoder,
    /// The region's bytes handed out before `region`.
    handed_out: usize,
    /// Where whole pieces go, and their size; `None`: all is kept, for
    /// [`Self::finish`] to return.
    out: Option<(usize, PieceSink)>,
    /// Each checkpoint's step, body length and checksum.
    bodies: Vec<(Seq, usize, u64)>,
    lists: Vec<ListChanges>,
    /// The last checkpoint's list.
    last: Option<crate::replay::Conversation>,
    /// The id (numbered in `id_numbers`) of each message of the table.
    ids: Vec<u32>,
    id_numbers: rustc_hash::FxHashMap<Box<str>, u32>,
    /// The first error: nothing more is encoded, and nothing is stored.
    error: Option<DecodeError>,
    /// Checkpoints pushed since the table last forgot what was dropped.
    since_forgetting: usize,
}

/// How many checkpoints an [`IndexEncoder`] pushes between two times its
/// table forgets what was dropped (each time costs the table's entries).
const FORGET_EVERY: usize = 8;

impl std::fmt::Debug for IndexEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexEncoder")
            .field("checkpoints", &self.bodies.len())
            .field("region_bytes", &(self.handed_out + self.region.len()))
            .finish_non_exhaustive()
    }
}

impl IndexEncoder {
    /// An encoder that keeps every byte until [`Self::finish`].
    pub fn keeping_all() -> Self {
        Self {
            table: MessageTable::default(),
            region: Vec::new(),
            scratch: Encoder::default(),
            handed_out: 0,
            out: None,
            bodies: Vec::new(),
            lists: Vec::new(),
            last: None,
            ids: Vec::new(),
            id_numbers: rustc_hash::FxHashMap::default(),
            error: None,
            since_forgetting: 0,
        }
    }

    /// An encoder that hands the region out to `out` in pieces of
    /// `piece_bytes` as they fill (the first piece first); [`Self::finish`]
    /// returns the rest.
    pub fn handing_out(piece_bytes: usize, out: PieceSink) -> Self {
        Self {
            out: Some((piece_bytes.max(1), out)),
            ..Self::keeping_all()
        }
    }

    /// The number of `message` in the table, its id noted.
    fn number(&mut self, message: &Arc<crate::replay::Message>) -> Decoded<usize> {
        let n = self.table.number(message)?;
        if n == self.ids.len() {
            let next = self.id_numbers.len() as u32;
            let id = *self
                .id_numbers
                .entry(Box::from(message.id()))
                .or_insert(next);
            self.ids.push(id);
        }
        Ok(n)
    }

    /// Encodes the next checkpoint (the first at step 0).
    pub fn push(&mut self, checkpoint: &FrozenReplay) {
        if self.error.is_some() {
            return;
        }
        if let Err(error) = self.push_checked(checkpoint) {
            self.error = Some(error);
        }
    }

    fn push_checked(&mut self, checkpoint: &FrozenReplay) -> Decoded<()> {
        self.scratch.buf.clear();
        checkpoint.encode_body(&mut self.scratch, &mut self.table)?;
        let body = std::mem::take(&mut self.scratch.buf);
        self.bodies
            .push((checkpoint.step(), body.len(), checksum(&body)));
        self.append_to_region(&body);
        self.scratch.buf = body;
        let list = checkpoint.conversation();
        let positions = match &self.last {
            Some(last) => list.changed_since(last),
            None => (0..list.len()).collect(),
        };
        let mut changed = Vec::with_capacity(positions.len());
        for i in positions {
            let Some(message) = list.shared_at(i) else {
                return Err(DecodeError::Malformed(
                    "a changed message is past the list's end",
                ));
            };
            changed.push((i, self.number(message)?));
        }
        self.lists.push(ListChanges {
            len: list.len(),
            changed,
        });
        self.last = Some(list.clone());
        self.since_forgetting += 1;
        if self.since_forgetting == FORGET_EVERY {
            self.since_forgetting = 0;
            self.table.forget_dropped();
        }
        Ok(())
    }

    /// Appends `bytes` to the region, handing out each piece it fills.
    fn append_to_region(&mut self, mut bytes: &[u8]) {
        let Some((piece_bytes, out)) = &mut self.out else {
            self.region.extend_from_slice(bytes);
            return;
        };
        while !bytes.is_empty() {
            if self.region.capacity() == 0 {
                self.region.reserve_exact(*piece_bytes);
            }
            let n = (*piece_bytes - self.region.len()).min(bytes.len());
            self.region.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.region.len() == *piece_bytes {
                out(std::mem::take(&mut self.region));
                self.handed_out += *piece_bytes;
            }
        }
    }

    /// The region's bytes handed out so far.
    pub fn handed_out(&self) -> usize {
        self.handed_out
    }

    /// The pieces handed out so far (none when all is kept).
    pub fn pieces_handed_out(&self) -> usize {
        self.out
            .as_ref()
            .map_or(0, |(piece_bytes, _)| self.handed_out / piece_bytes)
    }

    /// Ends the index of `timeline`, whose checkpoints were all pushed,
    /// with the events' arrival times when known (times of another count
    /// are left out): the parts of the blob not handed out, whose
    /// concatenation follows the pieces handed out. An error when a value
    /// is nested too deeply to be read back.
    pub fn finish(
        mut self,
        timeline: &Timeline,
        arrivals: Option<ArrivalTimes>,
    ) -> Result<Vec<Vec<u8>>, DecodeError> {
        let mut index = Encoder::default();
        timeline.index.encode(&mut index);
        let head = self.encode_head(&timeline.head)?;
        self.finish_with(End {
            head,
            index: index.buf,
            policy: timeline.policy,
            cost_since_checkpoint: timeline.cost_since_checkpoint,
            arrivals,
        })
    }

    /// [`Self::finish`] taking the timeline, which goes as soon as what is
    /// left to encode no longer needs it (issue 40: an import's peak is
    /// at its end, while the last state is encoded beside its lanes).
    pub fn finish_taking(
        mut self,
        timeline: Timeline,
        arrivals: Option<ArrivalTimes>,
    ) -> Result<Vec<Vec<u8>>, DecodeError> {
        let mut index = Encoder::default();
        timeline.index.encode(&mut index);
        let Timeline {
            events,
            head,
            checkpoints,
            policy,
            cost_since_checkpoint,
            next_checkpoint_cost: _,
            freeze_cache,
            index: lanes,
        } = timeline;
        // Dropped now, not when this returns.
        drop((events, checkpoints, freeze_cache, lanes));
        let encoded_head = self.encode_head(&head)?;
        drop(head);
        self.finish_with(End {
            head: encoded_head,
            index: index.buf,
            policy,
            cost_since_checkpoint,
            arrivals,
        })
    }

    /// The last state encoded, with its list's messages' numbers.
    fn encode_head(&mut self, head: &Replayer) -> Decoded<EncodedHead> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let mut encoded = Encoder::default();
        head.encode(&mut encoded, &mut self.table)?;
        let mut list = Vec::with_capacity(head.conversation().len());
        for message in head.conversation().shared() {
            list.push(self.number(message)?);
        }
        Ok(EncodedHead {
            bytes: encoded.buf,
            list,
            step: head.step(),
        })
    }

    fn finish_with(mut self, end: End) -> Result<Vec<Vec<u8>>, DecodeError> {
        if self.bodies.is_empty() {
            return Err(DecodeError::Missing(
                "an index holds at least one checkpoint",
            ));
        }
        let last_list = &end.head.list;
        let last_step = end.head.step;
        // Each checkpoint's list, rebuilt from the changes, stored against
        // the last state's: `differ` holds the positions where the two
        // differ.
        let mut region = Encoder {
            buf: std::mem::take(&mut self.region),
        };
        let mut list: Vec<usize> = Vec::new();
        let mut differ = std::collections::BTreeSet::new();
        let mut list_entries = Vec::with_capacity(self.lists.len());
        for changes in &self.lists {
            list.truncate(changes.len);
            let _ = differ.split_off(&changes.len);
            for &(i, n) in &changes.changed {
                if i >= list.len() {
                    list.resize(i + 1, usize::MAX);
                }
                list[i] = n;
                if last_list.get(i) == Some(&n) {
                    differ.remove(&i);
                } else {
                    differ.insert(i);
                }
            }
            let start = region.buf.len();
            let against = list.len() <= last_list.len()
                && differ
                    .iter()
                    .all(|&i| self.ids.get(list[i]) == self.ids.get(last_list[i]));
            if against {
                let changed: Vec<(usize, usize)> = differ.iter().map(|&i| (i, list[i])).collect();
                crate::replay::codec::encode_list_against(&mut region, list.len(), &changed);
            } else {
                crate::replay::codec::encode_list_whole(&mut region, &list);
            }
            let encoded = &region.buf[start..];
            list_entries.push((encoded.len(), checksum(encoded)));
        }
        let mut directory = Encoder::default();
        directory.usize(self.bodies.len());
        for (&(step, body_len, body_sum), &(list_len, list_sum)) in
            self.bodies.iter().zip(&list_entries)
        {
            directory.u64(step.get());
            directory.usize(body_len);
            directory.buf.extend_from_slice(&body_sum.to_le_bytes());
            directory.usize(list_len);
            directory.buf.extend_from_slice(&list_sum.to_le_bytes());
        }
        // A writer's timeline holds no events itself (`index_of`): its
        // length is its last step.
        let times = encode_arrivals(end.arrivals.filter(|a| a.len() == last_step.get()));
        // The front, in parts (issue 40: joined, they were copied once
        // more): the table, then the last state, the lanes and kinds and
        // the times, each after its length, then the directory.
        let length = |bytes: &[u8]| {
            let mut e = Encoder::default();
            e.usize(bytes.len());
            e.buf
        };
        let mut parts = vec![region.buf];
        parts.extend(self.table.finish());
        for part in [end.head.bytes, end.index, times] {
            parts.push(length(&part));
            parts.push(part);
        }
        parts.push(directory.buf);
        let mut front_sum = Checksum::default();
        for part in &parts[1..] {
            front_sum.update(part);
        }
        let front_len: usize = parts[1..].iter().map(Vec::len).sum();
        let region_len = self.handed_out + parts[0].len();
        let mut trailer = Vec::with_capacity(TRAILER_BYTES);
        for field in [
            INDEX_FORMAT_VERSION as u64,
            end.policy.max_cost,
            end.policy.op_cost,
            end.cost_since_checkpoint,
            last_step.get(),
            region_len as u64,
            front_len as u64,
            front_sum.finish(),
        ] {
            trailer.extend_from_slice(&field.to_le_bytes());
        }
        trailer.extend_from_slice(MAGIC);
        parts.push(trailer);
        Ok(parts)
    }
}

/// The last state, encoded: its bytes, its list's messages' numbers in
/// the table, its step.
struct EncodedHead {
    bytes: Vec<u8>,
    list: Vec<usize>,
    step: Seq,
}

/// What an index's end holds besides its checkpoints.
struct End {
    head: EncodedHead,
    index: Vec<u8>,
    policy: CheckpointPolicy,
    cost_since_checkpoint: u64,
    arrivals: Option<ArrivalTimes>,
}

/// The trailer of a blob, as [`IndexEncoder::finish`] wrote it.
struct Trailer {
    policy: CheckpointPolicy,
    cost_since_checkpoint: u64,
    last_step: u64,
    region_len: usize,
    front_len: usize,
    front_sum: u64,
}

impl Trailer {
    fn decode(bytes: &[u8]) -> Decoded<Self> {
        if bytes.len() != TRAILER_BYTES || !bytes.ends_with(MAGIC) {
            return Err(DecodeError::Mismatch("the index does not end as one"));
        }
        let field = |i: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(word)
        };
        if !READABLE_INDEXES
            .iter()
            .any(|&(readable, _)| readable as u64 == field(0))
        {
            return Err(DecodeError::Mismatch("the index is of another format"));
        }
        let size = |n: u64| {
            usize::try_from(n).map_err(|_| DecodeError::Malformed("the index is too large"))
        };
        Ok(Self {
            policy: CheckpointPolicy {
                max_cost: field(1),
                op_cost: field(2),
            },
            cost_since_checkpoint: field(3),
            last_step: field(4),
            region_len: size(field(5))?,
            front_len: size(field(6))?,
            front_sum: field(7),
        })
    }
}

impl Timeline {
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
        Ok(self.encode_index_parts(arrivals)?.concat())
    }

    /// [`Self::encode_index_with`] in the parts it is made of, whose
    /// concatenation is the blob: a writer stores them piece by piece
    /// without joining them (issue 14: joining copied the 660 MB index of
    /// 10,000,000 events once more, into fresh memory).
    pub fn encode_index_parts(
        &self,
        arrivals: Option<&[u64]>,
    ) -> Result<Vec<Vec<u8>>, DecodeError> {
        let mut encoder = IndexEncoder::keeping_all();
        self.push_checkpoints(&mut encoder)?;
        encoder.finish(self, arrivals.map(ArrivalTimes::of))
    }

    /// Pushes this timeline's checkpoints into `encoder` (a stored one
    /// decoded at a time); an error when a stored one cannot be decoded.
    pub fn push_checkpoints(&self, encoder: &mut IndexEncoder) -> Result<(), DecodeError> {
        for i in 0..self.checkpoints.len() {
            let Some(checkpoint) = self.checkpoints.get(i) else {
                return Err(DecodeError::Missing(
                    "a stored checkpoint cannot be decoded",
                ));
            };
            encoder.push(&checkpoint);
        }
        Ok(())
    }

    /// Pushes the checkpoints made since the last call (the first, at
    /// step 0, included the first time) into `encoder`, and drops them:
    /// for an index's writer that encodes them as they are made (issue
    /// 40). A timeline whose checkpoints were handed out is one such
    /// writer's own: it can no longer seek, nor encode its index itself.
    pub fn hand_checkpoints_to(&mut self, encoder: &mut IndexEncoder) {
        for checkpoint in self.checkpoints.take_frozen() {
            encoder.push(&checkpoint);
        }
    }

    /// Rebuilds the timeline of `events` replayed with `options` from its
    /// stored index `blob`, without replaying. Refused (with the reason)
    /// unless the blob is whole and agrees with the events: a format and a
    /// checkpoint policy this build reads (`READABLE_INDEXES`,
    /// `READABLE_POLICIES`), the checksums, the same options, as many
    /// events, every step within the stream. The checkpoints stay
    /// encoded in the blob, each decoded when a seek needs it.
    pub fn from_stored_index(
        events: impl Into<Events>,
        blob: impl Into<Vec<u8>>,
        options: Options,
    ) -> Decoded<Self> {
        Self::from_stored_pieces(events, StoredPieces::whole(blob.into()), options)
            .map(|(timeline, _)| timeline)
    }

    /// [`Self::from_stored_index`] from the index's pieces, with the
    /// events' arrival times when the index holds them
    /// ([`Self::encode_index_with`]). The pieces of its front are read
    /// now, into one buffer, the others in the background (or by the
    /// first seek that needs one). A piece that is missing, of another size or out of order is
    /// refused: in the front now, among the checkpoints when a seek
    /// first reads it (that seek then starts from an earlier checkpoint).
    pub fn from_stored_pieces(
        events: impl Into<Events>,
        pieces: StoredPieces,
        options: Options,
    ) -> Decoded<(Self, Option<Vec<u64>>)> {
        let events: Events = events.into();
        let mut pieces = pieces;
        let num_bytes = pieces.num_bytes;
        let Some(trailer_at) = num_bytes.checked_sub(TRAILER_BYTES) else {
            return Err(DecodeError::EndsEarly("the index ends before its trailer"));
        };
        let trailer = Trailer::decode(&pieces.read_range(trailer_at, num_bytes)?)?;
        let policy = trailer.policy;
        if !READABLE_POLICIES.contains(&policy) {
            return Err(DecodeError::Mismatch(
                "the index was built with another checkpoint policy",
            ));
        }
        let cost_since_checkpoint = trailer.cost_since_checkpoint;
        let last_step = trailer.last_step;
        if last_step != events.len() as u64 {
            return Err(DecodeError::Mismatch(
                "the index covers another number of events",
            ));
        }
        let region_len = trailer.region_len;
        if region_len.checked_add(trailer.front_len) != Some(trailer_at) {
            return Err(DecodeError::Malformed(
                "the index's parts are not of its size",
            ));
        }
        let first_piece = region_len / pieces.piece_bytes;
        let bytes = IndexBytes::read_tail(pieces, first_piece, region_len..trailer_at)?;
        let front = bytes.front();
        if trailer.front_sum != checksum(front) {
            return Err(DecodeError::Damaged(
                "the index is damaged (its checksum differs)",
            ));
        }
        let d = &mut Decoder::new(front);
        let messages = LazyMessages::scan(d)?;
        let head_bytes = d.bytes()?;
        let index_bytes = d.bytes()?;
        let arrival_bytes = d.bytes()?;
        let n = d.count()?;
        let mut entries: Vec<Entry> = Vec::with_capacity(n);
        let past_end = || DecodeError::Malformed("the index's checkpoints are past its end");
        let mut bodies_end = 0usize;
        let mut lists_len = 0usize;
        for _ in 0..n {
            let step = d.seq()?;
            let body_len = d.usize()?;
            let body_sum = d.u64_le()?;
            let list_len = d.usize()?;
            let list_sum = d.u64_le()?;
            let in_order = match entries.last() {
                Some(last) => last.step < step,
                None => step == Seq::START,
            };
            if !in_order || step.get() > last_step {
                return Err(DecodeError::Malformed(
                    "the index's checkpoints are out of order",
                ));
            }
            let body_end = bodies_end
                .checked_add(body_len)
                .filter(|&end| end <= region_len)
                .ok_or_else(past_end)?;
            entries.push(Entry {
                step,
                body: (bodies_end, body_end),
                body_sum,
                // Where the lists start is known once every body is.
                list: (lists_len, list_len),
                list_sum,
            });
            bodies_end = body_end;
            lists_len = lists_len.checked_add(list_len).ok_or_else(past_end)?;
        }
        if !d.at_end() || bodies_end.checked_add(lists_len) != Some(region_len) {
            return Err(DecodeError::Malformed("the index has bytes after its end"));
        }
        for entry in &mut entries {
            let (start, len) = entry.list;
            entry.list = (bodies_end + start, bodies_end + start + len);
        }
        let Some(&first_entry) = entries.first() else {
            return Err(DecodeError::Malformed("the index holds no checkpoint"));
        };
        // The state at the last event (every diagnostic and effect), the
        // lanes and kinds, and the times, each on a thread of its own (the
        // system shares them between the cores).
        let shared = Shared {
            tables: &messages,
            blob: front,
            head: None,
        };
        let (head, rest) = std::thread::scope(|scope| {
            let index = scope.spawn(|| -> Decoded<_> {
                let index_d = &mut Decoder::new(index_bytes);
                let index = StreamIndex::decode(index_d, last_step)?;
                if !index_d.at_end() {
                    return Err(DecodeError::Malformed(
                        "the index's lanes and kinds have bytes after their end",
                    ));
                }
                Ok(index)
            });
            let arrivals = scope.spawn(|| decode_arrivals(arrival_bytes, last_step));
            let head_d = &mut Decoder::new(head_bytes);
            let head = Replayer::decode(head_d, shared).and_then(|head| {
                if head_d.at_end() {
                    Ok(head)
                } else {
                    Err(DecodeError::Malformed(
                        "the index's last state has bytes after its end",
                    ))
                }
            });
            let index = index.join().unwrap_or(Err(DecodeError::Malformed(
                "the index's lanes could not be decoded",
            )));
            let arrivals = arrivals.join().unwrap_or(Err(DecodeError::Malformed(
                "the index's times could not be decoded",
            )));
            (head, index.and_then(|index| Ok((index, arrivals?))))
        });
        let (head, (index, arrivals)) = (head?, rest?);
        if head.options() != options {
            return Err(DecodeError::Mismatch(
                "the index was built with other options",
            ));
        }
        if head.step().get() != last_step || head.effects().len() as u64 != last_step {
            return Err(DecodeError::Mismatch(
                "the index's last state is not at the last event",
            ));
        }
        let diagnostics = head.diagnostics();
        if diagnostics.windows(2).any(|w| w[0].seq > w[1].seq)
            || diagnostics.last().is_some_and(|d| d.seq.get() > last_step)
        {
            return Err(DecodeError::Malformed(
                "the index's diagnostics are out of order",
            ));
        }
        if index.num_events() as u64 != last_step {
            return Err(DecodeError::Mismatch(
                "the index's event kinds do not cover the stream",
            ));
        }
        let first =
            decode_checkpoint(&bytes, &messages, head.conversation(), first_entry, options)?;
        if first.step() != Seq::START {
            return Err(DecodeError::Malformed(
                "the index's first checkpoint is not at step 0",
            ));
        }
        let stored = Arc::new(StoredCheckpoints {
            bytes,
            messages,
            head: head.conversation().clone(),
            entries,
            first: Arc::new(first),
            options,
            recent: Mutex::new(Vec::new()),
        });
        StoredCheckpoints::read_the_rest_in_the_background(&stored);
        let timeline = Self {
            events,
            head,
            checkpoints: Checkpoints {
                stored_len: stored.len(),
                stored: Some(stored),
                frozen: Vec::new(),
                thawed: super::Thawed::default(),
            },
            policy,
            cost_since_checkpoint,
            // Not stored: events appended after opening are checkpointed
            // by the policy's cost until the next checkpoint (where they
            // fall changes no result).
            next_checkpoint_cost: policy.max_cost,
            // Empty: the head was thawed, so none of its values is one
            // the stored checkpoints were frozen from.
            freeze_cache: crate::replay::FreezeCache::default(),
            index,
        };
        Ok((timeline, arrivals))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Seq;
    use crate::event_log::EventLog;
    use crate::timeline::test_streams::long;

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
        // Index format 4 (issue 14): the checkpoints after the front, each
        // under its own checksum; the replay's results are unchanged.
        (3, 0x0ca8_5a6c_2227_a0ff),
        // Checkpoints twice as dense (issue 14: seek p99).
        (4, 0x4afb_1780_43f0_f196),
        // Index format 5 (issue 14): checkpoints' message lists stored
        // against the last state's, drift layers stored once; checkpoints
        // no longer spaced by their message list, 256 KiB apart.
        (5, 0x1c8e_ecc0_347a_100f),
        // Index format 6 (issue 14): checkpoints share their emptied
        // activities, which weigh nothing; drift's recent keys a layer.
        (6, 0x61f7_fd56_bd99_bd06),
        // Checkpoints twice as far apart (issue 14: the replay/parse ratio
        // with the replay's threads on cores apart).
        (7, 0x0651_0b0d_5c8a_d643),
        // Index format 7 (issue 39): one verdict per id collision, a chunk
        // lane per owner under the client; what is open stored so. Split
        // surrogates joined, nested members checked against the schema.
        // Index format 8 (issue 38): long texts being streamed as text
        // logs. Drift split by the paths the deltas set, which the
        // tracking stores (issue 39). Engine 8 still unreleased: its
        // fingerprint replaced, not appended.
        (8, 0xb721_e5a3_b312_8cfd),
        // Index format 9 (issue 43): the lanes of runs, steps, messages,
        // reasoning, tool calls and subagents, with the event that ended
        // each (issue 41). Engine 9 still unreleased: its fingerprint
        // replaced, not appended.
        (9, 0x4fb7_31df_7630_11e8),
        // Index format 10 (issue 40): the checkpoints' bodies first, each
        // encoded as it is made, their message lists after them, then the
        // front and a trailer of fixed size; the replay's results are
        // unchanged.
        (10, 0x809c_6b65_068c_76e1),
        // Index format 11 (issue 40): a checkpoint's own newest drift
        // layer stored with it, not in the shared table; the replay's
        // results are unchanged.
        (11, 0x2d6d_83a3_6aee_9204),
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

    /// One text message of `n` deltas of 100 characters each.
    fn long_message(n: usize) -> EventLog {
        let mut log = EventLog::default();
        log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        log.push(br#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#);
        let delta = "0123456789".repeat(10);
        for _ in 0..n {
            log.push(
                format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{delta}"}}"#)
                    .as_bytes(),
            );
        }
        log
    }

    /// Issue 38: the stored index of one long message grows as the
    /// message does (its checkpoints share its text, each holding what it
    /// gained since the one before), not as the message times the
    /// checkpoints; and it gives the message back at every checkpoint.
    #[test]
    fn the_index_of_a_long_message_grows_linearly_and_gives_it_back() {
        let n = 12_000;
        let replayed = Timeline::from_log(long_message(n), Options::default());
        let blob = replayed.encode_index().expect("encodes");
        let four_times = Timeline::from_log(long_message(4 * n), Options::default());
        assert!(four_times.num_checkpoints() > 12, "many checkpoints");
        let bigger = four_times.encode_index().expect("encodes").len();
        assert!(
            bigger < 5 * blob.len(),
            "{} bytes for {n} deltas, {bigger} for four times as many",
            blob.len()
        );
        let stored = Timeline::from_stored_index(long_message(n), &blob[..], Options::default())
            .expect("decodes");
        assert!(replayed.num_checkpoints() > 2);
        for at in replayed.checkpoint_steps() {
            for step in [at.get().saturating_sub(1), at.get(), at.get() + 1] {
                let step = Seq::new(step);
                assert_eq!(stored.seek(step).document(), replayed.seek(step).document());
            }
        }
    }

    /// A stream whose message list and drift tracking grow (hundreds of
    /// streamed messages, an activity patched throughout), with a
    /// `MESSAGES_SNAPSHOT` halfway that drops the first messages and says
    /// other than what one of them streamed (drift, E20).
    fn growing_with_a_snapshot() -> EventLog {
        growing_with_a_snapshot_of(700)
    }

    /// [`growing_with_a_snapshot`] of `n` rounds of five events (`n` >
    /// 350).
    fn growing_with_a_snapshot_of(n: usize) -> EventLog {
        let mut log = EventLog::default();
        log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        log.push(
            br#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"n":0}}"#,
        );
        let pad: String = (0..60)
            .map(|k| {
                format!(
                    r#"{{"op":"add","path":"/k{k}","value":"{}"}}"#,
                    "x".repeat(20)
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        for i in 0..n {
            log.push(format!(r#"{{"type":"STATE_DELTA","delta":[{pad}]}}"#).as_bytes());
            log.push(
                format!(
                    r#"{{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{{"op":"replace","path":"/n","value":{i}}}]}}"#
                )
                .as_bytes(),
            );
            log.push(
                format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}","role":"assistant"}}"#)
                    .as_bytes(),
            );
            log.push(
                format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m{i}","delta":"said {i}"}}"#
                )
                .as_bytes(),
            );
            log.push(format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"m{i}"}}"#).as_bytes());
            if i == 350 {
                // m0 to m99 dropped: every earlier checkpoint's list
                // starts with messages the last state's does not hold.
                let mut messages: Vec<String> = (100..300)
                    .rev()
                    .map(|k| format!(r#"{{"id":"m{k}","role":"assistant","content":"said {k}"}}"#))
                    .collect();
                messages[0] =
                    r#"{"id":"m299","role":"assistant","content":"not what streamed"}"#.into();
                log.push(
                    format!(
                        r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{}]}}"#,
                        messages.join(",")
                    )
                    .as_bytes(),
                );
            }
        }
        log
    }

    /// Issue 14: an index whose checkpoints are spaced as engines 5 and 6
    /// spaced them (256 KiB apart) is believed, keeps its spacing, and
    /// seeks in it give the replay's states; one of a policy no engine
    /// wrote is refused. This build's own policy is among those it reads.
    #[test]
    fn an_index_spaced_as_the_engines_before_is_read_and_seeks_as_the_replay() {
        assert!(READABLE_POLICIES.contains(&CheckpointPolicy::default()));
        let log = growing_with_a_snapshot();
        let options = Options::default();
        let replayed = Timeline::from_log(log.clone(), options);
        let earlier = CheckpointPolicy {
            max_cost: 256 * 1024,
            op_cost: 48,
        };
        let spaced_before = Timeline::builder(options)
            .policy(earlier)
            .replay(log.clone());
        assert!(
            spaced_before.num_checkpoints() > replayed.num_checkpoints(),
            "{} checkpoints 256 KiB apart, {} 512 KiB apart",
            spaced_before.num_checkpoints(),
            replayed.num_checkpoints()
        );
        let blob = spaced_before.encode_index().expect("encodes");
        let stored =
            Timeline::from_stored_index(log.clone(), &blob[..], options).expect("believed");
        assert_eq!(stored.num_checkpoints(), spaced_before.num_checkpoints());
        assert_eq!(stored.policy, earlier);
        for step in (0..=replayed.last_step().get()).step_by(97) {
            let step = Seq::new(step);
            assert_eq!(
                stored.seek(step).document(),
                replayed.seek(step).document(),
                "step {step}"
            );
        }
        let unknown = CheckpointPolicy {
            max_cost: 100 * 1024,
            op_cost: 48,
        };
        let blob = Timeline::builder(options)
            .policy(unknown)
            .replay(log.clone())
            .encode_index()
            .expect("encodes");
        assert!(Timeline::from_stored_index(log, &blob[..], options).is_err());
    }

    /// Issue 40: an index whose checkpoints are encoded as they are made,
    /// handed out in pieces, is the blob encoded at the end, byte for byte,
    /// and reads back as the replay.
    #[test]
    fn an_index_handed_out_in_pieces_is_the_one_encoded_at_the_end() {
        let log = growing_with_a_snapshot_of(2400);
        let options = Options::default();
        let replayed = Timeline::from_log(log.clone(), options);
        // Enough for the table to forget what was dropped a few times.
        assert!(
            replayed.num_checkpoints() > 3 * FORGET_EVERY,
            "{} checkpoints",
            replayed.num_checkpoints()
        );
        let arrivals: Vec<u64> = (0..log.len() as u64).map(|i| i * 1000).collect();
        let at_the_end = replayed
            .encode_index_with(Some(&arrivals))
            .expect("encodes");
        for piece_bytes in [61, 64, 4096, 1 << 20] {
            let pieces = Arc::new(Mutex::new(Vec::new()));
            let handed = Arc::clone(&pieces);
            let mut encoder = IndexEncoder::handing_out(
                piece_bytes,
                Box::new(move |piece| handed.lock().expect("pieces").push(piece)),
            );
            // As an import builds it: the checkpoints taken as they are
            // made, the lanes packed.
            let mut timeline = Timeline::starting_from(Replayer::new(options)).empty();
            timeline.pack_lanes();
            for (_, raw) in log.iter() {
                let mut one = EventLog::default();
                one.push(raw);
                timeline.index_more(&one);
                timeline.hand_checkpoints_to(&mut encoder);
            }
            timeline.finish();
            timeline.hand_checkpoints_to(&mut encoder);
            let handed_out = encoder.handed_out();
            let times = Some(ArrivalTimes::of(&arrivals));
            // Taking the timeline (as an import does) or not: the same.
            let rest = match piece_bytes {
                64 => encoder.finish_taking(timeline, times),
                _ => encoder.finish(&timeline, times),
            }
            .expect("ends");
            let pieces = std::mem::take(&mut *pieces.lock().expect("pieces"));
            assert!(pieces.iter().all(|p| p.len() == piece_bytes));
            assert_eq!(pieces.len() * piece_bytes, handed_out);
            if piece_bytes <= 4096 {
                assert!(
                    pieces.len() > 10,
                    "{} pieces of {piece_bytes}",
                    pieces.len()
                );
            }
            let blob = [pieces.concat(), rest.concat()].concat();
            assert!(blob == at_the_end, "pieces of {piece_bytes} bytes");
        }
        let (stored, times) =
            Timeline::from_stored_pieces(log.clone(), StoredPieces::whole(at_the_end), options)
                .expect("decodes");
        assert_eq!(times, Some(arrivals));
        for step in (0..=replayed.len() as u64).step_by(331) {
            let at = Seq::new(step);
            assert_eq!(
                stored.seek(at).document(),
                replayed.seek(at).document(),
                "step {step}"
            );
        }
    }

    /// Issue 14: a checkpoint's message list is stored as the changes from
    /// the last state's when it can be (those after the snapshot), whole
    /// when it cannot (those before it), and its drift tracking as layers
    /// the index holds once; seeks from either give the state, the
    /// diagnostics and the drift replayed from step 0.
    #[test]
    fn checkpoints_stored_against_the_last_state_or_whole_seek_as_the_replay_does() {
        let log = growing_with_a_snapshot();
        let options = Options::default();
        let replayed = Timeline::from_log(log.clone(), options);
        let num = replayed.num_checkpoints();
        assert!(num > 4, "{num} checkpoints");
        let against_head: Vec<bool> = (0..num)
            .map(|i| {
                let checkpoint = replayed.checkpoints.get(i).expect("a checkpoint");
                checkpoint
                    .conversation()
                    .changes_from(replayed.head.conversation())
                    .is_some()
            })
            .collect();
        assert!(against_head.contains(&true), "{against_head:?}");
        assert!(against_head[1..].contains(&false), "{against_head:?}");
        let blob = replayed.encode_index().expect("encodes");
        let stored = Timeline::from_stored_index(log.clone(), &blob[..], options).expect("decodes");
        // Issue 40: the lists are stored after the last state is known,
        // from the changes between checkpoints: each as it would have been
        // stored with every checkpoint at hand (its kind, its first byte).
        let in_the_index = stored.checkpoints.stored.as_ref().expect("stored");
        let stored_against: Vec<bool> = in_the_index
            .entries
            .iter()
            .map(|e| {
                in_the_index
                    .bytes
                    .range(e.list.0, e.list.1)
                    .expect("a list")[0]
                    == 1
            })
            .collect();
        assert_eq!(stored_against, against_head);
        let last = replayed.len() as u64;
        let mut drift_seen = false;
        let steps = (0..=last)
            .step_by(13)
            .chain(replayed.checkpoint_steps().flat_map(|s| {
                let s = s.get();
                [s.saturating_sub(1), s, s + 1]
            }))
            .chain((0..=last).rev().step_by(101))
            .map(|s| s.min(last))
            .collect::<Vec<u64>>();
        // The replay from step 0 at each step sought, in one pass.
        let mut expected_at = std::collections::BTreeMap::new();
        let mut ascending = steps.clone();
        ascending.sort_unstable();
        ascending.dedup();
        let mut replayer = crate::replay::Replayer::new(options);
        let mut events = log.iter().map(|(_, raw)| raw);
        for &step in &ascending {
            while replayer.step().get() < step {
                let raw = events.next().expect("an event");
                replayer.apply(crate::protocol::parse_event(raw));
            }
            expected_at.insert(step, replayer.clone());
        }
        for step in steps {
            let expected = &expected_at[&step];
            let step = Seq::new(step);
            let sought = stored.seek(step);
            assert_eq!(sought.step(), step);
            assert_eq!(sought.document(), expected.document(), "step {step}");
            assert_eq!(
                sought.conversation().to_json(),
                expected.conversation().to_json(),
                "step {step}"
            );
            // A seek's log holds what the events after its checkpoint
            // said: the end of the replayed log.
            assert!(
                expected.diagnostics().ends_with(sought.diagnostics()),
                "step {step}"
            );
            drift_seen |= sought
                .diagnostics()
                .iter()
                .any(|d| d.code == crate::diagnostic::Code::MessagesDrift && d.drift.is_some());
        }
        assert!(drift_seen, "a seek met the snapshot's drift");
        assert!(
            replayed
                .diagnostics()
                .iter()
                .any(|d| d.code == crate::diagnostic::Code::MessagesDrift),
            "the snapshot drifts"
        );
    }

    /// Issue 40: the front's checksum is taken over its parts as they
    /// are, without joining them: the same as over the parts joined,
    /// wherever they are cut.
    #[test]
    fn a_checksum_over_parts_is_the_checksum_of_the_parts_joined() {
        let bytes: Vec<u8> = (0..300u32).map(|i| (i * 31 % 251) as u8).collect();
        for cuts in [
            vec![],
            vec![0],
            vec![1, 2, 3],
            vec![31, 32, 33],
            vec![5, 64, 100, 299],
        ] {
            let mut sum = Checksum::default();
            let mut from = 0;
            for &cut in cuts.iter().chain([&bytes.len()]) {
                sum.update(&bytes[from..cut]);
                from = cut;
            }
            assert_eq!(sum.finish(), checksum(&bytes), "cut at {cuts:?}");
        }
        assert_ne!(checksum(&bytes[..299]), checksum(&bytes));
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
            Timeline::from_stored_pieces(long(), StoredPieces::whole(blob), Options::default())
                .expect("decodes");
        assert_eq!(back.as_deref(), Some(&arrivals[..]));
        // A writer's timeline (holding no events) stores them too (issue 14).
        let written = Timeline::builder(Options::default()).index_of(&long());
        let blob = written.encode_index_with(Some(&arrivals)).expect("encodes");
        let (_, back) =
            Timeline::from_stored_pieces(long(), StoredPieces::whole(blob), Options::default())
                .expect("decodes");
        assert_eq!(back.as_deref(), Some(&arrivals[..]));
        // Times of another count are left out.
        let blob = replayed
            .encode_index_with(Some(&arrivals[1..]))
            .expect("encodes");
        let (_, back) =
            Timeline::from_stored_pieces(long(), StoredPieces::whole(blob), Options::default())
                .expect("decodes");
        assert_eq!(back, None);
    }

    /// An index in pieces of `piece_bytes` in memory, as a recording
    /// stores it; with `others`, each reader can give another (as a file
    /// does: its own connection); reads of piece `broken` fail.
    #[derive(Clone)]
    struct MemoryPieces {
        blob: Arc<Vec<u8>>,
        piece_bytes: usize,
        others: bool,
        broken: Option<usize>,
    }

    impl IndexPieces for MemoryPieces {
        fn read(&mut self, piece: usize, at: usize, out: &mut [u8]) -> Result<(), String> {
            if self.broken == Some(piece) {
                return Err("the piece cannot be read".into());
            }
            let start = piece * self.piece_bytes + at;
            let bytes = self
                .blob
                .get(start..start + out.len())
                .ok_or("past the index's end")?;
            out.copy_from_slice(bytes);
            Ok(())
        }

        fn another(&self) -> Option<Box<dyn IndexPieces>> {
            self.others
                .then(|| Box::new(self.clone()) as Box<dyn IndexPieces>)
        }
    }

    fn in_pieces(
        blob: &[u8],
        piece_bytes: usize,
        others: bool,
        broken: Option<usize>,
    ) -> StoredPieces {
        let source = MemoryPieces {
            blob: Arc::new(blob.to_vec()),
            piece_bytes,
            others,
            broken,
        };
        StoredPieces::new(Box::new(source), piece_bytes, blob.len()).expect("pieces")
    }

    #[test]
    fn a_front_read_by_two_readers_gives_the_timeline_one_reader_gives() {
        // Issue 14: the front's pieces are read by two readers at once,
        // and the checkpoints' by a background reader of its own; the
        // timeline is the one the whole blob gives.
        let replayed = Timeline::from_log(long(), Options::default());
        let arrivals: Vec<u64> = (0..replayed.len() as u64).map(|i| i * 1_000).collect();
        let blob = replayed
            .encode_index_with(Some(&arrivals))
            .expect("encodes");
        let last = replayed.len() as u64;
        let expected: Vec<_> = (0..=last)
            .rev()
            .step_by(37)
            .chain([last, 1])
            .map(|step| (Seq::new(step), replayed.seek(Seq::new(step)).document()))
            .collect();
        for piece_bytes in [97, 4096, blob.len()] {
            for others in [false, true] {
                let (stored, back) = Timeline::from_stored_pieces(
                    long(),
                    in_pieces(&blob, piece_bytes, others, None),
                    Options::default(),
                )
                .expect("decodes");
                assert_eq!(back.as_deref(), Some(&arrivals[..]));
                assert_eq!(stored.diagnostics(), replayed.diagnostics());
                assert_eq!(stored.effects(), replayed.effects());
                assert_eq!(stored.index().lanes(), replayed.index().lanes());
                for (step, document) in &expected {
                    assert_eq!(
                        &stored.seek(*step).document(),
                        document,
                        "pieces of {piece_bytes}, {others}, step {step}"
                    );
                }
                assert_eq!(
                    stored.encode_index_with(Some(&arrivals)).expect("encodes"),
                    blob
                );
            }
        }
    }

    #[test]
    fn a_piece_that_cannot_be_read_refuses_the_index_or_a_seek_starts_earlier() {
        // Issue 14: a piece of the front that cannot be read (by either
        // reader) refuses the index with a reason naming it; one among the
        // checkpoints leaves the seeks that need it starting from an
        // earlier checkpoint, with the same states. Never a panic.
        let replayed = Timeline::from_log(long(), Options::default());
        let blob = replayed.encode_index().expect("encodes");
        let piece_bytes = blob.len().div_ceil(24);
        let num_pieces = blob.len().div_ceil(piece_bytes);
        let last = replayed.len() as u64;
        let expected: Vec<_> = (0..=last)
            .step_by(53)
            .chain([last])
            .map(|step| (Seq::new(step), replayed.seek(Seq::new(step)).document()))
            .collect();
        let (mut refused, mut opened) = (0, 0);
        for broken in 0..num_pieces {
            let pieces = in_pieces(&blob, piece_bytes, true, Some(broken));
            match Timeline::from_stored_pieces(long(), pieces, Options::default()) {
                Err(why) => {
                    assert!(
                        why.to_string().contains(&format!("piece {broken}")),
                        "{why:?}"
                    );
                    refused += 1;
                }
                Ok((stored, _)) => {
                    for (step, document) in &expected {
                        assert_eq!(
                            &stored.seek(*step).document(),
                            document,
                            "piece {broken} broken, step {step}"
                        );
                    }
                    opened += 1;
                }
            }
        }
        assert!(
            refused > 1 && opened > 1,
            "{refused} refused, {opened} opened"
        );
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
