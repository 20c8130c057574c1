//! Diagnostics: what the replay found wrong (or worth seeing) in a stream.
//!
//! Every code the engine can report is listed here, once, in [`Code`]. The
//! codes of `REPLAY-RULES.md` keep the severities the rules give them; the few
//! codes this engine adds for cases the rules leave open are marked as ours.
//! Problems in the *stream* are never Rust errors: they are diagnostics.

use std::fmt;

use serde::Serialize;

/// One step of a stream: events are numbered from 1 in arrival order; step 0
/// is the starting state, before any event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Seq(u64);

impl Seq {
    /// The starting state, before the first event.
    pub const START: Self = Self(0);

    /// Step `n` (0 is the starting state, 1 the first event).
    pub const fn new(n: u64) -> Self {
        Self(n)
    }

    /// The step's number.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The 0-based position of this event in the stream (`Seq(1)` is index 0).
    pub fn index(self) -> Option<usize> {
        usize::try_from(self.0).ok()?.checked_sub(1)
    }

    /// The seq of the event at 0-based `index`.
    pub fn from_index(index: usize) -> Self {
        Self(index as u64 + 1)
    }
}

impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How bad a diagnostic is, from worst to mildest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fatal: the run fails, later events are not applied (R43).
    Error,
    /// The event, or part of it, is skipped; the run goes on.
    Warning,
    /// A producer mistake a consumer need not detect; applied as sent.
    Note,
    /// Worth seeing, not wrong.
    Info,
}

impl Severity {
    /// Every severity, worst first.
    pub const ALL: [Self; 4] = [Self::Error, Self::Warning, Self::Note, Self::Info];

    /// The lowercase name used in output (`error`, `warning`, `note`, `info`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Note => "note",
            Self::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident; )*) => {
        /// A stable, dotted diagnostic code. The one list of codes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in the order of this list.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The dotted name, as printed and exported.
            pub fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $name, )* }
            }

            /// The severity the rules give this code under the `spec` profile.
            pub fn severity(self) -> Severity {
                match self { $( Code::$variant => Severity::$severity, )* }
            }

            /// The code with this dotted name, if there is one.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $( $name => Some(Code::$variant), )* _ => None }
            }
        }
    };
}

