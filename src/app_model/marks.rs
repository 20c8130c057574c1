//! Marks A and B, what the diff compares, and the diff itself: the state of
//! the diff feature. The comparison is the engine's ([`Comparison`]), the
//! one the `diff` command prints, with what the two trees highlight.

use std::sync::Arc;

use crate::app_model::command::{DiffScopeChoice, MarkCommand};
use crate::app_model::highlights::{Highlights, side_by_side};
use crate::app_model::memo::Memo;
use crate::diagnostic::Seq;
use crate::diff::{Comparison, DiffScope};
use crate::timeline::Timeline;

/// A comparison, with what the two trees highlight.
pub struct CompareView {
    /// The marks and the scope it compares.
    pub key: (Seq, Seq, DiffScope),
    /// The documents and the patch.
    pub comparison: Comparison,
    /// What A has that B does not, or has otherwise.
    pub left: Highlights,
    /// What B has that A does not, or has otherwise.
    pub right: Highlights,
    /// The patch, pretty-printed (what the copy button copies).
    pub patch_text: String,
}

/// Marks A and B, what the diff compares, and the diff itself: the state
/// of the diff feature, changed by [`MarkCommand`]s.
#[derive(Default)]
pub struct Marks {
    marks: [Option<Seq>; 2],
    scope: DiffScopeChoice,
    comparison: Memo<(Seq, Seq, DiffScope), Arc<CompareView>>,
}

/// What a [`MarkCommand`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MarkResponse {
    /// Both marks are set by the command: the diff tab shows.
    pub show_diff: bool,
}

/// What `d` (diff with the previous step) compares at an event of the
/// wire type `event_type`: what that event changes (the state, an
/// activity or message, every message), or `None` to keep the last choice
/// (a run's or step's event changes none of them). Kept from one `d` to
/// the next, "the state" said "no difference" on an `ACTIVITY_DELTA`
/// (issue 43, point 4).
pub fn scope_of_event(event_type: &str) -> Option<DiffScopeChoice> {
    if event_type.starts_with("STATE_") {
        Some(DiffScopeChoice::State)
    } else if event_type == "MESSAGES_SNAPSHOT" {
        Some(DiffScopeChoice::Conversation)
    } else if ["ACTIVITY_", "TEXT_MESSAGE_", "TOOL_CALL_", "REASONING_"]
        .iter()
        .any(|prefix| event_type.starts_with(prefix))
    {
        Some(DiffScopeChoice::Activity)
    } else {
        None
    }
}

impl Marks {
    /// Marks A and B.
    pub fn get(&self) -> [Option<Seq>; 2] {
        self.marks
    }

    /// What the diff compares.
    pub fn scope_choice(&self) -> DiffScopeChoice {
        self.scope
    }

    /// Chooses what the diff compares.
    pub fn set_scope(&mut self, scope: DiffScopeChoice) {
        self.scope = scope;
    }

    /// Applies a command, the cursor at `cursor` in a stream of
    /// `num_events` events (a mark never passes its end).
    pub fn apply(&mut self, command: MarkCommand, cursor: Seq, num_events: u64) -> MarkResponse {
        let clamp = |step: Seq| Seq::new(step.get().min(num_events));
        match command {
            MarkCommand::Set(slot, step) => {
                self.marks[slot as usize] = step.map(clamp);
                MarkResponse::default()
            }
            MarkCommand::AtCursor(slot) => {
                self.marks[slot as usize] = Some(cursor);
                MarkResponse {
                    show_diff: self.marks.iter().all(Option::is_some),
                }
            }
            MarkCommand::SetBoth(a, b) => {
                let (a, b) = (a.min(b), a.max(b));
                self.marks = [Some(a), Some(clamp(b))];
                MarkResponse { show_diff: true }
            }
            MarkCommand::DiffWithPrevious => {
                self.marks = [Some(Seq::new(cursor.get().saturating_sub(1))), Some(cursor)];
                MarkResponse { show_diff: true }
            }
        }
    }

    /// Removes both marks (another stream).
    pub fn clear(&mut self) {
        self.marks = [None, None];
    }

    /// Keeps the marks within a stream of `num_events` events (the same
    /// stream replayed again may be shorter).
    pub fn clamp(&mut self, num_events: u64) {
        for mark in self.marks.iter_mut().flatten() {
            *mark = Seq::new(mark.get().min(num_events));
        }
    }

    /// The scope the diff compares now: the selected activity, the
    /// conversation or the state (`None`: the activity scope with nothing
    /// selected).
    pub fn scope(&self, selected_activity: Option<&str>) -> Option<DiffScope> {
        match self.scope {
            DiffScopeChoice::Activity => {
                selected_activity.map(|id| DiffScope::Message(id.to_owned()))
            }
            DiffScopeChoice::Conversation => Some(DiffScope::Conversation),
            DiffScopeChoice::State => Some(DiffScope::State),
        }
    }

    /// The diff of marks A and B, as last brought up to date.
    pub fn comparison(&self) -> Option<&Arc<CompareView>> {
        self.comparison.last()
    }

