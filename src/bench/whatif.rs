//! `agui-replay bench whatif` (issue 41): what an edit in the middle of a
//! long stream costs in the app. The app's model opens a generated stream
//! (JSON lines, or imported into a recording), waits until it is indexed,
//! puts the cursor in the middle, then applies one edit there (the event
//! at the cursor skipped, then the same event replaced) and times, for
//! each, the state at the cursor being shown (the edited replay starts
//! from the checkpoint before the edit) and the edited timeline being
//! whole (indexed in the background).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use agui_replay::app_model::command::Command;
use agui_replay::app_model::state::AppState;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::app_model::whatif::WhatIfCommand;
use agui_replay::diagnostic::Seq;

use super::GenConfig;

/// The figures of `agui-replay bench whatif`.
#[derive(Clone, Debug, Serialize)]
pub struct WhatifFigures {
    /// Events in the generated stream.
    pub events: usize,
    /// `jsonl` (the events in memory) or `rec` (a recording, its events
    /// left in the file).
    pub file: &'static str,
    /// From the start of the open to the whole stream indexed (for scale:
    /// what a replay from step 0 costs).
    pub open_to_whole_ms: f64,
    /// The step the cursor is at, and the edit names.
    pub cursor: u64,
    /// The event at the cursor skipped: from the command to the state at
    /// the cursor computed on the edited stream, the least of three rounds
    /// (goal ≤ 100 ms).
    pub skip_to_cursor_ms: f64,
    /// Each round's time to the state at the cursor (the figure above is
    /// the least).
    pub skip_rounds_ms: Vec<f64>,
    /// From the same command to the edited timeline whole (indexed in the
    /// background).
    pub skip_to_whole_ms: f64,
    /// The event at the cursor replaced by other JSON (the editor's Apply):
    /// to the state at the cursor, the least of the rounds.
    pub replace_to_cursor_ms: f64,
    /// Each round's time to the state at the cursor.
    pub replace_rounds_ms: Vec<f64>,
    /// The same, to the edited timeline whole.
    pub replace_to_whole_ms: f64,
    /// Toggling back to the recording and to the edited stream again: the
    /// slower of the two, to the state at the cursor.
    pub toggle_ms: f64,
    /// Where a skip's time goes, the engine's parts alone (the app's
    /// model adds the event list's rows, the view and the inspector):
    /// the edited stream laid over the recording's events.
    pub engine_layout_ms: f64,
    /// The timeline sharing the recording's up to the checkpoint before
    /// the edit.
    pub engine_shared_prefix_ms: f64,
    /// Its replay on to the cursor.
    pub engine_replay_to_cursor_ms: f64,
    /// The state at the cursor, sought in it.
    pub engine_seek_ms: f64,
}

