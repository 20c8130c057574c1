//! The message list of a thread, as the replay holds it.

use std::sync::Arc;

use rustc_hash::FxBuildHasher;

use serde_json::{Map, Value};

use crate::protocol::{MessageId, MessageRole};

/// The role of a non-activity message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// `developer`
    Developer,
    /// `system`
    System,
    /// `assistant`
    Assistant,
    /// `user`
    User,
    /// `tool`
    Tool,
    /// `reasoning`
    Reasoning,
}

impl Role {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        self.role().as_str()
    }

    /// As a message role of the protocol (the one list of roles).
    pub fn role(self) -> MessageRole {
        match self {
            Self::Developer => MessageRole::Developer,
            Self::System => MessageRole::System,
            Self::Assistant => MessageRole::Assistant,
            Self::User => MessageRole::User,
            Self::Tool => MessageRole::Tool,
            Self::Reasoning => MessageRole::Reasoning,
        }
    }

    /// The role with this wire name (`activity` is not one: activity
    /// messages are [`ActivityMessage`]s).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match MessageRole::from_name(name)? {
            MessageRole::Developer => Self::Developer,
            MessageRole::System => Self::System,
            MessageRole::Assistant => Self::Assistant,
            MessageRole::User => Self::User,
            MessageRole::Tool => Self::Tool,
            MessageRole::Reasoning => Self::Reasoning,
            MessageRole::Activity => return None,
        })
    }
}

/// An activity message (`role: "activity"`).
#[derive(Clone, Debug, PartialEq)]
pub struct ActivityMessage {
    /// `id` (the events' `messageId`).
    pub id: MessageId,
    /// `activityType`.
    pub activity_type: String,
    /// `content`: an object, unless a producer broke R15. Shared, so that
    /// copies of the state (checkpoints) cost nothing until one is patched.
    pub content: Arc<Value>,
    /// The weight of `content` ([`document_bytes`]), kept up to date by
    /// the patches that change it, for the size limit of a patch.
    ///
    /// [`document_bytes`]: super::document_bytes
    pub content_bytes: usize,
    /// `subagentRunId`: the owner (R21); absent means the parent agent.
    pub subagent_run_id: Option<String>,
    /// `metadata`, merged key by key (R30); absent until some event sets it.
    pub metadata: Option<Map<String, Value>>,
}

impl ActivityMessage {
    /// The AG-UI `Message` object.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("id".into(), Value::String(self.id.to_string()));
        object.insert("role".into(), Value::from("activity"));
        object.insert(
            "activityType".into(),
            Value::String(self.activity_type.clone()),
        );
        object.insert("content".into(), (*self.content).clone());
        if let Some(owner) = &self.subagent_run_id {
            object.insert("subagentRunId".into(), Value::String(owner.clone()));
        }
        if let Some(metadata) = &self.metadata {
            object.insert("metadata".into(), Value::Object(metadata.clone()));
        }
        Value::Object(object)
    }

    /// Merges `metadata` key by key, last write wins, no recursion (R30).
    pub fn merge_metadata(&mut self, metadata: Option<&Map<String, Value>>) {
        let Some(metadata) = metadata else { return };
        let target = self.metadata.get_or_insert_with(Map::new);
        for (key, value) in metadata {
            target.insert(key.clone(), value.clone());
        }
    }
}

/// A text, tool, reasoning, user, system or developer message: the AG-UI
/// object as built from the stream (or received in a snapshot).
#[derive(Clone, Debug, PartialEq)]
pub struct OtherMessage {
    /// `id`.
    pub id: MessageId,
    /// `role`.
    pub role: Role,
    /// Every other member (`content`, `toolCalls`, `toolCallId`, `name`…).
    pub fields: Map<String, Value>,
}

impl OtherMessage {
    /// A message with an empty text `content`, as a start event opens it.
    pub fn empty_text(id: &str, role: Role) -> Self {
        let mut fields = Map::new();
        fields.insert("content".into(), Value::String(String::new()));
        Self {
            id: id.into(),
            role,
            fields,
        }
    }

    /// Appends text to `content` (making it a string if it was not one).
    pub fn append_content(&mut self, delta: &str) {
        self.extend_content(delta);
    }