codes! {
    // Activity snapshots (R1–R9).
    /// R4: `replace: false` on an existing activity; content and type kept.
    SnapshotDeclined = "activity.snapshot.declined", Info;
    /// R7: a `replace: false` snapshot names another owner; the owner is kept.
    SnapshotOwnerMismatch = "activity.snapshot.owner-mismatch", Note;
    /// R9 / D2: a snapshot names an existing non-activity message; skipped.
    SnapshotIdCollision = "activity.snapshot.id-collision", Warning;
    // Activity deltas (R10–R17).
    /// R10: a delta changes the activity's type.
    DeltaRetyped = "activity.delta.retyped", Info;
    /// R12: a delta for an activity never created; skipped.
    DeltaUnknownTarget = "activity.delta.unknown-target", Warning;
    /// R13: a delta for a non-activity message; skipped.
    DeltaNotActivity = "activity.delta.not-activity", Warning;
    /// R14: a well-formed patch that does not apply; the whole event is skipped.
    PatchFailed = "activity.patch.failed", Warning;
    /// R15: an applied patch left `content` something other than an object.
    ContentNotObject = "activity.content.not-object", Note;
    /// R17: an operation whose `op` RFC 6902 does not define; dropped.
    PatchOpUnknown = "patch.op.unknown", Warning;
    // Ownership (R20–R23).
    /// R22: a delta tagged with another owner than the activity's; fatal.
    SubagentOwnerMismatch = "subagent.owner-mismatch", Error;
    // Malformed input (R40–R42).
    /// R40: a malformed event of a known type; fatal.
    EventMalformed = "event.malformed", Error;
    /// R41: text that is not a JSON object with a string `type`; fatal.
    EventUnparseable = "event.unparseable", Error;
    /// R42: an event of an unknown type; dropped.
    EventUnknownType = "event.unknown-type", Warning;
    /// §10, §11 (`era-0-0-45-thinking-translated`): under
    /// `ag-ui-client-1.0`, a retired `THINKING_*` event translated into
    /// reasoning, as the reference client's compatibility boundary does.
    EventLegacyTranslated = "event.legacy-translated", Warning;
    /// R42: an unknown member on a known event; stripped.
    EventUnknownProperty = "event.unknown-property", Warning;
    /// R42, §11 (`unknown-outcome-stripped`, `tool-result-parts-mint-tool-message`):
    /// an unrecognised member of a union in an optional position (a
    /// `RUN_FINISHED.outcome` type, a content part type); stripped.
    EventUnknownVariant = "event.unknown-variant", Warning;
    /// R42, §11 (`unknown-enum-value-role-fatal`): a value outside a closed
    /// string set (a text message `role`); stripped under `spec`, fatal under
    /// `ag-ui-client-1.0`, which checks it as a leaf.
    EventUnknownEnumValue = "event.unknown-enum-value", Warning;
    // Run input (R50).
    /// R50: a recorded run input carries an activity message.
    InputActivityMessage = "input.activity-message", Warning;
    // Lifecycle (R60–R62).
    /// R60: the first event is neither `RUN_STARTED` nor `RUN_ERROR`; fatal.
    LifecycleBeforeRun = "lifecycle.before-run", Error;
    /// R61: an event other than `RUN_STARTED` after the run ended; fatal.
    LifecycleAfterRun = "lifecycle.after-run", Error;
    /// R62: the stream ends with a run still open (an error under the
    /// draft, C12: `truncated-stream-fails-the-run`).
    StreamTruncated = "stream.truncated", Warning;
    /// §11 (`content-without-start-fatal`): a content or end event for a text
    /// message, tool call or reasoning message that is not open, or
    /// `STEP_FINISHED` / `REASONING_END` for one not started; fatal.
    LifecycleNotStarted = "lifecycle.not-started", Error;
    /// §11: a start event for a text message, tool call, reasoning message
    /// or step that is still open; fatal. (A closed message may be reopened:
    /// `reopen-closed-message-appends`.)
    LifecycleAlreadyActive = "lifecycle.already-active", Error;
    /// §11 (`open-message-at-run-finished-fatal`): `RUN_FINISHED` while a
    /// step, text message, tool call or reasoning message is open or a
    /// subagent is active (as the reference client verifies); fatal.
    LifecycleOpenAtRunFinished = "lifecycle.open-at-run-finished", Error;
    // Chunk streams (§11).
    /// §11 (`first-chunk-missing-id-fatal`, `custom-closes-chunk-stream-fatal`):
    /// a chunk without an id and no chunk stream open to continue; fatal.
    ChunkMissingId = "chunk.missing-id", Error;
    /// §11: the first `TOOL_CALL_CHUNK` of a tool call without a
    /// `toolCallName`; fatal.
    ChunkMissingName = "chunk.missing-name", Error;
    /// §11 (`chunk-conflicting-role-fatal`, `chunk-repeat-identical-accepted`):
    /// a continuation chunk whose `role`, `name`, `toolCallName` or
    /// `parentMessageId` differs from its opener's; fatal.
    ChunkConflict = "chunk.conflict", Error;
    // Subagents (§11).
    /// §11 (`subagent-finished-unstarted-fatal`): `SUBAGENT_FINISHED` or
    /// `SUBAGENT_ERROR` for an invocation not active; fatal.
    SubagentNotStarted = "subagent.not-started", Error;
    /// §11 (`subagent-attribution-mismatch-fatal`): a continuation (content,
    /// arguments, end, chunk) whose `subagentRunId` differs from its
    /// opener's; fatal. An untagged continuation continues the opener's.
    SubagentAttributionMismatch = "subagent.attribution-mismatch", Error;
    // Version declaration (§11).
    /// §11 (`producer-declares-newer-version-warns`): `RUN_STARTED` declares a
    /// newer protocol version than the consumer implements; replayed by the
    /// consumer's schema.
    ProtocolVersionNewer = "protocol.version.newer", Warning;
    /// §11: `RUN_STARTED.protocolVersion` is not a version this consumer can
    /// interpret.
    ProtocolVersionUninterpretable = "protocol.version.uninterpretable", Warning;
    // The working draft (C12, issue 39): under `--protocol draft` only.
    /// C12: a `RUN_STARTED` naming another thread than the stream's (the
    /// run input's, or the first run's), or a `RUN_FINISHED` naming another
    /// thread than its run's; fatal.
    LifecycleThreadMismatch = "lifecycle.thread-mismatch", Error;
    /// C12 (`run-finished-wrong-run-id-fatal`): a `RUN_FINISHED` naming
    /// another `runId` than the open run's; fatal.
    LifecycleRunMismatch = "lifecycle.run-mismatch", Error;
    /// C12 (`duplicate-interrupt-id-fatal`): an interrupt outcome with two
    /// interrupts carrying one id; fatal.
    InterruptDuplicateId = "interrupt.duplicate-id", Error;
    // Profiles (§10).
    /// P13 (issue 18): the `spec` and `ag-ui-client-1.0` replays disagree
    /// after this event on something it touched (the outcome, a message or
    /// activity, the message list, the state); names what the deployed
    /// client shows instead, and why.
    ProfileDivergence = "profile.divergence", Info;
    // State (R11 applied to state).
    /// A `STATE_DELTA` whose patch does not apply; state unchanged.
    StatePatchFailed = "state.patch.failed", Warning;

    // Codes this engine adds where the rules are silent.
    /// Ours: `RUN_STARTED` while a run is still open. The protocol forbids
    /// it and the reference client fails the run, so it is fatal here too.
    LifecycleRunOverlap = "lifecycle.run-overlap", Error;
    /// Ours: content or arguments for a message or tool call that is open
    /// but that a `MESSAGES_SNAPSHOT` removed meanwhile; skipped. (Content
    /// for something not open is `lifecycle.not-started`, §11.)
    SequenceNotOpen = "sequence.not-open", Warning;
    /// Ours: a start event for an id that names a message of another kind,
    /// or a closed tool call; skipped. (A start for something still open is
    /// `lifecycle.already-active`, §11.)
    SequenceAlreadyOpen = "sequence.already-open", Warning;
    /// Ours: a run ended with reasoning phases (`REASONING_START`) still
    /// open; noted and closed.
    SequenceLeftOpen = "sequence.left-open", Note;
    /// Ours (E24, issue 39): a string holds a lone UTF-16 surrogate (a
    /// character cut in two by a producer slicing text by UTF-16 units);
    /// kept, and joined with its other half where text is concatenated, as
    /// the reference client does.
    TextSplitSurrogate = "text.split-surrogate", Note;
    /// Ours: an empty `delta` on a content event (the protocol requires a
    /// non-empty string); applied as a no-op.
    EmptyDelta = "text.empty-delta", Note;
    /// Ours: a tool result or an encrypted value names a tool call or message
    /// the consumer does not have.
    UnknownReference = "reference.unknown", Note;
    /// Ours: an SSE body framed with CRLF line ends (accepted).
    SseCrlf = "sse.crlf-framing", Info;
    /// Ours (T1, issue 17.3): no event for longer than the stall threshold
    /// (2 s unless set), between two times of the stream's own (never
    /// invented ones); on the event that ended the wait.
    StreamStall = "stream.stall", Info;
    // Session files of other AG-UI tools (issue 17.5; `input::peer`).
    /// Ours (E21): values of a session read from another tool's file are
    /// its redaction marks (`«redacted: N chars»`), or the file says a
    /// group of values was redacted; shown as they are, never invented.
    PeerRedacted = "peer.redacted", Info;
    /// Ours (E22): a record of another tool's session file that cannot be
    /// used as its format says (not JSON, an unknown kind, no connection,
    /// a second header, a frame without data); said with its line or id,
    /// an event record's bytes still an event.
    PeerRecordDamaged = "peer.record.damaged", Warning;
    /// Ours (E23): what the tool that wrote the file found or recorded
    /// besides the events (its findings, its client's outcome, a
    /// connection without request, an answer that was not a stream).
    PeerFinding = "peer.finding", Info;
    // Limits of what a patch may build (issue 12; `replay::limits`).
    /// Ours: an operation of an `ACTIVITY_DELTA` or `STATE_DELTA` would nest
    /// the document deeper than 128 arrays and objects
    /// (`MAX_DOCUMENT_DEPTH`); the event is skipped like a failed patch.
    PatchLimitDepth = "patch.limit.depth", Warning;
    /// Ours: an operation would make the document weigh more than 64 MiB,
    /// or the patch copies more than that in all (`MAX_DOCUMENT_BYTES`);
    /// the event is skipped like a failed patch.
    PatchLimitBytes = "patch.limit.size", Warning;
    /// Ours: a patch of more than 10,000 operations (`MAX_PATCH_OPS`); the
    /// event is skipped like a failed patch.
    PatchLimitOps = "patch.limit.ops", Warning;
    // What a served front end sends (issue 15; `serve`).
    /// Ours (E13): the run input a front end posted to `agui-replay serve`
    /// holds other messages than the recorded run input (activity messages
    /// aside, which are R50's).
    ServeInputDiffers = "serve.input.differs", Warning;
    // Snapshot drift (issue 17.1; E20). Each subject has two codes (issue
    // 39): a drift at paths the deltas since the baseline set, and one at
    // paths none of them set.
    /// Ours (E20, R8, R44): a replacing `ACTIVITY_SNAPSHOT` for an activity
    /// amended by deltas since its last snapshot says other than what the
    /// consumer held at paths those deltas set (a repair, or applied
    /// differently); carries the patch from held to snapshot at them.
    ActivityDrift = "activity.drift", Info;
    /// Ours (E20, issue 39): a replacing `ACTIVITY_SNAPSHOT` changes the
    /// activity at paths no delta since its last snapshot set: changed
    /// without a delta; carries the patch at those paths.
    ActivityDriftUnstreamed = "activity.drift.unstreamed", Info;
    /// Ours (E20, E1): a `STATE_SNAPSHOT` after `STATE_DELTA`s says other
    /// than the state the consumer held, at paths those deltas set.
    StateDrift = "state.drift", Info;
    /// Ours (E20, issue 39): a `STATE_SNAPSHOT` after `STATE_DELTA`s
    /// changes the state at paths none of them set.
    StateDriftUnstreamed = "state.drift.unstreamed", Info;
    /// Ours (E20, R51): a `MESSAGES_SNAPSHOT` replaces a message the
    /// consumer built from streamed events with another one, differing at
    /// paths those events set.
    MessagesDrift = "messages.drift", Info;
    /// Ours (E20, issue 39): a `MESSAGES_SNAPSHOT` changes a streamed
    /// message at paths no streamed event since its baseline set.
    MessagesDriftUnstreamed = "messages.drift.unstreamed", Info;
    // Content schemas (issue 42; `schemas`): only with a schema folder.
    /// Ours (S1): after a snapshot or delta, an activity's content breaks
    /// its type's schema (`DIR/<activityType>.schema.json`) at a path and
    /// keyword where it did not at its last validation; names the path,
    /// the keyword and what was expected.
    ActivityContentSchema = "activity.content.schema", Warning;
    /// Ours (S1): the shared state breaks `DIR/_state.schema.json`, as
    /// `activity.content.schema` says of a content.
    StateContentSchema = "state.content.schema", Warning;
}