/// Generates the stream into `dir` (a recording if `recording`), opens it
/// in the app's model and times the edits.
pub fn whatif_figures(
    config: GenConfig,
    dir: &Path,
    recording: bool,
) -> anyhow::Result<WhatifFigures> {
    let work = dir.join(format!("agui-replay-bench-whatif-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let result = (|| {
        let path = write_stream(config, &work, recording)?;
        measure(config, &path, recording)
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// The generated stream as JSON lines in `work`, imported into a
/// recording if asked.
fn write_stream(config: GenConfig, work: &Path, recording: bool) -> anyhow::Result<PathBuf> {
    let input = work.join("stream.jsonl");
    super::generate::write_jsonl(config, &input)?;
    if !recording {
        return Ok(input);
    }
    let rec = work.join("stream.rec");
    agui_replay::store::import_files(std::slice::from_ref(&input), &rec, &mut |_| {})?;
    let _ = std::fs::remove_file(&input);
    Ok(rec)
}

/// Rounds of the skip.
const ROUNDS: usize = 3;

fn millis(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 10_000.0).round() / 10.0
}

/// Polls the background indexing until the timeline is whole.
fn wait_until_whole(state: &mut AppState) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        state.poll_indexing();
        let doc = state
            .doc()
            .ok_or_else(|| anyhow::anyhow!("the stream closed"))?;
        if doc.indexing.as_ref().is_none_or(|i| i.comparing) {
            return match state.error() {
                Some(error) => Err(anyhow::anyhow!("indexing failed: {error}")),
                None => Ok(()),
            };
        }
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(600),
            "indexing took more than 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn measure(config: GenConfig, path: &Path, recording: bool) -> anyhow::Result<WhatifFigures> {
    let mut state = AppState::default();
    let opening = Instant::now();
    state.open_now(path, None);
    if let Some(error) = state.error() {
        anyhow::bail!("cannot open the generated stream: {error}");
    }
    wait_until_whole(&mut state)?;
    let open_to_whole_ms = millis(opening);
    // The profiles' comparison after the open is not timed.
    state.wait_for_indexing();
    let num_events = state.doc().map_or(0, |d| d.num_events());
    let cursor = Seq::new((num_events / 2).max(1));
    state.apply(vec![Command::Time(TimeCommand::Set(cursor))]);

    let shown = |state: &AppState| -> anyhow::Result<()> {
        anyhow::ensure!(state.whatif().showing_edited(), "the edit was refused");
        let view = state.view().ok_or_else(|| anyhow::anyhow!("no view"))?;
        anyhow::ensure!(view.step == cursor, "the cursor moved to {}", view.step);
        Ok(())
    };

    // A few rounds: the machine is shared, the least is the cost.
    let mut skip_rounds_ms = Vec::new();
    let mut skip_to_whole_ms = f64::INFINITY;
    for round in 0..ROUNDS {
        if round > 0 {
            state.apply(vec![Command::WhatIf(WhatIfCommand::Clear)]);
            // The edited stream dropped is freed off the thread: let it.
            std::thread::sleep(Duration::from_millis(500));
        }
        let skipping = Instant::now();
        state.apply(vec![Command::WhatIf(WhatIfCommand::Skip(cursor))]);
        skip_rounds_ms.push(millis(skipping));
        shown(&state)?;
        wait_until_whole(&mut state)?;
        skip_to_whole_ms = skip_to_whole_ms.min(millis(skipping));
        state.wait_for_indexing();
    }
    let skip_to_cursor_ms = skip_rounds_ms.iter().copied().fold(f64::INFINITY, f64::min);

    // The same step replaced instead, in rounds too: the editor opened on
    // the event the cursor shows (the recorded one, the edits cleared),
    // its text applied.
    let mut replace_rounds_ms = Vec::new();
    let mut replace_to_whole_ms = f64::INFINITY;
    for _ in 0..ROUNDS {
        state.apply(vec![Command::WhatIf(WhatIfCommand::Clear)]);
        std::thread::sleep(Duration::from_millis(500));
        state.apply(vec![Command::WhatIf(WhatIfCommand::Edit(cursor))]);
        state.wait_for_indexing();
        let text = state
            .whatif()
            .editor()
            .map(|e| e.text.clone())
            .ok_or_else(|| anyhow::anyhow!("the editor did not open"))?;
        state.apply(vec![Command::WhatIf(WhatIfCommand::SetText(text))]);
        let replacing = Instant::now();
        state.apply(vec![Command::WhatIf(WhatIfCommand::ApplyEditor)]);
        replace_rounds_ms.push(millis(replacing));
        shown(&state)?;
        wait_until_whole(&mut state)?;
        replace_to_whole_ms = replace_to_whole_ms.min(millis(replacing));
        state.wait_for_indexing();
    }
    let replace_to_cursor_ms = replace_rounds_ms
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);

    // The engine's parts of a skip, alone, on the recording.
    state.apply(vec![Command::WhatIf(WhatIfCommand::Clear)]);
    std::thread::sleep(Duration::from_millis(500));
    let doc = state
        .doc()
        .ok_or_else(|| anyhow::anyhow!("the stream closed"))?;
    let recorded = std::sync::Arc::clone(&doc.timeline);
    let laying = Instant::now();
    let edits = agui_replay::whatif::Edits::new(
        vec![agui_replay::whatif::Edit::Drop(cursor)],
        recorded.len(),
        doc.source.run_input.is_some(),
    )?;
    let events = edits.over(recorded.events());
    let arrivals = events
        .layout()
        .arrivals(0..cursor.get() as usize, &doc.arrival_nanos);
    let engine_layout_ms = millis(laying);
    let sharing = Instant::now();
    let mut timeline = recorded.shared_prefix(cursor);
    let engine_shared_prefix_ms = millis(sharing);
    let replaying = Instant::now();
    let to = cursor.get() as usize + 1;
    timeline.extend_from(&events, to.saturating_sub(timeline.len()));
    let engine_replay_to_cursor_ms = millis(replaying);
    let seeking = Instant::now();
    let at = timeline.seek(cursor);
    let engine_seek_ms = millis(seeking);
    anyhow::ensure!(at.step() == cursor && arrivals.len() == cursor.get() as usize);
    drop((timeline, events, at));
    state.apply(vec![
        Command::WhatIf(WhatIfCommand::Edit(cursor)),
        Command::WhatIf(WhatIfCommand::ApplyEditor),
    ]);
    state.wait_for_indexing();

    let mut toggle_ms: f64 = 0.0;
    for _ in 0..2 {
        let toggling = Instant::now();
        state.apply(vec![Command::WhatIf(WhatIfCommand::Toggle)]);
        toggle_ms = toggle_ms.max(millis(toggling));
    }
    shown(&state)?;
    Ok(WhatifFigures {
        events: config.events,
        file: if recording { "rec" } else { "jsonl" },
        open_to_whole_ms,
        cursor: cursor.get(),
        skip_to_cursor_ms,
        skip_rounds_ms,
        replace_rounds_ms,
        skip_to_whole_ms,
        replace_to_cursor_ms,
        replace_to_whole_ms,
        toggle_ms,
        engine_layout_ms,
        engine_shared_prefix_ms,
        engine_replay_to_cursor_ms,
        engine_seek_ms,
    })
}
