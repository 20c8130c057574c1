//! Compact copies of a replay state, for checkpoints.
//!
//! Activity contents and the shared state change with almost every event;
//! a checkpoint that shared them with the live state would make the live
//! state copy each of them on its next patch, and hold a full tree per
//! activity per checkpoint. A frozen state keeps them as compact JSON text
//! instead (a few hundred bytes where a tree takes kilobytes) and shares
//! everything else. Thawing parses them back.
//!
//! A long text a message is streamed into is not shared either: the live
//! state appends to it, which would copy it whole after each checkpoint.
//! A frozen state keeps it as the first pieces of a [`TextLog`], each
//! piece what the text gained between two checkpoints, held once however
//! many checkpoints follow (issue 38).

use std::sync::{Arc, RwLock, Weak};

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::conversation::{ActivityMessage, Message, OtherMessage};
use super::engine::Replayer;

/// A value kept as JSON text, or shared as is when it is too deeply nested
/// to be parsed back within `serde_json`'s recursion limit.
#[derive(Clone, Debug)]
pub(super) enum Stored {
    /// Shared by the checkpoints between which the value did not change.
    Text(Arc<[u8]>),
    Shared(Arc<Value>),
}

/// Nesting deeper than this is kept as a tree (serde_json parses to 128).
const MAX_ENCODED_DEPTH: usize = 100;

impl Stored {
    /// `value` as its compact JSON text, written through `scratch` (a
    /// buffer reused from one value to the next, so that the text is
    /// allocated once at its size), or shared as is when it nests deeper
    /// than [`MAX_ENCODED_DEPTH`]. One walk both checks the depth and
    /// writes the text (issue 14: freezing is on the applying thread).
    fn of(value: &Arc<Value>, scratch: &mut Vec<u8>) -> Self {
        scratch.clear();
        if write_compact(value, MAX_ENCODED_DEPTH, scratch).is_ok() {
            return Self::Text(scratch.as_slice().into());
        }
        Self::Shared(Arc::clone(value))
    }

    /// The length of its JSON text (0 for a value kept as a tree).
    fn text_len(&self) -> usize {
        self.text().map_or(0, <[u8]>::len)
    }

    /// The JSON text, unless the value is kept as a tree.
    pub(super) fn text(&self) -> Option<&[u8]> {
        match self {
            Self::Text(text) => Some(text),
            Self::Shared(_) => None,
        }
    }

    /// A value read back from stored JSON text (checked to be JSON).
    pub(super) fn from_text(text: &[u8]) -> Result<Self, super::codec::DecodeError> {
        match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            Ok(_) => Ok(Self::Text(text.into())),
            Err(_) => Err(super::codec::DecodeError::Malformed(
                "a checkpoint in the index holds a value that is not JSON",
            )),
        }
    }

    fn thaw(&self) -> Arc<Value> {
        match self {
            Self::Text(text) => Arc::new(serde_json::from_slice(text).unwrap_or(Value::Null)),
            Self::Shared(value) => Arc::clone(value),
        }
    }
}

/// A value nested more than [`MAX_ENCODED_DEPTH`] deep, kept as a tree.
struct TooDeep;

