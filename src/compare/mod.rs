//! Comparing two recordings (or two sessions, or two stream files) of the
//! same agent: the two event streams aligned, the first divergence in the
//! events and the first in the resulting state, and what differs after
//! that (issue 17, point 4).
//!
//! The streams are aligned by each event's key — its `type`, `messageId`
//! and `toolCallId` — and by order, not by position ([`align`]: the
//! shortest difference over the keys for short streams, anchored on the
//! keys that occur once in each for long ones, issue 40). An event
//! inserted in one stream is one event only there, not a cascade of every
//! later one "changed". Two aligned events are the same when their JSON is
//! equal but for `timestamp` (two runs never share their times);
//! otherwise they are *changed*, with the RFC 6902 patch from A's event to
//! B's. A key is read without building the event, and an event is read
//! whole only where its bytes differ from the one aligned with it.
//!
//! Both streams are replayed by the engine along the alignment, and their
//! `{messages, state}` documents compared after each aligned step (A's
//! state after its step, B's after the step aligned with it): the steps
//! where the two differ, which messages (by id) and whether the state, and
//! the patch from A's document to B's where they first differ and at the
//! end. Comparing is cheap where nothing changed: only the messages the
//! engine says a step changed or appended are compared again, and the
//! state only when it is no longer the same allocation.
//!
//! The `compare` command prints [`StreamComparison::to_json`]; the app's
//! File › Compare with… reads the same [`StreamComparison`].

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use json_patch::Patch;
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::diagnostic::Seq;
use crate::diff::DiffScope;
use crate::input::RawEvents;
use crate::protocol::{ParseOutcome, parse_event};
use crate::replay::{Outcome, Replayer};

mod align;

pub use align::EXACT_WINDOW;
use align::Row;

/// The member left out when two aligned events are compared: the time an
/// event was sent differs between any two runs.
pub const IGNORED_MEMBER: &str = "timestamp";

/// How long the alignment may search for the shortest difference, a
/// guard behind the bounds of [`align`] (whose effort is bounded by the
/// streams' length): past it, the search settles for a longer difference
/// that is still a valid alignment (every event once, in order), and the
/// comparison says it is approximate.
pub const ALIGNMENT_TIME_LIMIT: Duration = Duration::from_secs(2);

/// One stream to compare: where its replay starts (step 0: an empty state,
/// or a recorded run input) and its events.
pub struct Side<'a> {
    /// Step 0.
    pub start: Replayer,
    /// The events, in order.
    pub events: &'a dyn RawEvents,
}

/// What became of one event in the alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventMatch {
    /// Aligned with an event of the other stream, and equal to it (but for
    /// `timestamp`).
    Same,
    /// Aligned with an event of the other stream (the same type, message
    /// and tool call), but different.
    Changed,
    /// In this stream only.
    Only,
}

/// What kind of difference an [`EventDifference`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DifferenceKind {
    /// Two aligned events differ.
    Changed,
    /// An event of A that B does not have.
    OnlyInA,
    /// An event of B that A does not have.
    OnlyInB,
}

impl DifferenceKind {
    /// Its name in the JSON output (`changed`, `only_in_a`, `only_in_b`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Changed => "changed",
            Self::OnlyInA => "only_in_a",
            Self::OnlyInB => "only_in_b",
        }
    }
}

/// An event's alignment key: its `type`, `messageId` and `toolCallId`
/// (each `None` where absent; all `None` for bytes that are not a JSON
/// object).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey {
    /// `type`.
    pub event_type: Option<String>,
    /// `messageId`.
    pub message_id: Option<String>,
    /// `toolCallId`.
    pub tool_call_id: Option<String>,
}

impl EventKey {
    /// A short label: `ACTIVITY_DELTA search-1`, `TOOL_CALL_ARGS call-1`.
    pub fn label(&self) -> String {
        let mut label = self
            .event_type
            .clone()
            .unwrap_or_else(|| "(no type)".to_owned());
        for id in [&self.message_id, &self.tool_call_id].into_iter().flatten() {
            label.push(' ');
            label.push_str(id);
        }
        label
    }
}

/// One difference between the two event streams.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDifference {
    /// Changed, or in one stream only.
    pub kind: DifferenceKind,
    /// A's step: the event's for `Changed` and `OnlyInA`; for `OnlyInB`,
    /// the step of A that B's event comes after (the aligned step).
    pub a: Seq,
    /// B's step, likewise.
    pub b: Seq,
    /// The event's key.
    pub key: EventKey,
    /// For `Changed`: the RFC 6902 patch from A's event to B's (without
    /// their `timestamp`s).
    pub patch: Option<Patch>,
}

/// Where the two resulting documents differ at one aligned step.
#[derive(Clone, Debug, PartialEq)]
pub struct StateDifference {
    /// A's step.
    pub a: Seq,
    /// B's step (aligned with A's).
    pub b: Seq,
    /// The messages that differ (or exist on one side only), by id, sorted.
    pub messages: Vec<String>,
    /// The messages are the same but in another order.
    pub message_order: bool,
    /// The shared state differs.
    pub state: bool,
    /// The RFC 6902 patch from A's document to B's, the document being
    /// `{messages, state}` with the messages by id (as `diff --scope
    /// conversation` compares them).
    pub patch: Patch,
}

/// A run of aligned steps over which the two documents differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSpan {
    /// The first aligned step that differs: (A's, B's).
    pub from: (Seq, Seq),
    /// The last one: (A's, B's).
    pub to: (Seq, Seq),
    /// Every message that differed over the span, by id.
    pub messages: BTreeSet<String>,
    /// Whether the state differed at some step of it.
    pub state: bool,
}

