//! Bookmarks and notes: a step worth coming back to, with a label; a note on
//! a step (and the activity selected then). In a recording they are saved in
//! the file (the only write the app makes, and only when the user adds,
//! renames or deletes one); for other files they last until the file is
//! closed, and the panel says so.

use crate::ui::TimeCommand;
use crate::ui::command::NoteCommand;
use std::path::PathBuf;

use egui::{RichText, Ui};

use super::state::{AppState, Command, Doc};
use crate::diagnostic::Seq;
use crate::protocol::ParseOutcome;
use crate::store::{self, Bookmark, Note, SessionId};

/// The bookmarks and notes of the open session.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    /// By step.
    pub bookmarks: Vec<Bookmark>,
    /// By step.
    pub notes: Vec<Note>,
    /// Where they are saved: the recording and its session (`None`: kept
    /// in memory only).
    pub saved_in: Option<(PathBuf, SessionId)>,
    /// Why the recording's could not be read, if they could not.
    pub load_error: Option<String>,
    /// The id of the next one kept in memory (negative, never a row id).
    next_memory_id: i64,
}

impl Annotations {
    /// The bookmarks and notes a document's recording holds (none for other
    /// files).
    pub fn load(doc: &Doc) -> Self {
        let mut annotations = Self::default();
        let Some(recording) = &doc.recording else {
            return annotations;
        };
        let session = SessionId(doc.session.unwrap_or(1));
        annotations.saved_in = Some((doc.path.clone(), session));
        match (recording.bookmarks(session), recording.notes(session)) {
            (Ok(bookmarks), Ok(notes)) => {
                annotations.bookmarks = bookmarks;
                annotations.notes = notes;
            }
            (Err(error), _) | (_, Err(error)) => {
                annotations.load_error = Some(error.to_string());
            }
        }
        annotations
    }

    /// The step of the next bookmark after `current` (or the previous one
    /// before it).
    pub fn bookmark_step(&self, current: Seq, forward: bool) -> Option<Seq> {
        let steps = self.bookmarks.iter().map(|b| b.seq);
        if forward {
            steps.filter(|&s| s > current).min()
        } else {
            steps.filter(|&s| s < current).max()
        }
    }

    /// The bookmarks and notes kept in memory only.
    pub fn unsaved(&self) -> Self {
        Self {
            bookmarks: self
                .bookmarks
                .iter()
                .filter(|b| b.id < 0)
                .cloned()
                .collect(),
            notes: self.notes.iter().filter(|n| n.id < 0).cloned().collect(),
            next_memory_id: self.next_memory_id,
            ..Self::default()
        }
    }

    /// Takes the bookmarks and notes that `earlier` kept in memory only
    /// (not saved in a file).
    pub fn keep_unsaved_from(&mut self, earlier: &Self) {
        self.bookmarks
            .extend(earlier.bookmarks.iter().filter(|b| b.id < 0).cloned());
        self.notes
            .extend(earlier.notes.iter().filter(|n| n.id < 0).cloned());
        self.next_memory_id = self.next_memory_id.min(earlier.next_memory_id);
        self.sort();
    }

    fn memory_id(&mut self) -> i64 {
        self.next_memory_id -= 1;
        self.next_memory_id
    }

    fn sort(&mut self) {
        self.bookmarks.sort_by_key(|b| (b.seq, b.id));
        self.notes.sort_by_key(|n| (n.seq, n.id));
    }
}

impl AppState {
    pub(super) fn add_bookmark(&mut self, label: Option<String>) {
        if self.doc.is_none() {
            return;
        }
        let step = self.step();
        let label = label
            .filter(|l| !l.trim().is_empty())
            .unwrap_or_else(|| self.default_bookmark_label());
        let saved = self
            .annotations
            .saved_in
            .as_ref()
            .map(|(path, session)| store::add_bookmark(path, *session, step, &label));
        let bookmark = self.saved_or_kept(saved, "bookmark", step, |id| Bookmark {
            id,
            session: SessionId(0),
            seq: step,
            label,
            created_at_unix_ms: store::now_unix_ms(),
        });
        self.annotations.bookmarks.push(bookmark);
        self.annotations.sort();
    }

    /// What a bookmark is called unless the user names it: the event at
    /// the cursor (`ACTIVITY_DELTA plan-1`), or the start.
    pub fn default_bookmark_label(&self) -> String {
        let Some(view) = &self.view else {
            return String::new();
        };
        match &view.event {
            Some(ParseOutcome::Event { event, .. }) => match event.message_id() {
                Some(id) => format!("{} {id}", event.event_type().as_str()),
                None => event.event_type().as_str().to_owned(),
            },
            Some(_) => "unreadable event".to_owned(),
            None => "start".to_owned(),
        }
    }

