//! The streamed families: text messages, tool calls, reasoning, steps and
//! subagents, with their start / content / end / chunk sequencing.
//!
//! The bracketing is the protocol's, as the conformance corpus asserts it
//! (§11 of `REPLAY-RULES.md`): content or an end for something not open is
//! fatal (`lifecycle.not-started`), so is a start for something still open
//! (`lifecycle.already-active`); a closed message is closed, not sealed, and
//! a new start for it appends (`reopen-closed-message-appends`). A chunk
//! stream is opened by a chunk that carries the id (and, for a tool call,
//! the name), continued by chunks that agree with it, and closed by any
//! event of another kind except the pass-through ones (`chunk.*`). Every
//! continuation keeps its opener's `subagentRunId` (`subagent.*`). Metadata
//! of these events lands on the message or tool call they build (R30).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::Profile;
use super::codec::{DecodeError, Decoded, Decoder, Encoder};
use super::conversation::{Message, OtherMessage, Role};
use super::engine::{Effect, EventEffect, Replayer};
use crate::diagnostic::Code;
use crate::protocol::{EncryptedSubtype, Envelope, EventBody, EventType, TextRole};

/// Who emitted an open entity: its opener's `subagentRunId` (R20).
type Owner = Option<String>;

/// Which streamed family a chunk stream or a dropped start belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Text,
    Tool,
    Reasoning,
}

impl Kind {
    fn of(family: Family) -> Self {
        match family {
            Family::Text => Self::Text,
            Family::Reasoning => Self::Reasoning,
        }
    }

    fn code(self) -> u8 {
        match self {
            Self::Text => 0,
            Self::Tool => 1,
            Self::Reasoning => 2,
        }
    }

    fn from_code(code: u8) -> Decoded<Self> {
        Ok(match code {
            0 => Self::Text,
            1 => Self::Tool,
            2 => Self::Reasoning,
            _ => {
                return Err(DecodeError::Unknown(
                    "a chunk stream in the index has an unknown kind",
                ));
            }
        })
    }

    /// The chunk event of this kind.
    fn chunk_type(self) -> EventType {
        match self {
            Self::Text => EventType::TextMessageChunk,
            Self::Tool => EventType::ToolCallChunk,
            Self::Reasoning => EventType::ReasoningMessageChunk,
        }
    }

    /// The id member of its chunk, and what it opens, as the reference
    /// client names them.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Self::Text => ("messageId", "text message"),
            Self::Tool => ("toolCallId", "tool call"),
            Self::Reasoning => ("messageId", "reasoning message"),
        }
    }
}

/// An open chunk stream: what its opener established.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ChunkLane {
    kind: Kind,
    id: String,
    owner: Owner,
    /// The role (text chunks; the default `assistant` when absent).
    role: Option<&'static str>,
    /// `name` (text) or `toolCallName` (tool calls).
    name: Option<String>,
    /// `parentMessageId` (tool calls).
    parent: Option<String>,
    /// Its opener was skipped (E4: the id names something else): what the
    /// stream carries is dropped, as that warning said.
    dropping: bool,
}

/// What is open at the current step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Streams {
    text: BTreeMap<String, Owner>,
    tool_calls: BTreeMap<String, Owner>,
    reasoning_phases: BTreeSet<String>,
    reasoning: BTreeMap<String, Owner>,
    /// The open chunk streams, by the owner whose lane each is. Under
    /// `spec` at most one is open (a chunk closes the others, C8); under
    /// `ag-ui-client-1.0` each owner (the parent agent, each subagent run)
    /// has one lane, as the reference client keeps them (issue 39).
    chunks: BTreeMap<Owner, ChunkLane>,
    /// Starts skipped by E4 whose stream is open: their content and end
    /// are dropped (issue 39).
    dropping: BTreeSet<(Kind, String)>,
    steps: Vec<String>,
    subagents: BTreeSet<String>,
    /// The reasoning message a translated `THINKING_TEXT_MESSAGE_START`
    /// opened (`ag-ui-client-1.0` only).
    thinking: Option<String>,
    /// `ag-ui-client-1.0` (P12): the owner the reference client's verifier
    /// records for each message id (text and tool messages, not activities
    /// or reasoning) in the current run.
    verified_messages: BTreeMap<String, Owner>,
    /// `ag-ui-client-1.0` (P12): the same for each tool call id.
    verified_tool_calls: BTreeMap<String, Owner>,
}

/// How an owner reads in a diagnostic.
fn owner_name(owner: &Owner) -> String {
    match owner {
        Some(owner) => format!("'{owner}'"),
        None => "'(the parent agent)'".to_owned(),
    }
}

/// The retired `THINKING_*` types the reference client translates.
const THINKING: [(&str, &str); 5] = [
    ("THINKING_START", "REASONING_START"),
    ("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START"),
    ("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"),
    ("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END"),
    ("THINKING_END", "REASONING_END"),
];

/// Whether `type_name` is a retired `THINKING_*` type the reference client
/// translates.
pub(super) fn is_thinking(type_name: &str) -> bool {
    THINKING.iter().any(|(old, _)| *old == type_name)
}

/// The stored index's encoding of what is open (issue 14).
impl Streams {
    /// Encodes what is open.
    pub(super) fn encode(&self, e: &mut Encoder) {
        let map = |e: &mut Encoder, map: &BTreeMap<String, Owner>| {
            e.usize(map.len());
            for (key, owner) in map {
                e.str(key);
                e.opt_str(owner.as_deref());
            }
        };
        let set = |e: &mut Encoder, items: &mut dyn ExactSizeIterator<Item = &String>| {
            e.usize(items.len());
            for item in items {
                e.str(item);
            }
        };
        map(e, &self.text);
        map(e, &self.tool_calls);
        set(e, &mut self.reasoning_phases.iter());
        map(e, &self.reasoning);
        e.usize(self.chunks.len());
        for lane in self.chunks.values() {
            e.u8(lane.kind.code());
            e.str(&lane.id);
            e.opt_str(lane.owner.as_deref());
            e.opt_str(lane.role);
            e.opt_str(lane.name.as_deref());
            e.opt_str(lane.parent.as_deref());
            e.bool(lane.dropping);
        }
        e.usize(self.dropping.len());
        for (kind, id) in &self.dropping {
            e.u8(kind.code());
            e.str(id);
        }
        set(e, &mut self.steps.iter());
        set(e, &mut self.subagents.iter());
        e.opt_str(self.thinking.as_deref());
        map(e, &self.verified_messages);
        map(e, &self.verified_tool_calls);
    }

