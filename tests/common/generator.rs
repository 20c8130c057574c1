//! The deterministic stream generator of `agui-replay bench`, compiled into
//! the tests that need it: it belongs to the binary, not to the library's
//! public API (issue 16.5).

#[allow(dead_code)] // each test uses part of it
#[path = "../../src/bench/generate.rs"]
mod generate;

#[allow(unused_imports)] // each test uses part of it
pub use generate::{GenConfig, generate, generate_each};
