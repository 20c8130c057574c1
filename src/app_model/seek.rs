//! The seek at the cursor, off the UI thread when it is long (issue 43:
//! "scrubbing a 1M recording, the playhead trails the pointer"). Measured
//! with `bench ui`, the seek was about two fifths of a frame of a quick
//! drag across a million events; on its own thread it no longer delays the
//! frame that paints the playhead.
//!
//! One worker per app, latest request wins: a request not yet started is
//! replaced by a newer one (a drag asks for a step each frame; only the
//! last matters), a seek already started finishes and its answer is shown
//! unless a newer one was shown first. The panels show the last state
//! computed meanwhile. No UI toolkit here: the app gives a waker to be drawn
//! again when an answer is ready.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::state::CursorView;
use crate::diagnostic::Seq;
use crate::protocol::parse_event;
use crate::replay::Replayer;
use crate::timeline::Timeline;

/// Where the seek at the cursor runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SeekPolicy {
    /// On the thread applying the commands, always: the view is at the
    /// cursor as soon as a command is applied (the model's default: its
    /// tests and benches read the view right after a command).
    #[default]
    Inline,
    /// On the seek thread when the stream has more events than this, else
    /// inline (where a seek is instant, tests read the view at once).
    InBackgroundAbove(u64),
}

impl SeekPolicy {
    /// The app's: streams of up to 50,000 events seek inline (a seek
    /// takes well under a millisecond there), longer ones on the thread.
    pub const APP: Self = Self::InBackgroundAbove(50_000);

    /// Whether a seek in a stream of `num_events` runs on the thread.
    pub fn in_background(self, num_events: u64) -> bool {
        match self {
            Self::Inline => false,
            Self::InBackgroundAbove(limit) => num_events > limit,
        }
    }
}

/// Computes the view at `step`: the state there and one step before. It
/// goes on from `near` (the state shown) when that is on the way, as
/// scrubbing forward does (issue 14), else from a checkpoint.
pub fn view_at(
    timeline: &Timeline,
    near: Option<&Replayer>,
    step: Seq,
    generation: u64,
) -> CursorView {
    let target = Seq::new(step.get().saturating_sub(1));
    let before = match near {
        Some(near) => timeline.seek_from(near, target),
        None => timeline.seek(target),
    };
    let (at, event) = match timeline.events().get(step).filter(|_| step.get() > 0) {
        Some(raw) => {
            let raw: &[u8] = &raw;
            let mut at = before.checkpoint();
            let parsed = parse_event(raw);
            at.apply(parsed.clone());
            if step == timeline.last_step() {
                at = timeline.seek(step);
            }
            (at, Some(parsed))
        }
        None => (before.checkpoint(), None),
    };
    CursorView {
        step,
        at,
        before,
        event,
        generation,
    }
}

/// A seek's answer.
pub struct SeekDone {
    /// The request it answers: later requests have greater ids.
    pub id: u64,
    /// The view at the step asked for.
    pub view: CursorView,
}

/// Called from the seek thread when an answer is ready (the app asks for a
/// frame).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

struct Request {
    id: u64,
    step: Seq,
    generation: u64,
    timeline: Arc<Timeline>,
    near: Option<Replayer>,
}

#[derive(Default)]
struct Slots {
    /// The request to start next (a newer one replaces it).
    request: Option<Request>,
    /// The last answer, not yet taken (a newer one replaces it).
    done: Option<SeekDone>,
    /// Whether a seek is running.
    busy: bool,
    /// The seeker is gone: the thread ends.
    closed: bool,
}

#[derive(Default)]
struct Shared {
    slots: Mutex<Slots>,
    /// A request came, or the seeker closed.
    requested: Condvar,
    /// An answer came.
    answered: Condvar,
    waker: Mutex<Option<Waker>>,
}