    /// Decodes what [`Self::encode`] wrote.
    pub(super) fn decode(d: &mut Decoder<'_>) -> Decoded<Self> {
        fn map(d: &mut Decoder<'_>) -> Decoded<BTreeMap<String, Owner>> {
            let mut map = BTreeMap::new();
            for _ in 0..d.count()? {
                map.insert(d.string()?, d.opt_string()?);
            }
            Ok(map)
        }
        fn list(d: &mut Decoder<'_>) -> Decoded<Vec<String>> {
            let n = d.count()?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(d.string()?);
            }
            Ok(items)
        }
        fn lane(d: &mut Decoder<'_>) -> Decoded<ChunkLane> {
            let kind = Kind::from_code(d.u8()?)?;
            let id = d.string()?;
            let owner = d.opt_string()?;
            let role = match d.opt_string()? {
                Some(name) => match Role::from_name(&name) {
                    Some(role) => Some(role.as_str()),
                    None => {
                        return Err(DecodeError::Unknown(
                            "a chunk stream in the index has an unknown role",
                        ));
                    }
                },
                None => None,
            };
            Ok(ChunkLane {
                kind,
                id,
                owner,
                role,
                name: d.opt_string()?,
                parent: d.opt_string()?,
                dropping: d.bool()?,
            })
        }
        let text = map(d)?;
        let tool_calls = map(d)?;
        let reasoning_phases = list(d)?.into_iter().collect();
        let reasoning = map(d)?;
        let mut chunks = BTreeMap::new();
        for _ in 0..d.count()? {
            let lane = lane(d)?;
            chunks.insert(lane.owner.clone(), lane);
        }
        let mut dropping = BTreeSet::new();
        for _ in 0..d.count()? {
            dropping.insert((Kind::from_code(d.u8()?)?, d.string()?));
        }
        Ok(Self {
            text,
            tool_calls,
            reasoning_phases,
            reasoning,
            chunks,
            dropping,
            steps: list(d)?,
            subagents: list(d)?.into_iter().collect(),
            thinking: d.opt_string()?,
            verified_messages: map(d)?,
            verified_tool_calls: map(d)?,
        })
    }
}

impl Streams {
    /// A chunk stream lasts until an event of another kind arrives. Activity
    /// events do not close it (R63), nor do the protocol's other
    /// pass-through events; `CUSTOM` does (`custom-closes-chunk-stream-fatal`).
    /// Under `ag-ui-client-1.0` (`client`) an event closes only the lane of
    /// its own `subagentRunId` (`owner`; untagged: the parent agent's), a
    /// run boundary or `MESSAGES_SNAPSHOT` every lane, as the reference
    /// client's chunk transformer does; a chunk closes no other lane here
    /// (its handler replaces its own lane).
    pub fn close_chunks_before(
        &mut self,
        event_type: EventType,
        owner: Option<&str>,
        client: bool,
    ) {
        use EventType as T;
        if client {
            match event_type {
                T::TextMessageStart
                | T::TextMessageContent
                | T::TextMessageEnd
                | T::ToolCallStart
                | T::ToolCallArgs
                | T::ToolCallEnd
                | T::ToolCallResult
                | T::StateSnapshot
                | T::StateDelta
                | T::Custom
                | T::StepStarted
                | T::StepFinished
                | T::ReasoningStart
                | T::ReasoningMessageStart
                | T::ReasoningMessageContent
                | T::ReasoningMessageEnd
                | T::ReasoningEnd => {
                    self.chunks.remove(&owner.map(str::to_owned));
                }
                T::SubagentFinished | T::SubagentError => {
                    if let Some(owner) = owner {
                        self.chunks.remove(&Some(owner.to_owned()));
                    }
                }
                T::RunStarted | T::RunFinished | T::RunError | T::MessagesSnapshot => {
                    self.chunks.clear();
                }
                _ => {}
            }
            return;
        }
        if matches!(
            event_type,
            T::ActivitySnapshot
                | T::ActivityDelta
                | T::Raw
                | T::ReasoningEncryptedValue
                | T::SubagentStarted
        ) {
            return;
        }
        self.chunks
            .retain(|_, lane| lane.kind.chunk_type() == event_type);
    }

    /// The ids of the messages whose text may grow by the next events
    /// (open text and reasoning messages and chunk streams, a translated
    /// thinking message) and of the tool calls open (whose messages grow
    /// otherwise), possibly repeated: those a checkpoint keeps as the
    /// text gained since the last one (issue 38).
    pub(super) fn growing(&self) -> (Vec<&str>, Vec<&str>) {
        let messages = self
            .text
            .keys()
            .chain(self.reasoning.keys())
            .chain(
                self.chunks
                    .values()
                    .filter(|lane| lane.kind != Kind::Tool)
                    .map(|lane| &lane.id),
            )
            .chain(&self.thinking)
            .map(String::as_str)
            .collect();
        let tool_calls = self
            .tool_calls
            .keys()
            .chain(
                self.chunks
                    .values()
                    .filter(|lane| lane.kind == Kind::Tool)
                    .map(|lane| &lane.id),
            )
            .map(String::as_str)
            .collect();
        (messages, tool_calls)
    }

    /// Closes everything (a run boundary).
    pub fn close_all(&mut self) {
        *self = Self::default();
    }

    /// What `RUN_FINISHED` may not leave open (§11:
    /// `open-message-at-run-finished-fatal`), in the reference client's
    /// words; empty when nothing is.
    /// Under `spec` a start E4 skipped does not count (issue 39: its one
    /// warning is its verdict); the client's verifier counts it.
    pub fn describe_active(&self, client: bool) -> Vec<String> {
        let mut parts = Vec::new();
        let counts =
            |kind: Kind, id: &String| client || !self.dropping.contains(&(kind, id.clone()));
        let mut list = |what: &str, ids: &mut dyn Iterator<Item = &String>| {
            let ids: Vec<String> = ids.map(|id| format!("'{id}'")).collect();
            if !ids.is_empty() {
                parts.push(format!(
                    "Cannot send 'RUN_FINISHED' while {what} are still active: {}",
                    ids.join(", ")
                ));
            }
        };
        list("steps", &mut self.steps.iter());
        list(
            "text messages",
            &mut self.text.keys().filter(|id| counts(Kind::Text, id)),
        );
        list(
            "tool calls",
            &mut self.tool_calls.keys().filter(|id| counts(Kind::Tool, id)),
        );
        list(
            "reasoning messages",
            &mut self
                .reasoning
                .keys()
                .filter(|id| counts(Kind::Reasoning, id)),
        );
        list("subagents", &mut self.subagents.iter());
        parts
    }

    /// What a run may leave open with only a note: reasoning phases. Empty
    /// when nothing is.
    pub fn describe_open(&self) -> String {
        let mut parts = Vec::new();
        let mut list = |what: &str, ids: &mut dyn Iterator<Item = &String>| {
            let ids: Vec<String> = ids.map(|id| format!("{id:?}")).collect();
            if !ids.is_empty() {
                parts.push(format!("{what} {}", ids.join(", ")));
            }
        };
        list("reasoning", &mut self.reasoning_phases.iter());
        parts.join("; ")
    }
}

fn role_from_text(role: Option<TextRole>) -> Role {
    match role.unwrap_or(TextRole::Assistant) {
        TextRole::Developer => Role::Developer,
        TextRole::System => Role::System,
        TextRole::Assistant => Role::Assistant,
        TextRole::User => Role::User,
    }
}

/// Merges `metadata` into `target["metadata"]` key by key, last write wins,
/// no recursion (R30 amended).
fn merge_metadata(target: &mut Map<String, Value>, metadata: Option<&Map<String, Value>>) {
    let Some(metadata) = metadata else { return };
    let slot = target
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    if let Value::Object(slot) = slot {
        for (key, value) in metadata {
            slot.insert(key.clone(), value.clone());
        }
    }
}

