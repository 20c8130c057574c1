//! The desktop app (egui): a timeline of the stream at the bottom, the event
//! list on the left, the conversation at the cursor in the centre, the
//! inspector and the diagnostics on the right.
//!
//! Panels read [`AppState`] and push [`Command`]s; the commands of a frame
//! are applied once the timeline has drawn (a scrub shows in the panels
//! drawn after it) and at its end. The engine knows nothing of this
//! module.

pub mod annotations;
pub mod bench;
pub mod blame;
pub mod compare;
pub mod compare_with;
pub mod conversation;
pub mod demo;
pub mod diagnostics;
pub mod event_list;
pub mod export_dialog;
pub mod file_dialog;
pub mod help;
pub mod inspector;
pub mod json_tree;
pub mod keys;
pub mod layout;
pub mod memo;
pub mod rule_text;
pub mod search;
pub mod serve;
pub mod splitter;
pub mod state_view;
pub mod status_bar;
pub mod step_axis;
#[cfg(test)]
mod test_harness;
pub mod theme;
pub mod timeline;
pub mod timing_view;
pub mod whatif;

use crate::app_model::actions::{self, ActionId};
use crate::app_model::command::NoteCommand;
use crate::app_model::schemas::SchemaCommand;
use crate::app_model::{document, state, words};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::state::AppState;

use crate::protocol::ProtocolVersion;
use crate::replay::Profile;

/// Which tab the right panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RightTab {
    /// The activity (or message) the current event names, or the pinned one.
    Inspector,
    /// Every diagnostic.
    Diagnostics,
    /// Bookmarks and notes.
    Bookmarks,
    /// Search over time.
    Search,
    /// The shared state at the cursor (issue 13.2).
    State,
}

/// The app.
pub struct ReplayApp {
    /// Everything it holds.
    pub state: AppState,
    /// The right panel's tab.
    pub right_tab: RightTab,
    /// Close the window after this long (smoke tests, screenshots).
    pub exit_after: Option<Duration>,
    /// The bookmarks tab's fields.
    pub notes_form: annotations::NotesForm,
    /// The search tab's fields.
    pub search_form: crate::app_model::search::SearchForm,
    /// The Timing tab's threshold and report (issue 17.3).
    pub timing_view: timing_view::TimingView,
    /// File › Export repro….
    pub export_dialog: crate::app_model::export_dialog::ExportDialog,
    /// Which panels show, and their widths.
    pub layout: layout::PanelLayout,
    /// The keys overlay (`?`, F1, Help › Keys) shows.
    pub show_keys: bool,
    /// The command palette (Ctrl+K, Ctrl+Shift+P; issue 43).
    pub palette: crate::app_model::actions::Palette,
    /// Help › Rules reference shows.
    pub show_rules: bool,
    /// Help › About agui-replay shows.
    pub show_about: bool,
    styled: bool,
    /// The file dialogs: the system's, or the app's own where none shows
    /// (tests give theirs).
    pub file_picker: file_dialog::FilePicker,
    /// Serve › Serve this stream… (issue 15.2).
    pub serve: serve::ServePanel,
    started: std::time::Instant,
}

impl ReplayApp {
    /// An app opening `path` (in the background), or empty.
    pub fn new(path: Option<PathBuf>) -> Self {
        let mut state = AppState::default();
        // Issue 43: a long stream's seek does not hold up the frame that
        // paints the playhead.
        state.set_seek_policy(crate::app_model::seek::SeekPolicy::APP);
        if let Some(path) = path {
            state.open_in_background(path, None, None);
        }
        Self {
            state,
            right_tab: RightTab::Inspector,
            exit_after: None,
            notes_form: annotations::NotesForm::default(),
            search_form: crate::app_model::search::SearchForm::default(),
            timing_view: timing_view::TimingView::default(),
            export_dialog: crate::app_model::export_dialog::ExportDialog::default(),
            layout: layout::PanelLayout::default(),
            show_keys: false,
            palette: crate::app_model::actions::Palette::default(),
            show_rules: false,
            show_about: false,
            styled: false,
            file_picker: file_dialog::FilePicker::default(),
            serve: serve::ServePanel::default(),
            started: std::time::Instant::now(),
        }
    }

    /// An app opening the `bundled` demo from the user's copy of it in
    /// `data_dir` (made as needed; a temporary folder when there is none or
    /// it cannot be written), so that bookmarks and notes are never written
    /// into the bundled file (issue 13, point 11).
    pub fn with_demo(bundled: &std::path::Path, data_dir: Option<&std::path::Path>) -> Self {
        Self::with_demo_copied(data_dir, |dir| demo::demo_copy(bundled, dir))
    }

    /// [`Self::with_demo`] for the demo built into the binary
    /// ([`demo::BUNDLED`]): what the app opens with no argument.
    pub fn with_built_in_demo(data_dir: Option<&std::path::Path>) -> Self {
        Self::with_demo_copied(data_dir, |dir| demo::demo_copy_of(demo::BUNDLED, dir))
    }

