//! The recording writer on a thread of its own: network tasks send it what
//! they see and never wait for the disk; it commits at least every 50 ms
//! ([`COMMIT_INTERVAL`](crate::store::COMMIT_INTERVAL)): an event waits at most that long, not a whole
//! interval after the last commit's time-out (issue 38).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rustc_hash::FxHashMap;
use tokio::sync::oneshot;

use crate::input::HttpResponse;
use crate::replay::Replayer;
use crate::store::{
    Arrival, NewSession, RecordingWriter, SessionId, SessionStatus, StoreError, StoreRedaction,
};
use crate::timeline::Timeline;

enum Command {
    Begin {
        session: NewSession,
        reply: oneshot::Sender<Result<SessionId, StoreError>>,
    },
    Response {
        session: SessionId,
        response: HttpResponse,
    },
    Event {
        session: SessionId,
        raw: Vec<u8>,
        arrival_nanos: u64,
    },
    End {
        session: SessionId,
        status: SessionStatus,
    },
}

/// Why a session could not be begun.
#[derive(Debug, thiserror::Error)]
pub enum BeginError {
    /// The writer thread has stopped after a write failed: why (issue 38:
    /// each exchange lost says the cause, no space left…, not only at the
    /// end; [`WriterThread::finish`] returns it too).
    #[error("the recording writer has stopped: {0}")]
    Stopped(String),
    /// The session could not be written.
    #[error("cannot record the exchange")]
    Store(#[from] StoreError),
}

/// Counts for the live line.
#[derive(Debug, Default)]
pub struct Counts {
    /// Sessions begun.
    pub sessions: AtomicU64,
    /// Events written.
    pub events: AtomicU64,
    /// Exchanges that could not be recorded (forwarded all the same).
    pub failures: AtomicU64,
}

/// A handle to the writer thread; cheap to clone.
#[derive(Clone)]
pub struct WriterHandle {
    commands: Sender<Command>,
    counts: Arc<Counts>,
    /// Why the thread stopped, once it has (set before it stops taking
    /// commands).
    stopped: Arc<Mutex<Option<String>>>,
}

/// The writer thread itself, to finish at the end.
pub struct WriterThread {
    path: std::path::PathBuf,
    handle: WriterHandle,
    thread: JoinHandle<Result<(), StoreError>>,
}

impl WriterThread {
    /// Opens (or creates) the recording and starts the thread; requests are
    /// stored with the default redaction.
    pub fn start(path: &Path) -> Result<Self, StoreError> {
        Self::start_with(path, StoreRedaction::default())
    }

    /// [`Self::start`], hiding what `redaction` names too in the requests
    /// stored.
    pub fn start_with(path: &Path, redaction: StoreRedaction) -> Result<Self, StoreError> {
        let mut writer = RecordingWriter::open_or_create(path)?;
        writer.set_redaction(redaction);
        let (commands, receiver) = channel();
        let counts = Arc::new(Counts::default());
        let stopped = Arc::new(Mutex::new(None));
        let (cause, lost) = (stopped.clone(), counts.clone());
        let thread = std::thread::Builder::new()
            .name("recording writer".into())
            .spawn(move || {
                let result = run(writer, &receiver);
                if let Err(error) = &result {
                    // Said when it happens, with its cause (issue 38); the
                    // exchange being written is one not recorded whole.
                    let why = crate::error::error_chain(error);
                    lost.failures.fetch_add(1, Ordering::Relaxed);
                    eprintln!(
                        "agui-replay: the recording cannot be written any more: {why}; \
                         exchanges are still forwarded, but not recorded"
                    );
                    if let Ok(mut slot) = cause.lock() {
                        *slot = Some(why);
                    }
                }
                // The commands still queued go with the receiver, after the
                // cause is set: a handle whose command fails reads it.
                drop(receiver);
                result
            })
            .map_err(|source| StoreError::Io {
                path: path.to_owned(),
                context: "cannot start the recording writer thread".into(),
                source,
            })?;
        Ok(Self {
            path: path.to_owned(),
            handle: WriterHandle {
                commands,
                counts,
                stopped,
            },
            thread,
        })
    }

    /// A handle for the network tasks.
    pub fn handle(&self) -> WriterHandle {
        self.handle.clone()
    }

    /// Waits for every handle to be dropped, then commits and finishes the
    /// file (sessions still open are ended as complete).
    /// A writer thread that panicked is an error, never a success.
    pub fn finish(self) -> Result<(), StoreError> {
        let path = self.path;
        drop(self.handle);
        match self.thread.join() {
            Ok(result) => result,
            Err(panic) => {
                let reason = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "it panicked".to_owned());
                Err(StoreError::WriterPanicked { path, reason })
            }
        }
    }
}

