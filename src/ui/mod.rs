//! The desktop app (egui): a timeline of the stream at the bottom, the event
//! list on the left, the conversation at the cursor in the centre, the
//! inspector and the diagnostics on the right.
//!
//! Panels read [`AppState`] and push [`Command`]s; the commands of a frame
//! are applied once, at its end. The engine knows nothing of this module.

pub mod annotations;
pub mod bench;
pub mod command;
pub mod compare;
pub mod conversation;
pub mod diagnostics;
pub mod document;
pub mod event_list;
pub mod export_dialog;
pub mod indexing;
pub mod inspector;
pub mod json_tree;
pub mod live;
pub mod memo;
pub mod rule_text;
pub mod search;
pub mod state;
pub mod step_axis;
pub mod theme;
pub mod time_control;
pub mod timeline;

use crate::ui::command::{MarkCommand, NoteCommand};
use std::path::PathBuf;
use std::time::Duration;

pub use state::{AppState, Command, Doc, EventFilter, TimeCommand};

use crate::diagnostic::Severity;
use crate::protocol::ProtocolVersion;
use crate::replay::Profile;

/// Which tab the right panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RightTab {
    /// The selected activity.
    Inspector,
    /// Every diagnostic.
    Diagnostics,
    /// Bookmarks and notes.
    Bookmarks,
    /// Search over time.
    Search,
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
    pub search_form: search::SearchForm,
    /// File › Export repro….
    pub export_dialog: export_dialog::ExportDialog,
    started: std::time::Instant,
}

impl ReplayApp {
    /// An app opening `path` (in the background), or empty.
    pub fn new(path: Option<PathBuf>) -> Self {
        let mut state = AppState::default();
        if let Some(path) = path {
            state.open_in_background(path, None, None);
        }
        Self {
            state,
            right_tab: RightTab::Inspector,
            exit_after: None,
            notes_form: annotations::NotesForm::default(),
            search_form: search::SearchForm::default(),
            export_dialog: export_dialog::ExportDialog::default(),
            started: std::time::Instant::now(),
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
        // The work that draws nothing, once, before the panels draw. The
        // frame's time comes from egui's input (the clock in the app, a
        // fixed step in tests), so playback is the same under load.
        let dt_seconds = f64::from(ctx.input(|i| i.stable_dt));
        let repaint = self.state.logic_step(dt_seconds);
        if repaint.now {
            ctx.request_repaint();
        }
        if let Some(after) = repaint.after {
            ctx.request_repaint_after(after);
        }
        if let Some(limit) = self.exit_after {
            if self.started.elapsed() >= limit {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint_after(Duration::from_millis(200));
        }
        let mut commands = Vec::new();
        if keyboard(&ctx, &mut commands) {
            self.right_tab = RightTab::Bookmarks;
        }
        if ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::E)) {
            self.export_dialog
                .apply(export_dialog::ExportCommand::Open, &self.state);
        }
        dropped_files(&ctx, &mut commands);

        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui, &mut commands));
        egui::Panel::bottom("status").show(ui, |ui| status_bar_ui(ui, &self.state, &mut commands));
        egui::Panel::bottom("timeline")
            .resizable(true)
            .default_size(theme::TIMELINE_HEIGHT)
            .show(ui, |ui| {
                timeline::timeline_ui(ui, &self.state, &mut commands)
            });
        let wide = self.state.wide_diff() && self.state.central_tab() == state::CentralTab::Diff;
        // The side panels give way to a full-width diff.
        if !wide {
            egui::Panel::left("events")
                .resizable(true)
                .default_size(theme::EVENT_LIST_WIDTH)
                .show(ui, |ui| {
                    event_list::event_list_ui(ui, &self.state, &mut commands)
                });
            egui::Panel::right("inspector")
                .resizable(true)
                .default_size(theme::INSPECTOR_WIDTH)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        ui.selectable_value(&mut self.right_tab, RightTab::Inspector, "Inspector");
                        ui.selectable_value(
                            &mut self.right_tab,
                            RightTab::Diagnostics,
                            "Diagnostics",
                        );
                        ui.selectable_value(&mut self.right_tab, RightTab::Bookmarks, "Bookmarks");
                        ui.selectable_value(&mut self.right_tab, RightTab::Search, "Search");
                    });
                    ui.separator();
                    match self.right_tab {
                        RightTab::Inspector => {
                            inspector::inspector_ui(ui, &self.state, &mut commands)
                        }
                        RightTab::Diagnostics => {
                            diagnostics::diagnostics_ui(ui, &self.state, &mut commands)
                        }
                        RightTab::Bookmarks => annotations::notes_ui(
                            ui,
                            &self.state,
                            &mut self.notes_form,
                            &mut commands,
                        ),
                        RightTab::Search => {
                            search::search_ui(ui, &self.state, &mut self.search_form, &mut commands)
                        }
                    }
                });
        }
        egui::CentralPanel::default().show(ui, |ui| {
            if let Some(error) = self.state.error() {
                error_banner_ui(ui, error, &mut commands);
            }
            compare::central_tabs_ui(ui, &self.state, &mut commands);
            match self.state.central_tab() {
                state::CentralTab::Conversation => {
                    conversation::conversation_ui(ui, &self.state, &mut commands)
                }
                state::CentralTab::Diff => compare::diff_view_ui(ui, &self.state, &mut commands),
            }
        });
        export_dialog::export_dialog_ui(&ctx, &self.state, &mut self.export_dialog);
        self.state.apply(commands);
        if let Some((message, pointer)) = self.state.take_search_prefill() {
            self.search_form.prefill(message, pointer);
            self.right_tab = RightTab::Search;
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open…").clicked() {
                    if let Some(path) = rfd::FileDialog::new()
                        .add_filter(
                            "Recordings and streams",
                            &[
                                "rec", "sqlite", "db", "jsonl", "ndjson", "json", "sse", "txt",
                                "har",
                            ],
                        )
                        .add_filter("All files", &["*"])
                        .pick_file()
                    {
                        commands.push(Command::Open(path));
                    }
                    ui.close();
                }
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
                ui.separator();
                if ui
                    .add_enabled(
                        self.state.doc().is_some(),
                        egui::Button::new("Export repro…").shortcut_text(ui.ctx().format_shortcut(
                            &egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::E),
                        )),
                    )
                    .clicked()
                {
                    self.export_dialog
                        .apply(export_dialog::ExportCommand::Open, &self.state);
                    ui.close();
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            ui.menu_button("View", |ui| {
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
            });
            if let Some(doc) = self.state.doc()
                && doc.sessions.is_empty()
                && doc.source.exchanges.len() > 1
            {
                exchange_picker_ui(ui, doc, commands);
            }
            if let Some(doc) = self.state.doc()
                && doc.sessions.len() > 1
            {
                let current = doc.session.unwrap_or(1);
                let label = ui.label("Session");
                egui::ComboBox::from_id_salt("session")
                    .selected_text(format!("{current} of {}", doc.sessions.len()))
                    .show_ui(ui, |ui| {
                        for session in &doc.sessions {
                            let label = format!(
                                "{}: {} ({} events, {})",
                                session.id,
                                session.source,
                                session.num_events,
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
            progress_ui(ui, &self.state, commands);
        });
    }
}

/// A count with thousands separators (1,000,000).
pub fn grouped(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
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
            grouped(done),
            grouped(indexing.total)
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
            grouped(doc.num_events()),
            grouped(total)
        ))
        .on_hover_text("Open the file again to read all of it");
    }
}

