//! The command line, tested through the built binary (PRODUCT.md's
//! contract), one module per command, and the suites that drive the binary
//! or the recording proxy: exports, the fuzz corpus, hostile input.
//!
//! One test binary, so that the crate links once (issue 16).

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod blame;
mod check;
mod compare;
mod conformance;
mod diff;
mod exit_codes;
mod export;
mod export_conformance;
mod find;
mod fuzz_corpus;
mod hostile;
mod import;
mod install;
mod interop;
mod opening;
mod proto;
mod record;
mod record_faults;
mod rules;
mod schemas;
mod serve;
mod state;
mod stdin;
mod surrogates;
mod timing;
mod upgrade;
mod whatif;
