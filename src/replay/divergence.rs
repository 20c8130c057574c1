//! Where the two consumer profiles part (P13, issue 18): the same stream
//! replayed under `spec` and under `ag-ui-client-1.0` in lockstep, and an
//! `info` diagnostic `profile.divergence` at every event after which they
//! disagree on something that event touched (the outcome, a message or an
//! activity, the message list, the state), naming what the other consumer
//! shows there and why.
//!
//! Cheap by construction: after each event only what the event names is
//! compared (its message, its tool call's message, the state for a state
//! event, the whole list only for the events that rebuild it: a
//! `MESSAGES_SNAPSHOT` or a `RUN_STARTED` with an input), plus the lengths
//! of the two lists. A difference is reported where it appears; the same
//! difference is not reported again until the two have agreed once more.
//!
//! Cheaper still where the two cannot part (issue 40): an `ACTIVITY_DELTA`
//! whose patch the client's library applies as RFC 6902 does
//! ([`applies_as_rfc`]), to an activity both hold alike, is applied by the
//! `spec` replay alone when it succeeds there; the other replay only
//! counts the step, and its copy of the activity is left behind
//! (`stale`), to be brought up to date from the first replay before
//! anything reads it. Where the delta fails, the other replay applies it
//! itself as before. The diagnostics are those of the two full replays
//! (tests/engine/divergence_fast.rs compares them).

use rustc_hash::FxHashSet;
use serde_json::Value;

use super::conversation::{Message, OtherMessage};
use super::engine::{ActivityChange, Effect, EventEffect, Replayer, RunPhase};
use super::patch::applies_as_rfc;
use super::{Options, Profile};
use crate::diagnostic::{Code, Diagnostic};
use crate::event_log::RawEvents;
use crate::protocol::{EventBody, EventType, ParseOutcome, for_each_parsed, parse_event};

/// What two replays may disagree on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The message (or activity) with this id: its value and position.
    Message(String),
    /// The message list as a whole (its length, its order).
    List,
    /// The shared state.
    State,
}

/// What an event touches, read before it is applied.
#[derive(Default)]
struct Touched {
    messages: Vec<String>,
    tool_calls: Vec<String>,
    list: bool,
    state: bool,
    /// The rules that decide this kind of event in each profile.
    rules: &'static str,
    /// A `*_CONTENT` event: the text it appends to its message (issue 38).
    appended: Option<String>,
}

impl Touched {
    fn of(parsed: &ParseOutcome) -> Self {
        let mut touched = Self::default();
        let ParseOutcome::Event { event, .. } = parsed else {
            return touched;
        };
        use EventBody as B;
        match &event.body {
            B::MessagesSnapshot { .. } => touched.list = true,
            B::RunStarted { input, .. } => {
                touched.list = input.as_ref().is_some_and(|i| i.get("messages").is_some());
            }
            B::StateSnapshot { .. } | B::StateDelta { .. } => touched.state = true,
            B::ToolCallStart { tool_call_id, .. }
            | B::ToolCallArgs { tool_call_id, .. }
            | B::ToolCallEnd { tool_call_id } => touched.tool_calls.push(tool_call_id.clone()),
            B::ToolCallChunk { tool_call_id, .. } => {
                touched.tool_calls.extend(tool_call_id.iter().cloned());
            }
            B::ToolCallResult { tool_call_id, .. } => {
                touched.tool_calls.push(tool_call_id.clone());
            }
            B::ReasoningEncryptedValue { entity_id, .. } => {
                touched.tool_calls.push(entity_id.to_string());
            }
            B::TextMessageContent { delta, .. } | B::ReasoningMessageContent { delta, .. } => {
                touched.appended = Some(delta.to_string());
            }
            _ => {}
        }
        touched
            .messages
            .extend(event.message_id().map(str::to_owned));
        touched.rules = match &event.body {
            B::MessagesSnapshot { .. } => "R51 under spec, P5 and P11 under the client",
            B::RunStarted { .. } => "E11 and R23 under spec, P12 under the client",
            B::ActivitySnapshot { .. } => "R2–R9 under spec, P3 and P12 under the client",
            B::ActivityDelta { .. } => "R10–R22 under spec, P2, P4 and P12 under the client",
            B::StateSnapshot { .. } | B::StateDelta { .. } => "E1 and R11",
            _ => "the profile rules (P1)",
        };
        touched
    }
}

