//! The diff view: marks A and B, the selected activity (or the whole
//! conversation, or the state) at each, side by side with what was added,
//! removed and changed highlighted and the rest collapsed, and the RFC 6902
//! patch from A to B beside them, ready to copy.
//!
//! The comparison itself is the engine's ([`crate::diff::Comparison`]), the one the
//! `diff` command prints.

use crate::app_model::command::{MarkCommand, SearchCommand};
use crate::app_model::marks::CompareView;
use crate::app_model::time_control::TimeCommand;

use egui::{RichText, Ui};

use super::json_tree::JsonTree;

use crate::app_model::command::{CentralTab, Command, DiffScopeChoice, MarkSlot};
use crate::app_model::highlights::Highlights;
use crate::app_model::state::AppState;
use crate::diff::DiffScope;

/// The diff tab.
pub fn diff_view_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    if state.doc().is_none() {
        ui.weak("No stream open.");
        return;
    }
    toolbar_ui(ui, state, commands);
    ui.separator();
    let [a, b] = state.marks();
    if a.is_none() || b.is_none() {
        ui.label(
            "Put mark A and mark B on the timeline to compare two points: press a and b at \
             two steps, or drag with the right mouse button over a range of the timeline. \
             \"Diff with previous step\" (d) compares the cursor with the step before it.",
        );
        return;
    }
    if state.diff_scope().is_none() {
        ui.label(
            "The event at the cursor names no message: pin an activity (click it in the \
             conversation or on the timeline) to compare it",
        );
        return;
    }
    let Some(view) = state.comparison() else {
        ui.spinner();
        return;
    };
    let comparison = &view.comparison;
    // Each part whole, on the next row when this one is full.
    ui.horizontal_wrapped(|ui| {
        let whole = |ui: &mut Ui, text: RichText| ui.add(egui::Label::new(text).extend());
        whole(ui, RichText::new(comparison.scope.label()).strong());
        whole(
            ui,
            format!("step {} to step {}", comparison.from, comparison.to).into(),
        );
        if comparison.is_unchanged() {
            whole(ui, "no difference".into());
        } else {
            let (added, removed, changed) = counts(view);
            for text in [
                format!("{added} added"),
                format!("{removed} removed"),
                format!("{changed} changed"),
            ] {
                whole(ui, text.into());
            }
        }
    });
    let tree_key = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        view.key.hash(&mut hasher);
        hasher.finish()
    };
    let a_title = format!("A: step {}", comparison.from);
    let b_title = format!("B: step {}", comparison.to);
    // What "find the steps where this changes" searches: the message, or
    // the state (the conversation is not a document search reads).
    let searched = match &comparison.scope {
        DiffScope::Message(id) => Some(Some(id.clone())),
        DiffScope::State => Some(None),
        DiffScope::Conversation | DiffScope::Everything => None,
    };
    let mut picked = None;
    // Issue 17.2: which step set a value, on hover of either side.
    let ctx = ui.ctx().clone();
    let blame_target = searched.clone().map(|message| match message {
        Some(id) => crate::search::Target::Message(id),
        None => crate::search::Target::State,
    });
    let hooks = match (state.doc(), blame_target) {
        (Some(doc), Some(target)) => [comparison.from, comparison.to].map(|at| {
            Some(super::blame::hook(
                &ctx,
                doc,
                state.generation(),
                target.clone(),
                "",
                at,
            ))
        }),
        _ => [None, None],
    };
    let sides = [
        ("diff_a", &a_title, &comparison.before, &view.left),
        ("diff_b", &b_title, &comparison.after, &view.right),
    ];
    sides_and_patch_ui(
        ui,
        |ui, index| {
            let (id, title, value, highlights) = sides[index];
            if let Some(pointer) = side_ui(
                ui,
                id,
                tree_key,
                title,
                value,
                highlights,
                hooks[index].as_ref(),
            ) {
                picked = Some(pointer);
            }
        },
        |ui| patch_ui(ui, view, commands),
    );
    for hook in hooks.iter().flatten() {
        super::blame::go_to_clicked(hook, commands);
    }
    if let (Some(message), Some(pointer)) = (searched, picked) {
        commands.push(Command::Search(SearchCommand::Prefill { message, pointer }));
    }
}

