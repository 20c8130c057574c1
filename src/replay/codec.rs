//! A compact binary encoding of replay states, for the timeline index a
//! recording stores (issue 14): LEB128 integers, length-prefixed strings,
//! JSON values as their compact text (what checkpoints already keep).
//!
//! Decoding never panics and never believes a length it cannot back with
//! bytes: a damaged blob gives a [`DecodeError`], and the caller replays.
//!
//! Where the index's format is written (each part beside the type whose
//! private fields it reads; the engine fingerprint test in
//! `timeline/stored.rs` fails when any of them changes a byte):
//! - the blob's layout, header, versions and what this build reads:
//!   `timeline/stored.rs` (`INDEX_FORMAT_VERSION`, `REPLAY_ENGINE_VERSION`);
//! - the primitives, messages, diagnostics, effects, options, a state and
//!   a checkpoint: here;
//! - what is open (chunk streams, reasoning phases…): `replay/streams.rs`;
//! - the drift tracking and its layers: `replay/drift.rs`;
//! - the lanes, diagnostic steps and event kinds: `timeline/index.rs`.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::conversation::{ActivityMessage, Conversation, Message, OtherMessage, Role};
use super::drift::DriftLayer;
use super::engine::{ActivityChange, Effect, EventEffect, Replayer, RunPhase};
use super::frozen::{FrozenReplay, FrozenText, TextLog};
use super::{Options, Profile};
use crate::diagnostic::{Code, Diagnostic, Drift, DriftKind, DriftPatch, Seq, Severity};
use crate::protocol::{EventType, ProtocolVersion};

