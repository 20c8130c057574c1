//! The benchmark harness behind `agui-replay bench`: a deterministic stream
//! generator and the measurements, printed as JSON figures.
//!
//! It is part of the binary, not of the library (issue 16.5): the
//! library's public surface is what `lib.rs` lists, and the measurements
//! use only that surface. The tests that need the generator compile
//! `generate.rs` into themselves (`tests/support/generator.rs`).

pub mod cli;
mod commands;
pub mod generate;
mod proxy;
mod whatif;

use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::Serialize;
use serde_json::Value;

pub use generate::{GenConfig, generate, generate_each};
pub use proxy::proxy_figures;
pub use whatif::whatif_figures;

use agui_replay::diagnostic::Seq;
use agui_replay::input::{EventLog, RawEvents};
use agui_replay::protocol::parse_event;
use agui_replay::replay::Options;
use agui_replay::timeline::{CheckpointPolicy, Timeline};

/// The figures of `agui-replay bench replay`.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayFigures {
    /// Events in the generated stream.
    pub events: usize,
    /// Activities in it.
    pub activities: usize,
    /// The generator's seed.
    pub seed: u64,
    /// Total bytes of the events' JSON text.
    pub stream_bytes: usize,
    /// `serde_json` parsing each event into a `Value`, nothing else: the
    /// limit (the median of the rounds).
    pub parse_events_per_sec: f64,
    /// Reading, validating and applying every event, building the indices and
    /// checkpoints (what opening a stream costs; the median of the rounds).
    pub replay_events_per_sec: f64,
    /// `replay_events_per_sec / parse_events_per_sec`, the median of the
    /// ratios of [`RATIO_ROUNDS`] rounds of this run, each a parse then a
    /// replay: the figure that holds on a noisy machine (budget ≥ 0.9).
    pub replay_to_parse_ratio: f64,
    /// Each round's ratio, in the order they ran.
    pub replay_to_parse_ratios: Vec<f64>,
    /// For each round, the two cores' round trip through one cache line
    /// just before its replay and 20 ms after ([`cross_core_round_trip_ns`]):
    /// where the machine placed them. The replay reads events on one core
    /// and applies them on the other, so it pays for every line that
    /// crosses; the parse runs on one. On this project's virtual machines
    /// the two cores shared a cache at times (about 85 ns) and not at
    /// others (about 380 ns), for seconds or minutes at a stretch, and the
    /// same replay took about 40% longer in the second case: a ratio is to
    /// be read with its placement.
    pub cross_core_round_trip_ns: Vec<[f64; 2]>,
    /// Applying alone, on one thread: every event read beforehand (in
    /// chunks, not timed), then applied, indexed and checkpointed as the
    /// replay's applying thread does. The events read beforehand are cold
    /// and their bytes are copied as they are applied, so this is slower
    /// than the replay's own applying: a figure to compare builds by, not a
    /// bound on the replay.
    pub apply_events_per_sec: f64,
    /// `apply_events_per_sec / parse_events_per_sec`, both measured in this
    /// run.
    pub apply_to_parse_ratio: f64,
    /// Seeks to random steps: the state of every activity at that step.
    pub seeks: usize,
    /// Median seek time.
    pub seek_p50_ms: f64,
    /// 99th percentile seek time.
    pub seek_p99_ms: f64,
    /// Slowest seek.
    pub seek_max_ms: f64,
    /// Search over time on the whole stream (`find`, the state's `/last`
    /// equal to one value): replaying every event and following one value.
    pub find_all_ms: f64,
    /// The steps that search matched.
    pub find_all_matches: usize,
    /// The app's "next match" from random steps (from the checkpoint before
    /// the step, forward to the match), 99th percentile.
    pub search_next_p99_ms: f64,
    /// The app's "previous match" from random steps (checkpoint segments,
    /// backwards), 99th percentile.
    pub search_previous_p99_ms: f64,
    /// Blame (issue 17.2) of one activity value (`/content/progress` of
    /// the middle activity) at the last step: its history over the whole
    /// stream, from the timeline's index, as a hover in the app asks it.
    pub blame_ms: f64,
    /// The changes that blame found.
    pub blame_changes: usize,
    /// The events it replayed (those that can touch the activity).
    pub blame_events_replayed: usize,
    /// Whether it had to replay every event (the filtered replay disagreed
    /// with the index).
    pub blame_replayed: bool,
    /// Blame of a state value (`/counter`) at the last step.
    pub blame_state_ms: f64,
    /// The changes that blame found.
    pub blame_state_changes: usize,
    /// Checkpoints kept.
    pub checkpoints: usize,
    /// Heap bytes the checkpoints hold, measured: the timeline's heap minus
    /// that of the same stream replayed without checkpoints (jemalloc's
    /// statistics; absent when jemalloc is not the allocator).
    pub checkpoint_bytes: Option<usize>,
    /// Peak resident memory of the process (`VmHWM`), if the OS tells.
    pub peak_rss_bytes: Option<u64>,
}

