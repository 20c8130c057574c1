//! The engine through the library, without the binary: the replay rules
//! (`rules`), the conformance vectors and corpus, the timeline's indices,
//! property tests, and recording files with their annotations.
//!
//! One test binary, so that the crate links once (issue 16).

#[path = "../common/mod.rs"]
mod common;

mod annotations;
mod app_model;
mod client_conversation;
mod conformance;
mod divergence_fast;
mod draft;
mod drift;
mod frameworks;
mod index;
mod interop;
mod lazy_events;
mod properties;
mod proto;
mod rules;
mod schema_members;
mod schemas;
mod store;
mod stored_index;
mod surrogates;
mod vectors;