    /// An app opening the demo copied by `copy` into a folder: `data_dir`,
    /// else a temporary folder.
    fn with_demo_copied(
        data_dir: Option<&std::path::Path>,
        copy: impl Fn(&std::path::Path) -> Result<PathBuf, String>,
    ) -> Self {
        let in_data_dir = match data_dir {
            Some(dir) => copy(dir),
            None => Err("no data folder (neither XDG_DATA_HOME nor HOME is set)".to_owned()),
        };
        let (copy, notice) = match in_data_dir {
            Ok(copy) => (Ok(copy), None),
            Err(why) => match copy(&std::env::temp_dir()) {
                Ok(copy) => {
                    let notice = format!(
                        "The demo opens from a temporary copy, {}: {why}",
                        copy.display()
                    );
                    (Ok(copy), Some(notice))
                }
                Err(again) => (Err(format!("{why}; {again}")), None),
            },
        };
        match copy {
            Ok(copy) => {
                let mut app = Self::new(Some(copy));
                if let Some(notice) = notice {
                    app.state.notify(notice);
                }
                app
            }
            Err(why) => {
                let mut app = Self::new(None);
                app.state.show_error(format!(
                    "the demo is not opened: it opens from a copy (its bookmarks are written \
                     there, never into the bundled file), and none could be made: {why}"
                ));
                app
            }
        }
    }

    /// An app with a file opened synchronously (tests).
    pub fn with_file(path: &std::path::Path) -> Self {
        let mut app = Self::new(None);
        app.state.open_now(path, None);
        app
    }