/// Which streamed family an event belongs to, for messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Text,
    Reasoning,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Self::Text => "text message",
            Self::Reasoning => "reasoning message",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Self::Text => "TEXT_MESSAGE",
            Self::Reasoning => "REASONING_MESSAGE",
        }
    }

    /// Whether an existing message belongs to this family (and may be
    /// reopened by a start of it).
    fn holds(self, message: &Message) -> bool {
        match (self, message) {
            (_, Message::Activity(_)) => false,
            (Self::Reasoning, Message::Other(m)) => m.role == Role::Reasoning,
            (Self::Text, Message::Other(m)) => !matches!(m.role, Role::Reasoning | Role::Tool),
        }
    }
}

impl Replayer {
    /// `ag-ui-client-1.0` (P12): records the owners the reference client's
    /// verifier takes from a message a `RUN_STARTED.input` (`overwrite`
    /// false: only ids it has none for) or a `MESSAGES_SNAPSHOT` (`overwrite`
    /// true) carries: a text or tool message's own `subagentRunId`, and the
    /// same for each of its tool calls.
    pub(super) fn verifier_record(&mut self, message: &Message, overwrite: bool) {
        let Message::Other(message) = message else {
            return;
        };
        if message.role == Role::Reasoning {
            return;
        }
        let owner: Owner = message
            .fields
            .get("subagentRunId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let streams = &mut self.streams;
        if overwrite || !streams.verified_messages.contains_key(message.id.as_str()) {
            streams
                .verified_messages
                .insert(message.id.to_string(), owner.clone());
        }
        for call in message.tool_call_ids() {
            if overwrite || !streams.verified_tool_calls.contains_key(call) {
                streams
                    .verified_tool_calls
                    .insert(call.to_owned(), owner.clone());
            }
        }
    }

    /// `ag-ui-client-1.0` (P12): a continuation is checked against the owner
    /// the verifier recorded for the id, not against its opener.
    fn verified_opener(&self, family: Option<Family>, id: &str, opener: Owner) -> Owner {
        if self.profile() != Profile::AgUiClient10 {
            return opener;
        }
        let recorded = match family {
            Some(Family::Text) => self.streams.verified_messages.get(id),
            Some(Family::Reasoning) => None,
            None => self.streams.verified_tool_calls.get(id),
        };
        recorded.cloned().unwrap_or(opener)
    }

    /// `ag-ui-client-1.0` (§10, §11 `era-0-0-45-thinking-translated`): the
    /// reference client's always-on compatibility boundary translates the
    /// retired `THINKING_*` events into reasoning, with a warning; the text
    /// of a thinking message becomes a reasoning message (its id invented,
    /// `thinking-<seq>`, since the retired shape has none).
    pub(super) fn thinking(&mut self, type_name: &str, delta: Option<&str>) -> EventEffect {
        let modern = THINKING
            .iter()
            .find(|(old, _)| *old == type_name)
            .map_or("", |(_, new)| *new);
        self.diagnose(
            Code::EventLegacyTranslated,
            None,
            format!(
                "{type_name} is a retired pre-1.0 event; translated to {modern} (ag-ui-client-1.0's compatibility boundary)"
            ),
        );
        match type_name {
            "THINKING_TEXT_MESSAGE_START" => {
                let id = format!("thinking-{}", self.seq);
                if !self.conversation.contains(&id) {
                    self.conversation
                        .push(Message::Other(OtherMessage::empty_text(
                            &id,
                            Role::Reasoning,
                        )));
                }
                self.streams.thinking = Some(id);
            }
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                if let (Some(id), Some(delta)) = (self.streams.thinking.as_deref(), delta)
                    && let Some(i) = self.conversation.position(id)
                {
                    self.conversation.append_text(i, delta);
                }
            }
            "THINKING_TEXT_MESSAGE_END" => self.streams.thinking = None,
            _ => {}
        }
        EventEffect::APPLIED
    }

    pub(super) fn apply_stream_event(
        &mut self,
        body: &EventBody,
        envelope: &Envelope,
    ) -> EventEffect {
        use EventBody as B;
        let owner = envelope.subagent_run_id.as_deref();
        let metadata = envelope.metadata.as_ref();
        match body {
            B::TextMessageStart {
                message_id,
                role,
                name,
            } => self.message_start(
                Family::Text,
                message_id,
                role_from_text(*role),
                name,
                envelope,
            ),
            B::TextMessageContent { message_id, delta } => {
                self.message_content(Family::Text, message_id, delta, envelope)
            }
            B::TextMessageEnd { message_id } => {
                self.message_end(Family::Text, message_id, envelope)
            }
            B::TextMessageChunk {
                message_id,
                role,
                delta,
                name,
            } => self.message_chunk(
                Family::Text,
                message_id.as_deref(),
                *role,
                name,
                delta.as_deref(),
                envelope,
            ),
            B::ReasoningMessageStart { message_id } => self.message_start(
                Family::Reasoning,
                message_id,
                Role::Reasoning,
                &None,
                envelope,
            ),
            B::ReasoningMessageContent { message_id, delta } => {
                self.message_content(Family::Reasoning, message_id, delta, envelope)
            }
            B::ReasoningMessageEnd { message_id } => {
                self.message_end(Family::Reasoning, message_id, envelope)
            }
            B::ReasoningMessageChunk { message_id, delta } => self.message_chunk(
                Family::Reasoning,
                message_id.as_deref(),
                None,
                &None,
                delta.as_deref(),
                envelope,
            ),
            B::ReasoningStart { message_id } => {
                if self.streams.reasoning_phases.insert(message_id.to_string()) {
                    EventEffect::APPLIED
                } else {
                    self.already_active("REASONING_START", "reasoning", message_id)
                }
            }
            B::ReasoningEnd { message_id } => {
                if self.streams.reasoning_phases.remove(message_id.as_str()) {
                    EventEffect::APPLIED
                } else {
                    self.not_started("REASONING_END", "reasoning", message_id)
                }
            }
            B::ReasoningEncryptedValue {
                subtype,
                entity_id,
                encrypted_value,
                encrypted_value_type,
            } => self.encrypted_value(
                *subtype,
                entity_id,
                encrypted_value,
                encrypted_value_type.as_deref(),
            ),
            B::ToolCallStart {
                tool_call_id,
                tool_call_name,
                parent_message_id,
            } => self.tool_call_start(
                tool_call_id,
                tool_call_name,
                parent_message_id.as_deref(),
                envelope,
            ),
            B::ToolCallArgs {
                tool_call_id,
                delta,
            } => self.tool_call_args(tool_call_id, delta, envelope),
            B::ToolCallEnd { tool_call_id } => {
                let Some(opener) = self.streams.tool_calls.get(tool_call_id).cloned() else {
                    return self.not_started("TOOL_CALL_END", "tool call", tool_call_id);
                };
                let opener = self.verified_opener(None, tool_call_id, opener);
                if !self.attribution_agrees(
                    "TOOL_CALL_END",
                    "tool call",
                    tool_call_id,
                    &opener,
                    owner,
                ) {
                    return EventEffect::plain(Effect::Fatal);
                }
                self.streams.tool_calls.remove(tool_call_id);
                if self
                    .streams
                    .dropping
                    .remove(&(Kind::Tool, tool_call_id.to_string()))
                {
                    return EventEffect::SKIPPED;
                }
                self.tool_call_metadata(tool_call_id, metadata);
                EventEffect::APPLIED
            }
            B::ToolCallChunk {
                tool_call_id,
                tool_call_name,
                parent_message_id,
                delta,
            } => self.tool_call_chunk(
                tool_call_id.as_deref(),
                tool_call_name.as_deref(),
                parent_message_id.as_deref(),
                delta.as_deref(),
                envelope,
            ),
            B::ToolCallResult {
                message_id,
                tool_call_id,
                content,
            } => self.tool_call_result(message_id, tool_call_id, content, envelope),
            B::StepStarted { step_name } => {
                if self.streams.steps.contains(step_name) {
                    return self.already_active("STEP_STARTED", "step", step_name);
                }
                self.streams.steps.push(step_name.clone());
                EventEffect::APPLIED
            }
            B::StepFinished { step_name } => {
                match self.streams.steps.iter().position(|s| s == step_name) {
                    Some(i) => {
                        self.streams.steps.remove(i);
                        EventEffect::APPLIED
                    }
                    None => {
                        self.diagnose(
                            Code::LifecycleNotStarted,
                            Some(step_name),
                            format!(
                                "Cannot send 'STEP_FINISHED' for step \"{step_name}\" that was not started: No active step found with ID '{step_name}'"
                            ),
                        );
                        EventEffect::plain(Effect::Fatal)
                    }
                }
            }
            B::SubagentStarted { .. } => {
                let id = owner.unwrap_or_default().to_owned();
                if self.streams.subagents.insert(id.clone()) {
                    EventEffect::APPLIED
                } else {
                    self.already_active("SUBAGENT_STARTED", "subagent run", &id)
                }
            }
            B::SubagentFinished { .. } | B::SubagentError { .. } => {
                let id = owner.unwrap_or_default();
                if self.streams.subagents.remove(id) {
                    EventEffect::APPLIED
                } else {
                    let which = if matches!(body, B::SubagentFinished { .. }) {
                        "SUBAGENT_FINISHED"
                    } else {
                        "SUBAGENT_ERROR"
                    };
                    self.diagnose(
                        Code::SubagentNotStarted,
                        None,
                        format!(
                            "Cannot send '{which}' for subagent run '{id}', which was not started (no active SUBAGENT_STARTED)"
                        ),
                    );
                    EventEffect::plain(Effect::Fatal)
                }
            }
            // The other families are applied by the engine itself.
            _ => EventEffect::APPLIED,
        }
    }

