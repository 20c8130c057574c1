//! Search over time: every step where a JSON pointer of an activity (or of
//! the state) exists, equals a value or contains one, listed and marked on
//! the timeline; and the first, next or previous of them from the cursor.
//!
//! "Find all" runs the pass `agui-replay find` runs
//! ([`find_in_log_with_progress`]) on a thread of its own, so that it goes as
//! fast as the command line, with its progress shown and a Cancel; the
//! matches show as they are found (issue 13, point 4). Next and previous
//! read the list once it is complete; before that, the engine's [`Search`]
//! runs a slice per frame from the nearest checkpoint.
//!
//! This module is the search's state ([`SearchRun`]) and its fields
//! ([`SearchForm`]); the search tab draws them.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::app_model::command::{SearchCommand, SearchFrom};
use crate::app_model::json_text::compact_json;
use crate::diagnostic::Seq;
use crate::search::{
    Match, Predicate, Query, Search, SearchStatus, Target, find_in_log_with_progress,
};
use crate::timeline::Timeline;

/// Events a next or previous search replays per frame (about 20 ms at a
/// million a second), while no complete list answers it.
pub const EVENTS_PER_FRAME: usize = 20_000;

/// How often the app looks at a search running on its thread (the frames
/// in between are the thread's: the machine may have two cores).
pub const LIST_POLL: Duration = Duration::from_millis(100);

/// The search over time: every match of a query (being found, or found),
/// a next or previous search in progress or the last one's result, and a
/// search a JSON tree asked for. Changed by [`SearchCommand`]s;
/// [`SearchRun::advance`] runs a slice of it in the logic step.
#[derive(Default)]
pub struct SearchRun {
    running: Option<Running>,
    /// What the last next or previous search found, for the panel.
    outcome: Option<SearchOutcome>,
    /// The query of the last next or previous search (its outcome shows
    /// while the fields still say it).
    query: Option<Query>,
    /// A search a JSON tree asked for, for the search tab to take.
    prefill: Option<(Option<String>, String)>,
    /// What a next or previous search answered from the list, for
    /// [`SearchRun::advance`] to report once.
    ready: Option<SearchProgress>,
    /// Every match of the last "find all".
    list: Option<MatchList>,
}

/// A next or previous search running, a slice a frame.
pub struct Running {
    search: Search,
    /// What is searched.
    pub description: String,
    /// When it started.
    pub started: Instant,
    /// How far it got (0 to 1).
    pub progress: f32,
}

/// Every match of one query: found on a thread ([`find_in_log_with_progress`],
/// the pass of `agui-replay find`), shown as they come.
pub struct MatchList {
    query: Query,
    matches: Vec<Match>,
    /// The events the pass replays.
    total: u64,
    job: Option<ListJob>,
    /// How long the pass took (so far, while it runs).
    elapsed: Duration,
    cancelled: bool,
}

/// The thread finding a list: its matches come through `receiver`; it ends
/// (the sender dropped) at the last event or once `cancel` is set.
struct ListJob {
    receiver: Receiver<Match>,
    done: Arc<AtomicU64>,
    /// How long the pass took, in microseconds, set by the thread at its
    /// end.
    took_micros: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
    started: Instant,
}