/// The figures of `agui-replay bench import`.
#[derive(Clone, Debug, Serialize)]
pub struct ImportFigures {
    /// Events in the generated stream.
    pub events: usize,
    /// Bytes of the JSON lines file imported.
    pub input_bytes: u64,
    /// Whether the import built the SQL indexes (`--sql-indexes`).
    pub sql_indexes: bool,
    /// Reading the JSON lines file and writing the recording (indexes
    /// built, write-ahead log folded in).
    pub import_events_per_sec: f64,
    /// Size of the recording file.
    pub file_bytes: u64,
    /// Recording bytes per event.
    pub file_bytes_per_event: f64,
    /// Opening the recording read-only and loading the sessions, the event
    /// count and the first page of 200 events.
    pub open_ms: f64,
    /// Loading every event's raw bytes (what a full replay reads first).
    pub load_all_ms: f64,
    /// Rebuilding the timeline from the index stored with the recording
    /// (issue 14), once the events are loaded: reading and decoding it.
    pub open_stored_ms: f64,
    /// Replaying the loaded events into a timeline instead (what opening
    /// costs without a stored index).
    pub replay_ms: f64,
    /// The stored index's size.
    pub index_bytes: u64,
    /// The stored index's share of the file's size.
    pub index_share_of_file: f64,
}

