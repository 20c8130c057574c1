//! Finding matches: all of them in one pass ([`find_all`], [`find_in_log`]),
//! or the next or previous one from a step, resumably ([`Search`]).

use std::ops::ControlFlow;

use super::query::Query;
use super::watch::{Cursor, Match};
use crate::diagnostic::Seq;
use crate::input::RawEvents;
use crate::replay::Replayer;
use crate::timeline::Timeline;

/// Every match, in step order, in one replay of the timeline's events.
pub fn find_all(timeline: &Timeline, query: &Query) -> Vec<Match> {
    let mut matches = Vec::new();
    find_in_log(
        timeline.seek(Seq::START),
        timeline.events(),
        query,
        |found| {
            matches.push(found);
            ControlFlow::Continue(())
        },
    );
    matches
}

/// Replays `events` from `start` (the state at step 0, or at a later step
/// whose following events `events` holds), handing each match to
/// `on_match` in step order; stops early when it breaks. Returns the replay
/// where it stopped (the last step, unless `on_match` broke off).
///
/// For a stream not loaded into a [`Timeline`]: one pass, no checkpoints.
/// What `agui-replay find` runs; the app runs the same pass on a thread of
/// its own, through [`find_in_log_with_progress`].
pub fn find_in_log<E: RawEvents + ?Sized>(
    start: Replayer,
    events: &E,
    query: &Query,
    on_match: impl FnMut(Match) -> ControlFlow<()>,
) -> Replayer {
    find_in_log_with_progress(
        start,
        events,
        query,
        on_match,
        |_| ControlFlow::Continue(()),
    )
}

/// [`find_in_log`], telling `on_progress` the step reached every few
/// thousand events (and at the end); it stops the pass where it breaks (a
/// cancelled search). The matches and the replay returned are those of
/// [`find_in_log`] up to where it stopped.
pub fn find_in_log_with_progress<E: RawEvents + ?Sized>(
    start: Replayer,
    events: &E,
    query: &Query,
    mut on_match: impl FnMut(Match) -> ControlFlow<()>,
    mut on_progress: impl FnMut(Seq) -> ControlFlow<()>,
) -> Replayer {
    let mut cursor = Cursor::new(start, query);
    if cursor.step() == Seq::START
        && cursor.watch.holds(query)
        && on_match(cursor.current()).is_break()
    {
        return cursor.replayer;
    }
    if on_progress(cursor.step()).is_break() {
        return cursor.replayer;
    }
    let _ = cursor.replay_to(
        query,
        events,
        Seq::new(events.len() as u64),
        on_match,
        on_progress,
    );
    cursor.replayer
}

/// Which way a [`Search`] goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards the end: the first match after a step.
    Forward,
    /// Towards the start: the last match before a step.
    Backward,
}

/// Where a [`Search`] stands.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchStatus {
    /// Still going: `done` of about `total` events replayed.
    Pending {
        /// Events replayed so far.
        done: u64,
        /// Events the search replays at most (it may stop sooner).
        total: u64,
    },
    /// The match.
    Found(Match),
    /// No match in the direction searched.
    NotFound,
}

/// A search for the next or previous match, run a slice at a time
/// ([`Search::advance`]) so that a UI can run it a slice per frame and show
/// progress, and cancel it by dropping it.
///
/// Forward, it starts from the checkpoint before the first step it may
/// report and replays towards the end. Backward, it replays the segment
/// between the checkpoint before the step and that step, keeps the segment's
/// last match, and moves one segment back at a time until a segment has one.
#[derive(Clone, Debug)]
pub struct Search {
    query: Query,
    direction: Direction,
    /// Forward: the first step a match may be at. Backward: matches are
    /// before it.
    bound: Seq,
    /// The replay under way, if any.
    cursor: Option<Cursor>,
    /// Backward: the segment being replayed, `(start, end]`, and its last
    /// match so far.
    segment: Option<(Seq, Seq)>,
    best: Option<Match>,
    done: u64,
    total: u64,
    /// Once found or not found, what [`Search::advance`] keeps returning.
    outcome: Option<SearchStatus>,
}

impl Search {
    fn new(query: Query, direction: Direction, bound: Seq) -> Self {
        Self {
            query,
            direction,
            bound,
            cursor: None,
            segment: None,
            best: None,
            done: 0,
            total: 0,
            outcome: None,
        }
    }

    /// The first match (at step 0 or later).
    pub fn first(query: Query) -> Self {
        Self::new(query, Direction::Forward, Seq::START)
    }

    /// The first match at a step after `after`.
    pub fn next(query: Query, after: Seq) -> Self {
        Self::new(
            query,
            Direction::Forward,
            Seq::new(after.get().saturating_add(1)),
        )
    }

