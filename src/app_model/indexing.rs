//! Indexing in the background (issue 13, point 9; issue 14, point 2): a
//! long stream opens with its first events replayed and shown, and a
//! thread replays the rest, chunk by chunk, sending the timeline of what it
//! has read so far; the app shows it as it grows, with a percentage and a
//! Cancel. Once the timeline is whole, the same thread compares the two
//! profiles (P13) and sends the divergences.
//!
//! Cancel keeps what was indexed so far, as Wireshark's "stop loading"
//! does: the events read stay shown and can be inspected; the rest of the
//! stream is not read (its end-of-stream checks do not run) until the file
//! is opened again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use crate::diagnostic::Diagnostic;
use crate::input::RawEvents;
use crate::protocol::for_each_parsed_in;
use crate::replay::{Lockstep, Replayer};
use crate::timeline::Timeline;

/// What the indexing thread sends.
pub enum IndexUpdate {
    /// The timeline of the events read so far, and the arrival times of
    /// those it adds.
    Progress(Box<Timeline>, Vec<u64>),
    /// The whole timeline (the end-of-stream checks run), and the arrival
    /// times of the events it adds.
    Done(Box<Timeline>, Vec<u64>),
    /// Where the other profile shows something else (P13).
    Divergences(Vec<Diagnostic>),
    /// Reading the file failed: what is indexed stays.
    Failed(String),
}

/// How indexing goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexPlan {
    /// Events replayed between two looks at Cancel.
    pub chunk_events: usize,
    /// The least time between two timelines sent (each is a copy).
    pub publish_every: Duration,
    /// Step by step: each timeline is sent after every chunk, and the next
    /// chunk waits until the app has taken it (tests).
    pub paced: bool,
}

/// Where the events and their arrival times come from.
pub trait IndexSource: RawEvents + Send + 'static {
    /// The arrival times of the events at 0-based `indices`.
    fn arrivals(&mut self, indices: std::ops::Range<usize>) -> Result<Vec<u64>, String>;
    /// Why reading failed, if it did.
    fn read_error(&self) -> Option<String>;
}

/// When the app last computed a state for the user (a seek while
/// scrubbing): the profiles' comparison, which nobody waits for, pauses
/// while the user does (issue 14: on two cores, its reading threads took
/// the frames' time).
#[derive(Debug)]
struct Foreground {
    started: Instant,
    /// Milliseconds from `started` to the last seek, plus one (0: none).
    busy_at_millis: AtomicU64,
}

/// How long after the last seek the comparison stays paused.
const FOREGROUND_QUIET: Duration = Duration::from_millis(250);

/// Events the comparison replays between two looks at the foreground.
const COMPARE_CHUNK_EVENTS: usize = 4_096;

impl Foreground {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            busy_at_millis: AtomicU64::new(0),
        }
    }

    fn mark_busy(&self) {
        let now = self.started.elapsed().as_millis() as u64 + 1;
        self.busy_at_millis.store(now, Ordering::Relaxed);
    }

    /// Waits until no seek happened for [`FOREGROUND_QUIET`] (or `stop`).
    fn wait_until_quiet(&self, stop: &AtomicBool) {
        loop {
            let busy_at = self.busy_at_millis.load(Ordering::Relaxed);
            if busy_at == 0 || stop.load(Ordering::Relaxed) {
                return;
            }
            let quiet_at = Duration::from_millis(busy_at - 1) + FOREGROUND_QUIET;
            let now = self.started.elapsed();
            if now >= quiet_at {
                return;
            }
            std::thread::sleep((quiet_at - now).min(Duration::from_millis(20)));
        }
    }
}

/// A background indexing, as the document holds it. Dropping it stops the
/// thread.
pub struct Indexing {
    receiver: Receiver<IndexUpdate>,
    cancel: Arc<AtomicBool>,
    foreground: Arc<Foreground>,
    /// Events in the stream.
    pub total: u64,
    /// When it started (the open).
    pub started: Instant,
    /// The timeline is whole; the profiles are being compared.
    pub comparing: bool,
}

