//! "What if this event were different?" (issue 41): a list of edits to a
//! recorded stream — drop a step, replace its event, insert an event before
//! it — checked against the stream and applied to its events, giving the
//! edited stream that the replay, `compare` and the exports then read. The
//! recorded events are never modified: applying edits builds a new list,
//! every untouched event keeping its raw bytes.
//!
//! Steps are numbered as `check` numbers them: the events are steps 1 to N
//! and step 0 is the run input (the recorded request body). Every edit names
//! a step of the *recorded* stream, so that several edits apply together
//! without one shifting the steps of another. `Replace(0, …)` takes a
//! `RunAgentInput`, `Drop(0)` starts the replay without the recorded one.
//!
//! Only text that is not JSON, or not an object with a string `type`, is
//! refused as an event: a malformed known event is a fair question, and the
//! replay judges it as it would in a stream.
//!
//! This is the engine side of the feature, without UI: `agui-replay whatif`
//! reads it, and so can the app's model (its list of edits, each edited
//! step's [`Origin`], where the edited replay starts: [`Edits::first_step`]).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::diagnostic::Seq;
use crate::event_log::{EventLog, RawEvents};

/// One edit of a recorded stream, naming a step of the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Leave the event at this step out (step 0: start without the
    /// recorded run input).
    Drop(Seq),
    /// Put this JSON text in place of the event at this step (step 0: in
    /// place of the run input, a `RunAgentInput`).
    Replace(Seq, String),
    /// Put this JSON event before the event at this step (the last step + 1
    /// appends). Several inserts before one step go in their given order.
    Insert(Seq, String),
}

impl Edit {
    /// The step of the recording it names.
    pub fn step(&self) -> Seq {
        match self {
            Self::Drop(step) | Self::Replace(step, _) | Self::Insert(step, _) => *step,
        }
    }

    /// `drop`, `replace` or `insert`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Drop(_) => "drop",
            Self::Replace(..) => "replace",
            Self::Insert(..) => "insert",
        }
    }

    /// The JSON text it puts in, if any.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Drop(_) => None,
            Self::Replace(_, text) | Self::Insert(_, text) => Some(text),
        }
    }

    /// In words, for a list of edits: `drop 16`, `replace 0`, `insert
    /// before 12`.
    pub fn label(&self) -> String {
        match self {
            Self::Drop(step) => format!("drop {step}"),
            Self::Replace(step, _) => format!("replace {step}"),
            Self::Insert(step, _) => format!("insert before {step}"),
        }
    }
}

/// Why a list of edits does not fit a stream (bad usage: nothing is
/// replayed).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    /// A step past the end of the stream.
    #[error("{}", no_such_step(.edit, .step, .num_events, .edit_is_insert))]
    NoSuchStep {
        /// The edit, in words.
        edit: String,
        /// The step it names.
        step: Seq,
        /// The number of events of the stream.
        num_events: usize,
        /// Whether the edit is an insert (which may name the last step + 1).
        edit_is_insert: bool,
    },
    /// An insert before step 0, the run input.
    #[error(
        "insert before 0: nothing goes before the run input (step 0); insert before 1 puts an \
         event first"
    )]
    BeforeRunInput,
    /// A drop of step 0 in a stream without a run input.
    #[error("drop 0: the stream has no run input (step 0) to drop")]
    NoRunInput,
    /// Two drops or replaces of one step.
    #[error("step {step} is edited twice ({first} and {second}): one drop or replace per step")]
    Twice {
        /// The step.
        step: Seq,
        /// The first edit, in words.
        first: String,
        /// The second, in words.
        second: String,
    },
    /// Text that is not JSON.
    #[error("{edit}: not JSON ({reason})")]
    NotJson {
        /// The edit, in words.
        edit: String,
        /// What the JSON reader said.
        reason: String,
    },
    /// JSON that is not an object with a string `type` (or, for step 0,
    /// not an object).
    #[error("{edit}: not an AG-UI {what}: {reason}")]
    NotAnEvent {
        /// The edit, in words.
        edit: String,
        /// `event` or `run input`.
        what: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
}

