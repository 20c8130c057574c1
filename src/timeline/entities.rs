//! The entities of a stream other than activities, for their lanes on the
//! timeline (issue 43): runs, subagents, steps, text and reasoning
//! messages and tool calls, each from its first event to its last, with
//! the steps of its events. Built in the replay's one pass over the stream
//! ([`super::StreamIndex::prepare`] and [`super::StreamIndex::record`]), so
//! a live recording's lanes grow with it.
//!
//! An event belongs to one entity at most. A lane keeps its first step and
//! the others as 4-byte offsets from it: a 1,000,000-event stream of text
//! deltas costs about 4 MB here.

use crate::diagnostic::Seq;
use crate::protocol::{EventBody, EventType, ParseOutcome};
use crate::replay::codec::{DecodeError, Decoded, Decoder, Encoder};

/// What kind of entity a lane follows, in the order their groups show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntityKind {
    /// A run: `RUN_STARTED` to `RUN_FINISHED` or `RUN_ERROR`, by `runId`.
    Run,
    /// A subagent: `SUBAGENT_STARTED` to `SUBAGENT_FINISHED`, by
    /// `subagentRunId`.
    Subagent,
    /// A step: `STEP_STARTED` to `STEP_FINISHED`, by `stepName`.
    Step,
    /// A text message: start, content and end, by `messageId`.
    Message,
    /// Reasoning: its start, messages and end, by `messageId`.
    Reasoning,
    /// A tool call: `TOOL_CALL_START` to `TOOL_CALL_RESULT`, by
    /// `toolCallId`.
    ToolCall,
}

impl EntityKind {
    /// Every kind, in the order their groups show.
    pub const ALL: [Self; 6] = [
        Self::Run,
        Self::Subagent,
        Self::Step,
        Self::Message,
        Self::Reasoning,
        Self::ToolCall,
    ];

    /// The name of its group.
    pub fn group_label(self) -> &'static str {
        match self {
            Self::Run => "Runs",
            Self::Subagent => "Subagents",
            Self::Step => "Agent steps",
            Self::Message => "Messages",
            Self::Reasoning => "Reasoning",
            Self::ToolCall => "Tool calls",
        }
    }

    /// What its id is, for a tooltip.
    pub fn id_name(self) -> &'static str {
        match self {
            Self::Run => "runId",
            Self::Subagent => "subagentRunId",
            Self::Step => "stepName",
            Self::Message | Self::Reasoning => "messageId",
            Self::ToolCall => "toolCallId",
        }
    }

    fn byte(self) -> u8 {
        self as u8
    }

    fn of_byte(byte: u8) -> Option<Self> {
        Self::ALL.get(usize::from(byte)).copied()
    }
}

/// One entity's events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityLane {
    /// What it is.
    pub kind: EntityKind,
    /// Its id: the `runId`, `subagentRunId`, `stepName`, `messageId` or
    /// `toolCallId`.
    pub id: String,
    /// What else names it, when something does: a tool call's tool, a
    /// subagent's name, a message's role, a run's parent run.
    pub name: String,
    /// Whether an event ended it (a run's finish or error, a message's
    /// end, a tool call's result…).
    pub ended: bool,
    /// Whether it failed: a run's `RUN_ERROR`.
    pub failed: bool,
    /// Which of its events ended it, and which failed it (their positions
    /// in `offsets`): an index cut before them keeps it open (issue 41).
    ended_by: Option<u32>,
    failed_by: Option<u32>,
    first: Seq,
    /// Each event's step less the first's.
    offsets: Vec<u32>,
}

impl EntityLane {
    fn new(kind: EntityKind, id: &str) -> Self {
        Self {
            kind,
            id: id.to_owned(),
            name: String::new(),
            ended: false,
            failed: false,
            ended_by: None,
            failed_by: None,
            first: Seq::START,
            offsets: Vec::new(),
        }
    }

    /// Ends it (and fails it, with `failed`) at the event about to be
    /// recorded, unless an earlier one did.
    fn end(&mut self, failed: bool) {
        let at = u32::try_from(self.offsets.len()).unwrap_or(u32::MAX);
        self.ended = true;
        self.ended_by.get_or_insert(at);
        if failed {
            self.failed = true;
            self.failed_by.get_or_insert(at);
        }
    }

