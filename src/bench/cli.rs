//! `agui-replay bench`: the benchmark harness (figures as JSON).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand};

use agui_replay::cli::EXIT_OK;

use super::{
    GenConfig, generate_each, import_figures, proxy_figures, replay_figures, whatif_figures,
};

/// `bench` subcommands.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Write the generated stream as JSON lines, for other tools to replay.
    Gen(GenArgs),
    /// Replay a generated stream: parse limit, replay rate, seek times,
    /// checkpoint memory, peak RSS.
    Replay(ReplayArgs),
    /// Import a generated stream into a recording: import rate, file size,
    /// time to open it.
    Import(ImportArgs),
    /// Stream generated events through the recording proxy on loopback:
    /// events per second, and the latency of paced events.
    Proxy(ProxyArgs),
    /// Drive the desktop app headless through frames of scrubbing on a
    /// large recording: frame times; a search over every event, as `find`
    /// runs it and as the app does.
    Ui(UiArgs),
    /// Run `check`, `compare`, `find` and `import` on a generated stream as
    /// whole processes, each against one replay of the same stream
    /// (`state FILE --at LAST`) in the same run: best of three, as ratios
    /// (issue 40).
    Commands(CommandsArgs),
    /// One edit in the middle of a generated stream, in the app's model
    /// ("What if…", issue 41): the time to the state at the cursor, and
    /// to the edited timeline indexed whole.
    Whatif(WhatifArgs),
}

/// `bench whatif` options.
#[derive(Debug, Args)]
pub struct WhatifArgs {
    /// The stream's shape.
    #[command(flatten)]
    pub shape: StreamShape,
    /// Import the stream into a recording and open that (its events left
    /// in the file), instead of the JSON lines.
    #[arg(long)]
    pub recording: bool,
    /// Where to put the temporary files (default: the system's temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `bench commands` options.
#[derive(Debug, Args)]
pub struct CommandsArgs {
    /// Number of events of the stream (the two unrelated streams of
    /// `compare` have half as many each).
    #[arg(long, default_value_t = 200_000)]
    pub events: usize,
    /// Number of activities.
    #[arg(long, default_value_t = 100)]
    pub activities: usize,
    /// Generator seed (the unrelated streams take the next two).
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Where to put the temporary files (default: the system's temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Run the commands of this executable instead of this one (another
    /// build, to compare two builds in turns).
    #[arg(long, value_name = "FILE")]
    pub exe: Option<PathBuf>,
}

/// `bench ui` options.
#[derive(Debug, Args)]
pub struct UiArgs {
    /// The stream's shape (imported into a temporary recording).
    #[command(flatten)]
    pub shape: StreamShape,
    /// Frames to time.
    #[arg(long, default_value_t = 1_000)]
    pub frames: usize,
    /// Where to put the temporary files (default: the system's temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Ignore the index stored in the recording: open it as one without
    /// (indexed in the background while the first events show).
    #[arg(long)]
    pub no_stored_index: bool,
    /// Open this recording instead of generating one (its first session).
    #[arg(long, value_name = "FILE.rec")]
    pub recording: Option<PathBuf>,
}

/// `bench proxy` options.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Events for the throughput figure.
    #[arg(long, default_value_t = 200_000)]
    pub events: usize,
    /// Paced events (one every 2 ms) for the latency figures.
    #[arg(long, default_value_t = 1_000)]
    pub paced_events: usize,
    /// Where to put the temporary recordings (default: the system's temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `bench import` options.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The stream's shape.
    #[command(flatten)]
    pub shape: StreamShape,
    /// Build the SQL indexes too, as `import --sql-indexes` does.
    #[arg(long)]
    pub sql_indexes: bool,
    /// Where to put the temporary files (default: the system's temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The generated stream's shape.
#[derive(Debug, Args)]
pub struct StreamShape {
    /// Number of events.
    #[arg(long, default_value_t = 1_000_000)]
    pub events: usize,
    /// Number of activities.
    #[arg(long, default_value_t = 100)]
    pub activities: usize,
    /// Generator seed (same seed, same bytes).
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

impl StreamShape {
    fn config(&self) -> GenConfig {
        GenConfig {
            events: self.events,
            activities: self.activities,
            seed: self.seed,
        }
    }
}

/// `bench gen` options.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// The stream's shape.
    #[command(flatten)]
    pub shape: StreamShape,
    /// What to generate: the activity-heavy stream (`mixed`); one text
    /// message of `--events` one-character deltas (`long-message`); one
    /// activity grown by `--events` deltas of `--ops` `add /items/0` each
    /// (`front-inserts`) or `add /items/-` each (`appends`). Issue 38.
    #[arg(long, value_enum, default_value = "mixed")]
    pub kind: GenKind,
    /// Operations per delta (`front-inserts`, `appends`).
    #[arg(long, default_value_t = 10_000)]
    pub ops: usize,
    /// Where to write the JSON lines.
    #[arg(long, value_name = "FILE.jsonl")]
    pub out: PathBuf,
}

/// What `bench gen` generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GenKind {
    /// The activity-heavy stream the other benches replay.
    Mixed,
    /// One text message of many one-character deltas.
    LongMessage,
    /// Deltas inserting at the front of an array.
    FrontInserts,
    /// The same deltas appending to the array.
    Appends,
}

/// `bench replay` options.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The stream's shape.
    #[command(flatten)]
    pub shape: StreamShape,
    /// Number of random seeks to time.
    #[arg(long, default_value_t = 1_000)]
    pub seeks: usize,
}