fn no_such_step(edit: &str, step: &Seq, num_events: &usize, is_insert: &bool) -> String {
    let appends = if *is_insert {
        format!("; an insert before {} appends", num_events + 1)
    } else {
        String::new()
    };
    format!(
        "{edit}: step {step} does not exist: the stream has {num_events} events (step 0 is the \
         run input{appends})"
    )
}

/// What the edits do to the run input (step 0).
#[derive(Clone, Debug, PartialEq)]
pub enum RunInputChange {
    /// The replay starts without one.
    Dropped,
    /// The replay starts from this one.
    Replaced(Value),
}

/// A list of edits checked against one stream: every step exists, no step
/// is dropped or replaced twice, every event text is an object with a
/// string `type`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edits {
    edits: Vec<Edit>,
    run_input: Option<RunInputChange>,
}

/// Where each event of an edited stream comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The recorded event of this step, unchanged.
    Recorded(Seq),
    /// The event that replaced the recorded one of this step.
    Replaced(Seq),
    /// An event inserted before this step of the recording.
    Inserted {
        /// The recorded step it goes before (the last + 1: appended).
        before: Seq,
    },
}

impl Origin {
    /// Whether the event is not the recorded one (what the app marks
    /// "edited").
    pub fn is_edited(self) -> bool {
        !matches!(self, Self::Recorded(_))
    }
}

/// A stream with the edits applied.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditedStream {
    /// The events, in order: the recorded ones keep their raw bytes.
    pub events: EventLog,
    /// Where each comes from (index 0 is the edited stream's step 1).
    pub origins: Vec<Origin>,
}

impl EditedStream {
    /// Each event's arrival time (index 0 is step 1) from the recorded
    /// ones (index 0 is the recording's step 1): an event put in takes the
    /// time of the event before it (the first, of the one after it), so
    /// that it adds no gap.
    pub fn arrivals(&self, recorded: &[u64]) -> Vec<u64> {
        arrivals_of(&self.origins, recorded)
    }
}

/// Where each event of an edited stream comes from, without a word per
/// event: runs of recorded events and the events put in between them, in
/// order (issue 41: laying out an edit of a million-event recording costs
/// what its edits cost, not what its events do).
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pieces: Vec<Piece>,
    /// The index in the edited stream each piece starts at, ascending.
    starts: Vec<usize>,
    len: usize,
}

/// A part of a [`Layout`].
#[derive(Clone, Debug)]
enum Piece {
    /// `len` recorded events from step `first` on.
    Run { first: Seq, len: usize },
    /// One event put in, with its bytes.
    PutIn { origin: Origin, bytes: Vec<u8> },
}