    /// The last match at a step before `before`.
    pub fn previous(query: Query, before: Seq) -> Self {
        Self::new(query, Direction::Backward, before)
    }

    /// What it looks for.
    pub fn query(&self) -> &Query {
        &self.query
    }

    /// Which way it goes.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Goes on, replaying at most about `budget` events (at least one) of
    /// `timeline` (always the same one; it may have grown since the last
    /// call). Once it returns [`SearchStatus::Found`] or
    /// [`SearchStatus::NotFound`], it keeps returning it.
    pub fn advance(&mut self, timeline: &Timeline, budget: usize) -> SearchStatus {
        if let Some(outcome) = &self.outcome {
            return outcome.clone();
        }
        let budget = budget.max(1) as u64;
        let status = match self.direction {
            Direction::Forward => self.advance_forward(timeline, budget),
            Direction::Backward => self.advance_backward(timeline, budget),
        };
        if !matches!(status, SearchStatus::Pending { .. }) {
            self.outcome = Some(status.clone());
            self.cursor = None;
            self.best = None;
        }
        status
    }

    fn advance_forward(&mut self, timeline: &Timeline, budget: u64) -> SearchStatus {
        let last = timeline.last_step();
        let from = self.bound;
        let query = &self.query;
        let cursor = match &mut self.cursor {
            Some(cursor) => cursor,
            None => {
                if from > last {
                    return SearchStatus::NotFound;
                }
                // Step `from` is judged against the step before it.
                let start =
                    checkpoint_at_or_before(timeline, Seq::new(from.get().saturating_sub(1)));
                let cursor = Cursor::new(timeline.seek(start), query);
                if from == Seq::START && cursor.watch.holds(query) {
                    return SearchStatus::Found(cursor.current());
                }
                self.cursor.insert(cursor)
            }
        };
        let before = cursor.step();
        let to = Seq::new(last.get().min(before.get().saturating_add(budget)));
        let mut found = None;
        let _ = cursor.replay_to(
            query,
            timeline.events(),
            to,
            |candidate| {
                if candidate.step < from {
                    return ControlFlow::Continue(());
                }
                found = Some(candidate);
                ControlFlow::Break(())
            },
            |_| ControlFlow::Continue(()),
        );
        self.done += cursor.step().get() - before.get();
        self.total = self.done + (last.get() - cursor.step().get());
        match found {
            Some(found) => SearchStatus::Found(found),
            None if cursor.step() >= last => SearchStatus::NotFound,
            None => self.pending(),
        }
    }

    fn advance_backward(&mut self, timeline: &Timeline, mut budget: u64) -> SearchStatus {
        let query = &self.query;
        loop {
            let (start, end) = match self.segment {
                Some(segment) => segment,
                None => {
                    if self.bound == Seq::START {
                        return SearchStatus::NotFound;
                    }
                    let end = Seq::new((self.bound.get() - 1).min(timeline.last_step().get()));
                    self.total = end.get();
                    let start = checkpoint_before(timeline, end);
                    *self.segment.insert((start, end))
                }
            };
            let cursor = match &mut self.cursor {
                Some(cursor) => cursor,
                None => {
                    let cursor = Cursor::new(timeline.seek(start), query);
                    self.best = (start == Seq::START && cursor.watch.holds(query))
                        .then(|| cursor.current());
                    self.cursor.insert(cursor)
                }
            };
            let before = cursor.step();
            let to = Seq::new(end.get().min(before.get().saturating_add(budget)));
            let best = &mut self.best;
            let _ = cursor.replay_to(
                query,
                timeline.events(),
                to,
                |candidate| {
                    *best = Some(candidate);
                    ControlFlow::Continue(())
                },
                |_| ControlFlow::Continue(()),
            );
            let applied = cursor.step().get() - before.get();
            self.done += applied;
            budget = budget.saturating_sub(applied);
            if cursor.step() < end {
                // Out of budget; or out of events (a timeline other than the
                // one the search began on), where going on would never end.
                if applied == 0 && budget > 0 {
                    return SearchStatus::NotFound;
                }
                return self.pending();
            }
            if let Some(found) = self.best.take() {
                return SearchStatus::Found(found);
            }
            if start == Seq::START {
                return SearchStatus::NotFound;
            }
            // Nothing in this segment: the one before it ends where it starts.
            self.cursor = None;
            self.segment = Some((checkpoint_before(timeline, start), start));
            if budget == 0 {
                return self.pending();
            }
        }
    }

    fn pending(&self) -> SearchStatus {
        SearchStatus::Pending {
            done: self.done,
            total: self.total.max(self.done),
        }
    }
}

/// The last checkpoint at or before `step` (step 0 is always one).
fn checkpoint_at_or_before(timeline: &Timeline, step: Seq) -> Seq {
    timeline
        .checkpoint_steps()
        .rev()
        .find(|&checkpoint| checkpoint <= step)
        .unwrap_or(Seq::START)
}

