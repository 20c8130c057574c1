//! How a stream spent its time (issue 17, point 3): the runs, steps,
//! messages, reasoning, tool calls and activities as spans on the recorded
//! time axis (a waterfall), figures per run (time to the first event, to
//! the first text content, to the first activity, the longest gap, tool-call
//! durations, events per second), and the gaps longer than a threshold as
//! `stream.stall` diagnostics (T1).
//!
//! Times are the events' arrival times where the recording has them, else
//! those [`crate::input::Arrivals`] derives from their `timestamp`s. A time
//! the stream does not give (an event without `timestamp`, spaced 100 ms
//! apart or given the time of the event before; a recording whose events
//! all share one time) is *invented*: it is marked as such wherever it
//! shows, and a gap that touches an invented time is never a stall (T1).
//! This is why the conformance vectors and the corpus, whose events carry
//! no `timestamp`, report no stall: their times are all invented.
//!
//! No egui here: the app's Timing view and `agui-replay timing` read the
//! same [`TimingReport`].

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Code, Diagnostic, Seq};
use crate::input::{Arrivals, EventKeys, RawEvents};
use crate::open::Source;

/// The default stall threshold: a gap of more than 2 s between two events.
pub const DEFAULT_STALL_AFTER_NANOS: u64 = 2_000_000_000;

/// Where a stream's times come from, as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimesKind {
    /// Recorded as the events arrived (time 0 is when the request was sent).
    Recorded,
    /// From the events' `timestamp`s (time 0 is the first one).
    Timestamps,
    /// Invented: no event has a time of its own.
    Invented,
    /// Some events have a time of their own, the others invented.
    PartlyInvented,
}

impl TimesKind {
    /// Plain words, for text output and the view.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Recorded => "recorded arrival times (t = 0 is the request)",
            Self::Timestamps => "the events' timestamps (t = 0 is the first event)",
            Self::Invented => "invented times: the stream has none, events are spaced 100 ms apart",
            Self::PartlyInvented => {
                "partly invented times: events without a timestamp have invented ones"
            }
        }
    }
}

/// Which events' times are invented.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Invented {
    None,
    All,
    /// One flag per event (index 0 is seq 1).
    Some(Vec<bool>),
}

/// Each event's time on the stream's axis, and whether it is the stream's
/// own or invented.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    nanos: Vec<u64>,
    invented: Invented,
    recorded: bool,
}

impl Clock {
    /// Recorded arrival times (`nanos[0]` is seq 1's). `imported`: the
    /// session was imported from a file, so its times are those derived
    /// from the events' `timestamp`s, invented for events without one. A
    /// recording whose events all arrived at one time has none of its own.
    pub fn from_arrivals(mut nanos: Vec<u64>, events: &dyn RawEvents, imported: bool) -> Self {
        let last = nanos.last().copied().unwrap_or(0);
        nanos.resize(events.len(), last);
        if imported {
            let flags = untimed_flags(events);
            let invented = Invented::of_flags(flags);
            return Self {
                nanos,
                invented,
                recorded: false,
            };
        }
        let invented = match nanos.as_slice() {
            [first, .., last] if first == last => Invented::All,
            _ => Invented::None,
        };
        Self {
            nanos,
            invented,
            recorded: true,
        }
    }

    /// Times derived from the events' `timestamp`s, as an import derives
    /// them ([`Arrivals`]): a plain stream file.
    pub fn from_timestamps(events: &dyn RawEvents) -> Self {
        let mut arrivals = Arrivals::default();
        let mut nanos = Vec::with_capacity(events.len());
        let mut flags = Vec::with_capacity(events.len());
        // Issue 40: an event whose text holds neither the member's name
        // nor an escape (which could spell it) has no timestamp; most
        // generated and recorded streams have none, and reading every
        // event again cost `check` a tenth of a replay.
        let name = memchr::memmem::Finder::new("timestamp");
        events.for_each_raw(0..events.len(), &mut |_, raw| {
            let may_hold = memchr::memchr(b'\\', raw).is_some() || name.find(raw).is_some();
            let timestamp = if may_hold {
                EventKeys::of(raw).timestamp
            } else {
                None
            };
            flags.push(timestamp.is_none());
            nanos.push(arrivals.next(timestamp));
        });
        Self {
            nanos,
            invented: Invented::of_flags(flags),
            recorded: false,
        }
    }

    /// The clock of an opened source: its recorded arrival times (an
    /// imported session's are derived), else its events' timestamps.
    pub fn of_source(source: &Source) -> Self {
        match &source.arrival_nanos {
            Some(nanos) => {
                let imported = source
                    .session
                    .as_ref()
                    .is_some_and(|s| s.source.starts_with("import"));
                Self::from_arrivals(nanos.clone(), &source.events, imported)
            }
            None => Self::from_timestamps(&source.events),
        }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.nanos.len()
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.nanos.is_empty()
    }