/// Two replays of one stream, one per profile, applied in lockstep.
#[derive(Clone, Debug)]
pub struct Lockstep {
    primary: Replayer,
    shadow: Replayer,
    diverged: FxHashSet<Key>,
    /// The outcomes parted (or both runs failed): nothing more to compare.
    stopped: bool,
    found: Vec<Diagnostic>,
    /// The message last compared whole and found the same in both, with
    /// the length of its text `content`, while every event since appended
    /// to it alone: a text appended by the next `*_CONTENT` event is
    /// compared by what it added, not whole (issue 38: comparing a long
    /// message whole after each of its deltas was quadratic).
    agreed_text: Option<(String, usize)>,
    /// Whether an event may be applied to the primary alone where the two
    /// cannot part ([`Self::apply_mirroring`], issue 40).
    mirroring: bool,
    /// Activities the two replays agreed on when last compared, and which
    /// only mirrored deltas changed since: the shadow's copy may be behind,
    /// the primary's is what both show (issue 40). Brought up to date
    /// ([`Self::refresh`]) before the shadow reads it or a comparison
    /// needs it.
    stale: FxHashSet<String>,
}

impl Lockstep {
    /// Two replays: `primary` (whose diagnostics a caller shows) and
    /// `shadow`, the same start under the other profile.
    pub fn new(primary: Replayer, shadow: Replayer) -> Self {
        Self {
            primary,
            shadow,
            diverged: FxHashSet::default(),
            stopped: false,
            found: Vec::new(),
            agreed_text: None,
            mirroring: false,
            stale: FxHashSet::default(),
        }
    }

    /// The options of the other profile (same protocol and best-effort).
    pub fn other_options(options: Options) -> Options {
        let profile = match options.profile {
            Profile::Spec => Profile::AgUiClient10,
            Profile::AgUiClient10 => Profile::Spec,
        };
        Options { profile, ..options }
    }

    /// Applies the next event to both replays and compares what it touched.
    pub fn apply(&mut self, parsed: &mut ParseOutcome) {
        self.apply_both(parsed);
    }

    /// [`Self::apply`], where an `ACTIVITY_DELTA` the two replays cannot
    /// reduce differently is applied by the primary alone (issue 40):
    /// `reparse` reads the event again, for the shadow, if the primary
    /// did not apply it after all.
    fn apply_mirroring(
        &mut self,
        parsed: &mut ParseOutcome,
        reparse: impl FnOnce() -> ParseOutcome,
    ) {
        if self.stopped {
            // Nothing is compared any more: the shadow is not read again.
            self.primary.apply_taking(parsed);
            return;
        }
        if !self.mirrors(parsed) {
            self.apply_both(parsed);
            return;
        }
        let from = (
            self.primary.diagnostics().len(),
            self.shadow.diagnostics().len(),
        );
        let effect = self.primary.apply_taking(parsed);
        self.agreed_text = None;
        let applied = EventEffect {
            effect: Effect::Applied,
            activity: Some(ActivityChange::DeltaApplied),
        };
        if effect == applied
            && self.primary.diagnostics().len() == from.0
            && let ParseOutcome::Event { event, .. } = parsed
            && let EventBody::ActivityDelta {
                message_id, patch, ..
            } = &event.body
        {
            // Both applied it alike (P7 agrees with RFC 6902 here): both
            // still show the same activity, and nothing else changed.
            self.shadow
                .mirror_delta(message_id, patch, event.envelope.metadata.as_ref());
            return;
        }
        // R11, D3: the delta failed, and the primary's activity is as it
        // was; the shadow applies the event itself (P4 merges its
        // metadata), from a copy of the event read again.
        let mut parsed = reparse();
        let touched = Touched::of(&parsed);
        for id in &touched.messages {
            self.refresh(id);
        }
        self.shadow.apply_taking(&mut parsed);
        self.compare(&touched, from);
    }