    pub(super) fn rename_bookmark(&mut self, id: i64, label: &str) {
        if let Some(error) = self.write_row(id, |path| store::rename_bookmark(path, id, label)) {
            self.error = Some(error);
            return;
        }
        if let Some(bookmark) = self.annotations.bookmarks.iter_mut().find(|b| b.id == id) {
            bookmark.label = label.to_owned();
        }
    }

    pub(super) fn delete_bookmark(&mut self, id: i64) {
        if let Some(error) = self.write_row(id, |path| store::delete_bookmark(path, id)) {
            self.error = Some(error);
            return;
        }
        self.annotations.bookmarks.retain(|b| b.id != id);
    }

    pub(super) fn add_note(&mut self, text: &str) {
        if self.doc.is_none() || text.trim().is_empty() {
            return;
        }
        let step = self.step();
        let message_id = self.selected_activity.clone();
        let saved = self.annotations.saved_in.as_ref().map(|(path, session)| {
            store::add_note(path, *session, step, message_id.as_deref(), text)
        });
        let note = self.saved_or_kept(saved, "note", step, |id| Note {
            id,
            session: SessionId(0),
            seq: step,
            message_id,
            text: text.to_owned(),
            created_at_unix_ms: store::now_unix_ms(),
        });
        self.annotations.notes.push(note);
        self.annotations.sort();
    }

    pub(super) fn edit_note(&mut self, id: i64, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        if let Some(error) = self.write_row(id, |path| store::edit_note(path, id, text)) {
            self.error = Some(error);
            return;
        }
        if let Some(note) = self.annotations.notes.iter_mut().find(|n| n.id == id) {
            note.text = text.to_owned();
        }
    }

    pub(super) fn delete_note(&mut self, id: i64) {
        if let Some(error) = self.write_row(id, |path| store::delete_note(path, id)) {
            self.error = Some(error);
            return;
        }
        self.annotations.notes.retain(|n| n.id != id);
    }

    /// The row a save gave (`saved`: `None` when there is no recording to
    /// save in), or, when there was none or the save failed (said in the
    /// error banner), the one `in_memory` makes with a memory id.
    fn saved_or_kept<T>(
        &mut self,
        saved: Option<Result<T, store::StoreError>>,
        what: &str,
        step: Seq,
        in_memory: impl FnOnce(i64) -> T,
    ) -> T {
        match saved {
            Some(Ok(row)) => {
                self.notify(format!("{} saved at step {step}", capitalized(what)));
                return row;
            }
            Some(Err(error)) => {
                self.error = Some(format!("The {what} is kept until the app closes: {error}"));
            }
            None => {}
        }
        in_memory(self.annotations.memory_id())
    }

