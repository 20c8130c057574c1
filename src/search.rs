//! Search over time: the steps at which a value, in one message or in the
//! shared state, became what a query looks for.
//!
//! A [`Query`] names a value (by JSON pointer into a message's AG-UI object
//! or into the shared state) and a [`Predicate`] on it. A step is a
//! [`Match`] when the predicate holds after it and the value changed at it
//! (or the predicate did not hold before it): each match is a moment where
//! something relevant happened, and a value that keeps matching while other
//! things change gives one match, not one per step. Step 0 is a match when
//! the predicate holds there.
//!
//! [`find_all`] lists every match in one pass over a [`Timeline`].
//! [`Search`] finds the next or previous match from a step, starting from
//! the timeline's checkpoints, a bounded number of events at a time so that
//! a caller can show progress and give up by dropping it.
//!
//! Following a value costs little per step: an activity's content is shared
//! (`Arc`), so a step that leaves the content where it was cannot have
//! changed a value inside it, and is not looked at further.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::{Arc, Weak};

use serde_json::{Map, Value};

use crate::diagnostic::Seq;
use crate::input::EventLog;
use crate::protocol::for_each_parsed_in;
use crate::replay::{ActivityMessage, Message, Replayer};
use crate::timeline::Timeline;

/// Events replayed between two looks at whether to stop: a search that found
/// its match reads at most this many events past it.
const CHUNK_EVENTS: usize = 16 * 1024;

/// What a query looks at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The message with this id (an activity's `messageId`, or any message
    /// id). The pointer is into its AG-UI `Message` object, as
    /// [`Message::to_json`] gives it: `/content/…`, `/metadata/…`,
    /// `/activityType`.
    Message(String),
    /// The shared state ([`Replayer::state`]); the pointer is into it.
    State,
}

/// What must be true of the value at the pointer.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// The pointer resolves (to any value, `null` included).
    Exists,
    /// The value equals this JSON.
    Equals(Value),
    /// The value contains this JSON:
    ///
    /// - a string contains a string query as a substring;
    /// - an array has an element equal to the query;
    /// - an object has every member of an object query, with equal values
    ///   (a subset match), or has the key a string query names.
    ///
    /// Nothing else contains anything (a number does not contain itself:
    /// use [`Predicate::Equals`]).
    Contains(Value),
}

impl Predicate {
    /// Whether the predicate holds for `value` (`None`: the pointer does not
    /// resolve).
    pub fn holds_for(&self, value: Option<&Value>) -> bool {
        let Some(value) = value else { return false };
        match self {
            Self::Exists => true,
            Self::Equals(expected) => value == expected,
            Self::Contains(part) => contains(value, part),
        }
    }
}

fn contains(value: &Value, part: &Value) -> bool {
    match (value, part) {
        (Value::String(text), Value::String(part)) => text.contains(part.as_str()),
        (Value::Array(items), part) => items.contains(part),
        (Value::Object(object), Value::Object(part)) => part
            .iter()
            .all(|(key, expected)| object.get(key) == Some(expected)),
        (Value::Object(object), Value::String(key)) => object.contains_key(key),
        _ => false,
    }
}

/// Why a query cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// The pointer is not an RFC 6901 JSON pointer.
    #[error("invalid JSON pointer {pointer:?}: {reason}")]
    InvalidPointer {
        /// The pointer as given.
        pointer: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// A value to follow through the stream, and what to look for in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// The message, or the state.
    pub target: Target,
    /// An RFC 6901 JSON pointer into the target (`""` is the whole target).
    /// A pointer that is not one never resolves: make queries with
    /// [`Query::new`], which checks it.
    pub pointer: String,
    /// What must be true of the value at the pointer.
    pub predicate: Predicate,
}

impl Query {
    /// A query, once its pointer is checked.
    pub fn new(
        target: Target,
        pointer: impl Into<String>,
        predicate: Predicate,
    ) -> Result<Self, QueryError> {
        let pointer = pointer.into();
        if let Err(reason) = check_pointer(&pointer) {
            return Err(QueryError::InvalidPointer { pointer, reason });
        }
        Ok(Self {
            target,
            pointer,
            predicate,
        })
    }

    /// Whether the predicate holds at the replayer's step.
    pub fn holds(&self, replayer: &Replayer) -> bool {
        self.predicate.holds_for(self.resolve(replayer).as_deref())
    }

    /// The value at the pointer at the replayer's step (`None` when the
    /// target or the pointer's path does not exist).
    pub fn value(&self, replayer: &Replayer) -> Option<Value> {
        self.resolve(replayer).map(Cow::into_owned)
    }

    /// The value at the pointer, borrowed where the replayer holds it as is.
    fn resolve<'r>(&self, replayer: &'r Replayer) -> Option<Cow<'r, Value>> {
        match &self.target {
            Target::State => replayer.state().pointer(&self.pointer).map(Cow::Borrowed),
            Target::Message(id) => message_value(replayer.conversation().get(id)?, &self.pointer),
        }
    }
}

