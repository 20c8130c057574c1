//! The compare tab: what A and B are, where they first part (in the
//! events, in the state), the two timelines linked, and A's state at the
//! cursor beside B's at the aligned step, with the patch from one to the
//! other (the diff view's widgets).

use egui::{RichText, Ui};

use super::strips;
use crate::app_model::command::Command;
use crate::app_model::compare_with::{CompareCommand, Compared};
use crate::app_model::document::Doc;
use crate::app_model::state::AppState;
use crate::app_model::time_control::TimeCommand;
use crate::app_model::words;
use crate::compare::{DifferenceKind, EventMatch, StreamComparison};
use crate::diagnostic::Seq;
use crate::ui::compare::{counts, patch_ui, side_ui, sides_and_patch_ui};

/// The compare tab.
pub fn compare_view_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    let compare = state.compare_with();
    if let Some(path) = compare.comparing() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(format!("Comparing with {}…", path.display()));
        });
        return;
    }
    let (Some(compared), Some(doc)) = (compare.compared(), state.doc()) else {
        ui.label(
            "Nothing compared: File › Compare with… opens a second recording or stream (B) \
             beside this one (A), aligned event by event",
        );
        return;
    };
    let comparison = &compared.comparison;
    let a_step = state.step();
    let b_step = compared.b_step(a_step);
    // In a small window the parts above leave the two sides and the patch
    // too little room: the tab scrolls, and they keep their least height
    // (issue 43: at 1024×700 the patch was out of reach).
    let viewport_height = ui.available_height();
    egui::ScrollArea::vertical()
        .id_salt("compare_view")
        .auto_shrink(false)
        .show(ui, |ui| {
            let top = ui.min_rect().top();
            header_ui(ui, doc, compared, state.wide_diff(), commands);
            navigation_ui(ui, comparison, a_step, b_step, commands);
            ui.add_space(4.0);
            strips::strips_ui(ui, comparison, a_step, b_step, commands);
            legend_ui(ui);
            ui.separator();
            steps_ui(ui, doc, compared, a_step, b_step);
            scope_ui(ui, state, commands);
            let used = ui.cursor().top() - top;
            let height = (viewport_height - used).max(MIN_DIFF_HEIGHT);
            ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
                diff_ui(ui, compared, a_step, b_step, commands);
            });
        });
}

/// The least height of the two sides and the patch.
const MIN_DIFF_HEIGHT: f32 = 320.0;

fn side_name(doc: &Doc) -> String {
    let name = doc.path.file_name().map_or_else(
        || doc.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match doc.session {
        Some(session) if doc.sessions.len() > 1 || doc.source.exchanges.len() > 1 => {
            format!("{name} (session {session})")
        }
        _ => name,
    }
}

fn header_ui(
    ui: &mut Ui,
    a: &Doc,
    compared: &Compared,
    state_wide: bool,
    commands: &mut Vec<Command>,
) {
    let comparison = &compared.comparison;
    ui.horizontal_wrapped(|ui| {
        for (side, doc, (outcome, fatal)) in [
            ("A", a, comparison.outcomes[0]),
            ("B", &*compared.doc, comparison.outcomes[1]),
        ] {
            // Each part whole, on the next row when this one is full.
            let name = RichText::new(format!("{side}: {}", side_name(doc))).strong();
            ui.add(egui::Label::new(name).extend())
                .on_hover_text(doc.path.display().to_string());
            let ended = match fatal {
                Some(seq) => format!("failed at step {seq}"),
                None => outcome.as_str().to_owned(),
            };
            let events = words::count(doc.num_events(), "event", "events");
            ui.add(egui::Label::new(RichText::new(format!("{events}, {ended}")).weak()).extend());
            ui.separator();
        }
        let mut wide = state_wide;
        if ui
            .checkbox(&mut wide, "Full width")
            .on_hover_text("Hide the event list and the right panel while comparing")
            .changed()
        {
            commands.push(Command::SetWideDiff(wide));
        }
        if ui
            .button("Close comparison")
            .on_hover_text("Forget B")
            .clicked()
        {
            commands.push(Command::Compare(CompareCommand::Close));
        }
    });
    ui.horizontal_wrapped(|ui| {
        if comparison.agree() {
            ui.label(RichText::new("The two agree").strong())
                .on_hover_text("The same events (timestamps aside), the same state at every step");
            return;
        }
        ui.label(format!(
            "{} aligned · {} changed · {} only in A · {} only in B",
            comparison.num_aligned(),
            comparison.count(DifferenceKind::Changed),
            comparison.count(DifferenceKind::OnlyInA),
            comparison.count(DifferenceKind::OnlyInB),
        ))
        .on_hover_text(
            "Events are aligned by type, messageId, toolCallId and order; timestamps are \
             not compared",
        );
        if !comparison.alignment_exact {
            ui.label(RichText::new("· alignment approximate").weak())
                .on_hover_text(
                    "The streams differ too much for the shortest alignment to be searched \
                     for: this one is valid but may pair fewer events than could be",
                );
        }
    });
}

/// Puts A at `a` and B at `b` (a pair of aligned steps).
fn go_to_pair(comparison: &StreamComparison, a: Seq, b: Seq, commands: &mut Vec<Command>) {
    commands.push(Command::Time(TimeCommand::Set(a)));
    if comparison.alignment.b_of_a(a) != b {
        commands.push(Command::Compare(CompareCommand::SetB(b)));
    }
}

fn navigation_ui(
    ui: &mut Ui,
    comparison: &StreamComparison,
    a_step: Seq,
    b_step: Seq,
    commands: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
        let first = comparison.first_event_divergence();
        let text = match first {
            Some(d) => format!("First event divergence: A {} / B {}", d.a, d.b),
            None => "The events agree".to_owned(),
        };
        let button = ui.add_enabled(first.is_some(), egui::Button::new(text));
        if let Some(d) = first
            && button
                .on_hover_text(format!("{} {}", d.key.label(), kind_text(d.kind)))
                .clicked()
        {
            go_to_pair(comparison, d.a, d.b, commands);
        }
        let state = comparison.first_state_divergence.as_ref();
        let text = match state {
            Some(d) => format!("First state divergence: A {} / B {}", d.a, d.b),
            None => "The states agree".to_owned(),
        };
        let button = ui.add_enabled(state.is_some(), egui::Button::new(text));
        if let Some(d) = state
            && button
                .on_hover_text(state_text(&d.messages, d.state))
                .clicked()
        {
            go_to_pair(comparison, d.a, d.b, commands);
        }
        ui.separator();
        let previous = comparison.previous_difference(a_step, b_step);
        if ui
            .add_enabled(previous.is_some(), egui::Button::new("Previous difference"))
            .clicked()
            && let Some(d) = previous
        {
            go_to_pair(comparison, d.a, d.b, commands);
        }
        let next = comparison.next_difference(a_step, b_step);
        if ui
            .add_enabled(next.is_some(), egui::Button::new("Next difference"))
            .clicked()
            && let Some(d) = next
        {
            go_to_pair(comparison, d.a, d.b, commands);
        }
    });
}