    /// Its first events, those at or before `last`; `None` when none is.
    fn cut(&self, last: Seq) -> Option<Self> {
        let kept = self.offsets.partition_point(|&o| self.step_of(o) <= last);
        if kept == 0 {
            return None;
        }
        let before = |at: Option<u32>| at.filter(|&at| (at as usize) < kept);
        let (ended_by, failed_by) = (before(self.ended_by), before(self.failed_by));
        Some(Self {
            kind: self.kind,
            id: self.id.clone(),
            name: self.name.clone(),
            ended: ended_by.is_some(),
            failed: failed_by.is_some(),
            ended_by,
            failed_by,
            first: self.first,
            offsets: self.offsets[..kept].to_vec(),
        })
    }

    /// Its first event's step.
    pub fn first(&self) -> Seq {
        self.first
    }

    /// Its last event's step.
    pub fn last(&self) -> Seq {
        self.step_of(self.offsets.last().copied().unwrap_or(0))
    }

    /// How many events it has.
    pub fn num_events(&self) -> usize {
        self.offsets.len()
    }

    /// Its events' steps, less its first's, ascending (the first is 0):
    /// [`Self::step_of`] gives the step of one.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The step of an offset of [`Self::offsets`].
    pub fn step_of(&self, offset: u32) -> Seq {
        Seq::new(self.first.get().saturating_add(u64::from(offset)))
    }

    /// Its events' steps, ascending.
    pub fn steps(&self) -> impl Iterator<Item = Seq> + '_ {
        self.offsets.iter().map(|&o| self.step_of(o))
    }

    /// Whether one of its events is at `seq`.
    pub fn has_event_at(&self, seq: Seq) -> bool {
        seq.get()
            .checked_sub(self.first.get())
            .and_then(|o| u32::try_from(o).ok())
            .is_some_and(|o| self.offsets.binary_search(&o).is_ok())
    }

    fn push(&mut self, seq: Seq) {
        if self.offsets.is_empty() {
            self.first = seq;
        }
        // Past 4 billion steps from its first, an event shows at the
        // farthest step an offset holds.
        let offset = seq.get().saturating_sub(self.first.get());
        self.offsets.push(u32::try_from(offset).unwrap_or(u32::MAX));
    }
}

/// What an event does to an entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// It starts one (a new one when the last of that id has ended).
    Start,
    /// It belongs to one, started or not.
    Part,
    /// It ends one.
    End,
    /// It ends one, failing.
    Fail,
}

/// The entities of a stream, in order of their first event.
#[derive(Clone, Debug, Default)]
pub struct EntityLanes {
    lanes: Vec<EntityLane>,
    /// The latest lane of each id, per kind ([`EntityKind`] as an index):
    /// looked up by `&str`, without a copy of the id per event.
    by_id: [rustc_hash::FxHashMap<String, usize>; EntityKind::ALL.len()],
    /// The runs started and not ended, latest last (a `RUN_ERROR` names
    /// no run: it ends the latest).
    open_runs: Vec<usize>,
}

impl EntityLanes {
    /// The lanes, in order of their first event.
    pub fn lanes(&self) -> &[EntityLane] {
        &self.lanes
    }

    /// The lane of the entity whose event is at `seq`, if one is (a binary
    /// search per lane that spans it).
    pub fn lane_at(&self, seq: Seq) -> Option<usize> {
        self.lanes
            .iter()
            .position(|lane| lane.first <= seq && seq <= lane.last() && lane.has_event_at(seq))
    }

    /// The lane an event belongs to (made on first sight), before it is
    /// recorded at its step by [`Self::record`].
    pub(super) fn prepare(&mut self, parsed: &ParseOutcome) -> Option<usize> {
        let (kind, id, role, name) = entity_of(parsed)?;
        let existing = self.by_id[kind as usize].get(id).copied();
        let index = match existing {
            Some(index) if !(role == Role::Start && self.lanes[index].ended) => index,
            _ => {
                self.lanes.push(EntityLane::new(kind, id));
                let index = self.lanes.len() - 1;
                self.by_id[kind as usize].insert(id.to_owned(), index);
                if kind == EntityKind::Run {
                    self.open_runs.push(index);
                }
                index
            }
        };
        let lane = &mut self.lanes[index];
        if let Some(name) = name.filter(|n| !n.is_empty())
            && lane.name.is_empty()
        {
            lane.name = name.to_owned();
        }
        if matches!(role, Role::End | Role::Fail) {
            lane.end(role == Role::Fail);
            self.open_runs.retain(|&run| run != index);
        }
        Some(index)
    }

