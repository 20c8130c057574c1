//! The replayer: lifecycle (R60–R64), fatal errors (R40–R43), dispatch to the
//! event families, and the diagnostics collected along the way.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use serde_json::{Map, Value};

use super::conversation::{Conversation, Message};
use super::drift::{DriftCheck, DriftWatch, touch_streamed};
use super::limits::document_bytes;
use super::patch::{apply_patch_client, apply_patch_taking};
use super::streams::Streams;
use super::{Options, Profile};
use crate::diagnostic::{Code, Diagnostic, Seq, Severity};
use crate::event_log::RawEvents;
use crate::protocol::{
    Declared, Event, EventBody, EventType, Issue, ParseOutcome, for_each_parsed,
    for_each_parsed_in, parse_event,
};

/// Where the run stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunPhase {
    /// No run has started yet (R60).
    #[default]
    NotStarted,
    /// A run is open.
    Open,
    /// The last run finished or errored; only `RUN_STARTED` may follow (R61).
    Ended,
}

/// What became of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Applied (perhaps as a no-op, perhaps partly: see its diagnostics).
    Applied,
    /// Skipped with a warning (R9, R12–R14, …); the run goes on.
    Skipped,
    /// Dropped: an unknown event type (R42).
    Dropped,
    /// The fatal error that failed the run (R40, R41, R22, R60, R61).
    Fatal,
    /// After a fatal error, not applied (R43).
    NotApplied,
}

/// What an event did to an activity, for the per-activity timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActivityChange {
    /// A snapshot created it (R2).
    Created,
    /// A snapshot replaced its content and type (R3).
    Replaced,
    /// A `replace: false` snapshot was declined (R4).
    Declined,
    /// A snapshot was skipped: its id names a non-activity message (R9).
    SnapshotSkipped,
    /// A delta applied (R10).
    DeltaApplied,
    /// A delta applied and changed the type (R10).
    Retyped,
    /// A delta was skipped: unknown target, not an activity (R12, R13).
    DeltaSkipped,
    /// A delta's patch did not apply (R14).
    PatchFailed,
    /// An activity event was fatal (R22, R40).
    Fatal,
    /// An activity event after a fatal error, not applied (R43).
    NotApplied,
}

/// The effect of one event, and its effect on an activity if it had one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventEffect {
    /// What became of the event.
    pub effect: Effect,
    /// What it did to the activity it names, if it is an activity event.
    pub activity: Option<ActivityChange>,
}

impl EventEffect {
    pub(super) const APPLIED: Self = Self::plain(Effect::Applied);
    pub(super) const SKIPPED: Self = Self::plain(Effect::Skipped);

    pub(super) const fn plain(effect: Effect) -> Self {
        Self {
            effect,
            activity: None,
        }
    }

    pub(super) const fn activity(effect: Effect, change: ActivityChange) -> Self {
        Self {
            effect,
            activity: Some(change),
        }
    }
}

/// Whether the run failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// No fatal error.
    Ok,
    /// A fatal error failed the run (R43).
    Failed,
}

impl Outcome {
    /// `ok` or `failed`, as in `check --format json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Failed => "failed",
        }
    }
}

/// The replay engine. Feed it events in arrival order with [`apply`]; read
/// the conversation, state and diagnostics at the current step; call
/// [`finish`] at the end of the stream for the whole-stream checks.
///
/// Cloning a replayer is cheap for activity contents (shared until patched),
/// which is what checkpoints rely on.
///
/// [`apply`]: Replayer::apply
/// [`finish`]: Replayer::finish
#[derive(Clone, Debug)]
pub struct Replayer {
    pub(super) options: Options,
    pub(super) conversation: Conversation,
    pub(super) state: Arc<Value>,
    /// The weight of `state` ([`document_bytes`]), for the size limit of
    /// a patch.
    pub(super) state_bytes: usize,
    pub(super) run: RunPhase,
    /// The event that ended the last run (`RUN_FINISHED` or `RUN_ERROR`).
    pub(super) ended_by: Option<EventType>,
    /// Owners of activities known in the current run (R21–R23).
    pub(super) owners: Arc<FxHashMap<String, Option<String>>>,
    /// Open text, tool-call, reasoning, step and subagent streams.
    pub(super) streams: Streams,
    /// Which message holds each tool call.
    pub(super) tool_call_messages: Arc<FxHashMap<String, String>>,
    /// The event being applied, or the last one applied.
    pub(super) seq: Seq,
    /// The diagnostic that failed the run, wherever it was recorded.
    pub(super) fatal: Option<Diagnostic>,
    pub(super) finished: bool,
    /// What this replayer recorded: diagnostics and effects of the events it
    /// applied itself (a replayer resumed from a checkpoint starts empty).
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) effects: Vec<EventEffect>,
    /// Changes since each snapshot's baseline, to tell drift (E20).
    pub(super) drift: DriftWatch,
    /// Under the draft (C12): the stream's one `threadId`, the run
    /// input's or else the first `RUN_STARTED`'s; `None` under 1.0 and
    /// 1.1, which do not hold it.
    pub(super) thread_id: Option<Arc<str>>,
    /// Under the draft (C12): the open run's `runId`.
    pub(super) run_id: Option<Arc<str>>,
}

