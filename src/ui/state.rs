//! What the app holds (a document: one stream replayed into a timeline; the
//! cursor; selections and filters). Panels read [`AppState`] and push
//! [`Command`]s; [`AppState::apply`] applies them once per frame, so clicks,
//! keys and tests take one path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

pub use super::command::{
    CentralTab, Command, DiffScopeChoice, MarkCommand, MarkSlot, NoteCommand, SearchCommand,
    SearchFrom,
};
use super::compare::CompareView;
pub use super::document::{Doc, load, load_recent};
use super::document::{MAX_RECENT, save_recent};
use super::find::SearchRun;
use super::live::Live;
use super::notes::Annotations;
pub use super::time_control::{SPEEDS, TimeCommand, TimeContext, TimeControl, TimeResponse};
use crate::diagnostic::{Seq, Severity};
use crate::protocol::{ParseOutcome, parse_event};
use crate::replay::{Options, Profile, Replayer};
use crate::timeline::EventKind;

/// The state at the cursor: what every panel shows.
pub struct CursorView {
    /// The step.
    pub step: Seq,
    /// The replay at the step.
    pub at: Replayer,
    /// The replay one step earlier (what the current event changed is the
    /// difference).
    pub before: Replayer,
    /// The current event, read (none at step 0).
    pub event: Option<ParseOutcome>,
}

/// Which events the event list shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Text the raw event must contain (case-insensitive).
    pub text: String,
    /// The `messageId` the event must name (empty: any).
    pub message_id: String,
    /// The kinds to show (empty: all).
    pub kinds: BTreeSet<EventKind>,
    /// Only events with a diagnostic at least this severe.
    pub min_severity: Option<Severity>,
}

/// A stream being opened on a background thread.
pub struct Loading {
    /// What is being opened.
    pub path: PathBuf,
    /// When it started.
    pub started: Instant,
    receiver: Receiver<Result<Box<Doc>, String>>,
    /// Where the cursor goes once loaded (a profile switch keeps it; the
    /// first session of a recording opened empty follows its end).
    keep_step: Option<TimeCommand>,
}

/// The visible range of the timeline, in steps (fractional when zoomed in).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelineRange {
    /// The first visible step.
    pub first: f64,
    /// The last visible step.
    pub last: f64,
}

/// Everything the app holds.
#[derive(Default)]
pub struct AppState {
    /// The opened stream, if any.
    pub(super) doc: Option<Doc>,
    /// The state at the cursor.
    pub(super) view: Option<CursorView>,
    /// The activity the inspector shows.
    pub(super) selected_activity: Option<String>,
    /// The event list's filter.
    pub(super) event_filter: EventFilter,
    /// The events the list shows (seqs), for the current filter.
    pub(super) event_rows: Vec<Seq>,
    /// The diagnostics panel's filter.
    pub(super) diagnostics_filter: String,
    /// The cursor and playback.
    time: TimeControl,
    /// The timeline's visible range (`None`: the whole stream).
    pub(super) timeline_range: Option<TimelineRange>,
    /// A background open in progress.
    pub(super) loading: Option<Loading>,
    /// The last error, shown in a banner.
    pub(super) error: Option<String>,
    /// Recently opened files, most recent first.
    pub(super) recent: Vec<PathBuf>,
    /// Replay options for the next open.
    pub(super) options: Options,
    /// Whether the recent files are kept between runs (the app does; tests
    /// do not touch the user's files).
    pub(super) remember_recent: bool,
    /// Marks A and B (the diff's two points).
    pub(super) marks: [Option<Seq>; 2],
    /// What the diff compares.
    pub(super) diff_scope: DiffScopeChoice,
    /// The centre's tab.
    pub(super) central_tab: CentralTab,
    /// The diff tab takes the whole width (the side panels hidden).
    pub(super) wide_diff: bool,
    /// The diff of marks A and B, when the diff tab shows.
    pub(super) comparison: Option<Arc<CompareView>>,
    /// Bookmarks and notes.
    pub(super) annotations: Annotations,
    /// Bookmarks and notes kept in memory for the streams not open now.
    pub(super) unsaved: std::collections::BTreeMap<(PathBuf, Option<i64>), Annotations>,
    /// The search over time, running or done.
    pub(super) search: SearchRun,
    /// A search a JSON tree asked for, for the search tab to take.
    pub(super) search_prefill: Option<(Option<String>, String)>,
    /// Polling a live recording.
    pub(super) live: Live,
    /// A short message about the last action (saved, not found…).
    pub(super) notice: Option<(String, Instant)>,
    /// Counts the documents installed (a replay again counts): views cached
    /// on the document compare it. Events a live recording appends do not
    /// change what earlier steps show, so they do not count.
    pub(super) generation: u64,
}