impl Code {
    /// Whether this is one of the drift codes (E20), which carry a
    /// [`Drift`].
    pub fn is_drift(self) -> bool {
        matches!(
            self,
            Self::ActivityDrift
                | Self::ActivityDriftUnstreamed
                | Self::StateDrift
                | Self::StateDriftUnstreamed
                | Self::MessagesDrift
                | Self::MessagesDriftUnstreamed
        )
    }

    /// Whether a diagnostic of this code means the replay removed the
    /// member at its path before delivering the event (R17, R42): what a
    /// consumer strips, which the corpus's `eventAbsentPaths` observes.
    pub fn strips_member(self) -> bool {
        matches!(
            self,
            Self::EventUnknownProperty
                | Self::EventUnknownVariant
                | Self::EventUnknownEnumValue
                | Self::PatchOpUnknown
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One problem (or remark) attached to the event that caused it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// The event it belongs to; `Seq(0)` for the stream as a whole.
    pub seq: Seq,
    /// How bad it is (the code's severity, adjusted by the profile).
    pub severity: Severity,
    /// The stable code.
    pub code: Code,
    /// The message (activity, text, tool…) it concerns, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// A JSON pointer or field path inside the event, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Plain words: what happened and why.
    pub message: String,
    /// For a drift code (E20): what the consumer held against what the
    /// snapshot says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<Box<Drift>>,
}

/// Which of the three a drift is (E20).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftKind {
    /// At paths the deltas since the last baseline set, one of which
    /// failed or was skipped (R44): the snapshot is the producer's normal
    /// repair (R8).
    Repair,
    /// At paths the deltas since the last baseline set, none of which
    /// failed: the producer and the consumer applied the same deltas and
    /// came out different ("applied differently").
    Unexplained,
    /// At paths no delta since the last baseline set: the producer changed
    /// them without streaming the change ("changed without a delta", issue
    /// 39); the `*.drift.unstreamed` codes.
    Unstreamed,
}

impl DriftKind {
    /// `repair`, `unexplained` or `unstreamed`, as in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Repair => "repair",
            Self::Unexplained => "unexplained",
            Self::Unstreamed => "unstreamed",
        }
    }
}