pub fn run(command: &BenchCommand, out: &mut dyn Write) -> anyhow::Result<u8> {
    match command {
        BenchCommand::Gen(args) => {
            let file = File::create(&args.out).map_err(|e| {
                anyhow::anyhow!(
                    "cannot create ({}): {}",
                    agui_replay::error::io_cause(&e),
                    args.out.display()
                )
            })?;
            let mut writer = BufWriter::new(file);
            let mut result = Ok(());
            let emit = |line: &str| {
                if result.is_ok() {
                    result = writeln!(writer, "{line}");
                }
            };
            let events = args.shape.events;
            match args.kind {
                GenKind::Mixed => generate_each(args.shape.config(), emit),
                GenKind::LongMessage => super::generate::long_message_each(events, emit),
                GenKind::FrontInserts => {
                    super::generate::inserts_each(events, args.ops, false, emit)
                }
                GenKind::Appends => super::generate::inserts_each(events, args.ops, true, emit),
            }
            result.and_then(|()| writer.flush()).map_err(|e| {
                anyhow::anyhow!(
                    "cannot write ({}): {}",
                    agui_replay::error::io_cause(&e),
                    args.out.display()
                )
            })?;
        }
        BenchCommand::Import(args) => {
            let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
            let figures = import_figures(args.shape.config(), &dir, args.sql_indexes)?;
            serde_json::to_writer_pretty(&mut *out, &figures)?;
            writeln!(out)?;
        }
        BenchCommand::Proxy(args) => {
            let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
            let figures = proxy_figures(args.events, args.paced_events, &dir)?;
            serde_json::to_writer_pretty(&mut *out, &figures)?;
            writeln!(out)?;
        }
        BenchCommand::Ui(args) => {
            let figures = ui_figures(args)?;
            serde_json::to_writer_pretty(&mut *out, &figures)?;
            writeln!(out)?;
        }
        BenchCommand::Commands(args) => {
            let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
            let config = GenConfig {
                events: args.events,
                activities: args.activities,
                seed: args.seed,
            };
            let exe = match &args.exe {
                Some(exe) => exe.clone(),
                None => std::env::current_exe()?,
            };
            let figures = super::commands::commands_figures(config, &dir, &exe)?;
            serde_json::to_writer_pretty(&mut *out, &figures)?;
            writeln!(out)?;
        }
        BenchCommand::Whatif(args) => {
            let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
            let figures = whatif_figures(args.shape.config(), &dir, args.recording)?;
            serde_json::to_writer_pretty(&mut *out, &figures)?;
            writeln!(out)?;
        }
        BenchCommand::Replay(args) => {
            let figures = replay_figures(args.shape.config(), args.seeks);
            serde_json::to_writer_pretty(&mut *out, &figures)?;
            writeln!(out)?;
        }
    }
    Ok(EXIT_OK)
}

