//! Live follow: a recording the proxy is still writing grows while it is
//! open. Every [`POLL_INTERVAL`] the app reads the sessions again (new ones
//! appear in the picker) and, while the session shown is still being
//! written, its new events, which the timeline appends and replays. With
//! "follow" on (the End key) the playhead stays at the last event. A
//! recording nobody writes is read again every [`IDLE_POLL_INTERVAL`], for
//! new sessions.

use std::time::{Duration, Instant};

use super::state::{AppState, TimeCommand};
use crate::store::{SessionId, SessionInfo};

/// How often a session being written is read again.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);
/// How often a recording nobody seems to write is read again.
pub const IDLE_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// When the recording was last read, and last grew.
#[derive(Clone, Debug, Default)]
pub struct Live {
    last_poll: Option<Instant>,
    last_growth: Option<Instant>,
    /// Reading failed: no more polling until the file is opened again (the
    /// error shows once).
    failed: bool,
}

impl Live {
    /// How long the session has not grown (since it was opened, or since
    /// its last new event). A writer that died leaves a session that never
    /// ends: the status bar says how long it has been quiet.
    pub fn quiet_for(&self) -> Option<Duration> {
        self.last_growth.map(|t| t.elapsed())
    }
}

impl AppState {
    /// How long until the recording should be read again (`None`: no
    /// recording, or reading it failed).
    pub fn live_poll_interval(&self) -> Option<Duration> {
        let doc = self.doc.as_ref().filter(|d| d.recording.is_some())?;
        if self.live.failed {
            return None;
        }
        Some(if doc.live {
            POLL_INTERVAL
        } else {
            IDLE_POLL_INTERVAL
        })
    }

    /// Reads what the recording's writer added, when it is time to;
    /// returns whether anything changed.
    pub fn poll_live(&mut self) -> bool {
        let Some(interval) = self.live_poll_interval() else {
            return false;
        };
        if self
            .live
            .last_poll
            .is_some_and(|last| last.elapsed() < interval)
        {
            return false;
        }
        let now = Instant::now();
        self.live.last_poll = Some(now);
        self.live.last_growth.get_or_insert(now);
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
            self.live.failed = true;
            self.error = Some(format!("cannot follow the recording: {error}"));
            return false;
        }
        let mut changed = false;
        if recording.sessions() != doc.sessions.as_slice() {
            doc.sessions = recording.sessions().to_vec();
            changed = true;
        }
        if doc.session.is_none() && !doc.sessions.is_empty() {
            // The first session of a recording opened empty: open it.
            let path = doc.path.clone();
            self.open_in_background(path, Some(1), Some(TimeCommand::ToEndAndFollow));
            return true;
        }
        let session = SessionId(doc.session.unwrap_or(1));
        let info = doc.sessions.iter().find(|s| s.id == session);
        let open = info.is_some_and(SessionInfo::is_open);
        if !doc.live && open && info.is_some_and(|s| s.num_events > doc.timeline.len() as u64) {
            // Taken for dead when opened, its writer was only slow: open it
            // again (its end-of-stream checks ran too early), keeping the
            // cursor.
            let (path, session, step) = (doc.path.clone(), doc.session, self.step());
            self.open_in_background(path, session, Some(TimeCommand::SetClamped(step)));
            return true;
        }
        if !doc.live {
            return changed;
        }
        let events = match recording.events_after(session, doc.timeline.last_step()) {
            Ok(events) => events,
            Err(error) => {
                self.live.failed = true;
                self.error = Some(format!("cannot follow the recording: {error}"));
                return changed;
            }
        };
        let num_diagnostics = doc.timeline.diagnostics().len();
        let last_before = doc.timeline.last_step();
        let appended = !events.is_empty();
        for event in events {
            doc.timeline.append(&event.raw);
            doc.arrival_nanos.push(event.arrival_nanos);
        }
        // The writer ended the session: it is no longer open.
        let ended = info.is_some() && !open;
        if ended {
            // The writer ended the session: now the end-of-stream checks.
            doc.live = false;
            doc.timeline.finish();
        }
        for diagnostic in &doc.timeline.diagnostics()[num_diagnostics..] {
            doc.counts.add(diagnostic.severity);
        }
        if !(appended || ended) {
            return changed;
        }
        if appended {
            self.live.last_growth = Some(Instant::now());
        }
        if ended {
            // The end-of-stream checks may mark events listed already.
            self.refresh_rows();
        } else {
            // Only the new events: earlier ones did not change.
            let new_rows =
                super::event_list::filter_rows_after(doc, &self.event_filter, last_before);
            self.event_rows.extend(new_rows);
        }
        // The view's replay (and its diagnostics) may have changed under it;
        // a cursor following the end goes to the new end.
        self.stream_changed();
        true
    }

    /// Whether the open session is still being written.
    pub fn is_live(&self) -> bool {
        self.doc.as_ref().is_some_and(|d| d.live)
    }
}