    /// One frame.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if !self.styled {
            // The colours that reach WCAG AA (issue 13, point 7).
            theme::install(&ctx);
            self.styled = true;
            // A seek answered on its thread is drawn at once (issue 43).
            let waker_ctx = ctx.clone();
            self.state
                .set_seek_waker(std::sync::Arc::new(move || waker_ctx.request_repaint()));
        }
        // The work that draws nothing, once, before the panels draw. The
        // frame's time comes from egui's input (the clock in the app, a
        // fixed step in tests), so playback is the same under load. A pass
        // egui runs again in the same frame (a discarded first pass) adds no
        // time: playback advances once a frame.
        let dt_seconds = if ctx.current_pass_index() == 0 {
            f64::from(ctx.input(|i| i.stable_dt))
        } else {
            0.0
        };
        let repaint = self.state.logic_step(dt_seconds);
        if repaint.now {
            ctx.request_repaint();
        }
        if let Some(after) = repaint.after {
            ctx.request_repaint_after(after);
        }
        if let Some(limit) = self.exit_after {
            // Smoke tests (tools/wheel-check, issue 45) wait for this line:
            // frame 0 was drawn. The window closes no sooner.
            let drawn = ctx.cumulative_frame_nr() >= 1;
            if ctx.cumulative_frame_nr() == 1 {
                eprintln!(
                    "agui-replay: first frame drawn, {} ms after start",
                    self.started.elapsed().as_millis()
                );
            }
            if drawn && self.started.elapsed() >= limit {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint_after(Duration::from_millis(200));
        }
        let mut commands = Vec::new();
        for action in keyboard(&ctx) {
            self.run_action(&ctx, action, &mut commands);
        }
        dropped_files(&ctx, &mut commands);

        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui, &mut commands));
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal(|ui| {
                status_bar::status_bar_ui(ui, &self.state, &mut commands);
                serve::status_ui(ui, &mut self.serve);
            });
        });
        let timeline_grip = self.layout.show_timeline.then(|| {
            let panel = egui::Panel::bottom("timeline")
                .resizable(true)
                .default_size(theme::TIMELINE_HEIGHT);
            let ((), grip) = splitter::bottom_panel_ui(ui, panel, |ui| {
                // Issue 41: the edits, above the timeline.
                whatif::chips_ui(ui, &self.state, &mut commands);
                timeline::timeline_ui(ui, &self.state, &mut commands)
            });
            grip
        });
        // Issue 43: what the timeline asked for (a scrub) applies before the
        // other panels draw, so that they show the cursor where the playhead
        // is and a long seek runs on its thread while they are laid out.
        self.state.apply(std::mem::take(&mut commands));
        self.layout.begin(ui.available_width());
        let wide = self.state.wide_diff()
            && matches!(
                self.state.central_tab(),
                crate::app_model::command::CentralTab::Diff
                    | crate::app_model::command::CentralTab::Compare
            );
        // The side panels give way to a full-width diff.
        if !wide && self.layout.show_events {
            let (width, range) = self.layout.size_of(layout::Side::Events);
            let response = egui::Panel::left(self.layout.panel_id(layout::Side::Events))
                .resizable(true)
                .default_size(width)
                .size_range(range)
                .show(ui, |ui| {
                    event_list::event_list_ui(ui, &self.state, &mut commands)
                });
            self.layout
                .took(layout::Side::Events, response.response.rect.width());
        }
        if !wide && self.layout.show_inspector {
            let (width, range) = self.layout.size_of(layout::Side::Inspector);
            let response = egui::Panel::right(self.layout.panel_id(layout::Side::Inspector))
                .resizable(true)
                .default_size(width)
                .size_range(range)
                .show(ui, |ui| self.right_panel_ui(ui, &mut commands));
            self.layout
                .took(layout::Side::Inspector, response.response.rect.width());
        }
        let central = egui::CentralPanel::default().show(ui, |ui| {
            if let Some(error) = self.state.error() {
                error_banner_ui(ui, error, &mut commands);
            }
            compare::central_tabs_ui(ui, &self.state, &mut commands);
            match self.state.central_tab() {
                crate::app_model::command::CentralTab::Conversation => {
                    conversation::conversation_ui(ui, &self.state, &mut commands)
                }
                crate::app_model::command::CentralTab::Diff => {
                    compare::diff_view_ui(ui, &self.state, &mut commands)
                }
                crate::app_model::command::CentralTab::Timing => {
                    timing_view::timing_ui(ui, &self.state, &mut self.timing_view, &mut commands)
                }
                crate::app_model::command::CentralTab::Compare => {
                    compare_with::view::compare_view_ui(ui, &self.state, &mut commands)
                }
            }
        });
        self.layout.took_central(central.response.rect.width());
        if let Some(grip) = timeline_grip {
            grip.paint(ui);
        }
        if self.show_keys {
            let modal =
                egui::Modal::new(egui::Id::unique("keys-overlay")).show(&ctx, keys::keys_ui);
            if modal.should_close() {
                self.show_keys = false;
            }
        }
        if self.palette.open {
            let modal = egui::Modal::new(egui::Id::unique("command-palette"))
                .show(&ctx, |ui| keys::palette_ui(ui, &mut self.palette));
            if modal.should_close() {
                self.palette.open = false;
            }
            if let Some(action) = modal.inner {
                self.palette.open = false;
                self.run_action(&ctx, action, &mut commands);
            }
        }
        help::rules_window_ui(&ctx, &mut self.show_rules);
        help::about_window_ui(&ctx, &mut self.show_about);
        export_dialog::export_dialog_ui(
            &ctx,
            &self.state,
            &mut self.export_dialog,
            &mut self.file_picker,
        );
        match self.file_picker.ui(&ctx) {
            Some((file_dialog::Purpose::Open, path)) => commands.push(Command::Open(path)),
            Some((file_dialog::Purpose::Compare, path)) => commands.push(Command::Compare(
                crate::app_model::compare_with::CompareCommand::Open(path),
            )),
            Some((file_dialog::Purpose::SchemaFolder, path)) => {
                commands.push(Command::Schemas(SchemaCommand::Load(path)));
            }
            Some((file_dialog::Purpose::InferFolder, path)) => {
                commands.push(Command::Schemas(SchemaCommand::Infer(path)));
            }
            Some((file_dialog::Purpose::Export, path)) => {
                self.export_dialog.apply(
                    crate::app_model::export_dialog::ExportCommand::SetPath(
                        path.display().to_string(),
                    ),
                    &self.state,
                );
            }
            None => {}
        }
        serve::serve_window_ui(&ctx, &self.state, &mut self.serve);
        whatif::editor_window_ui(&ctx, &self.state, &mut commands);
        self.state.apply(commands);
        // The served front end follows the cursor (issue 15.2).
        if let Some(after) = self.serve.follow(&self.state) {
            ctx.request_repaint_after(after);
        }
        if let Some((message, pointer)) = self.state.take_search_prefill() {
            self.search_form.prefill(message, pointer);
            self.right_tab = RightTab::Search;
        }
    }

    /// The inspector, the diagnostics, the bookmarks or the search, by tab.
    fn right_panel_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        within_width_ui(ui, |ui| self.right_tab_ui(ui, commands));
    }

    /// The right panel's tabs and the one shown.
    fn right_tab_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        ui.horizontal_wrapped(|ui| {
            // Tighter than egui's buttons: one row at 1024×700 (issue 43).
            ui.spacing_mut().item_spacing.x = 2.0;
            ui.spacing_mut().button_padding.x = 3.0;
            ui.selectable_value(&mut self.right_tab, RightTab::Inspector, "Inspector");
            ui.selectable_value(&mut self.right_tab, RightTab::Diagnostics, "Diagnostics");
            ui.selectable_value(&mut self.right_tab, RightTab::Bookmarks, "Bookmarks");
            ui.selectable_value(&mut self.right_tab, RightTab::Search, "Search");
            ui.selectable_value(&mut self.right_tab, RightTab::State, "State")
                .on_hover_text("The shared state at the cursor (s)");
        });
        ui.separator();
        match self.right_tab {
            RightTab::Inspector => inspector::inspector_ui(ui, &self.state, commands),
            RightTab::Diagnostics => diagnostics::diagnostics_ui(ui, &self.state, commands),
            RightTab::Bookmarks => {
                egui::ScrollArea::vertical()
                    .auto_shrink([false, true])
                    .show(ui, |ui| {
                        annotations::notes_ui(ui, &self.state, &mut self.notes_form, commands)
                    });
            }
            RightTab::Search => search::search_ui(ui, &self.state, &mut self.search_form, commands),
            RightTab::State => state_view::state_view_ui(ui, &self.state, commands),
        }
    }

    /// File › Open… (Ctrl+O): the system's dialog, starting in the open
    /// file's folder, or the app's own where none shows.
    fn open_file_ui(&mut self, commands: &mut Vec<Command>) {
        let start_dir = self
            .state
            .doc()
            .and_then(|doc| std::path::absolute(&doc.path).ok())
            .and_then(|path| path.parent().map(std::path::Path::to_owned));
        if let Some(path) = self.file_picker.open_file(start_dir.as_deref()) {
            commands.push(Command::Open(path));
        }
    }

    /// File › Compare with…: as File › Open…, for the stream to compare
    /// with the open one.
    fn compare_file_ui(&mut self, commands: &mut Vec<Command>) {
        let start_dir = self
            .state
            .doc()
            .and_then(|doc| std::path::absolute(&doc.path).ok())
            .and_then(|path| path.parent().map(std::path::Path::to_owned));
        if let Some(path) = self.file_picker.compare_file(start_dir.as_deref()) {
            commands.push(Command::Compare(
                crate::app_model::compare_with::CompareCommand::Open(path),
            ));
        }
    }

    /// View › Activity schemas… and Infer from this recording… (issue 42):
    /// a folder, starting in the one in use, else the open file's.
    fn schema_folder_ui(&mut self, purpose: file_dialog::Purpose, commands: &mut Vec<Command>) {
        let start_dir = self
            .state
            .schemas()
            .folder()
            .map(Path::to_owned)
            .or_else(|| {
                self.state
                    .doc()
                    .and_then(|doc| std::path::absolute(&doc.path).ok())
                    .and_then(|path| path.parent().map(Path::to_owned))
            });
        if let Some(folder) = self.file_picker.pick_folder(purpose, start_dir.as_deref()) {
            let command = match purpose {
                file_dialog::Purpose::InferFolder => SchemaCommand::Infer(folder),
                _ => SchemaCommand::Load(folder),
            };
            commands.push(Command::Schemas(command));
        }
    }

    /// Runs an action of the table (issue 43, point 1), from its key, its
    /// menu entry or the palette alike. The match has no catch-all, so an
    /// action added to the table does not build until it is handled here.
    fn run_action(&mut self, ctx: &egui::Context, action: ActionId, commands: &mut Vec<Command>) {
        use crate::app_model::command::{MarkCommand, MarkSlot, SearchFrom};
        use crate::app_model::time_control::TimeCommand;
        let time = |command| Command::Time(command);
        match action {
            ActionId::Open => self.open_file_ui(commands),
            ActionId::CompareWith => {
                if self.state.doc().is_some() {
                    self.compare_file_ui(commands);
                }
            }
            ActionId::ExportRepro => {
                self.export_dialog.apply(
                    crate::app_model::export_dialog::ExportCommand::Open,
                    &self.state,
                );
            }
            ActionId::Quit => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
            ActionId::SkipEvent
            | ActionId::EditEvent
            | ActionId::InsertEvent
            | ActionId::ToggleEdited
            | ActionId::ClearEdits
            | ActionId::CompareEdited
            | ActionId::SaveEdits => {
                if let Some(command) = whatif_command_of(action, self.state.step()) {
                    commands.push(Command::WhatIf(command));
                }
            }
            ActionId::ToggleEventList => self.layout.show_events = !self.layout.show_events,
            ActionId::ToggleInspector => {
                self.layout.show_inspector = !self.layout.show_inspector;
            }
            ActionId::ToggleTimeline => self.layout.show_timeline = !self.layout.show_timeline,
            ActionId::TimelineInTime => {
                commands.push(Command::SetTimelineInTime(!self.state.timeline_in_time()));
            }
            ActionId::ResetLayout => self.layout.reset(),
            ActionId::ActivitySchemas => {
                if self.state.doc().is_some() {
                    self.schema_folder_ui(file_dialog::Purpose::SchemaFolder, commands);
                }
            }
            ActionId::NoActivitySchemas => {
                commands.push(Command::Schemas(SchemaCommand::Clear));
            }
            ActionId::InferSchemas => {
                if self.state.doc().is_some() {
                    self.schema_folder_ui(file_dialog::Purpose::InferFolder, commands);
                }
            }
            ActionId::ShowInspector => self.show_right_tab(RightTab::Inspector),
            ActionId::ShowState => self.show_right_tab(RightTab::State),
            ActionId::FocusEventFilter => {
                self.layout.show_events = true;
                ctx.memory_mut(|memory| memory.request_focus(event_list::filter_text_id()));
            }
            ActionId::PreviousStep => commands.push(time(TimeCommand::Step(-1))),
            ActionId::NextStep => commands.push(time(TimeCommand::Step(1))),
            ActionId::PreviousEvent | ActionId::NextEvent => {
                let forward = action == ActionId::NextEvent;
                let rows = self.state.event_rows();
                if let Some(seq) =
                    crate::app_model::event_filter::row_beside(rows, self.state.step(), forward)
                {
                    commands.push(time(TimeCommand::Set(seq)));
                }
            }
            ActionId::FirstStep => commands.push(time(TimeCommand::ToStart)),
            ActionId::LastStep => commands.push(time(TimeCommand::ToEndAndFollow)),
            ActionId::PageBack => commands.push(time(TimeCommand::Page(-1))),
            ActionId::PageForward => commands.push(time(TimeCommand::Page(1))),
            ActionId::NextDiagnostic => commands.push(time(TimeCommand::ToNextDiagnostic)),
            ActionId::PreviousDiagnostic => {
                commands.push(time(TimeCommand::ToPreviousDiagnostic));
            }
            ActionId::NextMatch => {
                search::search_step(&self.search_form, SearchFrom::Next, commands)
            }
            ActionId::PreviousMatch => {
                search::search_step(&self.search_form, SearchFrom::Previous, commands);
            }
            ActionId::TogglePlay => commands.push(time(TimeCommand::TogglePlay)),
            ActionId::MarkA => commands.push(Command::Mark(MarkCommand::AtCursor(MarkSlot::A))),
            ActionId::MarkB => commands.push(Command::Mark(MarkCommand::AtCursor(MarkSlot::B))),
            ActionId::DiffWithPrevious => {
                commands.push(Command::Mark(MarkCommand::DiffWithPrevious));
            }
            ActionId::Bookmark => {
                self.show_right_tab(RightTab::Bookmarks);
                commands.push(Command::Note(NoteCommand::AddBookmark(None)));
            }
            ActionId::PreviousBookmark => {
                self.show_right_tab(RightTab::Bookmarks);
                commands.push(Command::Note(NoteCommand::PreviousBookmark));
            }
            ActionId::NextBookmark => {
                self.show_right_tab(RightTab::Bookmarks);
                commands.push(Command::Note(NoteCommand::NextBookmark));
            }
            ActionId::Serve => {
                if self.state.doc().is_some() {
                    self.serve.open = true;
                }
            }
            ActionId::ShowKeys => self.show_keys = !self.show_keys,
            ActionId::CommandPalette => {
                if self.palette.open {
                    self.palette.open = false;
                } else {
                    self.palette.show();
                }
            }
            ActionId::RulesReference => self.show_rules = true,
            ActionId::About => self.show_about = true,
            ActionId::Close => {
                if self.state.whatif().editor().is_some() {
                    commands.push(Command::WhatIf(
                        crate::app_model::whatif::WhatIfCommand::CancelEditor,
                    ));
                }
                self.palette.open = false;
                self.show_keys = false;
                self.show_rules = false;
                self.show_about = false;
            }
            // Gestures: the timeline handles them where the pointer is.
            ActionId::ZoomTimeline | ActionId::PanTimeline | ActionId::MarkRange => {}
        }
    }

    /// A tab of the right panel, the panel shown if it was hidden.
    fn show_right_tab(&mut self, tab: RightTab) {
        self.right_tab = tab;
        self.layout.show_inspector = true;
    }

    /// Whether an action's menu entry is enabled: those that need a
    /// stream are not without one.
    fn action_enabled(&self, action: ActionId) -> bool {
        match action {
            ActionId::CompareWith
            | ActionId::ExportRepro
            | ActionId::Serve
            | ActionId::ActivitySchemas
            | ActionId::InferSchemas => self.state.doc().is_some(),
            ActionId::NoActivitySchemas => self.state.schemas().folder().is_some(),
            ActionId::SkipEvent | ActionId::EditEvent | ActionId::InsertEvent => {
                self.state.doc().is_some()
            }
            ActionId::ToggleEdited
            | ActionId::ClearEdits
            | ActionId::CompareEdited
            | ActionId::SaveEdits => !self.state.whatif().edits().is_empty(),
            ActionId::TimelineInTime => self.state.has_recorded_times(),
            _ => true,
        }
    }

    /// One menu: its entries from the table of actions, with their keys and
    /// help, and the few entries that are lists rather than actions (the
    /// recent files, the themes).
    fn menu_entries_ui(
        &mut self,
        ui: &mut egui::Ui,
        menu: actions::Menu,
        commands: &mut Vec<Command>,
    ) {
        for action in actions::in_menu(menu) {
            if matches!(
                action.id,
                ActionId::ExportRepro
                    | ActionId::Quit
                    | ActionId::ShowInspector
                    | ActionId::ActivitySchemas
                    | ActionId::PreviousEvent
                    | ActionId::FirstStep
                    | ActionId::NextDiagnostic
                    | ActionId::NextMatch
                    | ActionId::TogglePlay
                    | ActionId::Bookmark
                    | ActionId::CommandPalette
            ) {
                ui.separator();
            }
            let toggle = match action.id {
                ActionId::ToggleEventList => Some(&mut self.layout.show_events),
                ActionId::ToggleInspector => Some(&mut self.layout.show_inspector),
                ActionId::ToggleTimeline => Some(&mut self.layout.show_timeline),
                _ => None,
            };
            if let Some(shown) = toggle {
                ui.checkbox(shown, action.name).on_hover_text(action.help);
                continue;
            }
            if action.id == ActionId::TimelineInTime {
                // A toggle, as the checkboxes above, with its key beside.
                let mut in_time = self.state.timeline_in_time();
                let enabled = self.action_enabled(action.id);
                let response = ui
                    .horizontal(|ui| {
                        let response = ui
                            .add_enabled(enabled, egui::Checkbox::new(&mut in_time, action.name))
                            .on_hover_text(action.help)
                            .on_disabled_hover_text(crate::app_model::time_axis::NO_RECORDED_TIMES);
                        if let Some(shortcut) = keys::shortcut_text(ui.ctx(), action) {
                            ui.weak(shortcut);
                        }
                        response
                    })
                    .inner;
                if response.changed() {
                    commands.push(Command::SetTimelineInTime(in_time));
                }
                continue;
            }
            let mut button = egui::Button::new(action.name);
            if let Some(shortcut) = keys::shortcut_text(ui.ctx(), action) {
                button = button.shortcut_text(shortcut);
            }
            let clicked = ui
                .add_enabled(self.action_enabled(action.id), button)
                .on_hover_text(action.help)
                .clicked();
            if clicked {
                ui.close();
                self.run_action(&ui.ctx().clone(), action.id, commands);
            }
            if action.id == ActionId::Open {
                ui.menu_button("Open recent", |ui| {
                    if self.state.recent().is_empty() {
                        ui.label("Nothing opened yet");
                    }
                    for path in self.state.recent() {
                        if ui.button(path.display().to_string()).clicked() {
                            commands.push(Command::Open(path.clone()));
                            ui.close();
                        }
                    }
                });
            }
        }
        if menu == actions::Menu::View {
            ui.separator();
            ui.menu_button("Theme", |ui| {
                let current = ui.ctx().options(|o| o.theme_preference);
                for (preference, label) in [
                    (egui::ThemePreference::System, "Follow the system"),
                    (egui::ThemePreference::Dark, "Dark"),
                    (egui::ThemePreference::Light, "Light"),
                ] {
                    if ui.radio(current == preference, label).clicked() {
                        ui.ctx().set_theme(preference);
                        if self.state.remembers_recent() {
                            document::save_theme(theme_name(preference));
                        }
                        ui.close();
                    }
                }
            });
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        egui::MenuBar::new().ui(ui, |ui| {
            for menu in actions::Menu::ALL {
                ui.menu_button(menu.title(), |ui| {
                    self.menu_entries_ui(ui, menu, commands);
                });
            }
            ui.separator();
            ui.label("Profile");
            let profile = self.state.options().profile;
            for candidate in Profile::ALL {
                if ui
                    .selectable_label(profile == candidate, state::profile_label(candidate))
                    .on_hover_text(match candidate {
                        Profile::Spec => "The replay rules as written",
                        Profile::AgUiClient10 => {
                            "What the reference client @ag-ui/client 1.0.0 does"
                        }
                    })
                    .clicked()
                    && profile != candidate
                {
                    commands.push(Command::SetProfile(candidate));
                }
            }
            // The protocol version the consumer implements (C4, P6): a
            // setting of `spec`; the client profile is a 1.0 consumer.
            let options = self.state.options();
            let consumer = options.consumer_version();
            ui.add_enabled_ui(profile == Profile::Spec, |ui| {
                let label = ui.label("Protocol");
                egui::ComboBox::from_id_salt("protocol")
                    .selected_text(format!("AG-UI {consumer}"))
                    .show_ui(ui, |ui| {
                        for version in ProtocolVersion::ALL {
                            if ui
                                .selectable_label(consumer == version, format!("AG-UI {version}"))
                                .clicked()
                                && options.protocol != version
                            {
                                commands.push(Command::SetProtocol(version));
                            }
                        }
                    })
                    .response
                    .labelled_by(label.id)
                    .on_hover_text(
                        "The protocol version the consumer implements (C4): a stream \
                         declaring a newer one is warned about and read by this version's \
                         schema",
                    )
                    .on_disabled_hover_text(
                        "The @ag-ui/client 1.0.0 profile is a protocol 1.0 consumer (P6)",
                    );
            });
            let mut best_effort = self.state.options().best_effort;
            let why = "Keep applying events after a fatal error (R43)";
            let checkbox = ui.checkbox(&mut best_effort, "Best effort");
            if rule_text::on_hover_cited(checkbox, why, Some(why)).changed() {
                commands.push(Command::SetBestEffort(best_effort));
            }
            // The pickers come after the replay's settings, so that they
            // appearing (a file opened) moves nothing a click was meant
            // for (issue 13, point 12).
            if let Some(doc) = self.state.doc()
                && doc.sessions.is_empty()
                && doc.source.exchanges.len() > 1
            {
                ui.separator();
                exchange_picker_ui(ui, doc, commands);
            }
            if let Some(doc) = self.state.doc()
                && doc.sessions.len() > 1
            {
                ui.separator();
                let current = doc.session.unwrap_or(1);
                let label = ui.label("Session");
                egui::ComboBox::from_id_salt("session")
                    .selected_text(format!(
                        "{} of {}",
                        words::thousands(current as u64),
                        words::thousands(doc.sessions.len() as u64)
                    ))
                    .show_ui(ui, |ui| {
                        for session in &doc.sessions {
                            let label = format!(
                                "{}: {} ({}, {})",
                                session.id,
                                session.source,
                                words::count(session.num_events, "event", "events"),
                                session_status_label(session.status)
                            );
                            if ui
                                .selectable_label(session.id.get() == current, label)
                                .clicked()
                            {
                                commands.push(Command::PickSession(session.id.get()));
                            }
                        }
                    })
                    .response
                    .labelled_by(label.id);
            }
            progress_ui(ui, &self.state, commands);
        });
    }
}