impl Drop for ListJob {
    fn drop(&mut self) {
        // A list replaced, a document closed: the thread stops within a
        // chunk of events.
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl MatchList {
    /// Starts finding every match of `query` in `timeline`, on a thread.
    fn start(query: Query, timeline: &Arc<Timeline>) -> Self {
        let (sender, receiver) = channel();
        let done = Arc::new(AtomicU64::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let took_micros = Arc::new(AtomicU64::new(0));
        let job = ListJob {
            receiver,
            done: Arc::clone(&done),
            took_micros: Arc::clone(&took_micros),
            cancel: Arc::clone(&cancel),
            started: Instant::now(),
        };
        let total = timeline.len() as u64;
        let timeline = Arc::clone(timeline);
        let searched = query.clone();
        let spawned = std::thread::Builder::new()
            .name("search-all".into())
            .spawn(move || {
                let started = Instant::now();
                find_in_log_with_progress(
                    timeline.seek(Seq::START),
                    timeline.events(),
                    &searched,
                    |found| match sender.send(found) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(_) => ControlFlow::Break(()),
                    },
                    |step| {
                        done.store(step.get(), Ordering::Relaxed);
                        if cancel.load(Ordering::Relaxed) {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        }
                    },
                );
                let took = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                took_micros.store(took, Ordering::Relaxed);
            });
        Self {
            query,
            matches: Vec::new(),
            total,
            // No thread (the system refused one): an empty, cancelled list.
            cancelled: spawned.is_err(),
            job: spawned.is_ok().then_some(job),
            elapsed: Duration::ZERO,
        }
    }

    /// Takes in what the thread found since the last look. Returns whether
    /// it still runs.
    fn poll(&mut self) -> bool {
        let Some(job) = &self.job else {
            return false;
        };
        loop {
            match job.receiver.try_recv() {
                Ok(found) => self.matches.push(found),
                Err(TryRecvError::Empty) => {
                    self.elapsed = job.started.elapsed();
                    return true;
                }
                Err(TryRecvError::Disconnected) => {
                    // The thread's own time: not the look that saw it end.
                    self.elapsed = Duration::from_micros(job.took_micros.load(Ordering::Relaxed));
                    self.cancelled = job.cancel.load(Ordering::Relaxed)
                        && job.done.load(Ordering::Relaxed) < self.total;
                    self.job = None;
                    return false;
                }
            }
        }
    }

    /// Stops the thread; the matches found so far stay.
    fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            self.elapsed = job.started.elapsed();
            self.cancelled = true;
        }
    }

    /// What was searched.
    pub fn query(&self) -> &Query {
        &self.query
    }

    /// The matches found so far, in step order.
    pub fn matches(&self) -> &[Match] {
        &self.matches
    }

    /// Whether the thread still runs.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// Whether every event was searched (not running, not cancelled).
    pub fn is_complete(&self) -> bool {
        self.job.is_none() && !self.cancelled
    }

    /// Whether it was cancelled before the last event.
    pub fn was_cancelled(&self) -> bool {
        self.cancelled
    }

    /// How far the thread got, 0 to 1.
    pub fn progress(&self) -> f32 {
        match &self.job {
            None => 1.0,
            Some(_) if self.total == 0 => 0.0,
            Some(job) => job.done.load(Ordering::Relaxed) as f32 / self.total as f32,
        }
    }

    /// How long the pass took on its thread (so far, while it runs).
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The answer of a next, previous or first search from `step`.
    fn answer(&self, from: SearchFrom, step: Seq) -> Option<&Match> {
        match from {
            SearchFrom::First => self.matches.first(),
            SearchFrom::Next => self
                .matches
                .get(self.matches.partition_point(|m| m.step <= step)),
            SearchFrom::Previous => self
                .matches
                .partition_point(|m| m.step < step)
                .checked_sub(1)
                .map(|i| &self.matches[i]),
        }
    }
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchOutcome {
    /// A match, where the playhead went.
    Found {
        /// What was searched.
        description: String,
        /// The step.
        step: Seq,
        /// The value at the pointer there.
        value: Option<Value>,
    },
    /// No step matches.
    NotFound {
        /// What was searched.
        description: String,
    },
}

/// What a slice of the search did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchProgress {
    /// No search runs.
    Idle,
    /// Still running.
    Running,
    /// A match at this step: the cursor goes there.
    Found(Seq),
    /// It ended without a match.
    NotFound,
}

impl SearchRun {
    /// The next or previous search running, if any.
    pub fn running(&self) -> Option<&Running> {
        self.running.as_ref()
    }