    /// Whether the next event is an `ACTIVITY_DELTA` that, applied by the
    /// primary (`spec`) with success, the shadow (`ag-ui-client-1.0`)
    /// would apply alike, with nothing to report and nothing to compare
    /// (issue 40): both replays are in an open run (R60, R61) and have not
    /// failed, the event has no issue, drops no operation (R17) and names
    /// no owner (R22, P12), the activity is one both show alike (`stale`),
    /// at the same position or with the lists already reported apart, it
    /// keeps its type (R10) and the patch is one the client's library
    /// applies as RFC 6902 does (P7).
    fn mirrors(&self, parsed: &ParseOutcome) -> bool {
        let ParseOutcome::Event { event, issues } = parsed else {
            return false;
        };
        let EventBody::ActivityDelta {
            message_id,
            activity_type,
            patch,
        } = &event.body
        else {
            return false;
        };
        let (a, b) = (&self.primary, &self.shadow);
        let id = message_id.as_str();
        let simple = self.mirroring
            && issues.is_empty()
            && patch.dropped.is_empty()
            && event.envelope.subagent_run_id.is_none()
            && a.fatal().is_none()
            && b.fatal().is_none()
            && a.run == RunPhase::Open
            && b.run == RunPhase::Open
            && self.stale.contains(id);
        if !simple {
            return false;
        }
        let Some(at) = a.conversation.position(id) else {
            return false;
        };
        let placed_alike = self.diverged.contains(&Key::List)
            || (a.conversation.len() == b.conversation.len()
                && b.conversation.position(id) == Some(at));
        placed_alike
            && matches!(a.conversation.at(at), Some(Message::Activity(activity))
                if activity.activity_type == **activity_type
                    && applies_as_rfc(&activity.content, activity.content_bytes, patch))
    }

    /// Brings the shadow's copy of activity `id` up to date, if it may be
    /// behind: the primary's, shared.
    fn refresh(&mut self, id: &str) {
        if !self.stale.remove(id) {
            return;
        }
        let (Some(i), Some(j)) = (
            self.primary.conversation.position(id),
            self.shadow.conversation.position(id),
        ) else {
            return;
        };
        if let Some(message) = self.primary.conversation.shared_at(i) {
            let message = std::sync::Arc::clone(message);
            self.shadow.conversation.replace_at(j, message);
        }
    }

    /// Brings every copy the shadow may hold behind up to date.
    fn refresh_all(&mut self) {
        let stale: Vec<String> = self.stale.iter().cloned().collect();
        for id in stale {
            self.refresh(&id);
        }
    }

    /// Before the shadow applies `touched`'s event: its copies of what the
    /// event may read brought up to date. The events of one entity read
    /// that entity (and a tool call's, the message holding it); any other
    /// may read the whole list.
    fn refresh_before(&mut self, parsed: &ParseOutcome, touched: &Touched) {
        if self.stale.is_empty() {
            return;
        }
        use EventType as T;
        let local = matches!(
            parsed.event_type(),
            Some(
                T::ActivitySnapshot
                    | T::ActivityDelta
                    | T::StateSnapshot
                    | T::StateDelta
                    | T::TextMessageStart
                    | T::TextMessageContent
                    | T::TextMessageEnd
                    | T::ToolCallStart
                    | T::ToolCallArgs
                    | T::ToolCallEnd
                    | T::ToolCallResult
            )
        ) && matches!(parsed, ParseOutcome::Event { .. });
        if !local || touched.list {
            self.refresh_all();
            return;
        }
        let mut ids = touched.messages.clone();
        for call in &touched.tool_calls {
            for replayer in [&self.primary, &self.shadow] {
                if let Some(holder) = replayer.tool_call_messages.get(call) {
                    ids.push(holder.clone());
                }
            }
        }
        for id in ids {
            self.refresh(&id);
        }
    }

