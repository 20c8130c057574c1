//! Blame (issue 17.2): for a value in a message (an activity's content or
//! metadata, any message's members) or in the shared state, at a step, the
//! step that last set it and the history of its changes: each step, the
//! event type, the operation of a delta that made it, and old → new.
//!
//! A value changes only at the events that can touch its target, so the
//! history is built by replaying those alone, read from the timeline's
//! index: for the state, the `STATE_*` events; for a message, the activity
//! events of its lane, `MESSAGES_SNAPSHOT`s, and the other events whose
//! bytes name its id (or one of its tool calls); for both, the run's
//! lifecycle events (`RUN_*`). The replay stops at the fatal error, after
//! which nothing applies (R43). That replay is checked against the
//! timeline: the target's whole JSON must equal the checkpoint's at every
//! checkpoint it passes, and the state's at the step asked. Any
//! disagreement (an event the filter missed: a chunk that continues a
//! stream without naming it, say) and the history is built again by the
//! exact replay of every event, which is what [`Blame::replayed`] tells.

use json_patch::PatchOperation;
use memchr::memmem::Finder;
use serde::Serialize;
use serde_json::Value;

use super::query::{Predicate, Query, QueryError, Target};
use crate::diagnostic::Seq;
use crate::input::RawEvents;
use crate::protocol::{EventBody, EventType, ParseOutcome, Patch, parse_event};
use crate::replay::Replayer;
use crate::timeline::{EventKind, Timeline};

/// One change of the value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The step whose event changed it (0: the run input).
    pub step: Seq,
    /// The event's type (`ACTIVITY_DELTA`), or `run input` at step 0.
    pub event: &'static str,
    /// For a delta, the 0-based index (in the patch as sent) of the
    /// operation that set it: the last one whose path or `from` is the
    /// pointer, inside it or around it, or else the last one on an array
    /// that holds it (an insertion or removal shifts its elements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<usize>,
    /// The value before (absent: the pointer did not resolve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The value after (absent: the pointer no longer resolves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

impl Change {
    /// `op 2 of ACTIVITY_DELTA`, or the event's type.
    pub fn cause(&self) -> String {
        match self.op {
            Some(op) => format!("op {op} of {}", self.event),
            None => self.event.to_owned(),
        }
    }
}

/// The history of one value up to a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Blame {
    /// The step asked about.
    pub at: Seq,
    /// The value there (absent: the pointer does not resolve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Every change up to `at`, in step order.
    pub changes: Vec<Change>,
    /// How many events were replayed to build it.
    pub events_replayed: usize,
    /// Whether the filtered replay disagreed with the timeline and every
    /// event was replayed instead.
    pub replayed: bool,
}

impl Blame {
    /// The change that last set the value (`None`: it never changed).
    pub fn last(&self) -> Option<&Change> {
        self.changes.last()
    }

    /// One line: `set at step 412 by op 2 of ACTIVITY_DELTA; 7 changes`.
    pub fn summary(&self) -> String {
        let count = match self.changes.len() {
            1 => "1 change".to_owned(),
            n => format!("{n} changes"),
        };
        match self.last() {
            None => "never set up to this step".to_owned(),
            Some(last) if last.new.is_none() => {
                format!("removed at step {} by {}; {count}", last.step, last.cause())
            }
            Some(last) => format!("set at step {} by {}; {count}", last.step, last.cause()),
        }
    }
}

/// The history of the value at `pointer` in `target` up to step `at`
/// (clamped to the last step) of `timeline`. An error only for a pointer
/// that is not one.
pub fn blame(
    timeline: &Timeline,
    target: &Target,
    pointer: &str,
    at: Seq,
) -> Result<Blame, QueryError> {
    let query = Query::new(target.clone(), pointer, Predicate::Exists)?;
    let at = at.min(timeline.last_step());
    // R43: nothing applies after the fatal error.
    let end = match timeline.head().fatal() {
        Some(fatal) if !timeline.options().best_effort => at.min(fatal.seq),
        _ => at,
    };
    let filter = Filter::new(timeline, target, at);
    if let Some(blame) = replay(timeline, &query, at, end, Some(&filter)) {
        return Ok(blame);
    }
    Ok(
        replay(timeline, &query, at, end, None).unwrap_or_else(|| Blame {
            at,
            value: None,
            changes: Vec::new(),
            events_replayed: 0,
            replayed: true,
        }),
    )
}