    /// The time of the event at 0-based `index` (0 past the end).
    pub fn nanos(&self, index: usize) -> u64 {
        self.nanos.get(index).copied().unwrap_or(0)
    }

    /// Whether the time of the event at `index` is invented.
    pub fn is_invented(&self, index: usize) -> bool {
        match &self.invented {
            Invented::None => false,
            Invented::All => true,
            Invented::Some(flags) => flags.get(index).copied().unwrap_or(true),
        }
    }

    /// How many events have an invented time.
    pub fn num_invented(&self) -> usize {
        match &self.invented {
            Invented::None => 0,
            Invented::All => self.nanos.len(),
            Invented::Some(flags) => flags.iter().filter(|&&f| f).count(),
        }
    }

    /// Where the times come from, as a whole.
    pub fn kind(&self) -> TimesKind {
        match (&self.invented, self.recorded) {
            (Invented::None, true) => TimesKind::Recorded,
            (Invented::None, false) => TimesKind::Timestamps,
            (Invented::All, _) => TimesKind::Invented,
            (Invented::Some(_), _) => TimesKind::PartlyInvented,
        }
    }

    /// Whether time 0 is when the request was sent (a recording made live)
    /// rather than the first event.
    pub fn starts_at_request(&self) -> bool {
        self.recorded
    }

    /// The gaps between consecutive events of more than
    /// `stall_after_nanos` whose two ends are the stream's own times (T1).
    pub fn stalls(&self, stall_after_nanos: u64) -> Vec<Stall> {
        (1..self.nanos.len())
            .filter_map(|index| {
                let gap = self.nanos[index].saturating_sub(self.nanos[index - 1]);
                let own = !self.is_invented(index) && !self.is_invented(index - 1);
                (own && gap > stall_after_nanos).then(|| Stall {
                    seq: Seq::from_index(index),
                    after_seq: Seq::from_index(index - 1),
                    gap_nanos: gap,
                })
            })
            .collect()
    }
}

impl Invented {
    fn of_flags(flags: Vec<bool>) -> Self {
        match flags.iter().filter(|&&f| f).count() {
            0 => Self::None,
            n if n == flags.len() => Self::All,
            _ => Self::Some(flags),
        }
    }
}

/// One flag per event: it has no `timestamp`.
fn untimed_flags(events: &dyn RawEvents) -> Vec<bool> {
    let mut flags = Vec::with_capacity(events.len());
    events.for_each_raw(0..events.len(), &mut |_, raw| {
        flags.push(EventKeys::of(raw).timestamp.is_none());
    });
    flags
}

/// A gap between two events longer than the threshold (T1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stall {
    /// The event that ended the wait.
    pub seq: Seq,
    /// The event before it.
    pub after_seq: Seq,
    /// How long nothing came.
    pub gap_nanos: u64,
}

impl Stall {
    /// The `stream.stall` diagnostic (T1), on the event that ended the wait.
    pub fn diagnostic(&self, stall_after_nanos: u64) -> Diagnostic {
        Diagnostic::new(
            self.seq,
            Code::StreamStall,
            format!(
                "no event for {} after seq {} (more than {}): the stream stalled",
                format_nanos(self.gap_nanos),
                self.after_seq,
                format_nanos(stall_after_nanos)
            ),
        )
    }
}

/// `diagnostics` (in seq order) with the `stream.stall` diagnostics merged
/// in: each after the diagnostics of its own event.
pub fn merge_stalls(
    diagnostics: Vec<Diagnostic>,
    stalls: &[Stall],
    stall_after_nanos: u64,
) -> Vec<Diagnostic> {
    let mut merged = Vec::with_capacity(diagnostics.len() + stalls.len());
    let mut stalls = stalls.iter().peekable();
    for diagnostic in diagnostics {
        while let Some(stall) = stalls.next_if(|s| s.seq < diagnostic.seq) {
            merged.push(stall.diagnostic(stall_after_nanos));
        }
        merged.push(diagnostic);
    }
    merged.extend(stalls.map(|s| s.diagnostic(stall_after_nanos)));
    merged
}

/// What a span of the waterfall is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpanKind {
    /// `RUN_STARTED` to `RUN_FINISHED` or `RUN_ERROR` (or events outside a run).
    Run,
    /// `STEP_STARTED` to `STEP_FINISHED`.
    Step,
    /// A text message, start to end (or its chunks).
    Message,
    /// A reasoning phase or message (`REASONING_*`, `THINKING_*`).
    Reasoning,
    /// `TOOL_CALL_START` to `TOOL_CALL_END` (or its chunks).
    ToolCall,
    /// An activity's snapshots and deltas, first to last.
    Activity,
}

