//! Live follow: a recording the proxy is still writing grows while it is
//! open. Every [`POLL_INTERVAL`] the app reads the sessions again (new ones
//! appear in the picker) and, while the session shown is still being
//! written, its new events, which the timeline appends and replays. With
//! "follow" on (the End key) the playhead stays at the last event. A
//! recording nobody writes is read again every [`IDLE_POLL_INTERVAL`], for
//! new sessions.

use std::time::{Duration, Instant};

use crate::app_model::document::Doc;

use crate::app_model::time_control::TimeCommand;
use crate::diagnostic::Seq;
use crate::store::{SessionId, SessionInfo};

/// How often a session being written is read again.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);
/// How often a recording nobody seems to write is read again.
pub const IDLE_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Live follow: when the recording was last read, and last grew. Its
/// logic step ([`Live::poll`]) reads what the writer added to the document
/// and says what changed.
#[derive(Clone, Debug, Default)]
pub struct Live {
    last_poll: Option<Instant>,
    last_growth: Option<Instant>,
    /// Reading failed: no more polling until the file is opened again (the
    /// error shows once).
    failed: bool,
}

/// What reading a recording again found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveResponse {
    /// Anything changed (sessions, events): draw again.
    pub changed: bool,
    /// The document is to be opened again: this session, then this cursor
    /// (the first session of a recording opened empty; a session taken for
    /// ended that grew).
    pub reopen: Option<(Option<i64>, TimeCommand)>,
    /// Events were appended, or the session ended.
    pub grew: Option<Growth>,
    /// Reading failed (said once; polling stops).
    pub error: Option<String>,
}

/// How the open session grew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Growth {
    /// The last step before the new events.
    pub last_before: Seq,
    /// The writer ended the session (its end-of-stream checks ran).
    pub ended: bool,
}

impl Live {
    /// How long the session has not grown (since it was opened, or since
    /// its last new event). A writer that died leaves a session that never
    /// ends: the status bar says how long it has been quiet.
    pub fn quiet_for(&self) -> Option<Duration> {
        self.last_growth.map(|t| t.elapsed())
    }

    /// How long until the recording should be read again (`None`: no
    /// recording, or reading it failed).
    pub fn poll_interval(&self, doc: Option<&Doc>) -> Option<Duration> {
        let doc = doc.filter(|d| d.recording.is_some())?;
        if self.failed {
            return None;
        }
        Some(if doc.live {
            POLL_INTERVAL
        } else {
            IDLE_POLL_INTERVAL
        })
    }

    /// Reads what the recording's writer added, when it is time to.
    pub fn poll(&mut self, doc: &mut Doc, cursor: Seq) -> LiveResponse {
        let Some(interval) = self.poll_interval(Some(doc)) else {
            return LiveResponse::default();
        };
        if self.last_poll.is_some_and(|last| last.elapsed() < interval) {
            return LiveResponse::default();
        }
        let now = Instant::now();
        self.last_poll = Some(now);
        self.last_growth.get_or_insert(now);
        self.poll_now(doc, cursor)
    }

    /// Reads what the recording's writer added now.
    pub fn poll_now(&mut self, doc: &mut Doc, cursor: Seq) -> LiveResponse {
        let mut response = LiveResponse::default();
        let whole = doc.is_whole();
        let Some(recording) = &mut doc.recording else {
            return response;
        };
        if let Err(error) = recording.refresh() {
            self.failed = true;
            response.error = Some(format!(
                "cannot follow the recording: {}",
                crate::error::error_chain(&error)
            ));
            return response;
        }
        if recording.sessions() != doc.sessions.as_slice() {
            doc.sessions = recording.sessions().to_vec();
            response.changed = true;
        }
        if doc.session.is_none() && !doc.sessions.is_empty() {
            // The first session of a recording opened empty: open it.
            response.reopen = Some((Some(1), TimeCommand::ToEndAndFollow));
            response.changed = true;
            return response;
        }
        let session = SessionId::new(doc.session.unwrap_or(1));
        let info = doc.sessions.iter().find(|s| s.id == session);
        let open = info.is_some_and(SessionInfo::is_open);
        // (Not while a long stream is still being indexed, or was left
        // partly indexed: it holds fewer events than the file on purpose.)
        if !doc.live
            && open
            && whole
            && info.is_some_and(|s| s.num_events > doc.timeline.len() as u64)
        {
            // Taken for dead when opened, its writer was only slow: open it
            // again (its end-of-stream checks ran too early), keeping the
            // cursor.
            response.reopen = Some((doc.session, TimeCommand::SetClamped(cursor)));
            response.changed = true;
            return response;
        }
        if !doc.live {
            return response;
        }
        let events = match recording.events_after(session, doc.timeline.last_step()) {
            Ok(events) => events,
            Err(error) => {
                self.failed = true;
                response.error = Some(format!(
                    "cannot follow the recording: {}",
                    crate::error::error_chain(&error)
                ));
                return response;
            }
        };
        let num_diagnostics = doc.timeline.diagnostics().len();
        let last_before = doc.timeline.last_step();
        let appended = !events.is_empty();
        // A search over every event may hold the timeline (on its thread):
        // the timeline is then copied, the search going on over the old one.
        if appended {
            let timeline = std::sync::Arc::make_mut(&mut doc.timeline);
            for event in events {
                timeline.append(&event.raw);
                doc.arrival_nanos.push(event.arrival_nanos);
            }
        }
        // The writer ended the session: it is no longer open.
        let ended = info.is_some() && !open;
        if ended {
            // The writer ended the session: now the end-of-stream checks.
            doc.live = false;
            std::sync::Arc::make_mut(&mut doc.timeline).finish();
        }
        for diagnostic in &doc.timeline.diagnostics()[num_diagnostics..] {
            doc.counts.add(diagnostic.severity);
        }
        if appended {
            self.last_growth = Some(Instant::now());
        }
        if appended || ended {
            response.grew = Some(Growth { last_before, ended });
            response.changed = true;
        }
        response
    }
}

#[cfg(test)]
mod tests {
    // Live follow's state machine, with no UI context (issue 16, point 3).
    use super::*;
    use crate::app_model::test_support::{STREAM, doc_of};

    #[test]
    fn a_file_that_is_not_a_recording_is_never_read_again() {
        let mut doc = doc_of(STREAM);
        let mut live = Live::default();
        assert_eq!(live.poll_interval(Some(&doc)), None);
        assert_eq!(live.poll_interval(None), None);
        assert_eq!(live.poll(&mut doc, Seq::new(1)), LiveResponse::default());
        assert_eq!(
            live.poll_now(&mut doc, Seq::new(1)),
            LiveResponse::default()
        );
        assert_eq!(doc.num_events(), 8, "nothing appended");
        assert!(live.quiet_for().is_none(), "never polled");
    }
}