/// What is being done to the stream: opening it, indexing it in the
/// background (a percentage and a Cancel), comparing the profiles, or
/// what a cancelled indexing left (issue 13, point 9).
fn progress_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    // Without a document the centre says what is being opened (once).
    if let Some(loading) = state.loading().filter(|_| state.doc().is_some()) {
        ui.separator();
        ui.spinner();
        ui.label(format!("Opening {}…", loading.path.display()));
        return;
    }
    let Some(doc) = state.doc() else { return };
    if let Some(indexing) = &doc.indexing {
        ui.separator();
        if indexing.comparing {
            ui.spinner();
            ui.label("Comparing the profiles…").on_hover_text(
                "Where the other profile shows something else (P13): marked when done",
            );
            return;
        }
        let done = doc.num_events();
        let total = indexing.total.max(1);
        let fraction = done as f32 / total as f32;
        let percent = (done * 100 / total).min(99);
        ui.add(egui::ProgressBar::new(fraction).desired_width(120.0));
        ui.label(format!(
            "Indexing {percent}% · {} of {} events",
            words::thousands(done),
            words::thousands(indexing.total)
        ))
        .on_hover_text("The events read so far are shown; the rest are being read");
        if ui
            .button("Cancel")
            .on_hover_text("Stop reading: keep the events indexed so far")
            .clicked()
        {
            commands.push(Command::CancelIndexing);
        }
    } else if let Some(total) = doc.cancelled {
        ui.separator();
        ui.weak(format!(
            "Indexed {} of {} events (cancelled)",
            words::thousands(doc.num_events()),
            words::thousands(total)
        ))
        .on_hover_text("Open the file again to read all of it");
    }
}

