//! Hostile input (issue 12): streams, files and recordings built to abort,
//! exhaust or mislead the tool, each kept as a regression test.

mod limits;