/// From this width on, the patch shows beside the two sides; below it,
/// under them (issue 43: below about 1400 px the patch column was cut to
/// "Patc" and "Cop").
const PATCH_BESIDE_WIDTH: f32 = 720.0;

/// The two sides of a comparison (`side` draws side 0, then side 1) and
/// the patch between them: all three side by side in a wide centre, the
/// patch under the sides in a narrow one.
pub(super) fn sides_and_patch_ui(
    ui: &mut Ui,
    mut side: impl FnMut(&mut Ui, usize),
    patch: impl FnOnce(&mut Ui),
) {
    use egui_extras::{Size, StripBuilder};
    if ui.available_width() >= PATCH_BESIDE_WIDTH {
        StripBuilder::new(ui)
            .size(Size::relative(0.36).at_least(120.0))
            .size(Size::relative(0.36).at_least(120.0))
            .size(Size::remainder().at_least(160.0))
            .horizontal(|mut strip| {
                strip.cell(|ui| side(ui, 0));
                strip.cell(|ui| side(ui, 1));
                strip.cell(patch);
            });
    } else {
        StripBuilder::new(ui)
            .size(Size::relative(0.6).at_least(120.0))
            .size(Size::remainder().at_least(100.0))
            .vertical(|mut strip| {
                strip.strip(|builder| {
                    builder.sizes(Size::remainder(), 2).horizontal(|mut strip| {
                        strip.cell(|ui| side(ui, 0));
                        strip.cell(|ui| side(ui, 1));
                    });
                });
                strip.cell(patch);
            });
    }
}

pub(super) fn counts(view: &CompareView) -> (usize, usize, usize) {
    use crate::app_model::highlights::Mark;
    let count = |h: &Highlights, wanted: Mark| h.iter().filter(|(_, m)| *m == wanted).count();
    (
        count(&view.right, Mark::Added),
        count(&view.left, Mark::Removed),
        count(&view.right, Mark::Changed),
    )
}

pub(super) fn side_ui(
    ui: &mut Ui,
    id: &str,
    tree_key: u64,
    title: &str,
    value: &serde_json::Value,
    highlights: &Highlights,
    blame: Option<&super::json_tree::BlameHook<'_>>,
) -> Option<String> {
    ui.vertical(|ui| {
        ui.label(RichText::new(title).strong());
        egui::ScrollArea::both()
            .id_salt(id)
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if value.is_null() {
                    ui.weak("(absent)");
                    return None;
                }
                // A tree per comparison: what the user opened in one does
                // not stay open in the next.
                let mut tree = JsonTree::new(format!("{id}-{tree_key}"), value)
                    .highlights(highlights)
                    .collapse_unchanged();
                // A searchable side (a message, the state) has blame too.
                if let Some(blame) = blame {
                    tree = tree.search_menu("").blame(blame);
                }
                tree.show(ui)
            })
            .inner
    })
    .inner
}

pub(super) fn patch_ui(ui: &mut Ui, view: &CompareView, commands: &mut Vec<Command>) {
    ui.vertical(|ui| {
        ui.label(RichText::new("Patch from A to B").strong())
            .on_hover_text("RFC 6902: applied to A, it gives B");
        ui.horizontal(|ui| {
            if ui
                .button("Copy patch")
                .on_hover_text("Copy the patch (JSON) to the clipboard")
                .clicked()
            {
                ui.ctx().copy_text(view.patch_text.clone());
                commands.push(Command::Notify(format!(
                    "Patch copied: {} operations",
                    view.comparison.patch.0.len()
                )));
            }
            let num_ops = view.comparison.patch.0.len();
            ui.weak(format!(
                "{num_ops} operation{}",
                if num_ops == 1 { "" } else { "s" }
            ));
        });
        egui::ScrollArea::both()
            .id_salt("diff_patch")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(RichText::new(view.patch_text.as_str()).monospace())
                        .wrap_mode(egui::TextWrapMode::Extend),
                );
            });
    });
}