/// The two streams aligned: for each step of one, the aligned step of the
/// other, and what became of each event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Alignment {
    b_of_a: Vec<Seq>,
    a_of_b: Vec<Seq>,
    matches_a: Vec<EventMatch>,
    matches_b: Vec<EventMatch>,
}

impl Alignment {
    /// The step of B aligned with A's step `a` (clamped to A's last): the
    /// event of B aligned with A's, or, for an event of A only, the step of
    /// B it comes after.
    pub fn b_of_a(&self, a: Seq) -> Seq {
        clamped(&self.b_of_a, a)
    }

    /// The step of A aligned with B's step `b`, likewise.
    pub fn a_of_b(&self, b: Seq) -> Seq {
        clamped(&self.a_of_b, b)
    }

    /// What became of A's event at step `a` (`None` for step 0 or past the
    /// end).
    pub fn match_of_a(&self, a: Seq) -> Option<EventMatch> {
        self.matches_a.get(a.index()?).copied()
    }

    /// What became of B's event at step `b`.
    pub fn match_of_b(&self, b: Seq) -> Option<EventMatch> {
        self.matches_b.get(b.index()?).copied()
    }

    /// What became of each event of A, in order (index 0 is step 1).
    pub fn matches_a(&self) -> &[EventMatch] {
        &self.matches_a
    }

    /// What became of each event of B, in order.
    pub fn matches_b(&self) -> &[EventMatch] {
        &self.matches_b
    }
}

fn clamped(steps: &[Seq], at: Seq) -> Seq {
    let last = steps.len().saturating_sub(1);
    let i = usize::try_from(at.get()).unwrap_or(usize::MAX).min(last);
    steps.get(i).copied().unwrap_or(Seq::START)
}

/// Two streams compared.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamComparison {
    /// The number of events of A.
    pub num_events_a: u64,
    /// The number of events of B.
    pub num_events_b: u64,
    /// How each run ended (A's, B's), and the step of the fatal error
    /// that failed it, if one did (R43).
    pub outcomes: [(Outcome, Option<Seq>); 2],
    /// Each step of one stream and the aligned step of the other.
    pub alignment: Alignment,
    /// Every difference between the events, in the order of the streams.
    pub differences: Vec<EventDifference>,
    /// Where the two documents first differ (step 0 included: two run
    /// inputs may differ).
    pub first_state_divergence: Option<StateDifference>,
    /// The runs of aligned steps where the documents differ.
    pub state_spans: Vec<StateSpan>,
    /// How the documents differ after the last events (`None`: equal).
    pub final_state: Option<StateDifference>,
    /// Whether the alignment is the shortest difference (in every window
    /// between anchors, for long streams); `false` where a long window
    /// without anchors was aligned in slices or [`ALIGNMENT_TIME_LIMIT`]
    /// cut the search short (it is still valid, but may pair fewer events
    /// than could be).
    pub alignment_exact: bool,
}

impl StreamComparison {
    /// The first difference between the events.
    pub fn first_event_divergence(&self) -> Option<&EventDifference> {
        self.differences.first()
    }

    /// Whether the two agree: the same events (but for `timestamp`) and
    /// the same documents at every aligned step.
    pub fn agree(&self) -> bool {
        self.differences.is_empty() && self.first_state_divergence.is_none()
    }

    /// The number of pairs of aligned events.
    pub fn num_aligned(&self) -> usize {
        self.alignment
            .matches_a
            .iter()
            .filter(|m| **m != EventMatch::Only)
            .count()
    }

    /// How many differences are of `kind`.
    pub fn count(&self, kind: DifferenceKind) -> usize {
        self.differences.iter().filter(|d| d.kind == kind).count()
    }

    /// The first difference after the aligned steps `a` of A and `b` of
    /// B (the differences are in the order of both streams).
    pub fn next_difference(&self, a: Seq, b: Seq) -> Option<&EventDifference> {
        let i = self.differences.partition_point(|d| (d.a, d.b) <= (a, b));
        self.differences.get(i)
    }

    /// The last difference before the aligned steps `a` and `b`.
    pub fn previous_difference(&self, a: Seq, b: Seq) -> Option<&EventDifference> {
        let i = self.differences.partition_point(|d| (d.a, d.b) < (a, b));
        i.checked_sub(1).and_then(|i| self.differences.get(i))
    }

    /// The JSON the `compare` command prints (`a` and `b` describe the two
    /// inputs: their file, session…).
    pub fn to_json(&self, a: Value, b: Value) -> Value {
        let mut a = a;
        let mut b = b;
        let sides = [
            (&mut a, self.num_events_a, self.outcomes[0]),
            (&mut b, self.num_events_b, self.outcomes[1]),
        ];
        for (side, events, (outcome, fatal)) in sides {
            if let Value::Object(map) = side {
                map.insert("events".into(), json!(events));
                map.insert("outcome".into(), json!(outcome.as_str()));
                map.insert("fatal".into(), json!(fatal));
            }
        }
        json!({
            "a": a,
            "b": b,
            "agree": self.agree(),
            "ignored": [IGNORED_MEMBER],
            "alignment_exact": self.alignment_exact,
            "aligned": self.num_aligned(),
            "changed": self.count(DifferenceKind::Changed),
            "only_in_a": self.count(DifferenceKind::OnlyInA),
            "only_in_b": self.count(DifferenceKind::OnlyInB),
            "first_event_divergence": self.first_event_divergence().map(difference_json),
            "first_state_divergence": self.first_state_divergence.as_ref().map(state_json),
            "state_divergences": self.state_spans.iter().map(span_json).collect::<Vec<_>>(),
            "final_state": self.final_state.as_ref().map(state_json),
            "differences": self.differences.iter().map(difference_json).collect::<Vec<_>>(),
        })
    }
}