impl Layout {
    fn push(&mut self, piece: Piece) {
        let len = match &piece {
            Piece::Run { len: 0, .. } => return,
            Piece::Run { len, .. } => *len,
            Piece::PutIn { .. } => 1,
        };
        self.starts.push(self.len);
        self.pieces.push(piece);
        self.len += len;
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The piece holding the event at 0-based `index`.
    fn piece_of(&self, index: usize) -> Option<usize> {
        (index < self.len).then(|| self.starts.partition_point(|&s| s <= index) - 1)
    }

    /// Where the event at 0-based `index` comes from.
    pub fn origin(&self, index: usize) -> Option<Origin> {
        let k = self.piece_of(index)?;
        Some(match &self.pieces[k] {
            Piece::Run { first, .. } => {
                Origin::Recorded(Seq::new(first.get() + (index - self.starts[k]) as u64))
            }
            Piece::PutIn { origin, .. } => *origin,
        })
    }

    /// Every event's origin, in order (index 0 is step 1).
    pub fn origins(&self) -> Vec<Origin> {
        (0..self.len).filter_map(|i| self.origin(i)).collect()
    }

    /// The arrival times of the events at 0-based `indices`, from the
    /// recorded ones, as [`EditedStream::arrivals`] gives them (an event
    /// put in takes the time of the event before it, the first the time
    /// of the one after it).
    pub fn arrivals(&self, indices: std::ops::Range<usize>, recorded: &[u64]) -> Vec<u64> {
        let at = |seq: Seq| seq.index().and_then(|i| recorded.get(i).copied());
        let own = |k: usize, index: usize| match &self.pieces[k] {
            Piece::Run { first, .. } => at(Seq::new(first.get() + (index - self.starts[k]) as u64)),
            Piece::PutIn {
                origin: Origin::Replaced(seq) | Origin::Recorded(seq),
                ..
            } => at(*seq),
            Piece::PutIn { .. } => None,
        };
        // The time of the last timed event of the pieces before `k`, else
        // of the first after it.
        let neighbour = |k: usize| {
            (0..k)
                .rev()
                .find_map(|j| own(j, self.starts[j] + self.piece_len(j) - 1))
                .or_else(|| (k + 1..self.pieces.len()).find_map(|j| own(j, self.starts[j])))
                .unwrap_or(0)
        };
        let end = indices.end.min(self.len);
        let mut times = Vec::with_capacity(end.saturating_sub(indices.start));
        for index in indices.start.min(end)..end {
            let Some(k) = self.piece_of(index) else { break };
            times.push(own(k, index).unwrap_or_else(|| neighbour(k)));
        }
        times
    }

    fn piece_len(&self, k: usize) -> usize {
        match &self.pieces[k] {
            Piece::Run { len, .. } => *len,
            Piece::PutIn { .. } => 1,
        }
    }
}

/// A stream with the edits applied, read where it lies: the recorded
/// events are read from `recorded` as they are asked for, and only those
/// put in are held (issue 41: a million-event recording is edited without
/// copying it).
#[derive(Clone, Debug)]
pub struct EditedEvents<E> {
    recorded: E,
    /// Shared with whoever marks the edited steps (the app), not copied.
    layout: std::sync::Arc<Layout>,
}

impl<E: RawEvents> EditedEvents<E> {
    /// Where each event comes from.
    pub fn layout(&self) -> &std::sync::Arc<Layout> {
        &self.layout
    }

    /// The recorded events it reads from.
    pub fn recorded(&self) -> &E {
        &self.recorded
    }
}

impl<E: RawEvents> RawEvents for EditedEvents<E> {
    fn len(&self) -> usize {
        self.layout.len
    }