    /// Applies the next event to both replays and compares what it touched.
    fn apply_both(&mut self, parsed: &mut ParseOutcome) {
        let touched = Touched::of(parsed);
        self.refresh_before(parsed, &touched);
        // Only an append to that message alone keeps what was found of it.
        let appends_to_agreed = touched.appended.is_some()
            && touched.tool_calls.is_empty()
            && matches!((&self.agreed_text, touched.messages.as_slice()),
                (Some((agreed, _)), [id]) if agreed == id);
        if !appends_to_agreed {
            self.agreed_text = None;
        }
        let from = (
            self.primary.diagnostics().len(),
            self.shadow.diagnostics().len(),
        );
        self.primary.apply(parsed.clone());
        self.shadow.apply_taking(parsed);
        if self.stopped {
            return;
        }
        self.compare(&touched, from);
    }

    /// The end-of-stream checks of both replays.
    pub fn finish(&mut self) {
        self.refresh_all();
        self.primary.finish();
        self.shadow.finish();
    }

    /// The primary replay.
    pub fn primary(&self) -> &Replayer {
        &self.primary
    }

    /// The `profile.divergence` diagnostics found so far, in seq order.
    pub fn divergences(&self) -> &[Diagnostic] {
        &self.found
    }

    /// The primary replay and the divergences.
    pub fn into_parts(self) -> (Replayer, Vec<Diagnostic>) {
        (self.primary, self.found)
    }

    fn compare(&mut self, touched: &Touched, from: (usize, usize)) {
        let primary_failed = self.primary.fatal().is_some();
        let shadow_failed = self.shadow.fatal().is_some();
        if primary_failed || shadow_failed {
            self.agreed_text = None;
        }
        if primary_failed != shadow_failed {
            let describe = |failed: bool, r: &Replayer| match (failed, r.fatal()) {
                (true, Some(d)) => format!("the run failing ({}: {})", d.code, d.message),
                _ => "the run going on".to_owned(),
            };
            let primary = describe(primary_failed, &self.primary);
            let shadow = describe(shadow_failed, &self.shadow);
            let failing = if primary_failed {
                &self.primary
            } else {
                &self.shadow
            };
            let id = failing.fatal().and_then(|d| d.message_id.clone());
            self.report(id.as_deref(), &primary, &shadow, from, touched.rules);
            if !self.primary.options().best_effort {
                self.stopped = true;
            }
            return;
        }
        if primary_failed && !self.primary.options().best_effort {
            self.stopped = true;
            return;
        }
        let mut keys: Vec<Key> = touched
            .messages
            .iter()
            .map(|id| Key::Message(id.clone()))
            .collect();
        for call in &touched.tool_calls {
            for replayer in [&self.primary, &self.shadow] {
                if let Some(holder) = replayer.tool_call_messages.get(call) {
                    let key = Key::Message(holder.clone());
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
            }
        }
        if touched.state {
            keys.push(Key::State);
        }
        let lengths_differ = self.primary.conversation.len() != self.shadow.conversation.len();
        if touched.list || lengths_differ {
            keys.push(Key::List);
        }
        for key in keys {
            if key == Key::List {
                // The lists compared whole: every copy up to date.
                self.refresh_all();
            }
            let agree = match (&key, touched.appended.as_deref()) {
                (Key::Message(id), Some(delta)) => self.agree_appended(id, delta),
                _ => self.agree(&key),
            };
            if agree {
                if let Key::Message(id) = &key {
                    self.note_agreed(id);
                }
                self.diverged.remove(&key);
            } else if self.diverged.insert(key.clone()) {
                let (primary, shadow) = describe_pair(&self.primary, &self.shadow, &key);
                let id = match &key {
                    Key::Message(id) => Some(id.clone()),
                    _ => None,
                };
                self.report(id.as_deref(), &primary, &shadow, from, touched.rules);
            }
        }
    }

    /// Whether the two agree on message `id` after an event appended
    /// `delta` to its text (issue 38): compared by what the text gained
    /// when the two agreed on the message before, and every other member
    /// and the position whole; otherwise the whole message. Remembers the
    /// message as agreed for the next append.
    fn agree_appended(&mut self, id: &str, delta: &str) -> bool {
        fn texts<'a>(r: &'a Replayer, id: &str) -> Option<(&'a OtherMessage, usize)> {
            match r.conversation.get(id) {
                Some(Message::Other(m)) => match m.fields.get("content") {
                    Some(Value::String(text)) => Some((m, text.len())),
                    _ => None,
                },
                _ => None,
            }
        }
        let (a, b) = (&self.primary, &self.shadow);
        let before = self
            .agreed_text
            .take()
            .and_then(|(agreed, len)| (agreed == id).then_some(len));
        let agree = match (before, texts(a, id), texts(b, id)) {
            (Some(len), Some((ma, la)), Some((mb, lb))) if la == lb => {
                let grown = |m: &OtherMessage| {
                    matches!(m.fields.get("content"), Some(Value::String(t))
                        if t.len() == len + delta.len() && t.ends_with(delta))
                };
                let others_same = ma.id == mb.id
                    && ma.role == mb.role
                    && ma.fields.len() == mb.fields.len()
                    && ma
                        .fields
                        .iter()
                        .filter(|(name, _)| *name != "content")
                        .all(|(name, value)| mb.fields.get(name) == Some(value));
                grown(ma)
                    && grown(mb)
                    && others_same
                    && (self.diverged.contains(&Key::List)
                        || a.conversation.position(id) == b.conversation.position(id))
            }
            _ => self.agree(&Key::Message(id.to_owned())),
        };
        if agree && let Some((_, len)) = texts(&self.primary, id) {
            self.agreed_text = Some((id.to_owned(), len));
        }
        agree
    }

