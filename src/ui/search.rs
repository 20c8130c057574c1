//! The search tab: a JSON pointer of an activity (or of the state), a
//! condition and a value; "Find all" with its progress and the list of
//! matches; first, next and previous from the cursor. The search's state
//! is [`crate::app_model::search`].

use crate::app_model::command::SearchCommand;
use crate::app_model::json_text::compact_json;
use crate::app_model::search::{
    Condition, EMPTY_VALUE_MEANS, LIST_POLL, MatchList, SearchForm, SearchOutcome, describe_query,
    filter_ids,
};
use crate::app_model::words::thousands;

use egui::{RichText, Ui};

use crate::app_model::command::{Command, SearchFrom};
use crate::app_model::state::AppState;
use crate::app_model::time_control::TimeCommand;

/// The next (F3) or previous (Shift+F3) match of the query the fields
/// say, if they say one.
pub fn search_step(form: &SearchForm, from: SearchFrom, commands: &mut Vec<Command>) {
    if let Ok(query) = form.query() {
        commands.push(Command::Search(SearchCommand::Start(query, from)));
    }
}

/// The "In" box: a combo whose list is filtered by what is typed in it.
fn target_combo_ui(ui: &mut Ui, state: &AppState, form: &mut SearchForm, label: egui::Id) {
    let Some(doc) = state.doc() else { return };
    let selected = form
        .message
        .clone()
        .unwrap_or_else(|| "the state".to_owned());
    let focus_id = egui::Id::unique("search_target_filter_focused");
    let combo = egui::ComboBox::from_id_salt("search_target")
        .selected_text(selected)
        .width(220.0)
        .height(320.0)
        // A click in the filter must not close it; picking an id does.
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
        .show_ui(ui, |ui| {
            let lanes = doc.timeline.index().lanes();
            ui.horizontal(|ui| {
                let filter_label = ui.label("Filter");
                let filter = ui
                    .add(
                        egui::TextEdit::singleline(&mut form.target_filter)
                            .hint_text("type part of an id")
                            .desired_width(150.0),
                    )
                    .labelled_by(filter_label.id);
                // Typing filters at once: the field takes the keys as
                // the list opens.
                let focused_once = ui.data(|d| d.get_temp::<bool>(focus_id).unwrap_or(false));
                if !focused_once {
                    filter.request_focus();
                    ui.data_mut(|d| d.insert_temp(focus_id, true));
                }
            });
            let ids = filter_ids(
                lanes.iter().map(|l| l.message_id.as_str()),
                &form.target_filter,
            );
            ui.weak(format!(
                "{} of {} activities",
                thousands(ids.len() as u64),
                thousands(lanes.len() as u64)
            ));
            if ui
                .selectable_label(form.message.is_none(), "the state")
                .clicked()
            {
                form.message = None;
                form.picked = true;
                ui.close();
            }
            let row_height = ui.spacing().interact_size.y;
            egui::ScrollArea::vertical()
                .id_salt("search_target_ids")
                .max_height(260.0)
                .show_rows(ui, row_height, ids.len(), |ui, rows| {
                    for &id in &ids[rows] {
                        if ui
                            .selectable_label(form.message.as_deref() == Some(id), id)
                            .clicked()
                        {
                            form.message = Some(id.to_owned());
                            form.picked = true;
                            ui.close();
                        }
                    }
                });
        });
    if combo.inner.is_none() {
        ui.data_mut(|d| d.remove::<bool>(focus_id));
    }
    combo.response.labelled_by(label);
}