    /// Computes the diff of marks A and B in `timeline` (of document
    /// `generation`) unless it is up to date, or drops it when it cannot be
    /// computed.
    pub fn refresh(
        &mut self,
        generation: u64,
        timeline: Option<&Timeline>,
        selected_activity: Option<&str>,
    ) {
        let (Some(timeline), [Some(a), Some(b)], Some(scope)) =
            (timeline, self.marks, self.scope(selected_activity))
        else {
            self.comparison.clear();
            return;
        };
        self.comparison
            .get_or_compute(generation, (a, b, scope), |(a, b, scope)| {
                let comparison = Comparison::between(timeline, scope.clone(), *a, *b);
                let (left, right) = side_by_side(&comparison.before, &comparison.after);
                let patch_text = comparison.patch_json();
                Arc::new(CompareView {
                    key: (*a, *b, scope.clone()),
                    comparison,
                    left,
                    right,
                    patch_text,
                })
            });
    }
}

#[cfg(test)]
mod tests {
    // The marks' state machine, with no UI context (issue 16, point 3).
    use super::*;
    use crate::app_model::command::MarkSlot;

    #[test]
    fn d_compares_what_the_event_changes() {
        assert_eq!(scope_of_event("STATE_DELTA"), Some(DiffScopeChoice::State));
        assert_eq!(
            scope_of_event("ACTIVITY_DELTA"),
            Some(DiffScopeChoice::Activity)
        );
        assert_eq!(
            scope_of_event("TOOL_CALL_ARGS"),
            Some(DiffScopeChoice::Activity)
        );
        assert_eq!(
            scope_of_event("MESSAGES_SNAPSHOT"),
            Some(DiffScopeChoice::Conversation)
        );
        assert_eq!(scope_of_event("RUN_STARTED"), None);
    }
    use crate::app_model::test_support::{STREAM, doc_of};

    #[test]
    fn marks_at_the_cursor_show_the_diff_once_both_are_set() {
        let mut marks = Marks::default();
        let a = marks.apply(MarkCommand::AtCursor(MarkSlot::A), Seq::new(2), 8);
        assert!(!a.show_diff, "one mark is not a diff");
        let b = marks.apply(MarkCommand::AtCursor(MarkSlot::B), Seq::new(5), 8);
        assert!(b.show_diff);
        assert_eq!(marks.get(), [Some(Seq::new(2)), Some(Seq::new(5))]);
        marks.apply(MarkCommand::Set(MarkSlot::A, None), Seq::new(5), 8);
        assert_eq!(marks.get(), [None, Some(Seq::new(5))]);
    }

    #[test]
    fn marks_are_ordered_and_never_pass_the_end() {
        let mut marks = Marks::default();
        marks.apply(
            MarkCommand::SetBoth(Seq::new(30), Seq::new(3)),
            Seq::new(0),
            8,
        );
        assert_eq!(marks.get(), [Some(Seq::new(3)), Some(Seq::new(8))]);
        marks.apply(
            MarkCommand::Set(MarkSlot::B, Some(Seq::new(99))),
            Seq::new(0),
            8,
        );
        assert_eq!(marks.get()[1], Some(Seq::new(8)));
        marks.clamp(4);
        assert_eq!(marks.get(), [Some(Seq::new(3)), Some(Seq::new(4))]);
        let response = marks.apply(MarkCommand::DiffWithPrevious, Seq::new(0), 8);
        assert!(response.show_diff);
        assert_eq!(
            marks.get(),
            [Some(Seq::new(0)), Some(Seq::new(0))],
            "no step before 0"
        );
        marks.clear();
        assert_eq!(marks.get(), [None, None]);
    }

    #[test]
    fn the_diff_is_computed_once_per_generation_and_marks() {
        let doc = doc_of(STREAM);
        let mut marks = Marks::default();
        marks.refresh(1, Some(&doc.timeline), Some("a-1"));
        assert!(marks.comparison().is_none(), "no marks, no diff");
        marks.apply(
            MarkCommand::SetBoth(Seq::new(2), Seq::new(3)),
            Seq::new(0),
            8,
        );
        marks.refresh(1, Some(&doc.timeline), None);
        assert!(marks.comparison().is_none(), "the activity scope needs one");
        marks.refresh(1, Some(&doc.timeline), Some("a-1"));
        let first = Arc::clone(marks.comparison().expect("a diff"));
        assert_eq!(
            first.key,
            (Seq::new(2), Seq::new(3), DiffScope::Message("a-1".into()))
        );
        assert!(!first.comparison.is_unchanged(), "a delta changed a-1");
        marks.refresh(1, Some(&doc.timeline), Some("a-1"));
        let same = marks.comparison().expect("a diff");
        assert!(Arc::ptr_eq(&first, same), "kept while nothing changed");
        marks.refresh(2, Some(&doc.timeline), Some("a-1"));
        let again = marks.comparison().expect("a diff");
        assert!(
            !Arc::ptr_eq(&first, again),
            "another generation computes again"
        );
        marks.set_scope(DiffScopeChoice::State);
        marks.refresh(2, Some(&doc.timeline), Some("a-1"));
        assert_eq!(marks.comparison().expect("a diff").key.2, DiffScope::State);
    }
}