/// Why a stored index could not be decoded (or a state encoded): the index
/// is then not believed, and the caller replays. Its `Display` is the
/// reason in plain words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The bytes end before what they hold does.
    #[error("{0}")]
    EndsEarly(&'static str),
    /// The bytes are not what the format writes there: a number too long
    /// or too large, a string that is not UTF-8, a value that is not JSON,
    /// parts out of order or pointing past what they refer to, bytes after
    /// an end.
    #[error("{0}")]
    Malformed(&'static str),
    /// A tag this build does not know (a kind, role, code, profile…).
    #[error("{0}")]
    Unknown(&'static str),
    /// A checksum differs: the bytes changed after they were written.
    #[error("{0}")]
    Damaged(&'static str),
    /// Well formed, but written for something else: another format,
    /// checkpoint policy, options or stream.
    #[error("{0}")]
    Mismatch(&'static str),
    /// A part of the index that is not there: a piece, a range, a
    /// checkpoint.
    #[error("{0}")]
    Missing(&'static str),
    /// A piece could not be read from where the index is stored.
    #[error("piece {piece} of the index: {reason}")]
    Unreadable {
        /// The piece (0-based).
        piece: usize,
        /// Why, as its source says.
        reason: String,
    },
    /// A state names a shared part (a message, a text, a drift layer) the
    /// index does not hold.
    #[error("a state in the index names {0} the index does not hold")]
    NoSuchPart(&'static str),
    /// A shared part lies past the end of the index.
    #[error("{0} in the index is past its end")]
    PartPastEnd(&'static str),
    /// A shared part has bytes after its end.
    #[error("{0} in the index has bytes after its end")]
    PartTooLong(&'static str),
    /// Encoding: a value nested too deeply to be stored.
    #[error("{0}")]
    Unstorable(&'static str),
    /// Encoding: a value JSON cannot write, as `serde_json` says.
    #[error("{0}")]
    NotWritable(String),
}

/// The result of decoding.
pub type Decoded<T> = Result<T, DecodeError>;

/// Appends encoded values to a byte buffer.
#[derive(Clone, Debug, Default)]
pub struct Encoder {
    /// What was written so far.
    pub buf: Vec<u8>,
}

impl Encoder {
    /// An unsigned integer (LEB128).
    pub fn u64(&mut self, mut value: u64) {
        loop {
            let byte = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                self.buf.push(byte);
                return;
            }
            self.buf.push(byte | 0x80);
        }
    }

    /// A length or an index.
    pub fn usize(&mut self, value: usize) {
        self.u64(value as u64);
    }

    /// One byte.
    pub fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    /// A boolean.
    pub fn bool(&mut self, value: bool) {
        self.buf.push(u8::from(value));
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.usize(bytes.len());
        self.buf.extend_from_slice(bytes);
    }

    /// A string.
    pub fn str(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    /// An optional string.
    pub fn opt_str(&mut self, text: Option<&str>) {
        match text {
            Some(text) => {
                self.u8(1);
                self.str(text);
            }
            None => self.u8(0),
        }
    }

    /// A JSON value as compact text; refused when too deeply nested to be
    /// read back ([`MAX_DEPTH`]).
    pub fn json(&mut self, value: &Value) -> Decoded<()> {
        if depth(value) > MAX_DEPTH {
            return Err(DecodeError::Unstorable(
                "a value is nested too deeply to be stored",
            ));
        }
        let text =
            serde_json::to_vec(value).map_err(|e| DecodeError::NotWritable(e.to_string()))?;
        self.bytes(&text);
        Ok(())
    }

    /// A JSON object as compact text.
    pub fn object(&mut self, map: &Map<String, Value>) -> Decoded<()> {
        if map.values().map(depth).max().unwrap_or(0) + 1 > MAX_DEPTH {
            return Err(DecodeError::Unstorable(
                "a value is nested too deeply to be stored",
            ));
        }
        let text = serde_json::to_vec(map).map_err(|e| DecodeError::NotWritable(e.to_string()))?;
        self.bytes(&text);
        Ok(())
    }
}

/// Nesting deeper than this is not stored (serde_json reads back to 128).
pub const MAX_DEPTH: usize = 100;

/// How deeply `value` nests (a scalar: 0).
pub(crate) fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Reads encoded values from a byte slice.
#[derive(Debug)]
pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// Whether every byte was read.
    pub fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }

    /// Where the next byte is read from.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// An unsigned integer (LEB128).
    #[inline]
    pub fn u64(&mut self) -> Decoded<u64> {
        // Most numbers (deltas, small counts) take one byte.
        if let Some(&byte) = self.data.get(self.pos)
            && byte & 0x80 == 0
        {
            self.pos += 1;
            return Ok(u64::from(byte));
        }
        self.u64_long()
    }

    /// [`Self::u64`] of more than one byte.
    #[inline(never)]
    fn u64_long(&mut self) -> Decoded<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.data.get(self.pos) else {
                return Err(DecodeError::EndsEarly(
                    "the index ends in the middle of a number",
                ));
            };
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::Malformed("a number in the index is too long"))
    }

    /// Eight bytes, little-endian (a checksum).
    pub fn u64_le(&mut self) -> Decoded<u64> {
        let Some(bytes) = self.data.get(self.pos..self.pos + 8) else {
            return Err(DecodeError::EndsEarly(
                "the index ends in the middle of a checksum",
            ));
        };
        self.pos += 8;
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        Ok(u64::from_le_bytes(word))
    }

    /// A length or a count, which must not exceed the bytes left (each
    /// item takes at least one).
    pub fn count(&mut self) -> Decoded<usize> {
        let n = self.u64()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => Ok(n),
            _ => Err(DecodeError::Malformed(
                "a count in the index exceeds its size",
            )),
        }
    }

    /// A number that must fit a `usize`.
    pub fn usize(&mut self) -> Decoded<usize> {
        usize::try_from(self.u64()?)
            .map_err(|_| DecodeError::Malformed("a number in the index is too large"))
    }

    /// The next `n` bytes, which must be there.
    pub fn take(&mut self, n: usize) -> Decoded<&'a [u8]> {
        let Some(bytes) = self.data.get(self.pos..self.pos.saturating_add(n)) else {
            return Err(DecodeError::EndsEarly("the index ends early"));
        };
        self.pos += n;
        Ok(bytes)
    }

    /// One byte.
    #[inline]
    pub fn u8(&mut self) -> Decoded<u8> {
        let Some(&byte) = self.data.get(self.pos) else {
            return Err(DecodeError::EndsEarly("the index ends early"));
        };
        self.pos += 1;
        Ok(byte)
    }

    /// A boolean.
    pub fn bool(&mut self) -> Decoded<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::Malformed(
                "a flag in the index is neither 0 nor 1",
            )),
        }
    }

    /// Skips `n` bytes, which must be there.
    pub fn skip(&mut self, n: usize) -> Decoded<()> {
        if n > self.remaining() {
            return Err(DecodeError::EndsEarly("the index ends early"));
        }
        self.pos += n;
        Ok(())
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self) -> Decoded<&'a [u8]> {
        let n = self.count()?;
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    /// A string.
    pub fn str(&mut self) -> Decoded<&'a str> {
        std::str::from_utf8(self.bytes()?)
            .map_err(|_| DecodeError::Malformed("a string in the index is not UTF-8"))
    }

    /// An owned string.
    pub fn string(&mut self) -> Decoded<String> {
        self.str().map(str::to_owned)
    }

    /// An optional string.
    pub fn opt_string(&mut self) -> Decoded<Option<String>> {
        if self.bool()? {
            Ok(Some(self.string()?))
        } else {
            Ok(None)
        }
    }

    /// A JSON value.
    pub fn json(&mut self) -> Decoded<Value> {
        serde_json::from_slice(self.bytes()?)
            .map_err(|_| DecodeError::Malformed("a value in the index is not JSON"))
    }

    /// A JSON object.
    pub fn object(&mut self) -> Decoded<Map<String, Value>> {
        serde_json::from_slice(self.bytes()?)
            .map_err(|_| DecodeError::Malformed("an object in the index is not a JSON object"))
    }

    /// A step.
    pub fn seq(&mut self) -> Decoded<Seq> {
        self.u64().map(Seq::new)
    }
}

/// Every distinct message of the states encoded, once: states refer to
/// messages by their number, so that the messages checkpoints share (most
/// of them) are stored once. Each is length-prefixed, so that a reader can
/// find them all without decoding any ([`LazyMessages`]). The same for the
/// layers of the drift tracking's map, which checkpoints share as they
/// share messages (issue 14: each checkpoint stored every streamed
/// message's drift, which grew with the stream).
#[derive(Debug, Default)]
pub struct MessageTable {
    /// Each message numbered, by its address, with what keeps that
    /// address from being reused while the entry is there: a weak
    /// reference keeps the allocation, not what the value holds. The
    /// states encoded need not be kept (issue 40: an import encodes each
    /// checkpoint as it is made, then drops it); [`Self::forget_dropped`]
    /// removes the entries of values dropped since.
    numbers: FxHashMap<*const Message, (usize, std::sync::Weak<Message>)>,
    encoded: Blocks,
    count: usize,
    layer_numbers: FxHashMap<*const u8, (usize, WeakLayer)>,
    encoded_layers: Blocks,
    layer_count: usize,
    /// The logs of the long texts checkpoints hold (issue 38), each once,
    /// encoded when the table is finished (a later checkpoint may have
    /// added pieces to one).
    text_numbers: FxHashMap<*const TextLog, usize>,
    text_logs: Vec<Arc<TextLog>>,
}

/// A weak reference to a drift layer.
type WeakLayer = std::sync::Weak<[(String, Option<super::drift::Since>)]>;

