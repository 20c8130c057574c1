//! Which message the inspector shows (issue 13.1): by default the one the
//! current event names, followed as the cursor moves; or one the user
//! pinned, kept whatever the cursor does. The diff's "the activity" scope
//! and the conversation's scroll use the same choice.
//!
//! When the current event names no message (`RUN_STARTED` without input,
//! `STATE_DELTA`, `STEP_STARTED`…), the last one named before it stays
//! shown, as DevTools keeps its selection: the answer depends on the step
//! only, so jumping to a step shows what stepping to it shows.

use crate::diagnostic::Seq;
use crate::protocol::{EventBody, ParseOutcome, parse_event};
use crate::replay::{Conversation, Message};

use super::state::CursorView;

use crate::app_model::document::Doc;

/// Events read backwards, at most, for the last one that names a message
/// (a long stretch of state deltas costs no more than this per step).
pub const LOOKBACK_EVENTS: u64 = 128;

/// A message followed: its id, and the step of the event that named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Followed {
    /// The message's id.
    pub id: String,
    /// The step of the event that named it: the cursor's, or an earlier
    /// one when the current event names none.
    pub named_at: Seq,
}

/// The inspector's choice: a pinned message, else the one followed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inspected {
    pinned: Option<String>,
    followed: Option<Followed>,
}

impl Inspected {
    /// The message shown: the pinned one, else the one followed.
    pub fn shown(&self) -> Option<&str> {
        self.pinned
            .as_deref()
            .or(self.followed.as_ref().map(|f| f.id.as_str()))
    }

    /// The message pinned, if any.
    pub fn pinned(&self) -> Option<&str> {
        self.pinned.as_deref()
    }

    /// The message the cursor's event names (or the last one named).
    pub fn followed(&self) -> Option<&Followed> {
        self.followed.as_ref()
    }

    /// Pins `id` (`None`: follows the cursor again).
    pub fn pin(&mut self, id: Option<String>) {
        self.pinned = id;
    }

    /// Forgets both (another stream).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Follows the cursor's event in `doc`, the view at the cursor given.
    pub fn follow(&mut self, doc: &Doc, view: &CursorView) {
        let previous = self.followed.take();
        self.followed = followed_at(doc, view, previous);
    }
}

/// The message followed at the view's step: the one its event names, else
/// the last one named before it (within [`LOOKBACK_EVENTS`]; further back,
/// `previous` stays if it still exists).
pub fn followed_at(doc: &Doc, view: &CursorView, previous: Option<Followed>) -> Option<Followed> {
    let at = view.at.conversation();
    let step = view.step;
    if let Some(id) = view
        .event
        .as_ref()
        .and_then(|event| named_message(event, at, step))
    {
        return Some(Followed { id, named_at: step });
    }
    let first = step.get().saturating_sub(LOOKBACK_EVENTS).max(1);
    for seq in (first..step.get()).rev().map(Seq::new) {
        let Some(raw) = doc.raw(seq) else { continue };
        if let Some(id) = named_message(&parse_event(&raw), at, seq) {
            return Some(Followed { id, named_at: seq });
        }
    }
    if first > 1 {
        // Not read back to the start: what was followed stays, if it is
        // still there.
        return previous.filter(|f| f.named_at < step && at.contains(&f.id));
    }
    // Back at the start: the first message of a recorded request body (E11).
    first_from_input(at, Seq::START).map(|id| Followed {
        id,
        named_at: Seq::START,
    })
}

/// The message an event names: its `messageId` (or a tool call's parent),
/// the message holding the tool call it continues, or for a `RUN_STARTED`
/// the first message its input added (E11). `at` is the conversation at
/// the cursor (or later), where tool calls and input marks are looked up.
pub fn named_message(event: &ParseOutcome, at: &Conversation, step: Seq) -> Option<String> {
    let event = match event {
        ParseOutcome::Event { event, .. } => event,
        ParseOutcome::Malformed { message_id, .. } => return message_id.clone(),
        ParseOutcome::UnknownType { .. } | ParseOutcome::Unparseable { .. } => return None,
    };
    if let Some(id) = event.message_id() {
        return Some(id.to_owned());
    }
    let tool_call = match &event.body {
        EventBody::ToolCallArgs { tool_call_id, .. }
        | EventBody::ToolCallEnd { tool_call_id, .. }
        | EventBody::ToolCallStart { tool_call_id, .. } => Some(tool_call_id.as_str()),
        EventBody::ToolCallChunk { tool_call_id, .. } => tool_call_id.as_deref(),
        _ => None,
    };
    if let Some(call) = tool_call {
        return holder_of(at, call);
    }
    if let EventBody::RunStarted { .. } = &event.body {
        return first_from_input(at, step);
    }
    None
}

/// The message holding tool call `call` (the latest first: calls are made
/// near the end).
fn holder_of(at: &Conversation, call: &str) -> Option<String> {
    (0..at.len()).rev().find_map(|i| match at.at(i)? {
        Message::Other(message) if message.tool_call_ids().any(|id| id == call) => {
            Some(message.id.to_string())
        }
        _ => None,
    })
}

/// The first message that joined from the run input of `step` (E11).
fn first_from_input(at: &Conversation, step: Seq) -> Option<String> {
    at.iter()
        .find(|m| at.from_input(m.id()) == Some(step))
        .map(|m| m.id().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::command::Command;
    use crate::app_model::state::AppState;
    use crate::app_model::time_control::TimeCommand;

    fn demo_at(step: u64) -> AppState {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&path, None);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        state
    }

    fn followed(state: &AppState) -> Option<(&str, u64)> {
        state
            .inspected()
            .followed()
            .map(|f| (f.id.as_str(), f.named_at.get()))
    }

    #[test]
    fn the_event_at_the_cursor_names_what_is_followed() {
        // issue 13.1: the failed patch of search-1 shows search-1.
        assert_eq!(followed(&demo_at(16)), Some(("search-1", 16)));
        // RUN_STARTED names the user's prompt its input added (E11).
        assert_eq!(followed(&demo_at(1)), Some(("u-1", 1)));
        // A tool call's arguments name the message holding the call.
        assert_eq!(followed(&demo_at(23)), Some(("a-1", 23)));
        // A tool result names its tool message.
        assert_eq!(followed(&demo_at(26)), Some(("tool-1", 26)));
    }

    #[test]
    fn an_event_naming_nothing_keeps_the_last_one_named() {
        // Step 20 is a STATE_DELTA, step 21 STEP_FINISHED: search-1 was
        // named last, at step 19, however the cursor got there.
        assert_eq!(followed(&demo_at(20)), Some(("search-1", 19)));
        let mut state = demo_at(45);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(21)))]);
        assert_eq!(followed(&state), Some(("search-1", 19)));
        // STATE_SNAPSHOT at step 2: the prompt of step 1.
        assert_eq!(followed(&demo_at(2)), Some(("u-1", 1)));
    }

    #[test]
    fn a_pin_keeps_its_message_as_the_cursor_moves() {
        let mut state = demo_at(4);
        state.apply(vec![Command::SelectActivity(Some("plan-1".into()))]);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(16)))]);
        assert_eq!(state.selected_activity(), Some("plan-1"));
        assert_eq!(followed(&state), Some(("search-1", 16)));
        state.apply(vec![Command::SelectActivity(None)]);
        assert_eq!(state.selected_activity(), Some("search-1"));
    }
}