    /// Message `id` was found alike in both: an activity is then one a
    /// delta may be mirrored to (issue 40).
    fn note_agreed(&mut self, id: &str) {
        if !self.mirroring || self.stale.contains(id) {
            return;
        }
        let activity = |r: &Replayer| matches!(r.conversation.get(id), Some(Message::Activity(_)));
        if activity(&self.primary) && activity(&self.shadow) {
            self.stale.insert(id.to_owned());
        }
    }

    fn agree(&self, key: &Key) -> bool {
        let (a, b) = (&self.primary, &self.shadow);
        match key {
            // Once the lists differ (reported as such), positions say
            // nothing new: only the message itself is compared.
            Key::Message(id) => {
                #[cfg(test)]
                WHOLE_MESSAGE_COMPARISONS.with(|n| n.set(n.get() + 1));
                (self.diverged.contains(&Key::List)
                    || a.conversation.position(id) == b.conversation.position(id))
                    // A copy left behind is the primary's (issue 40).
                    && (self.stale.contains(id.as_str())
                        || a.conversation.get(id) == b.conversation.get(id))
            }
            Key::List => a.conversation == b.conversation,
            Key::State => a.state_bytes == b.state_bytes && a.state == b.state,
        }
    }

    /// Reports a divergence at the current step: `primary` and `shadow`
    /// say what each consumer shows.
    fn report(
        &mut self,
        message_id: Option<&str>,
        primary: &str,
        shadow: &str,
        from: (usize, usize),
        rules: &str,
    ) {
        let seq = self.primary.step();
        let (client, spec, client_from, spec_from) = match self.primary.profile() {
            Profile::AgUiClient10 => (primary, shadow, from.0, from.1),
            Profile::Spec => (shadow, primary, from.1, from.0),
        };
        let (client_replay, spec_replay) = match self.primary.profile() {
            Profile::AgUiClient10 => (&self.primary, &self.shadow),
            Profile::Spec => (&self.shadow, &self.primary),
        };
        let because = because(
            &spec_replay.diagnostics()[spec_from..],
            &client_replay.diagnostics()[client_from..],
            rules,
        );
        let text = format!(
            "your client ({}) shows {client} here; the spec shows {spec}, because {because}",
            Profile::AgUiClient10
        );
        let mut diagnostic = Diagnostic::new(seq, Code::ProfileDivergence, text);
        diagnostic.message_id = message_id.map(str::to_owned);
        self.found.push(diagnostic);
    }
}