    fn for_each_raw(&self, indices: std::ops::Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        let layout = &self.layout;
        let end = indices.end.min(layout.len);
        let mut i = indices.start.min(end);
        while i < end {
            let Some(k) = layout.piece_of(i) else { return };
            let piece_end = (layout.starts[k] + layout.piece_len(k)).min(end);
            match &layout.pieces[k] {
                Piece::Run { first, .. } => {
                    // A run of recorded events, read in one go.
                    let from = first.index().unwrap_or(0) + (i - layout.starts[k]);
                    let mut at = i;
                    self.recorded
                        .for_each_raw(from..from + (piece_end - i), &mut |_, raw| {
                            each(Seq::from_index(at), raw);
                            at += 1;
                        });
                }
                Piece::PutIn { bytes, .. } => each(Seq::from_index(i), bytes),
            }
            i = piece_end;
        }
    }
}

/// Each event's arrival time from the recorded ones, as
/// [`EditedStream::arrivals`] gives them.
pub fn arrivals_of(origins: &[Origin], recorded: &[u64]) -> Vec<u64> {
    let at = |seq: Seq| seq.index().and_then(|i| recorded.get(i).copied());
    let mut times = Vec::with_capacity(origins.len());
    // Events put in before the first timed one: its time, once known.
    let mut untimed_first = 0;
    let mut last = None;
    for origin in origins {
        let time = match *origin {
            Origin::Recorded(seq) | Origin::Replaced(seq) => at(seq),
            Origin::Inserted { .. } => None,
        };
        match (time, last) {
            (Some(t), None) => {
                times[..untimed_first].fill(t);
                last = Some(t);
                times.push(t);
            }
            (Some(t), Some(_)) => {
                last = Some(t);
                times.push(t);
            }
            (None, Some(t)) => times.push(t),
            (None, None) => {
                untimed_first += 1;
                times.push(0);
            }
        }
    }
    times
}

/// Reads an edit's JSON text as the replay would (a lone UTF-16 surrogate
/// escape is valid JSON text).
fn parse_json(text: &str) -> Result<Value, serde_json::Error> {
    let rewritten = crate::surrogate::rewrite(text);
    serde_json::from_str(rewritten.as_deref().unwrap_or(text))
}

/// The bytes an edited event is stored as: the text given, trimmed, with
/// each line break (only whitespace between tokens in JSON text: a string
/// holds none raw) made a space, so that it stays one line of JSON lines.
fn event_bytes(text: &str) -> Vec<u8> {
    text.trim()
        .bytes()
        .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect()
}

/// The events inserted before each step, in the order given.
type Inserts<'e> = BTreeMap<Seq, Vec<&'e str>>;

/// What became of each step dropped (`None`) or replaced.
type Changes<'e> = HashMap<Seq, Option<&'e str>>;

impl Edits {
    /// Checks `edits` against a stream of `num_events` events, which holds
    /// a run input if `has_run_input`.
    pub fn new(
        edits: Vec<Edit>,
        num_events: usize,
        has_run_input: bool,
    ) -> Result<Self, EditError> {
        let last = num_events as u64;
        let mut changed: HashMap<Seq, &Edit> = HashMap::new();
        let mut run_input = None;
        for edit in &edits {
            let step = edit.step();
            let is_insert = matches!(edit, Edit::Insert(..));
            let limit = if is_insert { last + 1 } else { last };
            if step.get() > limit {
                return Err(EditError::NoSuchStep {
                    edit: edit.label(),
                    step,
                    num_events,
                    edit_is_insert: is_insert,
                });
            }
            if !is_insert && let Some(first) = changed.insert(step, edit) {
                return Err(EditError::Twice {
                    step,
                    first: first.label(),
                    second: edit.label(),
                });
            }
            let is_run_input = step == Seq::START;
            match edit {
                Edit::Insert(..) if is_run_input => return Err(EditError::BeforeRunInput),
                Edit::Drop(_) if is_run_input && !has_run_input => {
                    return Err(EditError::NoRunInput);
                }
                Edit::Drop(_) if is_run_input => run_input = Some(RunInputChange::Dropped),
                _ => {}
            }
            let Some(text) = edit.text() else { continue };
            let value = parse_json(text).map_err(|e| EditError::NotJson {
                edit: edit.label(),
                reason: e.to_string(),
            })?;
            let what = if is_run_input { "run input" } else { "event" };
            let not = |reason| EditError::NotAnEvent {
                edit: edit.label(),
                what,
                reason,
            };
            let Value::Object(object) = &value else {
                return Err(not("not a JSON object"));
            };
            if is_run_input {
                run_input = Some(RunInputChange::Replaced(value));
                continue;
            }
            match object.get("type") {
                Some(Value::String(_)) => {}
                Some(_) => return Err(not("its `type` is not a string")),
                None => return Err(not("it has no `type`")),
            }
        }
        Ok(Self { edits, run_input })
    }

    /// The edits, as given.
    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// What the edits do to the run input, if anything.
    pub fn run_input_change(&self) -> Option<&RunInputChange> {
        self.run_input.as_ref()
    }

    /// The run input of the edited stream, from the recorded one.
    pub fn run_input(&self, recorded: Option<&Value>) -> Option<Value> {
        match &self.run_input {
            None => recorded.cloned(),
            Some(RunInputChange::Dropped) => None,
            Some(RunInputChange::Replaced(input)) => Some(input.clone()),
        }
    }

    /// The first recorded step the edits touch (an insert touches the step
    /// it goes before): the edited replay equals the recorded one before
    /// it, so it may start from a checkpoint there. `None` without edits.
    pub fn first_step(&self) -> Option<Seq> {
        self.edits.iter().map(Edit::step).min()
    }