fn difference_json(difference: &EventDifference) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), json!(difference.kind.as_str()));
    object.insert("a".into(), json!(difference.a));
    object.insert("b".into(), json!(difference.b));
    object.insert("type".into(), json!(difference.key.event_type));
    object.insert("messageId".into(), json!(difference.key.message_id));
    object.insert("toolCallId".into(), json!(difference.key.tool_call_id));
    if let Some(patch) = &difference.patch {
        object.insert("patch".into(), json!(patch));
    }
    Value::Object(object)
}

fn state_json(difference: &StateDifference) -> Value {
    json!({
        "a": difference.a,
        "b": difference.b,
        "messages": difference.messages,
        "message_order": difference.message_order,
        "state": difference.state,
        "patch": difference.patch,
    })
}

fn span_json(span: &StateSpan) -> Value {
    json!({
        "from": {"a": span.from.0, "b": span.from.1},
        "to": {"a": span.to.0, "b": span.to.1},
        "messages": span.messages,
        "state": span.state,
    })
}

/// Interns keys as small numbers, for the alignment.
#[derive(Default)]
struct Keys {
    /// A key's hash to the numbers of the keys with that hash.
    by_hash: FxHashMap<u64, Vec<u32>>,
    keys: Vec<EventKey>,
}

/// An event's key as read, borrowing from the event where it can.
#[derive(Default, Deserialize)]
struct KeyFields<'a> {
    #[serde(rename = "type", borrow, default)]
    event_type: Option<Cow<'a, str>>,
    #[serde(rename = "messageId", borrow, default)]
    message_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
}

impl KeyFields<'_> {
    /// The key of an event: read without building the event (the other
    /// members are skipped), or, where that fails (not an object, a member
    /// that is not a string, a member twice, a lone surrogate), as
    /// [`comparable`] reads it, which decides.
    fn of(raw: &[u8]) -> KeyFields<'_> {
        serde_json::from_slice::<KeyFields<'_>>(raw).unwrap_or_else(|_| {
            let key = comparable(raw).1;
            KeyFields {
                event_type: key.event_type.map(Cow::Owned),
                message_id: key.message_id.map(Cow::Owned),
                tool_call_id: key.tool_call_id.map(Cow::Owned),
            }
        })
    }

    fn members(&self) -> [Option<&str>; 3] {
        [&self.event_type, &self.message_id, &self.tool_call_id].map(|m| m.as_deref())
    }
}

impl EventKey {
    fn members(&self) -> [Option<&str>; 3] {
        [&self.event_type, &self.message_id, &self.tool_call_id].map(|m| m.as_deref())
    }
}

impl Keys {
    fn intern(&mut self, key: &KeyFields<'_>) -> u32 {
        self.intern_members(key.members())
    }

    fn intern_key(&mut self, key: &EventKey) -> u32 {
        self.intern_members(key.members())
    }

    fn intern_members(&mut self, members: [Option<&str>; 3]) -> u32 {
        let mut hasher = rustc_hash::FxHasher::default();
        members.hash(&mut hasher);
        let ids = self.by_hash.entry(hasher.finish()).or_default();
        if let Some(&id) = ids
            .iter()
            .find(|&&id| self.keys[id as usize].members() == members)
        {
            return id;
        }
        let id = self.keys.len() as u32;
        let owned = |member: Option<&str>| member.map(str::to_owned);
        self.keys.push(EventKey {
            event_type: owned(members[0]),
            message_id: owned(members[1]),
            tool_call_id: owned(members[2]),
        });
        ids.push(id);
        id
    }
}

/// An event as compared: its JSON without `timestamp` (`None`: not a JSON
/// object), and its key.
fn comparable(raw: &[u8]) -> (Option<Value>, EventKey) {
    // Issue 39: an event holding a lone UTF-16 surrogate escape is read as
    // the replay reads it (each lone half as its stand-in).
    let read = serde_json::from_slice::<Value>(raw).or_else(|error| {
        std::str::from_utf8(raw)
            .ok()
            .and_then(crate::surrogate::rewrite)
            .map_or(Err(error), |text| serde_json::from_str::<Value>(&text))
    });
    match read {
        Ok(Value::Object(mut object)) => {
            object.remove(IGNORED_MEMBER);
            let member = |name: &str| object.get(name).and_then(Value::as_str).map(str::to_owned);
            let key = EventKey {
                event_type: member("type"),
                message_id: member("messageId"),
                tool_call_id: member("toolCallId"),
            };
            (Some(Value::Object(object)), key)
        }
        _ => (None, EventKey::default()),
    }
}

/// Whether two events are the same but for `timestamp`: the same bytes,
/// or the same JSON object once read (two events that are not objects
/// are the same only as bytes).
fn same_event(a: &[u8], b: &[u8]) -> bool {
    if a == b {
        return true;
    }
    match (comparable(a).0, comparable(b).0) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Every event's key, interned.
fn read_keys(events: &dyn RawEvents, keys: &mut Keys) -> Vec<u32> {
    let mut read = Vec::with_capacity(events.len());
    events.for_each_raw(0..events.len(), &mut |_, raw| {
        read.push(keys.intern(&KeyFields::of(raw)));
    });
    read
}

/// A stream's events in order, each with what it reads as, read and parsed
/// ahead on a thread of its own (issue 40: the replay's thread only
/// applies), a batch at a time.
struct EventCursor {
    batches: Receiver<Vec<(Vec<u8>, ParseOutcome)>>,
    batch: std::vec::IntoIter<(Vec<u8>, ParseOutcome)>,
}

impl EventCursor {
    const BATCH: usize = 1024;

    fn spawn<'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        events: &'scope dyn RawEvents,
    ) -> Self {
        let (sender, batches) = sync_channel(4);
        scope.spawn(move || {
            let mut next = 0;
            while next < events.len() {
                let end = (next + Self::BATCH).min(events.len());
                let mut batch = Vec::with_capacity(end - next);
                events.for_each_raw(next..end, &mut |_, raw| {
                    batch.push((raw.to_vec(), parse_event(raw)));
                });
                if sender.send(batch).is_err() {
                    return;
                }
                next = end;
            }
        });
        Self {
            batches,
            batch: Vec::new().into_iter(),
        }
    }

    /// The next event: its bytes and what they read as.
    fn take(&mut self) -> (Vec<u8>, ParseOutcome) {
        loop {
            if let Some(next) = self.batch.next() {
                return next;
            }
            match self.batches.recv() {
                Ok(batch) => self.batch = batch.into_iter(),
                // Past the end (the alignment has every event once).
                Err(_) => return (Vec::new(), parse_event(b"")),
            }
        }
    }
}

