//! `agui-replay upgrade FILE` (issue 14.2): migrates a version-1 recording
//! to version 3 and stores its sessions' timeline indexes; says an
//! up-to-date file is up to date; refuses what is not a recording (exit 2).
//! Replaying an upgraded file gives what it gave before.

use crate::common::bin::{code, run, run_ok, stderr, stdout};
use crate::common::files::{manifest_path, p};
use crate::common::temp::TempPath;

fn v1_copy(test: &str) -> TempPath {
    let rec = TempPath::new(test, "v1.rec");
    std::fs::copy(manifest_path("tests/fixtures/v1/demo-v1.rec"), rec.path()).expect("copies");
    rec
}

#[test]
fn upgrade_migrates_a_version_1_file_then_says_it_is_up_to_date() {
    let rec = v1_copy("upgrade-cli");
    let before: Vec<String> = (1..=3)
        .map(|n| {
            let session = n.to_string();
            stdout(&run(&[
                "check",
                p(rec.path()),
                "--session",
                &session,
                "--format",
                "json",
            ]))
        })
        .collect();
    let first = run_ok(&["upgrade", p(rec.path())]);
    let said = stdout(&first);
    assert!(said.contains("schema version 1 → 3"), "{said}");
    assert!(said.contains("timeline index of 3 sessions"), "{said}");
    let conn = rusqlite::Connection::open(rec.path()).expect("opens");
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("version");
    let indexes: i64 = conn
        .query_row("SELECT count(*) FROM timeline_index", [], |row| row.get(0))
        .expect("count");
    drop(conn);
    assert_eq!((version, indexes), (3, 3));
    let second = run_ok(&["upgrade", p(rec.path())]);
    assert!(
        stdout(&second).contains("up to date"),
        "{}",
        stdout(&second)
    );
    // The same diagnostics and outcome as before the upgrade.
    for (n, before) in (1..=3).zip(before) {
        let session = n.to_string();
        let after = stdout(&run(&[
            "check",
            p(rec.path()),
            "--session",
            &session,
            "--format",
            "json",
        ]));
        assert_eq!(after, before, "session {n}");
    }
}

#[test]
fn upgrade_refuses_what_is_not_a_recording() {
    let text = TempPath::new("upgrade-cli-text", "not.rec");
    std::fs::write(text.path(), "hello").expect("writes");
    let output = run(&["upgrade", p(text.path())]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("not a recording"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(text.path()).expect("reads"), b"hello");
    let missing = run(&["upgrade", "/nonexistent/x.rec"]);
    assert_eq!(code(&missing), 2);
}

/// Issue 14's import rate: `import` writes no SQL indexes unless
/// `--sql-indexes`; `upgrade --sql-indexes` adds them to a file without
/// them, and says so; asked again, the file is up to date.
#[test]
fn the_sql_indexes_are_built_by_import_or_upgrade_when_asked() {
    let sql_indexes = |rec: &TempPath| -> i64 {
        let conn = rusqlite::Connection::open_with_flags(
            rec.path(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("opens");
        conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'events_by_%'",
            [],
            |row| row.get(0),
        )
        .expect("schema")
    };
    let demo = manifest_path("recordings/demo.jsonl");
    let with = TempPath::new("sql-indexes-import", "with.rec");
    run_ok(&["import", p(&demo), "--out", p(with.path()), "--sql-indexes"]);
    assert_eq!(sql_indexes(&with), 3);
    let said = stdout(&run_ok(&["upgrade", p(with.path()), "--sql-indexes"]));
    assert!(
        said.contains("up to date") && said.contains("SQL indexes present"),
        "{said}"
    );

    let without = TempPath::new("sql-indexes-import", "without.rec");
    run_ok(&["import", p(&demo), "--out", p(without.path())]);
    assert_eq!(sql_indexes(&without), 0);
    let said = stdout(&run_ok(&["upgrade", p(without.path())]));
    assert!(said.contains("up to date"), "{said}");
    assert_eq!(sql_indexes(&without), 0, "not asked for");
    let said = stdout(&run_ok(&["upgrade", p(without.path()), "--sql-indexes"]));
    assert!(said.contains("built the SQL indexes"), "{said}");
    assert_eq!(sql_indexes(&without), 3);
}