/// The last checkpoint before `step`, or step 0.
fn checkpoint_before(timeline: &Timeline, step: Seq) -> Seq {
    timeline
        .checkpoint_steps()
        .rev()
        .find(|&checkpoint| checkpoint < step)
        .unwrap_or(Seq::START)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::EventLog;
    use crate::replay::Options;
    use crate::search::demo;
    use crate::search::{Predicate, Target};
    use serde_json::json;

    #[test]
    fn a_value_that_keeps_matching_gives_one_match() {
        // search-1's `found` goes 0, 1, 2, 2 (snapshot), 3; `query` never
        // changes after the snapshot that creates it.
        let timeline = Timeline::from_log(demo(), Options::default());
        let found = Query::new(
            Target::Message("search-1".into()),
            "/content/found",
            Predicate::Exists,
        )
        .expect("valid");
        let steps: Vec<u64> = find_all(&timeline, &found)
            .iter()
            .map(|m| m.step.get())
            .collect();
        assert_eq!(steps, [13, 14, 15, 19]);
        let query = Query::new(
            Target::Message("search-1".into()),
            "/content/query",
            Predicate::Contains(json!("Lisbon")),
        )
        .expect("valid");
        assert_eq!(find_all(&timeline, &query).len(), 1);
    }

    #[test]
    fn step_zero_matches_when_the_run_input_holds() {
        let start =
            Replayer::with_run_input(Options::default(), &json!({"state": {"mode": "draft"}}));
        let mut log = EventLog::default();
        log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        log.push(
            br#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/mode","value":"final"}]}"#,
        );
        let timeline = Timeline::starting_from(start).replay(log);
        let query = Query::new(Target::State, "/mode", Predicate::Exists).expect("valid");
        let steps: Vec<u64> = find_all(&timeline, &query)
            .iter()
            .map(|m| m.step.get())
            .collect();
        assert_eq!(steps, [0, 2]);
        let mut search = Search::first(query.clone());
        assert_eq!(
            search.advance(&timeline, 7),
            SearchStatus::Found(Match {
                step: Seq::new(0),
                value: Some(json!("draft"))
            })
        );
        let mut search = Search::previous(query, Seq::new(2));
        assert!(matches!(
            search.advance(&timeline, 7),
            SearchStatus::Found(Match {
                step: Seq::START,
                ..
            })
        ));
    }

    /// A stream of `n` state deltas, each changing `/n`.
    fn counting(n: u64) -> Timeline {
        let mut log = EventLog::default();
        log.push(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
        log.push(br#"{"type":"STATE_SNAPSHOT","snapshot":{"n":0}}"#);
        for i in 1..=n {
            let event = format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"replace","path":"/n","value":{i}}}]}}"#
            );
            log.push(event.as_bytes());
        }
        Timeline::from_log(log, Options::default())
    }

    #[test]
    fn progress_is_told_in_order_and_a_break_cancels_the_pass() {
        // Issue 13, point 4: the app's "find all" runs this pass on a thread
        // with progress and Cancel; it must find what `find` finds.
        let timeline = counting(40_000);
        let query = Query::new(Target::State, "/n", Predicate::Exists).expect("valid");
        let all = find_all(&timeline, &query);
        assert_eq!(all.len(), 40_001, "the snapshot, then every delta");
        let mut reported = Vec::new();
        let mut found = Vec::new();
        let end = find_in_log_with_progress(
            timeline.seek(Seq::START),
            timeline.events(),
            &query,
            |m| {
                found.push(m);
                ControlFlow::Continue(())
            },
            |step| {
                reported.push(step.get());
                ControlFlow::Continue(())
            },
        );
        assert_eq!(found, all, "the same matches as find_all");
        assert_eq!(end.step(), timeline.last_step());
        assert!(reported.len() >= 3, "{reported:?}");
        assert!(reported.windows(2).all(|w| w[0] < w[1]), "{reported:?}");
        assert_eq!(reported.last(), Some(&timeline.last_step().get()));

        // Cancelled at the first report past step 0: fewer matches, each
        // one of find_all's, and the replay stops where it was told.
        let mut found = Vec::new();
        let end = find_in_log_with_progress(
            timeline.seek(Seq::START),
            timeline.events(),
            &query,
            |m| {
                found.push(m);
                ControlFlow::Continue(())
            },
            |step| {
                if step > Seq::START {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert!(end.step() < timeline.last_step(), "{}", end.step());
        assert!(!found.is_empty() && found.len() < all.len());
        assert_eq!(found[..], all[..found.len()]);
        assert!(found.iter().all(|m| m.step <= end.step()));
    }
}