impl Shared {
    fn slots(&self) -> MutexGuard<'_, Slots> {
        // A seek that panicked leaves the slots as they were: go on.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The request sent last and not answered yet.
#[derive(Clone, Copy, Debug)]
struct Pending {
    id: u64,
    step: Seq,
    generation: u64,
}

/// The seek thread, as the app model sees it: requests in, answers out,
/// the latest request winning.
#[derive(Default)]
pub struct Seeker {
    /// Started with the first request.
    shared: Option<Arc<Shared>>,
    last_id: u64,
    pending: Option<Pending>,
    waker: Option<Waker>,
    /// An answer computed here, the thread not starting.
    ready: Option<SeekDone>,
}

impl Seeker {
    /// A new id, greater than every one before (an inline seek takes one
    /// too, so that an answer of the thread older than it is not shown).
    pub fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    /// Calls `waker` whenever an answer is ready.
    pub fn set_waker(&mut self, waker: Waker) {
        if let Some(shared) = &self.shared {
            *shared.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&waker));
        }
        self.waker = Some(waker);
    }

    /// Asks for the view at `step` of `timeline`, going on from `near`;
    /// replaces a request not started yet. Returns its id.
    pub fn request(
        &mut self,
        step: Seq,
        generation: u64,
        timeline: Arc<Timeline>,
        near: Option<Replayer>,
    ) -> u64 {
        let id = self.next_id();
        let Some(shared) = self.shared() else {
            // No thread could start: seek here.
            let view = view_at(&timeline, near.as_ref(), step, generation);
            self.ready = Some(SeekDone { id, view });
            return id;
        };
        let replaced = shared.slots().request.replace(Request {
            id,
            step,
            generation,
            timeline,
            near,
        });
        shared.requested.notify_one();
        // Dropped here, not under the lock.
        drop(replaced);
        self.pending = Some(Pending {
            id,
            step,
            generation,
        });
        id
    }

    /// Whether the request answered last or on its way is for `step` in
    /// `generation`.
    pub fn is_pending_for(&self, step: Seq, generation: u64) -> bool {
        self.pending
            .is_some_and(|p| p.step == step && p.generation == generation)
    }

    /// Whether a request has not been answered yet.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Drops the request not started yet, and waits for no answer (one on
    /// its way still comes: its id says it is old).
    pub fn forget(&mut self) {
        self.pending = None;
        if let Some(shared) = &self.shared {
            let request = shared.slots().request.take();
            drop(request);
        }
    }

    /// The answer that came since the last call, if any.
    pub fn try_take(&mut self) -> Option<SeekDone> {
        if let Some(done) = self.ready.take() {
            return Some(done);
        }
        let done = self.shared.as_ref()?.slots().done.take()?;
        self.answered(&done);
        Some(done)
    }

    /// Waits for an answer while a request is pending (tests, benches):
    /// `None` once none is.
    pub fn wait(&mut self) -> Option<SeekDone> {
        if let Some(done) = self.ready.take() {
            return Some(done);
        }
        let shared = Arc::clone(self.shared.as_ref()?);
        let mut slots = shared.slots();
        loop {
            if let Some(done) = slots.done.take() {
                drop(slots);
                self.answered(&done);
                return Some(done);
            }
            if self.pending.is_none() || (slots.request.is_none() && !slots.busy) {
                // Nothing will come (a request dropped by `forget`).
                self.pending = None;
                return None;
            }
            slots = shared
                .answered
                .wait(slots)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    fn answered(&mut self, done: &SeekDone) {
        if self.pending.is_some_and(|p| p.id <= done.id) {
            self.pending = None;
        }
    }

    /// The thread's shared slots, the thread started if need be (`None`
    /// when it cannot start).
    fn shared(&mut self) -> Option<Arc<Shared>> {
        if let Some(shared) = &self.shared {
            return Some(Arc::clone(shared));
        }
        let shared = Arc::new(Shared {
            waker: Mutex::new(self.waker.clone()),
            ..Default::default()
        });
        let thread_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("seek".into())
            .spawn(move || run(&thread_shared))
            .ok()?;
        self.shared = Some(Arc::clone(&shared));
        Some(shared)
    }
}

impl Drop for Seeker {
    fn drop(&mut self) {
        if let Some(shared) = &self.shared {
            shared.slots().closed = true;
            shared.requested.notify_one();
        }
    }
}

/// The state the seek thread answered with last, and of which timeline.
struct Last {
    /// The timeline's address (with the generation: the same timeline).
    timeline: usize,
    generation: u64,
    at: Replayer,
}

impl Last {
    fn is_of(&self, request: &Request) -> bool {
        self.timeline == Arc::as_ptr(&request.timeline) as usize
            && self.generation == request.generation
    }
}

/// The seek thread: takes the latest request, computes its view, leaves
/// the answer, wakes the app.
fn run(shared: &Shared) {
    // The state at the step it answered last, to go on from: during a drag
    // it is nearer than the state shown, which is a frame or two behind.
    let mut last: Option<Last> = None;
    loop {
        let request = {
            let mut slots = shared.slots();
            loop {
                if slots.closed {
                    return;
                }
                if let Some(request) = slots.request.take() {
                    slots.busy = true;
                    break request;
                }
                slots = shared
                    .requested
                    .wait(slots)
                    .unwrap_or_else(|e| e.into_inner());
            }
        };
        let target = Seq::new(request.step.get().saturating_sub(1));
        let mine = last
            .as_ref()
            .filter(|last| last.is_of(&request))
            .map(|last| &last.at);
        let near = [request.near.as_ref(), mine]
            .into_iter()
            .flatten()
            .filter(|near| near.step() <= target)
            .max_by_key(|near| near.step());
        let view = view_at(&request.timeline, near, request.step, request.generation);
        last = Some(Last {
            timeline: Arc::as_ptr(&request.timeline) as usize,
            generation: request.generation,
            at: view.at.checkpoint(),
        });
        let done = SeekDone {
            id: request.id,
            view,
        };
        drop(request);
        let replaced = {
            let mut slots = shared.slots();
            slots.busy = false;
            slots.done.replace(done)
        };
        shared.answered.notify_all();
        // An answer never taken is dropped here, on this thread.
        drop(replaced);
        let waker = shared
            .waker
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(waker) = waker {
            waker();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Options;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A timeline of `n` text message contents.
    fn timeline(n: usize) -> Arc<Timeline> {
        let mut lines =
            vec![r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned()];
        for i in 0..n {
            lines.push(format!(
                r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{i} "}}"#
            ));
        }
        let mut log = crate::event_log::EventLog::default();
        for line in &lines {
            log.push(line.as_bytes());
        }
        Arc::new(Timeline::from_log(log, Options::default()))
    }

    #[test]
    fn the_view_at_a_step_is_the_same_from_a_checkpoint_or_from_the_state_shown() {
        let timeline = timeline(300);
        let shown = view_at(&timeline, None, Seq::new(40), 1);
        for step in [41, 200, 301, 10] {
            let step = Seq::new(step);
            let on = view_at(&timeline, Some(&shown.at), step, 1);
            let fresh = view_at(&timeline, None, step, 1);
            assert_eq!(on.step, step);
            assert_eq!(on.at.state(), fresh.at.state(), "at {step}");
            assert_eq!(on.at.step(), step);
            assert_eq!(on.before.step(), Seq::new(step.get() - 1));
        }
    }

    #[test]
    fn the_answer_is_the_view_at_the_step_asked_and_wakes_the_app() {
        let timeline = timeline(50);
        let woken = Arc::new(AtomicUsize::new(0));
        let mut seeker = Seeker::default();
        let counter = Arc::clone(&woken);
        seeker.set_waker(Arc::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }));
        let id = seeker.request(Seq::new(30), 7, Arc::clone(&timeline), None);
        assert!(seeker.is_pending_for(Seq::new(30), 7));
        assert!(!seeker.is_pending_for(Seq::new(30), 8));
        let done = seeker.wait().expect("an answer");
        assert_eq!(done.id, id);
        assert_eq!(done.view.step, Seq::new(30));
        assert_eq!(done.view.generation, 7);
        assert_eq!(
            done.view.at.state(),
            view_at(&timeline, None, Seq::new(30), 7).at.state()
        );
        assert!(!seeker.is_pending());
        assert!(seeker.wait().is_none(), "nothing more comes");
        // The thread wakes the app just after it leaves the answer.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while woken.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert_eq!(woken.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_newer_request_wins_over_those_before_it() {
        let timeline = timeline(2000);
        let mut seeker = Seeker::default();
        // Many requests at once, as a drag sends them: the answers that
        // come have growing ids, and the last is for the last step asked.
        let mut ids = Vec::new();
        for step in (1..=2000).step_by(100) {
            ids.push(seeker.request(Seq::new(step), 1, Arc::clone(&timeline), None));
        }
        let last = *ids.last().expect("requests");
        let mut answers = Vec::new();
        while let Some(done) = seeker.wait() {
            answers.push((done.id, done.view.step));
        }
        assert!(!answers.is_empty());
        assert!(answers.windows(2).all(|w| w[0].0 < w[1].0), "{answers:?}");
        assert_eq!(answers.last(), Some(&(last, Seq::new(1901))));
        // Not one answer a request: at most the one computed while the
        // others came (replaced by newer ones), and the last.
        assert!(answers.len() <= 2, "{answers:?}");
    }

    #[test]
    fn going_on_from_the_last_answer_gives_the_state_a_fresh_seek_gives() {
        // The thread goes on from the state it answered last when that is
        // nearer than the one sent (a drag forward), and from the one sent
        // or a checkpoint when going back.
        let timeline = timeline(1500);
        let mut seeker = Seeker::default();
        for step in [10, 400, 401, 900, 300, 1200, 1501, 5] {
            let step = Seq::new(step);
            seeker.request(step, 1, Arc::clone(&timeline), None);
            let done = seeker.wait().expect("an answer");
            let fresh = view_at(&timeline, None, step, 1);
            assert_eq!(done.view.step, step);
            assert_eq!(done.view.at.state(), fresh.at.state(), "at {step}");
            let text = |view: &CursorView| -> Vec<serde_json::Value> {
                view.at.conversation().iter().map(|m| m.to_json()).collect()
            };
            assert_eq!(text(&done.view), text(&fresh), "at {step}");
            assert_eq!(done.view.before.step(), fresh.before.step());
        }
    }

    #[test]
    fn a_forgotten_request_is_not_waited_for() {
        let timeline = timeline(100);
        let mut seeker = Seeker::default();
        let old = seeker.request(Seq::new(90), 1, Arc::clone(&timeline), None);
        seeker.forget();
        assert!(!seeker.is_pending());
        // An answer on its way may still come; it is older than any id
        // given since.
        let later = seeker.next_id();
        if let Some(done) = seeker.wait() {
            assert!(done.id == old && done.id < later);
        }
        assert!(!seeker.is_pending());
    }

    #[test]
    fn the_policy_sends_only_long_streams_to_the_thread() {
        assert!(!SeekPolicy::Inline.in_background(u64::MAX));
        assert!(!SeekPolicy::APP.in_background(50_000));
        assert!(SeekPolicy::APP.in_background(50_001));
        assert!(SeekPolicy::InBackgroundAbove(0).in_background(1));
    }
}