    /// The edits by the step they name: the events inserted before each
    /// step, in the order given, and what became of each step dropped or
    /// replaced (`None`: dropped).
    fn by_step(&self) -> (Inserts<'_>, Changes<'_>) {
        let mut inserts: BTreeMap<Seq, Vec<&str>> = BTreeMap::new();
        let mut changes: HashMap<Seq, Option<&str>> = HashMap::new();
        for edit in &self.edits {
            match edit {
                Edit::Insert(step, text) => inserts.entry(*step).or_default().push(text),
                Edit::Drop(step) => {
                    changes.insert(*step, None);
                }
                Edit::Replace(step, text) => {
                    changes.insert(*step, Some(text));
                }
            }
        }
        (inserts, changes)
    }

    /// The edited stream over `recorded` (the recording's events, step 1
    /// first), read as it is asked for: only the events put in are copied.
    pub fn over<E: RawEvents>(&self, recorded: E) -> EditedEvents<E> {
        let (mut inserts, changes) = self.by_step();
        let num_events = recorded.len();
        // Only the steps edited are looked at one by one: the recorded
        // ones between them are runs. Step 0 is the run input, not an
        // event.
        let mut edited_steps: Vec<Seq> = changes.keys().chain(inserts.keys()).copied().collect();
        edited_steps.retain(|step| *step != Seq::START);
        edited_steps.sort_unstable();
        edited_steps.dedup();
        let mut layout = Layout::default();
        let mut push_inserts = |layout: &mut Layout, before: Seq| {
            for text in inserts.remove(&before).unwrap_or_default() {
                layout.push(Piece::PutIn {
                    origin: Origin::Inserted { before },
                    bytes: event_bytes(text),
                });
            }
        };
        let mut next = 1u64;
        for step in edited_steps
            .into_iter()
            .chain(std::iter::once(Seq::from_index(num_events)))
        {
            let step = step.get().min(num_events as u64 + 1);
            if step > next {
                layout.push(Piece::Run {
                    first: Seq::new(next),
                    len: (step - next) as usize,
                });
            }
            next = next.max(step);
            if step > num_events as u64 {
                continue;
            }
            let seq = Seq::new(step);
            push_inserts(&mut layout, seq);
            match changes.get(&seq) {
                None => layout.push(Piece::Run { first: seq, len: 1 }),
                Some(None) => {}
                Some(Some(text)) => layout.push(Piece::PutIn {
                    origin: Origin::Replaced(seq),
                    bytes: event_bytes(text),
                }),
            }
            next = step + 1;
        }
        push_inserts(&mut layout, Seq::from_index(num_events));
        EditedEvents {
            recorded,
            layout: std::sync::Arc::new(layout),
        }
    }