    /// `lifecycle.not-started`: content or an end for something not open.
    fn not_started(&mut self, event: &str, what: &str, id: &str) -> EventEffect {
        self.diagnose(
            Code::LifecycleNotStarted,
            Some(id),
            format!("Cannot send '{event}' event: No active {what} found with ID '{id}'"),
        );
        EventEffect::plain(Effect::Fatal)
    }

    /// `lifecycle.already-active`: a start for something still open.
    fn already_active(&mut self, event: &str, what: &str, id: &str) -> EventEffect {
        self.diagnose(
            Code::LifecycleAlreadyActive,
            Some(id),
            format!(
                "Cannot send '{event}' event: A {what} with ID '{id}' is already in progress (active); it must end first"
            ),
        );
        EventEffect::plain(Effect::Fatal)
    }

    /// E4: a start (or a chunk opening a stream) for an id that names
    /// something else (`what`: `the tool message "x"`, `a closed tool
    /// call`): skipped, and the stream it opens is dropped until its end,
    /// which this one warning says (issue 39: one verdict per mistake).
    fn already_exists(&mut self, event: &str, id: &str, what: &str) {
        self.diagnose(
            Code::SequenceAlreadyOpen,
            Some(id),
            format!(
                "{event} {id:?} names {what} already: start skipped, and the content and end that follow for {id:?} are dropped (E4)"
            ),
        );
    }

    /// A continuation's `subagentRunId` must be its opener's; an untagged
    /// one continues the opener's (§11: `subagent-attribution-mismatch-fatal`,
    /// `subagent-unannounced-attribution-accepted`). Reports and returns
    /// false on a mismatch.
    fn attribution_agrees(
        &mut self,
        event: &str,
        what: &str,
        id: &str,
        opener: &Owner,
        owner: Option<&str>,
    ) -> bool {
        let Some(owner) = owner else { return true };
        if opener.as_deref() == Some(owner) {
            return true;
        }
        let opened_by = match opener {
            Some(opener) => format!("subagentRunId '{opener}'"),
            None => "no subagentRunId (the parent agent)".to_owned(),
        };
        self.diagnose(
            Code::SubagentAttributionMismatch,
            Some(id),
            format!(
                "{event}: subagentRunId '{owner}' does not match the {what} '{id}', opened with {opened_by}"
            ),
        );
        false
    }

    fn open_map(&mut self, family: Family) -> &mut BTreeMap<String, Owner> {
        match family {
            Family::Text => &mut self.streams.text,
            Family::Reasoning => &mut self.streams.reasoning,
        }
    }

    /// Creates the message a start (or a first chunk) opens, or finds the
    /// closed one it reopens: `Ok(true)`. `Ok(false)` when the stream opens
    /// without a message, its content to be dropped: the id names a
    /// message of another kind (E4, warned), or an activity under
    /// `ag-ui-client-1.0`. `Err` (after a diagnostic) when (client) the
    /// verifier's owner for it is another.
    fn open_message(
        &mut self,
        family: Family,
        id: &str,
        role: Role,
        name: &Option<String>,
        envelope: &Envelope,
    ) -> Result<bool, EventEffect> {
        let owner = envelope.subagent_run_id.as_deref();
        let event = format!("{}_START", family.prefix());
        if self.profile() == Profile::AgUiClient10 {
            if family == Family::Text {
                // P12: the verifier checks the tag against the owner it
                // recorded for the id (an earlier start, the run input, a
                // snapshot, a tool result), and records it when it has none.
                match self.streams.verified_messages.get(id).cloned() {
                    Some(recorded) => {
                        if !self.attribution_agrees(&event, "message", id, &recorded, owner) {
                            return Err(EventEffect::plain(Effect::Fatal));
                        }
                    }
                    None => {
                        self.streams
                            .verified_messages
                            .insert(id.to_owned(), owner.map(str::to_owned));
                    }
                }
            }
            match self.conversation.get_mut(id) {
                // P14: the verifier opens it, the reducer refuses it.
                Some(Message::Activity(_)) => {
                    self.diagnose(
                        Code::SequenceAlreadyOpen,
                        Some(id),
                        format!(
                            "{event} {id:?} names the activity message {id:?}: the client opens the {} and shows nothing of it; the content and end that follow for {id:?} are dropped (ag-ui-client-1.0; spec skips the start, E4)",
                            family.name()
                        ),
                    );
                    return Ok(false);
                }
                // The reducer continues any other message with this id.
                Some(Message::Other(message)) => {
                    merge_metadata(&mut message.fields, envelope.metadata.as_ref());
                    return Ok(true);
                }
                None => {}
            }
        }
        match self.conversation.get_mut(id) {
            Some(message) if family.holds(message) => {
                // Reopened: content appends (`reopen-closed-message-appends`).
                if let Message::Other(message) = message {
                    merge_metadata(&mut message.fields, envelope.metadata.as_ref());
                }
                Ok(true)
            }
            Some(other) => {
                let what = format!("the {} message {id:?}", other.role_name());
                self.already_exists(&event, id, &what);
                Ok(false)
            }
            None => {
                let mut message = OtherMessage::empty_text(id, role);
                if let Some(name) = name {
                    message
                        .fields
                        .insert("name".into(), Value::String(name.clone()));
                }
                if let Some(owner) = owner {
                    message
                        .fields
                        .insert("subagentRunId".into(), Value::String(owner.to_owned()));
                }
                merge_metadata(&mut message.fields, envelope.metadata.as_ref());
                self.conversation.push(Message::Other(message));
                Ok(true)
            }
        }
    }

