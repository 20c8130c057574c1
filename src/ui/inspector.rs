//! The inspector panel.

use super::state::{AppState, Command};

/// Draws the inspector panel.
pub fn inspector_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let _ = (state, commands);
    ui.label("inspector");
}