/// The figures of `agui-replay bench ui`.
#[cfg(feature = "app")]
#[derive(Clone, Debug, serde::Serialize)]
pub struct UiFigures {
    /// Events in the recording.
    pub events: u64,
    /// Size of the recording file.
    pub file_bytes: u64,
    /// Whether the index stored in the recording was ignored
    /// (`--no-stored-index`).
    pub no_stored_index: bool,
    /// From the start of the open to the first frame in which the timeline
    /// covers the whole recording, the event list shows its rows, the
    /// inspector shows step 1 and a seek to a random step has answered.
    pub open_to_usable_ms: f64,
    /// From the start of the open to the first frame with the first rows
    /// and the timeline of what is read so far, indexing going on in the
    /// background (absent when the recording opened whole at once).
    pub open_to_first_rows_ms: Option<f64>,
    /// Events indexed per second in the background, from the start of the
    /// open to the whole timeline.
    pub index_events_per_sec: Option<f64>,
    /// From the start of the open to the profiles' comparison done (its
    /// marks shown), when it ran in the background.
    pub open_to_divergences_ms: Option<f64>,
    /// Frames timed.
    pub frames: usize,
    /// Median frame: the scrub's seek, the whole UI laid out and
    /// tessellated.
    pub frame_p50_ms: f64,
    /// 99th percentile frame.
    pub frame_p99_ms: f64,
    /// Slowest frame.
    pub frame_max_ms: f64,
    /// Median of the frames' seeks alone (the state at the scrubbed step
    /// and the one before it, without the UI).
    pub seek_p50_ms: f64,
    /// 99th percentile of the frames' seeks (budget ≤ 5 ms).
    pub seek_p99_ms: f64,
    /// A drag across the timeline's plot at 1,000 px/s for 3 s, back and
    /// forth (issue 43): the frames it drew.
    pub drag_frames: usize,
    /// Median frame of the drag.
    pub drag_frame_p50_ms: f64,
    /// 99th percentile frame of the drag.
    pub drag_frame_p99_ms: f64,
    /// Median, over the drag's frames, of the steps between the step under
    /// the pointer and the playhead painted in the same frame.
    pub playhead_lag_steps_p50: f64,
    /// Their 99th percentile.
    pub playhead_lag_steps_p99: f64,
    /// Median, over the drag's frames, of the pixels between the pointer
    /// when the frame is done and the playhead it painted.
    pub playhead_lag_px_p50: f64,
    /// Their 99th percentile.
    pub playhead_lag_px_p99: f64,
    /// Median, over the drag's frames, of the steps between the playhead
    /// painted and the state the panels drew in the same frame.
    pub panels_lag_steps_p50: f64,
    /// Their 99th percentile.
    pub panels_lag_steps_p99: f64,
    /// From the release to the first frame whose panels show the step of
    /// the release, frames drawn only when the app asks (`null`: it
    /// stopped asking first).
    pub panels_final_ms: Option<f64>,
    /// Frames drawn after the release until then.
    pub panels_final_frames: usize,
    /// A search over every event matching nothing, as `agui-replay find`
    /// runs it (the events already loaded).
    pub find_all_ms: f64,
    /// The same search by the app's "Find all", until its list shows
    /// complete (issue 13, point 4).
    pub app_search_all_ms: f64,
    /// Heap bytes allocated with the recording open and usable (jemalloc's
    /// statistics), the bench's own few included.
    pub allocated_bytes_open: Option<usize>,
    /// `allocated_bytes_open / file_bytes` (budget ≤ 1).
    pub memory_to_file_ratio: Option<f64>,
    /// Peak resident memory from the start of the open to the end of the
    /// frames (`VmHWM`, reset before the open where the OS allows).
    pub peak_rss_bytes: Option<u64>,
}