    /// [`Self::append_content`], saying whether the text before is the
    /// start of the text after (not when `content` was not a string, or
    /// when the halves of a character cut in two joined).
    fn extend_content(&mut self, delta: &str) -> bool {
        match self.fields.get_mut("content") {
            Some(Value::String(text)) => {
                // Issue 39: halves of a character cut in two join.
                crate::surrogate::push_joined(text, delta).is_none()
            }
            _ => {
                self.fields
                    .insert("content".into(), Value::String(delta.to_owned()));
                false
            }
        }
    }

    /// The text `content`, when it is a string.
    pub(super) fn text(&self) -> Option<&str> {
        self.fields.get("content").and_then(Value::as_str)
    }

    /// The tool call with this id, among `toolCalls`.
    pub fn tool_call_mut(&mut self, tool_call_id: &str) -> Option<&mut Map<String, Value>> {
        let Some(Value::Array(calls)) = self.fields.get_mut("toolCalls") else {
            return None;
        };
        calls.iter_mut().find_map(|call| match call {
            Value::Object(call) if call.get("id").and_then(Value::as_str) == Some(tool_call_id) => {
                Some(call)
            }
            _ => None,
        })
    }

    /// The ids of `toolCalls`.
    pub fn tool_call_ids(&self) -> impl Iterator<Item = &str> {
        self.fields
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|call| call.get("id")?.as_str())
    }

    /// The AG-UI `Message` object.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("id".into(), Value::String(self.id.to_string()));
        object.insert("role".into(), Value::from(self.role.as_str()));
        for (key, value) in &self.fields {
            object.insert(key.clone(), value.clone());
        }
        Value::Object(object)
    }
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `role: "activity"`.
    Activity(ActivityMessage),
    /// Any other role.
    Other(OtherMessage),
}

impl Message {
    /// `id`.
    pub fn id(&self) -> &str {
        match self {
            Self::Activity(a) => &a.id,
            Self::Other(m) => &m.id,
        }
    }

    /// The wire name of the role.
    pub fn role_name(&self) -> &'static str {
        match self {
            Self::Activity(_) => "activity",
            Self::Other(m) => m.role.as_str(),
        }
    }

    /// The AG-UI `Message` object.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Activity(a) => a.to_json(),
            Self::Other(m) => m.to_json(),
        }
    }

    /// A message from an AG-UI `Message` object already validated by the
    /// protocol reader (string `id`, known `role`; for activities a string
    /// `activityType` and an object `content`).
    pub fn from_json(object: &Map<String, Value>) -> Option<Self> {
        let id = object.get("id")?.as_str()?.to_owned();
        let role = object.get("role")?.as_str()?;
        if role == "activity" {
            let content = object.get("content")?;
            return Some(Self::Activity(ActivityMessage {
                id: id.into(),
                activity_type: object.get("activityType")?.as_str()?.to_owned(),
                content_bytes: super::document_bytes(content),
                content: Arc::new(content.clone()),
                subagent_run_id: object
                    .get("subagentRunId")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                metadata: object.get("metadata").and_then(Value::as_object).cloned(),
            }));
        }
        let role = Role::from_name(role)?;
        let fields = object
            .iter()
            .filter(|(key, _)| *key != "id" && *key != "role")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        Some(Self::Other(OtherMessage {
            id: id.into(),
            role,
            fields,
        }))
    }
}

/// The index from message id to position. Its ids are shared strings: a
/// change after a copy (a checkpoint) copies the trie nodes on its path,
/// each holding a few dozen ids, and a shared id is copied without
/// allocating (issue 14).
type IdIndex =
    imbl::GenericHashMap<Arc<str>, usize, FxBuildHasher, imbl::shared_ptr::DefaultSharedPtr>;