/// Imports a generated stream into a recording in `dir` and measures
/// import, size and open. The files are removed afterwards.
pub fn import_figures(
    config: GenConfig,
    dir: &std::path::Path,
    sql_indexes: bool,
) -> anyhow::Result<ImportFigures> {
    let stamp = format!("{}-{}", std::process::id(), config.seed);
    let input = dir.join(format!("agui-replay-bench-{stamp}.jsonl"));
    let recording = dir.join(format!("agui-replay-bench-{stamp}.rec"));
    let cleanup = || {
        let _ = std::fs::remove_file(&input);
        for suffix in ["", "-wal", "-shm"] {
            let mut path = recording.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    };
    cleanup();
    let result = (|| -> anyhow::Result<ImportFigures> {
        generate::write_jsonl(config, &input)?;
        let input_bytes = std::fs::metadata(&input)?.len();

        let started = Instant::now();
        agui_replay::store::import_files_with(
            std::slice::from_ref(&input),
            &recording,
            agui_replay::store::ImportOptions { sql_indexes },
            &mut |_| {},
        )?;
        let import_secs = started.elapsed().as_secs_f64();
        let file_bytes = std::fs::metadata(&recording)?.len();

        let started = Instant::now();
        let opened = agui_replay::store::Recording::open(&recording)?;
        let session = opened.pick_session(None)?.id;
        let num_events = opened.pick_session(None)?.num_events;
        let first_page = opened.events(session, 1..201)?;
        let open_ms = started.elapsed().as_secs_f64() * 1e3;
        anyhow::ensure!(
            num_events as usize == config.events && first_page.len() == 200.min(config.events),
            "the recording holds {num_events} events, not {}",
            config.events
        );
        let started = Instant::now();
        let all = opened.load_events(session)?;
        let load_all_ms = started.elapsed().as_secs_f64() * 1e3;
        anyhow::ensure!(all.len() == config.events, "loaded {} events", all.len());
        let options = agui_replay::replay::Options::default();
        let index_bytes = match opened.stored_index(session, options)? {
            Ok(blob) => blob.len() as u64,
            Err(why) => anyhow::bail!("the import stored no index: {why}"),
        };
        let started = Instant::now();
        let stored = opened.stored_timeline_of(session, options, all.clone())?;
        let open_stored_ms = started.elapsed().as_secs_f64() * 1e3;
        let stored = stored.map_err(|why| anyhow::anyhow!("the stored index is unused: {why}"))?;
        anyhow::ensure!(
            stored.len() == config.events,
            "the stored timeline is short"
        );
        drop(stored);
        let started = Instant::now();
        let replayed = agui_replay::timeline::Timeline::from_log(all, options);
        let replay_ms = started.elapsed().as_secs_f64() * 1e3;
        drop(replayed);

        Ok(ImportFigures {
            events: config.events,
            input_bytes,
            sql_indexes,
            import_events_per_sec: per_sec(config.events, import_secs),
            file_bytes,
            file_bytes_per_event: ((file_bytes as f64 / config.events.max(1) as f64) * 10.0)
                .round()
                / 10.0,
            open_ms: (open_ms * 10.0).round() / 10.0,
            load_all_ms: (load_all_ms * 10.0).round() / 10.0,
            open_stored_ms: (open_stored_ms * 10.0).round() / 10.0,
            replay_ms: (replay_ms * 10.0).round() / 10.0,
            index_bytes,
            index_share_of_file: ((index_bytes as f64 / file_bytes.max(1) as f64) * 1000.0).round()
                / 1000.0,
        })
    })();
    cleanup();
    result
}

/// Rounds of a parse then a replay that `bench replay` measures its
/// replay/parse ratio in: a machine whose other load comes and goes slows
/// one measurement of a pair rather than both, and the median of the
/// rounds' ratios is what is left of that (issue 14: one round gave 0.59
/// to 1.26 between runs).
pub const RATIO_ROUNDS: usize = 3;

/// The mean time, in nanoseconds, of a round trip between two threads
/// through one cache line (one writes, the other answers, 20,000 times):
/// about the latency of moving a line from one core to the other, and
/// therefore of where the machine placed the two (sharing a cache or not).
/// Measured for at most 100 ms, on a loaded machine as far as it got; 0
/// when no trip was made in that time (the other thread never ran).
pub fn cross_core_round_trip_ns() -> f64 {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    const TRIPS: u64 = 20_000;
    const LONGEST: std::time::Duration = std::time::Duration::from_millis(100);
    let ball = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The other side answers each odd number with the next.
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let seen = ball.load(Ordering::Acquire);
                if !seen.is_multiple_of(2) {
                    ball.store(seen + 1, Ordering::Release);
                } else {
                    std::hint::spin_loop();
                }
            }
        });
        let started = Instant::now();
        let mut trips = 0;
        'trips: while trips < TRIPS {
            ball.store(2 * trips + 1, Ordering::Release);
            let mut spins = 0u32;
            while ball.load(Ordering::Acquire) != 2 * trips + 2 {
                std::hint::spin_loop();
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(4096) && started.elapsed() > LONGEST {
                    break 'trips;
                }
            }
            trips += 1;
            if trips.is_multiple_of(256) && started.elapsed() > LONGEST {
                break;
            }
        }
        let elapsed = started.elapsed();
        done.store(true, Ordering::Relaxed);
        if trips == 0 {
            0.0
        } else {
            (elapsed.as_nanos() as f64 / trips as f64).round()
        }
    })
}

/// [`cross_core_round_trip_ns`] once the replay that just returned is
/// done with the other core (issue 14: measured at once, the round trip
/// came out 500–1,600 ns, and 55–75 ns measured again straight after; most
/// likely its reading thread, joined, still finishing its exit there),
/// which the measure would take for the cores being apart.
fn round_trip_after_replay() -> f64 {
    std::thread::sleep(std::time::Duration::from_millis(20));
    cross_core_round_trip_ns()
}

