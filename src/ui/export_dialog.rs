//! File › Export repro…, drawn: the window with the dialog's fields, its
//! redactions and its preview. The dialog's state is
//! [`crate::app_model::export_dialog`].

use std::path::PathBuf;

use crate::app_model::export_dialog::{
    AUTO_PREVIEW_EVENTS, ExportCommand, ExportDialog, Format, PREVIEW_BYTES, ScopeChoice,
    scope_available,
};
use crate::app_model::words::thousands;
use crate::export::ExportRequest;

use super::file_dialog::FilePicker;
use egui::{RichText, Ui};

use crate::app_model::state::AppState;

use crate::app_model::document::Doc;

/// The dialog window: it draws the dialog's state and applies what the
/// user does as [`ExportCommand`]s.
/// Browse… asks `picker` (the system's dialog, or the app's own, whose
/// answer [`crate::ui::ReplayApp`] gives back as [`ExportCommand::SetPath`]).
pub fn export_dialog_ui(
    ctx: &egui::Context,
    state: &AppState,
    dialog: &mut ExportDialog,
    picker: &mut FilePicker,
) {
    if !dialog.is_open() {
        return;
    }
    let mut open = true;
    egui::Window::new("Export repro")
        .open(&mut open)
        .default_width(640.0)
        .default_height(560.0)
        .resizable(true)
        .show(ctx, |ui| match state.doc() {
            None => {
                ui.label("Open a stream first.");
            }
            Some(doc) => fields_ui(ui, state, doc, dialog, picker),
        });
    if ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape)) {
        open = false;
    }
    if !open {
        dialog.apply(ExportCommand::Close, state);
    }
}

fn fields_ui(
    ui: &mut Ui,
    state: &AppState,
    doc: &Doc,
    dialog: &mut ExportDialog,
    picker: &mut FilePicker,
) {
    let step = state.step();
    dialog.follow_state(state);
    // Issue 41: what is exported is what shows.
    if state.whatif().showing_edited() {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "Exports the stream as edited ({} edits), not the recording: press E in the \
                 window for the recording",
                state.whatif().edits().len()
            ),
        );
    }
    let apply = |dialog: &mut ExportDialog, command: ExportCommand| {
        dialog.apply(command, state);
    };
    egui::Grid::new("export_fields")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Scope");
            ui.vertical(|ui| {
                let mut scope = dialog.scope();
                let activity = match state.selected_activity() {
                    Some(id) => format!(
                        "Activity {id} up to step {} (minimal repro)",
                        thousands(step.get())
                    ),
                    None => "Selected activity up to the cursor (none selected)".to_owned(),
                };
                ui.add_enabled_ui(
                    scope_available(state, ScopeChoice::Activity).is_ok(),
                    |ui| {
                        ui.radio_value(&mut scope, ScopeChoice::Activity, activity);
                    },
                );
                let range = match state.marks() {
                    [Some(a), Some(b)] => format!(
                        "Range A..B: steps {}..{}",
                        thousands(a.min(b).get()),
                        thousands(a.max(b).get())
                    ),
                    _ => "Range A..B (marks not set: keys a and b)".to_owned(),
                };
                ui.add_enabled_ui(scope_available(state, ScopeChoice::Range).is_ok(), |ui| {
                    ui.radio_value(&mut scope, ScopeChoice::Range, range);
                });
                ui.radio_value(
                    &mut scope,
                    ScopeChoice::Whole,
                    format!("Whole stream ({} events)", thousands(doc.num_events())),
                );
                if scope != dialog.scope() {
                    apply(dialog, ExportCommand::SetScope(scope));
                }
            });
            ui.end_row();
            // A list to pick from, one line high: as a row of choices
            // wrapped in its grid cell, "Recording" was drawn over the
            // checkbox below (issue 43, point 4).
            let format_label = ui.label("Format");
            let mut chosen = dialog.format();
            egui::ComboBox::from_id_salt("export_format")
                .selected_text(chosen.label())
                .width(220.0)
                .show_ui(ui, |ui| {
                    for format in Format::ALL {
                        ui.selectable_value(&mut chosen, format, format.label())
                            .on_hover_text(format.hover_text());
                    }
                })
                .response
                .labelled_by(format_label.id)
                .on_hover_text(chosen.hover_text());
            if chosen != dialog.format() {
                apply(dialog, ExportCommand::SetFormat(chosen));
            }
            ui.end_row();
            ui.label("Redaction");
            ui.vertical(|ui| redaction_ui(ui, state, dialog));
            ui.end_row();
            let save_label = ui.label("Save to");
            ui.horizontal(|ui| {
                let mut path = dialog.path().to_owned();
                let field = ui
                    .add(egui::TextEdit::singleline(&mut path).desired_width(380.0))
                    .labelled_by(save_label.id);
                if field.changed() {
                    apply(dialog, ExportCommand::SetPath(path));
                }
                if ui
                    .button("Browse…")
                    .on_hover_text(
                        "The system's file dialog (through the XDG desktop portal); \
                         where none shows, the app's own",
                    )
                    .clicked()
                    && let Some(path) = picker.save_file(&PathBuf::from(dialog.path().trim()))
                {
                    apply(dialog, ExportCommand::PickPath(path.display().to_string()));
                }
            });
            ui.end_row();
        });
    let request = dialog.request(state);
    let path = PathBuf::from(dialog.path().trim());
    if path.exists() {
        let mut replace = dialog.replace();
        if ui
            .checkbox(&mut replace, format!("Replace {}", path.display()))
            .changed()
        {
            apply(dialog, ExportCommand::SetReplace(replace));
        }
    }
    ui.horizontal(|ui| {
        let ready = dialog.not_ready(state).is_none();
        if ui.add_enabled(ready, egui::Button::new("Export")).clicked() {
            apply(dialog, ExportCommand::Run);
        }
        if ui.button("Close").clicked() {
            apply(dialog, ExportCommand::Close);
        }
    });
    match dialog.result() {
        Some(Ok(message)) => {
            ui.label(message);
        }
        Some(Err(error)) => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        None => {}
    }
    ui.separator();
    match &request {
        Ok(request) => preview_ui(ui, state, doc, dialog, request),
        Err(why) => {
            ui.weak(format!("Nothing to export: {why}."));
        }
    }
}