impl SpanKind {
    /// Every kind, in the waterfall's order.
    pub const ALL: [Self; 6] = [
        Self::Run,
        Self::Step,
        Self::Message,
        Self::Reasoning,
        Self::ToolCall,
        Self::Activity,
    ];

    /// The lowercase name shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::Step => "step",
            Self::Message => "message",
            Self::Reasoning => "reasoning",
            Self::ToolCall => "tool call",
            Self::Activity => "activity",
        }
    }
}

/// One bar of the waterfall.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// What it is.
    pub kind: SpanKind,
    /// Its id (`runId`, `stepName`, `messageId`, `toolCallId`), if any.
    pub id: Option<String>,
    /// The tool's name, for tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The run it started in (1-based, as [`RunFigures::run`]).
    pub run: usize,
    /// Its first event.
    pub first_seq: Seq,
    /// Its last event.
    pub last_seq: Seq,
    /// The time of its first event.
    pub start_nanos: u64,
    /// The time of its last event.
    pub end_nanos: u64,
    /// How many events it has.
    pub num_events: u64,
    /// Whether an end event closed it (`RUN_FINISHED`, `TEXT_MESSAGE_END`…).
    pub closed: bool,
    /// Whether its start or end time is invented.
    pub invented: bool,
}

impl Span {
    /// How long it lasted.
    pub fn duration_nanos(&self) -> u64 {
        self.end_nanos.saturating_sub(self.start_nanos)
    }
}

/// The longest gap between two events of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    /// The event before the gap.
    pub after_seq: Seq,
    /// The event after it.
    pub seq: Seq,
    /// How long.
    pub nanos: u64,
    /// Whether either end's time is invented.
    pub invented: bool,
}

/// A tool call's figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallFigures {
    /// `toolCallId`.
    pub tool_call_id: Option<String>,
    /// `toolCallName`.
    pub name: Option<String>,
    /// Its first event.
    pub first_seq: Seq,
    /// Its last event (`TOOL_CALL_END`, or its last chunk).
    pub last_seq: Seq,
    /// From its first event to its last: how long its arguments streamed.
    pub duration_nanos: u64,
    /// From its first event to its `TOOL_CALL_RESULT`, if the stream has one.
    pub to_result_nanos: Option<u64>,
    /// Whether one of these times is invented.
    pub invented: bool,
}

/// The figures of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFigures {
    /// The run's number in the stream, from 1.
    pub run: usize,
    /// `RUN_STARTED.runId` (`None` for events outside a run).
    pub run_id: Option<String>,
    /// Its first event.
    pub first_seq: Seq,
    /// Its last event.
    pub last_seq: Seq,
    /// How many events.
    pub num_events: u64,
    /// The time of its first event.
    pub start_nanos: u64,
    /// From its first event to its last.
    pub duration_nanos: u64,
    /// From the run's origin (time 0 for the first run, the end of the run
    /// before for the others) to its first event.
    pub to_first_event_nanos: u64,
    /// From the origin to the first text content (`TEXT_MESSAGE_CONTENT`
    /// or `TEXT_MESSAGE_CHUNK`), and its seq.
    pub to_first_text: Option<Mark>,
    /// From the origin to the first activity event, and its seq.
    pub to_first_activity: Option<Mark>,
    /// The longest gap between two of its events.
    pub longest_gap: Option<Gap>,
    /// Its tool calls, in order.
    pub tool_calls: Vec<ToolCallFigures>,
    /// Events per second over its duration (`None` if it took no time),
    /// to two decimals.
    pub events_per_second: Option<f64>,
    /// How many of its events have an invented time.
    pub num_invented_times: u64,
}

/// A time to an event, from a run's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mark {
    /// The event.
    pub seq: Seq,
    /// The time from the origin to it.
    pub nanos: u64,
    /// Whether its time (or the origin's) is invented.
    pub invented: bool,
}

/// Everything `agui-replay timing` prints and the Timing view draws.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimingReport {
    /// The number of events.
    pub events: usize,
    /// Where the times come from.
    pub times: TimesKind,
    /// Whether time 0 is when the request was sent (else the first event).
    pub starts_at_request: bool,
    /// How many events have an invented time.
    pub num_invented_times: usize,
    /// The time of the last event.
    pub duration_nanos: u64,
    /// The stall threshold used.
    pub stall_after_nanos: u64,
    /// Per run.
    pub runs: Vec<RunFigures>,
    /// The gaps over the threshold between two times of the stream's own.
    pub stalls: Vec<Stall>,
    /// The waterfall's bars, in the order they start.
    pub spans: Vec<Span>,
}

