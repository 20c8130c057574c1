//! The rows of the conversation: the messages at the cursor, with those the
//! current event removed where they were; what the event did to each
//! message; and the row it touched.

use std::sync::Arc;

use egui::Id;

use super::Change;
use crate::app_model::follow::named_message;
use crate::app_model::state::CursorView;
use crate::protocol::{EventType, ParseOutcome};
use crate::replay::{Conversation, Message};
use crate::ui::memo::memoized;

/// One row of the list: a message at the cursor, or one the current event
/// removed (by its position one step earlier).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Row {
    /// The message at this position at the cursor.
    At(usize),
    /// The message at this position one step earlier, gone at the cursor.
    Removed(usize),
}

/// The rows when the current event removed messages (a `MESSAGES_SNAPSHOT`
/// drops those it does not list, R51); `None` when it removed none, so the
/// rows are the messages at the cursor.
pub(super) fn removal_rows(ctx: &egui::Context, view: &CursorView) -> Arc<Option<Vec<Row>>> {
    let (at, before) = (view.at.conversation(), view.before.conversation());
    let snapshot = matches!(
        &view.event,
        Some(ParseOutcome::Event { event, .. })
            if event.event_type() == EventType::MessagesSnapshot
    );
    if !snapshot && at.len() >= before.len() {
        // Only a messages snapshot removes messages; anything else keeps
        // every message (and a list that shrank is checked anyway).
        return Arc::new(None);
    }
    memoized(
        ctx,
        Id::unique("conversation-removed-rows"),
        view.generation,
        view.step,
        || Arc::new(rows_with_removed(before, at)),
    )
}

/// The messages of `at` with those of `before` that are gone, each placed
/// after the message that preceded it (first when none did).
fn rows_with_removed(before: &Conversation, at: &Conversation) -> Option<Vec<Row>> {
    let mut removed: Vec<(Option<usize>, usize)> = Vec::new();
    let mut previous = None;
    for (j, message) in before.iter().enumerate() {
        match at.position(message.id()) {
            Some(i) => previous = Some(i),
            None => removed.push((previous, j)),
        }
    }
    if removed.is_empty() {
        return None;
    }
    removed.sort_by_key(|&(anchor, _)| anchor.map_or(0, |i| i + 1));
    let mut rows = Vec::with_capacity(at.len() + removed.len());
    let mut pending = removed.into_iter().peekable();
    while let Some((_, j)) = pending.next_if(|(anchor, _)| anchor.is_none()) {
        rows.push(Row::Removed(j));
    }
    for i in 0..at.len() {
        rows.push(Row::At(i));
        while let Some((_, j)) = pending.next_if(|(anchor, _)| *anchor == Some(i)) {
            rows.push(Row::Removed(j));
        }
    }
    Some(rows)
}

/// What the current event did to `message` (a message at the cursor).
pub(super) fn change_of(before: &Conversation, message: &Message) -> Change {
    match before.get(message.id()) {
        None => Change::New,
        // Shared messages (and shared activity contents) compare by pointer.
        Some(old) if std::ptr::eq(old, message) || old == message => Change::Same,
        Some(_) => Change::Changed,
    }
}

/// The row the current event touched: the message it names (its
/// `messageId`, the message holding the tool call it continues, the first
/// message a run input added: what the inspector follows, issue 13.3), else
/// the last one if it is new or changed.
pub(super) fn touched_row(
    view: &CursorView,
    num_rows: usize,
    row: impl Fn(usize) -> Row,
) -> Option<usize> {
    let (at, before) = (view.at.conversation(), view.before.conversation());
    let named = view
        .event
        .as_ref()
        .and_then(|event| named_message(event, at, view.step));
    if let Some(id) = named.as_deref() {
        if let Some(i) = at.position(id) {
            if num_rows == at.len() {
                return Some(i);
            }
            return (0..num_rows).find(|&r| row(r) == Row::At(i));
        }
        if let Some(j) = before.position(id) {
            return (0..num_rows).find(|&r| row(r) == Row::Removed(j));
        }
    }
    let last = at.len().checked_sub(1)?;
    let message = at.at(last)?;
    (change_of(before, message) != Change::Same && num_rows == at.len()).then_some(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{OtherMessage, Role};

    fn text(id: &str, role: Role) -> Message {
        Message::Other(OtherMessage::empty_text(id, role))
    }

    fn conversation(ids: &[&str]) -> Conversation {
        let mut conversation = Conversation::default();
        for id in ids {
            conversation.push(text(id, Role::User));
        }
        conversation
    }

    #[test]
    fn removed_messages_sit_where_they_were() {
        let before = conversation(&["a", "b", "c", "d"]);
        let at = conversation(&["a", "c", "e"]);
        assert_eq!(
            rows_with_removed(&before, &at),
            Some(vec![
                Row::At(0),
                Row::Removed(1),
                Row::At(1),
                Row::Removed(3),
                Row::At(2),
            ])
        );
        let at = conversation(&["c"]);
        assert_eq!(
            rows_with_removed(&before, &at),
            Some(vec![
                Row::Removed(0),
                Row::Removed(1),
                Row::At(0),
                Row::Removed(3),
            ])
        );
        assert_eq!(rows_with_removed(&at, &before), None);
    }

    #[test]
    fn change_compares_by_id_then_json() {
        let before = conversation(&["a", "b"]);
        let same = text("a", Role::User);
        assert_eq!(change_of(&before, &same), Change::Same);
        let mut edited = OtherMessage::empty_text("b", Role::User);
        edited.append_content("hi");
        assert_eq!(change_of(&before, &Message::Other(edited)), Change::Changed);
        assert_eq!(change_of(&before, &text("z", Role::User)), Change::New);
    }
}