impl eframe::App for ReplayApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        ReplayApp::ui(self, ui);
    }

    /// Quitting is immediate (issue 13, point 12): a 1,000,000-event
    /// document took 2–5 s to drop, so it is dropped on a thread of its
    /// own, which the process's exit ends. Nothing is written on drop: the
    /// recording's bookmarks and notes are saved as they are made.
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        let state = std::mem::take(&mut self.state);
        let dropped = std::thread::Builder::new()
            .name("drop-document".to_owned())
            .spawn(move || drop(state));
        if let Err(error) = dropped {
            eprintln!("cannot drop the document in the background: {error}");
        }
    }
}

/// A session's status in the picker: an incomplete one may be still being
/// written, or its writer may have stopped.
fn session_status_label(status: crate::store::SessionStatus) -> &'static str {
    match status {
        crate::store::SessionStatus::Incomplete => "being written, or interrupted",
        other => other.as_str(),
    }
}

/// The exchange of a HAR file shown, and the others (each with its
/// request), like the session picker of a recording.
fn exchange_picker_ui(ui: &mut egui::Ui, doc: &Doc, commands: &mut Vec<Command>) {
    let current = doc.session.unwrap_or(1);
    let label = ui.label("Exchange");
    egui::ComboBox::from_id_salt("exchange")
        .selected_text(format!(
            "{} of {}",
            words::thousands(current as u64),
            words::thousands(doc.source.exchanges.len() as u64)
        ))
        .show_ui(ui, |ui| {
            for (i, request) in doc.source.exchanges.iter().enumerate() {
                let id = i as i64 + 1;
                if ui
                    .selectable_label(id == current, format!("{id}: {request}"))
                    .clicked()
                {
                    commands.push(Command::PickSession(id));
                }
            }
        })
        .response
        .labelled_by(label.id);
}