impl TimingReport {
    /// The report of `events` on `clock`'s times.
    pub fn of(events: &dyn RawEvents, clock: &Clock, stall_after_nanos: u64) -> Self {
        let mut builder = Builder::new(clock);
        events.for_each_raw(0..events.len().min(clock.len()), &mut |seq, raw| {
            builder.event(seq, raw);
        });
        let (runs, spans) = builder.finish();
        Self {
            events: clock.len(),
            times: clock.kind(),
            starts_at_request: clock.starts_at_request(),
            num_invented_times: clock.num_invented(),
            duration_nanos: clock.nanos(clock.len().saturating_sub(1)),
            stall_after_nanos,
            runs,
            stalls: clock.stalls(stall_after_nanos),
            spans,
        }
    }

    /// The `stream.stall` diagnostics (T1), in seq order.
    pub fn stall_diagnostics(&self) -> Vec<Diagnostic> {
        self.stalls
            .iter()
            .map(|s| s.diagnostic(self.stall_after_nanos))
            .collect()
    }
}

/// The members of an event a span needs (a member of another type than
/// expected leaves them all unread: such an event is malformed anyway).
#[derive(Default, Deserialize)]
struct SpanKeys<'a> {
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallName", borrow, default)]
    tool_call_name: Option<Cow<'a, str>>,
    #[serde(rename = "stepName", borrow, default)]
    step_name: Option<Cow<'a, str>>,
}

/// Builds the spans and the runs' figures in one pass over the events.
struct Builder<'c> {
    clock: &'c Clock,
    spans: Vec<Span>,
    /// Open spans by kind and id.
    open: HashMap<(SpanKind, Option<String>), usize>,
    /// The last span of each tool call id (a result may come after its end).
    tool_by_id: HashMap<String, usize>,
    /// Tool-call results: span index → the result's seq.
    results: HashMap<usize, Seq>,
    /// The current run's span.
    run: Option<usize>,
    runs: Vec<RunState>,
    last_text_chunk: Option<String>,
    last_tool_chunk: Option<String>,
}

/// A run's figures as they are found.
struct RunState {
    span: usize,
    origin_nanos: u64,
    origin_invented: bool,
    first_text: Option<Seq>,
    first_activity: Option<Seq>,
    longest_gap: Option<Gap>,
    num_invented: u64,
}

impl<'c> Builder<'c> {
    fn new(clock: &'c Clock) -> Self {
        Self {
            clock,
            spans: Vec::new(),
            open: HashMap::new(),
            tool_by_id: HashMap::new(),
            results: HashMap::new(),
            run: None,
            runs: Vec::new(),
            last_text_chunk: None,
            last_tool_chunk: None,
        }
    }

    fn event(&mut self, seq: Seq, raw: &[u8]) {
        let keys = EventKeys::of(raw);
        let event_type = keys.event_type.as_deref().unwrap_or("");
        let ids: SpanKeys<'_> = serde_json::from_slice(raw).unwrap_or_default();
        let message_id = keys.message_id.as_deref().map(str::to_owned);
        if event_type == "RUN_STARTED" || self.run.is_none() {
            self.start_run(seq, keys.run_id.as_deref());
        } else {
            self.extend_run(seq);
        }
        let run_state = self.runs.len().saturating_sub(1);
        match event_type {
            "RUN_FINISHED" | "RUN_ERROR" => {
                if let Some(run) = self.run.take() {
                    self.spans[run].closed = true;
                }
                // What a run leaves open ends with it; activities live on.
                self.open.retain(|(kind, _), _| *kind == SpanKind::Activity);
                self.last_text_chunk = None;
                self.last_tool_chunk = None;
            }
            "STEP_STARTED" => {
                self.start(SpanKind::Step, ids.step_name.map(Cow::into_owned), seq);
            }
            "STEP_FINISHED" => self.end(SpanKind::Step, ids.step_name.map(Cow::into_owned), seq),
            "TEXT_MESSAGE_START" => {
                self.start(SpanKind::Message, message_id, seq);
            }
            "TEXT_MESSAGE_CONTENT" => {
                self.first_text(run_state, seq);
                self.touch(SpanKind::Message, message_id, seq);
            }
            "TEXT_MESSAGE_END" => self.end(SpanKind::Message, message_id, seq),
            "TEXT_MESSAGE_CHUNK" => {
                self.first_text(run_state, seq);
                let id = message_id.or_else(|| self.last_text_chunk.clone());
                self.last_text_chunk.clone_from(&id);
                self.touch(SpanKind::Message, id, seq);
            }
            "TOOL_CALL_START" => {
                let id = ids.tool_call_id.map(Cow::into_owned);
                let span = self.start(SpanKind::ToolCall, id.clone(), seq);
                self.spans[span].name = ids.tool_call_name.map(Cow::into_owned);
                if let Some(id) = id {
                    self.tool_by_id.insert(id, span);
                }
            }
            "TOOL_CALL_ARGS" => {
                self.touch(
                    SpanKind::ToolCall,
                    ids.tool_call_id.map(Cow::into_owned),
                    seq,
                );
            }
            "TOOL_CALL_END" => self.end(
                SpanKind::ToolCall,
                ids.tool_call_id.map(Cow::into_owned),
                seq,
            ),
            "TOOL_CALL_CHUNK" => {
                let id = ids
                    .tool_call_id
                    .map(Cow::into_owned)
                    .or_else(|| self.last_tool_chunk.clone());
                self.last_tool_chunk.clone_from(&id);
                let span = self.touch(SpanKind::ToolCall, id.clone(), seq);
                if self.spans[span].name.is_none() {
                    self.spans[span].name = ids.tool_call_name.map(Cow::into_owned);
                }
                if let Some(id) = id {
                    self.tool_by_id.insert(id, span);
                }
            }
            "TOOL_CALL_RESULT" => {
                if let Some(span) = ids
                    .tool_call_id
                    .as_deref()
                    .and_then(|id| self.tool_by_id.get(id))
                {
                    self.results.entry(*span).or_insert(seq);
                }
            }
            "REASONING_START" | "THINKING_START" => {
                self.start(SpanKind::Reasoning, message_id, seq);
            }
            "REASONING_END" | "THINKING_END" => self.end(SpanKind::Reasoning, message_id, seq),
            t if t.starts_with("REASONING_") || t.starts_with("THINKING_") => {
                self.touch(SpanKind::Reasoning, message_id, seq);
            }
            "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA" => {
                if let Some(state) = self.runs.get_mut(run_state) {
                    state.first_activity.get_or_insert(seq);
                }
                // An activity lives across runs: one span, first to last.
                let key = (SpanKind::Activity, message_id.clone());
                match self.open.get(&key).copied() {
                    Some(span) => self.extend(span, seq),
                    None => {
                        let span = self.push(SpanKind::Activity, message_id, seq);
                        self.open.insert(key, span);
                    }
                }
            }
            _ => {}
        }
    }

