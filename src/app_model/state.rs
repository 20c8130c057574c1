//! What the app holds (a document: one stream replayed into a timeline; the
//! cursor; selections and filters). Panels read [`AppState`] and push
//! [`Command`]s; [`AppState::apply`] applies them once per frame, so clicks,
//! keys and tests take one path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

use super::command::{CentralTab, Command, DiffScopeChoice, MarkCommand};
use super::document::{Doc, LoadOptions, load_with};
use super::document::{MAX_RECENT, save_recent, save_schema_folders};
use super::follow::Inspected;
use super::indexing::IndexUpdate;
use super::live::{Live, LiveResponse};
use super::schemas::{
    SchemaCommand, SchemaFolders, SchemaSetting, attach_findings, check_new_events, infer_into,
};
use super::seek::{SeekPolicy, Seeker, view_at};
use super::time_control::{TimeCommand, TimeContext, TimeControl, TimeResponse};
use crate::app_model::marks::{CompareView, Marks};
use crate::app_model::notes::{Annotations, NoteContext, Notes};
use crate::app_model::search::{SearchProgress, SearchRun};
use crate::diagnostic::{Seq, Severity};
use crate::protocol::ParseOutcome;
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
    /// The document generation it was computed in: with the step, what
    /// panels memoize by ([`crate::app_model::memo::Memo`]).
    pub generation: u64,
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

/// Everything the app holds: the document, the cursor, and one state per
/// feature (marks and the diff, bookmarks and notes, search, live follow),
/// each with its own commands.
#[derive(Default)]
pub struct AppState {
    /// The opened stream, if any.
    doc: Option<Doc>,
    /// The state at the cursor.
    view: Option<CursorView>,
    /// Counts every change to the document: another one installed (a
    /// replay again counts), events a live recording appends. What is
    /// derived from it is kept in a [`crate::app_model::memo::Memo`] by it.
    generation: u64,
    /// The cursor and playback.
    time: TimeControl,
    /// The message the inspector shows: pinned, or followed (issue 13.1).
    inspected: Inspected,
    /// The event list's filter.
    event_filter: EventFilter,
    /// The events the list shows (seqs), for the current filter.
    event_rows: Vec<Seq>,
    /// The diagnostics panel's filter.
    diagnostics_filter: String,
    /// The timeline's visible range (`None`: the whole stream).
    timeline_range: Option<TimelineRange>,
    /// Whether the timeline is read in recorded time (issue 43), when the
    /// stream has recorded times ([`Self::timeline_in_time`]).
    timeline_in_time: bool,
    /// A background open in progress.
    loading: Option<Loading>,
    /// The last error, shown in a banner.
    error: Option<String>,
    /// A short message about the last action (saved, not found…).
    notice: Option<(String, Instant)>,
    /// Recently opened files, most recent first.
    recent: Vec<PathBuf>,
    /// Replay options for the next open.
    options: Options,
    /// Whether the recent files are kept between runs (the app does; tests
    /// do not touch the user's files).
    remember_recent: bool,
    /// The centre's tab.
    central_tab: CentralTab,
    /// The diff tab takes the whole width (the side panels hidden).
    wide_diff: bool,
    /// Marks A and B, and their diff.
    marks: Marks,
    /// Bookmarks and notes.
    notes: Notes,
    /// The search over time, running or done.
    search: SearchRun,
    /// Polling a live recording.
    live: Live,
    /// How streams are opened (indexing in the background, the stored
    /// index).
    load_options: LoadOptions,
    /// The stream compared with this one (File › Compare with…).
    compare_with: crate::app_model::compare_with::CompareWith,
    /// The schema folder the contents are checked against (issue 42), for
    /// the session.
    schemas: SchemaSetting,
    /// The schema folder chosen for each recent recording (issue 42).
    schema_folders: SchemaFolders,
    /// The edits of the stream, and which view shows (issue 41).
    whatif: crate::app_model::whatif::WhatIf,
    /// Where the seek at the cursor runs (issue 43).
    seek_policy: SeekPolicy,
    /// The seek thread, when the policy sends seeks there.
    seeker: Seeker,
    /// The id of the seek whose view shows: an answer older than it is
    /// not shown (the seeks' ids grow).
    shown_seek: u64,
    /// Answers older than this are of a stream no longer shown.
    seeks_valid_from: u64,
    /// Since when the view has been behind the cursor, a seek on its way.
    behind_since: Option<Instant>,
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

/// How often a seek on its way is looked at, besides the seek thread
/// waking the app when it answers.
const SEEK_POLL: std::time::Duration = std::time::Duration::from_millis(16);

/// How long the view may be behind the cursor before the status bar says
/// it is catching up.
pub const CATCHING_UP_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

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