/// Draws `add` in the room left, never wider: what a tab holds cannot
/// widen its panel (a wide row scrolls or is cut), so the panel keeps one
/// width whichever tab shows (issue 43: it jumped between the Inspector and
/// the Diagnostics).
fn within_width_ui(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui)) {
    let rect = ui.available_rect_before_wrap();
    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect).layout(*ui.layout()));
    child.shrink_clip_rect(rect);
    add(&mut child);
    ui.advance_cursor_after_rect(rect);
}

fn error_banner_ui(ui: &mut egui::Ui, error: &str, commands: &mut Vec<Command>) {
    egui::Frame::new()
        .fill(theme::error_banner_background(ui.visuals()))
        .inner_margin(6.0)
        .show(ui, |ui| {
            // The message wraps in the room Dismiss leaves it: on one line,
            // its end and Dismiss were off-screen (issue 43, point 3b).
            ui.horizontal_top(|ui| {
                let dismiss_width = 90.0;
                let text_width = (ui.available_width() - dismiss_width).max(120.0);
                ui.allocate_ui(egui::vec2(text_width, 0.0), |ui| {
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(error).color(ui.visuals().error_fg_color),
                        )
                        .wrap(),
                    );
                });
                if ui.button("Dismiss").clicked() {
                    commands.push(Command::DismissError);
                }
            });
        });
}