    fn first_text(&mut self, run_state: usize, seq: Seq) {
        if let Some(state) = self.runs.get_mut(run_state) {
            state.first_text.get_or_insert(seq);
        }
    }

    fn start_run(&mut self, seq: Seq, run_id: Option<&str>) {
        let index = seq.index().unwrap_or(0);
        let (origin_nanos, origin_invented) = match self.runs.last() {
            Some(previous) => {
                let last = self.spans[previous.span].last_seq.index().unwrap_or(0);
                (self.clock.nanos(last), self.clock.is_invented(last))
            }
            None => (0, self.clock.is_invented(0)),
        };
        let span = self.push(SpanKind::Run, run_id.map(str::to_owned), seq);
        self.spans[span].run = self.runs.len() + 1;
        self.run = Some(span);
        self.runs.push(RunState {
            span,
            origin_nanos,
            origin_invented,
            first_text: None,
            first_activity: None,
            longest_gap: None,
            num_invented: u64::from(self.clock.is_invented(index)),
        });
    }

    fn extend_run(&mut self, seq: Seq) {
        let Some(run) = self.run else { return };
        let index = seq.index().unwrap_or(0);
        let previous = self.spans[run].last_seq.index().unwrap_or(0);
        let gap = Gap {
            after_seq: self.spans[run].last_seq,
            seq,
            nanos: self
                .clock
                .nanos(index)
                .saturating_sub(self.clock.nanos(previous)),
            invented: self.clock.is_invented(index) || self.clock.is_invented(previous),
        };
        self.extend(run, seq);
        if let Some(state) = self.runs.last_mut() {
            state.num_invented += u64::from(self.clock.is_invented(index));
            if state.longest_gap.is_none_or(|g| gap.nanos > g.nanos) {
                state.longest_gap = Some(gap);
            }
        }
    }

    fn push(&mut self, kind: SpanKind, id: Option<String>, seq: Seq) -> usize {
        let index = seq.index().unwrap_or(0);
        self.spans.push(Span {
            kind,
            id,
            name: None,
            run: self.runs.len().max(1),
            first_seq: seq,
            last_seq: seq,
            start_nanos: self.clock.nanos(index),
            end_nanos: self.clock.nanos(index),
            num_events: 1,
            closed: false,
            invented: self.clock.is_invented(index),
        });
        self.spans.len() - 1
    }

    fn extend(&mut self, span: usize, seq: Seq) {
        let index = seq.index().unwrap_or(0);
        let span = &mut self.spans[span];
        span.last_seq = seq;
        span.end_nanos = self.clock.nanos(index);
        span.num_events += 1;
        span.invented |= self.clock.is_invented(index);
    }

    /// A start event: a new span (one still open under the same id is
    /// left as it is; the replay reports the start twice).
    fn start(&mut self, kind: SpanKind, id: Option<String>, seq: Seq) -> usize {
        let span = self.push(kind, id.clone(), seq);
        self.open.insert((kind, id), span);
        span
    }