impl Replayer {
    /// A replayer at step 0 with an empty conversation and state `{}`.
    pub fn new(options: Options) -> Self {
        Self {
            options,
            conversation: Conversation::default(),
            state: Arc::new(Value::Object(Map::new())),
            state_bytes: document_bytes(&Value::Object(Map::new())),
            run: RunPhase::NotStarted,
            ended_by: None,
            owners: Arc::default(),
            streams: Streams::default(),
            tool_call_messages: Arc::default(),
            seq: Seq::START,
            fatal: None,
            finished: false,
            diagnostics: Vec::new(),
            effects: Vec::new(),
            drift: DriftWatch::default(),
            thread_id: None,
            run_id: None,
        }
    }

    /// A copy of the state at the current step, with empty logs: what a
    /// checkpoint keeps. Activity contents and the shared state are shared
    /// with `self` until either side patches them.
    pub fn checkpoint(&self) -> Self {
        self.checkpoint_with(self.drift.clone())
    }

    /// [`Self::checkpoint`] with the given drift tracking.
    pub(super) fn checkpoint_with(&self, drift: DriftWatch) -> Self {
        Self {
            options: self.options,
            conversation: self.conversation.clone(),
            state: Arc::clone(&self.state),
            state_bytes: self.state_bytes,
            run: self.run,
            ended_by: self.ended_by,
            owners: self.owners.clone(),
            streams: self.streams.clone(),
            tool_call_messages: self.tool_call_messages.clone(),
            seq: self.seq,
            fatal: self.fatal.clone(),
            finished: self.finished,
            diagnostics: Vec::new(),
            effects: Vec::new(),
            drift,
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
        }
    }

    /// A replayer whose step 0 is a recorded run input (the request body):
    /// its `messages` and `state`. Activity messages in it are kept as sent
    /// and reported (R50).
    pub fn with_run_input(options: Options, input: &Value) -> Self {
        let mut replayer = Self::new(options);
        // Issue 39: a member the run input's shape does not define, at any
        // depth, is stripped and reported with its pointer, and an unknown
        // element of a message's list dropped, as in `RUN_STARTED.input`.
        let stripped = crate::protocol::strip_run_input(input);
        let input = match &stripped {
            Some((kept, issues)) => {
                for issue in issues {
                    let mut issue = issue.clone();
                    issue.message = format!("in the recorded run input: {}", issue.message);
                    let message_id = issue
                        .path
                        .as_deref()
                        .and_then(|path| input_message_id(kept, path));
                    replayer.report_issue(&issue, message_id);
                }
                kept
            }
            None => input,
        };
        if let Some(Value::Array(messages)) = input.get("messages") {
            let mut list = Vec::with_capacity(messages.len());
            for message in messages.iter().filter_map(Value::as_object) {
                if let Some(message) = Message::from_json(message)
                    && !replayer.conversation.contains(message.id())
                    && !list.iter().any(|m: &Message| m.id() == message.id())
                {
                    list.push(message);
                }
            }
            for message in &list {
                replayer.register_tool_calls(message);
            }
            let ids: Vec<String> = list.iter().map(|m| m.id().to_owned()).collect();
            replayer
                .conversation
                .set_messages(list.into_iter().map(Arc::new).collect());
            // E11: the app shows them as the run input.
            for id in ids {
                replayer.conversation.mark_from_input(&id, Seq::START);
            }
        }
        if let Some(state) = input.get("state") {
            replayer.state_bytes = document_bytes(state);
            replayer.state = Arc::new(state.clone());
        }
        // C12: under the draft every run of the stream carries the run
        // input's thread.
        if replayer.is_draft()
            && let Some(Value::String(thread)) = input.get("threadId")
        {
            replayer.thread_id = Some(Arc::from(thread.as_str()));
        }
        replayer.check_run_input(input);
        replayer
    }

    /// The options this replay runs with.
    pub fn options(&self) -> Options {
        self.options
    }

    /// The step reached: the seq of the last event applied (0 at the start).
    pub fn step(&self) -> Seq {
        self.seq
    }

    /// The conversation at the current step.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The positions of the messages changed since the last call, onto
    /// `positions`; `true` when any may have changed instead
    /// ([`Conversation::take_changes`], issue 40).
    pub fn take_message_changes(&mut self, positions: &mut Vec<usize>) -> bool {
        self.conversation.take_changes(positions)
    }

    /// The shared state at the current step.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// The shared state at the current step, as the shared allocation it
    /// is: a step that leaves the state as it was keeps the same one
    /// (comparing two replays step by step relies on it: the `compare` module).
    pub fn shared_state(&self) -> &Arc<Value> {
        &self.state
    }

    /// Where the run stands.
    pub fn run_phase(&self) -> RunPhase {
        self.run
    }

    /// Every diagnostic this replayer reported, in order (for a replayer
    /// resumed from a checkpoint, those after the checkpoint).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The diagnostic that failed the run, if any.
    pub fn fatal(&self) -> Option<&Diagnostic> {
        self.fatal.as_ref()
    }

    /// Whether the run failed so far.
    pub fn outcome(&self) -> Outcome {
        if self.fatal.is_some() {
            Outcome::Failed
        } else {
            Outcome::Ok
        }
    }

    /// The effect of every event this replayer applied, in order (index 0 is
    /// seq 1 unless it was resumed from a checkpoint).
    pub fn effects(&self) -> &[EventEffect] {
        &self.effects
    }