/// Checks RFC 6901 syntax: empty, or `/`-separated tokens in which `~` is
/// only ever `~0` or `~1`.
fn check_pointer(pointer: &str) -> Result<(), &'static str> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err("must start with '/' (or be empty, for the whole value)");
    }
    let mut chars = pointer.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return Err("'~' must be followed by 0 or 1 (~0 is '~', ~1 is '/')");
        }
    }
    Ok(())
}

/// The first token of a pointer, unescaped, and the rest of the pointer
/// (still escaped); `None` for the empty pointer.
fn split_pointer(pointer: &str) -> Option<(Cow<'_, str>, &str)> {
    let body = pointer.strip_prefix('/')?;
    let (token, rest) = body.split_at(body.find('/').unwrap_or(body.len()));
    let token = if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    };
    Some((token, rest))
}

/// The value at `pointer` in `message.to_json()`, without building it unless
/// the pointer is the whole message.
fn message_value<'m>(message: &'m Message, pointer: &str) -> Option<Cow<'m, Value>> {
    let Some((name, rest)) = split_pointer(pointer) else {
        return pointer.is_empty().then(|| Cow::Owned(message.to_json()));
    };
    match message {
        Message::Activity(activity) => match &*name {
            "content" => activity.content.pointer(rest).map(Cow::Borrowed),
            "metadata" => map_value(activity.metadata.as_ref()?, rest),
            "id" => text_value(&activity.id, rest),
            "role" => text_value("activity", rest),
            "activityType" => text_value(&activity.activity_type, rest),
            "subagentRunId" => text_value(activity.subagent_run_id.as_deref()?, rest),
            _ => None,
        },
        // As in `OtherMessage::to_json`, the fields come after (and over)
        // `id` and `role`.
        Message::Other(other) => match (other.fields.get(&*name), &*name) {
            (Some(value), _) => value.pointer(rest).map(Cow::Borrowed),
            (None, "id") => text_value(&other.id, rest),
            (None, "role") => text_value(other.role.as_str(), rest),
            (None, _) => None,
        },
    }
}

fn map_value<'m>(map: &'m Map<String, Value>, pointer: &str) -> Option<Cow<'m, Value>> {
    match split_pointer(pointer) {
        None => Some(Cow::Owned(Value::Object(map.clone()))),
        Some((name, rest)) => map.get(&*name)?.pointer(rest).map(Cow::Borrowed),
    }
}

/// A string member: only the empty pointer leads into it.
fn text_value(text: &str, pointer: &str) -> Option<Cow<'static, Value>> {
    pointer
        .is_empty()
        .then(|| Cow::Owned(Value::String(text.to_owned())))
}

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
struct Watch {
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

    fn holds(&self, query: &Query) -> bool {
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
struct Cursor {
    replayer: Replayer,
    watch: Watch,
}

impl Cursor {
    fn new(replayer: Replayer, query: &Query) -> Self {
        let watch = Watch::new(query, &replayer);
        Self { replayer, watch }
    }

    fn step(&self) -> Seq {
        self.replayer.step()
    }

    fn current(&self) -> Match {
        Match {
            step: self.step(),
            value: self.watch.value.clone(),
        }
    }

    /// Applies the events up to step `to` (clamped to the log), handing each
    /// match to `on_match`; stops after a match it breaks on.
    fn replay_to(
        &mut self,
        query: &Query,
        events: &EventLog,
        to: Seq,
        mut on_match: impl FnMut(Match) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let end = usize::try_from(to.0)
            .unwrap_or(usize::MAX)
            .min(events.len());
        while (self.step().0 as usize) < end {
            let from = self.step().0 as usize;
            let chunk_end = end.min(from.saturating_add(CHUNK_EVENTS));
            let mut flow = ControlFlow::Continue(());
            for_each_parsed_in(events, from..chunk_end, |_, _, parsed| {
                if flow.is_break() {
                    return;
                }
                self.replayer.apply(parsed);
                if self.watch.step(query, &self.replayer) {
                    flow = on_match(self.current());
                }
            });
            flow?;
        }
        ControlFlow::Continue(())
    }
}

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
pub fn find_in_log(
    start: Replayer,
    events: &EventLog,
    query: &Query,
    mut on_match: impl FnMut(Match) -> ControlFlow<()>,
) -> Replayer {
    let mut cursor = Cursor::new(start, query);
    if cursor.step() == Seq::START
        && cursor.watch.holds(query)
        && on_match(cursor.current()).is_break()
    {
        return cursor.replayer;
    }
    let _ = cursor.replay_to(query, events, Seq(events.len() as u64), on_match);
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
        Self::new(query, Direction::Forward, Seq(after.0.saturating_add(1)))
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
                let start = checkpoint_at_or_before(timeline, Seq(from.0.saturating_sub(1)));
                let cursor = Cursor::new(timeline.seek(start), query);
                if from == Seq::START && cursor.watch.holds(query) {
                    return SearchStatus::Found(cursor.current());
                }
                self.cursor.insert(cursor)
            }
        };
        let before = cursor.step();
        let to = Seq(last.0.min(before.0.saturating_add(budget)));
        let mut found = None;
        let _ = cursor.replay_to(query, timeline.events(), to, |candidate| {
            if candidate.step < from {
                return ControlFlow::Continue(());
            }
            found = Some(candidate);
            ControlFlow::Break(())
        });
        self.done += cursor.step().0 - before.0;
        self.total = self.done + (last.0 - cursor.step().0);
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
                    let end = Seq((self.bound.0 - 1).min(timeline.last_step().0));
                    self.total = end.0;
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
            let to = Seq(end.0.min(before.0.saturating_add(budget)));
            let best = &mut self.best;
            let _ = cursor.replay_to(query, timeline.events(), to, |candidate| {
                *best = Some(candidate);
                ControlFlow::Continue(())
            });
            let applied = cursor.step().0 - before.0;
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
    use crate::replay::Options;
    use serde_json::json;

