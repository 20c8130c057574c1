//! The diagnostics panel.

use super::state::{AppState, Command};

/// Draws the diagnostics panel.
pub fn diagnostics_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let _ = (state, commands);
    ui.label("diagnostics");
}
