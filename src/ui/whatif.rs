//! "What if this event were different?" (issue 41), drawn: the entries of
//! the context menus of an event (event list row, timeline mark,
//! inspector), the JSON editor of an event, the chips of the edits above
//! the timeline with the toggle between recorded and edited, and the
//! "edited" marker. The edits themselves are the model's
//! ([`crate::app_model::whatif`]).

use egui::RichText;

use crate::app_model::command::Command;
use crate::app_model::state::AppState;
use crate::app_model::time_control::TimeCommand;
use crate::app_model::whatif::{WhatIf, WhatIfCommand};
use crate::diagnostic::Seq;

fn whatif(command: WhatIfCommand) -> Command {
    Command::WhatIf(command)
}

/// The "What if…" entries of an event's context menu: skip it, edit it,
/// insert an event before it. The cursor goes to the event first, so that
/// the edited replay shows there at once.
pub fn event_menu_ui(ui: &mut egui::Ui, step: Seq, commands: &mut Vec<Command>) {
    let go = Command::Time(TimeCommand::Set(step));
    let run_input = step == Seq::START;
    let skip = if run_input {
        "Skip the run input"
    } else {
        "Skip this event"
    };
    if ui
        .button(skip)
        .on_hover_text("Replay as if it had not been sent (the recording is not changed)")
        .clicked()
    {
        commands.push(go.clone());
        commands.push(whatif(WhatIfCommand::Skip(step)));
        ui.close();
    }
    let edit = if run_input {
        "Edit the run input…"
    } else {
        "Edit this event…"
    };
    if ui
        .button(edit)
        .on_hover_text("Replay with its JSON changed (the recording is not changed)")
        .clicked()
    {
        commands.push(go.clone());
        commands.push(whatif(WhatIfCommand::Edit(step)));
        ui.close();
    }
    if !run_input
        && ui
            .button("Insert an event before…")
            .on_hover_text("Replay with another event before this one")
            .clicked()
    {
        commands.push(go);
        commands.push(whatif(WhatIfCommand::InsertBefore(step)));
        ui.close();
    }
}

/// The id of the editor's text field.
pub fn editor_text_id() -> egui::Id {
    egui::Id::unique("whatif-editor-text")
}

/// The JSON editor of an event, while open: Apply checks the text as an
/// AG-UI event and applies the edit, or shows why not in red under the
/// text; Cancel and Esc close it unchanged.
pub fn editor_window_ui(ctx: &egui::Context, state: &AppState, commands: &mut Vec<Command>) {
    let Some(editor) = state.whatif().editor() else {
        return;
    };
    let mut open = true;
    egui::Window::new(editor.title())
        .id(egui::Id::unique("whatif-editor"))
        .open(&mut open)
        .collapsible(false)
        .default_width(560.0)
        .show(ctx, |ui| {
            let label = ui.label(
                "The event as JSON: any object with a string \"type\"; the replay judges the \
                 rest as it would in a stream",
            );
            let mut text = editor.text.clone();
            let response = egui::ScrollArea::vertical()
                .max_height(360.0)
                .show(ui, |ui| {
                    ui.add(
                        egui::TextEdit::multiline(&mut text)
                            .id(editor_text_id())
                            .code_editor()
                            .desired_rows(12)
                            .desired_width(f32::INFINITY),
                    )
                    .labelled_by(label.id)
                })
                .inner;
            if response.changed() {
                commands.push(whatif(WhatIfCommand::SetText(text)));
            }
            if let Some(error) = &editor.error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            ui.horizontal(|ui| {
                if ui
                    .button("Apply")
                    .on_hover_text("Check the event and replay with it")
                    .clicked()
                {
                    commands.push(whatif(WhatIfCommand::ApplyEditor));
                }
                if ui.button("Cancel").on_hover_text("Esc").clicked() {
                    commands.push(whatif(WhatIfCommand::CancelEditor));
                }
            });
        });
    if !open || ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
        commands.push(whatif(WhatIfCommand::CancelEditor));
    }
}

/// The edits above the timeline, while there are some: the toggle
/// between the recording and the edited stream (E), one chip per edit (a
/// click removes it), Clear, Compare with the recording, and Save into
/// the recording (a `.rec` file only).
pub fn chips_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let whatif_state = state.whatif();
    if whatif_state.edits().is_empty() {
        return;
    }
    let showing = whatif_state.showing_edited();
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Edits").strong());
        let toggle_help = "E: the stream as recorded, or as edited";
        if ui
            .selectable_label(!showing, "Recorded")
            .on_hover_text(toggle_help)
            .clicked()
            && showing
        {
            commands.push(whatif(WhatIfCommand::Toggle));
        }
        if ui
            .selectable_label(showing, "Edited")
            .on_hover_text(toggle_help)
            .clicked()
            && !showing
        {
            commands.push(whatif(WhatIfCommand::Toggle));
        }
        ui.separator();
        for (i, edit) in whatif_state.edits().iter().enumerate() {
            let chip = format!("{} ×", WhatIf::chip_label(edit));
            let hover = match edit.text() {
                Some(text) => format!("Remove this edit\n\n{}", text.trim()),
                None => "Remove this edit".to_owned(),
            };
            if ui
                .add(egui::Button::new(chip).small().corner_radius(8.0))
                .on_hover_text(hover)
                .clicked()
            {
                commands.push(whatif(WhatIfCommand::Remove(i)));
            }
        }
        if ui
            .small_button("Clear")
            .on_hover_text("Remove every edit")
            .clicked()
        {
            commands.push(whatif(WhatIfCommand::Clear));
        }
        ui.separator();
        if ui
            .small_button("Compare with the recording")
            .on_hover_text("The edited stream beside the recording, from the first divergence")
            .clicked()
        {
            commands.push(whatif(WhatIfCommand::CompareWithRecording));
        }
        let is_recording = state.doc().is_some_and(|d| d.recording.is_some());
        if is_recording {
            if ui
                .small_button("Save into the recording")
                .on_hover_text(
                    "Keep the edits in the .rec file (its events unchanged), restored when it \
                     opens",
                )
                .clicked()
            {
                commands.push(whatif(WhatIfCommand::Save));
            }
        } else {
            ui.weak("edits are saved only in recordings (.rec)");
        }
    });
}

/// "edited", in the marker's colour, where a step shows that is not as
/// recorded.
pub fn edited_marker_ui(ui: &mut egui::Ui) -> egui::Response {
    ui.label(
        RichText::new("edited")
            .color(ui.visuals().warn_fg_color)
            .strong(),
    )
}
