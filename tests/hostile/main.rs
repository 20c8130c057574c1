//! Hostile input (issue 12): inputs, files and upstreams built to break the
//! tool, each a regression test of a defect found by trying.

mod files;