impl MessageTable {
    /// The number of `message`, encoding it on first sight.
    pub(crate) fn number(&mut self, message: &Arc<Message>) -> Decoded<usize> {
        let key = Arc::as_ptr(message);
        if let Some((n, _)) = self.numbers.get(&key) {
            return Ok(*n);
        }
        let mut one = Encoder::default();
        encode_message(&mut one, message)?;
        self.encoded.bytes(&one.buf);
        let n = self.count;
        self.count += 1;
        self.numbers.insert(key, (n, Arc::downgrade(message)));
        Ok(n)
    }

    /// The number of a drift layer, encoding it on first sight (the states
    /// encoded hold every layer until the table is finished, so that no
    /// address is reused meanwhile).
    pub(super) fn layer_number(&mut self, layer: &DriftLayer) -> usize {
        let key = Arc::as_ptr(layer).cast::<u8>();
        if let Some((n, _)) = self.layer_numbers.get(&key) {
            return *n;
        }
        let mut one = Encoder::default();
        super::drift::encode_layer(&mut one, layer);
        self.encoded_layers.bytes(&one.buf);
        let n = self.layer_count;
        self.layer_count += 1;
        self.layer_numbers.insert(key, (n, Arc::downgrade(layer)));
        n
    }

    /// Forgets the messages and drift layers no longer held anywhere: their
    /// addresses may then be reused by new ones, which are numbered anew
    /// (what an encoder that drops its states calls now and then, so that
    /// their allocations do not pile up, issue 40).
    pub(crate) fn forget_dropped(&mut self) {
        self.numbers.retain(|_, (_, weak)| weak.strong_count() > 0);
        self.layer_numbers
            .retain(|_, (_, weak)| weak.strong_count() > 0);
    }

    /// The number of a text log, kept until the table is finished.
    fn text_number(&mut self, log: &Arc<TextLog>) -> usize {
        let key = Arc::as_ptr(log);
        if let Some(&n) = self.text_numbers.get(&key) {
            return n;
        }
        let n = self.text_logs.len();
        self.text_logs.push(Arc::clone(log));
        self.text_numbers.insert(key, n);
        n
    }

    /// The table, encoded: its count, then each message; then the count of
    /// drift layers and each layer; then the count of text logs and each
    /// log (its count of pieces, then each piece). In parts, whose
    /// concatenation it is (issue 40: a writer stores them without joining
    /// them).
    pub fn finish(self) -> Vec<Vec<u8>> {
        let count = |n: usize| {
            let mut e = Encoder::default();
            e.usize(n);
            e.buf
        };
        let mut texts = Encoder::default();
        texts.usize(self.text_logs.len());
        for log in &self.text_logs {
            let mut one = Encoder::default();
            log.with_pieces(|pieces| {
                one.usize(pieces.len());
                for piece in pieces {
                    one.str(piece);
                }
            });
            texts.bytes(&one.buf);
        }
        let mut parts = vec![count(self.count)];
        parts.extend(self.encoded.0);
        parts.push(count(self.layer_count));
        parts.extend(self.encoded_layers.0);
        parts.push(texts.buf);
        parts
    }
}

/// Length-prefixed items appended to blocks of [`Blocks::BLOCK_BYTES`]
/// (issue 40: a table an import holds until its index is ended grows
/// without the slack of one buffer that doubles); the concatenation of the
/// blocks is the bytes.
#[derive(Debug, Default)]
struct Blocks(Vec<Vec<u8>>);

impl Blocks {
    const BLOCK_BYTES: usize = 1 << 20;

    /// Appends `item` after its length.
    fn bytes(&mut self, item: &[u8]) {
        let mut length = Encoder::default();
        length.usize(item.len());
        self.extend(&length.buf);
        self.extend(item);
    }

    fn extend(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self
                .0
                .last()
                .is_none_or(|block| block.len() >= Self::BLOCK_BYTES)
            {
                self.0.push(Vec::with_capacity(Self::BLOCK_BYTES));
            }
            let Some(block) = self.0.last_mut() else {
                return;
            };
            let n = (Self::BLOCK_BYTES - block.len()).min(bytes.len());
            block.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
    }
}

/// What a stored state's decoding reads besides its own bytes: the tables
/// of messages and drift layers, and the last state's message list, which
/// checkpoints' lists are stored against ([`Conversation::changes_from`]).
#[derive(Clone, Copy)]
pub struct Shared<'a> {
    /// The tables ([`LazyMessages::scan`]).
    pub tables: &'a LazyMessages,
    /// The bytes they were scanned from.
    pub blob: &'a [u8],
    /// The last state's messages, once decoded (`None` while decoding it).
    pub head: Option<&'a Conversation>,
}

/// A [`MessageTable`] as read back: where each message and drift layer is
/// in the blob, each decoded on first use and then shared by every state
/// that refers to it (issue 14: opening reads only what the first frame
/// needs).
#[derive(Debug, Default)]
pub struct LazyMessages {
    messages: LazyItems<Message>,
    layers: LazyItems<[(String, Option<super::drift::Since>)]>,
    texts: LazyItems<TextLog>,
}

/// Length-prefixed items of a blob, each decoded on first use, then shared.
#[derive(Debug)]
struct LazyItems<T: ?Sized> {
    ranges: Vec<(usize, usize)>,
    decoded: Vec<std::sync::OnceLock<Arc<T>>>,
}

impl<T: ?Sized> Default for LazyItems<T> {
    fn default() -> Self {
        Self {
            ranges: Vec::new(),
            decoded: Vec::new(),
        }
    }
}

