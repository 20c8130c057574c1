//! `agui-replay bench commands` (issue 40): every command against one
//! replay of the same stream, as whole processes of this executable in one
//! run, so that the ratios hold whatever the machine's speed. The budgets
//! (PRODUCT.md): `check` ≤ 1.3× one replay, `compare` ≤ 3× replaying both
//! streams, `find` ≤ 1.5×, `import`'s peak memory ≤ 0.5× its input.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::{GenConfig, generate_each, peak_rss_of};

/// Runs of each command; the best (the fastest, the least memory) counts.
const ROUNDS: usize = 3;

/// One command's figures.
#[derive(Clone, Debug, Serialize)]
pub struct CommandFigure {
    /// The arguments after the executable, with the files' names.
    pub args: String,
    /// The best wall time of the runs, in milliseconds.
    pub ms: f64,
    /// `ms` over one replay of the stream (`state FILE --at LAST`).
    pub ratio: f64,
    /// For `compare`: `ms` over replaying both streams (`state` of each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_to_both: Option<f64>,
    /// The exit code of the last run (`check` 0, `compare` 1 when the two
    /// differ, `find` 1 when nothing matched).
    pub exit_code: Option<i32>,
}

/// `import`'s figures.
#[derive(Clone, Debug, Serialize)]
pub struct ImportFigure {
    /// As for the other commands.
    #[serde(flatten)]
    pub time: CommandFigure,
    /// The least of the runs' peak resident memory (`VmHWM`, sampled
    /// every millisecond), where the OS reports it.
    pub peak_rss_bytes: Option<u64>,
    /// `peak_rss_bytes` over the input's size (budget ≤ 0.5).
    pub peak_to_input: Option<f64>,
}

/// The figures of `agui-replay bench commands`.
#[derive(Clone, Debug, Serialize)]
pub struct CommandsFigures {
    /// Events in the stream.
    pub events: usize,
    /// Its size as JSON lines.
    pub input_bytes: u64,
    /// Events in each of the two unrelated streams.
    pub unrelated_events: usize,
    /// The executable whose commands ran.
    pub exe: String,
    /// `/proc/loadavg` when the run started, where there is one.
    pub load_at_start: Option<String>,
    /// Runs of each command (the best counts).
    pub rounds: usize,
    /// One replay: `state FILE --at LAST`, the unit of every ratio.
    pub replay: CommandFigure,
    /// `check FILE --format json`: both profiles (P13).
    pub check: CommandFigure,
    /// `compare A B`, B being A with three values changed.
    pub compare_near: CommandFigure,
    /// `compare` of two unrelated streams.
    pub compare_unrelated: CommandFigure,
    /// `find FILE --message ID --pointer P --contains X`, matching nothing:
    /// every step searched.
    pub find: CommandFigure,
    /// `import FILE --out REC`.
    pub import: ImportFigure,
}

/// What one run of a child took.
struct Run {
    secs: f64,
    peak_rss_bytes: Option<u64>,
    exit_code: Option<i32>,
}