    /// The lane a `RUN_ERROR` ends: the latest run still open.
    fn prepare_run_error(&mut self) -> Option<usize> {
        let index = self.open_runs.pop()?;
        self.lanes[index].end(true);
        Some(index)
    }

    /// Records the event at `seq` in the lane [`Self::prepare`] gave.
    pub(super) fn record(&mut self, lane: usize, seq: Seq) {
        if let Some(lane) = self.lanes.get_mut(lane) {
            lane.push(seq);
        }
    }

    /// Prepares an event: [`Self::prepare`], and a `RUN_ERROR`'s run.
    pub(super) fn prepare_event(&mut self, parsed: &ParseOutcome) -> Option<usize> {
        match parsed.event_type() {
            Some(EventType::RunError) => self.prepare_run_error(),
            _ => self.prepare(parsed),
        }
    }

    /// The lanes of the first `num_events` events only (issue 41: an
    /// edited stream shares the recording's first steps): an entity whose
    /// events all come later goes, one ended later is open. A name an
    /// entity got from a later event stays.
    pub(super) fn truncated(&self, num_events: usize) -> Self {
        let last = Seq::new(num_events as u64);
        let mut kept = Self::default();
        for lane in self.lanes.iter().filter_map(|lane| lane.cut(last)) {
            let index = kept.lanes.len();
            kept.by_id[lane.kind as usize].insert(lane.id.clone(), index);
            if lane.kind == EntityKind::Run && !lane.ended {
                kept.open_runs.push(index);
            }
            kept.lanes.push(lane);
        }
        kept
    }

    /// Encodes the lanes.
    pub(super) fn encode(&self, e: &mut Encoder) {
        e.usize(self.lanes.len());
        for lane in &self.lanes {
            e.u8(lane.kind.byte());
            e.str(&lane.id);
            e.str(&lane.name);
            // The event that ended it and the one that failed it, each
            // its position plus one (0: none).
            e.u64(lane.ended_by.map_or(0, |at| u64::from(at) + 1));
            e.u64(lane.failed_by.map_or(0, |at| u64::from(at) + 1));
            e.u64(lane.first.get());
            e.usize(lane.offsets.len());
            let mut last = 0;
            for &offset in &lane.offsets {
                e.u64(u64::from(offset - last));
                last = offset;
            }
        }
    }

    /// Decodes what [`Self::encode`] wrote, checking that every step is at
    /// most `last_step`.
    pub(super) fn decode(d: &mut Decoder<'_>, last_step: u64) -> Decoded<Self> {
        let out_of_range = || DecodeError::Mismatch("a step in the index is past the stream's end");
        let mut lanes = Self::default();
        for _ in 0..d.count()? {
            let kind = EntityKind::of_byte(d.u8()?).ok_or(DecodeError::Unknown(
                "an entity kind in the index is unknown",
            ))?;
            let id = d.string()?;
            let name = d.string()?;
            let ended_by = d.u64()?;
            let failed_by = d.u64()?;
            let first = d.u64()?;
            let n = d.count()?;
            let mut offsets = Vec::with_capacity(n);
            let mut offset = 0u32;
            for _ in 0..n {
                let delta = u32::try_from(d.u64()?).map_err(|_| out_of_range())?;
                offset = offset.checked_add(delta).ok_or_else(out_of_range)?;
                offsets.push(offset);
            }
            if first > last_step || first.saturating_add(u64::from(offset)) > last_step {
                return Err(out_of_range());
            }
            let position = |at: u64| match at {
                0 => Ok(None),
                at if at <= n as u64 => Ok(Some((at - 1) as u32)),
                _ => Err(DecodeError::Malformed(
                    "an entity's end in the index is past its events",
                )),
            };
            let (ended_by, failed_by) = (position(ended_by)?, position(failed_by)?);
            let index = lanes.lanes.len();
            lanes.by_id[kind as usize].insert(id.clone(), index);
            lanes.lanes.push(EntityLane {
                kind,
                id,
                name,
                ended: ended_by.is_some(),
                failed: failed_by.is_some(),
                ended_by,
                failed_by,
                first: Seq::new(first),
                offsets,
            });
            if kind == EntityKind::Run && ended_by.is_none() {
                lanes.open_runs.push(index);
            }
        }
        Ok(lanes)
    }
}