    /// Whether a search is running (a next or previous one, or a "find
    /// all"), and how far it got (0 to 1).
    pub fn progress(&self) -> Option<f32> {
        self.running.as_ref().map(|r| r.progress).or_else(|| {
            self.list
                .as_ref()
                .filter(|l| l.is_running())
                .map(MatchList::progress)
        })
    }

    /// What the last next or previous search found.
    pub fn outcome(&self) -> Option<&SearchOutcome> {
        self.outcome.as_ref()
    }

    /// The query of the last next or previous search.
    pub fn query(&self) -> Option<&Query> {
        self.query.as_ref()
    }

    /// Every match of the last "find all" (found so far, while it runs).
    pub fn list(&self) -> Option<&MatchList> {
        self.list.as_ref()
    }

    /// Takes the search a JSON tree asked for, if any.
    pub fn take_prefill(&mut self) -> Option<(Option<String>, String)> {
        self.prefill.take()
    }

    /// Applies a command, the cursor at `step`, over the document's
    /// `timeline`.
    pub fn apply(&mut self, command: SearchCommand, step: Seq, timeline: &Arc<Timeline>) {
        match command {
            SearchCommand::Start(query, from) => self.start(query, from, step),
            SearchCommand::All(query) => {
                self.list = Some(MatchList::start(query, timeline));
            }
            SearchCommand::Cancel => {
                self.running = None;
                if let Some(list) = &mut self.list {
                    list.cancel();
                }
            }
            SearchCommand::Prefill { message, pointer } => {
                // Issue 43: the steps where it changes are found at once;
                // the matches of the previous query never stay beside the
                // new one.
                let target = match &message {
                    Some(id) => Target::Message(id.clone()),
                    None => Target::State,
                };
                self.running = None;
                self.outcome = None;
                self.list = Query::new(target, pointer.as_str(), Predicate::Exists)
                    .ok()
                    .map(|query| MatchList::start(query, timeline));
                self.prefill = Some((message, pointer));
            }
        }
    }

    fn start(&mut self, query: Query, from: SearchFrom, step: Seq) {
        let description = describe(&query, from);
        self.query = Some(query.clone());
        self.outcome = None;
        // A complete list of the same query answers at once.
        if let Some(list) = self
            .list
            .as_ref()
            .filter(|l| l.is_complete() && l.query == query)
        {
            self.running = None;
            let (outcome, ready) = match list.answer(from, step) {
                Some(found) => (
                    SearchOutcome::Found {
                        description,
                        step: found.step,
                        value: found.value.clone(),
                    },
                    SearchProgress::Found(found.step),
                ),
                None => (
                    SearchOutcome::NotFound { description },
                    SearchProgress::NotFound,
                ),
            };
            self.outcome = Some(outcome);
            self.ready = Some(ready);
            return;
        }
        let search = match from {
            SearchFrom::First => Search::first(query),
            SearchFrom::Next => Search::next(query, step),
            SearchFrom::Previous => Search::previous(query, step),
        };
        self.running = Some(Running {
            search,
            description,
            started: Instant::now(),
            progress: 0.0,
        });
    }

    /// Takes in what a "find all" found since the last look. Returns
    /// whether it still runs.
    pub fn poll_list(&mut self) -> bool {
        self.list.as_mut().is_some_and(MatchList::poll)
    }

    /// Runs a next or previous search over `timeline` for about `budget`
    /// events.
    pub fn advance(&mut self, timeline: &Timeline, budget: usize) -> SearchProgress {
        if let Some(ready) = self.ready.take() {
            return ready;
        }
        let Some(running) = &mut self.running else {
            return SearchProgress::Idle;
        };
        match running.search.advance(timeline, budget) {
            SearchStatus::Pending { done, total } => {
                running.progress = if total == 0 {
                    0.0
                } else {
                    done as f32 / total as f32
                };
                SearchProgress::Running
            }
            SearchStatus::Found(found) => {
                let description = running.description.clone();
                self.running = None;
                self.outcome = Some(SearchOutcome::Found {
                    description,
                    step: found.step,
                    value: found.value,
                });
                SearchProgress::Found(found.step)
            }
            SearchStatus::NotFound => {
                let description = running.description.clone();
                self.running = None;
                self.outcome = Some(SearchOutcome::NotFound { description });
                SearchProgress::NotFound
            }
        }
    }
}