    fn message_start(
        &mut self,
        family: Family,
        id: &str,
        role: Role,
        name: &Option<String>,
        envelope: &Envelope,
    ) -> EventEffect {
        if self.open_map(family).contains_key(id) {
            let event = format!("{}_START", family.prefix());
            return self.already_active(&event, family.name(), id);
        }
        let held = match self.open_message(family, id, role, name, envelope) {
            Ok(held) => held,
            Err(effect) => return effect,
        };
        let owner = envelope
            .subagent_run_id
            .clone()
            .or_else(|| match self.conversation.get(id) {
                Some(Message::Other(m)) => m
                    .fields
                    .get("subagentRunId")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                _ => None,
            });
        self.open_map(family).insert(id.to_owned(), owner);
        if held {
            EventEffect::APPLIED
        } else {
            self.streams
                .dropping
                .insert((Kind::of(family), id.to_owned()));
            EventEffect::SKIPPED
        }
    }

    /// Checks that `id` is open in `family` and that the event keeps its
    /// opener's attribution; `Err` with the fatal effect otherwise.
    fn continuing(
        &mut self,
        family: Family,
        event: &str,
        id: &str,
        envelope: &Envelope,
    ) -> Result<(), EventEffect> {
        let Some(opener) = self.open_map(family).get(id).cloned() else {
            return Err(self.not_started(event, family.name(), id));
        };
        let opener = self.verified_opener(Some(family), id, opener);
        if self.attribution_agrees(
            event,
            family.name(),
            id,
            &opener,
            envelope.subagent_run_id.as_deref(),
        ) {
            Ok(())
        } else {
            Err(EventEffect::plain(Effect::Fatal))
        }
    }

    fn message_content(
        &mut self,
        family: Family,
        id: &str,
        delta: &str,
        envelope: &Envelope,
    ) -> EventEffect {
        let event = format!("{}_CONTENT", family.prefix());
        if let Err(effect) = self.continuing(family, &event, id, envelope) {
            return effect;
        }
        if self
            .streams
            .dropping
            .contains(&(Kind::of(family), id.to_owned()))
        {
            // E4: its start's warning said the content is dropped.
            return EventEffect::SKIPPED;
        }
        self.append(family, id, delta, envelope.metadata.as_ref())
    }

    fn append(
        &mut self,
        family: Family,
        id: &str,
        delta: &str,
        metadata: Option<&Map<String, Value>>,
    ) -> EventEffect {
        let found = self
            .conversation
            .position(id)
            .and_then(|i| Some((i, self.conversation.at(i)?)));
        match found {
            Some((i, Message::Other(_))) => {
                // Issue 38: without metadata, the message is reached only
                // to append to its text (which checkpoints then share).
                if metadata.is_some()
                    && let Some(Message::Other(message)) = self.conversation.get_mut_at(i)
                {
                    merge_metadata(&mut message.fields, metadata);
                }
                if delta.is_empty() {
                    self.diagnose(
                        Code::EmptyDelta,
                        Some(id),
                        format!("empty delta for {} {id:?}", family.name()),
                    );
                    return EventEffect::APPLIED;
                }
                self.conversation.append_text(i, delta);
                EventEffect::APPLIED
            }
            Some((_, Message::Activity(_))) => {
                // P14: a text stream the client opened on an activity id.
                self.diagnose(
                    Code::SequenceNotOpen,
                    Some(id),
                    format!("{id:?} is an activity message; content skipped"),
                );
                EventEffect::SKIPPED
            }
            _ => {
                // A MESSAGES_SNAPSHOT may have dropped the message meanwhile.
                self.diagnose(
                    Code::SequenceNotOpen,
                    Some(id),
                    format!(
                        "{} {id:?} is no longer in the conversation; content skipped",
                        family.name()
                    ),
                );
                EventEffect::SKIPPED
            }
        }
    }

    fn message_end(&mut self, family: Family, id: &str, envelope: &Envelope) -> EventEffect {
        let event = format!("{}_END", family.prefix());
        if let Err(effect) = self.continuing(family, &event, id, envelope) {
            return effect;
        }
        self.open_map(family).remove(id);
        if self
            .streams
            .dropping
            .remove(&(Kind::of(family), id.to_owned()))
        {
            return EventEffect::SKIPPED;
        }
        if let Some(Message::Other(message)) = self.conversation.get_mut(id) {
            merge_metadata(&mut message.fields, envelope.metadata.as_ref());
        }
        EventEffect::APPLIED
    }

    /// The lane a chunk of `kind` goes to (its key: the owner whose lane
    /// it is) and the open stream it continues, if it does. Under `spec`
    /// the one stream of the kind, continued by a chunk without an id or
    /// with its id (C8). Under `ag-ui-client-1.0` as the reference client's
    /// transformer picks it (issue 39): a chunk naming an open stream's id
    /// continues that stream (its tag, if any, must be the stream's owner);
    /// one naming no id continues its tag's lane, untagged the parent
    /// agent's, else the one subagent lane of the kind (two or more:
    /// fatal, ambiguous). `Err` with the fatal effect after a diagnostic.
    fn chunk_target(
        &mut self,
        kind: Kind,
        event: &str,
        id: Option<&str>,
        tag: Option<&str>,
    ) -> Result<(Owner, Option<ChunkLane>), EventEffect> {
        if self.profile() != Profile::AgUiClient10 {
            let lane = self
                .streams
                .chunks
                .values()
                .find(|l| l.kind == kind)
                .cloned();
            let continuing = lane.filter(|lane| id.is_none_or(|id| lane.id == id));
            let key = match &continuing {
                Some(lane) => lane.owner.clone(),
                None => tag.map(str::to_owned),
            };
            return Ok((key, continuing));
        }
        let (id_member, what) = kind.words();
        let named = id.and_then(|id| {
            self.streams
                .chunks
                .iter()
                .find(|(_, lane)| lane.kind == kind && lane.id == id)
                .map(|(owner, _)| owner.clone())
        });
        let key = match (id, named) {
            (Some(id), Some(owner)) => {
                if let Some(tag) = tag
                    && owner.as_deref() != Some(tag)
                {
                    self.diagnose(
                        Code::SubagentAttributionMismatch,
                        Some(id),
                        format!(
                            "Cannot continue {what} '{id}': chunk subagentRunId '{tag}' does not match the open stream's subagent {}",
                            owner_name(&owner)
                        ),
                    );
                    return Err(EventEffect::plain(Effect::Fatal));
                }
                owner
            }
            (Some(_), None) => tag.map(str::to_owned),
            (None, _) => match tag {
                Some(tag) => Some(tag.to_owned()),
                None if self
                    .streams
                    .chunks
                    .get(&None)
                    .is_some_and(|l| l.kind == kind) =>
                {
                    None
                }
                None => {
                    let of_kind: Vec<Owner> = self
                        .streams
                        .chunks
                        .iter()
                        .filter(|(_, lane)| lane.kind == kind)
                        .map(|(owner, _)| owner.clone())
                        .collect();
                    if of_kind.len() > 1 {
                        self.diagnose(
                            Code::ChunkMissingId,
                            None,
                            format!(
                                "Ambiguous {event}: it carries neither a {id_member} nor a subagentRunId, but {} lanes have an open {what} (ag-ui-client-1.0)",
                                of_kind.len()
                            ),
                        );
                        return Err(EventEffect::plain(Effect::Fatal));
                    }
                    of_kind.into_iter().next().flatten()
                }
            },
        };
        let continuing = self
            .streams
            .chunks
            .get(&key)
            .filter(|lane| lane.kind == kind && id.is_none_or(|id| lane.id == id))
            .cloned();
        Ok((key, continuing))
    }