    /// The activity (or message) the inspector shows, and the diff's "the
    /// activity" compares: the one pinned, else the one the current event
    /// names (or the last one named before it).
    pub fn selected_activity(&self) -> Option<&str> {
        self.inspected.shown()
    }

    /// What the inspector shows: pinned, or followed (issue 13.1).
    pub fn inspected(&self) -> &Inspected {
        &self.inspected
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
        self.marks.get()
    }

    /// What the diff compares.
    pub fn diff_scope_choice(&self) -> DiffScopeChoice {
        self.marks.scope_choice()
    }

    /// The scope the diff compares now: the selected activity, the
    /// conversation or the state (`None`: the activity scope with nothing
    /// selected).
    pub fn diff_scope(&self) -> Option<crate::diff::DiffScope> {
        self.marks.scope(self.selected_activity())
    }

    /// The diff takes the whole width.
    pub fn wide_diff(&self) -> bool {
        self.wide_diff
    }

    /// The document generation: it changes with every change to the
    /// document.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The event list's filter.
    pub fn event_filter(&self) -> &EventFilter {
        &self.event_filter
    }

    /// The diagnostics panel's filter.
    pub fn diagnostics_filter(&self) -> &str {
        &self.diagnostics_filter
    }

    /// The timeline's visible range (`None`: the whole stream).
    pub fn timeline_range(&self) -> Option<TimelineRange> {
        self.timeline_range
    }

    /// Whether the timeline is read in recorded time (issue 43): asked
    /// for, and the stream has times of its own.
    pub fn timeline_in_time(&self) -> bool {
        self.timeline_in_time && self.has_recorded_times()
    }

    /// Whether the open stream has times of its own, at least in part
    /// ([`super::time_axis::has_recorded_times`]).
    pub fn has_recorded_times(&self) -> bool {
        self.doc
            .as_ref()
            .is_some_and(|doc| super::time_axis::has_recorded_times(doc.timing))
    }

    /// The open in progress, if any.
    pub fn loading(&self) -> Option<&Loading> {
        self.loading.as_ref()
    }

    /// Recently opened files, most recent first.
    pub fn recent(&self) -> &[PathBuf] {
        &self.recent
    }

    /// Whether the recent files (and the theme) are kept between runs.
    pub fn remembers_recent(&self) -> bool {
        self.remember_recent
    }

    /// Live follow.
    pub fn live(&self) -> &Live {
        &self.live
    }

    /// Takes the search a JSON tree asked for, if any (the search tab
    /// shows it).
    pub fn take_search_prefill(&mut self) -> Option<(Option<String>, String)> {
        self.search.take_prefill()
    }

    /// The centre's tab.
    pub fn central_tab(&self) -> CentralTab {
        self.central_tab
    }

    /// The diff of marks A and B, when the diff tab shows.
    pub fn comparison(&self) -> Option<&Arc<CompareView>> {
        self.marks.comparison()
    }

    /// The stream compared with this one (File › Compare with…).
    pub fn compare_with(&self) -> &crate::app_model::compare_with::CompareWith {
        &self.compare_with
    }

    /// Waits for the comparison on its way and shows it (tests).
    pub fn wait_for_compare(&mut self) {
        if let Some(response) = self.compare_with.wait() {
            self.compare_response(response);
            self.apply(Vec::new());
        }
    }

    fn compare_response(&mut self, response: crate::app_model::compare_with::CompareResponse) {
        if let Some(error) = response.error {
            self.error = Some(error);
        }
        match response.show_tab {
            Some(true) => self.central_tab = CentralTab::Compare,
            Some(false) if self.central_tab == CentralTab::Compare => {
                self.central_tab = CentralTab::Conversation;
            }
            _ => {}
        }
        if let Some(step) = response.go_to {
            self.time_command(TimeCommand::Set(step));
        }
    }

    /// The edits of the stream ("What if…", issue 41).
    pub fn whatif(&self) -> &crate::app_model::whatif::WhatIf {
        &self.whatif
    }

