//! The keys of the app, in one table: [`super::keyboard`] reads it to act,
//! the keys overlay (`?` or F1) reads it to list them (issue 13, point 12),
//! so a key cannot act without its help line.

use egui::{Key, RichText, Ui};

use crate::app_model::command::{Command, MarkSlot};
use crate::app_model::command::{MarkCommand, NoteCommand};
use crate::app_model::time_control::TimeCommand;

/// What a key does.
#[derive(Clone, Copy)]
pub enum Action {
    /// A command for the app state.
    Command(fn() -> Command),
    /// Shows or hides the keys overlay.
    ToggleKeys,
    /// Shows a tab of the right panel.
    ShowTab(super::RightTab),
}

/// One key (without Ctrl, Alt or Command).
pub struct Binding {
    /// The key.
    pub key: Key,
    /// Whether holding it repeats the action (stepping keys do; a held `m`
    /// must not write a bookmark per repeat).
    pub repeats: bool,
    /// What it does, for the overlay.
    pub help: &'static str,
    /// What it does.
    pub action: Action,
}

/// Every plain key.
pub const BINDINGS: &[Binding] = &[
    Binding {
        key: Key::ArrowRight,
        repeats: true,
        help: "Next step",
        action: Action::Command(|| Command::Time(TimeCommand::Step(1))),
    },
    Binding {
        key: Key::ArrowLeft,
        repeats: true,
        help: "Previous step",
        action: Action::Command(|| Command::Time(TimeCommand::Step(-1))),
    },
    Binding {
        key: Key::Home,
        repeats: false,
        help: "First step",
        action: Action::Command(|| Command::Time(TimeCommand::ToStart)),
    },
    Binding {
        key: Key::End,
        repeats: false,
        help: "Last step (and follow a live recording)",
        action: Action::Command(|| Command::Time(TimeCommand::ToEndAndFollow)),
    },
    Binding {
        key: Key::PageDown,
        repeats: true,
        help: "A tenth of the visible timeline forward (at least 10 steps)",
        action: Action::Command(|| Command::Time(TimeCommand::Page(1))),
    },
    Binding {
        key: Key::PageUp,
        repeats: true,
        help: "A tenth of the visible timeline back (at least 10 steps)",
        action: Action::Command(|| Command::Time(TimeCommand::Page(-1))),
    },
    Binding {
        key: Key::N,
        repeats: true,
        help: "Next diagnostic",
        action: Action::Command(|| Command::Time(TimeCommand::ToNextDiagnostic)),
    },
    Binding {
        key: Key::P,
        repeats: true,
        help: "Previous diagnostic",
        action: Action::Command(|| Command::Time(TimeCommand::ToPreviousDiagnostic)),
    },
    Binding {
        key: Key::Space,
        repeats: false,
        help: "Play or pause",
        action: Action::Command(|| Command::Time(TimeCommand::TogglePlay)),
    },
    Binding {
        key: Key::A,
        repeats: false,
        help: "Put mark A at the cursor",
        action: Action::Command(|| Command::Mark(MarkCommand::AtCursor(MarkSlot::A))),
    },
    Binding {
        key: Key::B,
        repeats: false,
        help: "Put mark B at the cursor",
        action: Action::Command(|| Command::Mark(MarkCommand::AtCursor(MarkSlot::B))),
    },
    Binding {
        key: Key::D,
        repeats: false,
        help: "Diff with the previous step",
        action: Action::Command(|| Command::Mark(MarkCommand::DiffWithPrevious)),
    },
    Binding {
        key: Key::M,
        repeats: false,
        help: "Bookmark the cursor",
        action: Action::Command(|| Command::Note(NoteCommand::AddBookmark(None))),
    },
    Binding {
        key: Key::OpenBracket,
        repeats: false,
        help: "Previous bookmark",
        action: Action::Command(|| Command::Note(NoteCommand::PreviousBookmark)),
    },
    Binding {
        key: Key::CloseBracket,
        repeats: false,
        help: "Next bookmark",
        action: Action::Command(|| Command::Note(NoteCommand::NextBookmark)),
    },
    Binding {
        key: Key::S,
        repeats: false,
        help: "Show the shared state at the cursor (State tab)",
        action: Action::ShowTab(super::RightTab::State),
    },
    Binding {
        key: Key::I,
        repeats: false,
        help: "Show the inspector",
        action: Action::ShowTab(super::RightTab::Inspector),
    },
    Binding {
        key: Key::F1,
        repeats: false,
        help: "Show or hide this list of keys",
        action: Action::ToggleKeys,
    },
    Binding {
        key: Key::Questionmark,
        repeats: false,
        help: "Show or hide this list of keys",
        action: Action::ToggleKeys,
    },
];

/// The keys with Ctrl (⌘ on a Mac), listed by the overlay too; the menus
/// that own them show them beside their entries.
pub const SHORTCUTS: &[(Key, &str)] = &[(Key::O, "Open…"), (Key::E, "Export repro…")];

/// The binding of `key`, if it has one.
pub fn binding_of(key: Key) -> Option<&'static Binding> {
    BINDINGS.iter().find(|binding| binding.key == key)
}

/// The name of a key as the overlay writes it.
pub fn key_name(key: Key) -> &'static str {
    match key {
        Key::ArrowRight => "→",
        Key::ArrowLeft => "←",
        Key::PageDown => "Page Down",
        Key::PageUp => "Page Up",
        Key::Space => "Space",
        other => other.symbol_or_name(),
    }
}

/// The overlay's contents: one line per key.
pub fn keys_ui(ui: &mut Ui) {
    ui.heading("Keys");
    ui.weak("They act when no text field has the keyboard");
    ui.add_space(4.0);
    egui::Grid::new("keys-grid")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for binding in BINDINGS {
                ui.label(RichText::new(key_name(binding.key)).monospace().strong());
                ui.label(binding.help);
                ui.end_row();
            }
            for &(key, help) in SHORTCUTS {
                let shortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, key);
                ui.label(
                    RichText::new(ui.ctx().format_shortcut(&shortcut))
                        .monospace()
                        .strong(),
                );
                ui.label(help);
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_bound_once() {
        for (i, binding) in BINDINGS.iter().enumerate() {
            assert!(
                BINDINGS[..i].iter().all(|other| other.key != binding.key),
                "{:?} is bound twice",
                binding.key
            );
            assert!(!binding.help.is_empty());
        }
    }
}
