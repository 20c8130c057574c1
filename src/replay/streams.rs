//! The streamed families: text messages, tool calls, reasoning, steps and
//! subagents, with their start / content / end / chunk sequencing.
//!
//! The rules leave sequencing to the protocol; this engine skips an event
//! that does not fit the open streams with a warning (`sequence.*`) rather
//! than failing the run, so the rest of the conversation stays visible.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::conversation::{Message, OtherMessage, Role};
use super::engine::{EventEffect, Replayer};
use crate::diagnostic::Code;
use crate::protocol::{EncryptedSubtype, EventBody, EventType, TextRole};

/// What is open at the current step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Streams {
    text: BTreeSet<String>,
    text_chunk: Option<String>,
    tool_calls: BTreeSet<String>,
    tool_chunk: Option<String>,
    reasoning_phases: BTreeSet<String>,
    reasoning: BTreeSet<String>,
    reasoning_chunk: Option<String>,
    steps: Vec<String>,
    subagents: BTreeSet<String>,
}

impl Streams {
    /// A chunk stream lasts until an event of another kind arrives. Activity
    /// events do not close it (R63), nor do the protocol's other
    /// pass-through events.
    pub fn close_chunks_before(&mut self, event_type: EventType) {
        use EventType as T;
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
        if event_type != T::TextMessageChunk {
            self.text_chunk = None;
        }
        if event_type != T::ToolCallChunk {
            self.tool_chunk = None;
        }
        if event_type != T::ReasoningMessageChunk {
            self.reasoning_chunk = None;
        }
    }

    /// Closes everything (a run boundary).
    pub fn close_all(&mut self) {
        *self = Self::default();
    }