/// A short description of a query and a direction.
fn describe(query: &Query, from: SearchFrom) -> String {
    let direction = match from {
        SearchFrom::First => "first",
        SearchFrom::Next => "next",
        SearchFrom::Previous => "previous",
    };
    format!("{direction} step where {}", describe_query(query))
}

/// A short description of a query: `search-1 /content/found = 3`.
pub fn describe_query(query: &Query) -> String {
    let target = match &query.target {
        Target::Message(id) => id.clone(),
        Target::State => "state".to_owned(),
    };
    let predicate = match &query.predicate {
        Predicate::Exists => "exists".to_owned(),
        Predicate::Equals(value) => format!("= {}", compact_json(value, 40)),
        Predicate::Contains(value) => format!("contains {}", compact_json(value, 40)),
    };
    format!("{target} {} {predicate}", display_pointer(&query.pointer))
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(whole)"
    } else {
        pointer
    }
}

/// What is searched for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Condition {
    /// The pointer resolves.
    #[default]
    Exists,
    /// The value there equals the JSON.
    Equals,
    /// The value there contains it (substring, element, members).
    Contains,
}

/// What the search fields hold between frames.
#[derive(Clone, Debug, Default)]
pub struct SearchForm {
    /// The activity searched (`None`: the state).
    pub message: Option<String>,
    /// Whether the activity was picked by the user (otherwise it follows
    /// the selection).
    pub picked: bool,
    /// The JSON pointer.
    pub pointer: String,
    /// The condition.
    pub condition: Condition,
    /// The value, as JSON (or plain text for `contains`). Empty: any value,
    /// as `exists` (what `agui-replay find` does with no `--equals` or
    /// `--contains`).
    pub value: String,
    /// What the "In" list is filtered by.
    pub target_filter: String,
}

/// What an empty value field means, said under it.
pub const EMPTY_VALUE_MEANS: &str = "Empty: any value (the same as exists)";

impl SearchForm {
    /// The steps where a value changes: the pointer's value, wherever it
    /// exists (each match is a change, see [`crate::search`]).
    pub fn prefill(&mut self, message: Option<String>, pointer: String) {
        self.message = message;
        self.picked = true;
        self.pointer = pointer;
        self.condition = Condition::Exists;
        self.value.clear();
    }

    /// The query the fields describe, or what is wrong with them. An
    /// empty value is no error: it asks for any value (exists).
    pub fn query(&self) -> Result<Query, String> {
        let target = match &self.message {
            Some(id) => Target::Message(id.clone()),
            None => Target::State,
        };
        let parse = |text: &str| serde_json::from_str::<Value>(text.trim());
        let predicate = match self.condition {
            Condition::Exists => Predicate::Exists,
            _ if self.value.trim().is_empty() => Predicate::Exists,
            Condition::Equals => Predicate::Equals(
                parse(&self.value).map_err(|e| format!("the value is not JSON: {e}"))?,
            ),
            // Text that is not JSON is looked for as a string.
            Condition::Contains => Predicate::Contains(
                parse(&self.value).unwrap_or_else(|_| Value::String(self.value.clone())),
            ),
        };
        Query::new(target, self.pointer.trim(), predicate).map_err(|e| e.to_string())
    }
}

/// The ids the "In" list offers that contain `filter` (case-insensitive),
/// in the order given.
pub fn filter_ids<'a>(ids: impl IntoIterator<Item = &'a str>, filter: &str) -> Vec<&'a str> {
    let filter = filter.trim().to_lowercase();
    ids.into_iter()
        .filter(|id| filter.is_empty() || id.to_lowercase().contains(&filter))
        .collect()
}