    fn demo() -> EventLog {
        let mut log = EventLog::default();
        for line in include_str!("../recordings/demo.jsonl").lines() {
            log.push(line.as_bytes());
        }
        log
    }

    #[test]
    fn pointers_are_checked() {
        for good in ["", "/", "/a/b", "/a~0b/~1", "/0/-"] {
            assert!(check_pointer(good).is_ok(), "{good}");
        }
        let err = Query::new(Target::State, "x", Predicate::Exists).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid JSON pointer \"x\": must start with '/' (or be empty, for the whole value)"
        );
        for bad in ["/a~", "/a~2", "/~x/b"] {
            let err = Query::new(Target::State, bad, Predicate::Exists).unwrap_err();
            assert!(
                err.to_string().contains("'~' must be followed by 0 or 1"),
                "{err}"
            );
        }
    }

    #[test]
    fn contains_matches_substrings_elements_subsets_and_keys() {
        let holds = |value: Value, part: Value| Predicate::Contains(part).holds_for(Some(&value));
        assert!(holds(json!("flights to Lisbon"), json!("to Lis")));
        assert!(!holds(json!("flights"), json!("hotels")));
        assert!(holds(json!([1, {"a": 2}]), json!({"a": 2})));
        assert!(!holds(json!([1, {"a": 2, "b": 3}]), json!({"a": 2})));
        assert!(holds(json!({"a": 1, "b": [2]}), json!({"b": [2]})));
        assert!(holds(json!({"a": 1}), json!({})));
        assert!(!holds(json!({"a": 1}), json!({"a": 2})));
        assert!(holds(json!({"a": null}), json!("a")));
        assert!(!holds(json!({"a": 1}), json!("b")));
        assert!(!holds(json!(12), json!(12)));
        assert!(!holds(json!("12"), json!(12)));
        assert!(!Predicate::Contains(json!("a")).holds_for(None));
        assert!(Predicate::Exists.holds_for(Some(&Value::Null)));
        assert!(!Predicate::Exists.holds_for(None));
        assert!(!Predicate::Equals(Value::Null).holds_for(None));
    }

    #[test]
    fn message_values_are_those_of_the_message_json() {
        let log = demo();
        let pointers = [
            "",
            "/",
            "/id",
            "/id/x",
            "/role",
            "/activityType",
            "/subagentRunId",
            "/content",
            "/content/found",
            "/content/results/1/price",
            "/content/items/0/done",
            "/content/candidates/0/name",
            "/metadata",
            "/metadata/acme.latencyMs",
            "/metadata/acme.renderer",
            "/metadata/missing",
            "/toolCalls/0/function/arguments",
            "/toolCallId",
            "/nope",
            "/a~1b",
        ];
        for step in [0, 5, 15, 17, 25, 30, 41, log.len() as u64] {
            let replayer = crate::replay::replay_to(&log, Options::default(), Seq(step));
            for message in replayer.conversation().iter() {
                let json = message.to_json();
                for pointer in pointers {
                    let query = Query::new(
                        Target::Message(message.id().to_owned()),
                        pointer,
                        Predicate::Exists,
                    )
                    .expect("valid");
                    assert_eq!(
                        query.value(&replayer).as_ref(),
                        json.pointer(pointer),
                        "step {step}, message {}, pointer {pointer:?}",
                        message.id()
                    );
                }
            }
        }
    }

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
            .map(|m| m.step.0)
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
        let timeline =
            Timeline::replaying(start, log, crate::timeline::CheckpointPolicy::default());
        let query = Query::new(Target::State, "/mode", Predicate::Exists).expect("valid");
        let steps: Vec<u64> = find_all(&timeline, &query)
            .iter()
            .map(|m| m.step.0)
            .collect();
        assert_eq!(steps, [0, 2]);
        let mut search = Search::first(query.clone());
        assert_eq!(
            search.advance(&timeline, 7),
            SearchStatus::Found(Match {
                step: Seq(0),
                value: Some(json!("draft"))
            })
        );
        let mut search = Search::previous(query, Seq(2));
        assert!(matches!(
            search.advance(&timeline, 7),
            SearchStatus::Found(Match { step: Seq(0), .. })
        ));
    }
}