    /// Closes the stream a new opener of `kind` in lane `key` replaces:
    /// under `spec` the kind's stream, under the client the lane's.
    fn close_lane_for_opener(&mut self, kind: Kind, key: &Owner) {
        if self.profile() == Profile::AgUiClient10 {
            self.streams.chunks.remove(key);
        } else {
            self.streams.chunks.retain(|_, lane| lane.kind != kind);
        }
    }

    /// `chunk.missing-id`: a chunk without an id and no stream to continue.
    fn chunk_missing_id(&mut self, kind: Kind, event: &str) -> EventEffect {
        let (id_member, _) = kind.words();
        self.diagnose(
            Code::ChunkMissingId,
            None,
            format!("First {event} must have a {id_member}: no {event} stream is open to continue"),
        );
        EventEffect::plain(Effect::Fatal)
    }

    /// `chunk.conflict`: a continuation repeating a member with another
    /// value than its opener established.
    fn chunk_conflict(
        &mut self,
        event: &str,
        id: &str,
        member: &str,
        value: &str,
        established: Option<&str>,
    ) -> EventEffect {
        let established = match established {
            Some(established) => format!("'{established}'"),
            None => "none".to_owned(),
        };
        self.diagnose(
            Code::ChunkConflict,
            Some(id),
            format!(
                "{event} for '{id}': {member} '{value}' does not match the open stream's {member} ({established})"
            ),
        );
        EventEffect::plain(Effect::Fatal)
    }

    fn message_chunk(
        &mut self,
        family: Family,
        id: Option<&str>,
        role: Option<TextRole>,
        name: &Option<String>,
        delta: Option<&str>,
        envelope: &Envelope,
    ) -> EventEffect {
        let event = format!("{}_CHUNK", family.prefix());
        let kind = Kind::of(family);
        let tag = envelope.subagent_run_id.as_deref();
        let (key, continuing) = match self.chunk_target(kind, &event, id, tag) {
            Ok(target) => target,
            Err(effect) => return effect,
        };
        if let Some(lane) = continuing {
            let id = lane.id.clone();
            if let Some(role) = role
                && family == Family::Text
                && Some(role.as_str()) != lane.role
            {
                return self.chunk_conflict(&event, &id, "role", role.as_str(), lane.role);
            }
            if let Some(name) = name
                && lane.name.as_deref() != Some(name.as_str())
            {
                return self.chunk_conflict(&event, &id, "name", name, lane.name.as_deref());
            }
            if !self.attribution_agrees(&event, family.name(), &id, &lane.owner, tag) {
                return EventEffect::plain(Effect::Fatal);
            }
            if lane.dropping {
                // E4: its opener's warning said the stream is dropped.
                return EventEffect::SKIPPED;
            }
            return match delta {
                Some(delta) => self.append(family, &id, delta, envelope.metadata.as_ref()),
                None => {
                    if let Some(Message::Other(message)) = self.conversation.get_mut(&id) {
                        merge_metadata(&mut message.fields, envelope.metadata.as_ref());
                    }
                    EventEffect::APPLIED
                }
            };
        }
        self.close_lane_for_opener(kind, &key);
        let Some(id) = id else {
            return self.chunk_missing_id(kind, &event);
        };
        if self.open_map(family).contains_key(id) {
            return self.already_active(&event, family.name(), id);
        }
        let message_role = match family {
            Family::Text => role_from_text(role),
            Family::Reasoning => Role::Reasoning,
        };
        let held = match self.open_message(family, id, message_role, name, envelope) {
            Ok(held) => held,
            Err(effect) => return effect,
        };
        self.streams.chunks.insert(
            key,
            ChunkLane {
                kind,
                id: id.to_owned(),
                owner: tag.map(str::to_owned),
                role: (family == Family::Text).then(|| role_from_text(role).as_str()),
                name: name.clone(),
                parent: None,
                dropping: !held,
            },
        );
        if !held {
            return EventEffect::SKIPPED;
        }
        if delta.is_none_or(str::is_empty) {
            return EventEffect::APPLIED;
        }
        // The opener's metadata is merged already.
        self.append(family, id, delta.unwrap_or_default(), None)
    }

    /// Opens a tool call on its parent message (or a new assistant message):
    /// `Ok(true)`. `Ok(false)` when the start is skipped (E4, warned: a
    /// closed tool call's id, or a parent that is not an assistant
    /// message), the call to be dropped until its end. `Err` with the
    /// effect when it is fatal.
    fn open_tool_call(
        &mut self,
        event: &str,
        tool_call_id: &str,
        name: &str,
        parent_message_id: Option<&str>,
        envelope: &Envelope,
    ) -> Result<bool, EventEffect> {
        if self.streams.tool_calls.contains_key(tool_call_id) {
            return Err(self.already_active(event, "tool call", tool_call_id));
        }
        let client = self.profile() == Profile::AgUiClient10;
        if client {
            self.verify_tool_call_start(event, tool_call_id, parent_message_id, envelope)?;
            // The reducer continues a tool call it holds: the name is
            // updated, the metadata merges, and it is open again (P14).
            if let Some(call) = self.tool_call_mut(tool_call_id) {
                if let Some(Value::Object(function)) = call.get_mut("function") {
                    function.insert("name".into(), Value::String(name.to_owned()));
                }
                merge_metadata(call, envelope.metadata.as_ref());
                return Ok(true);
            }
        } else if self.tool_call_messages.contains_key(tool_call_id) {
            self.already_exists(event, tool_call_id, "a tool call started before");
            return Ok(false);
        }
        let mut call = json!({
            "id": tool_call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        });
        if let Value::Object(call) = &mut call {
            merge_metadata(call, envelope.metadata.as_ref());
        }
        let holder = parent_message_id.unwrap_or(tool_call_id);
        match self.conversation.get_mut(holder) {
            Some(Message::Other(message)) if message.role == Role::Assistant => {
                match message.fields.get_mut("toolCalls") {
                    Some(Value::Array(calls)) => calls.push(call),
                    _ => {
                        message
                            .fields
                            .insert("toolCalls".into(), Value::Array(vec![call]));
                    }
                }
            }
            // P14: the client gives the call a new assistant message named
            // by the tool call id, whatever else holds that id already (an
            // activity named by the call's id included, issue 39).
            Some(other) if client => {
                let role = other.role_name();
                let said = if parent_message_id.is_some() {
                    format!(
                        "{event} {tool_call_id:?} names the {role} message {holder:?} as its parent: the client puts the call on a new assistant message {tool_call_id:?} (ag-ui-client-1.0; spec skips it)"
                    )
                } else {
                    format!(
                        "{event} {tool_call_id:?} names the {role} message {holder:?}: the client puts the call on a new assistant message {tool_call_id:?} beside it (ag-ui-client-1.0; spec skips it, E4)"
                    )
                };
                self.diagnose(Code::SequenceAlreadyOpen, Some(holder), said);
                self.conversation
                    .push(call_holder(tool_call_id, call, envelope));
                Arc::make_mut(&mut self.tool_call_messages)
                    .insert(tool_call_id.to_owned(), tool_call_id.to_owned());
                return Ok(true);
            }
            Some(other) => {
                let what = match parent_message_id {
                    Some(_) => {
                        format!("the {} message {holder:?} as its parent", other.role_name())
                    }
                    None => format!("the {} message {holder:?}", other.role_name()),
                };
                self.already_exists(event, tool_call_id, &what);
                return Ok(false);
            }
            None => {
                self.conversation.push(call_holder(holder, call, envelope));
            }
        }
        Arc::make_mut(&mut self.tool_call_messages)
            .insert(tool_call_id.to_owned(), holder.to_owned());
        Ok(true)
    }