/// `bench ui`: imports a generated stream into a temporary recording (or
/// takes `--recording`) and drives the app headless over it.
#[cfg(feature = "app")]
fn ui_figures(args: &UiArgs) -> anyhow::Result<UiFigures> {
    let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let work = dir.join(format!("agui-replay-bench-ui-{}", std::process::id()));
    if args.recording.is_none() {
        std::fs::create_dir_all(&work)?;
    }
    let result = (|| -> anyhow::Result<UiFigures> {
        let recording = match &args.recording {
            Some(recording) => recording.clone(),
            None => {
                let input = work.join("stream.jsonl");
                let recording = work.join("stream.rec");
                super::generate::write_jsonl(args.shape.config(), &input)?;
                agui_replay::store::import_files(
                    std::slice::from_ref(&input),
                    &recording,
                    &mut |_| {},
                )?;
                // The JSON lines are not needed any more: only the
                // recording is open.
                let _ = std::fs::remove_file(&input);
                recording
            }
        };
        let file_bytes = std::fs::metadata(&recording)?.len();
        let load_options = agui_replay::app_model::document::LoadOptions {
            stored_index: !args.no_stored_index,
            ..Default::default()
        };
        // The peak from here on, not the import's (Linux: "5" resets it).
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let allocated = || super::allocated_bytes().filter(|_| super::jemalloc_is_the_allocator());
        let timings = agui_replay::ui::bench::ui_timings(
            &recording,
            args.frames,
            args.shape.seed,
            load_options,
            &allocated,
        )?;
        let quantile = |q: f64| super::percentile(&timings.frame_millis, q);
        let round = |ms: f64| (ms * 10.0).round() / 10.0;
        let drag = &timings.drag;
        let as_f64 = |steps: &[u64]| steps.iter().map(|&s| s as f64).collect::<Vec<f64>>();
        let lag_steps = as_f64(&drag.playhead_lag_steps);
        let panels_lag = as_f64(&drag.panels_lag_steps);
        Ok(UiFigures {
            events: timings.events,
            file_bytes,
            no_stored_index: args.no_stored_index,
            open_to_usable_ms: round(timings.open_to_usable_ms),
            open_to_first_rows_ms: timings.open_to_first_rows_ms.map(round),
            index_events_per_sec: timings.index_events_per_sec,
            open_to_divergences_ms: timings.open_to_divergences_ms.map(round),
            frames: args.frames,
            frame_p50_ms: quantile(0.5),
            frame_p99_ms: quantile(0.99),
            frame_max_ms: quantile(1.0),
            seek_p50_ms: super::percentile(&timings.seek_millis, 0.5),
            seek_p99_ms: super::percentile(&timings.seek_millis, 0.99),
            drag_frames: drag.frame_millis.len(),
            drag_frame_p50_ms: super::percentile(&drag.frame_millis, 0.5),
            drag_frame_p99_ms: super::percentile(&drag.frame_millis, 0.99),
            playhead_lag_steps_p50: super::percentile(&lag_steps, 0.5),
            playhead_lag_steps_p99: super::percentile(&lag_steps, 0.99),
            playhead_lag_px_p50: round(super::percentile(&drag.playhead_lag_px, 0.5)),
            playhead_lag_px_p99: round(super::percentile(&drag.playhead_lag_px, 0.99)),
            panels_lag_steps_p50: super::percentile(&panels_lag, 0.5),
            panels_lag_steps_p99: super::percentile(&panels_lag, 0.99),
            panels_final_ms: drag.panels_final_ms.map(round),
            panels_final_frames: drag.panels_final_frames,
            find_all_ms: (timings.find_all_ms * 10.0).round() / 10.0,
            app_search_all_ms: (timings.app_search_all_ms * 10.0).round() / 10.0,
            allocated_bytes_open: timings.allocated_bytes_open,
            memory_to_file_ratio: timings
                .allocated_bytes_open
                .map(|bytes| (bytes as f64 / file_bytes.max(1) as f64 * 1000.0).round() / 1000.0),
            peak_rss_bytes: super::peak_rss_bytes(),
        })
    })();
    if args.recording.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    result
}

/// `bench ui` without the app: nothing to drive.
#[cfg(not(feature = "app"))]
fn ui_figures(_args: &UiArgs) -> anyhow::Result<serde_json::Value> {
    anyhow::bail!("`bench ui` needs the desktop app (this build has no `app` feature)")
}