/// The time `serde_json` takes to parse every event of `log` into a `Value`.
fn parse_only_secs(log: &EventLog) -> f64 {
    let started = Instant::now();
    let mut parsed = 0usize;
    for (_, raw) in log.iter() {
        if serde_json::from_slice::<Value>(raw).is_ok() {
            parsed += 1;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    debug_assert_eq!(parsed, log.len());
    secs
}

const _: () = assert!(
    RATIO_ROUNDS % 2 == 1,
    "an odd number of rounds has a middle one"
);

/// The middle one of one value per round.
fn median(rounds: &[f64]) -> f64 {
    let mut sorted = rounds.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// `parse_secs / replay_secs` to three decimals (0 for no time).
fn rounded_ratio(parse_secs: f64, replay_secs: f64) -> f64 {
    if replay_secs > 0.0 {
        (parse_secs / replay_secs * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

/// Generates a stream and measures parse, replay and seek.
pub fn replay_figures(config: GenConfig, num_seeks: usize) -> ReplayFigures {
    let log = generate(config);
    let apply_secs = apply_only_secs(&log);

    let num_events = log.len();
    let stream_bytes = log.num_bytes();
    let mut parse_rounds = Vec::with_capacity(RATIO_ROUNDS);
    let mut replay_rounds = Vec::with_capacity(RATIO_ROUNDS);
    // Every round but the last replays a copy of the log, made before the
    // clock starts, and drops its timeline before the next.
    let mut placements = Vec::with_capacity(RATIO_ROUNDS);
    for _ in 1..RATIO_ROUNDS {
        parse_rounds.push(parse_only_secs(&log));
        let copy = log.clone();
        let before = cross_core_round_trip_ns();
        let started = Instant::now();
        let timeline = Timeline::from_log(copy, Options::default());
        replay_rounds.push(started.elapsed().as_secs_f64());
        placements.push([before, round_trip_after_replay()]);
        drop(timeline);
    }
    // The last one replays the log itself, into the timeline that is
    // measured and sought in.
    parse_rounds.push(parse_only_secs(&log));
    let allocated_before = jemalloc_is_the_allocator().then(allocated_bytes).flatten();
    let before = cross_core_round_trip_ns();
    let started = Instant::now();
    let timeline = Timeline::from_log(log, Options::default());
    replay_rounds.push(started.elapsed().as_secs_f64());
    placements.push([before, round_trip_after_replay()]);
    let timeline_bytes =
        allocated_before.and_then(|before| Some(allocated_bytes()?.saturating_sub(before)));
    let ratios: Vec<f64> = parse_rounds
        .iter()
        .zip(&replay_rounds)
        .map(|(&parse, &replay)| rounded_ratio(parse, replay))
        .collect();

    let mut rng = Pcg64Mcg::seed_from_u64(config.seed ^ 0x5eed);
    let mut seek_millis = Vec::with_capacity(num_seeks);
    let last = timeline.last_step().get();
    for _ in 0..num_seeks {
        let step = Seq::new(rng.random_range(0..=last));
        let started = Instant::now();
        let state = timeline.seek(step);
        seek_millis.push(started.elapsed().as_secs_f64() * 1e3);
        assert_eq!(state.step(), step, "seek lands on its step");
    }
    seek_millis.sort_by(f64::total_cmp);
    let search = search_figures(&timeline, &mut rng, num_seeks.min(100));
    let blame = blame_figures(&timeline, config);
    let num_checkpoints = timeline.num_checkpoints();
    drop(timeline);
    let checkpoint_bytes = timeline_bytes
        .and_then(|with| Some(with.saturating_sub(bytes_without_checkpoints(config)?)));

    ReplayFigures {
        events: num_events,
        activities: config.activities,
        seed: config.seed,
        stream_bytes,
        parse_events_per_sec: per_sec(num_events, median(&parse_rounds)),
        replay_events_per_sec: per_sec(num_events, median(&replay_rounds)),
        replay_to_parse_ratio: median(&ratios),
        replay_to_parse_ratios: ratios,
        cross_core_round_trip_ns: placements,
        apply_events_per_sec: per_sec(num_events, apply_secs),
        apply_to_parse_ratio: rounded_ratio(median(&parse_rounds), apply_secs),
        seeks: num_seeks,
        seek_p50_ms: percentile(&seek_millis, 0.50),
        seek_p99_ms: percentile(&seek_millis, 0.99),
        seek_max_ms: percentile(&seek_millis, 1.0),
        find_all_ms: search.find_all_ms,
        find_all_matches: search.find_all_matches,
        search_next_p99_ms: search.next_p99_ms,
        search_previous_p99_ms: search.previous_p99_ms,
        blame_ms: blame.activity_ms,
        blame_changes: blame.activity.changes.len(),
        blame_events_replayed: blame.activity.events_replayed,
        blame_replayed: blame.activity.replayed,
        blame_state_ms: blame.state_ms,
        blame_state_changes: blame.state.changes.len(),
        checkpoints: num_checkpoints,
        checkpoint_bytes,
        peak_rss_bytes: peak_rss_bytes(),
    }
}

/// The seconds a timeline takes to apply the events of `log` on one
/// thread, once read: they are read chunk by chunk beforehand, untimed, so
/// that what is timed is what the replay's applying thread does (applying,
/// indexing, checkpoints, dropping what is left of each event) plus a copy
/// of each event's bytes.
fn apply_only_secs(log: &EventLog) -> f64 {
    const CHUNK_EVENTS: usize = 65_536;
    let mut timeline = Timeline::builder(Options::default()).empty();
    let mut secs = 0.0;
    let mut from = 0;
    while from < log.len() {
        let to = (from + CHUNK_EVENTS).min(log.len());
        // Read by range: skipping to each chunk's start along the log
        // walked it from the start again for every chunk.
        let mut chunk = Vec::with_capacity(to - from);
        log.for_each_raw(from..to, &mut |seq, raw| {
            chunk.push((seq, parse_event(raw)))
        });
        let started = Instant::now();
        for (seq, parsed) in chunk {
            timeline.append_parsed(log.get(seq).unwrap_or_default(), parsed);
        }
        secs += started.elapsed().as_secs_f64();
        from = to;
    }
    timeline.finish();
    drop(timeline);
    secs
}

struct BlameFigures {
    activity_ms: f64,
    activity: agui_replay::search::Blame,
    state_ms: f64,
    state: agui_replay::search::Blame,
}

/// Times blame (issue 17.2) of an activity value and of a state value at
/// the last step.
fn blame_figures(timeline: &Timeline, config: GenConfig) -> BlameFigures {
    use agui_replay::search::{Target, blame};
    let last = timeline.last_step();
    let time = |target: Target, pointer: &str| {
        let started = Instant::now();
        let found = blame(timeline, &target, pointer, last).expect("a valid pointer");
        let ms = started.elapsed().as_secs_f64() * 1e3;
        ((ms * 10.0).round() / 10.0, found)
    };
    let activity = Target::Message(format!("act-{:04}", config.activities / 2));
    let (activity_ms, activity) = time(activity, "/content/progress");
    let (state_ms, state) = time(Target::State, "/counter");
    BlameFigures {
        activity_ms,
        activity,
        state_ms,
        state,
    }
}

struct SearchFigures {
    find_all_ms: f64,
    find_all_matches: usize,
    next_p99_ms: f64,
    previous_p99_ms: f64,
}

/// Times search over time on a generated stream (its state's `/last` names
/// an activity now and then).
fn search_figures(timeline: &Timeline, rng: &mut Pcg64Mcg, num_searches: usize) -> SearchFigures {
    use agui_replay::search::{Predicate, Query, Search, SearchStatus, Target, find_all};
    let query = Query::new(
        Target::State,
        "/last",
        Predicate::Equals(Value::from("act-0042")),
    )
    .expect("a valid pointer");
    let started = Instant::now();
    let matches = find_all(timeline, &query);
    let find_all_ms = started.elapsed().as_secs_f64() * 1e3;
    let last = timeline.last_step().get();
    let time = |previous: bool, rng: &mut Pcg64Mcg| {
        let mut millis: Vec<f64> = (0..num_searches)
            .map(|_| {
                let from = Seq::new(rng.random_range(0..=last));
                let started = Instant::now();
                let mut search = if previous {
                    Search::previous(query.clone(), from)
                } else {
                    Search::next(query.clone(), from)
                };
                while let SearchStatus::Pending { .. } = search.advance(timeline, usize::MAX) {}
                started.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        millis.sort_by(f64::total_cmp);
        percentile(&millis, 0.99)
    };
    let next_p99_ms = time(false, rng);
    let previous_p99_ms = time(true, rng);
    SearchFigures {
        find_all_ms: (find_all_ms * 10.0).round() / 10.0,
        find_all_matches: matches.len(),
        next_p99_ms,
        previous_p99_ms,
    }
}

fn per_sec(count: usize, secs: f64) -> f64 {
    if secs > 0.0 {
        (count as f64 / secs).round()
    } else {
        0.0
    }
}

/// The value at quantile `q` of sorted samples (nearest rank).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    (sorted[rank - 1] * 1e3).round() / 1e3
}

/// Bytes currently allocated, by jemalloc's statistics.
pub(crate) fn allocated_bytes() -> Option<usize> {
    tikv_jemalloc_ctl::epoch::advance().ok()?;
    tikv_jemalloc_ctl::stats::allocated::read().ok()
}

/// Whether jemalloc is the global allocator (its statistics see our
/// allocations): true in the `agui-replay` binary, false in tests.
pub(crate) fn jemalloc_is_the_allocator() -> bool {
    const PROBE_BYTES: usize = 1 << 20;
    let Some(before) = allocated_bytes() else {
        return false;
    };
    let probe = std::hint::black_box(vec![1u8; PROBE_BYTES]);
    let after = allocated_bytes().unwrap_or(0);
    drop(probe);
    // Thread caches flushing meanwhile blur the count by a few kilobytes.
    after >= before + PROBE_BYTES / 2
}

/// The heap bytes a timeline of the same stream holds with no checkpoint
/// but step 0: the stream is generated again (the same seed gives the same
/// bytes) and replayed with a policy that never takes one. What the
/// checkpoints hold is the difference, measured through the public API.
fn bytes_without_checkpoints(config: GenConfig) -> Option<usize> {
    let log = generate(config);
    let never = CheckpointPolicy {
        max_cost: u64::MAX,
        op_cost: 0,
    };
    let before = allocated_bytes()?;
    let timeline = Timeline::builder(Options::default())
        .policy(never)
        .replay(log);
    let after = allocated_bytes()?;
    drop(timeline);
    Some(after.saturating_sub(before))
}

/// The peak resident set size of this process, from `/proc/self/status`.
pub fn peak_rss_bytes() -> Option<u64> {
    peak_rss_of("/proc/self/status")
}

/// `VmHWM` of a `/proc/PID/status` file, in bytes.
fn peak_rss_of(status_file: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status_file).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&samples, 0.5), 50.0);
        assert_eq!(percentile(&samples, 0.99), 99.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn small_run_reports_consistent_figures() {
        let figures = replay_figures(
            GenConfig {
                events: 2_000,
                activities: 10,
                seed: 1,
            },
            50,
        );
        assert_eq!(figures.events, 2_000);
        assert!(figures.stream_bytes > 2_000 * 100);
        assert!(figures.replay_events_per_sec > 0.0);
        assert!(figures.seek_p50_ms <= figures.seek_p99_ms);
        assert!(figures.seek_p99_ms <= figures.seek_max_ms);
        assert!(figures.checkpoints >= 1);
    }
}