    /// The `{messages, state}` document at the current step.
    pub fn document(&self) -> Value {
        let mut document = Map::new();
        document.insert("messages".into(), self.conversation.to_json());
        document.insert("state".into(), (*self.state).clone());
        Value::Object(document)
    }

    /// Moves the step counter to `step` as if the events in between had
    /// been applied without effect: for a replay of the few events that can
    /// touch one value (blame, issue 17.2), whose later steps keep their
    /// numbers. Never moves it back.
    pub fn skip_to(&mut self, step: Seq) {
        self.seq = self.seq.max(step);
    }

    /// Puts back the logs of the steps up to this replayer's (a state
    /// thawed from a checkpoint starts with empty ones): what the head of
    /// a timeline that shares another's first steps holds (issue 41,
    /// `Timeline::shared_prefix`).
    pub fn restore_logs(&mut self, diagnostics: Vec<Diagnostic>, effects: Vec<EventEffect>) {
        self.diagnostics = diagnostics;
        self.effects = effects;
    }

    /// Makes room to record `num_events` more events.
    pub fn reserve(&mut self, num_events: usize) {
        self.effects.reserve(num_events);
    }

    /// Reads and applies the next event from its raw bytes.
    pub fn apply_bytes(&mut self, raw: &[u8]) -> EventEffect {
        self.apply(parse_event(raw))
    }

    /// Applies the next event (its seq is one more than the last).
    pub fn apply(&mut self, mut parsed: ParseOutcome) -> EventEffect {
        self.apply_taking(&mut parsed)
    }

    /// [`Self::apply`] of an event the caller keeps: what the replay keeps
    /// of it (snapshot contents, the values a patch adds) is taken out, and
    /// the rest is left for the caller to drop. A replay on two threads
    /// hands it back to the thread that read the event, which frees it
    /// where it was allocated (issue 14).
    pub fn apply_taking(&mut self, parsed: &mut ParseOutcome) -> EventEffect {
        self.seq = Seq::new(self.seq.get() + 1);
        let effect = if self.fatal.is_some() && !self.options.best_effort {
            let activity = matches!(
                parsed.event_type(),
                Some(EventType::ActivitySnapshot | EventType::ActivityDelta)
            )
            .then_some(ActivityChange::NotApplied);
            EventEffect {
                effect: Effect::NotApplied,
                activity,
            }
        } else {
            self.apply_parsed(parsed)
        };
        self.effects.push(effect);
        effect
    }

    /// Counts the next event, an `ACTIVITY_DELTA` of activity `message_id`
    /// that another replay of the same stream applied with success and
    /// without a diagnostic, where this one would have done the same
    /// (issue 40, [`super::Lockstep`]): the step, its effect and what E20
    /// records of it, as [`Self::apply`] would. The activity itself is
    /// left as it was: the caller holds it elsewhere.
    pub(super) fn mirror_delta(
        &mut self,
        message_id: &str,
        patch: &crate::protocol::Patch,
        metadata: Option<&Map<String, Value>>,
    ) {
        self.seq = Seq::new(self.seq.get() + 1);
        self.effects.push(EventEffect::activity(
            Effect::Applied,
            ActivityChange::DeltaApplied,
        ));
        let touched = self.drift.message_changed(message_id, self.seq, false);
        touched.touch_patch("/content", patch);
        touched.touch_metadata("", metadata);
    }