/// The actions the keys of a frame ask for, by the table of actions
/// ([`actions::action_of_chord`]). While a text field has the keyboard, only
/// the chords that do not type (Ctrl, F1, F3) act, so that ↑/↓ typed in a
/// field move its text cursor, not the timeline's (issue 43, point 2). The
/// Ctrl chords are consumed, so that no field acts on them too.
fn keyboard(ctx: &egui::Context) -> Vec<ActionId> {
    let typing = ctx.egui_wants_keyboard_input();
    let mut found = Vec::new();
    ctx.input(|input| {
        for event in &input.events {
            let egui::Event::Key {
                key,
                pressed: true,
                repeat,
                modifiers,
                ..
            } = event
            else {
                continue;
            };
            if modifiers.alt {
                continue;
            }
            let Some(name) = keys::key_name_of(*key) else {
                continue;
            };
            let chord = actions::KeyChord {
                key: name,
                ctrl: modifiers.command || modifiers.ctrl,
                shift: modifiers.shift,
            };
            let Some(action) = actions::action_of_chord(chord) else {
                continue;
            };
            if typing && !chord.acts_in_text_fields() {
                continue;
            }
            // Held, the stepping keys repeat; the others act once.
            if *repeat && !action.repeats {
                continue;
            }
            found.push((action.id, *key, *modifiers, chord.ctrl));
        }
    });
    ctx.input_mut(|input| {
        for &(_, key, modifiers, ctrl) in &found {
            if ctrl {
                input.consume_key(modifiers, key);
            }
        }
    });
    found.into_iter().map(|(action, ..)| action).collect()
}