impl eframe::App for ReplayApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        ReplayApp::ui(self, ui);
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
        .selected_text(format!("{current} of {}", doc.source.exchanges.len()))
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

fn error_banner_ui(ui: &mut egui::Ui, error: &str, commands: &mut Vec<Command>) {
    egui::Frame::new()
        .fill(ui.visuals().error_fg_color.gamma_multiply(0.15))
        .inner_margin(6.0)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.colored_label(ui.visuals().error_fg_color, error);
                if ui.button("Dismiss").clicked() {
                    commands.push(Command::DismissError);
                }
            });
        });
}

/// Step N of M, the worst severity, counts per severity.
fn status_bar_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        let Some(doc) = state.doc() else {
            ui.label(match state.loading() {
                // The centre says what is being opened.
                Some(_) => String::new(),
                None => "No stream open: File › Open…, or drop a file here".to_owned(),
            });
            return;
        };
        ui.label(format!("Step {} of {}", state.step(), doc.num_events()));
        ui.separator();
        let counts = doc.counts;
        match counts.worst() {
            Some(worst) => {
                ui.colored_label(
                    theme::severity_color(ui.visuals(), worst),
                    format!("{} worst: {worst}", theme::severity_symbol(worst)),
                )
                .on_hover_text("The most severe diagnostic of the stream");
            }
            None => {
                ui.label("no diagnostics");
            }
        }
        for severity in Severity::ALL {
            let count = counts.get(severity);
            // "info" has no plural.
            let plural = if count == 1 || severity == Severity::Info {
                ""
            } else {
                "s"
            };
            ui.colored_label(
                theme::severity_color(ui.visuals(), severity),
                format!("{count} {severity}{plural}"),
            );
        }
        ui.separator();
        if doc.live {
            // The end-of-stream checks wait for the end.
            ui.label("outcome: running");
        } else {
            let outcome = doc.timeline.head().outcome();
            ui.label(format!("outcome {}", outcome.as_str()));
        }
        if let Some(fatal) = doc.timeline.head().fatal() {
            let response = ui.colored_label(
                ui.visuals().error_fg_color,
                format!("failed at step {} ({})", fatal.seq, fatal.code),
            );
            rule_text::on_hover_code(response, fatal.code);
        }
        if doc.live {
            ui.separator();
            let mut text = if doc.session.is_none() {
                "LIVE, waiting for the first session"
            } else if state.time().is_following() {
                "LIVE, following"
            } else {
                "LIVE"
            }
            .to_owned();
            if let Some(quiet) = state.live().quiet_for().filter(|q| q.as_secs() >= 10) {
                text.push_str(&format!(" (no new event for {} s)", quiet.as_secs()));
            }
            ui.colored_label(ui.visuals().warn_fg_color, text)
                .on_hover_text(
                    "The session is still being written (or its writer stopped without ending \
                 it); End follows its last event",
                );
            let mut following = state.time().is_following();
            if ui
                .checkbox(&mut following, "Follow (End)")
                .on_hover_text("Keep the playhead on the last event as events arrive")
                .changed()
            {
                commands.push(Command::Time(if following {
                    TimeCommand::ToEndAndFollow
                } else {
                    TimeCommand::StopFollowing
                }));
            }
        }
        if let Some(notice) = state.current_notice() {
            ui.separator();
            ui.label(notice);
        }
        ui.separator();
        ui.label(doc.path.display().to_string());
    });
}

