//! The table of actions ([`crate::app_model::actions::ACTIONS`]) drawn:
//! its keys as egui's, the keys overlay (`?` or F1) and the command palette
//! (Ctrl+K, Ctrl+Shift+P). The model owns the table, without egui; this
//! module only converts and draws it (issue 43, point 1).

use egui::{Key, RichText, Ui};

use crate::app_model::actions::{
    self, ACTIONS, Action, ActionId, KeyChord, KeyName, Palette, Trigger,
};

/// egui's key for a key of the table.
pub fn egui_key(key: KeyName) -> Option<Key> {
    Some(match key {
        KeyName::ArrowLeft => Key::ArrowLeft,
        KeyName::ArrowRight => Key::ArrowRight,
        KeyName::ArrowUp => Key::ArrowUp,
        KeyName::ArrowDown => Key::ArrowDown,
        KeyName::Home => Key::Home,
        KeyName::End => Key::End,
        KeyName::PageUp => Key::PageUp,
        KeyName::PageDown => Key::PageDown,
        KeyName::Space => Key::Space,
        KeyName::Escape => Key::Escape,
        KeyName::F1 => Key::F1,
        KeyName::F3 => Key::F3,
        KeyName::Questionmark => Key::Questionmark,
        KeyName::OpenBracket => Key::OpenBracket,
        KeyName::CloseBracket => Key::CloseBracket,
        KeyName::Letter(letter) => return Key::from_name(&letter.to_ascii_uppercase().to_string()),
    })
}

/// The table's name for an egui key, if the table can name it.
pub fn key_name_of(key: Key) -> Option<KeyName> {
    Some(match key {
        Key::ArrowLeft => KeyName::ArrowLeft,
        Key::ArrowRight => KeyName::ArrowRight,
        Key::ArrowUp => KeyName::ArrowUp,
        Key::ArrowDown => KeyName::ArrowDown,
        Key::Home => KeyName::Home,
        Key::End => KeyName::End,
        Key::PageUp => KeyName::PageUp,
        Key::PageDown => KeyName::PageDown,
        Key::Space => KeyName::Space,
        Key::Escape => KeyName::Escape,
        Key::F1 => KeyName::F1,
        Key::F3 => KeyName::F3,
        Key::Questionmark => KeyName::Questionmark,
        Key::OpenBracket => KeyName::OpenBracket,
        Key::CloseBracket => KeyName::CloseBracket,
        other => {
            let mut letters = other.name().chars();
            match (letters.next(), letters.next()) {
                (Some(letter), None) if letter.is_ascii_alphabetic() => {
                    KeyName::Letter(letter.to_ascii_lowercase())
                }
                _ => return None,
            }
        }
    })
}

/// The modifiers of a chord, as egui's.
pub fn egui_modifiers(chord: KeyChord) -> egui::Modifiers {
    let mut modifiers = egui::Modifiers::NONE;
    if chord.ctrl {
        modifiers |= egui::Modifiers::COMMAND;
    }
    if chord.shift {
        modifiers |= egui::Modifiers::SHIFT;
    }
    modifiers
}

/// A trigger as this platform writes it: Ctrl chords by egui (⌘ on a Mac),
/// the rest as the table does.
pub fn trigger_text(ctx: &egui::Context, trigger: Trigger) -> String {
    match trigger {
        Trigger::Key(chord) if chord.ctrl => match egui_key(chord.key) {
            Some(key) => {
                ctx.format_shortcut(&egui::KeyboardShortcut::new(egui_modifiers(chord), key))
            }
            None => chord.label(),
        },
        other => other.label(),
    }
}

/// All the triggers of an action, as this platform writes them.
pub fn triggers_text(ctx: &egui::Context, action: &Action) -> String {
    action
        .triggers
        .iter()
        .map(|&trigger| trigger_text(ctx, trigger))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The shortcut a menu entry shows: its first key.
pub fn shortcut_text(ctx: &egui::Context, action: &Action) -> Option<String> {
    action
        .chords()
        .next()
        .map(|chord| trigger_text(ctx, Trigger::Key(chord)))
}

/// The keys overlay's contents: one line per action done with a key or a
/// gesture.
pub fn keys_ui(ui: &mut Ui) {
    ui.heading("Keys");
    ui.weak("The plain keys act when no text field has the keyboard");
    ui.add_space(4.0);
    egui::ScrollArea::vertical()
        .max_height(ui.ctx().content_rect().height() * 0.75)
        .show(ui, |ui| {
            egui::Grid::new("keys-grid")
                .num_columns(2)
                .striped(true)
                .show(ui, |ui| {
                    for action in ACTIONS.iter().filter(|a| !a.triggers.is_empty()) {
                        ui.label(
                            RichText::new(triggers_text(ui.ctx(), action))
                                .monospace()
                                .strong(),
                        );
                        ui.label(action.help);
                        ui.end_row();
                    }
                });
        });
    ui.weak("Every action, keys or none: Ctrl+K");
}

/// The command palette: a filter, then every action it matches with its
/// keys; ↑/↓ move, Enter runs the selected one, a click runs one, Esc
/// closes (the modal). Returns the action to run.
pub fn palette_ui(ui: &mut Ui, palette: &mut Palette) -> Option<ActionId> {
    ui.set_width(520.0);
    let (down, up, enter) = ui.input(|i| {
        (
            i.key_pressed(Key::ArrowDown),
            i.key_pressed(Key::ArrowUp),
            i.key_pressed(Key::Enter),
        )
    });
    let mut filter = palette.filter.clone();
    let field = ui.add(
        egui::TextEdit::singleline(&mut filter)
            .id(egui::Id::unique("command-palette-filter"))
            .hint_text("Type to filter the actions")
            .desired_width(f32::INFINITY),
    );
    // The field keeps the keyboard: ↑/↓ and Enter are read above.
    field.request_focus();
    palette.set_filter(filter);
    if down {
        palette.move_selection(1);
    }
    if up {
        palette.move_selection(-1);
    }
    let mut run = None;
    if enter
        && let Some(action) = palette.selected_action()
        && action.runs_from_palette()
    {
        run = Some(action.id);
    }
    ui.add_space(4.0);
    let matches = palette.matches();
    if matches.is_empty() {
        ui.weak("No action matches");
    }
    egui::ScrollArea::vertical()
        .max_height(360.0)
        .show(ui, |ui| {
            egui::Grid::new("command-palette-grid")
                .num_columns(3)
                .show(ui, |ui| {
                    for (i, action) in matches.iter().enumerate() {
                        let selected = i == palette.selected;
                        let row = if action.runs_from_palette() {
                            ui.selectable_label(selected, action.name)
                        } else {
                            ui.add_enabled(false, egui::Button::selectable(selected, action.name))
                                .on_disabled_hover_text("A gesture on the timeline")
                        };
                        if selected && (up || down) {
                            row.scroll_to_me(None);
                        }
                        let row = row.on_hover_text(action.help);
                        if row.clicked() {
                            run = Some(action.id);
                        }
                        ui.label(
                            RichText::new(triggers_text(ui.ctx(), action))
                                .monospace()
                                .strong(),
                        );
                        ui.weak(actions::placement_label(action.placement));
                        ui.end_row();
                    }
                });
        });
    run
}