/// The ordered message list with an index by id.
///
/// Both are persistent structures (`imbl`) holding reference-counted
/// messages: a copy of the conversation (a checkpoint) costs O(1), and a
/// change after the copy duplicates only the message it touches and a few
/// tree nodes, however long the conversation.
#[derive(Debug)]
pub struct Conversation {
    messages: imbl::Vector<Arc<Message>>,
    /// Id to the position of its first message. It may also name ids the
    /// list does not hold, or hold at another position: a state decoded
    /// from a stored checkpoint shares the index of the last state, whose
    /// list is longer ([`Self::prefix_of`]). Every lookup checks the id at
    /// the position it finds ([`Self::lookup`]), and every id the list
    /// holds is indexed at its first position.
    by_id: IdIndex,
    /// The messages that joined from a recorded run input (R50, E11), by
    /// id: the step that brought them (0 for the request body, the seq of
    /// the `RUN_STARTED` whose `input` carried them).
    from_input: InputIndex,
    /// The positions of the activity messages, ascending: freezing a
    /// checkpoint visits these instead of reading every message, which
    /// costs a cache miss each on a list that grows with the stream
    /// (issue 14). Kept by every method that adds or replaces a message
    /// (a message reached through `get_mut` keeps its kind).
    activities: Vec<usize>,
    /// Which list this is, as far as its messages go: drawn anew
    /// ([`next_witness`]) by every change to a message already in it but
    /// an append to its text ([`Self::append_text`]), and for every copy.
    /// While it stays, every message holds what it held, followed by what
    /// was appended: a checkpoint keeps only what a long text gained since
    /// the last one without comparing the texts (issue 38).
    witness: u64,
    /// The messages changed since [`Self::take_changes`] last read them
    /// (issue 40): what a comparison of two replays compares again after
    /// each step instead of every message.
    changes: ChangeLog,
}

/// The positions of the messages changed since the log was last taken, or
/// that the list was reshaped (a message inserted, the list replaced, or
/// too many changes to keep: then any position may have changed).
#[derive(Debug)]
struct ChangeLog {
    positions: Vec<usize>,
    reshaped: bool,
}

impl ChangeLog {
    /// Past this many positions the log only says "reshaped": a replay
    /// nobody compares keeps no more.
    const MAX_POSITIONS: usize = 256;

    /// The log of a list its reader has not seen yet (a new list, a copy):
    /// reshaped.
    fn unread() -> Self {
        Self {
            positions: Vec::new(),
            reshaped: true,
        }
    }

    fn note(&mut self, i: usize) {
        if self.reshaped {
            return;
        }
        if self.positions.len() == Self::MAX_POSITIONS {
            self.reshape();
        } else {
            self.positions.push(i);
        }
    }

    fn reshape(&mut self) {
        self.reshaped = true;
        self.positions.clear();
    }
}

/// A witness no list has had.
fn next_witness() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Default for Conversation {
    fn default() -> Self {
        Self {
            messages: imbl::Vector::new(),
            by_id: IdIndex::default(),
            from_input: InputIndex::default(),
            activities: Vec::new(),
            witness: next_witness(),
            changes: ChangeLog::unread(),
        }
    }
}

/// A copy has a witness of its own: what is appended to one is not to the
/// other.
impl Clone for Conversation {
    fn clone(&self) -> Self {
        Self {
            messages: self.messages.clone(),
            by_id: self.by_id.clone(),
            from_input: self.from_input.clone(),
            activities: self.activities.clone(),
            witness: next_witness(),
            changes: ChangeLog::unread(),
        }
    }
}

/// Message id to the step of the run input it joined from.
type InputIndex = imbl::GenericHashMap<
    String,
    crate::diagnostic::Seq,
    FxBuildHasher,
    imbl::shared_ptr::DefaultSharedPtr,
>;

impl PartialEq for Conversation {
    fn eq(&self, other: &Self) -> bool {
        self.messages == other.messages
    }
}