/// The keys: ←/→ step, Home/End (End also follows a live recording),
/// PgUp/PgDn (a tenth of the visible timeline, at least 10 steps), `n`/`p`
/// next and previous diagnostic, space play/pause, `a`/`b` marks, `d` diff
/// with the previous step, `m` bookmark, `[`/`]` previous and next bookmark.
/// Returns whether a bookmark key was pressed (the bookmarks tab shows).
fn keyboard(ctx: &egui::Context, commands: &mut Vec<Command>) -> bool {
    if ctx.egui_wants_keyboard_input() {
        return false;
    }
    let mut bookmark_key = false;
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
            if modifiers.ctrl || modifiers.command || modifiers.alt {
                continue;
            }
            // Held, the stepping keys repeat; a held `m` must not write a
            // bookmark per repeat, nor the others toggle or mark again.
            let acts_once = !matches!(
                key,
                egui::Key::ArrowLeft
                    | egui::Key::ArrowRight
                    | egui::Key::PageUp
                    | egui::Key::PageDown
                    | egui::Key::N
                    | egui::Key::P
            );
            if *repeat && acts_once {
                continue;
            }
            let command = match key {
                egui::Key::ArrowRight => Command::Time(TimeCommand::Step(1)),
                egui::Key::ArrowLeft => Command::Time(TimeCommand::Step(-1)),
                egui::Key::Home => Command::Time(TimeCommand::ToStart),
                egui::Key::End => Command::Time(TimeCommand::ToEndAndFollow),
                egui::Key::PageDown => Command::Time(TimeCommand::Page(1)),
                egui::Key::PageUp => Command::Time(TimeCommand::Page(-1)),
                egui::Key::N => Command::Time(TimeCommand::ToNextDiagnostic),
                egui::Key::P => Command::Time(TimeCommand::ToPreviousDiagnostic),
                egui::Key::Space => Command::Time(TimeCommand::TogglePlay),
                egui::Key::A => Command::Mark(MarkCommand::AtCursor(state::MarkSlot::A)),
                egui::Key::B => Command::Mark(MarkCommand::AtCursor(state::MarkSlot::B)),
                egui::Key::D => Command::Mark(MarkCommand::DiffWithPrevious),
                egui::Key::M => Command::Note(NoteCommand::AddBookmark(None)),
                egui::Key::OpenBracket => Command::Note(NoteCommand::PreviousBookmark),
                egui::Key::CloseBracket => Command::Note(NoteCommand::NextBookmark),
                _ => continue,
            };
            bookmark_key |= matches!(
                command,
                Command::Note(NoteCommand::AddBookmark(_))
                    | Command::Note(NoteCommand::PreviousBookmark)
                    | Command::Note(NoteCommand::NextBookmark)
            );
            commands.push(command);
        }
    });
    bookmark_key
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

/// Runs the desktop app on `path`.
pub fn run_app(path: Option<PathBuf>, exit_after: Option<Duration>) -> anyhow::Result<()> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("agui-replay")
            .with_inner_size([1400.0, 900.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    let mut app = ReplayApp::new(path);
    app.exit_after = exit_after;
    app.state.remember_recent(state::load_recent());
    let theme = document::load_theme().and_then(|name| theme_of_name(&name));
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
}