/// What a drift diagnostic carries (E20): how the consumer's copy came to
/// differ and the RFC 6902 patch that takes it to the snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// A repair after a failure, a drift with none before it, or a change
    /// at paths no delta set.
    pub kind: DriftKind,
    /// The step of the first change since the last baseline.
    pub since: Seq,
    /// How many deltas (or streamed events) changed it since the baseline.
    pub deltas: u64,
    /// The first of them that failed or was skipped, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<Seq>,
    /// The RFC 6902 operations from what the consumer held to the
    /// snapshot at the paths of this kind (those the deltas set, or those
    /// none set: issue 39), in the order of the whole patch, with pointers
    /// into the message (`/content/…`) or into the state, as `find` and
    /// `blame` take them.
    pub patch: DriftPatch,
}

/// A drift's patch (E20): a JSON value, or the compact JSON text a stored
/// index holds it as, parsed the first time it is read (issue 14: a
/// 10,000,000-event recording's last state holds 169,000 diagnostics, and
/// parsing every patch was most of its open). Compared, cloned and
/// serialized as the value it holds.
#[derive(Clone, Default)]
pub struct DriftPatch {
    /// The text, when read from an index and not parsed yet.
    text: Option<Box<[u8]>>,
    value: std::sync::OnceLock<serde_json::Value>,
}