impl<T: ?Sized> LazyItems<T> {
    /// Finds each of the count-prefixed items at `d` (skipping their bytes).
    fn scan(d: &mut Decoder<'_>) -> Decoded<Self> {
        let n = d.count()?;
        let mut ranges = Vec::with_capacity(n);
        for _ in 0..n {
            let len = d.count()?;
            let start = d.pos();
            d.skip(len)?;
            ranges.push((start, start + len));
        }
        let decoded = (0..n).map(|_| std::sync::OnceLock::new()).collect();
        Ok(Self { ranges, decoded })
    }

    /// Item `n` (`what` names it in errors), decoded from `blob` by
    /// `decode` on first use.
    fn get(
        &self,
        blob: &[u8],
        n: usize,
        what: &'static str,
        decode: impl FnOnce(&mut Decoder<'_>) -> Decoded<Arc<T>>,
    ) -> Decoded<Arc<T>> {
        let (Some(&(start, end)), Some(cell)) = (self.ranges.get(n), self.decoded.get(n)) else {
            return Err(DecodeError::NoSuchPart(what));
        };
        if let Some(item) = cell.get() {
            return Ok(Arc::clone(item));
        }
        let Some(bytes) = blob.get(start..end) else {
            return Err(DecodeError::PartPastEnd(what));
        };
        let d = &mut Decoder::new(bytes);
        let item = decode(d)?;
        if !d.at_end() {
            return Err(DecodeError::PartTooLong(what));
        }
        Ok(Arc::clone(cell.get_or_init(|| item)))
    }
}

impl LazyMessages {
    /// Finds every message and drift layer of the table at `d` (skipping
    /// their bytes).
    pub fn scan(d: &mut Decoder<'_>) -> Decoded<Self> {
        Ok(Self {
            messages: LazyItems::scan(d)?,
            layers: LazyItems::scan(d)?,
            texts: LazyItems::scan(d)?,
        })
    }

    /// Text log `n`, decoded from `blob` on first use, then shared.
    fn text_log(&self, blob: &[u8], n: usize) -> Decoded<Arc<TextLog>> {
        self.texts.get(blob, n, "a text", |d| {
            let n = d.count()?;
            let mut pieces = Vec::with_capacity(n);
            for _ in 0..n {
                pieces.push(Box::from(d.str()?));
            }
            Ok(Arc::new(TextLog::of(pieces)))
        })
    }

    /// Drift layer `n`, decoded from `blob` on first use, then shared.
    pub(super) fn layer(&self, blob: &[u8], n: usize) -> Decoded<DriftLayer> {
        self.layers
            .get(blob, n, "a drift layer", super::drift::decode_layer)
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.messages.ranges.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.messages.ranges.is_empty()
    }

    /// Message `n`, decoded from `blob` (the one [`Self::scan`] read) on
    /// first use.
    pub fn get(&self, blob: &[u8], n: usize) -> Decoded<Arc<Message>> {
        self.messages
            .get(blob, n, "a message", |d| decode_message(d).map(Arc::new))
    }
}

fn encode_message(e: &mut Encoder, message: &Message) -> Decoded<()> {
    match message {
        Message::Activity(a) => {
            e.u8(0);
            e.str(&a.id);
            e.str(&a.activity_type);
            e.json(&a.content)?;
            e.usize(a.content_bytes);
            e.opt_str(a.subagent_run_id.as_deref());
            match &a.metadata {
                Some(map) => {
                    e.u8(1);
                    e.object(map)?;
                }
                None => e.u8(0),
            }
        }
        Message::Other(m) => {
            e.u8(1);
            e.str(&m.id);
            e.str(m.role.as_str());
            e.object(&m.fields)?;
        }
    }
    Ok(())
}

fn decode_message(d: &mut Decoder<'_>) -> Decoded<Message> {
    match d.u8()? {
        0 => Ok(Message::Activity(ActivityMessage {
            id: d.string()?.into(),
            activity_type: d.string()?,
            content: Arc::new(d.json()?),
            content_bytes: d.usize()?,
            subagent_run_id: d.opt_string()?,
            metadata: if d.bool()? { Some(d.object()?) } else { None },
        })),
        1 => {
            let id = d.string()?.into();
            let Some(role) = Role::from_name(d.str()?) else {
                return Err(DecodeError::Unknown(
                    "a message in the index has an unknown role",
                ));
            };
            Ok(Message::Other(OtherMessage {
                id,
                role,
                fields: d.object()?,
            }))
        }
        _ => Err(DecodeError::Unknown(
            "a message in the index has an unknown kind",
        )),
    }
}

/// Encodes a diagnostic.
pub fn encode_diagnostic(e: &mut Encoder, diagnostic: &Diagnostic) {
    e.u64(diagnostic.seq.get());
    e.str(diagnostic.code.as_str());
    e.u8(match diagnostic.severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Note => 2,
        Severity::Info => 3,
    });
    e.opt_str(diagnostic.message_id.as_deref());
    e.opt_str(diagnostic.path.as_deref());
    e.str(&diagnostic.message);
    // E20: a drift diagnostic's patch and history.
    match &diagnostic.drift {
        None => e.u8(0),
        Some(drift) => {
            e.u8(match drift.kind {
                DriftKind::Repair => 1,
                DriftKind::Unexplained => 2,
                DriftKind::Unstreamed => 3,
            });
            e.u64(drift.since.get());
            e.u64(drift.deltas);
            e.u64(drift.failed_at.map_or(0, Seq::get));
            // A patch nested too deeply to store is stored empty (the
            // value is refused before anything is written).
            match drift.patch.json_text() {
                // Read from an index: written back as it was
                // (`Encoder::json` wrote it so).
                Some(text) => e.bytes(text),
                None => {
                    if e.json(drift.patch.value()).is_err() {
                        e.bytes(b"[]");
                    }
                }
            }
        }
    }
}