fn toolbar_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    // Three rows in a narrow centre, each whole (issue 43: at 1024×700 the
    // toolbar wrapped to four rows, a mark's step cut from its name).
    let narrow = ui.available_width() < PATCH_BESIDE_WIDTH;
    ui.horizontal_wrapped(|ui| {
        let step = state.step();
        for (slot, name, key) in [(MarkSlot::A, "A", "a"), (MarkSlot::B, "B", "b")] {
            let current = state.marks()[slot as usize];
            let (text, hover) = match current {
                Some(seq) => (
                    format!("{name}: {seq}"),
                    format!("Mark {name} is at step {seq}"),
                ),
                None => (format!("{name}: -"), format!("Mark {name} is not set")),
            };
            ui.add(egui::Label::new(RichText::new(text).monospace()).extend())
                .on_hover_text(hover);
            if ui
                .small_button(format!("Set ({key})"))
                .on_hover_text(format!(
                    "Put mark {name} at the cursor, step {step} ({key})"
                ))
                .clicked()
            {
                commands.push(Command::Mark(MarkCommand::Set(slot, Some(step))));
            }
            if let Some(seq) = current
                && ui
                    .small_button("Go")
                    .on_hover_text(format!("Move the cursor to step {seq}"))
                    .clicked()
            {
                commands.push(Command::Time(TimeCommand::Set(seq)));
            }
            ui.add_space(6.0);
        }
        if narrow {
            ui.end_row();
        }
        if ui
            .button("Diff with previous step (d)")
            .on_hover_text("A = the step before the cursor, B = the cursor")
            .clicked()
        {
            commands.push(Command::Mark(MarkCommand::DiffWithPrevious));
        }
        if state.marks().iter().any(Option::is_some) && ui.button("Clear marks").clicked() {
            commands.push(Command::Mark(MarkCommand::Set(MarkSlot::A, None)));
            commands.push(Command::Mark(MarkCommand::Set(MarkSlot::B, None)));
        }
        if narrow {
            ui.end_row();
        }
        let mut wide = state.wide_diff();
        if ui
            .checkbox(&mut wide, "Full width")
            .on_hover_text("Hide the event list and the right panel while comparing")
            .changed()
        {
            commands.push(Command::SetWideDiff(wide));
        }
        diff_scope_ui(
            ui,
            state,
            commands,
            "diff_scope",
            "The activity (or message) the inspector shows, followed or pinned; every \
             message; or the shared state",
        );
    });
}

/// "Compare [the activity | the conversation | the state]": the diff's
/// scope, shared by the diff view and the compare tab.
pub(super) fn diff_scope_ui(
    ui: &mut Ui,
    state: &AppState,
    commands: &mut Vec<Command>,
    id_salt: &str,
    hover: &str,
) {
    let label = ui.label("Compare");
    let scopes = [
        (DiffScopeChoice::Activity, "the activity"),
        (DiffScopeChoice::Conversation, "the conversation"),
        (DiffScopeChoice::State, "the state"),
    ];
    let current = scopes
        .iter()
        .find(|(choice, _)| *choice == state.diff_scope_choice())
        .map_or("", |(_, name)| name);
    egui::ComboBox::from_id_salt(id_salt)
        .selected_text(current)
        .show_ui(ui, |ui| {
            for (choice, name) in scopes {
                if ui
                    .selectable_label(state.diff_scope_choice() == choice, name)
                    .clicked()
                {
                    commands.push(Command::SetDiffScope(choice));
                }
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text(hover);
}

/// The centre's tab bar: the conversation, or the diff.
pub fn central_tabs_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    // Wrapped, never wider than the centre: a row wider than it widened
    // everything under it, which the side panel then cut (issue 43).
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        ui.spacing_mut().button_padding.x = 3.0;
        let mut tabs = vec![
            (CentralTab::Conversation, "Conversation", None),
            (CentralTab::Diff, "Diff A..B", None),
            (CentralTab::Timing, "Timing", None),
        ];
        if state.compare_with().is_open() {
            tabs.push((
                CentralTab::Compare,
                "Compare",
                Some("This stream (A) beside the one of File › Compare with… (B)"),
            ));
        }
        for (tab, label, hover) in tabs {
            let mut response = ui.selectable_label(state.central_tab() == tab, label);
            if let Some(hover) = hover {
                response = response.on_hover_text(hover);
            }
            if response.clicked() {
                commands.push(Command::ShowCentral(tab));
            }
        }
    });
}