    /// What is still open, in words; empty when nothing is.
    pub fn describe_open(&self) -> String {
        let mut parts = Vec::new();
        let mut list = |what: &str, ids: &mut dyn Iterator<Item = &String>| {
            let ids: Vec<String> = ids.map(|id| format!("{id:?}")).collect();
            if !ids.is_empty() {
                parts.push(format!("{what} {}", ids.join(", ")));
            }
        };
        list("text message", &mut self.text.iter());
        list("tool call", &mut self.tool_calls.iter());
        list("reasoning message", &mut self.reasoning.iter());
        list("reasoning", &mut self.reasoning_phases.iter());
        list("step", &mut self.steps.iter());
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

/// Which streamed family an event belongs to, for messages.
#[derive(Clone, Copy)]
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
}

impl Replayer {
    pub(super) fn apply_stream_event(
        &mut self,
        body: &EventBody,
        subagent_run_id: Option<&str>,
    ) -> EventEffect {
        use EventBody as B;
        match body {
            B::TextMessageStart {
                message_id,
                role,
                name,
            } => self.message_start(Family::Text, message_id, role_from_text(*role), name),
            B::TextMessageContent { message_id, delta } => {
                self.message_content(Family::Text, message_id, delta)
            }
            B::TextMessageEnd { message_id } => self.message_end(Family::Text, message_id),
            B::TextMessageChunk {
                message_id,
                role,
                delta,
                name,
            } => self.message_chunk(
                Family::Text,
                message_id.as_deref(),
                role_from_text(*role),
                name,
                delta.as_deref(),
            ),
            B::ReasoningMessageStart { message_id } => {
                self.message_start(Family::Reasoning, message_id, Role::Reasoning, &None)
            }
            B::ReasoningMessageContent { message_id, delta } => {
                self.message_content(Family::Reasoning, message_id, delta)
            }
            B::ReasoningMessageEnd { message_id } => {
                self.message_end(Family::Reasoning, message_id)
            }
            B::ReasoningMessageChunk { message_id, delta } => self.message_chunk(
                Family::Reasoning,
                message_id.as_deref(),
                Role::Reasoning,
                &None,
                delta.as_deref(),
            ),
            B::ReasoningStart { message_id } => {
                if self.streams.reasoning_phases.insert(message_id.clone()) {
                    EventEffect::APPLIED
                } else {
                    self.already_open("reasoning", message_id)
                }
            }
            B::ReasoningEnd { message_id } => {
                if self.streams.reasoning_phases.remove(message_id) {
                    EventEffect::APPLIED
                } else {
                    self.not_open("REASONING_END", "reasoning", message_id)
                }
            }
            B::ReasoningEncryptedValue {
                subtype,
                entity_id,
                encrypted_value,
            } => self.encrypted_value(*subtype, entity_id, encrypted_value),
            B::ToolCallStart {
                tool_call_id,
                tool_call_name,
                parent_message_id,
            } => self.tool_call_start(tool_call_id, tool_call_name, parent_message_id.as_deref()),
            B::ToolCallArgs {
                tool_call_id,
                delta,
            } => self.tool_call_args(tool_call_id, delta),
            B::ToolCallEnd { tool_call_id } => {
                if self.streams.tool_calls.remove(tool_call_id) {
                    EventEffect::APPLIED
                } else {
                    self.not_open("TOOL_CALL_END", "tool call", tool_call_id)
                }
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
            ),
            B::ToolCallResult {
                message_id,
                tool_call_id,
                content,
            } => self.tool_call_result(message_id, tool_call_id, content),
            B::StepStarted { step_name } => {
                if self.streams.steps.contains(step_name) {
                    return self.already_open("step", step_name);
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
                    None => self.not_open("STEP_FINISHED", "step", step_name),
                }
            }
            B::SubagentStarted { .. } => {
                let id = subagent_run_id.unwrap_or_default().to_owned();
                if self.streams.subagents.insert(id.clone()) {
                    EventEffect::APPLIED
                } else {
                    self.already_open("subagent run", &id)
                }
            }
            B::SubagentFinished { .. } | B::SubagentError { .. } => {
                let id = subagent_run_id.unwrap_or_default();
                if self.streams.subagents.remove(id) {
                    EventEffect::APPLIED
                } else {
                    let which = if matches!(body, B::SubagentFinished { .. }) {
                        "SUBAGENT_FINISHED"
                    } else {
                        "SUBAGENT_ERROR"
                    };
                    self.not_open(which, "subagent run", id)
                }
            }
            // The other families are applied by the engine itself.
            _ => EventEffect::APPLIED,
        }
    }

    fn not_open(&mut self, event: &str, what: &str, id: &str) -> EventEffect {
        self.diagnose(
            Code::SequenceNotOpen,
            Some(id),
            format!("{event} for {what} {id:?}, which is not open; skipped"),
        );
        EventEffect::SKIPPED
    }

    fn already_open(&mut self, what: &str, id: &str) -> EventEffect {
        self.diagnose(
            Code::SequenceAlreadyOpen,
            Some(id),
            format!("{what} {id:?} is already open or already exists; start skipped"),
        );
        EventEffect::SKIPPED
    }

    fn open_set(&mut self, family: Family) -> &mut BTreeSet<String> {
        match family {
            Family::Text => &mut self.streams.text,
            Family::Reasoning => &mut self.streams.reasoning,
        }
    }

    fn message_start(
        &mut self,
        family: Family,
        id: &str,
        role: Role,
        name: &Option<String>,
    ) -> EventEffect {
        if self.conversation.contains(id) {
            return self.already_open(family.name(), id);
        }
        let mut message = OtherMessage::empty_text(id, role);
        if let Some(name) = name {
            message
                .fields
                .insert("name".into(), Value::String(name.clone()));
        }
        self.conversation.push(Message::Other(message));
        self.open_set(family).insert(id.to_owned());
        EventEffect::APPLIED
    }

    fn message_content(&mut self, family: Family, id: &str, delta: &str) -> EventEffect {
        if !self.open_set(family).contains(id) {
            let event = match family {
                Family::Text => "TEXT_MESSAGE_CONTENT",
                Family::Reasoning => "REASONING_MESSAGE_CONTENT",
            };
            return self.not_open(event, family.name(), id);
        }
        self.append(family, id, delta)
    }