/// When to draw the next frame, as the logic step of a frame says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repaint {
    /// Something changed or moves (playback, a search): draw again now.
    pub now: bool,
    /// Draw again within this long (an open in progress, a recording read
    /// again, a notice to take away).
    pub after: Option<std::time::Duration>,
}

impl Repaint {
    fn within(&mut self, delay: std::time::Duration) {
        self.after = Some(self.after.map_or(delay, |after| after.min(delay)));
    }
}

/// How often a background open is looked at.
const LOADING_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How long a notice shows.
const NOTICE_FOR: std::time::Duration = std::time::Duration::from_secs(6);

impl AppState {
    /// The current step (0 without a document).
    pub fn step(&self) -> Seq {
        self.time.step()
    }

    /// The opened stream, if any.
    pub fn doc(&self) -> Option<&Doc> {
        self.doc.as_ref()
    }

    /// The state at the cursor.
    pub fn view(&self) -> Option<&CursorView> {
        self.view.as_ref()
    }

    /// The last error, shown in a banner.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Whether a background open is in progress.
    pub fn is_loading(&self) -> bool {
        self.loading.is_some()
    }

    /// The activity the inspector shows.
    pub fn selected_activity(&self) -> Option<&str> {
        self.selected_activity.as_deref()
    }

    /// The events the event list shows, for its filter.
    pub fn event_rows(&self) -> &[Seq] {
        &self.event_rows
    }

    /// The replay options.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Marks A and B.
    pub fn marks(&self) -> [Option<Seq>; 2] {
        self.marks
    }

    /// What the diff compares.
    pub fn diff_scope_choice(&self) -> DiffScopeChoice {
        self.diff_scope
    }

    /// The centre's tab.
    pub fn central_tab(&self) -> CentralTab {
        self.central_tab
    }

    /// The diff of marks A and B, when the diff tab shows.
    pub fn comparison(&self) -> Option<&Arc<CompareView>> {
        self.comparison.as_ref()
    }

    /// Bookmarks and notes.
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// The search over time, running or done.
    pub fn search(&self) -> &SearchRun {
        &self.search
    }

    /// Keeps the recent files (and the theme) between runs, from `recent`.
    pub fn remember_recent(&mut self, recent: Vec<PathBuf>) {
        self.remember_recent = true;
        self.recent = recent;
    }

    /// The cursor and playback: the step, playing or paused, the speed,
    /// following the end.
    pub fn time(&self) -> &TimeControl {
        &self.time
    }

    /// Opens a file synchronously (tests, and small files).
    pub fn open_now(&mut self, path: &Path, session: Option<i64>) {
        match load(path, session, self.options) {
            Ok(doc) => self.install(*doc, None),
            Err(error) => self.error = Some(error),
        }
    }

    /// Opens a file on a background thread; [`Self::poll_loading`] installs
    /// it when ready.
    pub fn open_in_background(
        &mut self,
        path: PathBuf,
        session: Option<i64>,
        keep_step: Option<TimeCommand>,
    ) {
        let (sender, receiver) = channel();
        let options = self.options;
        let thread_path = path.clone();
        std::thread::spawn(move || {
            let _ = sender.send(load(&thread_path, session, options));
        });
        self.loading = Some(Loading {
            path,
            started: Instant::now(),
            receiver,
            keep_step,
        });
    }