/// Decodes a diagnostic.
pub fn decode_diagnostic(d: &mut Decoder<'_>) -> Decoded<Diagnostic> {
    let seq = d.seq()?;
    let Some(code) = Code::from_name(d.str()?) else {
        return Err(DecodeError::Unknown(
            "a diagnostic in the index has an unknown code",
        ));
    };
    let severity = match d.u8()? {
        0 => Severity::Error,
        1 => Severity::Warning,
        2 => Severity::Note,
        3 => Severity::Info,
        _ => {
            return Err(DecodeError::Unknown(
                "a diagnostic in the index has an unknown severity",
            ));
        }
    };
    let message_id = d.opt_string()?;
    let path = d.opt_string()?;
    let message = d.string()?;
    let mut diagnostic = Diagnostic::new(seq, code, message).with_severity(severity);
    diagnostic.message_id = message_id;
    diagnostic.path = path;
    let kind = match d.u8()? {
        0 => None,
        1 => Some(DriftKind::Repair),
        2 => Some(DriftKind::Unexplained),
        3 => Some(DriftKind::Unstreamed),
        _ => {
            return Err(DecodeError::Unknown(
                "a drift in the index is of an unknown kind",
            ));
        }
    };
    if let Some(kind) = kind {
        let since = d.seq()?;
        let deltas = d.u64()?;
        let failed_at = Some(d.seq()?).filter(|s| s.get() > 0);
        // Parsed when first read (issue 14): most are never looked at.
        let Some(patch) = DriftPatch::from_json_text(d.bytes()?) else {
            return Err(DecodeError::Malformed("a value in the index is not JSON"));
        };
        diagnostic.drift = Some(Box::new(Drift {
            kind,
            since,
            deltas,
            failed_at,
            patch,
        }));
    }
    Ok(diagnostic)
}

const EFFECTS: [Effect; 5] = [
    Effect::Applied,
    Effect::Skipped,
    Effect::Dropped,
    Effect::Fatal,
    Effect::NotApplied,
];

/// Every activity change, numbered by its position (the stored byte).
pub const CHANGES: [ActivityChange; 10] = [
    ActivityChange::Created,
    ActivityChange::Replaced,
    ActivityChange::Declined,
    ActivityChange::SnapshotSkipped,
    ActivityChange::DeltaApplied,
    ActivityChange::Retyped,
    ActivityChange::DeltaSkipped,
    ActivityChange::PatchFailed,
    ActivityChange::Fatal,
    ActivityChange::NotApplied,
];

/// The stored byte of an activity change.
pub fn change_byte(change: ActivityChange) -> u8 {
    CHANGES.iter().position(|c| *c == change).unwrap_or(0) as u8
}

/// The activity change of a stored byte.
pub fn change_of(byte: u8) -> Decoded<ActivityChange> {
    CHANGES.get(usize::from(byte)).copied().map_or_else(
        || {
            Err(DecodeError::Unknown(
                "an activity change in the index is unknown",
            ))
        },
        Ok,
    )
}

fn encode_effect(e: &mut Encoder, effect: EventEffect) {
    e.u8(EFFECTS
        .iter()
        .position(|x| *x == effect.effect)
        .unwrap_or(0) as u8);
    e.u8(effect.activity.map_or(0, |c| change_byte(c) + 1));
}

/// Decodes a count and that many effects (two bytes each, as
/// [`encode_effect`] writes them) in one pass over their bytes: the last
/// state of 10,000,000 events holds as many (issue 14).
fn decode_effects(d: &mut Decoder<'_>) -> Decoded<Vec<EventEffect>> {
    let n = d.count()?;
    let bytes = d.take(n.saturating_mul(2))?;
    let mut effects = Vec::with_capacity(n);
    for pair in bytes.chunks_exact(2) {
        let Some(&effect) = EFFECTS.get(usize::from(pair[0])) else {
            return Err(DecodeError::Unknown("an effect in the index is unknown"));
        };
        let activity = match pair[1] {
            0 => None,
            n => Some(change_of(n - 1)?),
        };
        effects.push(EventEffect { effect, activity });
    }
    Ok(effects)
}

#[cfg(test)]
fn decode_effect(d: &mut Decoder<'_>) -> Decoded<EventEffect> {
    let Some(&effect) = EFFECTS.get(usize::from(d.u8()?)) else {
        return Err(DecodeError::Unknown("an effect in the index is unknown"));
    };
    let activity = match d.u8()? {
        0 => None,
        n => Some(change_of(n - 1)?),
    };
    Ok(EventEffect { effect, activity })
}

/// Encodes the options a replay runs with.
pub fn encode_options(e: &mut Encoder, options: Options) {
    e.str(options.profile.as_str());
    e.str(options.protocol.as_str());
    e.bool(options.best_effort);
}

/// Decodes options.
pub fn decode_options(d: &mut Decoder<'_>) -> Decoded<Options> {
    let profile: Profile = d
        .str()?
        .parse()
        .map_err(|_| DecodeError::Unknown("the index names an unknown profile"))?;
    let protocol_name = d.str()?;
    let Some(protocol) = ProtocolVersion::ALL
        .into_iter()
        .find(|v| v.as_str() == protocol_name)
    else {
        return Err(DecodeError::Unknown(
            "the index names an unknown protocol version",
        ));
    };
    Ok(Options {
        profile,
        protocol,
        best_effort: d.bool()?,
    })
}

fn encode_map<'m>(
    e: &mut Encoder,
    entries: impl ExactSizeIterator<Item = (&'m String, Option<&'m str>)>,
) {
    e.usize(entries.len());
    for (key, value) in entries {
        e.str(key);
        e.opt_str(value);
    }
}