impl DriftPatch {
    /// A patch of `text` (compact JSON, as `serde_json` writes it), checked
    /// to be JSON now (without building it), parsed when first read; `None`
    /// when it is not JSON.
    pub fn from_json_text(text: &[u8]) -> Option<Self> {
        serde_json::from_slice::<serde::de::IgnoredAny>(text).ok()?;
        Some(Self {
            text: Some(text.into()),
            value: std::sync::OnceLock::new(),
        })
    }

    /// A patch of `text`, compact JSON that `serde_json` wrote and can
    /// read back (not checked again), parsed when first read. What a
    /// replay makes its drifts' patches as (issue 40: it holds every
    /// diagnostic it made, and a patch's text weighs a fraction of its
    /// value: the values were 41 of the 177 MB heap of a 2,000,000-event
    /// import).
    pub(crate) fn from_written_text(text: Vec<u8>) -> Self {
        Self {
            text: Some(text.into_boxed_slice()),
            value: std::sync::OnceLock::new(),
        }
    }

    /// The patch (a JSON array of operations), parsed on first use.
    pub fn value(&self) -> &serde_json::Value {
        self.value.get_or_init(|| {
            // Checked to be JSON when made: parsing cannot fail.
            self.text
                .as_deref()
                .and_then(|text| serde_json::from_slice(text).ok())
                .unwrap_or(serde_json::Value::Null)
        })
    }

    /// Its compact JSON text, when it was made from one (a stored index
    /// writes it back as it was, whether it was parsed since or not).
    pub fn json_text(&self) -> Option<&[u8]> {
        self.text.as_deref()
    }
}

impl From<serde_json::Value> for DriftPatch {
    fn from(value: serde_json::Value) -> Self {
        Self {
            text: None,
            value: std::sync::OnceLock::from(value),
        }
    }
}

impl std::fmt::Debug for DriftPatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value().fmt(f)
    }
}

impl PartialEq for DriftPatch {
    fn eq(&self, other: &Self) -> bool {
        match (self.json_text(), other.json_text()) {
            (Some(a), Some(b)) if a == b => true,
            _ => self.value() == other.value(),
        }
    }
}

impl Eq for DriftPatch {}

impl PartialEq<serde_json::Value> for DriftPatch {
    fn eq(&self, other: &serde_json::Value) -> bool {
        self.value() == other
    }
}

impl Serialize for DriftPatch {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl Drift {
    /// The JSON pointers the patch touches, in order.
    pub fn paths(&self) -> Vec<String> {
        self.patch
            .value()
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|op| op.get("path").and_then(serde_json::Value::as_str))
            .map(str::to_owned)
            .collect()
    }
}

