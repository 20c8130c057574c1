//! The recording writer on a thread of its own: network tasks send it what
//! they see and never wait for the disk; it commits at least every 100 ms.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;

use tokio::sync::oneshot;

use crate::input::HttpResponse;
use crate::store::{
    COMMIT_INTERVAL, NewSession, RecordingWriter, SessionId, SessionStatus, StoreError,
};

enum Command {
    Begin {
        session: NewSession,
        reply: oneshot::Sender<Result<SessionId, String>>,
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

/// Counts for the live line.
#[derive(Debug, Default)]
pub struct Counts {
    /// Sessions begun.
    pub sessions: AtomicU64,
    /// Events written.
    pub events: AtomicU64,
}

/// A handle to the writer thread; cheap to clone.
#[derive(Clone)]
pub struct WriterHandle {
    commands: Sender<Command>,
    counts: Arc<Counts>,
}

/// The writer thread itself, to finish at the end.
pub struct WriterThread {
    handle: WriterHandle,
    thread: JoinHandle<Result<(), StoreError>>,
}

impl WriterThread {
    /// Opens (or creates) the recording and starts the thread.
    pub fn start(path: &Path) -> Result<Self, StoreError> {
        let writer = RecordingWriter::open_or_create(path)?;
        let (commands, receiver) = channel();
        let counts = Arc::new(Counts::default());
        let thread = std::thread::Builder::new()
            .name("recording writer".into())
            .spawn(move || run(writer, &receiver))
            .map_err(|e| StoreError::Sqlite {
                path: path.to_owned(),
                context: format!("cannot start the writer thread ({e})"),
                source: rusqlite::Error::InvalidQuery,
            })?;
        Ok(Self {
            handle: WriterHandle { commands, counts },
            thread,
        })
    }

    /// A handle for the network tasks.
    pub fn handle(&self) -> WriterHandle {
        self.handle.clone()
    }

    /// Waits for every handle to be dropped, then commits and finishes the
    /// file (sessions still open are ended as complete).
    pub fn finish(self) -> Result<(), StoreError> {
        drop(self.handle);
        match self.thread.join() {
            Ok(result) => result,
            Err(_) => Ok(()),
        }
    }
}

impl WriterHandle {
    /// Begins a session and returns its id once written.
    pub async fn begin(&self, session: NewSession) -> Result<SessionId, String> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::Begin { session, reply })
            .map_err(|_| "the recording writer has stopped".to_owned())?;
        let id = answer
            .await
            .map_err(|_| "the recording writer has stopped".to_owned())??;
        self.counts.sessions.fetch_add(1, Ordering::Relaxed);
        Ok(id)
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

    /// The counts so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }
}

fn run(mut writer: RecordingWriter, commands: &Receiver<Command>) -> Result<(), StoreError> {
    loop {
        match commands.recv_timeout(COMMIT_INTERVAL) {
            Ok(Command::Begin { session, reply }) => {
                let _ = reply.send(writer.begin_session(session).map_err(|e| e.to_string()));
            }
            Ok(Command::Response { session, response }) => {
                writer.set_response_of(session, &response)?;
            }
            Ok(Command::Event {
                session,
                raw,
                arrival_nanos,
            }) => {
                writer.append_to(session, &raw, arrival_nanos)?;
            }
            Ok(Command::End { session, status }) => {
                writer.end(session, status, Some(crate::store::now_unix_ms()))?;
            }
            Err(RecvTimeoutError::Timeout) => writer.flush()?,
            Err(RecvTimeoutError::Disconnected) => break,
        }
        writer.flush_if_due()?;
    }
    writer.finish()?;
    Ok(())
}