/// The entity an event names: its kind, id, role and a name for it.
fn entity_of(parsed: &ParseOutcome) -> Option<(EntityKind, &str, Role, Option<&str>)> {
    use EntityKind as K;
    use EventBody as B;
    use Role as R;
    let event = match parsed {
        ParseOutcome::Event { event, .. } => event,
        // A malformed message event whose id could be read still shows
        // on its message's lane.
        ParseOutcome::Malformed {
            event_type,
            message_id: Some(id),
            ..
        } => {
            let kind = match event_type {
                EventType::TextMessageStart
                | EventType::TextMessageContent
                | EventType::TextMessageEnd
                | EventType::TextMessageChunk => K::Message,
                EventType::ReasoningStart
                | EventType::ReasoningMessageStart
                | EventType::ReasoningMessageContent
                | EventType::ReasoningMessageEnd
                | EventType::ReasoningMessageChunk
                | EventType::ReasoningEnd => K::Reasoning,
                _ => return None,
            };
            return Some((kind, id, R::Part, None));
        }
        _ => return None,
    };
    let subagent = event.envelope.subagent_run_id.as_deref();
    Some(match &event.body {
        B::RunStarted {
            run_id,
            parent_run_id,
            ..
        } => (K::Run, run_id, R::Start, parent_run_id.as_deref()),
        B::RunFinished { run_id, .. } => (K::Run, run_id, R::End, None),
        B::SubagentStarted { name, .. } => (K::Subagent, subagent?, R::Start, Some(name)),
        B::SubagentFinished { .. } => (K::Subagent, subagent?, R::End, None),
        B::StepStarted { step_name } => (K::Step, step_name, R::Start, None),
        B::StepFinished { step_name } => (K::Step, step_name, R::End, None),
        B::TextMessageStart { message_id, .. } => (K::Message, message_id, R::Start, None),
        B::TextMessageContent { message_id, .. } => (K::Message, message_id, R::Part, None),
        B::TextMessageEnd { message_id } => (K::Message, message_id, R::End, None),
        B::TextMessageChunk { message_id, .. } => (K::Message, message_id.as_ref()?, R::Part, None),
        B::ReasoningStart { message_id } | B::ReasoningMessageStart { message_id } => {
            (K::Reasoning, message_id, R::Start, None)
        }
        B::ReasoningMessageContent { message_id, .. } | B::ReasoningMessageEnd { message_id } => {
            (K::Reasoning, message_id, R::Part, None)
        }
        B::ReasoningMessageChunk { message_id, .. } => {
            (K::Reasoning, message_id.as_ref()?, R::Part, None)
        }
        B::ReasoningEnd { message_id } => (K::Reasoning, message_id, R::End, None),
        B::ToolCallStart {
            tool_call_id,
            tool_call_name,
            ..
        } => (K::ToolCall, tool_call_id, R::Start, Some(tool_call_name)),
        B::ToolCallArgs { tool_call_id, .. } | B::ToolCallEnd { tool_call_id } => {
            (K::ToolCall, tool_call_id, R::Part, None)
        }
        B::ToolCallChunk {
            tool_call_id,
            tool_call_name,
            ..
        } => (
            K::ToolCall,
            tool_call_id.as_deref()?,
            R::Part,
            tool_call_name.as_deref(),
        ),
        B::ToolCallResult { tool_call_id, .. } => (K::ToolCall, tool_call_id, R::End, None),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_event;

    /// The lanes of some events, one per line.
    fn lanes_of(lines: &[&str]) -> EntityLanes {
        let mut lanes = EntityLanes::default();
        for (i, line) in lines.iter().enumerate() {
            let parsed = parse_event(line.as_bytes());
            if let Some(lane) = lanes.prepare_event(&parsed) {
                lanes.record(lane, Seq::new(i as u64 + 1));
            }
        }
        lanes
    }

    fn steps(lane: &EntityLane) -> Vec<u64> {
        lane.steps().map(Seq::get).collect()
    }

    #[test]
    fn each_entity_spans_its_first_to_its_last_event() {
        // Issue 43: runs, steps, messages, reasoning and tool calls.
        let lanes = lanes_of(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#,
            r#"{"type":"STEP_STARTED","stepName":"plan"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
            r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"m2","toolCallId":"c1","content":"ok"}"#,
            r#"{"type":"REASONING_START","messageId":"th"}"#,
            r#"{"type":"REASONING_END","messageId":"th"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"plan"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}"#,
        ]);
        let all = lanes.lanes();
        let summary: Vec<_> = all
            .iter()
            .map(|l| (l.kind, l.id.as_str(), l.name.as_str(), steps(l), l.ended))
            .collect();
        assert_eq!(
            summary,
            vec![
                (EntityKind::Run, "r1", "", vec![1, 14], true),
                (EntityKind::Step, "plan", "", vec![2, 13], true),
                (EntityKind::Message, "m1", "", vec![3, 4, 7], true),
                (
                    EntityKind::ToolCall,
                    "c1",
                    "search",
                    vec![5, 6, 8, 10],
                    true
                ),
                (EntityKind::Reasoning, "th", "", vec![11, 12], true),
            ]
        );
        let call = &all[3];
        assert_eq!((call.first(), call.last()), (Seq::new(5), Seq::new(10)));
        assert!(call.has_event_at(Seq::new(8)) && !call.has_event_at(Seq::new(9)));
        assert_eq!(lanes.lane_at(Seq::new(6)), Some(3));
        assert_eq!(lanes.lane_at(Seq::new(9)), None);
    }

    #[test]
    fn a_run_error_fails_the_open_run_and_a_name_used_again_is_a_new_lane() {
        let lanes = lanes_of(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#,
            r#"{"type":"STEP_STARTED","stepName":"plan"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"plan"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r2","parentRunId":"r1"}"#,
            r#"{"type":"RUN_ERROR","message":"boom"}"#,
            r#"{"type":"STEP_STARTED","stepName":"plan"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}"#,
        ]);
        let all = lanes.lanes();
        assert_eq!(all.len(), 4);
        let r2 = &all[2];
        assert_eq!((r2.id.as_str(), r2.name.as_str()), ("r2", "r1"));
        assert!(r2.ended && r2.failed);
        assert_eq!(steps(r2), vec![4, 5]);
        assert!(!all[0].failed && all[0].ended);
        // The second "plan" has a lane of its own, not ended.
        assert_eq!(steps(&all[1]), vec![2, 3]);
        assert_eq!((all[3].id.as_str(), all[3].ended), ("plan", false));
        assert_eq!(steps(&all[3]), vec![6]);
    }

    #[test]
    fn lanes_cut_before_an_end_are_open_and_those_after_it_gone() {
        // Issue 41: an edited stream shares the recording's first steps.
        let lines = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"RUN_ERROR","message":"boom"}"#,
        ];
        let whole = lanes_of(&lines);
        for cut in 0..=lines.len() {
            let truncated = whole.truncated(cut);
            let mut reference = lanes_of(&lines[..cut]);
            // The same lanes, ends and failures, and they go on the same.
            assert_eq!(truncated.lanes(), reference.lanes(), "cut at {cut}");
            let mut truncated = truncated;
            for (i, line) in lines[cut..].iter().enumerate() {
                let step = Seq::new((cut + i) as u64 + 1);
                for lanes in [&mut truncated, &mut reference] {
                    if let Some(lane) = lanes.prepare_event(&parse_event(line.as_bytes())) {
                        lanes.record(lane, step);
                    }
                }
            }
            assert_eq!(truncated.lanes(), whole.lanes(), "cut at {cut}, then on");
        }
        // The run the error failed at step 5 is open at step 4.
        let (cut, run) = (whole.truncated(4), &whole.lanes()[0]);
        assert!(run.ended && run.failed);
        assert!(!cut.lanes()[0].ended && !cut.lanes()[0].failed);
    }

    #[test]
    fn lanes_round_trip_through_their_encoding() {
        let lanes = lanes_of(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}"#,
            r#"{"type":"RUN_ERROR","message":"boom"}"#,
        ]);
        let mut e = Encoder::default();
        lanes.encode(&mut e);
        let bytes = e.buf;
        let decoded = EntityLanes::decode(&mut Decoder::new(&bytes), 3).expect("decodes");
        assert_eq!(decoded.lanes(), lanes.lanes());
        assert!(EntityLanes::decode(&mut Decoder::new(&bytes), 2).is_err());
    }
}