/// Which events can change the target.
struct Filter<'t> {
    timeline: &'t Timeline,
    /// The activity lane's steps, when the target is an activity.
    lane: Vec<Seq>,
    /// Byte strings naming the target (its id, its tool calls' ids, as
    /// JSON strings); empty for the state.
    names: Vec<Finder<'static>>,
    state: bool,
}

impl<'t> Filter<'t> {
    fn new(timeline: &'t Timeline, target: &Target, at: Seq) -> Self {
        let Target::Message(id) = target else {
            return Self {
                timeline,
                lane: Vec::new(),
                names: Vec::new(),
                state: true,
            };
        };
        let lane = timeline
            .index()
            .lane(id)
            .map(|lane| lane.events.iter().map(|e| e.seq()).collect())
            .unwrap_or_default();
        let mut ids = vec![id.clone()];
        // The tool calls the message holds at the step asked, and at the end.
        for replayer in [timeline.seek(at), timeline.head().checkpoint()] {
            if let Some(crate::replay::Message::Other(message)) = replayer.conversation().get(id) {
                ids.extend(message.tool_call_ids().map(str::to_owned));
            }
        }
        ids.sort();
        ids.dedup();
        let names = ids
            .iter()
            .filter_map(|id| serde_json::to_string(id).ok())
            .map(|quoted| Finder::new(quoted.as_bytes()).into_owned())
            .collect();
        Self {
            timeline,
            lane,
            names,
            state: false,
        }
    }

    fn includes(&self, seq: Seq, raw: &[u8]) -> bool {
        use EventType as T;
        let Some(EventKind::Known(kind)) = self.timeline.index().kind(seq) else {
            return false;
        };
        match kind {
            T::RunStarted | T::RunFinished | T::RunError => true,
            T::StateSnapshot | T::StateDelta => self.state,
            _ if self.state => false,
            T::MessagesSnapshot => true,
            T::ActivitySnapshot | T::ActivityDelta => self.lane.binary_search(&seq).is_ok(),
            _ => self.names.iter().any(|name| name.find(raw).is_some()),
        }
    }
}

/// Replays the events up to `end` (those `filter` includes, or all of
/// them), following the value; `None` when the filtered replay disagrees
/// with the timeline.
fn replay(
    timeline: &Timeline,
    query: &Query,
    at: Seq,
    end: Seq,
    filter: Option<&Filter<'_>>,
) -> Option<Blame> {
    let mut replayer = timeline.seek(Seq::START);
    let mut value = query.value(&replayer);
    let mut changes = Vec::new();
    if value.is_some() {
        changes.push(Change {
            step: Seq::START,
            event: "run input",
            op: None,
            old: None,
            new: value.clone(),
        });
    }
    let checkpoints = timeline.checkpoint_steps().collect::<Vec<_>>();
    let mut next_checkpoint = 1;
    let mut agrees = true;
    let mut replayed = 0;
    let upto = usize::try_from(end.get()).unwrap_or(usize::MAX);
    timeline.events().for_each_raw(0..upto, &mut |seq, raw| {
        if !agrees {
            return;
        }
        // Check the filtered replay at each checkpoint it passed.
        if filter.is_some() {
            while checkpoints
                .get(next_checkpoint)
                .is_some_and(|&c| c.get() < seq.get())
            {
                agrees &= target_at_checkpoint(timeline, next_checkpoint, &query.target)
                    == target_json(&replayer, &query.target);
                next_checkpoint += 1;
            }
            if !agrees || !filter.is_some_and(|f| f.includes(seq, raw)) {
                return;
            }
        }
        let parsed = parse_event(raw);
        let ops = delta_ops(&parsed);
        replayer.skip_to(Seq::new(seq.get() - 1));
        replayer.apply(parsed);
        replayed += 1;
        let now = query.value(&replayer);
        if now != value {
            let event = timeline.index().kind(seq).map_or("event", EventKind::name);
            let op = ops.and_then(|(base, ops)| op_for(base, &ops, &query.pointer));
            changes.push(Change {
                step: seq,
                event,
                op,
                old: value.take(),
                new: now.clone(),
            });
            value = now;
        }
    });
    if filter.is_some() {
        // Checkpoints up to the end, and the state at `at` itself.
        while agrees
            && checkpoints
                .get(next_checkpoint)
                .is_some_and(|&c| c.get() <= end.get())
        {
            agrees &= target_at_checkpoint(timeline, next_checkpoint, &query.target)
                == target_json(&replayer, &query.target);
            next_checkpoint += 1;
        }
        let expected = target_json(&timeline.seek(at), &query.target);
        if !agrees || expected != target_json(&replayer, &query.target) {
            return None;
        }
    }
    Some(Blame {
        at,
        value,
        changes,
        events_replayed: replayed,
        replayed: filter.is_none(),
    })
}

