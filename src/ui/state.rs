//! What the app holds (a document: one stream replayed into a timeline; the
//! cursor; selections and filters). Panels read [`AppState`] and push
//! [`Command`]s; [`AppState::apply`] applies them once per frame, so clicks,
//! keys and tests take one path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

pub use super::command::{CentralTab, Command, DiffScopeChoice, MarkSlot, SearchFrom};
use super::compare::CompareView;
pub use super::document::{Doc, load, load_recent};
use super::document::{MAX_RECENT, save_recent};
use super::find::SearchRun;
use super::live::Live;
use super::notes::Annotations;
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
    /// The step to restore once loaded (a profile switch keeps the cursor).
    keep_step: Option<Seq>,
}

/// Playback at recorded timing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    /// Speed factor (0.25 to 16).
    pub speed: f32,
    /// While playing: when play started, and the arrival time it started at.
    pub playing_since: Option<(Instant, u64)>,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            speed: 1.0,
            playing_since: None,
        }
    }
}

/// The speeds offered.
pub const SPEEDS: [f32; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

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
    pub doc: Option<Doc>,
    /// The state at the cursor.
    pub view: Option<CursorView>,
    /// The activity the inspector shows.
    pub selected_activity: Option<String>,
    /// The event list's filter.
    pub event_filter: EventFilter,
    /// The events the list shows (seqs), for the current filter.
    pub event_rows: Vec<Seq>,
    /// The diagnostics panel's filter.
    pub diagnostics_filter: String,
    /// Playback.
    pub playback: Playback,
    /// The timeline's visible range (`None`: the whole stream).
    pub timeline_range: Option<TimelineRange>,
    /// A background open in progress.
    pub loading: Option<Loading>,
    /// The last error, shown in a banner.
    pub error: Option<String>,
    /// Recently opened files, most recent first.
    pub recent: Vec<PathBuf>,
    /// Replay options for the next open.
    pub options: Options,
    /// Whether the recent files are kept between runs (the app does; tests
    /// do not touch the user's files).
    pub remember_recent: bool,
    /// Marks A and B (the diff's two points).
    pub marks: [Option<Seq>; 2],
    /// What the diff compares.
    pub diff_scope: DiffScopeChoice,
    /// The centre's tab.
    pub central_tab: CentralTab,
    /// The diff tab takes the whole width (the side panels hidden).
    pub wide_diff: bool,
    /// The diff of marks A and B, when the diff tab shows.
    pub comparison: Option<Arc<CompareView>>,
    /// Bookmarks and notes.
    pub annotations: Annotations,
    /// Bookmarks and notes kept in memory for the streams not open now.
    pub unsaved: std::collections::BTreeMap<(PathBuf, Option<i64>), Annotations>,
    /// The search over time, running or done.
    pub search: SearchRun,
    /// A search a JSON tree asked for, for the search tab to take.
    pub search_prefill: Option<(Option<String>, String)>,
    /// A live recording: the playhead stays at the end as it grows.
    pub following: bool,
    /// Polling a live recording.
    pub live: Live,
    /// A short message about the last action (saved, not found…).
    pub notice: Option<(String, Instant)>,
    /// Counts the documents installed (a replay again counts): views cached
    /// on the document compare it. Events a live recording appends do not
    /// change what earlier steps show, so they do not count.
    pub generation: u64,
}

/// How long a notice shows.
const NOTICE_FOR: std::time::Duration = std::time::Duration::from_secs(6);