impl Conversation {
    /// The messages, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Message> + '_ {
        self.messages.iter().map(|message| &**message)
    }

    /// The messages, in order, as shared pointers.
    pub fn shared(&self) -> impl ExactSizeIterator<Item = &Arc<Message>> + '_ {
        self.messages.iter()
    }

    /// The message at position `i`, as a shared pointer.
    pub(crate) fn shared_at(&self, i: usize) -> Option<&Arc<Message>> {
        self.messages.get(i)
    }

    /// The positions of the activity messages, in order.
    pub(super) fn activity_positions(&self) -> &[usize] {
        &self.activities
    }

    /// Records whether the message now at `i` is an activity.
    fn note_kind_at(&mut self, i: usize) {
        let is_activity = matches!(
            self.messages.get(i).map(|m| &**m),
            Some(Message::Activity(_))
        );
        match (self.activities.binary_search(&i), is_activity) {
            (Err(at), true) => self.activities.insert(at, i),
            (Ok(at), false) => {
                self.activities.remove(at);
            }
            _ => {}
        }
    }

    /// The message at position `i`.
    pub fn at(&self, i: usize) -> Option<&Message> {
        self.messages.get(i).map(|message| &**message)
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there is no message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The position of the first message with this id: the index's entry,
    /// if the list holds that id there.
    fn lookup(&self, id: &str) -> Option<usize> {
        let &i = self.by_id.get(id)?;
        (self.messages.get(i)?.id() == id).then_some(i)
    }

    /// The message with this id.
    pub fn get(&self, id: &str) -> Option<&Message> {
        self.at(self.lookup(id)?)
    }

    /// The position of the message with this id.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.lookup(id)
    }

    /// The message with this id, mutably (copied first if it is shared).
    /// It keeps its kind: replace it ([`Self::replace`]) to change it.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Message> {
        let i = self.lookup(id)?;
        self.get_mut_at(i)
    }

    /// The message at position `i`, mutably (copied first if shared).
    pub(super) fn get_mut_at(&mut self, i: usize) -> Option<&mut Message> {
        self.witness = next_witness();
        self.changes.note(i);
        self.messages.get_mut(i).map(Arc::make_mut)
    }

    /// Appends `delta` to the text of the message at position `i`
    /// ([`OtherMessage::append_content`]; an activity is left as it is).
    /// The list keeps its witness ([`Self::witness`]) when the text before
    /// is the start of the text after.
    pub(super) fn append_text(&mut self, i: usize, delta: &str) {
        let Some(Message::Other(message)) = self.messages.get_mut(i).map(Arc::make_mut) else {
            return;
        };
        self.changes.note(i);
        if !message.extend_content(delta) {
            self.witness = next_witness();
        }
    }

    /// What tells whether a message changed since it was last seen: while
    /// the witness stays, no message of the list changed but by appends
    /// to its text, and none moved (issue 38).
    pub(super) fn witness(&self) -> u64 {
        self.witness
    }

    /// Moves the positions of the messages changed since the last call
    /// (or since the list was made) onto `positions`, in the order of the
    /// changes (a position may repeat; an appended message is at the
    /// list's length before it), and says whether the list was reshaped
    /// instead: a message inserted, the list replaced, or too many changes
    /// kept, so that any position may have changed (issue 40).
    pub fn take_changes(&mut self, positions: &mut Vec<usize>) -> bool {
        let reshaped = std::mem::take(&mut self.changes.reshaped);
        if reshaped {
            self.changes.positions.clear();
        } else {
            positions.append(&mut self.changes.positions);
        }
        reshaped
    }

    /// Whether a message has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.lookup(id).is_some()
    }

    /// Appends a message at the end. An id already present keeps pointing at
    /// its first message (callers check for collisions first).
    pub fn push(&mut self, message: Message) {
        self.push_shared(Arc::new(message));
    }

    fn push_shared(&mut self, message: Arc<Message>) {
        let known = self.lookup(message.id()).is_some();
        self.index_last(self.messages.len(), &message, known);
        self.changes.note(self.messages.len());
        self.messages.push_back(message);
    }

    /// Indexes `message`, to be at position `i`, after every other one:
    /// its id (unless an earlier message has it: `known`) and, if it is an
    /// activity, its position.
    fn index_last(&mut self, i: usize, message: &Message, known: bool) {
        if !known {
            self.by_id.insert(Arc::from(message.id()), i);
        }
        if matches!(message, Message::Activity(_)) {
            self.activities.push(i);
        }
    }

    /// Inserts a message at position `i` (at the end if `i` is past it),
    /// moving the later ones down by one. The index keeps pointing at the
    /// first message of each id.
    pub fn insert(&mut self, i: usize, message: Message) {
        if i >= self.messages.len() {
            self.push(message);
            return;
        }
        self.witness = next_witness();
        self.changes.reshape();
        self.messages.insert(i, Arc::new(message));
        let later = self.activities.partition_point(|&at| at < i);
        for at in &mut self.activities[later..] {
            *at += 1;
        }
        self.note_kind_at(i);
        for k in i + 1..self.messages.len() {
            let id = self.messages[k].id();
            if let Some(at) = self.by_id.get_mut(id)
                && *at == k - 1
            {
                *at = k;
            }
        }
        let id: Arc<str> = Arc::from(self.messages[i].id());
        match self.lookup(&id) {
            Some(at) if at < i => {}
            _ => {
                self.by_id.insert(id, i);
            }
        }
    }

    /// Marks the message with this id as joined from a run input at
    /// `step` (R50, E11).
    pub fn mark_from_input(&mut self, id: &str, step: crate::diagnostic::Seq) {
        self.from_input.insert(id.to_owned(), step);
    }

    /// The step of the run input this message joined from, if it joined
    /// from one (R50, E11): 0 for the recorded request body, otherwise the
    /// seq of the `RUN_STARTED` that carried it.
    pub fn from_input(&self, id: &str) -> Option<crate::diagnostic::Seq> {
        self.from_input.get(id).copied()
    }

    /// Every message that joined from a run input, with its step (for the
    /// stored index).
    pub(super) fn input_entries(&self) -> Vec<(&String, crate::diagnostic::Seq)> {
        self.from_input
            .iter()
            .map(|(id, step)| (id, *step))
            .collect()
    }

    /// Replaces the message with `message`'s id in place.
    pub fn replace(&mut self, message: Message) {
        match self.lookup(message.id()) {
            Some(i) => {
                self.witness = next_witness();
                self.changes.note(i);
                self.messages.set(i, Arc::new(message));
                self.note_kind_at(i);
            }
            None => self.push(message),
        }
    }

    /// Replaces the message at position `i` with one of the same id.
    pub(super) fn replace_at(&mut self, i: usize, message: Arc<Message>) {
        if i < self.messages.len() {
            debug_assert_eq!(self.messages[i].id(), message.id());
            self.witness = next_witness();
            self.changes.note(i);
            self.messages.set(i, message);
            self.note_kind_at(i);
        }
    }

    /// Replaces the whole list (after a reconciliation); messages kept from
    /// the old list stay shared.
    pub fn set_messages(&mut self, messages: Vec<Arc<Message>>) {
        // The list built at once (a stored checkpoint's decode, issue 14:
        // pushing one by one copied the list's tail each time).
        self.witness = next_witness();
        self.changes.reshape();
        self.by_id = IdIndex::default();
        self.activities = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            // A fresh index: an id in it is one of this list's.
            let known = self.by_id.contains_key(message.id());
            self.index_last(i, message, known);
        }
        self.messages = imbl::Vector::from(messages);
        if !self.from_input.is_empty() {
            let by_id = &self.by_id;
            self.from_input
                .retain(|id, _| by_id.contains_key(id.as_str()));
        }
    }

    /// The AG-UI message list as JSON.
    pub fn to_json(&self) -> Value {
        Value::Array(self.iter().map(Message::to_json).collect())
    }

    /// The positions of this list whose messages are not the shared ones
    /// at the same position of `earlier`'s (or are past its end),
    /// ascending: what changed since `earlier`, when this list's messages
    /// kept their places. Nodes of the list both share are skipped whole.
    /// What an index's writer keeps of each checkpoint's list as it is
    /// made (issue 40), to store it at the end against the last state's.
    pub(crate) fn changed_since(&self, earlier: &Conversation) -> Vec<usize> {
        let len = self.messages.len();
        let common = len.min(earlier.messages.len());
        let mut changed = Vec::new();
        let mut mine = self.messages.focus();
        let mut theirs = earlier.messages.focus();
        let mut i = 0;
        while i < common {
            let (mine_range, mine_chunk) = mine.chunk_at(i);
            let (their_range, their_chunk) = theirs.chunk_at(i);
            let end = mine_range.end.min(their_range.end).min(common);
            let a = &mine_chunk[i - mine_range.start..end - mine_range.start];
            let b = &their_chunk[i - their_range.start..end - their_range.start];
            if !std::ptr::eq(a.as_ptr(), b.as_ptr()) {
                for (k, (a, b)) in a.iter().zip(b).enumerate() {
                    if !Arc::ptr_eq(a, b) {
                        changed.push(i + k);
                    }
                }
            }
            i = end;
        }
        changed.extend(common..len);
        changed
    }

    /// Where this list differs from the first messages of `longer`'s (a
    /// state later in the same stream): the positions whose messages are
    /// not the same shared ones, ascending. `None` when this list is not
    /// `longer`'s first messages, some replaced by messages of the same id
    /// (a message was inserted or removed since, the list was replaced by
    /// a snapshot, or `longer`'s is shorter): what [`Self::prefix_of`]
    /// rebuilds.
    #[cfg(test)]
    pub(crate) fn changes_from(&self, longer: &Conversation) -> Option<Vec<usize>> {
        if self.messages.len() > longer.messages.len() {
            return None;
        }
        let changed = self.changed_since(longer);
        changed
            .iter()
            .all(|&i| self.messages[i].id() == longer.messages[i].id())
            .then_some(changed)
    }

    /// The first `len` messages of `longer`'s list with those at the
    /// positions of `changed` replaced: the list [`Self::changes_from`]
    /// described, built in O(changes × log n) whatever the list's length.
    /// It shares `longer`'s id index (every id of the list is there, at its
    /// first position; lookups skip the others). `None` when `len` is past
    /// `longer`'s list, or a replacement is past `len` or has another id
    /// than the message it replaces.
    pub(super) fn prefix_of(
        longer: &Conversation,
        len: usize,
        changed: impl IntoIterator<Item = (usize, Arc<Message>)>,
    ) -> Option<Self> {
        if len > longer.messages.len() {
            return None;
        }
        let mut messages = longer.messages.clone();
        messages.truncate(len);
        let activities =
            longer.activities[..longer.activities.partition_point(|&at| at < len)].to_vec();
        let mut conversation = Self {
            messages,
            by_id: longer.by_id.clone(),
            from_input: InputIndex::default(),
            activities,
            witness: next_witness(),
            changes: ChangeLog::unread(),
        };
        for (i, message) in changed {
            if conversation.messages.get(i)?.id() != message.id() {
                return None;
            }
            conversation.messages.set(i, message);
            conversation.note_kind_at(i);
        }
        Some(conversation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An activity message with an empty content.
    fn activity(id: &str) -> Message {
        Message::Activity(ActivityMessage {
            id: id.into(),
            activity_type: "t".into(),
            content: Arc::new(Value::Null),
            content_bytes: 0,
            subagent_run_id: None,
            metadata: None,
        })
    }

    #[test]
    fn messages_round_trip_through_json() {
        for value in [
            json!({"id": "a", "role": "activity", "activityType": "t", "content": {"x": 1},
                   "subagentRunId": "s", "metadata": {"k": null}}),
            json!({"id": "m", "role": "assistant", "content": "hi",
                   "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
            json!({"id": "u", "role": "user", "content": [{"type": "text", "text": "q"}]}),
        ] {
            let message = Message::from_json(value.as_object().expect("object")).expect("valid");
            assert_eq!(message.to_json(), value);
        }
    }

    /// Issue 14: the positions of the activities, which freezing visits,
    /// follow every change of the list.
    #[test]
    fn activity_positions_follow_pushes_inserts_replacements_and_resets() {
        let text = |id: &str| Message::Other(OtherMessage::empty_text(id, Role::User));
        let scan = |c: &Conversation| -> Vec<usize> {
            c.iter()
                .enumerate()
                .filter(|(_, m)| matches!(m, Message::Activity(_)))
                .map(|(i, _)| i)
                .collect()
        };
        let mut c = Conversation::default();
        c.push(text("t1"));
        c.push(activity("a1"));
        c.push(text("t2"));
        c.push(activity("a2"));
        assert_eq!(c.activity_positions(), [1, 3]);
        c.insert(1, activity("a0"));
        assert_eq!(c.activity_positions(), [1, 2, 4]);
        c.insert(0, text("t0"));
        assert_eq!(c.activity_positions(), [2, 3, 5]);
        c.replace(activity("t2"));
        assert_eq!(c.activity_positions(), [2, 3, 4, 5]);
        c.replace(text("a1"));
        assert_eq!(c.activity_positions(), [2, 4, 5]);
        c.replace_at(5, Arc::new(activity("a2")));
        assert_eq!(c.activity_positions(), scan(&c));
        c.insert(99, activity("a9"));
        assert_eq!(c.activity_positions(), [2, 4, 5, 6]);
        c.set_messages(vec![Arc::new(activity("x")), Arc::new(text("y"))]);
        assert_eq!(c.activity_positions(), [0]);
        assert_eq!(c.activity_positions(), scan(&c));
    }

    /// Issue 14: a list stored as the changes from a longer one's (a
    /// checkpoint's against the last state's) is rebuilt sharing that
    /// one's id index: lookups skip the ids it does not hold, and what is
    /// pushed or inserted later is found where it is.
    #[test]
    fn a_prefix_of_a_longer_list_finds_only_its_own_messages() {
        let text = |id: &str, content: &str| {
            let mut message = OtherMessage::empty_text(id, Role::Assistant);
            message.append_content(content);
            Message::Other(message)
        };
        let mut earlier = Conversation::default();
        for i in 0..200 {
            earlier.push(text(&format!("m{i}"), "a"));
        }
        earlier.replace(activity("m9"));
        let mut head = earlier.clone();
        head.replace(text("m5", "changed"));
        head.replace(activity("m7"));
        head.replace(text("m9", "no longer an activity"));
        for i in 200..300 {
            head.push(text(&format!("m{i}"), "b"));
        }
        let changed = earlier.changes_from(&head).expect("a prefix");
        assert_eq!(changed, [5, 7, 9]);
        let of_earlier = |i: usize| (i, Arc::clone(earlier.shared_at(i).expect("in the list")));
        let rebuilt =
            Conversation::prefix_of(&head, earlier.len(), changed.iter().map(|&i| of_earlier(i)))
                .expect("rebuilt");
        assert!(rebuilt == earlier);
        assert_eq!(rebuilt.activity_positions(), [9]);
        assert!(rebuilt.contains("m199") && !rebuilt.contains("m200"));
        assert_eq!(rebuilt.get("m5"), earlier.get("m5"));
        assert_eq!(rebuilt.position("m250"), None);

        let mut grown = rebuilt.clone();
        grown.push(text("m250", "pushed earlier than in the longer list"));
        assert_eq!(grown.position("m250"), Some(200));
        assert!(!grown.contains("m200"));
        grown.insert(0, text("first", ""));
        assert_eq!(grown.position("first"), Some(0));
        assert_eq!(grown.position("m0"), Some(1));
        assert_eq!(grown.position("m250"), Some(201));
        assert_eq!(grown.activity_positions(), [10]);

        // Not a prefix (reordered, or longer): stored whole.
        let mut reordered = Conversation::default();
        let mut backwards: Vec<Arc<Message>> = earlier.shared().cloned().collect();
        backwards.reverse();
        reordered.set_messages(backwards);
        assert!(reordered.changes_from(&head).is_none());
        assert!(head.changes_from(&earlier).is_none());
        // A replacement of another id, or past the end, is refused.
        assert!(Conversation::prefix_of(&head, 10, [(3, Arc::new(text("other", "")))]).is_none());
        assert!(Conversation::prefix_of(&head, 10, [(12, Arc::new(text("m12", "")))]).is_none());
        assert!(Conversation::prefix_of(&head, 301, []).is_none());
    }

    #[test]
    fn index_follows_replacement_and_reset() {
        let mut conversation = Conversation::default();
        conversation.push(Message::Other(OtherMessage::empty_text("a", Role::User)));
        conversation.push(Message::Other(OtherMessage::empty_text(
            "b",
            Role::Assistant,
        )));
        conversation.replace(Message::Other(OtherMessage::empty_text("a", Role::System)));
        assert_eq!(
            conversation.get("a").map(Message::role_name),
            Some("system")
        );
        let only = Message::Other(OtherMessage::empty_text("b", Role::User));
        conversation.set_messages(vec![Arc::new(only)]);
        assert!(!conversation.contains("a"));
        assert_eq!(conversation.len(), 1);
    }
}