/// The whole target's JSON at the `i`th checkpoint of `timeline`, thawing
/// only the target (`None`: no such message or checkpoint).
fn target_at_checkpoint(timeline: &Timeline, i: usize, target: &Target) -> Option<Value> {
    match target {
        Target::State => timeline.state_at_checkpoint(i),
        Target::Message(id) => timeline.message_at_checkpoint(i, id),
    }
}

/// The whole target's JSON (`None`: no such message).
fn target_json(replayer: &Replayer, target: &Target) -> Option<Value> {
    match target {
        Target::State => Some(replayer.state().clone()),
        Target::Message(id) => replayer.conversation().get(id).map(|m| m.to_json()),
    }
}

/// A delta's operations as `(op, path, from)` with their index as sent,
/// and the prefix that takes their paths into the target's (`/content`
/// for an activity, nothing for the state).
type Ops = Vec<(usize, String, Option<String>)>;

fn delta_ops(parsed: &ParseOutcome) -> Option<(&'static str, Ops)> {
    let ParseOutcome::Event { event, .. } = parsed else {
        return None;
    };
    let (base, patch): (&'static str, &Patch) = match &event.body {
        EventBody::ActivityDelta { patch, .. } => ("/content", patch),
        EventBody::StateDelta { delta } => ("", delta),
        _ => return None,
    };
    let ops = patch
        .ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let from = match op {
                PatchOperation::Move(o) => Some(o.from.to_string()),
                PatchOperation::Copy(o) => Some(o.from.to_string()),
                _ => None,
            };
            (patch.original_index(i), op.path().to_string(), from)
        })
        .collect();
    Some((base, ops))
}

/// The operation that set the value at `pointer` (see [`Change::op`]).
fn op_for(base: &str, ops: &Ops, pointer: &str) -> Option<usize> {
    let target = tokens(pointer);
    let related = |path: &str| {
        let full = format!("{base}{path}");
        let path = tokens(&full);
        let n = path.len().min(target.len());
        path[..n]
            .iter()
            .zip(&target[..n])
            .all(|(a, b)| a == b || *a == "-")
    };
    // An insertion or removal in an array shifts the elements after it.
    let on_array = |path: &str| {
        let full = format!("{base}{path}");
        let path = tokens(&full);
        let Some((last, parent)) = path.split_last() else {
            return false;
        };
        let index = *last == "-" || last.bytes().all(|b| b.is_ascii_digit());
        index && parent.len() < target.len() && parent == &target[..parent.len()]
    };
    let last = |test: &dyn Fn(&str) -> bool| {
        ops.iter()
            .rev()
            .find(|(_, path, from)| test(path) || from.as_deref().is_some_and(test))
            .map(|(i, _, _)| *i)
    };
    last(&related).or_else(|| last(&on_array))
}

fn tokens(pointer: &str) -> Vec<&str> {
    pointer.split('/').skip(1).collect()
}