/// Generates the streams in `dir`, runs every command [`ROUNDS`] times
/// (the commands in turn, round after round, so that a change of load
/// touches all alike), and removes the files.
pub fn commands_figures(
    config: GenConfig,
    dir: &Path,
    exe: &Path,
) -> anyhow::Result<CommandsFigures> {
    let work = dir.join(format!("agui-replay-bench-commands-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let result = measure(config, &work, exe);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn measure(config: GenConfig, work: &Path, exe: &Path) -> anyhow::Result<CommandsFigures> {
    let load_at_start = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| text.trim().to_owned());
    let a = work.join("a.jsonl");
    let b = work.join("b.jsonl");
    let unrelated = config.events / 2;
    let u1 = work.join("u1.jsonl");
    let u2 = work.join("u2.jsonl");
    let recording = work.join("a.rec");
    write_stream(config, &a, None)?;
    write_stream(config, &b, Some(3))?;
    for (path, seed) in [(&u1, 1), (&u2, 2)] {
        let config = GenConfig {
            events: unrelated,
            seed: config.seed.wrapping_add(seed),
            ..config
        };
        write_stream(config, path, None)?;
    }
    let input_bytes = std::fs::metadata(&a)?.len();
    let name = |path: &Path| path.display().to_string();
    let last = config.events.to_string();
    let state =
        |file: &PathBuf, at: String| vec!["state".to_owned(), name(file), "--at".to_owned(), at];
    let commands: Vec<(&str, Vec<String>)> = vec![
        ("replay", state(&a, last.clone())),
        ("replay_b", state(&b, last.clone())),
        ("replay_u1", state(&u1, unrelated.to_string())),
        ("replay_u2", state(&u2, unrelated.to_string())),
        (
            "check",
            vec!["check".into(), name(&a), "--format".into(), "json".into()],
        ),
        ("compare_near", vec!["compare".into(), name(&a), name(&b)]),
        (
            "compare_unrelated",
            vec!["compare".into(), name(&u1), name(&u2)],
        ),
        (
            "find",
            vec![
                "find".into(),
                name(&a),
                "--message".into(),
                "act-0000".into(),
                "--pointer".into(),
                "/content".into(),
                "--contains".into(),
                "\"no such value\"".into(),
            ],
        ),
        (
            "import",
            vec![
                "import".into(),
                name(&a),
                "--out".into(),
                name(&recording),
                "--force".into(),
            ],
        ),
    ];
    let mut best: Vec<Option<Run>> = commands.iter().map(|_| None).collect();
    for _ in 0..ROUNDS {
        for ((key, args), best) in commands.iter().zip(&mut best) {
            let run = run_child(exe, args, *key == "import")?;
            *best = Some(match best.take() {
                None => run,
                Some(old) => Run {
                    secs: old.secs.min(run.secs),
                    peak_rss_bytes: match (old.peak_rss_bytes, run.peak_rss_bytes) {
                        (Some(x), Some(y)) => Some(x.min(y)),
                        (x, y) => x.or(y),
                    },
                    exit_code: run.exit_code,
                },
            });
        }
    }
    let secs = |key: &str| {
        commands
            .iter()
            .zip(&best)
            .find(|((k, _), _)| *k == key)
            .and_then(|(_, run)| run.as_ref())
            .map_or(f64::NAN, |run| run.secs)
    };
    let replay_secs = secs("replay");
    let figure = |key: &str, both: Option<f64>| {
        let (args, run) = commands
            .iter()
            .zip(&best)
            .find(|((k, _), _)| *k == key)
            .map(|((_, args), run)| (args, run.as_ref()))
            .unzip();
        let run = run.flatten();
        let ms = run.map_or(f64::NAN, |run| run.secs * 1000.0);
        CommandFigure {
            args: args.map(|a| a.join(" ")).unwrap_or_default(),
            ms: round(ms, 1),
            ratio: round(ms / (replay_secs * 1000.0), 2),
            ratio_to_both: both.map(|both| round(ms / (both * 1000.0), 2)),
            exit_code: run.and_then(|run| run.exit_code),
        }
    };
    let import_peak = commands
        .iter()
        .zip(&best)
        .find(|((k, _), _)| *k == "import")
        .and_then(|(_, run)| run.as_ref())
        .and_then(|run| run.peak_rss_bytes);
    Ok(CommandsFigures {
        events: config.events,
        input_bytes,
        unrelated_events: unrelated,
        exe: exe.display().to_string(),
        load_at_start,
        rounds: ROUNDS,
        replay: figure("replay", None),
        check: figure("check", None),
        compare_near: figure("compare_near", Some(secs("replay") + secs("replay_b"))),
        compare_unrelated: figure(
            "compare_unrelated",
            Some(secs("replay_u1") + secs("replay_u2")),
        ),
        find: figure("find", None),
        import: ImportFigure {
            time: figure("import", None),
            peak_rss_bytes: import_peak,
            peak_to_input: import_peak
                .map(|peak| round(peak as f64 / input_bytes.max(1) as f64, 3)),
        },
    })
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// Writes the generated stream to `path` as JSON lines; with `changed`,
/// that many values of it changed (the first `value` of a patch, at a
/// quarter, a half, three quarters… of the stream), as a near-identical
/// stream for `compare`.
fn write_stream(config: GenConfig, path: &Path, changed: Option<usize>) -> anyhow::Result<()> {
    let mut writer = BufWriter::new(File::create(path)?);
    let changes = changed.unwrap_or(0);
    let at: Vec<usize> = (1..=changes)
        .map(|k| config.events * k / (changes + 1))
        .collect();
    let mut index = 0usize;
    let mut pending = 0usize;
    let mut written = Ok(());
    generate_each(config, |line| {
        if at.contains(&index) {
            pending += 1;
        }
        index += 1;
        let changed = if pending > 0 {
            change_value(line)
        } else {
            None
        };
        if changed.is_some() {
            pending -= 1;
        }
        if written.is_ok() {
            written = writeln!(writer, "{}", changed.as_deref().unwrap_or(line));
        }
    });
    written?;
    writer.flush()?;
    Ok(())
}

/// The event with the value of its patch's first operation that has one
/// replaced, if it has one.
fn change_value(line: &str) -> Option<String> {
    let mut event: Value = serde_json::from_str(line).ok()?;
    let op = event
        .get_mut("patch")?
        .as_array_mut()?
        .iter_mut()
        .find(|op| {
            op.get("value").is_some() && op.get("op").and_then(Value::as_str) != Some("test")
        })?;
    op["value"] = Value::from("changed by bench commands");
    Some(event.to_string())
}

/// Runs this executable with `args`, its output discarded, and measures
/// the wall time; with `sample_memory`, also its peak resident memory,
/// read from `/proc/PID/status` (`VmHWM`) every millisecond while it runs
/// (the last reading before it exits: the peak of all but its last
/// millisecond).
fn run_child(exe: &Path, args: &[String], sample_memory: bool) -> anyhow::Result<Run> {
    let started = Instant::now();
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let mut peak_rss_bytes = None;
    let status = if sample_memory {
        let status_file = format!("/proc/{}/status", child.id());
        loop {
            if let Some(bytes) = peak_rss_of(&status_file) {
                peak_rss_bytes = Some(bytes.max(peak_rss_bytes.unwrap_or(0)));
            }
            if let Some(status) = child.try_wait()? {
                break status;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    } else {
        child.wait()?
    };
    Ok(Run {
        secs: started.elapsed().as_secs_f64(),
        peak_rss_bytes,
        exit_code: status.code(),
    })
}