/// Encodes a message list whole: its messages' numbers in the
/// [`MessageTable`].
pub(crate) fn encode_list_whole(e: &mut Encoder, numbers: &[usize]) {
    e.u8(0);
    e.usize(numbers.len());
    for &n in numbers {
        e.usize(n);
    }
}

/// Encodes a message list as the first `len` messages of the last state's
/// with those at `changed` (position, number in the [`MessageTable`], in
/// order) replaced ([`Conversation::prefix_of`]): decoded in time
/// independent of the list's length (issue 14).
pub(crate) fn encode_list_against(e: &mut Encoder, len: usize, changed: &[(usize, usize)]) {
    e.u8(1);
    e.usize(len);
    e.usize(changed.len());
    let mut last = 0;
    for &(i, n) in changed {
        e.usize(i - last);
        e.usize(n);
        last = i;
    }
}

/// Decodes a message list [`encode_list_whole`] or [`encode_list_against`]
/// wrote.
fn decode_list(d: &mut Decoder<'_>, shared: Shared<'_>) -> Decoded<Conversation> {
    let message = |n: usize| shared.tables.get(shared.blob, n);
    match d.u8()? {
        0 => {
            let n = d.count()?;
            let mut list = Vec::with_capacity(n);
            for _ in 0..n {
                list.push(message(d.usize()?)?);
            }
            let mut conversation = Conversation::default();
            conversation.set_messages(list);
            Ok(conversation)
        }
        1 => {
            let Some(head) = shared.head else {
                return Err(DecodeError::Malformed(
                    "a state in the index is stored against the last one, not given",
                ));
            };
            let len = d.usize()?;
            let n = d.count()?;
            let mut changed = Vec::with_capacity(n);
            let mut at = 0usize;
            for i in 0..n {
                let gap = d.usize()?;
                at = match at.checked_add(gap) {
                    Some(at) if gap > 0 || i == 0 => at,
                    _ => {
                        return Err(DecodeError::Malformed(
                            "a changed message in the index is out of range",
                        ));
                    }
                };
                changed.push((at, message(d.usize()?)?));
            }
            Conversation::prefix_of(head, len, changed).ok_or(DecodeError::Malformed(
                "a checkpoint's messages in the index do not follow the last state's",
            ))
        }
        _ => Err(DecodeError::Unknown(
            "a message list in the index is of an unknown kind",
        )),
    }
}

impl Replayer {
    /// Encodes this state (its logs included) with its shared state as
    /// `state` (JSON text); with its message list whole, its messages in
    /// `table`, when `with_list` (the head of a timeline). A checkpoint's
    /// list is stored apart, as the changes from the last state's when it
    /// can be (issue 14; issue 40: [`encode_list_against`]).
    fn encode_with(
        &self,
        e: &mut Encoder,
        table: &mut MessageTable,
        state: &[u8],
        with_list: bool,
    ) -> Decoded<()> {
        encode_options(e, self.options);
        if with_list {
            let numbers = self
                .conversation
                .shared()
                .map(|message| table.number(message))
                .collect::<Decoded<Vec<usize>>>()?;
            encode_list_whole(e, &numbers);
        }
        let mut from_input = self.conversation.input_entries();
        from_input.sort();
        e.usize(from_input.len());
        for (id, step) in from_input {
            e.str(id);
            e.u64(step.get());
        }
        e.bytes(state);
        e.usize(self.state_bytes);
        e.u8(match self.run {
            RunPhase::NotStarted => 0,
            RunPhase::Open => 1,
            RunPhase::Ended => 2,
        });
        e.opt_str(self.ended_by.map(EventType::as_str));
        let mut owners: Vec<_> = self.owners.iter().collect();
        owners.sort();
        encode_map(e, owners.into_iter().map(|(k, v)| (k, v.as_deref())));
        self.streams.encode(e);
        let mut calls: Vec<_> = self.tool_call_messages.iter().collect();
        calls.sort();
        encode_map(e, calls.into_iter().map(|(k, v)| (k, Some(v.as_str()))));
        e.u64(self.seq.get());
        match &self.fatal {
            Some(fatal) => {
                e.u8(1);
                encode_diagnostic(e, fatal);
            }
            None => e.u8(0),
        }
        e.bool(self.finished);
        e.usize(self.diagnostics.len());
        for diagnostic in &self.diagnostics {
            encode_diagnostic(e, diagnostic);
        }
        e.usize(self.effects.len());
        for effect in &self.effects {
            encode_effect(e, *effect);
        }
        self.drift.encode(e, table);
        // C12: the draft's identities, stored only under the draft, so the
        // layout under 1.0 and 1.1 is as before (a build that does not
        // know the draft refuses its options above).
        if self.options.protocol.is_draft() {
            e.opt_str(self.thread_id.as_deref());
            e.opt_str(self.run_id.as_deref());
        }
        Ok(())
    }

    /// Encodes this state, its logs included (the head of a timeline), its
    /// message list whole.
    pub fn encode(&self, e: &mut Encoder, table: &mut MessageTable) -> Decoded<()> {
        if depth(&self.state) > MAX_DEPTH {
            return Err(DecodeError::Unstorable(
                "the state is nested too deeply to be stored",
            ));
        }
        let state = serde_json::to_vec(&*self.state)
            .map_err(|e| DecodeError::NotWritable(e.to_string()))?;
        self.encode_with(e, table, &state, true)
    }

