//! `bench gen` and `bench replay`: the generator's files and the figures.

use std::path::Path;

use serde_json::Value;

use crate::common::events::*;
use crate::common::snapshot::{assert_output, redact_figures, transcript_with_file};
use crate::common::*;

// ---------------------------------------------------------------- bench

/// Runs `bench gen` into a fresh temp file and returns it with its bytes.
fn bench_gen(test: &str, name: &str, args: &[&str]) -> (TempPath, Vec<u8>) {
    let file = TempPath::with_bytes(test, name, b"");
    let mut all = vec!["bench", "gen", "--out", file.s()];
    all.extend_from_slice(args);
    let output = run(&all);
    assert_eq!(code(&output), 0, "bench gen {args:?}: {}", stderr(&output));
    let bytes = std::fs::read(file.path()).expect("bench gen wrote the file");
    (file, bytes)
}

#[test]
fn bench_gen_writes_exactly_n_lines_of_events() {
    for (events, activities) in [("1", "1"), ("300", "7"), ("2500", "20")] {
        let (_file, bytes) = bench_gen(
            "benchlines",
            &format!("{events}.jsonl"),
            &["--events", events, "--activities", activities],
        );
        let n: usize = events.parse().expect("a number");
        let text = String::from_utf8(bytes).expect("UTF-8");
        assert!(text.ends_with('\n'), "the last line ends");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), n, "--events {events}");
        assert_eq!(text.matches('\n').count(), n, "--events {events}");
        for line in &lines {
            let event: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert!(event["type"].is_string(), "{line}");
        }
        assert_eq!(
            serde_json::from_str::<Value>(lines[0]).expect("json")["type"],
            "RUN_STARTED"
        );
    }
}

#[test]
fn bench_gen_is_deterministic_by_seed() {
    let args = ["--events", "2000", "--activities", "15", "--seed", "42"];
    let (_a, first) = bench_gen("benchseed", "a.jsonl", &args);
    let (_b, second) = bench_gen("benchseed", "b.jsonl", &args);
    assert!(!first.is_empty());
    assert!(first == second, "the same seed gives the same bytes");
    let (_c, other) = bench_gen(
        "benchseed",
        "c.jsonl",
        &["--events", "2000", "--activities", "15", "--seed", "43"],
    );
    assert!(first != other, "another seed gives other bytes");
    assert_eq!(
        other.iter().filter(|&&b| b == b'\n').count(),
        2000,
        "as many events"
    );
}