impl Indexing {
    /// Starts indexing `timeline` (which holds the first events of
    /// `source`) up to `total` events on a thread; `start` and `shadow`
    /// are step 0 under each profile, for the comparison that follows.
    pub fn start<S: IndexSource>(
        timeline: Timeline,
        mut source: S,
        total: u64,
        comparison: (Replayer, Replayer),
        plan: IndexPlan,
    ) -> Self {
        // A timeline already whole (read from the stored index) only
        // waits for the comparison.
        let comparing = timeline.len() as u64 >= total;
        let (sender, receiver) = sync_channel(if plan.paced { 0 } else { 1 });
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&cancel);
        let foreground = Arc::new(Foreground::new());
        let quiet = Arc::clone(&foreground);
        std::thread::spawn(move || {
            index(
                timeline,
                &mut source,
                &sender,
                &stop,
                &quiet,
                comparison,
                plan,
            );
        });
        Self {
            receiver,
            cancel,
            foreground,
            total,
            started: Instant::now(),
            comparing,
        }
    }

    /// Only compares the two profiles (P13) over `source` on a thread: the
    /// document's timeline is whole already (read from the index its
    /// recording stores, issue 14), so nothing is sent back but the
    /// divergences, and the timeline is not copied.
    pub fn compare_only<S: IndexSource>(
        mut source: S,
        total: u64,
        comparison: (Replayer, Replayer),
        plan: IndexPlan,
    ) -> Self {
        let (sender, receiver) = sync_channel(if plan.paced { 0 } else { 1 });
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&cancel);
        let foreground = Arc::new(Foreground::new());
        let quiet = Arc::clone(&foreground);
        std::thread::spawn(move || {
            let num_events = source.len();
            compare(
                &mut source,
                num_events,
                &sender,
                (&stop, &quiet),
                comparison,
                plan,
            );
        });
        Self {
            receiver,
            cancel,
            foreground,
            total,
            started: Instant::now(),
            comparing: true,
        }
    }

    /// What the thread sent since last asked, if anything (`None`: nothing
    /// new, or the thread ended).
    pub fn try_next(&mut self) -> Option<IndexUpdate> {
        match self.receiver.try_recv() {
            Ok(update) => {
                if matches!(update, IndexUpdate::Done(..)) {
                    self.comparing = true;
                }
                Some(update)
            }
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => None,
        }
    }

    /// Waits for what the thread sends next (`None`: it ended).
    pub fn next_blocking(&mut self) -> Option<IndexUpdate> {
        let update = self.receiver.recv().ok()?;
        if matches!(update, IndexUpdate::Done(..)) {
            self.comparing = true;
        }
        Some(update)
    }

    /// The app computed a state for the user (scrubbing): the comparison
    /// pauses until the user pauses.
    pub fn foreground_busy(&self) {
        self.foreground.mark_busy();
    }

    /// Stops the thread at its next chunk.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Drop for Indexing {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The thread's work: replays chunk after chunk, sends the timeline now
