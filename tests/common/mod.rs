//! The one harness every test suite shares (issue 16): where the fixtures
//! are ([`files`]), temporary files and folders ([`temp`]), running the
//! binary ([`bin`]), small streams ([`events`]), recordings on disk
//! ([`store`]), text snapshots of outputs ([`snapshot`]), the proxy in
//! process ([`proxy`]) and an agent for it ([`agent`]). The panel harness of the app is `panel.rs` here too;
//! only the app's suite mounts it (`tests/app/main.rs`), so that the CLI
//! and engine suites link no egui.
//!
//! Each suite uses part of it, so unused items are no warning here.
#![allow(dead_code, unused_imports, unused_macros)]

pub mod agent;
pub mod bin;
pub mod events;
pub mod files;
pub mod generator;
pub mod peer;
pub mod peers;
pub mod proxy;
pub mod serve;
pub mod snapshot;
pub mod store;
pub mod temp;

pub use bin::{check_json, code, json_out, run, run_ok, run_with_stdin, stderr, stdout};
pub use files::{
    demo, demo_rec, file_name, har, load, manifest_path, p, sample, vector, vector_paths,
};
pub use temp::{TempDir, TempPath, sidecar};