    /// The edited stream: `events` (the recording's, step 1 first) with the
    /// edits applied. The recorded events are read, never changed.
    pub fn apply<E: RawEvents + ?Sized>(&self, events: &E) -> EditedStream {
        let (mut inserts, changes) = self.by_step();
        let mut edited = EditedStream::default();
        let mut push_inserts = |edited: &mut EditedStream, before: Seq| {
            for text in inserts.remove(&before).unwrap_or_default() {
                edited.events.push(&event_bytes(text));
                edited.origins.push(Origin::Inserted { before });
            }
        };
        events.for_each_raw(0..events.len(), &mut |seq, raw| {
            push_inserts(&mut edited, seq);
            match changes.get(&seq) {
                None => {
                    edited.events.push(raw);
                    edited.origins.push(Origin::Recorded(seq));
                }
                Some(None) => {}
                Some(Some(text)) => {
                    edited.events.push(&event_bytes(text));
                    edited.origins.push(Origin::Replaced(seq));
                }
            }
        });
        push_inserts(&mut edited, Seq::from_index(events.len()));
        edited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(events: &[&str]) -> EventLog {
        let mut log = EventLog::default();
        for event in events {
            log.push(event.as_bytes());
        }
        log
    }

    fn texts(edited: &EditedStream) -> Vec<String> {
        edited
            .events
            .iter()
            .map(|(_, raw)| String::from_utf8_lossy(raw).into_owned())
            .collect()
    }

    const A: &str = r#"{"type":"A"}"#;
    const B: &str = r#"{ "type" : "B" }"#;
    const C: &str = r#"{"type":"C"}"#;

    #[test]
    fn edits_apply_together_each_naming_a_recorded_step() {
        // Issue 41: the steps are the recording's, whatever the other
        // edits do to the positions.
        let recorded = log(&[A, B, C]);
        let edits = Edits::new(
            vec![
                Edit::Insert(Seq::new(4), r#"{"type":"END"}"#.into()),
                Edit::Drop(Seq::new(1)),
                Edit::Replace(Seq::new(3), "{\"type\":\n\"Z\"}\n".into()),
                Edit::Insert(Seq::new(2), r#"{"type":"X"}"#.into()),
                Edit::Insert(Seq::new(2), r#"{"type":"Y"}"#.into()),
            ],
            3,
            false,
        )
        .unwrap();
        let edited = edits.apply(&recorded);
        assert_eq!(
            texts(&edited),
            [
                r#"{"type":"X"}"#,
                r#"{"type":"Y"}"#,
                B,
                r#"{"type": "Z"}"#,
                r#"{"type":"END"}"#
            ]
        );
        assert_eq!(
            edited.origins,
            [
                Origin::Inserted {
                    before: Seq::new(2)
                },
                Origin::Inserted {
                    before: Seq::new(2)
                },
                Origin::Recorded(Seq::new(2)),
                Origin::Replaced(Seq::new(3)),
                Origin::Inserted {
                    before: Seq::new(4)
                },
            ]
        );
        assert_eq!(edits.first_step(), Some(Seq::new(1)));
        // The recorded events are untouched.
        assert_eq!(recorded, log(&[A, B, C]));
    }

    #[test]
    fn the_edited_stream_read_where_it_lies_equals_the_one_applied() {
        // Issue 41: the app reads the edited stream without copying the
        // recording; it must be the stream `apply` gives.
        let recorded = log(&[A, B, C, A, B]);
        let cases = [
            vec![],
            vec![Edit::Drop(Seq::START)],
            vec![Edit::Replace(Seq::START, "{}".into())],
            vec![Edit::Drop(Seq::new(1)), Edit::Drop(Seq::new(5))],
            vec![
                Edit::Insert(Seq::new(6), C.into()),
                Edit::Insert(Seq::new(3), A.into()),
                Edit::Replace(Seq::new(3), C.into()),
                Edit::Insert(Seq::new(3), B.into()),
                Edit::Drop(Seq::new(4)),
                Edit::Insert(Seq::new(1), B.into()),
            ],
        ];
        for edits in cases {
            let edits = Edits::new(edits, 5, true).unwrap();
            let applied = edits.apply(&recorded);
            let over = edits.over(&recorded);
            assert_eq!(over.layout().origins(), applied.origins, "{edits:?}");
            assert_eq!(
                over.layout().arrivals(0..over.len(), &[10, 20, 30, 40, 50]),
                applied.arrivals(&[10, 20, 30, 40, 50]),
                "{edits:?}"
            );
            assert_eq!(
                over.layout().arrivals(2..4, &[10, 20, 30, 40, 50]),
                applied.arrivals(&[10, 20, 30, 40, 50])[2..4.min(applied.origins.len())]
            );
            let mut read = EventLog::default();
            over.for_each_raw(0..over.len(), &mut |_, raw| {
                read.push(raw);
            });
            assert_eq!(read, applied.events, "{edits:?}");
            // A range from the middle.
            let mut middle = Vec::new();
            over.for_each_raw(1..3, &mut |seq, raw| middle.push((seq, raw.to_vec())));
            let expected: Vec<_> = applied
                .events
                .iter()
                .skip(1)
                .take(2)
                .map(|(seq, raw)| (seq, raw.to_vec()))
                .collect();
            assert_eq!(middle, expected);
        }
    }

    #[test]
    fn steps_that_do_not_exist_and_double_edits_are_refused() {
        // Issue 41: bad usage, with the reason.
        let new = |edits: Vec<Edit>, run_input| Edits::new(edits, 3, run_input);
        let err = new(vec![Edit::Drop(Seq::new(4))], false).unwrap_err();
        assert!(matches!(err, EditError::NoSuchStep { .. }), "{err}");
        assert!(err.to_string().contains("step 4 does not exist"), "{err}");
        assert!(new(vec![Edit::Insert(Seq::new(4), A.into())], false).is_ok());
        assert!(new(vec![Edit::Insert(Seq::new(5), A.into())], false).is_err());
        assert_eq!(
            new(vec![Edit::Insert(Seq::START, A.into())], true),
            Err(EditError::BeforeRunInput)
        );
        assert_eq!(
            new(vec![Edit::Drop(Seq::START)], false),
            Err(EditError::NoRunInput)
        );
        let twice = new(
            vec![
                Edit::Drop(Seq::new(2)),
                Edit::Replace(Seq::new(2), A.into()),
            ],
            false,
        )
        .unwrap_err();
        assert!(matches!(twice, EditError::Twice { .. }), "{twice}");
        // An insert before a step does not edit it.
        assert!(
            new(
                vec![Edit::Drop(Seq::new(2)), Edit::Insert(Seq::new(2), A.into())],
                false
            )
            .is_ok()
        );
    }

    #[test]
    fn only_text_that_is_not_an_object_with_a_string_type_is_refused() {
        // Issue 41: a malformed known event is judged by the replay.
        let replace =
            |text: &str| Edits::new(vec![Edit::Replace(Seq::new(1), text.into())], 1, false);
        assert!(matches!(replace("{"), Err(EditError::NotJson { .. })));
        assert!(matches!(replace("[1]"), Err(EditError::NotAnEvent { .. })));
        assert!(matches!(replace("{}"), Err(EditError::NotAnEvent { .. })));
        assert!(matches!(
            replace(r#"{"type":1}"#),
            Err(EditError::NotAnEvent { .. })
        ));
        assert!(replace(r#"{"type":"TEXT_MESSAGE_CONTENT","delta":5}"#).is_ok());
        assert!(replace(r#"{"type":"NOT_A_TYPE"}"#).is_ok());
        assert!(replace(r#"{"type":"CUSTOM","value":"\ud83d"}"#).is_ok());
    }

    #[test]
    fn step_0_is_the_run_input() {
        // Issue 41: `--replace 0=…` takes a RunAgentInput (no `type`).
        let input = r#"{"threadId":"t","runId":"r","messages":[]}"#;
        let edits = Edits::new(vec![Edit::Replace(Seq::START, input.into())], 1, false).unwrap();
        let recorded = serde_json::json!({"threadId": "old"});
        assert_eq!(
            edits.run_input(Some(&recorded)),
            Some(serde_json::from_str(input).unwrap())
        );
        assert_eq!(edits.first_step(), Some(Seq::START));
        let dropped = Edits::new(vec![Edit::Drop(Seq::START)], 1, true).unwrap();
        assert_eq!(dropped.run_input(Some(&recorded)), None);
        assert_eq!(dropped.apply(&log(&[A])).events, log(&[A]));
        assert!(Edits::new(vec![Edit::Replace(Seq::START, "[]".into())], 1, false).is_err());
    }

    #[test]
    fn events_put_in_take_the_arrival_of_their_neighbour() {
        let edits = Edits::new(
            vec![
                Edit::Insert(Seq::new(1), A.into()),
                Edit::Insert(Seq::new(3), A.into()),
                Edit::Replace(Seq::new(2), B.into()),
            ],
            2,
            false,
        )
        .unwrap();
        let edited = edits.apply(&log(&[A, C]));
        assert_eq!(edited.arrivals(&[10, 20]), [10, 10, 20, 20]);
    }
}