/// What one replay looked like at the last step compared: its messages'
/// ids, in order, and a weak pointer to its state. The engine says which
/// messages each step changed ([`Replayer::take_message_changes`]); a weak
/// pointer keeps nothing alive and forces no copy (the engine goes on
/// changing the state in place, `Arc::make_mut` moving it out), yet its
/// allocation is not reused while it is held: a state still at the same
/// address is the one compared before, unchanged.
#[derive(Default)]
struct Seen {
    ids: Vec<String>,
    state: Weak<Value>,
    /// The positions the engine last reported (kept for their room).
    positions: Vec<usize>,
}

/// What became of one replay's messages since the last step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ListChange {
    /// The same messages in the same places; some changed, some appended.
    Kept { appended: bool },
    /// Moved, removed or replaced: every message is compared again.
    Reshaped,
}

impl Seen {
    fn of(replayer: &mut Replayer) -> Self {
        let mut seen = Self::default();
        seen.rebuild(replayer);
        seen
    }

    fn rebuild(&mut self, replayer: &mut Replayer) {
        replayer.take_message_changes(&mut self.positions);
        self.positions.clear();
        self.ids = replayer
            .conversation()
            .iter()
            .map(|m| m.id().to_owned())
            .collect();
        self.state = Arc::downgrade(replayer.shared_state());
    }

    /// Notes what changed since the last step: the ids of the messages
    /// changed or appended, pushed on `touched`. Brings itself up to date.
    /// The second value: whether the state changed.
    fn changes(
        &mut self,
        replayer: &mut Replayer,
        touched: &mut Vec<String>,
    ) -> (ListChange, bool) {
        let state_changed =
            !std::ptr::eq(self.state.as_ptr(), Arc::as_ptr(replayer.shared_state()));
        if state_changed {
            self.state = Arc::downgrade(replayer.shared_state());
        }
        let reshaped = replayer.take_message_changes(&mut self.positions);
        let conversation = replayer.conversation();
        let kept = !reshaped
            && conversation.len() >= self.ids.len()
            && self.positions.iter().all(|&i| {
                i >= self.ids.len() || conversation.at(i).is_some_and(|m| m.id() == self.ids[i])
            });
        if !kept {
            self.rebuild(replayer);
            return (ListChange::Reshaped, state_changed);
        }
        for &i in &self.positions {
            if let Some(id) = self.ids.get(i) {
                touched.push(id.clone());
            }
        }
        self.positions.clear();
        let appended = conversation.len() > self.ids.len();
        for message in (self.ids.len()..conversation.len()).filter_map(|i| conversation.at(i)) {
            self.ids.push(message.id().to_owned());
            touched.push(message.id().to_owned());
        }
        (ListChange::Kept { appended }, state_changed)
    }
}

/// Where two documents differ, followed step by step.
#[derive(Default)]
struct Tracker {
    /// The messages that differ, by id.
    messages: BTreeSet<String>,
    /// Ids added to `messages` since [`Self::take_new`].
    new: Vec<String>,
    /// How many messages the two lists start with in the same order (by
    /// id): with only appends, this only grows.
    same_order: usize,
    /// The lists' ids differ in order or length.
    orders_differ: bool,
    state: bool,
}

impl Tracker {
    fn is_equal(&self) -> bool {
        self.messages.is_empty() && !self.message_order() && !self.state
    }

    /// The messages are the same, but in another order.
    fn message_order(&self) -> bool {
        self.messages.is_empty() && self.orders_differ
    }

    /// Compares everything.
    fn full(&mut self, a: &Replayer, b: &Replayer, seen: &[Seen; 2]) {
        self.full_messages(a, b, seen);
        self.state = a.state() != b.state();
    }

    /// Brings the comparison from the previous step (`seen`: A's and B's)
    /// to this one: only what either side changed is compared again.
    fn update(&mut self, seen: &mut [Seen; 2], a: &mut Replayer, b: &mut Replayer) {
        let mut touched = Vec::new();
        let (list_a, state_a) = seen[0].changes(a, &mut touched);
        let (list_b, state_b) = seen[1].changes(b, &mut touched);
        if state_a || state_b {
            self.state = a.state() != b.state();
        }
        if list_a == ListChange::Reshaped || list_b == ListChange::Reshaped {
            return self.full_messages(a, b, seen);
        }
        for id in touched {
            let (in_a, in_b) = (a.conversation().get(&id), b.conversation().get(&id));
            if in_a.is_some() && in_a == in_b {
                self.messages.remove(&id);
            } else if self.messages.insert(id.clone()) {
                self.new.push(id);
            }
        }
        if [list_a, list_b].contains(&ListChange::Kept { appended: true }) {
            self.follow_order(seen);
        }
    }

