//! The bookmarks and notes tab: a step worth coming back to, with a label;
//! a note on a step (and the activity selected then). Their state is
//! [`crate::app_model::notes`]; for files other than recordings they last
//! until the file is closed, and the panel says so.

use crate::app_model::command::NoteCommand;
use crate::app_model::time_control::TimeCommand;
use crate::app_model::words::thousands;

use egui::{RichText, Ui};

use crate::app_model::command::Command;
use crate::app_model::notes::{AnnotationId, Kept};
use crate::app_model::state::AppState;
use crate::diagnostic::Seq;
use crate::store::Bookmark;

/// What the panel's text fields hold between frames.
#[derive(Clone, Debug, Default)]
pub struct NotesForm {
    /// The label of the next bookmark.
    pub label: String,
    /// The text of the next note.
    pub note: String,
    /// A bookmark being renamed, with its new label.
    pub renaming: Option<(AnnotationId, String)>,
    /// A note being edited, with its new text.
    pub editing: Option<(AnnotationId, String)>,
}

/// The bookmarks and notes tab.
pub fn notes_ui(ui: &mut Ui, state: &AppState, form: &mut NotesForm, commands: &mut Vec<Command>) {
    if state.doc().is_none() {
        ui.weak("No stream open.");
        return;
    }
    let annotations = state.annotations();
    if annotations.is_saved() {
        ui.weak("Saved in the recording.");
    } else {
        ui.weak(
            "Kept until the app closes: only a recording can keep them \
             (agui-replay import FILE --out REC).",
        );
    }
    if let Some(error) = annotations.load_error() {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    let step = state.step();
    // Every row wraps to the panel's width, and the tab scrolls: at
    // 1024×700 it was wider than its panel, which the conversation was
    // drawn over (issue 43, point 3a).
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("Label");
        let field = ui
            .add(
                egui::TextEdit::singleline(&mut form.label)
                    .hint_text(state.default_bookmark_label())
                    .desired_width(140.0_f32.min(ui.available_width() - 50.0).max(60.0)),
            )
            .labelled_by(label.id);
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui
            .button(format!("Bookmark step {} (m)", thousands(step.get())))
            .on_hover_text("Add a bookmark at the cursor, with this label")
            .clicked()
            || entered
        {
            commands.push(Command::Note(NoteCommand::AddBookmark(Some(
                std::mem::take(&mut form.label),
            ))));
        }
    });
    ui.horizontal_wrapped(|ui| {
        let any = !annotations.bookmarks().is_empty();
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
    ui.label(RichText::new(format!("Bookmarks ({})", annotations.bookmarks().len())).strong());
    if annotations.bookmarks().is_empty() {
        ui.weak("None yet: press m at a step to bookmark it.");
    }
    for bookmark in annotations.bookmarks() {
        bookmark_row_ui(ui, bookmark, step, form, commands);
    }
    ui.separator();
    notes_section_ui(ui, state, form, commands);
}

fn bookmark_row_ui(
    ui: &mut Ui,
    bookmark: &Kept<Bookmark>,
    step: Seq,
    form: &mut NotesForm,
    commands: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
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
        // The label is cut to leave Rename and Delete their room on the
        // row; it shows whole on hover.
        let text = format!("{:>6}  {}", bookmark.seq.get(), bookmark.label);
        // Rename and Delete, small buttons, with the spacing between.
        let buttons = 160.0;
        let room = (ui.available_width() - buttons).max(80.0);
        let label = egui::Button::selectable(bookmark.seq == step, RichText::new(text).monospace())
            .truncate();
        let row = ui.scope(|ui| {
            ui.set_max_width(room);
            ui.add(label)
        });
        if row
            .inner
            .on_hover_text(format!(
                "{}\nGo to step {}",
                bookmark.label,
                thousands(bookmark.seq.get())
            ))
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
        ui.label(RichText::new(format!("Notes ({})", state.annotations().notes().len())).strong());
    ui.add(
        egui::TextEdit::multiline(&mut form.note)
            .hint_text("What happened here")
            .desired_rows(2)
            .desired_width(f32::INFINITY),
    )
    .labelled_by(title.id);
    let on = match state.selected_activity() {
        Some(id) => format!(" on {id}"),
        None => String::new(),
    };
    if ui
        .add_enabled(
            !form.note.trim().is_empty(),
            egui::Button::new(format!("Add note at step {}{on}", thousands(step.get()))),
        )
        .clicked()
    {
        commands.push(Command::Note(NoteCommand::AddNote(std::mem::take(
            &mut form.note,
        ))));
    }
    for note in state.annotations().notes() {
        ui.horizontal_wrapped(|ui| {
            let mut head = format!("step {}", thousands(note.seq.get()));
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