/// The search tab.
pub fn search_ui(
    ui: &mut Ui,
    state: &AppState,
    form: &mut SearchForm,
    commands: &mut Vec<Command>,
) {
    if state.doc().is_none() {
        ui.weak("No stream open.");
        return;
    }
    if !form.picked {
        form.message = state.selected_activity().map(str::to_owned);
    }
    let mut submit = None;
    let mut find_all = false;
    egui::Grid::new("search_form")
        .num_columns(2)
        .show(ui, |ui| {
            let in_label = ui.label("In");
            target_combo_ui(ui, state, form, in_label.id);
            ui.end_row();
            let pointer_label = ui.label("Pointer");
            let hint = if form.message.is_some() {
                "/content/status"
            } else {
                "/count"
            };
            let pointer = ui
                .add(
                    egui::TextEdit::singleline(&mut form.pointer)
                        .hint_text(hint)
                        .desired_width(220.0),
                )
                .labelled_by(pointer_label.id);
            if pointer.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                find_all = true;
            }
            ui.end_row();
            ui.label("Where it");
            ui.horizontal(|ui| {
                ui.radio_value(&mut form.condition, Condition::Exists, "exists");
                ui.radio_value(&mut form.condition, Condition::Equals, "equals");
                ui.radio_value(&mut form.condition, Condition::Contains, "contains");
            });
            ui.end_row();
            if form.condition != Condition::Exists {
                let value_label = ui.label("Value");
                let value = ui
                    .add(
                        egui::TextEdit::singleline(&mut form.value)
                            .hint_text("JSON: \"done\", 3, true, {…}")
                            .desired_width(220.0),
                    )
                    .labelled_by(value_label.id)
                    .on_hover_text(EMPTY_VALUE_MEANS);
                if value.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    find_all = true;
                }
                ui.end_row();
                if form.value.trim().is_empty() {
                    ui.label("");
                    ui.weak(EMPTY_VALUE_MEANS);
                    ui.end_row();
                }
            }
        });
    if form.message.is_some() {
        ui.weak("The pointer is into the message as `state --message` prints it: /content/…, /metadata/….");
    }
    let query = form.query();
    ui.horizontal_wrapped(|ui| {
        let ok = query.is_ok();
        if ui
            .add_enabled(ok, egui::Button::new(RichText::new("Find all").strong()))
            .on_hover_text("Every step where it holds, listed and marked on the timeline (Enter)")
            .clicked()
        {
            find_all = true;
        }
        for (from, label, hover) in [
            (SearchFrom::First, "First", "The first step where it holds"),
            (
                SearchFrom::Previous,
                "Previous",
                "The last match before the cursor (Shift+F3)",
            ),
            (
                SearchFrom::Next,
                "Next",
                "The first match after the cursor (F3)",
            ),
        ] {
            if ui
                .add_enabled(ok, egui::Button::new(label))
                .on_hover_text(hover)
                .clicked()
            {
                submit = Some(from);
            }
        }
    });
    match (&query, submit, find_all) {
        (Ok(query), _, true) => commands.push(Command::Search(SearchCommand::All(query.clone()))),
        (Ok(query), Some(from), false) => {
            commands.push(Command::Search(SearchCommand::Start(query.clone(), from)))
        }
        // Said once something is typed.
        (Err(error), ..) if !form.pointer.is_empty() || !form.value.is_empty() => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        _ => {}
    }
    if let Some(running) = state.search().running() {
        ui.horizontal(|ui| {
            ui.add(
                egui::ProgressBar::new(running.progress)
                    .desired_width(200.0)
                    .show_percentage(),
            );
            if ui.button("Cancel").clicked() {
                commands.push(Command::Search(SearchCommand::Cancel));
            }
        });
        ui.weak(format!(
            "{} ({:.1} s)",
            running.description,
            running.started.elapsed().as_secs_f32()
        ));
    }
    // An outcome is about the query that ran: edited fields hide it.
    let outcome = state
        .search()
        .outcome()
        .filter(|_| state.search().query() == query.as_ref().ok());
    match outcome {
        Some(SearchOutcome::Found {
            description,
            step,
            value,
        }) => {
            ui.label(RichText::new(format!("Step {}", thousands(step.get()))).strong());
            ui.weak(description);
            let value = value
                .as_ref()
                .map_or_else(|| "(absent)".to_owned(), |v| compact_json(v, 200));
            ui.label(RichText::new(value).monospace());
        }
        Some(SearchOutcome::NotFound { description }) => {
            ui.label("No match");
            ui.weak(description);
        }
        None => {}
    }
    if let Some(list) = state.search().list() {
        ui.separator();
        match_list_ui(ui, state, list, commands);
    }
}

/// What a list's matches are of, and how many.
fn list_heading(list: &MatchList) -> String {
    let count = match list.matches().len() {
        1 => "1 match".to_owned(),
        n => format!("{} matches", thousands(n as u64)),
    };
    format!("{count}: {}", describe_query(list.query()))
}

/// The matches of the last "find all": one row a step (the step and the
/// value, as `agui-replay find` prints them); a click goes there.
fn match_list_ui(ui: &mut Ui, state: &AppState, list: &MatchList, commands: &mut Vec<Command>) {
    ui.label(RichText::new(list_heading(list)).strong());
    if list.is_running() {
        ui.horizontal(|ui| {
            ui.add(
                egui::ProgressBar::new(list.progress())
                    .desired_width(200.0)
                    .show_percentage(),
            );
            if ui.button("Cancel").clicked() {
                commands.push(Command::Search(SearchCommand::Cancel));
            }
        });
        ui.weak(format!("searching… {:.1} s", list.elapsed().as_secs_f32()));
        ui.ctx().request_repaint_after(LIST_POLL);
    } else if list.was_cancelled() {
        ui.weak(format!(
            "Cancelled after {:.1} s: the matches found until then",
            list.elapsed().as_secs_f32()
        ));
    } else {
        ui.weak(format!(
            "Every event searched in {:.2} s · click a row to go there · F3 / Shift+F3: next / previous",
            list.elapsed().as_secs_f64()
        ));
    }
    let matches = list.matches();
    if matches.is_empty() {
        if !list.is_running() {
            ui.label("No match");
        }
        return;
    }
    // The match at or before the cursor is highlighted.
    let cursor = state.step();
    let current = matches.partition_point(|m| m.step <= cursor).checked_sub(1);
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace) + 4.0;
    egui::ScrollArea::vertical()
        .id_salt("search_matches")
        .auto_shrink([false, true])
        .show_rows(ui, row_height, matches.len(), |ui, rows| {
            for i in rows {
                let found = &matches[i];
                let value = found
                    .value
                    .as_ref()
                    .map_or_else(|| "(absent)".to_owned(), |v| compact_json(v, 120));
                let text = format!("step {}: {value}", thousands(found.step.get()));
                if ui
                    .selectable_label(current == Some(i), RichText::new(text).monospace())
                    .clicked()
                {
                    commands.push(Command::Time(TimeCommand::Set(found.step)));
                }
            }
        });
}