/// and then, then the whole one, then the divergences.
fn index<S: IndexSource>(
    mut timeline: Timeline,
    source: &mut S,
    sender: &SyncSender<IndexUpdate>,
    stop: &AtomicBool,
    foreground: &Foreground,
    comparison: (Replayer, Replayer),
    plan: IndexPlan,
) {
    let total = source.len();
    let mut sent_len = timeline.len();
    let mut last_sent = Instant::now();
    // Copying the timeline to send it takes time: never more than a tenth.
    let mut copy_cost = Duration::ZERO;
    let take_arrivals = |source: &mut S, from: usize, to: usize| -> Result<Vec<u64>, String> {
        if from >= to {
            return Ok(Vec::new());
        }
        source.arrivals(from..to)
    };
    while timeline.len() < total {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let appended = timeline.extend_from(&*source, plan.chunk_events.max(1));
        if let Some(error) = source.read_error() {
            let _ = sender.send(IndexUpdate::Failed(error));
            return;
        }
        if appended == 0 {
            break;
        }
        let due = plan.paced || last_sent.elapsed() >= plan.publish_every.max(copy_cost * 10);
        if due && timeline.len() < total {
            let copying = Instant::now();
            let arrivals = match take_arrivals(source, sent_len, timeline.len()) {
                Ok(arrivals) => arrivals,
                Err(error) => {
                    let _ = sender.send(IndexUpdate::Failed(error));
                    return;
                }
            };
            let update = IndexUpdate::Progress(Box::new(timeline.clone()), arrivals);
            copy_cost = copying.elapsed();
            let sent = if plan.paced {
                sender.send(update).is_ok()
            } else {
                match sender.try_send(update) {
                    Ok(()) => true,
                    // The app has not taken the last one: send a later one.
                    Err(TrySendError::Full(_)) => false,
                    Err(TrySendError::Disconnected(_)) => return,
                }
            };
            if sent {
                sent_len = timeline.len();
                last_sent = Instant::now();
            } else if plan.paced {
                return;
            }
        }
    }
    if stop.load(Ordering::Relaxed) {
        return;
    }
    timeline.finish();
    let arrivals = match take_arrivals(source, sent_len, timeline.len()) {
        Ok(arrivals) => arrivals,
        Err(error) => {
            let _ = sender.send(IndexUpdate::Failed(error));
            return;
        }
    };
    let num_events = timeline.len();
    if sender
        .send(IndexUpdate::Done(Box::new(timeline), arrivals))
        .is_err()
    {
        return;
    }
    compare(
        source,
        num_events,
        sender,
        (stop, foreground),
        comparison,
        plan,
    );
}

/// P13: the two profiles in lockstep over the first `num_events` of
/// `source`, once, off the path to the first frame; the marks appear when
/// it is done.
fn compare<S: IndexSource>(
    source: &mut S,
    num_events: usize,
    sender: &SyncSender<IndexUpdate>,
    (stop, foreground): (&AtomicBool, &Foreground),
    comparison: (Replayer, Replayer),
    plan: IndexPlan,
) {
    let mut lockstep = Lockstep::new(comparison.0, comparison.1);
    // Small chunks: a seek waits for at most one before the pause.
    let chunk = plan.chunk_events.clamp(1, COMPARE_CHUNK_EVENTS);
    let mut from = 0;
    while from < num_events {
        foreground.wait_until_quiet(stop);
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let to = (from + chunk).min(num_events);
        for_each_parsed_in(&*source, from..to, |_, _, parsed| lockstep.apply(parsed));
        from = to;
    }
    lockstep.finish();
    let _ = sender.send(IndexUpdate::Divergences(lockstep.into_parts().1));
}

/// A recording's events, read by a reader of their own (its connection and
/// its cache: the shown timeline's stay warm).
impl IndexSource for crate::timeline::FileEvents {
    fn arrivals(&mut self, indices: std::ops::Range<usize>) -> Result<Vec<u64>, String> {
        crate::timeline::FileEvents::arrivals(self, indices)
    }

    fn read_error(&self) -> Option<String> {
        crate::timeline::FileEvents::read_error(self)
    }
}

/// A stream in memory, and its arrival times.
pub struct MemorySource {
    /// The events.
    pub events: crate::input::EventLog,
    /// When each arrived (index 0 is seq 1).
    pub arrivals: Vec<u64>,
}

impl RawEvents for MemorySource {
    fn len(&self) -> usize {
        self.events.len()
    }

    fn for_each_raw(
        &self,
        indices: std::ops::Range<usize>,
        each: &mut dyn FnMut(crate::diagnostic::Seq, &[u8]),
    ) {
        self.events.for_each_raw(indices, each);
    }
}

impl IndexSource for MemorySource {
    fn arrivals(&mut self, indices: std::ops::Range<usize>) -> Result<Vec<u64>, String> {
        let end = indices.end.min(self.arrivals.len());
        Ok(self.arrivals[indices.start.min(end)..end].to_vec())
    }

    fn read_error(&self) -> Option<String> {
        None
    }
}