#[cfg(test)]
thread_local! {
    /// How many times a message was compared whole (issue 38's tests).
    static WHOLE_MESSAGE_COMPARISONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What each replay shows for `key`, in a few words: for a message both
/// hold, only the members that differ (and its position when that does).
fn describe_pair(a: &Replayer, b: &Replayer, key: &Key) -> (String, String) {
    let whole = || (describe(a, key), describe(b, key));
    let Key::Message(id) = key else {
        return whole();
    };
    let (Some(ma), Some(mb)) = (a.conversation.get(id), b.conversation.get(id)) else {
        return whole();
    };
    let (ja, jb) = (ma.to_json(), mb.to_json());
    let (Some(oa), Some(ob)) = (ja.as_object(), jb.as_object()) else {
        return whole();
    };
    let mut names: Vec<&String> = oa.keys().chain(ob.keys()).collect();
    names.sort_unstable();
    names.dedup();
    let differing: Vec<&String> = names
        .into_iter()
        .filter(|name| oa.get(*name) != ob.get(*name))
        .collect();
    let moved = a.conversation.position(id) != b.conversation.position(id);
    let side = |r: &Replayer, m: &Message, o: &serde_json::Map<String, Value>| {
        let mut parts: Vec<String> = differing
            .iter()
            .map(|name| match o.get(*name) {
                Some(value) => format!("{name} {}", brief(value)),
                None => format!("no {name}"),
            })
            .collect();
        if moved {
            let at = r.conversation.position(id).unwrap_or_default();
            parts.push(format!("at position {at}"));
        }
        format!("{} {id:?} with {}", kind(m), parts.join(", "))
    };
    (side(a, ma, oa), side(b, mb, ob))
}

/// What one replay shows for `key`, in a few words.
fn describe(replayer: &Replayer, key: &Key) -> String {
    match key {
        Key::Message(id) => match replayer.conversation.get(id) {
            None => format!("no message {id:?}"),
            Some(message) => {
                let position = replayer.conversation.position(id).unwrap_or_default();
                format!(
                    "{} {id:?} at position {position}: {}",
                    kind(message),
                    brief(&message.to_json())
                )
            }
        },
        Key::List => {
            let ids: Vec<&str> = replayer.conversation.iter().map(Message::id).collect();
            let shown: Vec<&str> = ids.iter().take(12).copied().collect();
            let more = if ids.len() > shown.len() { ", …" } else { "" };
            format!("{} messages [{}{more}]", ids.len(), shown.join(", "))
        }
        Key::State => format!("the state {}", brief(&replayer.state)),
    }
}

fn kind(message: &Message) -> &'static str {
    match message {
        Message::Activity(_) => "activity",
        Message::Other(_) => "message",
    }
}