impl Diagnostic {
    /// A diagnostic with the code's own severity. A lone UTF-16 surrogate
    /// the message quotes (an id, a pointer, a value) is shown as such,
    /// `�⟨\ud83d⟩` (issue 39): the message is for people.
    pub fn new(seq: Seq, code: Code, message: impl Into<String>) -> Self {
        let mut message = message.into();
        if let std::borrow::Cow::Owned(shown) = crate::surrogate::display(&message) {
            message = shown;
        }
        Self {
            seq,
            severity: code.severity(),
            code,
            message_id: None,
            path: None,
            message,
            drift: None,
        }
    }

    /// Attaches the message id it concerns.
    pub fn with_message_id(mut self, id: impl Into<String>) -> Self {
        self.message_id = Some(id.into());
        self
    }

    /// Attaches a path inside the event.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Overrides the severity (profiles do this for a few codes).
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
}

/// Counts of diagnostics per severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeverityCounts {
    /// `error` diagnostics.
    pub error: usize,
    /// `warning` diagnostics.
    pub warning: usize,
    /// `note` diagnostics.
    pub note: usize,
    /// `info` diagnostics.
    pub info: usize,
}

impl SeverityCounts {
    /// Counts the diagnostics of a slice.
    pub fn of(diagnostics: &[Diagnostic]) -> Self {
        let mut counts = Self::default();
        for diagnostic in diagnostics {
            counts.add(diagnostic.severity);
        }
        counts
    }

    /// Counts one more diagnostic of `severity`.
    pub fn add(&mut self, severity: Severity) {
        *self.get_mut(severity) += 1;
    }

    /// The count for one severity.
    pub fn get(&self, severity: Severity) -> usize {
        match severity {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Note => self.note,
            Severity::Info => self.info,
        }
    }

    fn get_mut(&mut self, severity: Severity) -> &mut usize {
        match severity {
            Severity::Error => &mut self.error,
            Severity::Warning => &mut self.warning,
            Severity::Note => &mut self.note,
            Severity::Info => &mut self.info,
        }
    }

    /// The worst severity with a non-zero count.
    pub fn worst(&self) -> Option<Severity> {
        Severity::ALL.into_iter().find(|&s| self.get(s) > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        for code in Code::ALL {
            assert_eq!(Code::from_name(code.as_str()), Some(*code));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
    }

    #[test]
    fn spec_codes_have_the_spec_severities() {
        // Severities as REPLAY-RULES.md gives them.
        let expected = [
            ("activity.snapshot.declined", Severity::Info),
            ("activity.snapshot.owner-mismatch", Severity::Note),
            ("activity.snapshot.id-collision", Severity::Warning),
            ("activity.delta.retyped", Severity::Info),
            ("activity.delta.unknown-target", Severity::Warning),
            ("activity.delta.not-activity", Severity::Warning),
            ("activity.patch.failed", Severity::Warning),
            ("activity.content.not-object", Severity::Note),
            ("patch.op.unknown", Severity::Warning),
            ("subagent.owner-mismatch", Severity::Error),
            ("event.malformed", Severity::Error),
            ("event.unparseable", Severity::Error),
            ("event.unknown-type", Severity::Warning),
            ("event.unknown-property", Severity::Warning),
            ("input.activity-message", Severity::Warning),
            ("lifecycle.before-run", Severity::Error),
            ("lifecycle.after-run", Severity::Error),
            ("stream.truncated", Severity::Warning),
            ("state.patch.failed", Severity::Warning),
            // §11 and the corpus.
            ("lifecycle.not-started", Severity::Error),
            ("lifecycle.open-at-run-finished", Severity::Error),
            ("chunk.missing-id", Severity::Error),
            ("chunk.conflict", Severity::Error),
            ("subagent.not-started", Severity::Error),
            ("subagent.attribution-mismatch", Severity::Error),
            ("protocol.version.newer", Severity::Warning),
            ("protocol.version.uninterpretable", Severity::Warning),
            ("event.unknown-variant", Severity::Warning),
        ];
        for (name, severity) in expected {
            let code = Code::from_name(name).expect(name);
            assert_eq!(code.severity(), severity, "{name}");
        }
    }

    #[test]
    fn diagnostic_serializes_in_the_contract_shape() {
        let d = Diagnostic::new(
            Seq(3),
            Code::PatchFailed,
            "op 1 (test /query): value differs",
        )
        .with_message_id("act-1");
        let json = serde_json::to_value(&d).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"seq": 3, "severity": "warning", "code": "activity.patch.failed",
                "messageId": "act-1", "message": "op 1 (test /query): value differs"})
        );
    }
}
