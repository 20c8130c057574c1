//! The contents a consumer's widgets read, step by step (issue 42): after
//! each event, the content of the activity it names and the state if it set
//! it. Validation ([`super::watch`]) and inference ([`super::infer`]) see
//! exactly the same contents, so that a folder inferred from a recording
//! holds every content of it.
//!
//! The replay is observed from outside: what an event may have changed is
//! read before it is applied, the contents after.

use serde_json::Value;

use crate::diagnostic::Seq;
use crate::input::RawEvents;
use crate::protocol::{EventBody, ParseOutcome, for_each_parsed_in};
use crate::replay::{Message, Replayer};

/// Whose content is observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// An activity's `content`.
    Activity {
        /// Its `messageId`.
        id: &'a str,
        /// Its `activityType` at this step.
        activity_type: &'a str,
    },
    /// The shared state.
    State,
}

/// What an event may change, read before it is applied.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// The activity it names (a snapshot or delta).
    pub activity: Option<String>,
    /// Every activity: the event may rebuild the message list (a
    /// `MESSAGES_SNAPSHOT`, a `RUN_STARTED` with input messages).
    pub all_activities: bool,
    /// The state (a `STATE_SNAPSHOT`, a `STATE_DELTA`, a `RUN_STARTED`
    /// whose input has a `state`).
    pub state: bool,
}

impl Touched {
    /// What `parsed` may change.
    pub fn of(parsed: &ParseOutcome) -> Self {
        let ParseOutcome::Event { event, .. } = parsed else {
            return Self::default();
        };
        use EventBody as B;
        match &event.body {
            B::ActivitySnapshot { message_id, .. } | B::ActivityDelta { message_id, .. } => Self {
                activity: Some(message_id.to_string()),
                ..Self::default()
            },
            B::StateSnapshot { .. } | B::StateDelta { .. } => Self {
                state: true,
                ..Self::default()
            },
            B::MessagesSnapshot { .. } => Self {
                all_activities: true,
                ..Self::default()
            },
            B::RunStarted {
                input: Some(input), ..
            } => Self {
                all_activities: input.get("messages").is_some(),
                state: input.get("state").is_some(),
                ..Self::default()
            },
            _ => Self::default(),
        }
    }

    /// Whether it changes nothing observed.
    pub fn is_empty(&self) -> bool {
        self.activity.is_none() && !self.all_activities && !self.state
    }
}

/// Calls `see` with each content `touched` names, as `replayer` holds it
/// now (an activity the step removed is not seen).
pub fn observe_step(
    replayer: &Replayer,
    touched: &Touched,
    mut see: impl FnMut(Seq, Target<'_>, &Value),
) {
    let seq = replayer.step();
    if touched.all_activities {
        for message in replayer.conversation().iter() {
            if let Message::Activity(activity) = message {
                let target = Target::Activity {
                    id: activity.id.as_str(),
                    activity_type: &activity.activity_type,
                };
                see(seq, target, &activity.content);
            }
        }
    } else if let Some(id) = &touched.activity
        && let Some(Message::Activity(activity)) = replayer.conversation().get(id)
    {
        let target = Target::Activity {
            id: activity.id.as_str(),
            activity_type: &activity.activity_type,
        };
        see(seq, target, &activity.content);
    }
    if touched.state {
        see(seq, Target::State, replayer.state());
    }
}

/// Replays `log` from `start` (step 0, with `start_has_state` when its run
/// input set the state) and calls `see` with every content a widget would
/// read: at step 0 each activity of the run input (and its state), then
/// after each event what it named. Returns the replay, finished.
pub fn observe_replay<E: RawEvents + ?Sized>(
    start: Replayer,
    start_has_state: bool,
    log: &E,
    mut see: impl FnMut(Seq, Target<'_>, &Value),
) -> Replayer {
    let mut observed = ObservedReplay::start(start, start_has_state, &mut see);
    observed.feed(log, &mut see);
    let mut replayer = observed.replayer;
    replayer.finish();
    replayer
}

/// A replay observed as its stream grows (a live recording followed, a
/// long stream indexed in the background): [`Self::feed`] applies only the
/// events it has not seen, so the stream is never replayed again. The
/// replay is not finished: the end-of-stream checks change no content.
#[derive(Clone, Debug)]
pub struct ObservedReplay {
    replayer: Replayer,
    /// How many events of the log were applied.
    num_seen: usize,
}

impl ObservedReplay {
    /// Step 0 of `start` observed (with `start_has_state` when its run
    /// input set the state).
    pub fn start(
        start: Replayer,
        start_has_state: bool,
        see: impl FnMut(Seq, Target<'_>, &Value),
    ) -> Self {
        let at_start = Touched {
            activity: None,
            all_activities: true,
            state: start_has_state,
        };
        observe_step(&start, &at_start, see);
        Self {
            replayer: start,
            num_seen: 0,
        }
    }

    /// Applies the events of `log` after those seen, calling `see` with
    /// what each named.
    pub fn feed<E: RawEvents + ?Sized>(
        &mut self,
        log: &E,
        see: impl FnMut(Seq, Target<'_>, &Value),
    ) {
        self.feed_some(log, usize::MAX, see);
    }

    /// [`Self::feed`], for at most `max_events` events (a slice of a
    /// frame's work).
    pub fn feed_some<E: RawEvents + ?Sized>(
        &mut self,
        log: &E,
        max_events: usize,
        mut see: impl FnMut(Seq, Target<'_>, &Value),
    ) {
        let end = log
            .len()
            .min(self.num_seen.saturating_add(max_events))
            .max(self.num_seen);
        let new = self.num_seen..end;
        self.replayer.reserve(new.len());
        let replayer = &mut self.replayer;
        for_each_parsed_in(log, new.clone(), |_, _, parsed| {
            let touched = Touched::of(parsed);
            replayer.apply_taking(parsed);
            if !touched.is_empty() {
                observe_step(replayer, &touched, &mut see);
            }
        });
        self.num_seen = new.end;
    }

    /// How many events of the log were applied.
    pub fn num_seen(&self) -> usize {
        self.num_seen
    }
}

/// Whether a recorded run input sets the state at step 0.
pub fn input_has_state(run_input: Option<&Value>) -> bool {
    run_input.is_some_and(|input| input.get("state").is_some())
}