fn kind_text(kind: DifferenceKind) -> &'static str {
    match kind {
        DifferenceKind::Changed => "changed",
        DifferenceKind::OnlyInA => "only in A",
        DifferenceKind::OnlyInB => "only in B",
    }
}

fn state_text(messages: &[String], state: bool) -> String {
    let mut what: Vec<String> = messages.iter().map(|id| format!("message {id}")).collect();
    if state {
        what.push("the state".to_owned());
    }
    if what.is_empty() {
        "the order of the messages differs".to_owned()
    } else {
        format!("{} differ", what.join(", "))
    }
}

fn legend_ui(ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        for (event_match, text) in [
            (EventMatch::Same, "the same"),
            (EventMatch::Changed, "changed"),
            (EventMatch::Only, "in one stream only"),
        ] {
            let color = crate::ui::theme::compare_color(ui.visuals(), event_match);
            let (rect, _) = ui.allocate_exact_size(egui::vec2(4.0, 12.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 0.0, color);
            ui.weak(text);
        }
        ui.weak("· click A to move both, B to move B (and A to the aligned step)");
    });
}

/// The event at a step of a document, as a short label.
fn event_label(doc: &Doc, step: Seq) -> String {
    if step == Seq::START {
        return "the start".to_owned();
    }
    let Some(raw) = doc.raw(step) else {
        return "past the end".to_owned();
    };
    let keys = crate::input::EventKeys::of(&raw);
    let mut label = keys
        .event_type
        .as_deref()
        .unwrap_or("(not an event)")
        .to_owned();
    if let Some(id) = keys.message_id.as_deref() {
        label.push(' ');
        label.push_str(id);
    }
    label
}

fn steps_ui(ui: &mut Ui, a: &Doc, compared: &Compared, a_step: Seq, b_step: Seq) {
    let alignment = &compared.comparison.alignment;
    let how = |m: Option<EventMatch>| match m {
        Some(EventMatch::Same) => "",
        Some(EventMatch::Changed) => " (changed)",
        Some(EventMatch::Only) => " (only here)",
        None => "",
    };
    ui.horizontal_wrapped(|ui| {
        ui.label(
            RichText::new(format!(
                "A step {a_step}: {}{}",
                event_label(a, a_step),
                how(alignment.match_of_a(a_step))
            ))
            .monospace(),
        );
        ui.separator();
        ui.label(
            RichText::new(format!(
                "B step {b_step}: {}{}",
                event_label(&compared.doc, b_step),
                how(alignment.match_of_b(b_step))
            ))
            .monospace(),
        );
    });
}

fn scope_ui(ui: &mut Ui, state: &AppState, commands: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        super::super::compare::diff_scope_ui(
            ui,
            state,
            commands,
            "compare_scope",
            "The activity the inspector shows (every message and the state when none \
             is), every message, or the shared state",
        );
        ui.weak("of A at the cursor with B at the aligned step");
    });
}

fn diff_ui(
    ui: &mut Ui,
    compared: &Compared,
    a_step: Seq,
    b_step: Seq,
    commands: &mut Vec<Command>,
) {
    let Some(view) = compared
        .diff()
        .filter(|v| v.key.0 == a_step && v.key.1 == b_step)
    else {
        ui.spinner();
        return;
    };
    let comparison = &view.comparison;
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(comparison.scope.label()).strong());
        if comparison.is_unchanged() {
            ui.label("no difference");
        } else {
            let (added, removed, changed) = counts(view);
            ui.label(format!(
                "{added} added · {removed} removed · {changed} changed"
            ));
        }
    });
    let tree_key = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        view.key.hash(&mut hasher);
        hasher.finish()
    };
    let a_title = format!("A at step {a_step}");
    let b_title = format!("B at step {b_step}");
    let sides = [
        ("compare_a", &a_title, &comparison.before, &view.left),
        ("compare_b", &b_title, &comparison.after, &view.right),
    ];
    sides_and_patch_ui(
        ui,
        |ui, index| {
            let (id, title, value, highlights) = sides[index];
            side_ui(ui, id, tree_key, title, value, highlights, None);
        },
        |ui| patch_ui(ui, view, commands),
    );
}