impl AppState {
    /// The current step (0 without a document).
    pub fn step(&self) -> Seq {
        self.view.as_ref().map_or(Seq::START, |v| v.step)
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
        keep_step: Option<Seq>,
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

    fn install(&mut self, doc: Doc, keep_step: Option<Seq>) {
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
        // A recording opened before its first session: follow that session.
        let was_waiting = self
            .doc
            .as_ref()
            .is_some_and(|d| d.recording.is_some() && d.session.is_none() && d.num_events() == 0);
        self.generation += 1;
        self.search = SearchRun::default();
        self.following = was_waiting && doc.live;
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
        let step = keep_step.unwrap_or(Seq(doc.num_events().min(1)));
        self.playback.playing_since = None;
        self.doc = Some(doc);
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
        self.move_to(step);
        if self.selected_activity.is_none() {
            self.selected_activity = self
                .doc
                .as_ref()
                .and_then(|d| d.timeline.index().lanes().first())
                .map(|lane| lane.message_id.clone());
        }
    }

    /// Moves the cursor (clamped to the stream) and computes the view.
    fn move_to(&mut self, step: Seq) {
        let Some(doc) = &self.doc else {
            self.view = None;
            return;
        };
        let step = Seq(step.0.min(doc.num_events()));
        if step < doc.timeline.last_step() {
            // Following a live recording keeps the cursor at its end.
            self.following = false;
        }
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
            Command::SetStep(step) => {
                self.playback.playing_since = None;
                self.following = step.0 >= num_events && self.doc.as_ref().is_some_and(|d| d.live);
                self.move_to(step);
            }
            Command::StepBy(delta) => {
                self.playback.playing_since = None;
                self.following = false;
                let step = self.step().0.saturating_add_signed(delta).min(num_events);
                self.move_to(Seq(step));
            }
            Command::StepPage(forward) => {
                let visible = self
                    .timeline_range
                    .map_or(num_events as f64, |r| r.last - r.first);
                let page = ((visible / 10.0) as i64).max(10);
                self.apply_one(Command::StepBy(if forward { page } else { -page }));
            }
            Command::NextDiagnostic | Command::PreviousDiagnostic => {
                let forward = command == Command::NextDiagnostic;
                if let Some(step) = self.diagnostic_step(forward) {
                    self.playback.playing_since = None;
                    self.move_to(step);
                }
            }
            Command::SelectActivity(id) => self.selected_activity = id,
            Command::TogglePlay => self.toggle_play(),
            Command::SetSpeed(speed) => {
                let playing = self.playback.playing_since.is_some();
                self.playback.speed = speed.clamp(0.25, 16.0);
                if playing {
                    self.playback.playing_since =
                        Some((Instant::now(), self.arrival_at(self.step())));
                }
            }
            Command::SetProfile(profile) => {
                self.options.profile = profile;
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
            Command::SetMark(slot, step) => {
                self.marks[slot as usize] = step.map(|s| Seq(s.0.min(num_events)));
            }
            Command::MarkCursor(slot) => {
                self.marks[slot as usize] = Some(self.step());
                if self.marks.iter().all(Option::is_some) {
                    self.central_tab = CentralTab::Diff;
                }
            }
            Command::SetMarks(a, b) => {
                let (a, b) = (a.min(b), a.max(b));
                self.marks = [Some(a), Some(Seq(b.0.min(num_events)))];
                self.central_tab = CentralTab::Diff;
            }
            Command::DiffWithPrevious => {
                let step = self.step();
                self.marks = [Some(Seq(step.0.saturating_sub(1))), Some(step)];
                self.central_tab = CentralTab::Diff;
            }
            Command::SetDiffScope(scope) => self.diff_scope = scope,
            Command::ShowCentral(tab) => self.central_tab = tab,
            Command::SetWideDiff(wide) => self.wide_diff = wide,
            Command::Notify(message) => self.notify(message),
            Command::AddBookmark(label) => self.add_bookmark(label),
            Command::RenameBookmark(id, label) => self.rename_bookmark(id, &label),
            Command::DeleteBookmark(id) => self.delete_bookmark(id),
            Command::NextBookmark | Command::PreviousBookmark => {
                let forward = command == Command::NextBookmark;
                match self.annotations.bookmark_step(self.step(), forward) {
                    Some(step) => {
                        self.playback.playing_since = None;
                        self.notice = None;
                        self.move_to(step);
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
            Command::AddNote(text) => self.add_note(&text),
            Command::EditNote(id, text) => self.edit_note(id, &text),
            Command::DeleteNote(id) => self.delete_note(id),
            Command::StartSearch(query, from) => self.start_search(query, from),
            Command::CancelSearch => self.search.cancel(),
            Command::PrefillSearch { message, pointer } => {
                self.search_prefill = Some((message, pointer));
            }
            Command::SetFollow(follow) => {
                self.following = follow;
                if follow {
                    self.playback.playing_since = None;
                    self.move_to(Seq(num_events));
                }
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

    /// Computes the view at `step` again, even if the cursor is there (the
    /// replay changed under it).
    pub(super) fn view_again_at(&mut self, step: Seq) {
        self.view = None;
        self.move_to(step);
    }

    /// Moves the cursor (for the modules that drive it: search, live).
    pub(super) fn go_to(&mut self, step: Seq) {
        self.playback.playing_since = None;
        self.move_to(step);
    }

    /// Replays the open document again with the current options, keeping
    /// the cursor.
    fn reopen(&mut self) {
        if let Some(doc) = &self.doc {
            let (path, session, step) = (doc.path.clone(), doc.session, self.step());
            self.open_in_background(path, session, Some(step));
        }
    }

    /// The next (or previous) step with a diagnostic.
    pub fn diagnostic_step(&self, forward: bool) -> Option<Seq> {
        let doc = self.doc.as_ref()?;
        let current = self.step();
        let index = doc.timeline.index();
        let candidates = Severity::ALL.iter().filter_map(|&severity| {
            let steps = index.steps_with(severity);
            if forward {
                let i = steps.partition_point(|s| *s <= current);
                steps.get(i).copied()
            } else {
                let i = steps.partition_point(|s| *s < current);
                i.checked_sub(1).and_then(|i| steps.get(i)).copied()
            }
        });
        if forward {
            candidates.min()
        } else {
            candidates.max()
        }
    }

    /// The arrival time of a step's event (0 at step 0).
    pub fn arrival_at(&self, step: Seq) -> u64 {
        self.doc
            .as_ref()
            .and_then(|doc| step.index().and_then(|i| doc.arrival_nanos.get(i)).copied())
            .unwrap_or(0)
    }

    fn toggle_play(&mut self) {
        self.following = false;
        if self.playback.playing_since.is_some() {
            self.playback.playing_since = None;
            return;
        }
        let Some(doc) = &self.doc else { return };
        let mut step = self.step();
        if step >= doc.timeline.last_step() {
            step = Seq::START;
            self.move_to(step);
        }
        self.playback.playing_since = Some((Instant::now(), self.arrival_at(step)));
    }

    /// Advances playback to the events whose (scaled) arrival time has come;
    /// returns whether it is still playing.
    pub fn advance_playback(&mut self) -> bool {
        let Some((since, from)) = self.playback.playing_since else {
            return false;
        };
        let Some(doc) = &self.doc else { return false };
        let elapsed = since.elapsed().as_secs_f64() * f64::from(self.playback.speed);
        let now = from.saturating_add((elapsed * 1e9) as u64);
        let arrivals = &doc.arrival_nanos;
        let reached = arrivals.partition_point(|&a| a <= now) as u64;
        let last = doc.num_events();
        if reached > self.step().0 {
            self.move_to(Seq(reached.min(last)));
        }
        if reached >= last {
            self.playback.playing_since = None;
            return false;
        }
        true
    }
}

/// The name of a profile for the switch.
pub fn profile_label(profile: Profile) -> &'static str {
    match profile {
        Profile::Spec => "spec",
        Profile::AgUiClient10 => "@ag-ui/client 1.0",
    }
}
