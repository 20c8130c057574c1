//! Following one value across steps: the value a query looks at, kept from
//! step to step so that a step is a match only where the value changed, and
//! the replay that carries it forward a bounded number of events at a time.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::{Arc, Weak};

use serde_json::Value;

use super::query::{Query, Target, split_pointer};
use crate::diagnostic::Seq;
use crate::input::RawEvents;
use crate::protocol::for_each_parsed_in;
use crate::replay::{ActivityMessage, Message, Replayer};

/// Events replayed between two looks at whether to stop: a search that found
/// its match reads at most this many events past it.
const CHUNK_EVENTS: usize = 16 * 1024;

/// A step where the query's predicate became true, or stayed true with a
/// new value.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The step (the state after events `1..=step`).
    pub step: Seq,
    /// The value at the pointer there.
    pub value: Option<Value>,
}

/// The value a query looks at, followed step by step.
#[derive(Clone, Debug)]
pub(super) struct Watch {
    /// The value at the last step seen.
    value: Option<Value>,
    /// The activity content `value` was read from. Holding a weak reference
    /// keeps its allocation (so its address is not reused) and makes the
    /// replay's `Arc::make_mut` move the content elsewhere before changing
    /// it: the same address means the same content.
    content: Option<Weak<Value>>,
    shortcut: Shortcut,
}

/// How a step that did not change the value is told apart without reading
/// the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shortcut {
    /// Read the value at every step (it is small: a state member, metadata,
    /// a text).
    None,
    /// The pointer is into an activity's `content`: the same content, the
    /// same value.
    Content,
    /// The pointer is the whole message: compare the message with the last
    /// value without building its JSON (and the content by address).
    WholeMessage,
}

impl Watch {
    fn new(query: &Query, replayer: &Replayer) -> Self {
        let shortcut = match &query.target {
            Target::State => Shortcut::None,
            Target::Message(_) if query.pointer.is_empty() => Shortcut::WholeMessage,
            Target::Message(_) => match split_pointer(&query.pointer) {
                Some((name, _)) if name == "content" => Shortcut::Content,
                _ => Shortcut::None,
            },
        };
        let mut watch = Self {
            value: query.value(replayer),
            content: None,
            shortcut,
        };
        if shortcut != Shortcut::None {
            watch.content = activity(query, replayer).map(|a| Arc::downgrade(&a.content));
        }
        watch
    }

    /// Looks at the step just applied: whether it is a match.
    fn step(&mut self, query: &Query, replayer: &Replayer) -> bool {
        if self.shortcut != Shortcut::None {
            let activity = activity(query, replayer);
            let same_content = activity.is_some_and(|a| self.is_same_content(a));
            let unchanged = match self.shortcut {
                Shortcut::Content => same_content,
                _ => match (&query.target, &self.value) {
                    (Target::Message(id), Some(previous)) => replayer
                        .conversation()
                        .get(id)
                        .is_some_and(|message| same_message_json(message, previous, same_content)),
                    _ => false,
                },
            };
            if !same_content {
                self.content = activity.map(|a| Arc::downgrade(&a.content));
            }
            if unchanged {
                return false;
            }
        }
        let current = query.resolve(replayer);
        if current.as_deref() == self.value.as_ref() {
            return false;
        }
        self.value = current.map(Cow::into_owned);
        query.predicate.holds_for(self.value.as_ref())
    }

    fn is_same_content(&self, activity: &ActivityMessage) -> bool {
        self.content
            .as_ref()
            .is_some_and(|seen| std::ptr::eq(seen.as_ptr(), Arc::as_ptr(&activity.content)))
    }

    pub(super) fn holds(&self, query: &Query) -> bool {
        query.predicate.holds_for(self.value.as_ref())
    }
}

/// The activity a message query targets, if it is one.
fn activity<'r>(query: &Query, replayer: &'r Replayer) -> Option<&'r ActivityMessage> {
    let Target::Message(id) = &query.target else {
        return None;
    };
    match replayer.conversation().get(id)? {
        Message::Activity(activity) => Some(activity),
        Message::Other(_) => None,
    }
}

/// Whether `json` is `message.to_json()`, without building it;
/// `same_content`: an activity's content is known to be unchanged.
fn same_message_json(message: &Message, json: &Value, same_content: bool) -> bool {
    let Value::Object(object) = json else {
        return false;
    };
    let text = |name: &str| object.get(name).and_then(Value::as_str);
    match message {
        Message::Activity(a) => {
            let num_members =
                4 + usize::from(a.subagent_run_id.is_some()) + usize::from(a.metadata.is_some());
            object.len() == num_members
                && text("id") == Some(&a.id)
                && text("role") == Some("activity")
                && text("activityType") == Some(&a.activity_type)
                && object.get("subagentRunId").map(Value::as_str)
                    == a.subagent_run_id.as_deref().map(Some)
                && object.get("metadata").map(Value::as_object) == a.metadata.as_ref().map(Some)
                && (same_content || object.get("content") == Some(&*a.content))
        }
        // `to_json` puts `id` and `role`, then the fields over them.
        Message::Other(m) => {
            let has_id = m.fields.contains_key("id");
            let has_role = m.fields.contains_key("role");
            let num_members = m.fields.len() + usize::from(!has_id) + usize::from(!has_role);
            object.len() == num_members
                && (has_id || text("id") == Some(&m.id))
                && (has_role || text("role") == Some(m.role.as_str()))
                && m.fields
                    .iter()
                    .all(|(key, value)| object.get(key) == Some(value))
        }
    }
}

/// A replay being searched: its state and the value followed.
#[derive(Clone, Debug)]
pub(super) struct Cursor {
    pub(super) replayer: Replayer,
    pub(super) watch: Watch,
}

impl Cursor {
    pub(super) fn new(replayer: Replayer, query: &Query) -> Self {
        let watch = Watch::new(query, &replayer);
        Self { replayer, watch }
    }

    pub(super) fn step(&self) -> Seq {
        self.replayer.step()
    }

    pub(super) fn current(&self) -> Match {
        Match {
            step: self.step(),
            value: self.watch.value.clone(),
        }
    }

    /// Applies the events up to step `to` (clamped to the log), handing each
    /// match to `on_match`; stops after a match it breaks on. After each
    /// chunk of events, `on_chunk` is told the step reached, and may stop
    /// the replay there by breaking.
    pub(super) fn replay_to<E: RawEvents + ?Sized>(
        &mut self,
        query: &Query,
        events: &E,
        to: Seq,
        mut on_match: impl FnMut(Match) -> ControlFlow<()>,
        mut on_chunk: impl FnMut(Seq) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let end = usize::try_from(to.get())
            .unwrap_or(usize::MAX)
            .min(events.len());
        while (self.step().get() as usize) < end {
            let from = self.step().get() as usize;
            let chunk_end = end.min(from.saturating_add(CHUNK_EVENTS));
            let mut flow = ControlFlow::Continue(());
            for_each_parsed_in(events, from..chunk_end, |_, _, parsed| {
                if flow.is_break() {
                    return;
                }
                self.replayer.apply_taking(parsed);
                if self.watch.step(query, &self.replayer) {
                    flow = on_match(self.current());
                }
            });
            flow?;
            on_chunk(self.step())?;
        }
        ControlFlow::Continue(())
    }
}