/// The command of a What if menu action, on the event at the
/// cursor (issue 41).
fn whatif_command_of(
    action: ActionId,
    step: crate::diagnostic::Seq,
) -> Option<crate::app_model::whatif::WhatIfCommand> {
    use crate::app_model::whatif::WhatIfCommand;
    Some(match action {
        ActionId::SkipEvent => WhatIfCommand::Skip(step),
        ActionId::EditEvent => WhatIfCommand::Edit(step),
        ActionId::InsertEvent => WhatIfCommand::InsertBefore(step),
        ActionId::ToggleEdited => WhatIfCommand::Toggle,
        ActionId::ClearEdits => WhatIfCommand::Clear,
        ActionId::CompareEdited => WhatIfCommand::CompareWithRecording,
        ActionId::SaveEdits => WhatIfCommand::Save,
        _ => return None,
    })
}

fn dropped_files(ctx: &egui::Context, commands: &mut Vec<Command>) {
    ctx.input(|input| {
        if let Some(file) = input.raw.dropped_files.first() {
            let path = file.path().to_owned();
            commands.push(Command::Open(path));
        }
    });
}

/// The name a theme preference is kept under.
fn theme_name(preference: egui::ThemePreference) -> &'static str {
    match preference {
        egui::ThemePreference::System => "system",
        egui::ThemePreference::Dark => "dark",
        egui::ThemePreference::Light => "light",
    }
}

fn theme_of_name(name: &str) -> Option<egui::ThemePreference> {
    [
        egui::ThemePreference::System,
        egui::ThemePreference::Dark,
        egui::ThemePreference::Light,
    ]
    .into_iter()
    .find(|&preference| theme_name(preference) == name)
}

/// Runs the desktop app on `path` (or on the bundled demo, from the
/// user's copy of it), in the theme named `theme` (`--theme`)
/// if given, else the one kept.
pub fn run_app(
    path: Option<PathBuf>,
    exit_after: Option<Duration>,
    theme: Option<&str>,
) -> anyhow::Result<()> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("agui-replay")
            .with_inner_size([1400.0, 900.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    // The icon `desktop install` installs (issue 45); a window without one
    // is no reason not to open.
    let options = match eframe::icon_data::from_png_bytes(crate::desktop::ICON_PNG) {
        Ok(icon) => eframe::NativeOptions {
            viewport: options.viewport.with_icon(icon),
            ..options
        },
        Err(_) => options,
    };
    let mut app = match path {
        Some(_) => ReplayApp::new(None),
        None => ReplayApp::with_built_in_demo(demo::user_data_dir().as_deref()),
    };
    app.exit_after = exit_after;
    app.state
        .remember_recent(crate::app_model::document::load_recent());
    app.state
        .remember_schema_folders(crate::app_model::document::load_schema_folders());
    // Opened once the schema folder chosen for it is known (issue 42).
    if let Some(path) = path {
        app.state.open_in_background(path, None, None);
    }
    let theme = theme
        .map(str::to_owned)
        .or_else(document::load_theme)
        .and_then(|name| theme_of_name(&name));
    eframe::run_native(
        "agui-replay",
        options,
        Box::new(move |cc| {
            if let Some(theme) = theme {
                cc.egui_ctx.set_theme(theme);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The actions the keyboard finds for one key press.
    fn actions_of_press(key: egui::Key, modifiers: egui::Modifiers) -> Vec<ActionId> {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            events: vec![egui::Event::Key {
                key,
                physical_key: None,
                pressed: true,
                repeat: false,
                modifiers,
            }],
            ..Default::default()
        };
        let mut found = Vec::new();
        let mut output = ctx.run_ui(input, |ui| found = keyboard(ui.ctx()));
        // No renderer takes the font texture here.
        output.textures_delta.clear();
        found
    }

    // Issue 43, point 1: every key of the table of actions acts, and acts
    // as the table says (`run_action` handles every action: its match has
    // no catch-all).
    #[test]
    fn every_key_of_the_table_is_handled() {
        for action in actions::ACTIONS {
            for chord in action.chords() {
                let key = keys::egui_key(chord.key).expect("an egui key");
                assert_eq!(keys::key_name_of(key), Some(chord.key));
                assert_eq!(
                    actions_of_press(key, keys::egui_modifiers(chord)),
                    [action.id],
                    "{}",
                    chord.label()
                );
            }
        }
        assert!(actions_of_press(egui::Key::Z, egui::Modifiers::NONE).is_empty());
        assert!(actions_of_press(egui::Key::ArrowRight, egui::Modifiers::ALT).is_empty());
    }

    #[test]
    fn a_kept_theme_reads_back_as_itself() {
        for preference in [
            egui::ThemePreference::System,
            egui::ThemePreference::Dark,
            egui::ThemePreference::Light,
        ] {
            assert_eq!(theme_of_name(theme_name(preference)), Some(preference));
        }
        assert_eq!(theme_of_name("sepia"), None);
    }

    #[test]
    fn the_window_icon_decodes() {
        // Issue 45: run_app opens the window without an icon if it does not.
        let icon = eframe::icon_data::from_png_bytes(crate::desktop::ICON_PNG).expect("a PNG");
        assert_eq!((icon.width, icon.height), (256, 256));
    }
}
