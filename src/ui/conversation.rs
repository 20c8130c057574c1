//! The conversation panel.

use super::state::{AppState, Command};

/// Draws the conversation panel.
pub fn conversation_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let _ = (state, commands);
    ui.label("conversation");
}
