//! Live follow: a recording the proxy is still writing grows while it is
//! open. Every [`POLL_INTERVAL`] the app reads the sessions again (new ones
//! appear in the picker) and, while the session shown is still being
//! written, its new events, which the timeline appends and replays. With
//! "follow" on (the End key) the playhead stays at the last event.

use std::time::{Duration, Instant};

use super::state::AppState;
use crate::store::{SessionId, SessionStatus};

/// How often a recording is read again.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// When the recording was last read.
#[derive(Clone, Debug, Default)]
pub struct Live {
    last_poll: Option<Instant>,
}

impl AppState {
    /// Reads what the recording's writer added, at most every
    /// [`POLL_INTERVAL`]; returns whether anything changed.
    pub fn poll_live(&mut self) -> bool {
        if self.doc.as_ref().is_none_or(|d| d.recording.is_none()) {
            return false;
        }
        if self
            .live
            .last_poll
            .is_some_and(|last| last.elapsed() < POLL_INTERVAL)
        {
            return false;
        }
        self.live.last_poll = Some(Instant::now());
        self.poll_live_now()
    }

    /// Reads what the recording's writer added now; returns whether anything
    /// changed.
    pub fn poll_live_now(&mut self) -> bool {
        let Some(doc) = &mut self.doc else {
            return false;
        };
        let Some(recording) = &mut doc.recording else {
            return false;
        };
        if let Err(error) = recording.refresh() {
            self.error = Some(error.to_string());
            return false;
        }
        let mut changed = false;
        if recording.sessions() != doc.sessions.as_slice() {
            doc.sessions = recording.sessions().to_vec();
            changed = true;
        }
        if !doc.live {
            return changed;
        }
        let session = SessionId(doc.session.unwrap_or(1));
        let events = match recording.events_after(session, doc.timeline.last_step()) {
            Ok(events) => events,
            Err(error) => {
                self.error = Some(error.to_string());
                return changed;
            }
        };
        let num_diagnostics = doc.timeline.diagnostics().len();
        let appended = !events.is_empty();
        for event in events {
            doc.timeline.append(&event.raw);
            doc.arrival_nanos.push(event.arrival_nanos);
        }
        let status = doc
            .sessions
            .iter()
            .find(|s| s.id == session)
            .map(|s| s.status);
        if status.is_some_and(|s| s != SessionStatus::Incomplete) {
            // The writer ended the session: now the end-of-stream checks.
            doc.live = false;
            doc.timeline.finish();
            changed = true;
        }
        for diagnostic in &doc.timeline.diagnostics()[num_diagnostics..] {
            doc.counts.add(diagnostic.severity);
        }
        if appended {
            let last = doc.timeline.last_step();
            self.generation += 1;
            self.refresh_rows();
            if self.following {
                self.go_to(last);
            }
            changed = true;
        }
        changed
    }

    /// Whether the open session is still being written.
    pub fn is_live(&self) -> bool {
        self.doc.as_ref().is_some_and(|d| d.live)
    }
}