    /// `ag-ui-client-1.0` (P12): the verifier's checks of a tool call start:
    /// a tag against its parent message's recorded owner, and against the
    /// owner recorded for the tool call id (an untagged start against it
    /// through the parent's); records the owner (the tag, else the
    /// parent's) when it has none.
    fn verify_tool_call_start(
        &mut self,
        event: &str,
        tool_call_id: &str,
        parent_message_id: Option<&str>,
        envelope: &Envelope,
    ) -> Result<(), EventEffect> {
        let tag = envelope.subagent_run_id.as_deref();
        let parent = parent_message_id
            .and_then(|p| Some((p, self.streams.verified_messages.get(p)?.clone())));
        if let (Some((parent_id, parent_owner)), Some(tag)) = (&parent, tag)
            && parent_owner.as_deref() != Some(tag)
        {
            self.diagnose(
                Code::SubagentAttributionMismatch,
                Some(tool_call_id),
                format!(
                    "{event}: subagentRunId '{tag}' does not match its parent message '{parent_id}' owner {}",
                    owner_name(parent_owner)
                ),
            );
            return Err(EventEffect::plain(Effect::Fatal));
        }
        match self.streams.verified_tool_calls.get(tool_call_id).cloned() {
            Some(recorded) => {
                if !self.attribution_agrees(event, "tool call", tool_call_id, &recorded, tag) {
                    return Err(EventEffect::plain(Effect::Fatal));
                }
                if let (None, Some((parent_id, parent_owner))) = (tag, &parent)
                    && *parent_owner != recorded
                {
                    self.diagnose(
                        Code::SubagentAttributionMismatch,
                        Some(tool_call_id),
                        format!(
                            "{event}: tool call '{tool_call_id}' is owned by {} but its parent message '{parent_id}' is owned by {}",
                            owner_name(&recorded),
                            owner_name(parent_owner)
                        ),
                    );
                    return Err(EventEffect::plain(Effect::Fatal));
                }
            }
            None => {
                let owner = match tag {
                    Some(tag) => Some(tag.to_owned()),
                    None => parent.and_then(|(_, owner)| owner),
                };
                self.streams
                    .verified_tool_calls
                    .insert(tool_call_id.to_owned(), owner);
            }
        }
        Ok(())
    }

    fn tool_call_start(
        &mut self,
        tool_call_id: &str,
        name: &str,
        parent_message_id: Option<&str>,
        envelope: &Envelope,
    ) -> EventEffect {
        let held = match self.open_tool_call(
            "TOOL_CALL_START",
            tool_call_id,
            name,
            parent_message_id,
            envelope,
        ) {
            Ok(held) => held,
            Err(effect) => return effect,
        };
        self.streams
            .tool_calls
            .insert(tool_call_id.to_owned(), envelope.subagent_run_id.clone());
        if held {
            EventEffect::APPLIED
        } else {
            self.streams
                .dropping
                .insert((Kind::Tool, tool_call_id.to_owned()));
            EventEffect::SKIPPED
        }
    }

    fn tool_call_args(
        &mut self,
        tool_call_id: &str,
        delta: &str,
        envelope: &Envelope,
    ) -> EventEffect {
        let Some(opener) = self.streams.tool_calls.get(tool_call_id).cloned() else {
            return self.not_started("TOOL_CALL_ARGS", "tool call", tool_call_id);
        };
        let opener = self.verified_opener(None, tool_call_id, opener);
        if !self.attribution_agrees(
            "TOOL_CALL_ARGS",
            "tool call",
            tool_call_id,
            &opener,
            envelope.subagent_run_id.as_deref(),
        ) {
            return EventEffect::plain(Effect::Fatal);
        }
        if self
            .streams
            .dropping
            .contains(&(Kind::Tool, tool_call_id.to_owned()))
        {
            // E4: its start's warning said the arguments are dropped.
            return EventEffect::SKIPPED;
        }
        self.tool_call_metadata(tool_call_id, envelope.metadata.as_ref());
        self.append_arguments(tool_call_id, delta)
    }

    /// The tool call object with this id, wherever its message is.
    /// When the holder's id names another message first (the client's
    /// new assistant message beside a message with its id, P14), the
    /// first assistant message holding the call.
    fn tool_call_mut(&mut self, tool_call_id: &str) -> Option<&mut Map<String, Value>> {
        let holder = self.tool_call_messages.get(tool_call_id)?;
        let holds = |m: &Message| {
            matches!(m, Message::Other(m) if m.role == Role::Assistant
                && m.tool_call_ids().any(|id| id == tool_call_id))
        };
        let at = match self.conversation.position(holder) {
            Some(at) if self.conversation.at(at).is_some_and(holds) => at,
            _ => self.conversation.iter().position(holds)?,
        };
        match self.conversation.get_mut_at(at) {
            Some(Message::Other(message)) => message.tool_call_mut(tool_call_id),
            _ => None,
        }
    }

    /// R30 amended: a tool call event's metadata lands on the tool call.
    fn tool_call_metadata(&mut self, tool_call_id: &str, metadata: Option<&Map<String, Value>>) {
        if metadata.is_none() {
            return;
        }
        if let Some(call) = self.tool_call_mut(tool_call_id) {
            merge_metadata(call, metadata);
        }
    }

    fn append_arguments(&mut self, tool_call_id: &str, delta: &str) -> EventEffect {
        let function = self
            .tool_call_mut(tool_call_id)
            .and_then(|call| call.get_mut("function"))
            .and_then(Value::as_object_mut);
        match function {
            Some(function) => {
                match function.get_mut("arguments") {
                    Some(Value::String(arguments)) => {
                        // Issue 39: halves of a character cut in two join.
                        crate::surrogate::push_joined(arguments, delta);
                    }
                    _ => {
                        function.insert("arguments".into(), Value::String(delta.to_owned()));
                    }
                }
                EventEffect::APPLIED
            }
            None => {
                self.diagnose(
                    Code::SequenceNotOpen,
                    Some(tool_call_id),
                    format!(
                        "tool call {tool_call_id:?} is no longer in the conversation; arguments skipped"
                    ),
                );
                EventEffect::SKIPPED
            }
        }
    }