    /// The whole-stream checks at the end of the stream (R62). Call once,
    /// after the last event; later calls do nothing.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let failed = self.fatal.is_some() && !self.options.best_effort;
        if self.run == RunPhase::Open && !failed {
            let last = self.step();
            let mut diagnostic = if self.is_draft() {
                // C12, corpus `truncated-stream-fails-the-run`: under the
                // draft a truncated run has no outcome, and it fails.
                let run = match &self.run_id {
                    Some(run) => format!("run '{run}'"),
                    None => "the run".to_owned(),
                };
                Diagnostic::new(
                    last,
                    Code::StreamTruncated,
                    format!(
                        "the stream ended without a terminal event: {run} is still open (no RUN_FINISHED or RUN_ERROR), so it is truncated and has no outcome"
                    ),
                )
                .with_severity(Severity::Error)
            } else {
                Diagnostic::new(
                    last,
                    Code::StreamTruncated,
                    "the stream ends with the run still open (no RUN_FINISHED or RUN_ERROR)",
                )
            };
            // §11, corpus `truncated-run-reported-as-completed`: the
            // reference client consumes a truncated stream without a word;
            // the debugger still shows a note.
            if self.profile() == Profile::AgUiClient10 {
                diagnostic.severity = Severity::Note;
            }
            self.report(diagnostic);
        }
    }

    pub(super) fn report(&mut self, diagnostic: Diagnostic) {
        if diagnostic.severity == Severity::Error && self.fatal.is_none() {
            self.fatal = Some(diagnostic.clone());
        }
        self.diagnostics.push(diagnostic);
    }

    /// Reports `code` for the current event, about `message_id` if given.
    pub(super) fn diagnose(&mut self, code: Code, message_id: Option<&str>, message: String) {
        let mut diagnostic = Diagnostic::new(self.seq, code, message);
        diagnostic.message_id = message_id.map(str::to_owned);
        self.report(diagnostic);
    }

    /// As [`diagnose`](Self::diagnose), with a severity the profile chose.
    pub(super) fn diagnose_as(
        &mut self,
        code: Code,
        severity: Severity,
        message_id: Option<&str>,
        message: String,
    ) {
        let mut diagnostic = Diagnostic::new(self.seq, code, message).with_severity(severity);
        diagnostic.message_id = message_id.map(str::to_owned);
        self.report(diagnostic);
    }

    fn report_issue(&mut self, issue: &Issue, message_id: Option<&str>) {
        let mut diagnostic = Diagnostic::new(self.seq, issue.code, issue.message.clone());
        diagnostic.path = issue.path.clone();
        diagnostic.message_id = message_id.map(str::to_owned);
        self.report(diagnostic);
    }

    /// E24 (issue 39): a lone UTF-16 surrogate. Nothing is skipped under
    /// either profile; `spec` notes the producer's cut, the client profile
    /// says what the reference client does with it.
    fn report_split(&mut self, issue: &Issue, message_id: Option<&str>) {
        let (severity, consequence) = match self.profile() {
            Profile::Spec => (
                Severity::Note,
                "kept as sent, and joined with its other half where text is concatenated",
            ),
            Profile::AgUiClient10 => (
                Severity::Info,
                "ag-ui-client-1.0 keeps it (JavaScript strings are UTF-16) and joins it with \
                 its other half when it concatenates text",
            ),
        };
        let mut diagnostic = Diagnostic::new(
            self.seq,
            issue.code,
            format!("{}; {consequence}", issue.message),
        )
        .with_severity(severity);
        diagnostic.path = issue.path.clone();
        diagnostic.message_id = message_id.map(str::to_owned);
        self.report(diagnostic);
    }

    pub(super) fn profile(&self) -> Profile {
        self.options.profile
    }

    /// Whether the consumer implements the working draft (C12).
    pub(super) fn is_draft(&self) -> bool {
        self.options.consumer_version().is_draft()
    }

    fn apply_parsed(&mut self, parsed: &mut ParseOutcome) -> EventEffect {
        match parsed {
            ParseOutcome::Unparseable { reason } => {
                self.diagnose(
                    Code::EventUnparseable,
                    None,
                    format!("not an AG-UI event: {reason}"),
                );
                EventEffect::plain(Effect::Fatal)
            }
            ParseOutcome::UnknownType {
                type_name,
                legacy_delta,
            } if self.profile() == Profile::AgUiClient10
                && super::streams::is_thinking(type_name) =>
            {
                if !self.check_lifecycle(EventType::ReasoningStart, None) {
                    return EventEffect::plain(Effect::Fatal);
                }
                self.thinking(type_name, legacy_delta.as_deref())
            }
            ParseOutcome::UnknownType { type_name, .. } => {
                let hint = if type_name.starts_with("THINKING_") {
                    " (THINKING_* events predate AG-UI 1.0, which uses REASONING_*)"
                } else {
                    ""
                };
                self.diagnose(
                    Code::EventUnknownType,
                    None,
                    format!("unknown event type {type_name:?} dropped{hint}"),
                );
                EventEffect::plain(Effect::Dropped)
            }
            ParseOutcome::Malformed {
                event_type,
                message_id,
                issue,
            } => {
                self.report_issue(issue, message_id.as_deref());
                let activity = matches!(
                    *event_type,
                    EventType::ActivitySnapshot | EventType::ActivityDelta
                )
                .then_some(ActivityChange::Fatal);
                EventEffect {
                    effect: Effect::Fatal,
                    activity,
                }
            }
            ParseOutcome::Event { event, issues } => {
                for issue in issues.iter() {
                    if issue.code == Code::EventUnknownEnumValue
                        && self.profile() == Profile::AgUiClient10
                    {
                        // §11: the reference client checks a closed string
                        // set as a leaf, so an unknown value is fatal there
                        // (`unknown-enum-value-role-fatal`).
                        let mut diagnostic = Diagnostic::new(
                            self.seq,
                            issue.code,
                            format!(
                                "{} (ag-ui-client-1.0 rejects it: fatal)",
                                issue.message.replace(" stripped", "")
                            ),
                        )
                        .with_severity(Severity::Error);
                        diagnostic.path = issue.path.clone();
                        diagnostic.message_id = event.message_id().map(str::to_owned);
                        self.report(diagnostic);
                        return EventEffect::plain(Effect::Fatal);
                    }
                    if issue.code == Code::TextSplitSurrogate {
                        self.report_split(issue, event.message_id());
                        continue;
                    }
                    self.report_issue(issue, event.message_id());
                }
                self.strip_newer_members(event);
                self.apply_event(event)
            }
        }
    }

    /// R42, §11: members a newer schema defines are unknown to an older
    /// consumer, which strips them with a warning.
    fn strip_newer_members(&mut self, event: &mut Event) {
        let consumer = self.options.consumer_version();
        let mut stripped = Vec::new();
        event
            .body
            .strip_newer_members(consumer, |name, since| stripped.push((name, since)));
        let event_type = event.event_type().as_str();
        for (name, since) in stripped {
            let mut diagnostic = Diagnostic::new(
                self.seq,
                Code::EventUnknownProperty,
                format!(
                    "unknown member `{name}` (/{name}) on {event_type} stripped: it is AG-UI {}, this consumer implements {}",
                    since.as_str(),
                    consumer.as_str()
                ),
            )
            .with_path(format!("/{name}"));
            diagnostic.message_id = event.message_id().map(str::to_owned);
            self.report(diagnostic);
        }
    }

    fn apply_event(&mut self, event: &mut Event) -> EventEffect {
        let event_type = event.event_type();
        let is_activity = matches!(
            event_type,
            EventType::ActivitySnapshot | EventType::ActivityDelta
        );
        if !self.check_lifecycle(event_type, event.message_id()) {
            return EventEffect {
                effect: Effect::Fatal,
                activity: is_activity.then_some(ActivityChange::Fatal),
            };
        }
        let client = self.options.profile == Profile::AgUiClient10;
        self.streams.close_chunks_before(
            event_type,
            event.envelope.subagent_run_id.as_deref(),
            client,
        );
        use EventBody as B;
        let Event { envelope, body } = event;
        match body {
            B::RunStarted {
                thread_id,
                run_id,
                input,
                protocol_version,
                ..
            } => {
                let holds = self.draft_run_started(thread_id, run_id);
                let effect = self.run_started(input.as_ref(), protocol_version.as_deref());
                if holds {
                    effect
                } else {
                    EventEffect::plain(Effect::Fatal)
                }
            }
            B::RunFinished {
                thread_id,
                run_id,
                outcome,
                ..
            } => {
                let holds = self.draft_run_finished(thread_id, run_id, outcome.as_ref());
                let effect = self.run_finished();
                if holds {
                    effect
                } else {
                    EventEffect::plain(Effect::Fatal)
                }
            }
            B::RunError { .. } => {
                self.run = RunPhase::Ended;
                self.ended_by = Some(EventType::RunError);
                self.run_id = None;
                self.streams.close_all();
                EventEffect::APPLIED
            }
            B::StateSnapshot { snapshot } => {
                // E20: a snapshot after deltas may show drift.
                if let Some(since) = self.drift.take_state() {
                    let check = DriftCheck {
                        seq: self.seq,
                        code: Code::StateDrift,
                        unstreamed: Code::StateDriftUnstreamed,
                        message_id: None,
                        subject: "the state".to_owned(),
                        event: "STATE_SNAPSHOT",
                        changes: "STATE_DELTA",
                        event_prefix: "/snapshot".to_owned(),
                        since,
                    };
                    for diagnostic in check.diagnose(&self.state, snapshot) {
                        self.report(diagnostic);
                    }
                }
                self.state_bytes = document_bytes(snapshot);
                self.state = Arc::new(std::mem::take(snapshot));
                EventEffect::APPLIED
            }
            B::StateDelta { delta } => {
                let reported = self.diagnostics.len();
                let effect = self.state_delta(delta);
                // E20: a failure is one that a later snapshot repairs.
                let failed = effect.effect != Effect::Applied
                    || self.diagnostics[reported..]
                        .iter()
                        .any(|d| d.code == Code::StatePatchFailed);
                self.drift.state_changed(self.seq, failed, delta);
                effect
            }
            B::MessagesSnapshot { messages } => {
                self.messages_snapshot(messages, envelope.metadata.as_ref())
            }
            B::ActivitySnapshot {
                message_id,
                activity_type,
                content,
                replace,
            } => self.activity_snapshot(
                envelope,
                message_id,
                activity_type,
                std::mem::take(content),
                replace.unwrap_or(true),
            ),
            B::ActivityDelta {
                message_id,
                activity_type,
                patch,
            } => {
                let effect = self.activity_delta(envelope, message_id, activity_type, patch);
                // E20: what the next snapshot of this activity compares,
                // and the paths the delta set or would have (issue 39).
                let failed = match effect.activity {
                    Some(ActivityChange::DeltaApplied | ActivityChange::Retyped) => Some(false),
                    Some(ActivityChange::PatchFailed) => Some(true),
                    _ => None,
                };
                if let Some(failed) = failed {
                    let touched = self.drift.message_changed(message_id, self.seq, failed);
                    touched.touch_patch("/content", patch);
                    touched.touch_metadata("", envelope.metadata.as_ref());
                    if effect.activity == Some(ActivityChange::Retyped) {
                        touched.touch("/activityType");
                    }
                }
                effect
            }
            B::Raw { .. } | B::Custom { .. } => EventEffect::APPLIED,
            body => {
                let effect = self.apply_stream_event(body, envelope);
                // E20: a streamed message a later MESSAGES_SNAPSHOT compares.
                if let Some(id) = streamed_message(&self.tool_call_messages, body) {
                    let failed = effect.effect != Effect::Applied;
                    let touched = self.drift.message_changed(id, self.seq, failed);
                    touch_streamed(touched, body, envelope, self.conversation.get(id));
                }
                effect
            }
        }
    }

    /// A `STATE_DELTA`, atomic (R11): on failure the state is exactly as
    /// before.
    fn state_delta(&mut self, delta: &mut crate::protocol::Patch) -> EventEffect {
        let state = Arc::make_mut(&mut self.state);
        let applied = match self.options.profile {
            // The values the patch adds move in; the caller drops the rest.
            Profile::Spec => apply_patch_taking(state, &mut self.state_bytes, delta),
            // P7 (issue 18): the client's own patch library.
            Profile::AgUiClient10 => {
                match apply_patch_client(state, &mut self.state_bytes, delta) {
                    Ok(applied) if applied.undefined => {
                        // The client's state is `undefined`, which it
                        // does not publish: it keeps showing the
                        // state before this delta (P7).
                        self.diagnose_as(
                                    Code::StatePatchFailed,
                                    Severity::Note,
                                    None,
                                    "STATE_DELTA left the client's state undefined (a move or copy to \"\" from a path that does not resolve); ag-ui-client-1.0 keeps showing the state before it".to_owned(),
                                );
                        return EventEffect::APPLIED;
                    }
                    Ok(_) => Ok(()),
                    Err(failed) if failed.uncloneable => {
                        // The client clones the new state outside
                        // any `catch`: the run fails.
                        self.diagnose_as(
                            Code::StatePatchFailed,
                            Severity::Error,
                            None,
                            format!(
                                "STATE_DELTA: {} (ag-ui-client-1.0 fails the run)",
                                failed.failure
                            ),
                        );
                        return EventEffect::plain(Effect::Fatal);
                    }
                    Err(failed) => Err(failed.failure),
                }
            }
        };
        match applied {
            Ok(()) => EventEffect::APPLIED,
            Err(failure) => {
                let code = failure
                    .limit
                    .map_or(Code::StatePatchFailed, |limit| limit.code());
                self.diagnose(
                            code,
                            None,
                            format!(
                                "Failed to apply state patch: STATE_DELTA skipped, state unchanged: {failure}"
                            ),
                        );
                EventEffect::SKIPPED
            }
        }
    }

    /// R60, R61 and overlapping runs. Returns whether to apply the event: a
    /// lifecycle error is fatal, and only best-effort goes on to apply it
    /// (inside an implicit run, to show what would have followed).
    fn check_lifecycle(&mut self, event_type: EventType, message_id: Option<&str>) -> bool {
        let problem = match (self.run, event_type) {
            (RunPhase::Open, EventType::RunStarted) => Some((
                Code::LifecycleRunOverlap,
                "RUN_STARTED while a run is still open; the open run must finish first".to_owned(),
            )),
            // R61 amended: a late RUN_ERROR is delivered and does not fail
            // the stream (`late-run-error-after-finished-run-continues`).
            // P14: the client's verifier refuses anything but RUN_STARTED
            // after a RUN_ERROR, a second RUN_ERROR included.
            (RunPhase::Ended, EventType::RunError)
                if self.ended_by == Some(EventType::RunError)
                    && self.profile() == Profile::AgUiClient10 =>
            {
                Some((
                    Code::LifecycleAfterRun,
                    "Cannot send event type 'RUN_ERROR': The run has already errored with 'RUN_ERROR'. No further events can be sent (ag-ui-client-1.0; spec delivers a late RUN_ERROR)".to_owned(),
                ))
            }
            (_, EventType::RunStarted)
            | (RunPhase::NotStarted | RunPhase::Ended, EventType::RunError) => None,
            (RunPhase::NotStarted, t) => Some((
                Code::LifecycleBeforeRun,
                format!(
                    "First event must be 'RUN_STARTED' (or 'RUN_ERROR'), not '{}'",
                    t.as_str()
                ),
            )),
            (RunPhase::Ended, t) => {
                let how = match self.ended_by {
                    Some(EventType::RunError) => "errored with 'RUN_ERROR'",
                    _ => "finished with 'RUN_FINISHED'",
                };
                Some((
                    Code::LifecycleAfterRun,
                    format!(
                        "Cannot send event type '{}': The run has already {how}. Only RUN_STARTED (or a late RUN_ERROR) may follow",
                        t.as_str()
                    ),
                ))
            }
            (RunPhase::Open, _) => None,
        };
        let Some((code, message)) = problem else {
            return true;
        };
        self.diagnose(code, message_id, message);
        if self.options.best_effort && event_type != EventType::RunStarted {
            self.run = RunPhase::Open;
        }
        self.options.best_effort
    }

    fn run_started(&mut self, input: Option<&Value>, declared: Option<&str>) -> EventEffect {
        self.run = RunPhase::Open;
        // R23: ownership tracking is per run.
        self.owners = Arc::default();
        self.streams.close_all();
        if let Some(declared) = declared {
            self.check_declared_version(declared);
        }
        if let Some(input) = input {
            self.check_run_input(input);
            self.join_run_input(input);
        }
        EventEffect::APPLIED
    }

    /// §1, R50, E11: the messages of `RUN_STARTED.input` that the
    /// conversation does not hold yet join it at this step, in their order
    /// (the first of a repeated id), activity messages included, and are
    /// marked as run input. An activity that joins is owned by its own
    /// `subagentRunId` (R21); under `ag-ui-client-1.0` the owner map is the
    /// reference verifier's, which records the owner of every input
    /// activity it has none for, held or not (P12).
    fn join_run_input(&mut self, input: &Value) {
        let Some(Value::Array(messages)) = input.get("messages") else {
            return;
        };
        let client = self.profile() == Profile::AgUiClient10;
        for object in messages.iter().filter_map(Value::as_object) {
            let Some(message) = Message::from_json(object) else {
                continue;
            };
            if client {
                self.verifier_record(&message, false);
            }
            if client
                && let Message::Activity(activity) = &message
                && !self.owners.contains_key(activity.id.as_str())
            {
                Arc::make_mut(&mut self.owners)
                    .insert(activity.id.to_string(), activity.subagent_run_id.clone());
            }
            if self.conversation.contains(message.id()) {
                continue;
            }
            if let (false, Message::Activity(activity)) = (client, &message) {
                Arc::make_mut(&mut self.owners)
                    .insert(activity.id.to_string(), activity.subagent_run_id.clone());
            }
            self.register_tool_calls(&message);
            let id = message.id().to_owned();
            self.conversation.push(message);
            self.conversation.mark_from_input(&id, self.seq);
        }
    }

    /// §11: a declared version newer than the consumer's is served with a
    /// warning naming both; one that is not a version cannot be interpreted.
    fn check_declared_version(&mut self, declared: &str) {
        let consumer = self.options.consumer_version();
        let (code, message) = match consumer.judge(declared) {
            Declared::Compatible => return,
            Declared::Newer => (
                Code::ProtocolVersionNewer,
                format!(
                    "RUN_STARTED declares protocol version {declared}; this consumer implements {consumer}: replayed by the {consumer} schema"
                ),
            ),
            Declared::Uninterpretable => (
                Code::ProtocolVersionUninterpretable,
                format!(
                    "RUN_STARTED declares protocol version {declared:?}, which this consumer ({consumer}) cannot interpret; replayed by the {consumer} schema"
                ),
            ),
        };
        let diagnostic = Diagnostic::new(self.seq, code, message).with_path("/protocolVersion");
        self.report(diagnostic);
    }

    /// C12: under the draft every run of a stream carries one thread, the
    /// run input's (or else the first run's); a `RUN_STARTED` naming
    /// another is fatal. Remembers the run's id for its `RUN_FINISHED`.
    /// Returns whether the identity holds (always, under 1.0 and 1.1).
    fn draft_run_started(&mut self, thread_id: &str, run_id: &str) -> bool {
        if !self.is_draft() {
            return true;
        }
        self.run_id = Some(Arc::from(run_id));
        match &self.thread_id {
            None => {
                self.thread_id = Some(Arc::from(thread_id));
                true
            }
            Some(thread) if **thread == *thread_id => true,
            Some(thread) => {
                let message = format!(
                    "RUN_STARTED of run '{run_id}' names thread '{thread_id}', but this stream belongs to thread '{thread}': every run of a stream carries the run input's threadId"
                );
                self.report(
                    Diagnostic::new(self.seq, Code::LifecycleThreadMismatch, message)
                        .with_path("/threadId"),
                );
                false
            }
        }
    }

    /// C12: under the draft a `RUN_FINISHED` must name the open run and the
    /// stream's thread (`run-finished-wrong-run-id-fatal`), and an
    /// interrupt outcome must not repeat an interrupt's id
    /// (`duplicate-interrupt-id-fatal`); each is fatal. Returns whether
    /// all hold (always, under 1.0 and 1.1).
    fn draft_run_finished(
        &mut self,
        thread_id: &str,
        run_id: &str,
        outcome: Option<&Value>,
    ) -> bool {
        if !self.is_draft() {
            return true;
        }
        let mut holds = true;
        if let Some(open) = self.run_id.take()
            && *open != *run_id
        {
            let message = format!(
                "RUN_FINISHED names run '{run_id}', but the open run is '{open}': a run's RUN_STARTED and RUN_FINISHED must agree on their runId"
            );
            self.report(
                Diagnostic::new(self.seq, Code::LifecycleRunMismatch, message).with_path("/runId"),
            );
            holds = false;
        }
        if let Some(thread) = self.thread_id.clone()
            && *thread != *thread_id
        {
            let message = format!(
                "RUN_FINISHED of run '{run_id}' names thread '{thread_id}', but this stream belongs to thread '{thread}'. A run's boundary events carry the input's threadId"
            );
            self.report(
                Diagnostic::new(self.seq, Code::LifecycleThreadMismatch, message)
                    .with_path("/threadId"),
            );
            holds = false;
        }
        if let Some((index, id)) = outcome.and_then(duplicate_interrupt) {
            let message = format!(
                "the interrupt outcome holds two interrupts carrying the id '{id}': a resume answers an interrupt by its id, so one answer would cover both"
            );
            self.report(
                Diagnostic::new(self.seq, Code::InterruptDuplicateId, message)
                    .with_path(format!("/outcome/interrupts/{index}/id")),
            );
            holds = false;
        }
        holds
    }

    fn run_finished(&mut self) -> EventEffect {
        // §11: everything the run opened must be closed first
        // (`open-message-at-run-finished-fatal`); chunk streams are closed
        // by the terminal (`chunk-expansion-assembles`).
        let active = self
            .streams
            .describe_active(self.options.profile == Profile::AgUiClient10);
        let fatal = !active.is_empty();
        if fatal {
            self.diagnose(Code::LifecycleOpenAtRunFinished, None, active.join("; "));
        }
        let open = self.streams.describe_open();
        if !open.is_empty() {
            self.diagnose(
                Code::SequenceLeftOpen,
                None,
                format!("RUN_FINISHED with {open} still open; closed"),
            );
        }
        self.streams.close_all();
        self.run = RunPhase::Ended;
        self.ended_by = Some(EventType::RunFinished);
        if fatal {
            EventEffect::plain(Effect::Fatal)
        } else {
            EventEffect::APPLIED
        }
    }

    /// R50: a run input must not carry activity messages.
    fn check_run_input(&mut self, input: &Value) {
        let Some(Value::Array(messages)) = input.get("messages") else {
            return;
        };
        let activity_ids: Vec<String> = messages
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("activity"))
            .map(|m| m.get("id").and_then(Value::as_str).unwrap_or("").to_owned())
            .collect();
        for id in activity_ids {
            self.diagnose(
                Code::InputActivityMessage,
                Some(&id),
                format!(
                    "the run input carries activity message {id:?}; a consumer must strip activity messages from the messages it sends"
                ),
            );
        }
    }

    /// Remembers which message holds each of a message's tool calls.
    pub(super) fn register_tool_calls(&mut self, message: &Message) {
        if let Message::Other(m) = message {
            for id in m.tool_call_ids() {
                Arc::make_mut(&mut self.tool_call_messages).insert(id.to_owned(), m.id.to_string());
            }
        }
    }
}