    /// An event inside a span: extends the open one, or opens one.
    fn touch(&mut self, kind: SpanKind, id: Option<String>, seq: Seq) -> usize {
        match self.open.get(&(kind, id.clone())).copied() {
            Some(span) => {
                self.extend(span, seq);
                span
            }
            None => self.start(kind, id, seq),
        }
    }

    fn end(&mut self, kind: SpanKind, id: Option<String>, seq: Seq) {
        let span = self.touch(kind, id.clone(), seq);
        self.spans[span].closed = true;
        self.open.remove(&(kind, id));
    }

    fn finish(self) -> (Vec<RunFigures>, Vec<Span>) {
        let clock = self.clock;
        let mark = |state: &RunState, seq: Option<Seq>| {
            seq.map(|seq| {
                let index = seq.index().unwrap_or(0);
                Mark {
                    seq,
                    nanos: clock.nanos(index).saturating_sub(state.origin_nanos),
                    invented: clock.is_invented(index) || state.origin_invented,
                }
            })
        };
        let runs = self
            .runs
            .iter()
            .enumerate()
            .map(|(number, state)| {
                let run = &self.spans[state.span];
                let tool_calls = self
                    .spans
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.kind == SpanKind::ToolCall && s.run == number + 1)
                    .map(|(index, s)| {
                        let result = self.results.get(&index).map(|seq| {
                            let at = seq.index().unwrap_or(0);
                            (
                                clock.nanos(at).saturating_sub(s.start_nanos),
                                clock.is_invented(at),
                            )
                        });
                        ToolCallFigures {
                            tool_call_id: s.id.clone(),
                            name: s.name.clone(),
                            first_seq: s.first_seq,
                            last_seq: s.last_seq,
                            duration_nanos: s.duration_nanos(),
                            to_result_nanos: result.map(|(nanos, _)| nanos),
                            invented: s.invented || result.is_some_and(|(_, i)| i),
                        }
                    })
                    .collect();
                let duration_nanos = run.duration_nanos();
                let events_per_second = (duration_nanos > 0).then(|| {
                    let per_second = run.num_events as f64 / (duration_nanos as f64 / 1e9);
                    (per_second * 100.0).round() / 100.0
                });
                RunFigures {
                    run: number + 1,
                    run_id: run.id.clone(),
                    first_seq: run.first_seq,
                    last_seq: run.last_seq,
                    num_events: run.num_events,
                    start_nanos: run.start_nanos,
                    duration_nanos,
                    to_first_event_nanos: run.start_nanos.saturating_sub(state.origin_nanos),
                    to_first_text: mark(state, state.first_text),
                    to_first_activity: mark(state, state.first_activity),
                    longest_gap: state.longest_gap,
                    tool_calls,
                    events_per_second,
                    num_invented_times: state.num_invented,
                }
            })
            .collect();
        (runs, self.spans)
    }
}