    fn tool_call_chunk(
        &mut self,
        tool_call_id: Option<&str>,
        name: Option<&str>,
        parent_message_id: Option<&str>,
        delta: Option<&str>,
        envelope: &Envelope,
    ) -> EventEffect {
        const EVENT: &str = "TOOL_CALL_CHUNK";
        let tag = envelope.subagent_run_id.as_deref();
        let (key, continuing) = match self.chunk_target(Kind::Tool, EVENT, tool_call_id, tag) {
            Ok(target) => target,
            Err(effect) => return effect,
        };
        let id = match continuing {
            Some(lane) => {
                if let Some(name) = name
                    && lane.name.as_deref() != Some(name)
                {
                    return self.chunk_conflict(
                        EVENT,
                        &lane.id,
                        "toolCallName",
                        name,
                        lane.name.as_deref(),
                    );
                }
                if let Some(parent) = parent_message_id
                    && lane.parent.as_deref() != Some(parent)
                {
                    return self.chunk_conflict(
                        EVENT,
                        &lane.id,
                        "parentMessageId",
                        parent,
                        lane.parent.as_deref(),
                    );
                }
                if !self.attribution_agrees(EVENT, "tool call", &lane.id, &lane.owner, tag) {
                    return EventEffect::plain(Effect::Fatal);
                }
                if lane.dropping {
                    // E4: its opener's warning said the stream is dropped.
                    return EventEffect::SKIPPED;
                }
                self.tool_call_metadata(&lane.id, envelope.metadata.as_ref());
                lane.id
            }
            None => {
                self.close_lane_for_opener(Kind::Tool, &key);
                let Some(id) = tool_call_id else {
                    return self.chunk_missing_id(Kind::Tool, EVENT);
                };
                let Some(name) = name else {
                    self.diagnose(
                        Code::ChunkMissingName,
                        Some(id),
                        format!(
                            "First TOOL_CALL_CHUNK must have a toolCallName: tool call '{id}' has none"
                        ),
                    );
                    return EventEffect::plain(Effect::Fatal);
                };
                let held = match self.open_tool_call(EVENT, id, name, parent_message_id, envelope) {
                    Ok(held) => held,
                    Err(effect) => return effect,
                };
                // A chunked call is closed by its lane, not by TOOL_CALL_END.
                self.streams.chunks.insert(
                    key,
                    ChunkLane {
                        kind: Kind::Tool,
                        id: id.to_owned(),
                        owner: tag.map(str::to_owned),
                        role: None,
                        name: Some(name.to_owned()),
                        parent: parent_message_id.map(str::to_owned),
                        dropping: !held,
                    },
                );
                if !held {
                    return EventEffect::SKIPPED;
                }
                id.to_owned()
            }
        };
        match delta {
            Some(delta) if !delta.is_empty() => self.append_arguments(&id, delta),
            _ => EventEffect::APPLIED,
        }
    }

    fn tool_call_result(
        &mut self,
        message_id: &str,
        tool_call_id: &str,
        content: &Value,
        envelope: &Envelope,
    ) -> EventEffect {
        let client = self.profile() == Profile::AgUiClient10;
        if client {
            // P12: the verifier records the result's tag for its id.
            self.streams
                .verified_messages
                .insert(message_id.to_owned(), envelope.subagent_run_id.clone());
        }
        // R51, E12: one message per id under `spec`; the client appends a
        // second message with the id (P14).
        if self.conversation.contains(message_id) {
            if !client {
                self.diagnose(
                    Code::SequenceAlreadyOpen,
                    Some(message_id),
                    format!(
                        "tool message {message_id:?} already names another message; result skipped (R51)"
                    ),
                );
                return EventEffect::SKIPPED;
            }
            self.diagnose(
                Code::SequenceAlreadyOpen,
                Some(message_id),
                format!(
                    "tool message {message_id:?} already names another message: the client adds a second message with this id (ag-ui-client-1.0; spec skips the result)"
                ),
            );
        }
        if !self.tool_call_messages.contains_key(tool_call_id) {
            self.diagnose(
                Code::UnknownReference,
                Some(message_id),
                format!("TOOL_CALL_RESULT for tool call {tool_call_id:?}, which this stream never started"),
            );
        }
        let mut fields = Map::new();
        fields.insert("content".into(), content.clone());
        fields.insert("toolCallId".into(), Value::String(tool_call_id.to_owned()));
        if let Some(owner) = &envelope.subagent_run_id {
            fields.insert("subagentRunId".into(), Value::String(owner.clone()));
        }
        merge_metadata(&mut fields, envelope.metadata.as_ref());
        let message = Message::Other(OtherMessage {
            id: message_id.into(),
            role: Role::Tool,
            fields,
        });
        // E12: right after the assistant message that holds the call and
        // the tool messages already following it; at the end when no
        // assistant message holds it.
        match self.tool_result_position(tool_call_id) {
            Some(at) => self.conversation.insert(at, message),
            None => self.conversation.push(message),
        }
        EventEffect::APPLIED
    }

    /// E12: where a tool result for `tool_call_id` goes: after the
    /// assistant message holding the call and the tool messages that
    /// follow it (as `tool-result-parts-mint-tool-message` places it and
    /// the reference client does).
    fn tool_result_position(&self, tool_call_id: &str) -> Option<usize> {
        // The first assistant message that holds the call now: a
        // MESSAGES_SNAPSHOT may have replaced its holder by a message
        // without it.
        let at = self.conversation.iter().position(|m| {
            matches!(m, Message::Other(m) if m.role == Role::Assistant
                && m.tool_call_ids().any(|id| id == tool_call_id))
        })?;
        let is_role = |i: usize, role: Role| matches!(self.conversation.at(i), Some(Message::Other(m)) if m.role == role);
        let mut after = at + 1;
        while is_role(after, Role::Tool) {
            after += 1;
        }
        Some(after)
    }

    fn encrypted_value(
        &mut self,
        subtype: EncryptedSubtype,
        entity_id: &str,
        value: &str,
        value_type: Option<&str>,
    ) -> EventEffect {
        let target: Option<&mut Map<String, Value>> = match subtype {
            EncryptedSubtype::Message => match self.conversation.get_mut(entity_id) {
                Some(Message::Other(message)) => Some(&mut message.fields),
                _ => None,
            },
            EncryptedSubtype::ToolCall => self.tool_call_mut(entity_id),
        };
        match target {
            Some(target) => {
                target.insert("encryptedValue".into(), Value::String(value.to_owned()));
                if let Some(value_type) = value_type {
                    target.insert(
                        "encryptedValueType".into(),
                        Value::String(value_type.to_owned()),
                    );
                }
                EventEffect::APPLIED
            }
            None => {
                let what = match subtype {
                    EncryptedSubtype::Message => "message",
                    EncryptedSubtype::ToolCall => "tool call",
                };
                self.diagnose(
                    Code::UnknownReference,
                    Some(entity_id),
                    format!("REASONING_ENCRYPTED_VALUE for {what} {entity_id:?}, which the conversation does not hold; skipped"),
                );
                EventEffect::SKIPPED
            }
        }
    }
}

/// A new assistant message `id` holding one tool call, owned by the event's
/// `subagentRunId` (R21): what a tool call start makes when no assistant
/// message holds it.
fn call_holder(id: &str, call: Value, envelope: &Envelope) -> Message {
    let mut fields = Map::new();
    fields.insert("toolCalls".into(), Value::Array(vec![call]));
    if let Some(owner) = &envelope.subagent_run_id {
        fields.insert("subagentRunId".into(), Value::String(owner.clone()));
    }
    Message::Other(OtherMessage {
        id: id.into(),
        role: Role::Assistant,
        fields,
    })
}