    /// Decodes a state [`Self::encode`] wrote, its messages and drift
    /// layers from `shared`'s tables.
    pub fn decode(d: &mut Decoder<'_>, shared: Shared<'_>) -> Decoded<Self> {
        let (mut replayer, state) = Self::decode_with(d, None, shared)?;
        replayer.state = Arc::new(
            serde_json::from_slice(state)
                .map_err(|_| DecodeError::Malformed("the stored state is not JSON"))?,
        );
        Ok(replayer)
    }

    /// Decodes what [`Self::encode_with`] wrote, the message list from
    /// `list` when it is stored apart (a checkpoint's).
    fn decode_with<'a>(
        d: &mut Decoder<'a>,
        list: Option<&mut Decoder<'_>>,
        shared: Shared<'_>,
    ) -> Decoded<(Self, &'a [u8])> {
        let options = decode_options(d)?;
        let mut replayer = Self::new(options);
        let mut conversation = match list {
            Some(list) => decode_list(list, shared)?,
            None => decode_list(d, shared)?,
        };
        for _ in 0..d.count()? {
            let id = d.str()?;
            let step = d.seq()?;
            conversation.mark_from_input(id, step);
        }
        replayer.conversation = conversation;
        let state = d.bytes()?;
        replayer.state_bytes = d.usize()?;
        replayer.run = match d.u8()? {
            0 => RunPhase::NotStarted,
            1 => RunPhase::Open,
            2 => RunPhase::Ended,
            _ => return Err(DecodeError::Unknown("a run phase in the index is unknown")),
        };
        replayer.ended_by = match d.opt_string()? {
            Some(name) => match EventType::from_name(&name) {
                Some(t) => Some(t),
                None => {
                    return Err(DecodeError::Unknown(
                        "an event type in the index is unknown",
                    ));
                }
            },
            None => None,
        };
        let mut owners = FxHashMap::default();
        for _ in 0..d.count()? {
            owners.insert(d.string()?, d.opt_string()?);
        }
        replayer.owners = Arc::new(owners);
        replayer.streams = super::streams::Streams::decode(d)?;
        let mut calls = FxHashMap::default();
        for _ in 0..d.count()? {
            let key = d.string()?;
            let Some(value) = d.opt_string()? else {
                return Err(DecodeError::Malformed(
                    "a tool call in the index has no message",
                ));
            };
            calls.insert(key, value);
        }
        replayer.tool_call_messages = Arc::new(calls);
        replayer.seq = d.seq()?;
        replayer.fatal = if d.bool()? {
            Some(decode_diagnostic(d)?)
        } else {
            None
        };
        replayer.finished = d.bool()?;
        let n = d.count()?;
        replayer.diagnostics = Vec::with_capacity(n);
        for _ in 0..n {
            replayer.diagnostics.push(decode_diagnostic(d)?);
        }
        replayer.effects = decode_effects(d)?;
        replayer.drift = super::drift::DriftWatch::decode(d, shared)?;
        if options.protocol.is_draft() {
            replayer.thread_id = d.opt_string()?.map(Arc::from);
            replayer.run_id = d.opt_string()?.map(Arc::from);
        }
        Ok((replayer, state))
    }
}

impl FrozenReplay {
    /// Encodes this checkpoint but its message list, which is stored apart
    /// ([`encode_list_against`], [`encode_list_whole`]): its drift layers
    /// and texts in `table`.
    pub fn encode_body(&self, e: &mut Encoder, table: &mut MessageTable) -> Decoded<()> {
        let Some(state) = self.state.text() else {
            return Err(DecodeError::Unstorable(
                "a checkpoint holds a value nested too deeply to be stored",
            ));
        };
        self.base.encode_with(e, table, state, false)?;
        e.usize(self.contents.len());
        for (i, content) in &self.contents {
            let Some(text) = content.text() else {
                return Err(DecodeError::Unstorable(
                    "a checkpoint holds a value nested too deeply to be stored",
                ));
            };
            e.usize(*i);
            e.bytes(text);
        }
        e.usize(self.texts.len());
        let mut last = 0;
        for (i, text) in &self.texts {
            e.usize(i - last);
            last = *i;
            e.usize(table.text_number(&text.log));
            e.usize(text.pieces);
        }
        Ok(())
    }

    /// Its message list, for the encoder that stores it apart.
    pub(crate) fn conversation(&self) -> &Conversation {
        &self.base.conversation
    }