/// A duration as people read it: `850 ms`, `3.2 s`, `2 s`.
pub fn format_nanos(nanos: u64) -> String {
    let millis = nanos as f64 / 1e6;
    if nanos < 1_000_000_000 {
        let shown = format!("{millis:.1}");
        format!("{} ms", shown.trim_end_matches(".0"))
    } else {
        let shown = format!("{:.3}", millis / 1e3);
        format!("{} s", shown.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// Parses a duration: `2s`, `1.5s`, `500ms`, `2m`, or a number of seconds.
pub fn parse_duration_nanos(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1e9)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60e9)
    } else {
        (text, 1e9)
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (say 2s, 1.5s or 500ms)"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("{text:?} is not a duration of zero or more"));
    }
    Ok((value * scale).round().min(u64::MAX as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::EventLog;

    fn log(lines: &[&str]) -> EventLog {
        let mut log = EventLog::default();
        for line in lines {
            log.push(line.as_bytes());
        }
        log
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(parse_duration_nanos("2s"), Ok(2_000_000_000));
        assert_eq!(parse_duration_nanos("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration_nanos("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration_nanos("3"), Ok(3_000_000_000));
        assert_eq!(parse_duration_nanos("1m"), Ok(60_000_000_000));
        assert!(parse_duration_nanos("soon").is_err());
        assert!(parse_duration_nanos("-1s").is_err());
        assert_eq!(format_nanos(850_000_000), "850 ms");
        assert_eq!(format_nanos(137_500_000), "137.5 ms");
        assert_eq!(format_nanos(3_200_000_000), "3.2 s");
        assert_eq!(format_nanos(2_000_000_000), "2 s");
        assert_eq!(format_nanos(0), "0 ms");
    }

    #[test]
    fn stalls_are_gaps_over_the_threshold_between_own_times() {
        // T1, issue 17.3: 0, 1 s, 4 s (a 3 s gap), 4.5 s, 7 s (2.5 s).
        let events = log(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":1000}"#,
            r#"{"type":"STEP_STARTED","stepName":"s","timestamp":2000}"#,
            r#"{"type":"STEP_FINISHED","stepName":"s","timestamp":5000}"#,
            r#"{"type":"CUSTOM","name":"x","value":1,"timestamp":5500}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":8000}"#,
        ]);
        let clock = Clock::from_timestamps(&events);
        assert_eq!(clock.kind(), TimesKind::Timestamps);
        let stalls = clock.stalls(DEFAULT_STALL_AFTER_NANOS);
        assert_eq!(
            stalls,
            [
                Stall {
                    seq: Seq::new(3),
                    after_seq: Seq::new(2),
                    gap_nanos: 3_000_000_000
                },
                Stall {
                    seq: Seq::new(5),
                    after_seq: Seq::new(4),
                    gap_nanos: 2_500_000_000
                },
            ]
        );
        // The threshold is settable, and strict.
        assert_eq!(clock.stalls(2_500_000_000).len(), 1);
        assert!(clock.stalls(3_000_000_000).is_empty());
        let d = stalls[0].diagnostic(DEFAULT_STALL_AFTER_NANOS);
        assert_eq!(d.code, Code::StreamStall);
        assert_eq!(d.severity, crate::diagnostic::Severity::Info);
        assert_eq!(
            d.message,
            "no event for 3 s after seq 2 (more than 2 s): the stream stalled"
        );
    }

    #[test]
    fn invented_times_never_stall() {
        // T1: no timestamp at all is invented, 100 ms apart; a gap that
        // touches an event without a timestamp is not the stream's own.
        let untimed = log(&[r#"{"type":"RUN_STARTED"}"#; 40]);
        let clock = Clock::from_timestamps(&untimed);
        assert_eq!(clock.kind(), TimesKind::Invented);
        assert!(clock.stalls(0).is_empty());
        let partly = log(&[
            r#"{"type":"RUN_STARTED","timestamp":0}"#,
            r#"{"type":"CUSTOM"}"#,
            r#"{"type":"CUSTOM","timestamp":9000}"#,
            r#"{"type":"CUSTOM","timestamp":19000}"#,
        ]);
        let clock = Clock::from_timestamps(&partly);
        assert_eq!(clock.kind(), TimesKind::PartlyInvented);
        assert_eq!(clock.num_invented(), 1);
        let stalls = clock.stalls(DEFAULT_STALL_AFTER_NANOS);
        assert_eq!(stalls.len(), 1, "{stalls:?}");
        assert_eq!(stalls[0].seq, Seq::new(4));
        // A recording whose events all arrived at once has no times.
        let clock = Clock::from_arrivals(vec![5, 5, 5, 5], &partly, false);
        assert_eq!(clock.kind(), TimesKind::Invented);
        assert!(clock.stalls(0).is_empty());
        // A recording made live has its own times, timestamps or not.
        let clock =
            Clock::from_arrivals(vec![0, 10, 3_000_000_010, 3_000_000_020], &untimed, false);
        assert_eq!(clock.kind(), TimesKind::Recorded);
        assert_eq!(clock.stalls(DEFAULT_STALL_AFTER_NANOS).len(), 1);
        // An imported one has those of its timestamps.
        let clock = Clock::from_arrivals(vec![0, 0, 9_000_000_000, 19_000_000_000], &partly, true);
        assert_eq!(clock.kind(), TimesKind::PartlyInvented);
        assert_eq!(clock.stalls(DEFAULT_STALL_AFTER_NANOS).len(), 1);
    }

    #[test]
    fn stalls_merge_after_their_events_diagnostics() {
        let d = |seq| Diagnostic::new(Seq::new(seq), Code::EmptyDelta, "x");
        let stalls = [
            Stall {
                seq: Seq::new(2),
                after_seq: Seq::new(1),
                gap_nanos: 5,
            },
            Stall {
                seq: Seq::new(9),
                after_seq: Seq::new(8),
                gap_nanos: 5,
            },
        ];
        let merged = merge_stalls(vec![d(0), d(2), d(3)], &stalls, 1);
        let order: Vec<(u64, Code)> = merged.iter().map(|d| (d.seq.get(), d.code)).collect();
        assert_eq!(
            order,
            [
                (0, Code::EmptyDelta),
                (2, Code::EmptyDelta),
                (2, Code::StreamStall),
                (3, Code::EmptyDelta),
                (9, Code::StreamStall),
            ]
        );
    }

    #[test]
    fn run_figures_count_from_the_runs_origin() {
        // Issue 17.3: times in ms; run 1 from t = 0, run 2 from run 1's end.
        let events = log(&[
            r#"{"type":"RUN_STARTED","runId":"r1","timestamp":0}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","timestamp":200}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"t1","toolCallName":"search","timestamp":300}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"t1","delta":"{}","timestamp":400}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"t1","timestamp":700}"#,
            r#"{"type":"TOOL_CALL_RESULT","toolCallId":"t1","messageId":"m","content":"x","timestamp":1700}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","timestamp":1800}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi","timestamp":1900}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1","timestamp":2000}"#,
            r#"{"type":"RUN_FINISHED","runId":"r1","timestamp":2000}"#,
            r#"{"type":"RUN_STARTED","runId":"r2","timestamp":2500}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"a","timestamp":2600}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b","timestamp":2700}"#,
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","patch":[],"timestamp":2800}"#,
            r#"{"type":"RUN_FINISHED","runId":"r2","timestamp":3000}"#,
        ]);
        let clock = Clock::from_timestamps(&events);
        let report = TimingReport::of(&events, &clock, DEFAULT_STALL_AFTER_NANOS);
        assert_eq!(report.runs.len(), 2);
        let ms = 1_000_000;
        let [one, two] = [&report.runs[0], &report.runs[1]];
        assert_eq!(one.run_id.as_deref(), Some("r1"));
        assert_eq!((one.first_seq.get(), one.last_seq.get()), (1, 10));
        assert_eq!(one.to_first_event_nanos, 0);
        assert_eq!(
            one.to_first_activity.map(|m| (m.seq.get(), m.nanos)),
            Some((2, 200 * ms))
        );
        assert_eq!(
            one.to_first_text.map(|m| (m.seq.get(), m.nanos)),
            Some((8, 1900 * ms))
        );
        let gap = one.longest_gap.expect("a gap");
        assert_eq!(
            (gap.after_seq.get(), gap.seq.get(), gap.nanos),
            (5, 6, 1000 * ms)
        );
        assert_eq!(one.tool_calls.len(), 1);
        let tool = &one.tool_calls[0];
        assert_eq!(tool.name.as_deref(), Some("search"));
        assert_eq!(
            (tool.duration_nanos, tool.to_result_nanos),
            (400 * ms, Some(1400 * ms))
        );
        assert_eq!(one.events_per_second, Some(5.0));
        assert_eq!(two.to_first_event_nanos, 500 * ms);
        assert_eq!(
            two.to_first_text.map(|m| (m.seq.get(), m.nanos)),
            Some((12, 600 * ms))
        );
        assert_eq!(two.to_first_activity.map(|m| m.seq.get()), Some(14));
        assert!(two.tool_calls.is_empty());
        // The bars: two runs, one tool call, two messages (the chunks
        // without an id continue m2), one activity across both runs.
        let count = |kind| report.spans.iter().filter(|s| s.kind == kind).count();
        assert_eq!(count(SpanKind::Run), 2);
        assert_eq!(count(SpanKind::ToolCall), 1);
        assert_eq!(count(SpanKind::Message), 2);
        assert_eq!(count(SpanKind::Activity), 1);
        let chunks = report
            .spans
            .iter()
            .find(|s| s.id.as_deref() == Some("m2"))
            .expect("m2");
        assert_eq!((chunks.first_seq.get(), chunks.last_seq.get()), (12, 13));
        let activity = report
            .spans
            .iter()
            .find(|s| s.kind == SpanKind::Activity)
            .expect("activity");
        assert_eq!((activity.first_seq.get(), activity.last_seq.get()), (2, 14));
        assert!(report.spans.iter().all(|s| !s.invented));
        assert!(report.stalls.is_empty());
    }

    #[test]
    fn invented_times_are_marked_in_the_figures() {
        let events = log(&[
            r#"{"type":"RUN_STARTED","runId":"r"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            r#"{"type":"RUN_FINISHED","runId":"r"}"#,
        ]);
        let clock = Clock::from_timestamps(&events);
        let report = TimingReport::of(&events, &clock, DEFAULT_STALL_AFTER_NANOS);
        assert_eq!(report.times, TimesKind::Invented);
        assert_eq!(report.num_invented_times, 5);
        let run = &report.runs[0];
        assert_eq!(run.num_invented_times, 5);
        assert!(run.to_first_text.expect("text").invented);
        assert!(run.longest_gap.expect("gap").invented);
        assert!(report.spans.iter().all(|s| s.invented));
    }

    #[test]
    fn events_before_any_run_start_one_of_their_own() {
        // Nothing panics on a stream that does not start with a run (R60).
        let events = log(&[
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":5}"#,
            r#"{"type":"TOOL_CALL_END","timestamp":6}"#,
            r#"not json"#,
        ]);
        let clock = Clock::from_timestamps(&events);
        let report = TimingReport::of(&events, &clock, 0);
        assert_eq!(report.runs.len(), 1);
        assert_eq!(report.runs[0].run_id, None);
        assert_eq!(report.runs[0].num_events, 3);
    }
}