#[test]
fn a_generated_stream_checks_ok() {
    let (file, bytes) = bench_gen(
        "benchcheck",
        "s.jsonl",
        &["--events", "3000", "--activities", "25", "--seed", "9"],
    );
    let (output, report) = check_json(&[file.s()]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    assert_eq!(report["outcome"], "ok");
    assert_eq!(report["events"], 3000);
    assert!(report["fatal"].is_null(), "{}", report["fatal"]);
    // The generator's deliberate failures are warnings, not errors.
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert!(
        diagnostics.iter().all(|d| d["severity"] != "error"),
        "{diagnostics:?}"
    );
    assert!(
        !diagnostics_with_code(&report, "activity.patch.failed").is_empty(),
        "the generator fails some patches on purpose"
    );
    // The library reads the same file to the same outcome.
    let stream = agui_replay::read_bytes(&bytes, Path::new("s.jsonl")).expect("reads");
    assert_eq!(stream.events.len(), 3000);
    let replayer = agui_replay::replay_log(&stream.events, agui_replay::Options::default());
    assert_eq!(replayer.outcome(), agui_replay::Outcome::Ok);
    assert_eq!(report["messages"], replayer.conversation().to_json());
}

#[test]
fn bench_replay_prints_its_figures_as_one_json_object() {
    let output = run(&[
        "bench",
        "replay",
        "--events",
        "5000",
        "--activities",
        "20",
        "--seeks",
        "50",
    ]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let figures = json_out(&output);
    let figures = figures.as_object().expect("one JSON object");
    for key in [
        "events",
        "stream_bytes",
        "parse_events_per_sec",
        "replay_events_per_sec",
        "seek_p50_ms",
        "seek_p99_ms",
        "seek_max_ms",
        "checkpoint_bytes",
        "peak_rss_bytes",
    ] {
        assert!(figures.contains_key(key), "no `{key}` in {figures:?}");
    }
    assert_eq!(figures["events"], 5000);
    assert!(
        figures["stream_bytes"].as_u64().expect("a count") > 5000,
        "{figures:?}"
    );
    for key in ["parse_events_per_sec", "replay_events_per_sec"] {
        assert!(
            figures[key].as_f64().expect("a rate") > 0.0,
            "{key}: {figures:?}"
        );
    }
    let ms = |key: &str| {
        figures[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} is a number: {figures:?}"))
    };
    let (p50, p99, max) = (ms("seek_p50_ms"), ms("seek_p99_ms"), ms("seek_max_ms"));
    assert!(p50 >= 0.0, "{figures:?}");
    assert!(p50 <= p99, "p50 {p50} > p99 {p99}");
    assert!(p99 <= max, "p99 {p99} > max {max}");
    // Blame (issue 17.2): a history found by the filtered replay alone.
    assert!(ms("blame_ms") >= 0.0, "{figures:?}");
    assert!(figures["blame_changes"].as_u64() > Some(10), "{figures:?}");
    assert_eq!(figures["blame_replayed"], false, "{figures:?}");
    let replayed = figures["blame_events_replayed"].as_u64().expect("a count");
    assert!(
        replayed < 5000 / 4,
        "only the events that can touch it: {figures:?}"
    );
}

#[cfg(feature = "app")]
#[test]
fn bench_ui_reports_what_the_user_waits_for() {
    // Issue 14, point 1: a recording longer than what opens at once is
    // indexed in the background; the figures say when its first rows
    // showed, when it was usable, and the memory it holds against the file.
    let output = run(&[
        "bench",
        "ui",
        "--events",
        "60000",
        "--activities",
        "10",
        "--frames",
        "20",
        "--no-stored-index",
    ]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let figures = json_out(&output);
    assert_eq!(figures["events"], 60000, "{figures}");
    assert_eq!(figures["no_stored_index"], true, "{figures}");
    let ms = |key: &str| {
        figures[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} is a number: {figures}"))
    };
    let (first_rows, usable) = (ms("open_to_first_rows_ms"), ms("open_to_usable_ms"));
    assert!(0.0 < first_rows && first_rows <= usable, "{figures}");
    assert!(ms("index_events_per_sec") > 0.0, "{figures}");
    assert!(ms("frame_p50_ms") <= ms("frame_p99_ms"), "{figures}");
    assert!(ms("frame_p99_ms") <= ms("frame_max_ms"), "{figures}");
    assert!(
        figures["file_bytes"].as_u64().is_some_and(|b| b > 60000),
        "{figures}"
    );
}

// ---------------------------------------------------------------- snapshots

#[test]
fn bench_outputs_are_the_snapshots() {
    // The generator is deterministic by seed: its file is a snapshot.
    assert_output!(
        "gen_40_events",
        transcript_with_file(
            &[
                "bench",
                "gen",
                "--events",
                "40",
                "--activities",
                "3",
                "--seed",
                "5"
            ],
            "gen.jsonl"
        )
    );
    // The figures' names and counts; timings and memory are redacted.
    let output = run(&[
        "bench",
        "replay",
        "--events",
        "500",
        "--activities",
        "3",
        "--seeks",
        "5",
    ]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let mut figures = json_out(&output);
    // Issue 14.5: the ratio is the median of its rounds' ratios.
    let rounds: Vec<f64> = figures["replay_to_parse_ratios"]
        .as_array()
        .expect("the rounds' ratios")
        .iter()
        .map(|r| r.as_f64().expect("a ratio"))
        .collect();
    assert_eq!(rounds.len(), 3, "{rounds:?}");
    assert!(rounds.iter().all(|&r| r > 0.0), "{rounds:?}");
    let mut sorted = rounds.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(figures["replay_to_parse_ratio"].as_f64(), Some(sorted[1]));
    figures["replay_to_parse_ratios"] = "[figures]".into();
    // Each round's placement: the cores' round trip before and after its
    // replay, a time a two-core machine takes (0 only if the other thread
    // never ran within the measure's 100 ms).
    let placements = figures["cross_core_round_trip_ns"]
        .as_array()
        .expect("the rounds' placements")
        .clone();
    assert_eq!(placements.len(), rounds.len(), "{placements:?}");
    for placement in &placements {
        let [before, after] = [0, 1].map(|i| placement[i].as_f64().expect("nanoseconds"));
        assert!(before >= 0.0 && after >= 0.0, "{placements:?}");
        assert!(before < 1e8 && after < 1e8, "{placements:?}");
    }
    figures["cross_core_round_trip_ns"] = "[figures]".into();
    redact_figures(
        &mut figures,
        &[
            "parse_events_per_sec",
            "replay_events_per_sec",
            "replay_to_parse_ratio",
            "apply_events_per_sec",
            "apply_to_parse_ratio",
            "seek_p50_ms",
            "seek_p99_ms",
            "seek_max_ms",
            "find_all_ms",
            "search_next_p99_ms",
            "search_previous_p99_ms",
            "blame_ms",
            "blame_state_ms",
            "peak_rss_bytes",
            "checkpoint_bytes",
        ],
    );
    assert_output!(
        "replay_figures",
        serde_json::to_string_pretty(&figures).expect("prints")
    );
}

/// Issue 40: `bench commands` prints, for each command, its best time and
/// its ratio to one replay of the same stream, and import's peak memory
/// over its input; the commands ran (their exit codes are the ones each
/// gives on these streams), and the work files are removed.
#[test]
fn bench_commands_prints_every_command_as_a_ratio_to_one_replay() {
    let dir = TempDir::new("benchcommands");
    let output = run(&[
        "bench",
        "commands",
        "--events",
        "600",
        "--activities",
        "5",
        "--dir",
        dir.s(),
    ]);
    assert_eq!(code(&output), 0, "bench commands: {}", stderr(&output));
    let figures = json_out(&output);
    assert_eq!(figures["events"], 600);
    assert_eq!(figures["unrelated_events"], 300);
    assert!(
        figures["input_bytes"]
            .as_u64()
            .is_some_and(|b| b > 600 * 50)
    );
    assert_eq!(figures["rounds"], 3);
    for command in [
        "replay",
        "check",
        "compare_near",
        "compare_unrelated",
        "find",
        "import",
    ] {
        let figure = &figures[command];
        assert!(
            figure["ms"].as_f64().is_some_and(|ms| ms > 0.0),
            "{command}: {figure}"
        );
        assert!(
            figure["ratio"].as_f64().is_some_and(|r| r > 0.0),
            "{command}: {figure}"
        );
        assert!(figure["args"].is_string(), "{command}: {figure}");
    }
    assert_eq!(figures["replay"]["ratio"], 1.0);
    assert_eq!(figures["replay"]["exit_code"], 0);
    assert_eq!(figures["check"]["exit_code"], 0);
    assert_eq!(figures["import"]["exit_code"], 0);
    // The near stream differs in three values, the unrelated ones in
    // everything: `compare` says they differ (exit 1).
    assert_eq!(figures["compare_near"]["exit_code"], 1);
    assert_eq!(figures["compare_unrelated"]["exit_code"], 1);
    // `find` searched every step and matched nothing (exit 1).
    assert_eq!(figures["find"]["exit_code"], 1);
    for command in ["compare_near", "compare_unrelated"] {
        assert!(
            figures[command]["ratio_to_both"]
                .as_f64()
                .is_some_and(|r| r > 0.0),
            "{command}"
        );
    }
    let peak = figures["import"]["peak_rss_bytes"].as_u64().expect("Linux");
    assert!(peak > 1 << 20, "a process takes more than 1 MiB: {peak}");
    assert!(
        figures["import"]["peak_to_input"]
            .as_f64()
            .is_some_and(|r| r > 0.0)
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).expect("the dir").collect();
    assert!(left.is_empty(), "work files left: {left:?}");
}