    /// Decodes a checkpoint [`Self::encode_body`] wrote, its message list
    /// from `list` (`shared.head`: the last state's messages).
    pub fn decode(
        d: &mut Decoder<'_>,
        list: &mut Decoder<'_>,
        shared: Shared<'_>,
    ) -> Decoded<Self> {
        let (base, state) = Replayer::decode_with(d, Some(list), shared)?;
        let state = super::frozen::Stored::from_text(state)?;
        let n = d.count()?;
        let mut contents = Vec::with_capacity(n);
        for _ in 0..n {
            let i = d.usize()?;
            contents.push((i, super::frozen::Stored::from_text(d.bytes()?)?));
        }
        // Issue 38: the long texts, each at a message emptied of it.
        let n = d.count()?;
        let mut texts: Vec<(usize, FrozenText)> = Vec::with_capacity(n);
        let mut at = 0usize;
        for _ in 0..n {
            let gap = d.usize()?;
            at = match at.checked_add(gap) {
                Some(i) if gap > 0 || texts.is_empty() => i,
                _ => {
                    return Err(DecodeError::Malformed(
                        "the texts of a checkpoint in the index are out of order",
                    ));
                }
            };
            let log = shared.tables.text_log(shared.blob, d.usize()?)?;
            let Some(text) = FrozenText::of_log(log, d.usize()?) else {
                return Err(DecodeError::Malformed(
                    "a checkpoint in the index holds more of a text than it has",
                ));
            };
            match base.conversation.at(at) {
                Some(Message::Other(message)) if message.text() == Some("") => {}
                _ => {
                    return Err(DecodeError::Malformed(
                        "a text of a checkpoint in the index has no message to go to",
                    ));
                }
            }
            texts.push((at, text));
        }
        Ok(Self {
            base,
            contents,
            state,
            texts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40: items appended to blocks are, joined, what one buffer
    /// holds, however they cross the blocks' ends; no block is longer.
    #[test]
    fn items_in_blocks_are_the_items_in_one_buffer() {
        let mut blocks = Blocks::default();
        let mut one = Encoder::default();
        for i in 0..300usize {
            let item: Vec<u8> = (0..(i * 97 % 20_000)).map(|k| (k + i) as u8).collect();
            blocks.bytes(&item);
            one.bytes(&item);
        }
        assert!(blocks.0.len() > 2, "{} blocks", blocks.0.len());
        assert!(blocks.0.iter().all(|b| b.len() <= Blocks::BLOCK_BYTES));
        assert!(blocks.0.concat() == one.buf);
    }

    #[test]
    fn effects_decoded_in_one_pass_are_those_decoded_one_by_one() {
        // Issue 14: the last state's effects are decoded from their bytes
        // in one pass; the result is what decoding each gives.
        let mut effects = Vec::new();
        for effect in EFFECTS {
            effects.push(EventEffect {
                effect,
                activity: None,
            });
            for change in CHANGES {
                effects.push(EventEffect {
                    effect,
                    activity: Some(change),
                });
            }
        }
        let mut e = Encoder::default();
        e.usize(effects.len());
        for effect in &effects {
            encode_effect(&mut e, *effect);
        }
        let one_by_one = {
            let d = &mut Decoder::new(&e.buf);
            let n = d.count().expect("count");
            (0..n)
                .map(|_| decode_effect(d).expect("an effect"))
                .collect::<Vec<_>>()
        };
        let d = &mut Decoder::new(&e.buf);
        assert_eq!(decode_effects(d), Ok(one_by_one.clone()));
        assert!(d.at_end());
        assert_eq!(one_by_one, effects);
        // Cut short, or with an unknown effect or change: refused.
        assert!(decode_effects(&mut Decoder::new(&e.buf[..e.buf.len() - 1])).is_err());
        for (at, byte) in [
            (e.buf.len() - 2, EFFECTS.len() as u8),
            (e.buf.len() - 1, 200),
        ] {
            let mut damaged = e.buf.clone();
            damaged[at] = byte;
            assert!(decode_effects(&mut Decoder::new(&damaged)).is_err(), "{at}");
        }
    }

    #[test]
    fn a_drift_patch_read_from_an_index_is_parsed_when_first_read_and_equals_the_written_one() {
        // Issue 14: a stored diagnostic's drift patch stays JSON text until
        // it is read; it compares, serializes and encodes as the patch
        // written.
        let patch = serde_json::json!([
            {"op": "replace", "path": "/content/n", "value": {"b": [1, 2.5, "é\n"], "a": null}},
            {"op": "remove", "path": "/content/gone"}
        ]);
        let mut diagnostic = Diagnostic::new(Seq::new(9), Code::ActivityDrift, "drifted");
        diagnostic.drift = Some(Box::new(Drift {
            kind: DriftKind::Repair,
            since: Seq::new(3),
            deltas: 4,
            failed_at: Some(Seq::new(5)),
            patch: patch.clone().into(),
        }));
        let mut e = Encoder::default();
        encode_diagnostic(&mut e, &diagnostic);
        let d = &mut Decoder::new(&e.buf);
        let back = decode_diagnostic(d).expect("decodes");
        assert!(d.at_end());
        let drift = back.drift.as_deref().expect("a drift");
        assert!(drift.patch.json_text().is_some(), "kept as text");
        assert_eq!(drift.patch, patch);
        assert_eq!(back, diagnostic);
        assert_eq!(
            serde_json::to_string(&back).expect("serializes"),
            serde_json::to_string(&diagnostic).expect("serializes")
        );
        assert_eq!(drift.paths(), ["/content/n", "/content/gone"]);
        // Encoded again (parsed or not), the same bytes.
        let mut again = Encoder::default();
        encode_diagnostic(&mut again, &back);
        assert_eq!(again.buf, e.buf);
        // A patch that is not JSON is refused when the diagnostic is
        // decoded, not when it is first read.
        let text = serde_json::to_vec(&patch).expect("text");
        let at = e
            .buf
            .windows(text.len())
            .position(|w| w == &text[..])
            .expect("the patch's text");
        let mut damaged = e.buf.clone();
        damaged[at + 1] = b'}';
        assert!(decode_diagnostic(&mut Decoder::new(&damaged)).is_err());
        assert!(DriftPatch::from_json_text(b"[{\"op\": ").is_none());
    }

    #[test]
    fn numbers_round_trip_and_truncation_is_an_error() {
        let mut e = Encoder::default();
        for n in [0, 1, 127, 128, 300, u64::MAX] {
            e.u64(n);
        }
        let mut d = Decoder::new(&e.buf);
        for n in [0, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(d.u64(), Ok(n));
        }
        assert!(d.at_end());
        let mut d = Decoder::new(&e.buf[..e.buf.len() - 1]);
        for _ in 0..5 {
            d.u64().expect("whole numbers");
        }
        assert!(d.u64().is_err(), "a cut number is an error, not a panic");
        // A length larger than the bytes left is refused before allocating.
        let mut e = Encoder::default();
        e.u64(1 << 40);
        assert!(Decoder::new(&e.buf).bytes().is_err());
    }
}