    fn full_messages(&mut self, a: &Replayer, b: &Replayer, seen: &[Seen; 2]) {
        let (ca, cb) = (a.conversation(), b.conversation());
        self.messages.clear();
        for message in ca.iter() {
            if cb.get(message.id()) != Some(message) {
                self.messages.insert(message.id().to_owned());
            }
        }
        for message in cb.iter() {
            if !ca.contains(message.id()) {
                self.messages.insert(message.id().to_owned());
            }
        }
        self.new = self.messages.iter().cloned().collect();
        self.same_order = 0;
        self.follow_order(seen);
    }

    /// Extends [`Self::same_order`] over what was appended.
    fn follow_order(&mut self, seen: &[Seen; 2]) {
        let [a, b] = [&seen[0].ids, &seen[1].ids];
        self.same_order += common_len(&a[self.same_order..], &b[self.same_order..]);
        self.orders_differ = self.same_order != a.len() || self.same_order != b.len();
    }

    /// The ids that began to differ since the last call.
    fn take_new(&mut self) -> std::vec::Drain<'_, String> {
        self.new.drain(..)
    }

    fn difference(&self, a: &Replayer, b: &Replayer) -> StateDifference {
        StateDifference {
            a: a.step(),
            b: b.step(),
            messages: self.messages.iter().cloned().collect(),
            message_order: self.message_order(),
            state: self.state,
            patch: json_patch::diff(&document(a), &document(b)),
        }
    }
}