/// A value's JSON text, cut at about 160 characters.
fn brief(value: &Value) -> String {
    const MAX: usize = 160;
    let text = value.to_string();
    if text.len() <= MAX {
        return text;
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Why the two consumers part at this event: what each reported for it,
/// with the rules behind the codes, or the rules that decide when neither
/// said anything.
fn because(spec: &[Diagnostic], client: &[Diagnostic], rules: &str) -> String {
    let name = |d: &Diagnostic| {
        let rule = crate::rules::reference()
            .rule_of(d.code)
            .map(|r| format!(" ({})", r.id))
            .unwrap_or_default();
        format!("{} {}{rule}", d.severity, d.code)
    };
    let list = |ds: &[Diagnostic]| -> String {
        let names: Vec<String> = ds
            .iter()
            .filter(|d| d.code != Code::ProfileDivergence)
            .map(name)
            .collect();
        if names.is_empty() {
            "nothing".to_owned()
        } else {
            names.join(", ")
        }
    };
    let (spec_said, client_said) = (list(spec), list(client));
    if spec_said == client_said {
        format!("the two reduce this event differently (both report {spec_said}; {rules} decide)")
    } else {
        format!(
            "the spec reports {spec_said} and {} reports {client_said} ({rules} decide)",
            Profile::AgUiClient10
        )
    }
}

/// Replays a whole stream from `start` and, in lockstep, from `shadow`
/// (the same start under the other profile), runs the end-of-stream checks,
/// and returns the primary replay with the `profile.divergence`
/// diagnostics (P13).
pub fn replay_comparing<E: RawEvents + ?Sized>(
    start: Replayer,
    shadow: Replayer,
    log: &E,
) -> (Replayer, Vec<Diagnostic>) {
    let mut lockstep = Lockstep::new(start, shadow);
    // Issue 40: the primary alone where the two cannot part; only `spec`
    // as the primary knows when that is (its failures leave the activity
    // as it was, R11 and D3).
    lockstep.mirroring = lockstep.primary.profile() == Profile::Spec;
    lockstep.primary.reserve(log.len());
    lockstep.shadow.reserve(log.len());
    for_each_parsed(log, |seq, _, parsed| {
        let reparse = || {
            let mut again = None;
            if let Some(index) = seq.index() {
                log.for_each_raw(index..index + 1, &mut |_, raw| {
                    again = Some(parse_event(raw));
                });
            }
            again.unwrap_or_else(|| ParseOutcome::Unparseable {
                reason: "the event could not be read again".to_owned(),
            })
        };
        lockstep.apply_mirroring(parsed, reparse);
    });
    lockstep.finish();
    lockstep.into_parts()
}

/// [`replay_comparing`] without the shortcut of issue 40: both replays
/// apply every event. The reference the shortcut is tested against.
#[doc(hidden)]
pub fn replay_comparing_fully<E: RawEvents + ?Sized>(
    start: Replayer,
    shadow: Replayer,
    log: &E,
) -> (Replayer, Vec<Diagnostic>) {
    let mut lockstep = Lockstep::new(start, shadow);
    lockstep.primary.reserve(log.len());
    lockstep.shadow.reserve(log.len());
    for_each_parsed(log, |_, _, parsed| lockstep.apply(parsed));
    lockstep.finish();
    lockstep.into_parts()
}

/// Merges divergences into a replay's diagnostics: each after the
/// diagnostics of its own event.
pub fn merge_divergences(
    diagnostics: &[Diagnostic],
    divergences: &[Diagnostic],
) -> Vec<Diagnostic> {
    let mut merged = Vec::with_capacity(diagnostics.len() + divergences.len());
    let mut pending = divergences.iter().peekable();
    for diagnostic in diagnostics {
        while let Some(d) = pending.next_if(|d| d.seq < diagnostic.seq) {
            merged.push(d.clone());
        }
        merged.push(diagnostic.clone());
    }
    merged.extend(pending.cloned());
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_log::EventLog;

    fn log(events: &[String]) -> EventLog {
        let mut log = EventLog::default();
        for event in events {
            log.push(event.as_bytes());
        }
        log
    }

    fn lockstep(log: &EventLog) -> Vec<Diagnostic> {
        let options = Options::default();
        let (_, found) = replay_comparing(
            Replayer::new(options),
            Replayer::new(Lockstep::other_options(options)),
            log,
        );
        found
    }

    fn lockstep_fully(log: &EventLog) -> Vec<Diagnostic> {
        let options = Options::default();
        replay_comparing_fully(
            Replayer::new(options),
            Replayer::new(Lockstep::other_options(options)),
            log,
        )
        .1
    }

    fn comparisons() -> usize {
        WHOLE_MESSAGE_COMPARISONS.with(std::cell::Cell::get)
    }

    /// Issue 38: a message of many deltas is compared by what each delta
    /// appended, not whole after each (quadratic in its length): a few
    /// whole comparisons however many deltas.
    #[test]
    fn a_long_message_is_not_compared_whole_after_each_delta() {
        let mut events = vec![
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned(),
        ];
        for i in 0..2_000 {
            events.push(format!(
                r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{}"}}"#,
                i % 10
            ));
        }
        events.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#.to_owned());
        events.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned());
        let before = comparisons();
        assert_eq!(lockstep(&log(&events)), []);
        let whole = comparisons() - before;
        assert!(whole <= 4, "{whole} whole comparisons for 2,000 deltas");
    }

    /// Issue 38: interleaved messages, metadata on a delta, and an append
    /// after the two part are still found as the whole comparison finds
    /// them: the same diagnostics whether or not the fast path runs.
    #[test]
    fn appends_compared_by_their_delta_find_what_the_whole_comparison_finds() {
        let events: Vec<String> = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"x"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"b","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"y"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"z"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"w","metadata":{"k":1}}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"v"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"b","delta":"u"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"b"}"#,
        ]
        .map(str::to_owned)
        .to_vec();
        let found = lockstep(&log(&events));
        // The whole comparison at every step: the reference.
        let mut reference = Lockstep::new(
            Replayer::new(Options::default()),
            Replayer::new(Lockstep::other_options(Options::default())),
        );
        let mut whole = Vec::new();
        for_each_parsed(&log(&events), |_, _, parsed| {
            reference.agreed_text = None;
            let touched = Touched::of(parsed);
            let from = (
                reference.primary.diagnostics().len(),
                reference.shadow.diagnostics().len(),
            );
            reference.primary.apply(parsed.clone());
            reference.shadow.apply_taking(parsed);
            if !reference.stopped {
                let touched = Touched {
                    appended: None,
                    ..touched
                };
                reference.compare(&touched, from);
            }
        });
        whole.extend(reference.found);
        assert!(
            !found.is_empty(),
            "the activity snapshot over a text message parts them"
        );
        assert_eq!(found, whole);
    }

    /// Issue 40: deltas that both profiles apply alike are applied by the
    /// primary alone (the shadow's copy is left behind until something
    /// reads it), a failing one by both; the divergences are those of the
    /// full replay of both.
    #[test]
    fn deltas_both_profiles_apply_alike_are_applied_by_the_primary_alone() {
        let mut events = vec![
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"items":[]}}"#.to_owned(),
        ];
        for i in 0..20 {
            events.push(format!(
                r#"{{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{{"op":"add","path":"/items/-","value":{i}}}]}}"#
            ));
        }
        // Fails under both; the client merges its metadata (P4): they part.
        events.push(r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","metadata":{"k":1},"patch":[{"op":"remove","path":"/missing"}]}"#.to_owned());
        events.push(r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[{"op":"replace","path":"/items/0","value":"x"}]}"#.to_owned());
        events.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned());
        let log = log(&events);
        let options = Options::default();
        let mut stepped = Lockstep::new(
            Replayer::new(options),
            Replayer::new(Lockstep::other_options(options)),
        );
        stepped.mirroring = true;
        let items = |r: &Replayer| match r.conversation.get("a") {
            Some(Message::Activity(a)) => a.content["items"].as_array().map_or(0, Vec::len),
            _ => 0,
        };
        for (i, text) in events.iter().enumerate() {
            let mut parsed = parse_event(text.as_bytes());
            stepped.apply_mirroring(&mut parsed, || parse_event(text.as_bytes()));
            if i == 21 {
                assert!(stepped.stale.contains("a"));
                assert_eq!(items(&stepped.primary), 20);
                assert_eq!(
                    items(&stepped.shadow),
                    0,
                    "the shadow's copy is left behind"
                );
                assert_eq!(stepped.shadow.step(), stepped.primary.step());
            }
        }
        stepped.finish();
        assert_eq!(items(&stepped.shadow), 20, "brought up to date at the end");
        let found = stepped.into_parts().1;
        assert_eq!(found, lockstep_fully(&log));
        assert_eq!(
            found.len(),
            1,
            "the metadata merged by the client alone: {found:?}"
        );
        assert_eq!(found[0].seq.get(), 23);
        assert_eq!(lockstep(&log), found);
    }
}
