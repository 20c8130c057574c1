//! The timeline panel.

use super::state::{AppState, Command};

/// Draws the timeline panel.
pub fn timeline_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let _ = (state, commands);
    ui.label("timeline");
}
