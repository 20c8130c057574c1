//! The event list.

use super::state::{AppState, Command, Doc, EventFilter};
use crate::diagnostic::Seq;

/// Draws the event list.
pub fn event_list_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let _ = (state, commands);
    ui.label("events");
}

/// The seqs of the events that pass `filter`.
pub fn filter_rows(doc: &Doc, filter: &EventFilter) -> Vec<Seq> {
    let _ = filter;
    (1..=doc.num_events()).map(Seq).collect()
}