    /// Installs a background open that finished; returns whether anything
    /// changed.
    pub fn poll_loading(&mut self) -> bool {
        let Some(loading) = &self.loading else {
            return false;
        };
        match loading.receiver.try_recv() {
            Ok(result) => {
                let keep_step = loading.keep_step;
                self.loading = None;
                match result {
                    Ok(doc) => self.install(*doc, keep_step),
                    Err(error) => self.error = Some(error),
                }
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => {
                self.loading = None;
                self.error = Some("opening failed".into());
                true
            }
        }
    }

    /// Shows a document already read (the panels' tests).
    #[cfg(test)]
    pub(crate) fn install_doc(&mut self, doc: Doc) {
        self.install(doc, None);
    }

    fn install(&mut self, doc: Doc, keep_step: Option<TimeCommand>) {
        let path = doc.path.clone();
        // The same stream replayed again (another profile, best effort)
        // keeps what the user set; another file or session starts afresh.
        let same_stream = self
            .doc
            .as_ref()
            .is_some_and(|d| d.path == path && d.session == doc.session);
        if !same_stream {
            self.selected_activity = None;
            self.timeline_range = None;
            self.marks = [None, None];
            self.central_tab = CentralTab::Conversation;
        }
        let num_events = doc.num_events();
        for mark in self.marks.iter_mut().flatten() {
            *mark = Seq(mark.0.min(num_events));
        }
        self.generation += 1;
        self.search = SearchRun::default();
        self.live = Live::default();
        // Bookmarks and notes kept in memory (not a recording, or a save
        // that failed) last while the app runs: set aside with their stream,
        // taken back when it opens again (a replay, another exchange and
        // back).
        if let Some(old) = &self.doc {
            let unsaved = self.annotations.unsaved();
            self.unsaved
                .insert((old.path.clone(), old.session), unsaved);
        }
        let mut annotations = Annotations::load(&doc);
        if let Some(unsaved) = self.unsaved.get(&(doc.path.clone(), doc.session)) {
            annotations.keep_unsaved_from(unsaved);
        }
        self.annotations = annotations;
        self.time
            .reset(num_events, doc.live, Seq(num_events.min(1)));
        self.doc = Some(doc);
        if let Some(command) = keep_step {
            self.time_command(command);
        }
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
        if self.remember_recent {
            save_recent(&self.recent);
        }
        self.refresh_rows();
        // The view at the kept step was computed from the replay replaced.
        self.view = None;
        self.sync_view();
        if self.selected_activity.is_none() {
            self.selected_activity = self
                .doc
                .as_ref()
                .and_then(|d| d.timeline.index().lanes().first())
                .map(|lane| lane.message_id.clone());
        }
        // A vector, or a session imported from one, declares the profile it
        // is replayed under, as on the command line (issue 12, item 12);
        // switching profile afterwards is the user's choice.
        if !same_stream
            && let Some(declared) = self
                .doc
                .as_ref()
                .and_then(|d| d.source.declared_profile.as_deref())
                .and_then(|name| name.parse::<Profile>().ok())
            && declared != self.options.profile
        {
            self.options.profile = declared;
            self.reopen();
        }
    }

    /// Applies a command to the cursor and playback, then brings the view
    /// to the step.
    pub(super) fn time_command(&mut self, command: TimeCommand) -> TimeResponse {
        let lists: Vec<&[Seq]> = match &self.doc {
            Some(doc) => {
                let index = doc.timeline.index();
                Severity::ALL.iter().map(|&s| index.steps_with(s)).collect()
            }
            None => Vec::new(),
        };
        let context = TimeContext {
            diagnostic_steps: &lists,
            visible_steps: self.timeline_range.map(|r| r.last - r.first),
        };
        let response = self.time.apply(command, &context);
        self.sync_view();
        response
    }

    /// Computes the view at the cursor's step, unless it shows it already.
    fn sync_view(&mut self) {
        let Some(doc) = &self.doc else {
            self.view = None;
            return;
        };
        let step = self.time.step();
        if self.view.as_ref().is_some_and(|v| v.step == step) {
            return;
        }
        let before = doc.timeline.seek(Seq(step.0.saturating_sub(1)));
        let (at, event) = match doc.raw(step).filter(|_| step.0 > 0) {
            Some(raw) => {
                let mut at = before.checkpoint();
                let parsed = parse_event(raw);
                at.apply(parsed.clone());
                if step == doc.timeline.last_step() {
                    at = doc.timeline.seek(step);
                }
                (at, Some(parsed))
            }
            None => (before.checkpoint(), None),
        };
        self.view = Some(CursorView {
            step,
            at,
            before,
            event,
        });
    }

    /// Recomputes the rows of the event list for the current filter.
    pub fn refresh_rows(&mut self) {
        self.event_rows = match &self.doc {
            Some(doc) => super::event_list::filter_rows(doc, &self.event_filter),
            None => Vec::new(),
        };
    }

    /// Applies the commands of a frame, in order, then brings what is
    /// derived from them (the diff) up to date.
    pub fn apply(&mut self, commands: Vec<Command>) {
        for command in commands {
            self.apply_one(command);
        }
        self.refresh_comparison();
    }

    fn apply_one(&mut self, command: Command) {
        let num_events = self.doc.as_ref().map_or(0, Doc::num_events);
        match command {
            Command::Time(command) => {
                self.time_command(command);
            }
            Command::SelectActivity(id) => self.selected_activity = id,
            Command::SetProfile(profile) => {
                self.options.profile = profile;
                self.reopen();
            }
            Command::SetProtocol(protocol) => {
                self.options.protocol = protocol;
                self.reopen();
            }
            Command::SetBestEffort(best_effort) => {
                self.options.best_effort = best_effort;
                self.reopen();
            }
            Command::Open(path) => self.open_in_background(path, None, None),
            Command::PickSession(session) => {
                if let Some(doc) = &self.doc {
                    let path = doc.path.clone();
                    self.open_in_background(path, Some(session), None);
                }
            }
            Command::SetEventFilter(filter) => {
                self.event_filter = filter;
                self.refresh_rows();
            }
            Command::SetDiagnosticsFilter(filter) => self.diagnostics_filter = filter,
            Command::SetTimelineRange(range) => self.timeline_range = Some(range),
            Command::DismissError => {
                self.error = None;
                self.notice = None;
            }
            Command::Mark(MarkCommand::Set(slot, step)) => {
                self.marks[slot as usize] = step.map(|s| Seq(s.0.min(num_events)));
            }
            Command::Mark(MarkCommand::AtCursor(slot)) => {
                self.marks[slot as usize] = Some(self.step());
                if self.marks.iter().all(Option::is_some) {
                    self.central_tab = CentralTab::Diff;
                }
            }
            Command::Mark(MarkCommand::SetBoth(a, b)) => {
                let (a, b) = (a.min(b), a.max(b));
                self.marks = [Some(a), Some(Seq(b.0.min(num_events)))];
                self.central_tab = CentralTab::Diff;
            }
            Command::Mark(MarkCommand::DiffWithPrevious) => {
                let step = self.step();
                self.marks = [Some(Seq(step.0.saturating_sub(1))), Some(step)];
                self.central_tab = CentralTab::Diff;
            }
            Command::SetDiffScope(scope) => self.diff_scope = scope,
            Command::ShowCentral(tab) => self.central_tab = tab,
            Command::SetWideDiff(wide) => self.wide_diff = wide,
            Command::Notify(message) => self.notify(message),
            Command::Note(NoteCommand::AddBookmark(label)) => self.add_bookmark(label),
            Command::Note(NoteCommand::RenameBookmark(id, label)) => {
                self.rename_bookmark(id, &label)
            }
            Command::Note(NoteCommand::DeleteBookmark(id)) => self.delete_bookmark(id),
            Command::Note(NoteCommand::NextBookmark)
            | Command::Note(NoteCommand::PreviousBookmark) => {
                let forward = command == Command::Note(NoteCommand::NextBookmark);
                match self.annotations.bookmark_step(self.step(), forward) {
                    Some(step) => {
                        self.notice = None;
                        self.time_command(TimeCommand::Set(step));
                    }
                    None => {
                        let (which, side) = if forward {
                            ("next", "after")
                        } else {
                            ("previous", "before")
                        };
                        self.notify(format!(
                            "No {which} bookmark: none {side} step {}",
                            self.step()
                        ));
                    }
                }
            }
            Command::Note(NoteCommand::AddNote(text)) => self.add_note(&text),
            Command::Note(NoteCommand::EditNote(id, text)) => self.edit_note(id, &text),
            Command::Note(NoteCommand::DeleteNote(id)) => self.delete_note(id),
            Command::Search(SearchCommand::Start(query, from)) => self.start_search(query, from),
            Command::Search(SearchCommand::Cancel) => self.search.cancel(),
            Command::Search(SearchCommand::Prefill { message, pointer }) => {
                self.search_prefill = Some((message, pointer));
            }
        }
    }

    /// Shows a short message in the status bar (for a few seconds).
    pub fn notify(&mut self, message: String) {
        self.notice = Some((message, Instant::now()));
    }

    /// The message to show now, if any.
    pub fn current_notice(&self) -> Option<&str> {
        let (message, since) = self.notice.as_ref()?;
        (since.elapsed() < NOTICE_FOR).then_some(message.as_str())
    }

    /// The stream grew or ended under the cursor: the cursor follows its
    /// end if asked to, and the view is computed again (the replay, and its
    /// diagnostics, may have changed under it).
    pub(super) fn stream_changed(&mut self) {
        let (num_events, live) = self
            .doc
            .as_ref()
            .map_or((0, false), |d| (d.num_events(), d.live));
        self.time.set_num_steps(num_events, live);
        self.view = None;
        self.sync_view();
    }

    /// Replays the open document again with the current options, keeping
    /// the cursor.
    fn reopen(&mut self) {
        if let Some(doc) = &self.doc {
            let (path, session, step) = (doc.path.clone(), doc.session, self.step());
            self.open_in_background(path, session, Some(TimeCommand::SetClamped(step)));
        }
    }

    /// The next (or previous) step with a diagnostic.
    pub fn diagnostic_step(&self, forward: bool) -> Option<Seq> {
        let doc = self.doc.as_ref()?;
        let current = self.step();
        let index = doc.timeline.index();
        let lists = Severity::ALL.map(|s| index.steps_with(s));
        super::time_control::next_step_in(&lists, current, forward)
    }

    /// The arrival time of a step's event (0 at step 0).
    pub fn arrival_at(&self, step: Seq) -> u64 {
        self.doc
            .as_ref()
            .and_then(|doc| step.index().and_then(|i| doc.arrival_nanos.get(i)).copied())
            .unwrap_or(0)
    }

    /// The work of a frame that draws nothing, run once before the panels
    /// draw: a background open finished, playback moved on by `dt_seconds`
    /// (the frame's time), a slice of the search over time, the new events
    /// of a live recording. Says when to draw again.
    pub fn logic_step(&mut self, dt_seconds: f64) -> Repaint {
        let mut repaint = Repaint::default();
        repaint.now |= self.poll_loading();
        if self.loading.is_some() {
            repaint.within(LOADING_POLL);
        }
        repaint.now |= self.tick_playback(dt_seconds);
        repaint.now |= self.advance_search(super::find::EVENTS_PER_FRAME);
        repaint.now |= self.poll_live();
        if let Some(interval) = self.live_poll_interval() {
            // New events and sessions of a recording still being written.
            repaint.within(interval);
        }
        if self.current_notice().is_some() {
            // To take the notice away when its time is up.
            repaint.within(std::time::Duration::from_secs(1));
        }
        repaint
    }

    /// Moves playback on by a frame's time (seconds of the clock); returns
    /// whether it is still playing.
    pub fn tick_playback(&mut self, dt_seconds: f64) -> bool {
        if let Some(doc) = &self.doc
            && self.time.tick(dt_seconds, &doc.arrival_nanos).step_changed
        {
            self.sync_view();
        }
        self.time.is_playing()
    }
}

/// The name of a profile for the switch.
pub fn profile_label(profile: Profile) -> &'static str {
    match profile {
        Profile::Spec => "spec",
        Profile::AgUiClient10 => "@ag-ui/client 1.0",
    }
}
