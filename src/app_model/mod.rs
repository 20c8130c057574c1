//! The app's model apart from its drawing: what the desktop app holds (the
//! document, the cursor, one state per feature: marks, bookmarks and notes,
//! search, the export dialog, the comparison with a second stream, live
//! follow), the commands that change it, and how time moves. The panels
//! (the `ui` module, under the `app` feature) read it and push
//! [`command::Command`]s; this module draws nothing, uses no UI toolkit and
//! imports no panel (issue 44, point 3), so that it compiles and is tested
//! without the `app` feature (`tests/engine/app_model.rs` keeps it so).

pub mod actions;
pub mod command;
pub mod compare_with;
pub mod document;
pub mod event_filter;
pub mod export_dialog;
pub mod follow;
pub mod highlights;
pub mod indexing;
pub mod json_text;
pub mod live;
pub mod marks;
pub mod memo;
pub mod notes;
pub mod schemas;
pub mod search;
pub mod seek;
pub mod state;
#[cfg(test)]
pub mod test_support;
pub mod time_axis;
pub mod time_control;
pub mod whatif;
pub mod words;
