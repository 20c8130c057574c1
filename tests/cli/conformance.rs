//! `conformance DIR…`: the table of what passed, and its exit code
//! (issue 11).

use std::path::Path;

use serde_json::json;

use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

/// Copies the corpus fixture `folder/name` into `dir`.
fn copy_fixture(dir: &Path, folder: &str, name: &str) {
    let from = manifest_path(&format!("tests/conformance/{folder}/{name}.json"));
    std::fs::copy(from, dir.join(format!("{name}.json"))).expect("copy fixture");
}

#[test]
fn conformance_prints_the_table_and_exits_by_result() {
    // Issue 11: `conformance DIR...` judges the corpus; exit 0 when all pass.
    let temp = TempDir::new("conformance-pass");
    let dir = temp.subdir("1.1");
    copy_fixture(&dir, "1.1", "triad-assembles-message");
    copy_fixture(&dir, "1.1", "current-peer-declares-protocol-version");
    let output = run(&["conformance", p(&dir), "--profile", "spec"]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    let row = text
        .lines()
        .find(|l| l.contains("spec") && l.contains("1.1"))
        .unwrap_or_else(|| panic!("no table row:\n{text}"));
    let numbers: Vec<&str> = row.split_whitespace().skip(3).collect();
    assert_eq!(numbers, ["2", "2", "6", "1"], "{row}");

    // The client profile is a 1.0 consumer: a 1.1 declaration warns, so
    // the quiet fixtures fail, and the exit code says so.
    let output = run(&[
        "conformance",
        p(&dir),
        "--profile",
        "ag-ui-client-1.0",
        "--format",
        "json",
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let report = json_out(&output);
    assert_eq!(report["passed"], json!(false));
    assert_eq!(report["folders"][0]["protocol"], json!("1.0"));
    let failed: Vec<&str> = report["folders"][0]["fixtures"][0]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["verdict"] == json!("failed"))
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["noWarnings"], "{report}");
}

#[test]
fn conformance_without_fixtures_is_a_usage_error() {
    let temp = TempDir::new("conformance-empty");
    let dir = temp.subdir("none");
    let output = run(&["conformance", p(&dir)]);
    assert_eq!(code(&output), 2, "{}", stdout(&output));
    assert!(
        stderr(&output).contains("no fixtures"),
        "{}",
        stderr(&output)
    );
}

// ---------------------------------------------------------------- snapshots

#[test]
fn conformance_outputs_are_the_snapshots() {
    // The table of the whole corpus (README), and one fixture's report.
    assert_output!(
        "corpus_table",
        transcript(&[
            "conformance",
            "tests/conformance/1.0",
            "tests/conformance/1.1"
        ])
    );
    let temp = TempDir::new("conformance-snapshot");
    let dir = temp.subdir("1.1");
    copy_fixture(&dir, "1.1", "triad-assembles-message");
    assert_output!(
        "one_fixture_json",
        transcript(&["conformance", p(&dir), "--format", "json"])
    );
}