    /// Applies a "What if…" command (issue 41): a changed stream is
    /// shown as a replay again is, the cursor kept.
    fn whatif_command(&mut self, command: crate::app_model::whatif::WhatIfCommand) {
        use crate::app_model::whatif::WhatIfCommand;
        let Some(doc) = &mut self.doc else {
            return;
        };
        let compare = command == WhatIfCommand::CompareWithRecording;
        if compare {
            if self.whatif.edits().is_empty() {
                self.error =
                    Some("no edits yet: skip or edit an event first (right-click it)".into());
                return;
            }
            if !self.whatif.showing_edited() {
                self.whatif_command(WhatIfCommand::Toggle);
            }
            // B is the session edited, not the recording's first.
            let open = self.doc.as_ref().map(|d| match d.session {
                Some(session) => crate::app_model::compare_with::CompareCommand::OpenSession(
                    d.path.clone(),
                    session,
                ),
                None => crate::app_model::compare_with::CompareCommand::Open(d.path.clone()),
            });
            if let Some(open) = open {
                self.apply_one(Command::Compare(open));
            }
            return;
        }
        let step = self.time.step();
        let response = self.whatif.apply(command, doc, step, self.load_options);
        self.whatif_response(response);
    }

    /// Acts on what a "What if…" command changed.
    fn whatif_response(&mut self, response: crate::app_model::whatif::WhatIfResponse) {
        if response.stream_changed {
            self.search = SearchRun::default();
            if let Some(doc) = &self.doc {
                self.marks.clamp(doc.num_events());
                self.compare_with.a_changed(true, doc, self.options);
            }
            self.refresh_rows();
            self.clear_view();
            self.stream_changed();
            // The rest of an edited stream is indexed once the state at
            // the cursor shows.
            if let Some(doc) = &mut self.doc {
                self.whatif.start_indexing(doc);
            }
        }
        if let Some(notice) = response.notice {
            self.notify(notice);
        }
        if let Some(error) = response.error {
            self.error = Some(error);
        }
    }

    /// Applies the edits restored from the recording (or kept over a
    /// replay again) once the recording is whole.
    fn resume_whatif(&mut self) {
        let Some(doc) = &mut self.doc else {
            return;
        };
        let step = self.time.step();
        let response = self.whatif.resume(doc, step, self.load_options);
        self.whatif_response(response);
    }