    /// Runs `write` on the recording for a saved row (ids ≥ 1); the error
    /// to show if it failed.
    fn write_row(
        &self,
        id: i64,
        write: impl FnOnce(&std::path::Path) -> Result<(), store::StoreError>,
    ) -> Option<String> {
        let (path, _) = self.annotations.saved_in.as_ref().filter(|_| id > 0)?;
        write(path).err().map(|e| e.to_string())
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// What the panel's text fields hold between frames.
#[derive(Clone, Debug, Default)]
pub struct NotesForm {
    /// The label of the next bookmark.
    pub label: String,
    /// The text of the next note.
    pub note: String,
    /// A bookmark being renamed, with its new label.
    pub renaming: Option<(i64, String)>,
    /// A note being edited, with its new text.
    pub editing: Option<(i64, String)>,
}

/// The bookmarks and notes tab.
pub fn notes_ui(ui: &mut Ui, state: &AppState, form: &mut NotesForm, commands: &mut Vec<Command>) {
    if state.doc.is_none() {
        ui.weak("No stream open.");
        return;
    }
    let annotations = &state.annotations;
    match &annotations.saved_in {
        Some(_) => ui.weak("Saved in the recording."),
        None => ui.weak(
            "Kept until the app closes: only a recording can keep them \
             (agui-replay import FILE --out REC).",
        ),
    };
    if let Some(error) = &annotations.load_error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    let step = state.step();
    ui.horizontal(|ui| {
        let label = ui.label("Label");
        let field = ui
            .add(
                egui::TextEdit::singleline(&mut form.label)
                    .hint_text(state.default_bookmark_label())
                    .desired_width(140.0),
            )
            .labelled_by(label.id);
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui
            .button(format!("Bookmark step {step} (m)"))
            .on_hover_text("Add a bookmark at the cursor, with this label")
            .clicked()
            || entered
        {
            commands.push(Command::Note(NoteCommand::AddBookmark(Some(
                std::mem::take(&mut form.label),
            ))));
        }
    });
    ui.horizontal(|ui| {
        let any = !annotations.bookmarks.is_empty();
        if ui
            .add_enabled(any, egui::Button::new("Previous ([)"))
            .clicked()
        {
            commands.push(Command::Note(NoteCommand::PreviousBookmark));
        }
        if ui.add_enabled(any, egui::Button::new("Next (])")).clicked() {
            commands.push(Command::Note(NoteCommand::NextBookmark));
        }
    });
    ui.separator();
    ui.label(RichText::new(format!("Bookmarks ({})", annotations.bookmarks.len())).strong());
    if annotations.bookmarks.is_empty() {
        ui.weak("None yet: press m at a step to bookmark it.");
    }
    for bookmark in &annotations.bookmarks {
        bookmark_row_ui(ui, bookmark, step, form, commands);
    }
    ui.separator();
    notes_section_ui(ui, state, form, commands);
}

fn bookmark_row_ui(
    ui: &mut Ui,
    bookmark: &Bookmark,
    step: Seq,
    form: &mut NotesForm,
    commands: &mut Vec<Command>,
) {
    ui.horizontal(|ui| {
        if let Some((id, label)) = &mut form.renaming
            && *id == bookmark.id
        {
            let field = ui
                .text_edit_singleline(label)
                .on_hover_text("The bookmark's new label (Enter saves, Escape cancels)");
            if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                form.renaming = None;
                return;
            }
            let done = field.lost_focus() || ui.button("Save").clicked();
            if done {
                commands.push(Command::Note(NoteCommand::RenameBookmark(
                    *id,
                    label.clone(),
                )));
                form.renaming = None;
            }
            return;
        }
        let text = format!("{:>6}  {}", bookmark.seq.0, bookmark.label);
        if ui
            .selectable_label(bookmark.seq == step, RichText::new(text).monospace())
            .on_hover_text(format!("Go to step {}", bookmark.seq))
            .clicked()
        {
            commands.push(Command::Time(TimeCommand::Set(bookmark.seq)));
        }
        if ui.small_button("Rename").clicked() {
            form.renaming = Some((bookmark.id, bookmark.label.clone()));
        }
        if ui.small_button("Delete").clicked() {
            commands.push(Command::Note(NoteCommand::DeleteBookmark(bookmark.id)));
        }
    });
}

fn notes_section_ui(
    ui: &mut Ui,
    state: &AppState,
    form: &mut NotesForm,
    commands: &mut Vec<Command>,
) {
    let step = state.step();
    let title =
        ui.label(RichText::new(format!("Notes ({})", state.annotations.notes.len())).strong());
    ui.add(
        egui::TextEdit::multiline(&mut form.note)
            .hint_text("What happened here")
            .desired_rows(2)
            .desired_width(f32::INFINITY),
    )
    .labelled_by(title.id);
    let on = match &state.selected_activity {
        Some(id) => format!(" on {id}"),
        None => String::new(),
    };
    if ui
        .add_enabled(
            !form.note.trim().is_empty(),
            egui::Button::new(format!("Add note at step {step}{on}")),
        )
        .clicked()
    {
        commands.push(Command::Note(NoteCommand::AddNote(std::mem::take(
            &mut form.note,
        ))));
    }
    for note in &state.annotations.notes {
        ui.horizontal_wrapped(|ui| {
            let mut head = format!("step {}", note.seq);
            if let Some(id) = &note.message_id {
                head.push_str(&format!(" · {id}"));
            }
            if ui.link(head).clicked() {
                commands.push(Command::Time(TimeCommand::Set(note.seq)));
                if let Some(id) = &note.message_id {
                    commands.push(Command::SelectActivity(Some(id.clone())));
                }
            }
            if let Some((id, text)) = &mut form.editing
                && *id == note.id
            {
                ui.add(egui::TextEdit::multiline(text).desired_rows(2))
                    .on_hover_text("The note's new text");
                if ui.small_button("Save").clicked() {
                    commands.push(Command::Note(NoteCommand::EditNote(*id, text.clone())));
                    form.editing = None;
                } else if ui.small_button("Cancel").clicked() {
                    form.editing = None;
                }
                return;
            }
            ui.add(egui::Label::new(&note.text).wrap());
            if ui.small_button("Edit").clicked() {
                form.editing = Some((note.id, note.text.clone()));
            }
            if ui.small_button("Delete").clicked() {
                commands.push(Command::Note(NoteCommand::DeleteNote(note.id)));
            }
        });
    }
}