#[cfg(test)]
mod tests {
    // The search's state machine, with no UI context (issue 16, point 3).
    use super::*;
    use crate::app_model::test_support::{STREAM, doc_of};

    fn found_query() -> Query {
        Query::new(
            Target::Message("a-1".into()),
            "/content/found",
            Predicate::Equals(Value::from(1)),
        )
        .expect("a query")
    }

    fn run(search: &mut SearchRun, timeline: &Timeline) -> SearchProgress {
        loop {
            match search.advance(timeline, 1) {
                SearchProgress::Running => continue,
                other => return other,
            }
        }
    }

    #[test]
    fn a_search_runs_in_slices_and_says_where_it_found() {
        let doc = doc_of(STREAM);
        let mut search = SearchRun::default();
        assert_eq!(search.advance(&doc.timeline, 10), SearchProgress::Idle);
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::First),
            Seq::new(0),
            &doc.timeline,
        );
        assert_eq!(search.progress(), Some(0.0));
        assert_eq!(
            run(&mut search, &doc.timeline),
            SearchProgress::Found(Seq::new(3))
        );
        assert!(search.progress().is_none(), "done");
        assert!(matches!(
            search.outcome(),
            Some(SearchOutcome::Found { step, .. }) if *step == Seq::new(3)
        ));
        assert_eq!(search.query(), Some(&found_query()));
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::Next),
            Seq::new(3),
            &doc.timeline,
        );
        assert_eq!(run(&mut search, &doc.timeline), SearchProgress::NotFound);
        assert!(matches!(
            search.outcome(),
            Some(SearchOutcome::NotFound { .. })
        ));
    }

    #[test]
    fn a_cancelled_search_stops_and_a_prefill_is_taken_once() {
        let doc = doc_of(STREAM);
        let mut search = SearchRun::default();
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::First),
            Seq::new(0),
            &doc.timeline,
        );
        search.apply(SearchCommand::Cancel, Seq::new(0), &doc.timeline);
        assert_eq!(search.advance(&doc.timeline, 100), SearchProgress::Idle);
        assert!(search.outcome().is_none());
        search.apply(
            SearchCommand::Prefill {
                message: Some("a-1".into()),
                pointer: "/content/found".into(),
            },
            Seq::new(0),
            &doc.timeline,
        );
        assert_eq!(
            search.take_prefill(),
            Some((Some("a-1".into()), "/content/found".into()))
        );
        assert_eq!(search.take_prefill(), None);
    }

    // Issue 43: "find the steps where this changes" filled in the pointer
    // but kept the previous query's matches until Find all was pressed.
    #[test]
    fn a_prefill_finds_its_steps_at_once_and_drops_the_previous_matches() {
        let doc = doc_of(STREAM);
        let mut search = SearchRun::default();
        let previous = Query::new(
            Target::Message("a-1".into()),
            "/content/results",
            Predicate::Exists,
        )
        .expect("a query");
        search.apply(SearchCommand::All(previous), Seq::new(0), &doc.timeline);
        finish(&mut search);
        search.apply(
            SearchCommand::Prefill {
                message: Some("a-1".into()),
                pointer: "/content/found".into(),
            },
            Seq::new(0),
            &doc.timeline,
        );
        let expected = Query::new(
            Target::Message("a-1".into()),
            "/content/found",
            Predicate::Exists,
        )
        .expect("a query");
        assert_eq!(search.list().map(MatchList::query), Some(&expected));
        finish(&mut search);
        let steps: Vec<u64> = search
            .list()
            .expect("a list")
            .matches()
            .iter()
            .map(|m| m.step.get())
            .collect();
        assert_eq!(steps, [2, 3], "where found was set and changed");
        // A pointer that is no query leaves no stale matches either.
        search.apply(
            SearchCommand::Prefill {
                message: None,
                pointer: "no pointer".into(),
            },
            Seq::new(0),
            &doc.timeline,
        );
        assert!(search.list().is_none());
    }

    /// Polls a "find all" until its thread ends (bounded).
    fn finish(search: &mut SearchRun) {
        let started = Instant::now();
        while search.poll_list() {
            assert!(started.elapsed() < Duration::from_secs(20), "too long");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn find_all_lists_what_find_finds_and_answers_next_and_previous() {
        // Issue 13, point 4: every match, found on a thread by the pass
        // `agui-replay find` runs; next and previous then read the list.
        let doc = doc_of(STREAM);
        let query = Query::new(
            Target::Message("a-1".into()),
            "/content/found",
            Predicate::Exists,
        )
        .expect("a query");
        let expected = crate::search::find_all(&doc.timeline, &query);
        assert!(expected.len() >= 2, "{expected:?}");
        let mut search = SearchRun::default();
        search.apply(
            SearchCommand::All(query.clone()),
            Seq::new(0),
            &doc.timeline,
        );
        finish(&mut search);
        let list = search.list().expect("a list");
        assert!(list.is_complete());
        assert_eq!(list.matches(), &expected[..]);
        assert!(search.progress().is_none(), "nothing runs");
        // Next from the first match: the second, at once, from the list.
        search.apply(
            SearchCommand::Start(query.clone(), SearchFrom::Next),
            expected[0].step,
            &doc.timeline,
        );
        assert!(search.progress().is_none(), "no replay needed");
        assert_eq!(
            search.advance(&doc.timeline, 1),
            SearchProgress::Found(expected[1].step)
        );
        assert_eq!(search.advance(&doc.timeline, 1), SearchProgress::Idle);
        search.apply(
            SearchCommand::Start(query, SearchFrom::Previous),
            expected[0].step,
            &doc.timeline,
        );
        assert_eq!(search.advance(&doc.timeline, 1), SearchProgress::NotFound);
    }

    #[test]
    fn an_empty_value_means_any_value() {
        // Issue 13, point 4: an empty value field is not an error.
        for condition in [Condition::Equals, Condition::Contains] {
            let form = SearchForm {
                pointer: "/budget".into(),
                condition,
                value: "  ".into(),
                ..SearchForm::default()
            };
            let query = form.query().expect("no error");
            assert_eq!(query.predicate, Predicate::Exists);
        }
        let form = SearchForm {
            pointer: "/budget".into(),
            condition: Condition::Equals,
            value: "{".into(),
            ..SearchForm::default()
        };
        assert!(form.query().unwrap_err().contains("not JSON"));
    }

    #[test]
    fn the_in_list_filters_ids_ignoring_case() {
        let ids = ["plan-1", "search-1", "Hotel_Search", "prices-7"];
        assert_eq!(filter_ids(ids, "SEARCH"), ["search-1", "Hotel_Search"]);
        assert_eq!(filter_ids(ids, " "), ids);
        assert!(filter_ids(ids, "nothing").is_empty());
    }

    #[test]
    fn a_cancelled_find_all_keeps_what_it_found_and_answers_nothing() {
        // Issue 13, point 4: Cancel stops the thread; a list cut short is
        // not used to answer next or previous.
        let doc = doc_of(STREAM);
        let mut search = SearchRun::default();
        search.apply(
            SearchCommand::All(found_query()),
            Seq::new(0),
            &doc.timeline,
        );
        search.apply(SearchCommand::Cancel, Seq::new(0), &doc.timeline);
        let list = search.list().expect("the list stays");
        assert!(list.was_cancelled() && !list.is_complete() && !list.is_running());
        assert!(search.progress().is_none(), "nothing runs");
        assert!(!search.poll_list());
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::First),
            Seq::new(0),
            &doc.timeline,
        );
        assert!(search.progress().is_some(), "the engine's search runs");
        assert_eq!(
            run(&mut search, &doc.timeline),
            SearchProgress::Found(Seq::new(3))
        );
    }
}