impl WriterHandle {
    /// Begins a session and returns its id once written.
    pub async fn begin(&self, session: NewSession) -> Result<SessionId, BeginError> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::Begin { session, reply })
            .map_err(|_| self.stopped())?;
        let id = answer.await.map_err(|_| self.stopped())??;
        self.counts.sessions.fetch_add(1, Ordering::Relaxed);
        Ok(id)
    }

    /// Why the writer thread stopped, as an error.
    fn stopped(&self) -> BeginError {
        let why = self.stopped.lock().ok().and_then(|slot| slot.clone());
        BeginError::Stopped(why.unwrap_or_else(|| "it ended".to_owned()))
    }

    /// Records a session's response.
    pub fn response(&self, session: SessionId, response: HttpResponse) {
        let _ = self.commands.send(Command::Response { session, response });
    }

    /// Records one event.
    pub fn event(&self, session: SessionId, raw: Vec<u8>, arrival_nanos: u64) {
        self.counts.events.fetch_add(1, Ordering::Relaxed);
        let _ = self.commands.send(Command::Event {
            session,
            raw,
            arrival_nanos,
        });
    }

    /// Ends a session.
    pub fn end(&self, session: SessionId, status: SessionStatus) {
        let _ = self.commands.send(Command::End { session, status });
    }

    /// Says that an exchange could not be recorded (on standard error,
    /// once per exchange) and counts it: the exchange itself still goes
    /// through, and [`WriterThread::finish`] returns the writer's error.
    pub fn report_failure(&self, error: &BeginError) {
        self.counts.failures.fetch_add(1, Ordering::Relaxed);
        eprintln!(
            "agui-replay: an exchange is not recorded: {}",
            crate::error::error_chain(error)
        );
    }

    /// The counts so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }
}

fn run(mut writer: RecordingWriter, commands: &Receiver<Command>) -> Result<(), StoreError> {
    // Issue 14: each open session's timeline, replayed as its events are
    // written, so that its index is stored when it ends (an interrupted
    // session simply has none).
    let mut timelines: FxHashMap<SessionId, (Timeline, Vec<u64>)> = FxHashMap::default();
    loop {
        // Waits no longer than until the pending events are due: an event
        // is committed at most one interval after it came (issue 38).
        match commands.recv_timeout(writer.until_commit_due()) {
            Ok(Command::Begin { session, reply }) => {
                let begun = writer.begin_session(session);
                if let Ok(id) = &begun {
                    let options = crate::replay::Options::default();
                    let start = match writer.stored_run_input(*id)? {
                        Some(input) => Replayer::with_run_input(options, &input),
                        None => Replayer::new(options),
                    };
                    timelines.insert(*id, (Timeline::starting_from(start).empty(), Vec::new()));
                }
                let _ = reply.send(begun);
            }
            Ok(Command::Response { session, response }) => {
                writer.set_response_of(session, &response)?;
            }
            Ok(Command::Event {
                session,
                raw,
                arrival_nanos,
            }) => {
                // What is stored, and indexed, hides the secrets of the run
                // input the agent echoes (issue 38).
                let raw = writer.stored_event(session, &raw)?;
                writer.append(&raw, Arrival::at(arrival_nanos).in_session(session))?;
                if let Some((timeline, arrivals)) = timelines.get_mut(&session) {
                    timeline.append(&raw);
                    arrivals.push(arrival_nanos);
                }
            }
            Ok(Command::End { session, status }) => {
                writer.flush()?;
                if let Some((mut timeline, arrivals)) = timelines.remove(&session) {
                    timeline.finish();
                    writer.store_timeline_with(session, &timeline, Some(&arrivals))?;
                }
                writer.end(session, status, Some(crate::store::now_unix_ms()))?;
            }
            Err(RecvTimeoutError::Timeout) => writer.flush_if_due()?,
            Err(RecvTimeoutError::Disconnected) => break,
        }
        writer.flush_if_due()?;
    }
    // The sessions still open end complete (`finish`): their indexes too.
    writer.flush()?;
    let mut open: Vec<_> = timelines.into_iter().collect();
    open.sort_by_key(|(id, _)| *id);
    for (session, (mut timeline, arrivals)) in open {
        timeline.finish();
        writer.store_timeline_with(session, &timeline, Some(&arrivals))?;
    }
    writer.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 12, item 14: a writer thread that panicked was reported as a
    // success by `finish`.
    #[test]
    fn a_panicked_writer_thread_is_an_error() {
        let (commands, _receiver) = channel();
        let thread = std::thread::Builder::new()
            .name("recording writer".into())
            .spawn(|| -> Result<(), StoreError> { panic!("the writer broke") })
            .expect("a thread");
        let writer = WriterThread {
            path: "x.rec".into(),
            handle: WriterHandle {
                commands,
                counts: Arc::new(Counts::default()),
                stopped: Arc::new(Mutex::new(None)),
            },
            thread,
        };
        match writer.finish() {
            Err(StoreError::WriterPanicked { reason, .. }) => {
                assert_eq!(reason, "the writer broke");
            }
            other => panic!("a panic must be an error: {other:?}"),
        }
    }
}
