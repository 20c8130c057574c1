//! The app's model apart from its drawing: what the desktop app holds (the
//! document, the cursor, one state per feature), the commands that change
//! it, and how time moves. Panels (`crate::ui`) read it and push
//! [`command::Command`]s; this module draws nothing and knows nothing of egui
//! or of the panels (issue 44, point 3), so that it compiles and is tested
//! without the `app` feature.

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
pub mod search;
pub mod state;
#[cfg(test)]
pub mod test_support;
pub mod time_control;
pub mod words;