    /// Bookmarks and notes.
    pub fn annotations(&self) -> &Annotations {
        self.notes.annotations()
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

    /// Starts from the schema folders of the recent recordings of earlier
    /// runs (issue 42).
    pub fn remember_schema_folders(&mut self, folders: SchemaFolders) {
        self.schema_folders = folders;
    }

    /// The schema folder chosen for each recent recording (issue 42).
    pub fn schema_folders(&self) -> &SchemaFolders {
        &self.schema_folders
    }

    /// Before `path` opens: the schema folder chosen for it, if any, is the
    /// one checked against (issue 42). One that cannot be used any more is
    /// said, and the stream opens with the folder in use.
    fn schemas_for_file(&mut self, path: &Path) {
        let file = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let Some(folder) = self.schema_folders.folder_for(&file) else {
            return;
        };
        if self.schemas.folder() == Some(folder) {
            return;
        }
        let folder = folder.to_owned();
        match self.schemas.load(&folder) {
            Ok(()) => self.notify(format!(
                "checking against the schemas in {}, as when this recording was last open",
                folder.display()
            )),
            Err(error) => self.notify(format!(
                "the schemas last used with this recording cannot be used: {error}"
            )),
        }
    }

    /// Remembers (or with `None`, forgets) the schema folder of the open
    /// recording, with the recent files.
    fn remember_schema_folder(&mut self, folder: Option<PathBuf>) {
        let Some(doc) = &self.doc else { return };
        let file = std::fs::canonicalize(&doc.path).unwrap_or_else(|_| doc.path.clone());
        match folder {
            Some(folder) => self.schema_folders.remember(file, folder),
            None => self.schema_folders.forget(&file),
        }
        if self.remember_recent {
            save_schema_folders(&self.schema_folders);
        }
    }

    /// The cursor and playback: the step, playing or paused, the speed,
    /// following the end.
    pub fn time(&self) -> &TimeControl {
        &self.time
    }

    /// How streams are opened.
    pub fn load_options(&self) -> LoadOptions {
        self.load_options
    }

    /// Sets how the next streams are opened (tests step through indexing;
    /// `bench ui --no-stored-index`).
    pub fn set_load_options(&mut self, load_options: LoadOptions) {
        self.load_options = load_options;
    }

    /// Opens a file synchronously (tests, and small files): a long stream
    /// shows its first events and goes on being indexed in the background.
    pub fn open_now(&mut self, path: &Path, session: Option<i64>) {
        self.schemas_for_file(path);
        match load_with(path, session, self.options, self.load_options) {
            Ok(mut doc) => {
                attach_findings(&mut doc, self.schemas.set());
                self.install(*doc, None);
            }
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
        self.schemas_for_file(&path);
        let (sender, receiver) = channel();
        let (options, load_options) = (self.options, self.load_options);
        let thread_path = path.clone();
        // S1 (issue 42): the schema folder's findings, in a replay of their
        // own on the same thread, as `check --schemas` finds them.
        let schemas = self.schemas.set();
        std::thread::spawn(move || {
            let loaded = load_with(&thread_path, session, options, load_options).map(|mut doc| {
                attach_findings(&mut doc, schemas);
                doc
            });
            let _ = sender.send(loaded);
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
                // The thread reading the file stopped without an answer (a
                // bug): say so, and which file.
                let path = loading.path.display().to_string();
                self.loading = None;
                self.error = Some(format!("the file could not be opened (a bug): {path}"));
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
        // An open that succeeds ends the banner of one that failed before
        // it, which stayed above the recordings opened since (issue 43,
        // point 3b).
        self.error = None;
        let path = doc.path.clone();
        // The same stream replayed again (another profile, best effort)
        // keeps what the user set; another file or session starts afresh.
        let same_stream = self
            .doc
            .as_ref()
            .is_some_and(|d| d.path == path && d.session == doc.session);
        if !same_stream {
            self.inspected.clear();
            self.timeline_range = None;
            self.marks.clear();
            self.central_tab = CentralTab::Conversation;
        }
        // A replay again is compared with B again; another stream is not.
        self.compare_with.a_changed(same_stream, &doc, self.options);
        let num_events = doc.num_events();
        self.marks.clamp(num_events);
        self.generation += 1;
        self.search = SearchRun::default();
        self.live = Live::default();
        // Those kept in memory are set aside with their stream, taken back
        // when it opens again (a replay, another exchange and back).
        self.notes.open(self.doc.as_ref(), &doc);
        let whatif_error = self.whatif.opened(same_stream, &doc);
        self.time
            .reset(num_events, doc.live, Seq::new(num_events.min(1)));
        self.doc = Some(doc);
        if let Some(command) = keep_step {
            self.time_command(command);
        }
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
        self.schema_folders.keep_only(&self.recent);
        if self.remember_recent {
            save_recent(&self.recent);
            save_schema_folders(&self.schema_folders);
        }
        self.refresh_rows();
        // The view at the kept step was computed from the replay replaced.
        self.clear_view();
        self.sync_view();
        if let Some(error) = whatif_error {
            self.error = Some(error);
        }
        self.resume_whatif();
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
        // Issue 42: the schema folder's findings are diagnostics to go to.
        let lists = self
            .doc
            .as_ref()
            .map(Doc::diagnostic_steps)
            .unwrap_or_default();
        let context = TimeContext {
            diagnostic_steps: &lists,
            visible_steps: self.timeline_range.map(|r| r.last - r.first),
        };
        let response = self.time.apply(command, &context);
        self.sync_view();
        response
    }

    /// Brings the view to the cursor's step, unless it shows it already or
    /// a seek to it is on its way: computed here, or on the seek thread
    /// for a long stream when the policy says so (issue 43).
    fn sync_view(&mut self) {
        let Some(doc) = &self.doc else {
            self.clear_view();
            return;
        };
        let step = self.time.step();
        if self
            .view
            .as_ref()
            .is_some_and(|v| v.step == step && v.generation == self.generation)
        {
            // Back where the view is: what was asked for since is not needed.
            self.seeker.forget();
            self.behind_since = None;
            return;
        }
        if self.seeker.is_pending_for(step, self.generation) {
            return;
        }
        if let Some(indexing) = &doc.indexing {
            indexing.foreground_busy();
        }
        // Scrubbing forward goes on from the state shown (issue 14).
        let near = self
            .view
            .as_ref()
            .filter(|shown| shown.generation == self.generation)
            .map(|shown| &shown.at);
        if self.seek_policy.in_background(doc.num_events()) {
            let near = near.map(crate::replay::Replayer::checkpoint);
            let timeline = Arc::clone(&doc.timeline);
            self.seeker.request(step, self.generation, timeline, near);
            self.behind_since.get_or_insert_with(Instant::now);
            return;
        }
        let view = view_at(&doc.timeline, near, step, self.generation);
        self.seeker.forget();
        let id = self.seeker.next_id();
        self.show_view(id, view);
    }

    /// Shows the view a seek computed, unless a newer seek's shows already
    /// or it is of a stream no longer shown.
    fn show_view(&mut self, id: u64, view: CursorView) {
        let Some(doc) = &self.doc else {
            crate::timeline::drop_in_background(view);
            return;
        };
        if id <= self.shown_seek || id < self.seeks_valid_from {
            crate::timeline::drop_in_background(view);
            return;
        }
        self.shown_seek = id;
        if view.step == self.time.step() && view.generation == self.generation {
            self.behind_since = None;
        }
        self.inspected.follow(doc, &view);
        if let Some(shown) = self.view.replace(view) {
            crate::timeline::drop_in_background(shown);
        }
    }

    /// No view: none of the stream shown (another one, or it changed under
    /// the cursor); the answers of seeks asked for before are not shown.
    fn clear_view(&mut self) {
        if let Some(shown) = self.view.take() {
            crate::timeline::drop_in_background(shown);
        }
        self.seeker.forget();
        self.seeks_valid_from = self.seeker.next_id();
        self.behind_since = None;
    }

    /// Shows the answers of the seek thread that came; returns whether the
    /// view changed.
    pub fn poll_seek(&mut self) -> bool {
        let mut changed = false;
        while let Some(done) = self.seeker.try_take() {
            self.show_view(done.id, done.view);
            changed = true;
        }
        if changed {
            self.refresh_derived();
            // The cursor may have moved again meanwhile.
            self.sync_view();
        }
        changed
    }

    /// Waits until the view shows the cursor's step, when a seek is on its
    /// way (tests, `bench ui`).
    pub fn wait_for_view(&mut self) {
        while let Some(done) = self.seeker.wait() {
            self.show_view(done.id, done.view);
        }
        self.sync_view();
        self.refresh_derived();
    }

    /// Where the seek at the cursor runs (the model's default: inline).
    pub fn set_seek_policy(&mut self, policy: SeekPolicy) {
        self.seek_policy = policy;
    }

    /// Calls `waker` when the seek thread has an answer (the app asks for
    /// a frame).
    pub fn set_seek_waker(&mut self, waker: super::seek::Waker) {
        self.seeker.set_waker(waker);
    }

    /// The step the panels show while they catch up with the cursor: the
    /// view has been behind it for [`CATCHING_UP_AFTER`] or more, a seek
    /// on its way (issue 43).
    pub fn catching_up(&self) -> Option<Seq> {
        let since = self.behind_since?;
        let view = self.view.as_ref()?;
        (since.elapsed() >= CATCHING_UP_AFTER && view.step != self.time.step()).then_some(view.step)
    }

    /// Recomputes the rows of the event list for the current filter.
    pub fn refresh_rows(&mut self) {
        self.event_rows = match &self.doc {
            Some(doc) => crate::app_model::event_filter::filter_rows(doc, &self.event_filter),
            None => Vec::new(),
        };
    }

    /// Applies the commands of a frame, in order, then brings what is
    /// derived from them (the diff) up to date.
    pub fn apply(&mut self, commands: Vec<Command>) {
        for command in commands {
            self.apply_one(command);
        }
        self.refresh_derived();
    }

    /// Brings what is derived from the view and the marks (the diff, the
    /// comparison with another stream) up to date.
    fn refresh_derived(&mut self) {
        if self.central_tab == CentralTab::Diff {
            let selected = self.inspected.shown();
            let timeline = self.doc.as_ref().map(|d| &*d.timeline);
            self.marks.refresh(self.generation, timeline, selected);
        }
        if self.central_tab == CentralTab::Compare
            && let Some(view) = &self.view
        {
            let scope = super::compare_with::scope_of(self.marks.scope(self.inspected.shown()));
            self.compare_with
                .refresh(self.generation, view.step, &view.at, scope);
        }
    }

    fn apply_one(&mut self, command: Command) {
        let num_events = self.doc.as_ref().map_or(0, Doc::num_events);
        match command {
            Command::Time(command) => {
                self.time_command(command);
            }
            Command::SelectActivity(id) => self.inspected.pin(id),
            Command::PinInspected(pin) => {
                let id = pin.then(|| self.inspected.shown().map(str::to_owned));
                self.inspected.pin(id.flatten());
            }
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
            Command::SetTimelineInTime(in_time) => {
                // Kept across opens: a stream without times shows steps
                // until one with times opens.
                if !in_time || self.has_recorded_times() {
                    self.timeline_in_time = in_time;
                }
            }
            Command::DismissError => {
                self.error = None;
                self.notice = None;
            }
            Command::Mark(command) => {
                // `d` compares what the current event changed: the state
                // for a STATE_DELTA, the activity for an ACTIVITY_DELTA,
                // whatever was chosen last (issue 43, point 4).
                if command == MarkCommand::DiffWithPrevious
                    && let Some(doc) = &self.doc
                    && let Some(EventKind::Known(kind)) =
                        doc.timeline.index().kind(self.time.step())
                    && let Some(scope) = crate::app_model::marks::scope_of_event(kind.as_str())
                {
                    self.marks.set_scope(scope);
                }
                if self.marks.apply(command, self.step(), num_events).show_diff {
                    self.central_tab = CentralTab::Diff;
                }
            }
            Command::SetDiffScope(scope) => self.marks.set_scope(scope),
            Command::ShowCentral(tab) => self.central_tab = tab,
            Command::SetWideDiff(wide) => self.wide_diff = wide,
            Command::Notify(message) => self.notify(message),
            Command::Note(command) => {
                if self.doc.is_none() {
                    return;
                }
                let default_label = self.default_bookmark_label();
                let context = NoteContext {
                    step: self.step(),
                    selected_activity: self.inspected.shown(),
                    default_label: &default_label,
                };
                let response = self.notes.apply(command, context);
                if let Some(step) = response.go_to {
                    self.notice = None;
                    self.time_command(TimeCommand::Set(step));
                }
                if let Some(notice) = response.notice {
                    self.notify(notice);
                }
                if let Some(error) = response.error {
                    self.error = Some(error);
                }
            }
            Command::Search(command) => {
                if let Some(doc) = &self.doc {
                    self.search.apply(command, self.time.step(), &doc.timeline);
                }
            }
            Command::Compare(command) => {
                let response =
                    self.compare_with
                        .apply(command, self.doc.as_ref(), self.options, self.step());
                self.compare_response(response);
            }
            Command::Schemas(command) => self.schema_command(command),
            Command::WhatIf(command) => self.whatif_command(command),
            Command::CancelIndexing => {
                if let Some(doc) = &mut self.doc
                    && let Some(indexing) = doc.indexing.take()
                {
                    // What is indexed stays; the rest is not read.
                    indexing.cancel();
                    if !indexing.comparing {
                        doc.cancelled = Some(indexing.total);
                    }
                }
            }
        }
    }

    /// The schema folder in use (issue 42).
    pub fn schemas(&self) -> &SchemaSetting {
        &self.schemas
    }

    /// View › Activity schemas…, No activity schemas, Infer from this
    /// recording… (issue 42). A folder that cannot be used is an error in
    /// the banner naming its file, and the stream stays as it was.
    fn schema_command(&mut self, command: SchemaCommand) {
        match command {
            SchemaCommand::Load(folder) => match self.schemas.load(&folder) {
                Ok(()) => {
                    self.notify(format!(
                        "checking against the schemas in {}",
                        folder.display()
                    ));
                    self.remember_schema_folder(Some(folder));
                    self.reopen();
                }
                Err(error) => self.error = Some(error),
            },
            SchemaCommand::Clear => {
                self.schemas.clear();
                self.remember_schema_folder(None);
                if let Some(doc) = &mut self.doc {
                    attach_findings(doc, None);
                    self.generation += 1;
                }
            }
            SchemaCommand::Infer(folder) => {
                let Some(doc) = &self.doc else {
                    return;
                };
                match infer_into(doc, &folder) {
                    Ok(written) => {
                        let plural = if written.len() == 1 { "" } else { "s" };
                        self.schema_command(SchemaCommand::Load(folder.clone()));
                        self.notify(format!(
                            "wrote {} schema{plural} to {}; checking against them",
                            written.len(),
                            folder.display()
                        ));
                    }
                    Err(error) => self.error = Some(error),
                }
            }
        }
    }

    /// Takes what the background indexing sent, if anything; returns
    /// whether the document changed.
    pub fn poll_indexing(&mut self) -> bool {
        let mut changed = false;
        while let Some(update) = self
            .doc
            .as_mut()
            .and_then(|d| d.indexing.as_mut())
            .and_then(|i| i.try_next())
        {
            changed = true;
            self.index_update(update);
        }
        if changed {
            self.resume_whatif();
        }
        changed
    }

    /// Waits until the background indexing (and the profiles' comparison,
    /// and the schema folder's check) of the open document is done (tests,
    /// `bench ui`).
    pub fn wait_for_indexing(&mut self) {
        while let Some(update) = self
            .doc
            .as_mut()
            .and_then(|d| d.indexing.as_mut())
            .and_then(|i| i.next_blocking())
        {
            self.index_update(update);
        }
        if let Some(doc) = &mut self.doc {
            doc.indexing = None;
        }
        // And the events indexed checked against the schema folder.
        self.advance_schema_check(usize::MAX);
        self.resume_whatif();
    }

    /// Shows what the indexing thread sent: a longer timeline, the whole
    /// one, the divergences, or why reading failed.
    fn index_update(&mut self, update: IndexUpdate) {
        let Some(doc) = &mut self.doc else { return };
        match update {
            IndexUpdate::Progress(timeline, arrivals) | IndexUpdate::Done(timeline, arrivals) => {
                let last_before = doc.timeline.last_step();
                let num_diagnostics = doc.timeline.diagnostics().len();
                doc.timeline = std::sync::Arc::from(timeline);
                doc.arrival_nanos.extend(arrivals);
                for diagnostic in &doc.timeline.diagnostics()
                    [num_diagnostics.min(doc.timeline.diagnostics().len())..]
                {
                    doc.counts.add(diagnostic.severity);
                }
                let new_rows = crate::app_model::event_filter::filter_rows_after(
                    doc,
                    &self.event_filter,
                    last_before,
                );
                self.event_rows.extend(new_rows);
                if doc.indexing.as_ref().is_some_and(|i| i.comparing) {
                    // The end-of-stream checks may mark events listed already.
                    self.refresh_rows();
                }
                self.stream_changed();
            }
            IndexUpdate::Divergences(divergences) => {
                doc.divergences = divergences;
                doc.indexing = None;
                // The view shown stays until the one of this generation
                // shows: the replay under it did not change.
                self.generation += 1;
                self.sync_view();
            }
            IndexUpdate::Failed(error) => {
                if let Some(indexing) = doc.indexing.take() {
                    doc.cancelled = Some(indexing.total);
                }
                self.error = Some(error);
            }
        }
    }

    /// Shows an error in the banner (until dismissed).
    pub fn show_error(&mut self, error: String) {
        self.error = Some(error);
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
        self.generation += 1;
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
        super::time_control::next_step_in(&doc.diagnostic_steps(), current, forward)
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
        repaint.now |= self.poll_indexing();
        repaint.now |= self.poll_seek();
        if self.seeker.is_pending() {
            // The seek thread wakes the app when it answers; this is in
            // case nothing does, and for the "catching up" marker.
            repaint.within(SEEK_POLL);
        }
        if self.doc.as_ref().is_some_and(|d| d.indexing.is_some()) {
            repaint.within(LOADING_POLL);
        }
        if self.loading.is_some() {
            repaint.within(LOADING_POLL);
        }
        if let Some(response) = self.compare_with.poll() {
            self.compare_response(response);
            repaint.now = true;
        }
        if self.compare_with.comparing().is_some() {
            repaint.within(LOADING_POLL);
        }
        repaint.now |= self.tick_playback(dt_seconds);
        repaint.now |= self.advance_search(crate::app_model::search::EVENTS_PER_FRAME);
        repaint.now |= self.advance_schema_check(crate::app_model::schemas::EVENTS_PER_FRAME);
        if self.search.poll_list() {
            // A "find all" on its thread: its progress, now and then.
            repaint.within(crate::app_model::search::LIST_POLL);
        }
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

    /// Checks about `budget` of the events that arrived since the open
    /// against the schema folder (issue 42: a live recording, a stream
    /// indexed in the background), a slice per frame; returns whether some
    /// are still to be checked.
    pub fn advance_schema_check(&mut self, budget: usize) -> bool {
        let Some(doc) = &mut self.doc else {
            return false;
        };
        let (changed, behind) = check_new_events(doc, budget);
        if changed {
            self.generation += 1;
        }
        behind
    }

    /// Runs the search for about `budget` events; a match moves the cursor.
    /// Returns whether it is still running.
    pub fn advance_search(&mut self, budget: usize) -> bool {
        let Some(doc) = &self.doc else {
            return false;
        };
        match self.search.advance(&doc.timeline, budget) {
            SearchProgress::Running => true,
            SearchProgress::Found(step) => {
                self.time_command(TimeCommand::StopFollowing);
                self.time_command(TimeCommand::SetClamped(step));
                false
            }
            SearchProgress::Idle | SearchProgress::NotFound => false,
        }
    }

    /// How long until the recording should be read again (`None`: no
    /// recording, or reading it failed).
    pub fn live_poll_interval(&self) -> Option<std::time::Duration> {
        self.live.poll_interval(self.doc.as_ref())
    }

    /// Reads what the recording's writer added, when it is time to;
    /// returns whether anything changed.
    pub fn poll_live(&mut self) -> bool {
        let step = self.step();
        let Some(doc) = &mut self.doc else {
            return false;
        };
        let response = self.live.poll(doc, step);
        self.live_changed(response)
    }

    /// Reads what the recording's writer added now; returns whether anything
    /// changed.
    pub fn poll_live_now(&mut self) -> bool {
        let step = self.step();
        let Some(doc) = &mut self.doc else {
            return false;
        };
        let response = self.live.poll_now(doc, step);
        self.live_changed(response)
    }

    /// Whether the open session is still being written.
    pub fn is_live(&self) -> bool {
        self.doc.as_ref().is_some_and(|d| d.live)
    }

    fn live_changed(&mut self, response: LiveResponse) -> bool {
        if let Some(error) = response.error {
            self.error = Some(error);
        }
        if let Some((session, then)) = response.reopen
            && let Some(doc) = &self.doc
        {
            let path = doc.path.clone();
            self.open_in_background(path, session, Some(then));
        }
        if let Some(growth) = response.grew {
            if growth.ended {
                // The end-of-stream checks may mark events listed already.
                self.refresh_rows();
            } else if let Some(doc) = &self.doc {
                // Only the new events: earlier ones did not change.
                let new_rows = crate::app_model::event_filter::filter_rows_after(
                    doc,
                    &self.event_filter,
                    growth.last_before,
                );
                self.event_rows.extend(new_rows);
            }
            // The view's replay (and its diagnostics) may have changed under
            // it; a cursor following the end goes to the new end.
            self.stream_changed();
        }
        response.changed
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
    profile.label()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::test_support::{STREAM, doc_of, state_of};

    fn set(state: &mut AppState, step: u64) {
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
    }

    fn shown(state: &AppState) -> Option<Seq> {
        state.view().map(|v| v.step)
    }

    #[test]
    fn an_answer_older_than_the_view_shown_is_not_shown() {
        // Issue 43: the seek thread's answers never take the place of a
        // newer view.
        let mut state = state_of(STREAM);
        state.set_seek_policy(SeekPolicy::InBackgroundAbove(0));
        set(&mut state, 6);
        let old = state.seeker.wait().expect("the answer for step 6");
        assert_eq!(old.view.step, Seq::new(6));
        state.set_seek_policy(SeekPolicy::Inline);
        set(&mut state, 3);
        assert_eq!(shown(&state), Some(Seq::new(3)));
        state.show_view(old.id, old.view);
        assert_eq!(shown(&state), Some(Seq::new(3)));
    }

    #[test]
    fn an_answer_for_a_stream_no_longer_open_is_not_shown() {
        let mut state = state_of(STREAM);
        state.set_seek_policy(SeekPolicy::InBackgroundAbove(0));
        set(&mut state, 8);
        let old = state.seeker.wait().expect("the answer for step 8");
        // Another stream, of four events, opens.
        state.install_doc(doc_of(&STREAM[..4]));
        state.show_view(old.id, old.view);
        assert_ne!(shown(&state), Some(Seq::new(8)));
        state.wait_for_view();
        assert_eq!(shown(&state), Some(Seq::new(1)));
    }

    #[test]
    fn a_seek_on_the_thread_leaves_the_view_until_it_answers_and_asks_for_frames() {
        let mut state = state_of(STREAM);
        assert_eq!(shown(&state), Some(Seq::new(1)));
        state.set_seek_policy(SeekPolicy::InBackgroundAbove(0));
        set(&mut state, 7);
        // The cursor moved at once; the view waits for the thread's answer.
        assert_eq!(state.step(), Seq::new(7));
        assert_eq!(shown(&state), Some(Seq::new(1)));
        // The frame's logic shows the answer if it came, else asks to be
        // drawn again soon: the app never waits for input to catch up.
        let repaint = state.logic_step(0.0);
        if shown(&state) == Some(Seq::new(7)) {
            assert!(repaint.now);
        } else {
            assert!(repaint.after.is_some_and(|after| after <= SEEK_POLL));
        }
        state.wait_for_view();
        assert_eq!(shown(&state), Some(Seq::new(7)));
        let view = state.view().expect("a view");
        assert_eq!(view.at.step(), Seq::new(7));
        assert_eq!(view.before.step(), Seq::new(6));
        // Nothing on its way: no frame asked for it.
        assert_eq!(state.logic_step(0.0), Repaint::default());
    }

    #[test]
    fn small_streams_seek_inline_under_the_apps_policy() {
        let mut state = state_of(STREAM);
        state.set_seek_policy(SeekPolicy::APP);
        set(&mut state, 5);
        assert_eq!(shown(&state), Some(Seq::new(5)));
    }
}