/// The id of the run input's message a pointer (`/messages/N/…`) is in.
fn input_message_id<'a>(input: &'a Value, path: &str) -> Option<&'a str> {
    let index: usize = path
        .strip_prefix("/messages/")?
        .split('/')
        .next()?
        .parse()
        .ok()?;
    input.get("messages")?.get(index)?.get("id")?.as_str()
}

/// The first interrupt of an interrupt outcome whose `id` an earlier one
/// carries: its index and the id (C12).
fn duplicate_interrupt(outcome: &Value) -> Option<(usize, &str)> {
    if outcome.get("type").and_then(Value::as_str) != Some("interrupt") {
        return None;
    }
    let interrupts = outcome.get("interrupts")?.as_array()?;
    let mut seen = rustc_hash::FxHashSet::default();
    interrupts
        .iter()
        .enumerate()
        .find_map(|(index, interrupt)| {
            let id = interrupt.get("id")?.as_str()?;
            (!seen.insert(id)).then_some((index, id))
        })
}

/// Replays a whole stream and runs the end-of-stream checks.
pub fn replay_log<E: RawEvents + ?Sized>(log: &E, options: Options) -> Replayer {
    replay_from(Replayer::new(options), log)
}

/// Replays a whole stream from a given step 0 (for example a recorded run
/// input, [`Replayer::with_run_input`]) and runs the end-of-stream checks.
pub fn replay_from<E: RawEvents + ?Sized>(start: Replayer, log: &E) -> Replayer {
    let mut replayer = start;
    replayer.reserve(log.len());
    for_each_parsed(log, |_, _, parsed| {
        replayer.apply_taking(parsed);
    });
    replayer.finish();
    replayer
}