fn redaction_ui(ui: &mut Ui, state: &AppState, dialog: &mut ExportDialog) {
    let recording = dialog.format() == Format::Recording;
    let mut drop_headers = dialog.drop_headers();
    if ui
        .add_enabled(
            recording,
            egui::Checkbox::new(&mut drop_headers, "Drop the request and response headers"),
        )
        .on_disabled_hover_text("Only a recording export carries headers")
        .on_hover_text(
            "A recording export then stores no headers at all (secrets are always redacted)",
        )
        .changed()
    {
        dialog.apply(ExportCommand::SetDropHeaders(drop_headers), state);
    }
    let mut commands = Vec::new();
    for (i, (pointer, replacement)) in dialog.redactions().iter().enumerate() {
        let (mut pointer, mut replacement) = (pointer.clone(), replacement.clone());
        ui.horizontal(|ui| {
            let pointer_label = ui.label("Pointer");
            let edited_pointer = ui
                .add(
                    egui::TextEdit::singleline(&mut pointer)
                        .hint_text("/content/apiKey")
                        .desired_width(200.0),
                )
                .labelled_by(pointer_label.id)
                .changed();
            let with_label = ui.label("with");
            let edited_replacement = ui
                .add(
                    egui::TextEdit::singleline(&mut replacement)
                        .hint_text("\"[REDACTED]\"")
                        .desired_width(140.0),
                )
                .labelled_by(with_label.id)
                .changed();
            if edited_pointer || edited_replacement {
                commands.push(ExportCommand::EditRedaction(
                    i,
                    pointer.clone(),
                    replacement.clone(),
                ));
            }
            if ui.small_button("Remove").clicked() {
                commands.push(ExportCommand::RemoveRedaction(i));
            }
        });
    }
    if ui
        .small_button("Replace values at a JSON pointer…")
        .on_hover_text("In every exported event where the pointer resolves")
        .clicked()
    {
        commands.push(ExportCommand::AddRedaction(String::new(), String::new()));
    }
    for command in commands {
        dialog.apply(command, state);
    }
}

fn preview_ui(
    ui: &mut Ui,
    state: &AppState,
    doc: &Doc,
    dialog: &mut ExportDialog,
    request: &ExportRequest,
) {
    dialog.drop_stale_result();
    let auto = doc.num_events() <= AUTO_PREVIEW_EVENTS;
    ui.horizontal(|ui| {
        ui.label(RichText::new("Preview").strong());
        let asked = !auto && ui.button("Preview").clicked();
        dialog.refresh_preview(state, doc, request, asked);
    });
    let Some((preview, fresh)) = dialog.preview(state) else {
        ui.weak("A long stream: press Preview to see what will be written.");
        return;
    };
    if !fresh {
        ui.weak("The fields changed since this preview.");
    }
    match preview {
        Ok(preview) => {
            let mut line = format!("{} events", thousands(preview.num_events as u64));
            if let Some(bytes) = preview.total_bytes {
                line.push_str(&format!(", {bytes} bytes"));
            }
            if preview.truncated {
                line.push_str(&format!(" (first {} KiB shown)", PREVIEW_BYTES / 1024));
            }
            ui.weak(line);
            for note in preview.redaction.notes() {
                ui.weak(note);
            }
            egui::ScrollArea::both()
                .id_salt("export_preview")
                .auto_shrink([false, false])
                .max_height(ui.available_height().max(120.0))
                .show(ui, |ui| {
                    ui.add(
                        egui::Label::new(RichText::new(preview.text.as_str()).monospace())
                            .wrap_mode(egui::TextWrapMode::Extend),
                    );
                });
        }
        Err(error) => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
    }
}