/// Writes `value` to `out` as `serde_json` writes it compact (the same
/// text: the stored index holds it), or fails when it nests more than
/// `room` arrays and objects: a scalar needs no room, an array or object
/// one more than its deepest element. Written here rather than through
/// `serde_json`'s serializer, which checks every byte of every string for
/// escapes one by one: most strings need none, and are copied whole once a
/// check of all their bytes finds none (issue 14: writing checkpoints'
/// text was about a seventh of the applying thread's time).
fn write_compact(value: &Value, room: usize, out: &mut Vec<u8>) -> Result<(), TooDeep> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_serde(number, out),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            let room = room.checked_sub(1).ok_or(TooDeep)?;
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(item, room, out)?;
            }
            out.push(b']');
        }
        Value::Object(members) => {
            let room = room.checked_sub(1).ok_or(TooDeep)?;
            out.push(b'{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(key, out);
                out.push(b':');
                write_compact(item, room, out)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

/// A JSON string, quoted; escaped by `serde_json` when any byte needs it.
fn write_string(text: &str, out: &mut Vec<u8>) {
    // Every byte checked, with no early exit: the compiler checks many at
    // once.
    let needs_escape = text.bytes().fold(false, |any, byte| {
        any | (byte < 0x20 || byte == b'"' || byte == b'\\')
    });
    if needs_escape {
        write_serde(text, out);
    } else {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    }
}

/// `serde_json`'s own compact text of `value` (cannot fail into a `Vec`).
fn write_serde<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    let written = serde_json::to_writer(&mut *out, value);
    debug_assert!(written.is_ok(), "a number or string writes into a Vec");
}

/// A text shorter than this is shared with the live state, as it was:
/// copying it after a checkpoint costs little.
pub(super) const LONG_TEXT_BYTES: usize = 4096;

/// The pieces of a long message's text, in order, each what it gained
/// between one checkpoint and the next (the first: all it held at the
/// first), appended to as it grows and never changed otherwise: the
/// checkpoints of a message share one log, each holding its first pieces
/// ([`FrozenText`]), so that the text is held once however many
/// checkpoints are taken while it streams (issue 38).
#[derive(Debug, Default)]
pub struct TextLog {
    pieces: RwLock<Vec<Box<str>>>,
}

impl TextLog {
    /// A log of these pieces (read back from an index).
    pub(super) fn of(pieces: Vec<Box<str>>) -> Self {
        Self {
            pieces: RwLock::new(pieces),
        }
    }

    /// Calls `f` with the pieces.
    pub(super) fn with_pieces<T>(&self, f: impl FnOnce(&[Box<str>]) -> T) -> T {
        f(&self.pieces.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A long text as a checkpoint holds it: the first `pieces` pieces of a
/// [`TextLog`], `len` bytes in all.
#[derive(Clone, Debug)]
pub(super) struct FrozenText {
    pub(super) log: Arc<TextLog>,
    pub(super) pieces: usize,
    len: usize,
}

impl FrozenText {
    /// `text`, as the first piece of a log of its own.
    fn new(text: &str) -> Self {
        Self {
            log: Arc::new(TextLog::of(vec![text.into()])),
            pieces: 1,
            len: text.len(),
        }
    }

    /// The first `pieces` pieces of `log`; `None` when it has fewer.
    pub(super) fn of_log(log: Arc<TextLog>, pieces: usize) -> Option<Self> {
        let len =
            log.with_pieces(|all| Some(all.get(..pieces)?.iter().map(|piece| piece.len()).sum()))?;
        Some(Self { log, pieces, len })
    }

    /// Its length in bytes.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// This text followed by `tail`: the next piece of its log when it is
    /// the whole log (as the last checkpoint's text is), else the whole
    /// text as the first piece of a new log.
    fn extended(&self, tail: &str) -> Self {
        if tail.is_empty() {
            return self.clone();
        }
        {
            let mut pieces = self.log.pieces.write().unwrap_or_else(|e| e.into_inner());
            if pieces.len() == self.pieces {
                pieces.push(tail.into());
                return Self {
                    log: Arc::clone(&self.log),
                    pieces: self.pieces + 1,
                    len: self.len + tail.len(),
                };
            }
        }
        let mut text = self.text();
        text.push_str(tail);
        Self::new(&text)
    }

    /// Whether `text` starts with this text.
    fn starts(&self, text: &str) -> bool {
        let text = text.as_bytes();
        text.len() >= self.len
            && self.log.with_pieces(|pieces| {
                let mut at = 0;
                pieces[..self.pieces].iter().all(|piece| {
                    let same = text.get(at..at + piece.len()) == Some(piece.as_bytes());
                    at += piece.len();
                    same
                })
            })
    }

    /// The text.
    pub(super) fn text(&self) -> String {
        let mut text = String::with_capacity(self.len);
        self.log.with_pieces(|pieces| {
            for piece in &pieces[..self.pieces] {
                text.push_str(piece);
            }
        });
        text
    }
}

/// A replay state with its activity contents and shared state stored as
/// compact text. See [`Replayer::freeze_sharing`].
#[derive(Clone, Debug)]
pub struct FrozenReplay {
    /// The state, with placeholders where contents and state were.
    pub(super) base: Replayer,
    /// Position in the message list and content of every activity.
    pub(super) contents: Vec<(usize, Stored)>,
    pub(super) state: Stored,
    /// Position in the message list and text of every long message being
    /// streamed, ascending (issue 38): in `base`, its text is empty.
    pub(super) texts: Vec<(usize, FrozenText)>,
}

impl FrozenReplay {
    /// About what it weighs stored: its contents and state as JSON text
    /// (those kept as trees count nothing). Its message list and drift
    /// tracking count nothing: stored, they are the changes from the last
    /// state's and the drift layers the index holds once (issue 14: they
    /// grew with the stream, and spread the checkpoints of a long one far
    /// apart). How far apart checkpoints are spaced.
    pub fn weight(&self) -> u64 {
        let contents: usize = self.contents.iter().map(|(_, c)| c.text_len()).sum();
        (contents + self.state.text_len()) as u64
    }
}

/// The texts of the last checkpoint, to be shared by the next one where a
/// value did not change in between (issue 14: freezing wrote every
/// activity's content again at each checkpoint, a sixth of the applying
/// thread's time, though most had not changed since the last).
///
/// A value is known unchanged by its allocation: the cache holds a [`Weak`]
/// to it, which does not keep it alive or make the live state copy it on
/// its next patch. A value is changed through `Arc::make_mut`, which moves
/// it to a new allocation when weak pointers to the old one exist, or
/// replaced by a new `Arc`; either way the weak pointer no longer upgrades
/// to the value the state holds.
///
/// It also keeps the last checkpoint's emptied activity messages (their
/// contents taken out), shared by the next where nothing but the content
/// changed: a new one at each checkpoint for each activity was about a
/// tenth of the checkpoints' memory (issue 14: 17 of 149 MB at 1,000,000
/// events).
#[derive(Clone, Debug, Default)]
pub struct FreezeCache {
    /// By position in the message list.
    contents: FxHashMap<usize, Kept>,
    state: Option<(Weak<Value>, Stored)>,
    /// The long texts being streamed, by message id (issue 38).
    texts: FxHashMap<String, KeptText>,
}

/// What the cache keeps of a long text being streamed.
#[derive(Clone, Debug)]
struct KeptText {
    /// Where its message was, and the list's witness then
    /// ([`super::Conversation::witness`]).
    position: usize,
    witness: u64,
    text: FrozenText,
    /// Its message with an empty text.
    emptied: Arc<Message>,
}

/// What the cache keeps of one activity.
#[derive(Clone, Debug)]
struct Kept {
    content: (Weak<Value>, Stored),
    emptied: Arc<Message>,
}

impl FreezeCache {
    /// The text of `value`, shared with the last checkpoint's if `last`
    /// is of this very value, and what to remember of it for the next.
    fn store(
        last: Option<&(Weak<Value>, Stored)>,
        value: &Arc<Value>,
        scratch: &mut Vec<u8>,
    ) -> (Weak<Value>, Stored) {
        if let Some((weak, stored)) = last
            && weak.upgrade().is_some_and(|held| Arc::ptr_eq(&held, value))
        {
            return (weak.clone(), stored.clone());
        }
        (Arc::downgrade(value), Stored::of(value, scratch))
    }
}

impl Replayer {
    /// A compact copy of the state at the current step, with empty logs,
    /// sharing the texts of the values that did not change since the
    /// checkpoint `cache` was last given (and keeping this one's in it for
    /// the next; a new cache shares nothing).
    pub fn freeze_sharing(&self, cache: &mut FreezeCache) -> FrozenReplay {
        let mut base = self.checkpoint_with(self.drift.frozen());
        let placeholder = Arc::new(Value::Null);
        let mut scratch = Vec::new();
        // Only the activities are visited, by the positions the list keeps
        // of them (the list grows with the stream, its activities do not;
        // issue 14), then emptied in the copy.
        let mut emptied = Vec::new();
        let mut contents = Vec::new();
        let mut kept: FxHashMap<usize, Kept> = FxHashMap::default();
        debug_assert!(
            self.conversation
                .iter()
                .enumerate()
                .filter(|(_, m)| matches!(m, Message::Activity(_)))
                .map(|(i, _)| i)
                .eq(self.conversation.activity_positions().iter().copied()),
            "the positions of the activities are those of the list"
        );
        for &i in self.conversation.activity_positions() {
            let Some(Message::Activity(activity)) = self.conversation.at(i) else {
                continue;
            };
            // Thawing weighs the content again: the weight the patches
            // kept must be that one.
            debug_assert_eq!(
                activity.content_bytes,
                super::document_bytes(&activity.content),
                "the kept weight of activity {} is its content's",
                activity.id
            );
            let last = cache.contents.get(&i);
            let (weak, stored) = FreezeCache::store(
                last.map(|kept| &kept.content),
                &activity.content,
                &mut scratch,
            );
            contents.push((i, stored.clone()));
            let emptied_message = match last {
                Some(kept) if same_but_content(&kept.emptied, activity) => {
                    Arc::clone(&kept.emptied)
                }
                _ => Arc::new(Message::Activity(emptied_of(activity, &placeholder))),
            };
            emptied.push((i, Arc::clone(&emptied_message)));
            kept.insert(
                i,
                Kept {
                    content: (weak, stored),
                    emptied: emptied_message,
                },
            );
        }
        let (texts, kept_texts) = self.freeze_texts(&cache.texts);
        for kept in &kept_texts {
            emptied.push((kept.position, Arc::clone(&kept.emptied)));
        }
        for (i, message) in emptied {
            base.conversation.replace_at(i, message);
        }
        let (weak, state) = FreezeCache::store(cache.state.as_ref(), &self.state, &mut scratch);
        cache.contents = kept;
        cache.state = Some((weak, state.clone()));
        cache.texts = kept_texts
            .into_iter()
            .map(|kept| (kept.emptied.id().to_owned(), kept))
            .collect();
        base.state = placeholder;
        FrozenReplay {
            base,
            contents,
            state,
            texts,
        }
    }

    /// The long texts of the messages being streamed (issue 38), by
    /// position, ascending, and what the cache keeps of each. A text that
    /// starts with the one `last` kept of its message is that one's
    /// followed by what it gained: known so without comparing them while
    /// nothing but appends changed the list since, compared otherwise.
    fn freeze_texts(
        &self,
        last: &FxHashMap<String, KeptText>,
    ) -> (Vec<(usize, FrozenText)>, Vec<KeptText>) {
        let (messages, tool_calls) = self.streams.growing();
        let holders = tool_calls
            .into_iter()
            .filter_map(|call| self.tool_call_messages.get(call).map(String::as_str));
        let mut positions: Vec<usize> = messages
            .into_iter()
            .chain(holders)
            .filter_map(|id| self.conversation.position(id))
            .collect();
        positions.sort_unstable();
        positions.dedup();
        let witness = self.conversation.witness();
        let mut texts = Vec::new();
        let mut kept = Vec::new();
        for i in positions {
            let Some(Message::Other(message)) = self.conversation.at(i) else {
                continue;
            };
            let Some(text) = message.text().filter(|t| t.len() >= LONG_TEXT_BYTES) else {
                continue;
            };
            let before = last
                .get(message.id.as_str())
                .filter(|kept| kept.position == i);
            let only_appended = before.is_some_and(|kept| kept.witness == witness);
            let frozen = match before {
                Some(kept)
                    if (only_appended && text.is_char_boundary(kept.text.len()))
                        || kept.text.starts(text) =>
                {
                    kept.text.extended(&text[kept.text.len()..])
                }
                _ => FrozenText::new(text),
            };
            let emptied = match before {
                Some(kept) if only_appended || same_but_text(&kept.emptied, message) => {
                    Arc::clone(&kept.emptied)
                }
                _ => Arc::new(Message::Other(emptied_text(message))),
            };
            texts.push((i, frozen.clone()));
            kept.push(KeptText {
                position: i,
                witness,
                text: frozen,
                emptied,
            });
        }
        (texts, kept)
    }
}

/// `message` with its text emptied.
fn emptied_text(message: &OtherMessage) -> OtherMessage {
    let mut fields = serde_json::Map::new();
    for (name, value) in &message.fields {
        let value = match name.as_str() {
            "content" => Value::String(String::new()),
            _ => value.clone(),
        };
        fields.insert(name.clone(), value);
    }
    OtherMessage {
        id: message.id.clone(),
        role: message.role,
        fields,
    }
}

/// Whether `emptied` is [`emptied_text`] of `message`.
fn same_but_text(emptied: &Message, message: &OtherMessage) -> bool {
    let Message::Other(emptied) = emptied else {
        return false;
    };
    emptied.id == message.id
        && emptied.role == message.role
        && emptied.fields.len() == message.fields.len()
        && emptied.text() == Some("")
        && message
            .fields
            .iter()
            .filter(|(name, _)| *name != "content")
            .all(|(name, value)| emptied.fields.get(name) == Some(value))
}

/// `activity` with its content taken out: a placeholder, and no weight
/// (thawing weighs the content it puts back).
fn emptied_of(activity: &ActivityMessage, placeholder: &Arc<Value>) -> ActivityMessage {
    ActivityMessage {
        id: activity.id.clone(),
        activity_type: activity.activity_type.clone(),
        content: Arc::clone(placeholder),
        content_bytes: 0,
        subagent_run_id: activity.subagent_run_id.clone(),
        metadata: activity.metadata.clone(),
    }
}

/// Whether `emptied` is [`emptied_of`] `activity`: everything but the
/// content the same.
fn same_but_content(emptied: &Message, activity: &ActivityMessage) -> bool {
    let Message::Activity(emptied) = emptied else {
        return false;
    };
    emptied.id == activity.id
        && emptied.activity_type == activity.activity_type
        && emptied.subagent_run_id == activity.subagent_run_id
        && emptied.metadata == activity.metadata
}

impl FrozenReplay {
    /// The step it was taken at.
    pub fn step(&self) -> crate::diagnostic::Seq {
        self.base.step()
    }

    /// The options of the replay it was taken from.
    pub fn options(&self) -> super::Options {
        self.base.options()
    }

    /// The JSON of message `id` at this step, thawing only its own content
    /// (`None`: no such message).
    pub fn message_json(&self, id: &str) -> Option<Value> {
        let i = self.base.conversation.position(id)?;
        let message = self.base.conversation.at(i)?;
        match message {
            Message::Activity(activity) => {
                let content = self
                    .contents
                    .iter()
                    .find(|(at, _)| *at == i)
                    .map_or_else(|| Arc::new(Value::Null), |(_, c)| c.thaw());
                Some(
                    Message::Activity(ActivityMessage {
                        content,
                        ..activity.clone()
                    })
                    .to_json(),
                )
            }
            Message::Other(message) => match self.texts.iter().find(|(at, _)| *at == i) {
                Some((_, text)) => Some(with_text(message, text).to_json()),
                None => Some(message.to_json()),
            },
        }
    }

    /// The shared state at this step.
    pub fn state_json(&self) -> Value {
        (*self.state.thaw()).clone()
    }

    /// A live replayer at this step, with empty logs.
    ///
    /// A big one's texts are parsed on two threads, half of their bytes on
    /// each (issue 14: parsing was a fifth of a seek, and the thread that
    /// seeks waits for it).
    pub fn thaw(&self) -> Replayer {
        let mut replayer = self.base.checkpoint();
        let bytes: usize = self.contents.iter().map(|(_, c)| c.text_len()).sum();
        let contents = if bytes < PARALLEL_THAW_BYTES {
            thaw_all(&self.contents)
        } else {
            let mut half = 0;
            let split = self
                .contents
                .iter()
                .position(|(_, c)| {
                    half += c.text_len();
                    half * 2 >= bytes
                })
                .map_or(self.contents.len(), |i| i + 1);
            let (first, second) = self.contents.split_at(split);
            std::thread::scope(|scope| {
                let other = std::thread::Builder::new()
                    .spawn_scoped(scope, || thaw_all(second))
                    .ok();
                let mut thawed = thaw_all(first);
                match other.map(|handle| handle.join()) {
                    Some(Ok(rest)) => thawed.extend(rest),
                    // The thread did not start (or did not finish): here.
                    _ => thawed.extend(thaw_all(second)),
                }
                thawed
            })
        };
        for ((i, _), content) in self.contents.iter().zip(contents) {
            if let Some(Message::Activity(activity)) = replayer.conversation.get_mut_at(*i) {
                (activity.content, activity.content_bytes) = content;
            }
        }
        for (i, text) in &self.texts {
            if let Some(Message::Other(message)) = replayer.conversation.get_mut_at(*i)
                && let Some(slot) = message.fields.get_mut("content")
            {
                *slot = Value::String(text.text());
            }
        }
        replayer.state = self.state.thaw();
        replayer
    }
}

/// `emptied` with its text put back.
fn with_text(emptied: &OtherMessage, text: &FrozenText) -> OtherMessage {
    let mut message = emptied.clone();
    if let Some(slot) = message.fields.get_mut("content") {
        *slot = Value::String(text.text());
    }
    message
}

/// Texts of at least this many bytes in all are thawed on two threads:
/// below it, starting a thread costs about what it saves.
const PARALLEL_THAW_BYTES: usize = 64 * 1024;

/// Each content's value and its weight, in order. The weight is exact
/// (`document_bytes` is), so the same as the one the patches kept up to
/// date.
fn thaw_all(contents: &[(usize, Stored)]) -> Vec<(Arc<Value>, usize)> {
    contents
        .iter()
        .map(|(_, c)| {
            let value = c.thaw();
            let bytes = super::document_bytes(&value);
            (value, bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Options;

    #[test]
    fn thawing_gives_back_the_same_state() {
        let mut replayer = Replayer::new(Options::default());
        for event in [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"n":1.5,"big":18446744073709551615}}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"x":[1,{"y":null}]}}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"u","content":{"z":"after a text message"}}"#,
        ] {
            replayer.apply_bytes(event.as_bytes());
        }
        let frozen = replayer.freeze_sharing(&mut FreezeCache::default());
        let thawed = frozen.thaw();
        assert_eq!(thawed.document(), replayer.document());
        assert_eq!(thawed.step(), replayer.step());
        // Each content is kept at its own message's position (issue 14).
        let positions: Vec<usize> = frozen.contents.iter().map(|(i, _)| *i).collect();
        assert_eq!(positions, [0, 2]);
    }

    fn apply_all(replayer: &mut Replayer, events: &[&str]) {
        for event in events {
            replayer.apply_bytes(event.as_bytes());
        }
    }

    /// Issue 14: an activity whose content alone changed between two
    /// checkpoints keeps its emptied message from the first; one whose
    /// type changed gets a new one. Thawing weighs each content again,
    /// to the weight the patches kept.
    #[test]
    fn checkpoints_share_emptied_activities_and_thaw_their_weights() {
        let mut replayer = Replayer::new(Options::default());
        apply_all(
            &mut replayer,
            &[
                r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"items":[1]}}"#,
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"t","content":{"n":0}}"#,
            ],
        );
        let mut cache = FreezeCache::default();
        let first = replayer.freeze_sharing(&mut cache);
        apply_all(
            &mut replayer,
            &[
                r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[{"op":"add","path":"/items/-","value":"a longer item"}]}"#,
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"u","content":{"n":1}}"#,
            ],
        );
        assert!(replayer.diagnostics().is_empty());
        let second = replayer.freeze_sharing(&mut cache);
        let emptied = |frozen: &FrozenReplay, i: usize| {
            Arc::clone(frozen.base.conversation.shared_at(i).expect("a message"))
        };
        assert!(Arc::ptr_eq(&emptied(&first, 0), &emptied(&second, 0)));
        assert!(!Arc::ptr_eq(&emptied(&first, 1), &emptied(&second, 1)));
        let weights = |r: &Replayer| -> Vec<usize> {
            r.conversation
                .iter()
                .filter_map(|m| match m {
                    Message::Activity(a) => Some(a.content_bytes),
                    Message::Other(_) => None,
                })
                .collect()
        };
        let thawed = second.thaw();
        assert_eq!(thawed.document(), replayer.document());
        assert_eq!(weights(&thawed), weights(&replayer));
        assert!(weights(&replayer).iter().all(|&w| w > 0));
    }

    /// Issue 14: a big state's contents are parsed on two threads; each
    /// activity gets its own content back, in order, the state too.
    #[test]
    fn a_big_state_thaws_the_same_on_two_threads() {
        let mut replayer = Replayer::new(Options::default());
        replayer.apply_bytes(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        let filler = "x".repeat(1000);
        for i in 0..200 {
            let event = format!(
                r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"a{i}","activityType":"t","content":{{"i":{i},"text":"{filler}"}}}}"#
            );
            replayer.apply_bytes(event.as_bytes());
            if i % 3 == 0 {
                let text = format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}"}}"#);
                replayer.apply_bytes(text.as_bytes());
            }
        }
        replayer.apply_bytes(br#"{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}"#);
        let frozen = replayer.freeze_sharing(&mut FreezeCache::default());
        let bytes: usize = frozen.contents.iter().map(|(_, c)| c.text_len()).sum();
        assert!(
            bytes >= PARALLEL_THAW_BYTES,
            "{bytes} bytes: thawed on one thread"
        );
        let thawed = frozen.thaw();
        assert_eq!(thawed.document(), replayer.document());
        assert_eq!(thawed.step(), replayer.step());
    }

    /// Issue 14: the one-walk writer gives `serde_json`'s own text (the
    /// stored index holds it), and keeps as text exactly the values that
    /// nest at most [`MAX_ENCODED_DEPTH`] deep, as the depth check before
    /// it did.
    #[test]
    fn the_compact_writer_gives_serde_jsons_text_up_to_the_depth() {
        let values = [
            serde_json::json!(null),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!({"b": [1, -2, 3.5, 1e300, 18446744073709551615u64], "a": "\u{1}\"\\é\n"}),
            serde_json::json!([[], {}, [{"x": [true, false, null]}], "", 0]),
        ];
        let mut scratch = vec![b'x'; 3];
        for value in values {
            let stored = Stored::of(&Arc::new(value.clone()), &mut scratch);
            let expected = serde_json::to_vec(&value).expect("serialises");
            assert_eq!(stored.text(), Some(expected.as_slice()), "{value}");
        }
        let nest = |depth: usize| {
            (0..depth).fold(Value::from(1), |v, i| {
                if i % 2 == 0 {
                    Value::Array(vec![v])
                } else {
                    serde_json::json!({ "k": v })
                }
            })
        };
        let at_limit = nest(MAX_ENCODED_DEPTH);
        let stored = Stored::of(&Arc::new(at_limit.clone()), &mut scratch);
        assert_eq!(
            stored.text(),
            Some(
                serde_json::to_vec(&at_limit)
                    .expect("serialises")
                    .as_slice()
            )
        );
        let past = Stored::of(&Arc::new(nest(MAX_ENCODED_DEPTH + 1)), &mut scratch);
        assert!(matches!(past, Stored::Shared(_)));
        let empty_past =
            (0..MAX_ENCODED_DEPTH).fold(serde_json::json!([]), |v, _| Value::Array(vec![v]));
        assert!(matches!(
            Stored::of(&Arc::new(empty_past), &mut scratch),
            Stored::Shared(_)
        ));
    }

    /// Any JSON, with strings of any characters (control characters,
    /// quotes, backslashes, beyond ASCII) and numbers of every kind.
    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let text = || {
            proptest::string::string_regex("(.|[\\x00-\\x1f\"\\\\\\x7f])*")
                .expect("a valid pattern")
        };
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((text(), inner), 0..5)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Issue 14: the checkpoint writer's text is `serde_json`'s, byte
        /// for byte, whatever the strings hold.
        #[test]
        fn the_compact_writer_writes_serde_jsons_text(value in any_json()) {
            let mut scratch = Vec::new();
            let stored = Stored::of(&Arc::new(value.clone()), &mut scratch);
            let expected = serde_json::to_vec(&value).expect("serialises");
            proptest::prop_assert_eq!(stored.text(), Some(expected.as_slice()));
        }
    }

    fn shares_text(a: &Stored, b: &Stored) -> bool {
        matches!((a, b), (Stored::Text(a), Stored::Text(b)) if Arc::ptr_eq(a, b))
    }

    /// Issue 14: a checkpoint shares the texts of the values that did not
    /// change since the last one, and writes those that did again, whether
    /// patched in place or replaced.
    #[test]
    fn a_checkpoint_shares_what_did_not_change_since_the_last() {
        let mut replayer = Replayer::new(Options::default());
        for event in [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"x":1}}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"b","activityType":"t","content":{"y":1}}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"c","activityType":"t","content":{"z":1}}"#,
        ] {
            replayer.apply_bytes(event.as_bytes());
        }
        let mut cache = FreezeCache::default();
        let first = replayer.freeze_sharing(&mut cache);
        for event in [
            // `a` patched in place, `c` replaced, `b` and the state left.
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[{"op":"replace","path":"/x","value":2}]}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"c","activityType":"t","content":{"z":2}}"#,
        ] {
            replayer.apply_bytes(event.as_bytes());
        }
        let second = replayer.freeze_sharing(&mut cache);
        let shared: Vec<bool> = first
            .contents
            .iter()
            .zip(&second.contents)
            .map(|((_, a), (_, b))| shares_text(a, b))
            .collect();
        assert_eq!(shared, [false, true, false]);
        assert!(shares_text(&first.state, &second.state));
        assert_eq!(second.thaw().document(), replayer.document());
        assert_ne!(first.thaw().document(), replayer.document());

        replayer.apply_bytes(
            br#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}"#,
        );
        let third = replayer.freeze_sharing(&mut cache);
        assert!(!shares_text(&second.state, &third.state));
        assert!(
            second
                .contents
                .iter()
                .zip(&third.contents)
                .all(|((_, a), (_, b))| shares_text(a, b))
        );
        assert_eq!(third.thaw().document(), replayer.document());
        assert_eq!(third.state_json(), serde_json::json!({"n": 2}));
    }

    fn content(id: &str, delta: &str) -> String {
        serde_json::json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta})
            .to_string()
    }

    /// Applies `events` one by one, freezing (with one cache) after each
    /// one `freeze_after` names; fails unless every checkpoint thaws to
    /// the state it was taken at, whole and message by message. Returns
    /// the checkpoints.
    fn frozen_along(events: &[String], freeze_after: &[usize]) -> Vec<FrozenReplay> {
        let mut replayer = Replayer::new(Options::default());
        let mut cache = FreezeCache::default();
        let mut taken = Vec::new();
        for (n, event) in events.iter().enumerate() {
            replayer.apply_bytes(event.as_bytes());
            if freeze_after.contains(&n) {
                let frozen = replayer.freeze_sharing(&mut cache);
                taken.push((frozen, replayer.document(), replayer.conversation.to_json()));
            }
        }
        let mut checkpoints = Vec::new();
        for (frozen, document, messages) in taken {
            assert_eq!(frozen.thaw().document(), document, "at {}", frozen.step());
            for message in messages.as_array().expect("a list") {
                let id = message["id"].as_str().expect("an id");
                assert_eq!(frozen.message_json(id).as_ref(), Some(message));
            }
            checkpoints.push(frozen);
        }
        checkpoints
    }

    /// Issue 38: the checkpoints taken while a long message streams hold
    /// its text once: each holds the first pieces of one log, a piece
    /// being what the text gained since the checkpoint before, and the
    /// same emptied message (the live one is not shared with them, so not
    /// copied by its next delta).
    #[test]
    fn the_checkpoints_of_a_long_message_share_its_text() {
        let mut events = vec![
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned(),
        ];
        let piece = "0123456789".repeat(50);
        for _ in 0..40 {
            events.push(content("m", &piece));
        }
        let checkpoints = frozen_along(&events, &[11, 21, 31, 41]);
        let logs: Vec<(&Arc<TextLog>, usize, usize)> = checkpoints
            .iter()
            .map(|c| match c.texts.as_slice() {
                [(0, text)] => (&text.log, text.pieces, text.len()),
                other => panic!("one long text at message 0, not {other:?}"),
            })
            .collect();
        assert!(logs.iter().all(|(log, ..)| Arc::ptr_eq(log, logs[0].0)));
        let pieces: Vec<usize> = logs.iter().map(|l| l.1).collect();
        assert_eq!(pieces, [1, 2, 3, 4]);
        let lens: Vec<usize> = logs.iter().map(|l| l.2).collect();
        assert_eq!(lens, [5000, 10_000, 15_000, 20_000]);
        // The log holds the text once: its pieces add up to the last.
        let held: usize = logs[0].0.with_pieces(|p| p.iter().map(|p| p.len()).sum());
        assert_eq!(held, 20_000);
        let emptied = |c: &FrozenReplay| Arc::clone(c.base.conversation.shared_at(0).expect("m"));
        assert!(
            checkpoints
                .windows(2)
                .all(|w| Arc::ptr_eq(&emptied(&w[0]), &emptied(&w[1])))
        );
        // A short text is shared with the live state, as before.
        let short = frozen_along(&events[..4], &[3]);
        assert!(short[0].texts.is_empty());
    }

    /// Issue 38: a long text changed otherwise than by appends between two
    /// checkpoints (halves of a character joined across them, metadata
    /// merged, a tool call added, the message replaced by a snapshot) is
    /// kept right: every checkpoint thaws to its state.
    #[test]
    fn a_long_text_changed_otherwise_between_checkpoints_thaws_right() {
        let long = "x".repeat(LONG_TEXT_BYTES + 10);
        let events = vec![
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned(),
            r#"{"type":"TEXT_MESSAGE_START","messageId":"n","role":"assistant"}"#.to_owned(),
            content("m", &long),
            content("n", &long),
            // m ends with the first half of a character cut in two.
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\ud83d"}"#.to_owned(),
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ude00b"}"#.to_owned(),
            content("n", "more"),
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"n","delta":"c","metadata":{"k":1}}"#
                .to_owned(),
            r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}"#
                .to_owned(),
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}"#.to_owned(),
            content("m", "d"),
            serde_json::json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "m", "role": "assistant", "content": "y".repeat(LONG_TEXT_BYTES + 5)},
                {"id": "n", "role": "assistant", "content": long}
            ]})
            .to_string(),
            content("m", "e"),
            content("n", "f"),
        ];
        let every: Vec<usize> = (3..events.len()).collect();
        let checkpoints = frozen_along(&events, &every);
        assert!(checkpoints.iter().all(|c| !c.texts.is_empty()));
        // The joined character: the text after the join is kept whole.
        let at_join = &checkpoints[6 - 3];
        let joined = at_join.message_json("m").expect("m");
        assert!(
            joined["content"]
                .as_str()
                .is_some_and(|t| t.ends_with("a\u{1f600}b"))
        );
    }

    #[test]
    fn deep_values_are_kept_as_trees() {
        let mut deep = Value::from(1);
        for _ in 0..150 {
            deep = Value::Array(vec![deep]);
        }
        let stored = Stored::of(&Arc::new(deep.clone()), &mut Vec::new());
        assert!(matches!(stored, Stored::Shared(_)));
        assert_eq!(*stored.thaw(), deep);
    }
}