    fn append(&mut self, family: Family, id: &str, delta: &str) -> EventEffect {
        if delta.is_empty() {
            self.diagnose(
                Code::EmptyDelta,
                Some(id),
                format!("empty delta for {} {id:?}", family.name()),
            );
            return EventEffect::APPLIED;
        }
        match self.conversation.get_mut(id) {
            Some(Message::Other(message)) => {
                message.append_content(delta);
                EventEffect::APPLIED
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

    fn message_end(&mut self, family: Family, id: &str) -> EventEffect {
        if self.open_set(family).remove(id) {
            EventEffect::APPLIED
        } else {
            let event = match family {
                Family::Text => "TEXT_MESSAGE_END",
                Family::Reasoning => "REASONING_MESSAGE_END",
            };
            self.not_open(event, family.name(), id)
        }
    }

    fn chunk_lane(&mut self, family: Family) -> &mut Option<String> {
        match family {
            Family::Text => &mut self.streams.text_chunk,
            Family::Reasoning => &mut self.streams.reasoning_chunk,
        }
    }

    fn message_chunk(
        &mut self,
        family: Family,
        id: Option<&str>,
        role: Role,
        name: &Option<String>,
        delta: Option<&str>,
    ) -> EventEffect {
        let lane = self.chunk_lane(family).clone();
        let id = match (id, lane.as_deref()) {
            (Some(id), _) => id.to_owned(),
            (None, Some(lane)) => lane.to_owned(),
            (None, None) => {
                let event = match family {
                    Family::Text => "TEXT_MESSAGE_CHUNK",
                    Family::Reasoning => "REASONING_MESSAGE_CHUNK",
                };
                self.diagnose(
                    Code::SequenceNotOpen,
                    None,
                    format!("{event} without messageId and no chunk stream open; skipped"),
                );
                return EventEffect::SKIPPED;
            }
        };
        if lane.as_deref() != Some(id.as_str()) {
            if self.conversation.contains(&id) {
                *self.chunk_lane(family) = None;
                return self.already_open(family.name(), &id);
            }
            let mut message = OtherMessage::empty_text(&id, role);
            if let Some(name) = name {
                message
                    .fields
                    .insert("name".into(), Value::String(name.clone()));
            }
            self.conversation.push(Message::Other(message));
            *self.chunk_lane(family) = Some(id.clone());
        }
        match delta {
            Some(delta) => self.append(family, &id, delta),
            None => EventEffect::APPLIED,
        }
    }

    fn tool_call_start(
        &mut self,
        tool_call_id: &str,
        name: &str,
        parent_message_id: Option<&str>,
    ) -> EventEffect {
        if self.tool_call_messages.contains_key(tool_call_id) {
            return self.already_open("tool call", tool_call_id);
        }
        let call = json!({
            "id": tool_call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        });
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
            Some(other) => {
                let role = other.role_name();
                self.diagnose(
                    Code::SequenceAlreadyOpen,
                    Some(holder),
                    format!(
                        "TOOL_CALL_START {tool_call_id:?} names the {role} message {holder:?} as its parent; skipped"
                    ),
                );
                return EventEffect::SKIPPED;
            }
            None => {
                let mut fields = Map::new();
                fields.insert("toolCalls".into(), Value::Array(vec![call]));
                self.conversation.push(Message::Other(OtherMessage {
                    id: holder.to_owned(),
                    role: Role::Assistant,
                    fields,
                }));
            }
        }
        Arc::make_mut(&mut self.tool_call_messages)
            .insert(tool_call_id.to_owned(), holder.to_owned());
        self.streams.tool_calls.insert(tool_call_id.to_owned());
        EventEffect::APPLIED
    }

    fn tool_call_args(&mut self, tool_call_id: &str, delta: &str) -> EventEffect {
        if !self.streams.tool_calls.contains(tool_call_id) {
            return self.not_open("TOOL_CALL_ARGS", "tool call", tool_call_id);
        }
        self.append_arguments(tool_call_id, delta)
    }

    fn append_arguments(&mut self, tool_call_id: &str, delta: &str) -> EventEffect {
        let call = self
            .tool_call_messages
            .get(tool_call_id)
            .and_then(|holder| match self.conversation.get_mut(holder) {
                Some(Message::Other(message)) => message.tool_call_mut(tool_call_id),
                _ => None,
            })
            .and_then(|call| call.get_mut("function"))
            .and_then(Value::as_object_mut);
        match call {
            Some(function) => {
                match function.get_mut("arguments") {
                    Some(Value::String(arguments)) => arguments.push_str(delta),
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
    ) -> EventEffect {
        let lane = self.streams.tool_chunk.clone();
        let id = match (tool_call_id, lane.as_deref()) {
            (Some(id), _) => id.to_owned(),
            (None, Some(lane)) => lane.to_owned(),
            (None, None) => {
                self.diagnose(
                    Code::SequenceNotOpen,
                    None,
                    "TOOL_CALL_CHUNK without toolCallId and no chunk stream open; skipped".into(),
                );
                return EventEffect::SKIPPED;
            }
        };
        if lane.as_deref() != Some(id.as_str()) {
            self.streams.tool_chunk = None;
            let Some(name) = name else {
                self.diagnose(
                    Code::SequenceNotOpen,
                    Some(&id),
                    format!(
                        "the first TOOL_CALL_CHUNK of tool call {id:?} has no toolCallName; skipped"
                    ),
                );
                return EventEffect::SKIPPED;
            };
            let started = self.tool_call_start(&id, name, parent_message_id);
            if started != EventEffect::APPLIED {
                return started;
            }
            // A chunked call is closed by its lane, not by TOOL_CALL_END.
            self.streams.tool_calls.remove(&id);
            self.streams.tool_chunk = Some(id.clone());
        }
        match delta {
            Some(delta) if !delta.is_empty() => self.append_arguments(&id, delta),
            _ => EventEffect::APPLIED,
        }
    }

    fn tool_call_result(
        &mut self,
        message_id: &str,
        tool_call_id: &str,
        content: &str,
    ) -> EventEffect {
        if self.conversation.contains(message_id) {
            return self.already_open("tool message", message_id);
        }
        if !self.tool_call_messages.contains_key(tool_call_id) {
            self.diagnose(
                Code::UnknownReference,
                Some(message_id),
                format!("TOOL_CALL_RESULT for tool call {tool_call_id:?}, which this stream never started"),
            );
        }
        let mut fields = Map::new();
        fields.insert("content".into(), Value::String(content.to_owned()));
        fields.insert("toolCallId".into(), Value::String(tool_call_id.to_owned()));
        self.conversation.push(Message::Other(OtherMessage {
            id: message_id.to_owned(),
            role: Role::Tool,
            fields,
        }));
        EventEffect::APPLIED
    }

    fn encrypted_value(
        &mut self,
        subtype: EncryptedSubtype,
        entity_id: &str,
        value: &str,
    ) -> EventEffect {
        let target: Option<&mut Map<String, Value>> = match subtype {
            EncryptedSubtype::Message => match self.conversation.get_mut(entity_id) {
                Some(Message::Other(message)) => Some(&mut message.fields),
                _ => None,
            },
            EncryptedSubtype::ToolCall => {
                match self
                    .tool_call_messages
                    .get(entity_id)
                    .and_then(|holder| self.conversation.get_mut(holder))
                {
                    Some(Message::Other(message)) => message.tool_call_mut(entity_id),
                    _ => None,
                }
            }
        };
        match target {
            Some(target) => {
                target.insert("encryptedValue".into(), Value::String(value.to_owned()));
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