/// Replays the first `step` events of a stream (the state at step N). The
/// end-of-stream checks run only when `step` is the last event.
pub fn replay_to<E: RawEvents + ?Sized>(log: &E, options: Options, step: Seq) -> Replayer {
    replay_from_to(Replayer::new(options), log, step)
}

/// [`replay_to`] from a given step 0.
pub fn replay_from_to<E: RawEvents + ?Sized>(start: Replayer, log: &E, step: Seq) -> Replayer {
    let mut replayer = start;
    let end = usize::try_from(step.get())
        .unwrap_or(usize::MAX)
        .min(log.len());
    for_each_parsed_in(log, 0..end, |_, _, parsed| {
        replayer.apply_taking(parsed);
    });
    if end == log.len() {
        replayer.finish();
    }
    replayer
}

/// The `messageId` member of a streamed event's body, if it has one.
fn body_message_id(body: &EventBody) -> Option<&str> {
    use EventBody as B;
    match body {
        B::TextMessageStart { message_id, .. }
        | B::TextMessageContent { message_id, .. }
        | B::TextMessageEnd { message_id }
        | B::ReasoningStart { message_id }
        | B::ReasoningMessageStart { message_id }
        | B::ReasoningMessageContent { message_id, .. }
        | B::ReasoningMessageEnd { message_id }
        | B::ReasoningEnd { message_id } => Some(message_id),
        B::TextMessageChunk { message_id, .. } | B::ReasoningMessageChunk { message_id, .. } => {
            message_id.as_deref()
        }
        B::ReasoningEncryptedValue { entity_id, .. } => Some(entity_id),
        _ => None,
    }
}

/// The message a streamed event built or amended, if it names one (its
/// `messageId`, or the holder of its tool call).
fn streamed_message<'e>(
    tool_call_messages: &'e FxHashMap<String, String>,
    body: &'e EventBody,
) -> Option<&'e str> {
    use EventBody as B;
    let tool_call = match body {
        B::ToolCallStart { tool_call_id, .. }
        | B::ToolCallArgs { tool_call_id, .. }
        | B::ToolCallEnd { tool_call_id }
        | B::ToolCallResult { tool_call_id, .. } => Some(tool_call_id.as_str()),
        B::ToolCallChunk { tool_call_id, .. } => tool_call_id.as_deref(),
        _ => None,
    };
    match (body, tool_call) {
        (B::ToolCallResult { message_id, .. }, _) => Some(message_id.as_str()),
        (_, Some(call)) => tool_call_messages.get(call).map(String::as_str),
        _ => body_message_id(body),
    }
}
