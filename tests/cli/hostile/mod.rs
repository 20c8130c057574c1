//! Hostile input (issue 12): streams, files, recordings and upstreams built
//! to abort, exhaust or mislead the tool, each kept as a regression test of a
//! defect found by trying.

mod files;
mod limits;