fn common_len(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `{messages, state}` with the messages by id.
fn document(replayer: &Replayer) -> Value {
    json!({
        "messages": DiffScope::Conversation.document(replayer),
        "state": replayer.state(),
    })
}

/// Compares two streams: aligns them, replays both along the alignment
/// and compares the documents at each aligned step.
pub fn compare(a: Side<'_>, b: Side<'_>) -> StreamComparison {
    compare_within(a, b, ALIGNMENT_TIME_LIMIT)
}

/// [`compare`], with `limit` for the alignment's search instead of
/// [`ALIGNMENT_TIME_LIMIT`].
pub fn compare_within(a: Side<'_>, b: Side<'_>, limit: Duration) -> StreamComparison {
    // The two streams' keys are read on two threads, each into a table of
    // its own, then B's numbered as A's table numbers them.
    let ((mut keys, keys_a), (keys_of_b, mut keys_b)) = std::thread::scope(|scope| {
        let b_side = scope.spawn(|| {
            let mut keys = Keys::default();
            let read = read_keys(b.events, &mut keys);
            (keys, read)
        });
        let mut keys = Keys::default();
        let read_a = read_keys(a.events, &mut keys);
        let read_b = b_side
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        ((keys, read_a), read_b)
    });
    let as_in_a: Vec<u32> = keys_of_b
        .keys
        .iter()
        .map(|key| keys.intern_key(key))
        .collect();
    for key in &mut keys_b {
        *key = as_in_a[*key as usize];
    }
    let (rows, alignment_exact) = align::rows(&keys_a, &keys_b, Instant::now() + limit);

    let mut alignment = Alignment {
        b_of_a: vec![Seq::START; keys_a.len() + 1],
        a_of_b: vec![Seq::START; keys_b.len() + 1],
        matches_a: vec![EventMatch::Only; keys_a.len()],
        matches_b: vec![EventMatch::Only; keys_b.len()],
    };
    let mut differences = Vec::new();
    let (mut replay_a, mut replay_b) = (a.start, b.start);
    let mut seen = [Seen::of(&mut replay_a), Seen::of(&mut replay_b)];
    let mut tracker = Tracker::default();
    tracker.full(&replay_a, &replay_b, &seen);
    let mut first_state_divergence = None;
    let mut spans: Vec<StateSpan> = Vec::new();
    let mut in_span = false;
    let mut note_state = |tracker: &mut Tracker,
                          replay_a: &Replayer,
                          replay_b: &Replayer,
                          first: &mut Option<StateDifference>| {
        let at = (replay_a.step(), replay_b.step());
        if tracker.is_equal() {
            tracker.take_new();
            in_span = false;
            return;
        }
        if first.is_none() {
            *first = Some(tracker.difference(replay_a, replay_b));
        }
        match spans.last_mut() {
            // The span holds every message that differed at one of its
            // steps: those that differ now began to at one of them.
            Some(span) if in_span => {
                span.to = at;
                span.messages.extend(tracker.take_new());
                span.state |= tracker.state;
            }
            _ => {
                tracker.take_new();
                spans.push(StateSpan {
                    from: at,
                    to: at,
                    messages: tracker.messages.clone(),
                    state: tracker.state,
                });
            }
        }
        in_span = true;
    };
    note_state(
        &mut tracker,
        &replay_a,
        &replay_b,
        &mut first_state_divergence,
    );
    std::thread::scope(|scope| {
        let mut cursor_a = EventCursor::spawn(scope, a.events);
        let mut cursor_b = EventCursor::spawn(scope, b.events);
        for row in rows {
            match row {
                Row::Both(i, j) => {
                    let ((raw_a, parsed_a), (raw_b, parsed_b)) = (cursor_a.take(), cursor_b.take());
                    let same = same_event(&raw_a, &raw_b);
                    let event_match = if same {
                        EventMatch::Same
                    } else {
                        EventMatch::Changed
                    };
                    alignment.matches_a[i] = event_match;
                    alignment.matches_b[j] = event_match;
                    alignment.b_of_a[i + 1] = Seq::from_index(j);
                    alignment.a_of_b[j + 1] = Seq::from_index(i);
                    if !same {
                        let before = comparable(&raw_a).0.unwrap_or(Value::Null);
                        let after = comparable(&raw_b).0.unwrap_or(Value::Null);
                        differences.push(EventDifference {
                            kind: DifferenceKind::Changed,
                            a: Seq::from_index(i),
                            b: Seq::from_index(j),
                            key: keys.keys[keys_a[i] as usize].clone(),
                            patch: Some(json_patch::diff(&before, &after)),
                        });
                    }
                    replay_a.apply(parsed_a);
                    replay_b.apply(parsed_b);
                }
                Row::OnlyA(i) => {
                    let (_, parsed) = cursor_a.take();
                    alignment.b_of_a[i + 1] = replay_b.step();
                    differences.push(EventDifference {
                        kind: DifferenceKind::OnlyInA,
                        a: Seq::from_index(i),
                        b: replay_b.step(),
                        key: keys.keys[keys_a[i] as usize].clone(),
                        patch: None,
                    });
                    replay_a.apply(parsed);
                }
                Row::OnlyB(j) => {
                    let (_, parsed) = cursor_b.take();
                    alignment.a_of_b[j + 1] = replay_a.step();
                    differences.push(EventDifference {
                        kind: DifferenceKind::OnlyInB,
                        a: replay_a.step(),
                        b: Seq::from_index(j),
                        key: keys.keys[keys_b[j] as usize].clone(),
                        patch: None,
                    });
                    replay_b.apply(parsed);
                }
            }
            tracker.update(&mut seen, &mut replay_a, &mut replay_b);
            #[cfg(test)]
            {
                // What the shortcut finds is what comparing everything finds.
                let mut everything = Tracker::default();
                let fresh = [
                    Seen::of(&mut replay_a.clone()),
                    Seen::of(&mut replay_b.clone()),
                ];
                everything.full(&replay_a, &replay_b, &fresh);
                assert_eq!(
                    (
                        &everything.messages,
                        everything.message_order(),
                        everything.state
                    ),
                    (&tracker.messages, tracker.message_order(), tracker.state),
                    "at A {} / B {}",
                    replay_a.step(),
                    replay_b.step()
                );
            }
            note_state(
                &mut tracker,
                &replay_a,
                &replay_b,
                &mut first_state_divergence,
            );
        }
    });
    // The end-of-stream checks (R44…) may change nothing of the document,
    // but a stream's end is where the final states are read.
    replay_a.finish();
    replay_b.finish();
    let seen = [Seen::of(&mut replay_a), Seen::of(&mut replay_b)];
    tracker.full(&replay_a, &replay_b, &seen);
    let final_state = (!tracker.is_equal()).then(|| tracker.difference(&replay_a, &replay_b));
    StreamComparison {
        num_events_a: keys_a.len() as u64,
        num_events_b: keys_b.len() as u64,
        outcomes: [&replay_a, &replay_b].map(|r| (r.outcome(), r.fatal().map(|d| d.seq))),
        alignment,
        differences,
        first_state_divergence,
        state_spans: spans,
        final_state,
        alignment_exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EventLog;
    use crate::replay::Options;

    fn log(lines: &[&str]) -> EventLog {
        let mut log = EventLog::default();
        for line in lines {
            log.push(line.as_bytes());
        }
        log
    }

    fn compare_lines(a: &[&str], b: &[&str]) -> StreamComparison {
        let (a, b) = (log(a), log(b));
        compare(
            Side {
                start: Replayer::new(Options::default()),
                events: &a,
            },
            Side {
                start: Replayer::new(Options::default()),
                events: &b,
            },
        )
    }

    const RUN: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
    const SNAP: &str =
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"p","activityType":"plan","content":{"n":0}}"#;
    const DELTA_1: &str = r#"{"type":"ACTIVITY_DELTA","messageId":"p","activityType":"plan","patch":[{"op":"replace","path":"/n","value":1}]}"#;
    const DELTA_2: &str = r#"{"type":"ACTIVITY_DELTA","messageId":"p","activityType":"plan","patch":[{"op":"replace","path":"/n","value":2}]}"#;
    const STEP: &str = r#"{"type":"STEP_STARTED","stepName":"s"}"#;
    const STATE: &str = r#"{"type":"STATE_SNAPSHOT","snapshot":{"k":1}}"#;
    const END: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

    #[test]
    fn the_same_stream_agrees_and_aligns_step_for_step() {
        let c = compare_lines(&[RUN, SNAP, DELTA_1, END], &[RUN, SNAP, DELTA_1, END]);
        assert!(c.agree());
        assert_eq!(c.num_aligned(), 4);
        for step in 0..=4 {
            assert_eq!(c.alignment.b_of_a(Seq::new(step)), Seq::new(step));
            assert_eq!(c.alignment.a_of_b(Seq::new(step)), Seq::new(step));
        }
        assert_eq!(c.final_state, None);
    }

    #[test]
    fn an_alignment_cut_short_by_its_time_limit_is_still_valid_and_says_so() {
        // Two long streams that differ almost everywhere: Myers' search
        // would take time in their product. With no time at all, the
        // alignment settles for a longer difference, still pairing each
        // event once and in order, and says it is approximate.
        let stream = |len: usize, period: usize| {
            let lines: Vec<String> = (0..len)
                .map(|i| {
                    format!(
                        r#"{{"type":"TEXT_MESSAGE_START","messageId":"a{}"}}"#,
                        i % period
                    )
                })
                .collect();
            log(&lines.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let (a, b) = (stream(400, 37), stream(300, 23));
        let side = |events| Side {
            start: Replayer::new(Options::default()),
            events,
        };
        let exact = compare(side(&a), side(&b));
        assert!(exact.alignment_exact);
        let cut = compare_within(side(&a), side(&b), Duration::ZERO);
        assert!(!cut.alignment_exact);
        assert_eq!(cut.to_json(json!({}), json!({}))["alignment_exact"], false);
        for c in [&exact, &cut] {
            let only_a = c.count(DifferenceKind::OnlyInA);
            let only_b = c.count(DifferenceKind::OnlyInB);
            assert_eq!(c.num_aligned() + only_a, 400);
            assert_eq!(c.num_aligned() + only_b, 300);
            assert!(c.alignment.b_of_a.windows(2).all(|w| w[0] <= w[1]));
            assert!(c.alignment.a_of_b.windows(2).all(|w| w[0] <= w[1]));
        }
        // The shortest alignment pairs at least as many events.
        assert!(exact.num_aligned() >= cut.num_aligned());
    }

    #[test]
    fn timestamps_are_not_a_difference() {
        let a = r#"{"type":"STEP_STARTED","stepName":"s","timestamp":1}"#;
        let b = r#"{"timestamp":99,"type":"STEP_STARTED","stepName":"s"}"#;
        let c = compare_lines(&[RUN, a], &[RUN, b]);
        assert!(c.agree(), "{:?}", c.differences);
    }

    #[test]
    fn an_inserted_event_is_one_difference_not_a_cascade() {
        // Issue 17.4: alignment by key and order, not by position.
        let c = compare_lines(
            &[RUN, SNAP, DELTA_1, STATE, END],
            &[RUN, STEP, SNAP, DELTA_1, STATE, END],
        );
        assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
        let only = &c.differences[0];
        assert_eq!(only.kind, DifferenceKind::OnlyInB);
        assert_eq!((only.a, only.b), (Seq::new(1), Seq::new(2)));
        assert_eq!(only.key.event_type.as_deref(), Some("STEP_STARTED"));
        // After it, A's step n is B's step n + 1.
        assert_eq!(c.alignment.b_of_a(Seq::new(2)), Seq::new(3));
        assert_eq!(c.alignment.a_of_b(Seq::new(2)), Seq::new(1));
        assert_eq!(c.alignment.a_of_b(Seq::new(6)), Seq::new(5));
        assert_eq!(c.alignment.match_of_b(Seq::new(2)), Some(EventMatch::Only));
        assert_eq!(c.alignment.match_of_b(Seq::new(3)), Some(EventMatch::Same));
        // A step changes no document: the states agree throughout.
        assert_eq!(c.first_state_divergence, None);
        assert!(c.state_spans.is_empty());
        assert!(!c.agree());
    }

    #[test]
    fn a_changed_delta_is_the_first_divergence_of_events_and_state() {
        let c = compare_lines(
            &[RUN, SNAP, DELTA_1, STATE, END],
            &[RUN, SNAP, DELTA_2, STATE, END],
        );
        let first = c.first_event_divergence().expect("a divergence");
        assert_eq!(first.kind, DifferenceKind::Changed);
        assert_eq!((first.a, first.b), (Seq::new(3), Seq::new(3)));
        let patch = serde_json::to_value(first.patch.as_ref().unwrap()).unwrap();
        assert_eq!(
            patch,
            json!([{"op": "replace", "path": "/patch/0/value", "value": 2}])
        );
        let state = c
            .first_state_divergence
            .as_ref()
            .expect("the state differs");
        assert_eq!((state.a, state.b), (Seq::new(3), Seq::new(3)));
        assert_eq!(state.messages, vec!["p".to_owned()]);
        assert!(!state.state);
        // Still different at the end: one span from step 3 to the end.
        assert_eq!(c.state_spans.len(), 1);
        assert_eq!(c.state_spans[0].to, (Seq::new(5), Seq::new(5)));
        let last = c.final_state.as_ref().expect("differs at the end");
        let patch = serde_json::to_value(&last.patch).unwrap();
        assert_eq!(
            patch,
            json!([{"op": "replace", "path": "/messages/p/content/n", "value": 2}])
        );
    }

    #[test]
    fn a_snapshot_that_repairs_ends_the_state_span() {
        let repair = r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"p","activityType":"plan","content":{"n":1}}"#;
        let c = compare_lines(
            &[RUN, SNAP, DELTA_1, STEP, repair, END],
            &[RUN, SNAP, DELTA_2, STEP, repair, END],
        );
        assert_eq!(c.state_spans.len(), 1);
        let span = &c.state_spans[0];
        assert_eq!(
            (span.from, span.to),
            ((Seq::new(3), Seq::new(3)), (Seq::new(4), Seq::new(4)))
        );
        assert_eq!(c.final_state, None, "the snapshot made them equal again");
        assert!(!c.agree());
    }

    #[test]
    fn the_state_and_a_missing_message_are_told_apart() {
        let c = compare_lines(&[RUN, SNAP, STATE], &[RUN, STATE]);
        assert_eq!(c.count(DifferenceKind::OnlyInA), 1);
        let first = c.first_state_divergence.as_ref().unwrap();
        assert_eq!((first.a, first.b), (Seq::new(2), Seq::new(1)));
        assert_eq!(first.messages, vec!["p".to_owned()]);
        let other_state = r#"{"type":"STATE_SNAPSHOT","snapshot":{"k":2}}"#;
        let c = compare_lines(&[RUN, STATE], &[RUN, other_state]);
        let first = c.first_state_divergence.as_ref().unwrap();
        assert!(first.state && first.messages.is_empty());
        assert_eq!(first.a, Seq::new(2));
    }

    #[test]
    fn differences_are_found_around_a_step() {
        let c = compare_lines(
            &[RUN, SNAP, DELTA_1, STATE, DELTA_1, END],
            &[RUN, SNAP, DELTA_2, STATE, DELTA_2, END],
        );
        let (s, t) = (Seq::new, Seq::new);
        assert_eq!(c.next_difference(s(0), t(0)).unwrap().a, s(3));
        assert_eq!(c.next_difference(s(3), t(3)).unwrap().a, s(5), "after it");
        assert_eq!(c.previous_difference(s(5), t(5)).unwrap().a, s(3));
        assert!(c.next_difference(s(6), t(6)).is_none());
        // An event of B only comes after A's step it follows.
        let c = compare_lines(&[RUN, SNAP, END], &[RUN, SNAP, STEP, END]);
        let only = c.next_difference(s(2), t(2)).expect("B's step 3");
        assert_eq!((only.a, only.b), (s(2), t(3)));
        assert!(c.next_difference(s(2), t(3)).is_none());
        assert_eq!(c.previous_difference(s(3), t(4)).unwrap().b, t(3));
    }

    #[test]
    fn the_crafted_pairs_of_the_demo_compare_as_their_tests_say() {
        // Every step of these is checked against comparing everything
        // (the `cfg(test)` check in `compare`).
        let read = |path: &str| {
            let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
                .expect("a fixture");
            text.lines().map(str::to_owned).collect::<Vec<_>>()
        };
        let demo = read("recordings/demo.jsonl");
        let demo: Vec<&str> = demo.iter().map(String::as_str).collect();
        for (name, changed, only_b, first_state) in [
            ("fixed", 1, 0, Some((16, 16))),
            ("inserted", 0, 1, None),
            ("retimed", 0, 0, None),
            ("two-changes", 3, 0, Some((30, 30))),
            ("after-fix", 1, 1, Some((16, 17))),
        ] {
            let b = read(&format!("tests/fixtures/compare/{name}.jsonl"));
            let b: Vec<&str> = b.iter().map(String::as_str).collect();
            let c = compare_lines(&demo, &b);
            assert_eq!(c.count(DifferenceKind::Changed), changed, "{name}");
            assert_eq!(c.count(DifferenceKind::OnlyInB), only_b, "{name}");
            let first = c
                .first_state_divergence
                .as_ref()
                .map(|d| (d.a.get(), d.b.get()));
            assert_eq!(first, first_state, "{name}");
            // And backwards: B against A.
            let back = compare_lines(&b, &demo);
            assert_eq!(back.count(DifferenceKind::OnlyInA), only_b, "{name}");
        }
    }

    /// A stream of `n` events over a few activities, a text message, the
    /// state and a reordering snapshot, from `seed`.
    fn generated(seed: u64, n: usize) -> Vec<String> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut lines = vec![RUN.to_owned()];
        for id in 0..4 {
            lines.push(format!(
                r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"p{id}","activityType":"plan","content":{{"n":0,"items":[]}}}}"#
            ));
        }
        lines
            .push(r#"{"type":"TEXT_MESSAGE_START","messageId":"t","role":"assistant"}"#.to_owned());
        while lines.len() < n {
            let line = match next(6) {
                0 | 1 => format!(
                    r#"{{"type":"ACTIVITY_DELTA","messageId":"p{}","activityType":"plan","patch":[{{"op":"replace","path":"/n","value":{}}}]}}"#,
                    next(4),
                    next(5)
                ),
                2 => format!(
                    r#"{{"type":"ACTIVITY_DELTA","messageId":"p{}","activityType":"plan","patch":[{{"op":"add","path":"/items/-","value":{}}}]}}"#,
                    next(4),
                    next(9)
                ),
                3 => format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"t","delta":"{}"}}"#,
                    next(10)
                ),
                4 => format!(
                    r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"k":{}}}}}"#,
                    next(3)
                ),
                _ => format!(
                    r#"{{"type":"ACTIVITY_SNAPSHOT","messageId":"p{}","activityType":"plan","content":{{"n":{},"items":[]}}}}"#,
                    next(4),
                    next(3)
                ),
            };
            lines.push(line);
        }
        lines
    }

    #[test]
    fn generated_streams_with_edits_compare_step_by_step_as_everything_does() {
        // The `cfg(test)` check in `compare` holds the shortcut to what
        // comparing everything finds, at every aligned step.
        for seed in 0..12 {
            let a = generated(seed, 160);
            let mut b = a.clone();
            let mut x = seed;
            for k in 0..6 {
                x = (x * 31 + 17 + k) % 150 + 5;
                let i = x as usize;
                match k % 3 {
                    0 => b.insert(i, STEP.to_owned()),
                    1 => {
                        b.remove(i);
                    }
                    _ => b[i] = b[i].replace("\"value\":", "\"value\":7"),
                }
            }
            let (la, lb): (Vec<&str>, Vec<&str>) = (
                a.iter().map(String::as_str).collect(),
                b.iter().map(String::as_str).collect(),
            );
            let c = compare_lines(&la, &lb);
            assert!(
                c.differences.len() <= 12,
                "seed {seed}: {:?}",
                c.differences
            );
            assert_eq!(
                c.num_aligned() + c.count(DifferenceKind::OnlyInA),
                la.len(),
                "seed {seed}"
            );
            let back = compare_lines(&lb, &la);
            // A longest common subsequence is as long both ways (which
            // events pair up may differ).
            assert_eq!(back.num_aligned(), c.num_aligned(), "seed {seed}");
            // Reordered messages: the same ones, in another order.
            let reorder = r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"p1","role":"activity","activityType":"plan","content":{"n":0,"items":[]}},{"id":"p0","role":"activity","activityType":"plan","content":{"n":0,"items":[]}}]}"#;
            let mut with = la.clone();
            with.push(reorder);
            compare_lines(&la, &with);
        }
    }

    #[test]
    fn bytes_that_are_not_json_compare_as_bytes() {
        let c = compare_lines(&[RUN, "not json"], &[RUN, "not json"]);
        assert!(c.agree());
        let c = compare_lines(&[RUN, "not json"], &[RUN, "not jsom"]);
        assert_eq!(c.count(DifferenceKind::Changed), 1);
        let empty = compare_lines(&[], &[]);
        assert!(empty.agree());
        assert_eq!(empty.alignment.b_of_a(Seq::new(9)), Seq::START);
    }
}
