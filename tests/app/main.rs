//! The desktop app, headless (`egui_kittest`): the views, and the tools
//! (marks and diffs, exports, bookmarks and notes, search, live follow).
//!
//! One test binary, so that egui links once (issue 16).

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/panel.rs"]
mod panel;

mod actions;
mod blame;
mod compare;
mod counts;
mod desktop;
mod entity_lanes;
mod follow;
mod interop;
mod layout;
mod open;
mod schemas;
mod scrub;
mod search_lanes;
mod serve;
mod time_axis;
mod timeline_input;
mod timing;
mod tools;
mod views;
mod whatif;
