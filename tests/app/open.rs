//! Opening a long recording (issue 13, point 9; issue 14, points 2 and 3):
//! its first rows show while the rest is indexed in the background, with a
//! percentage and a Cancel that keeps what was indexed; once whole, the
//! timeline and the divergences equal those of a replay in memory.

use std::io::Write;
use std::time::{Duration, Instant};

use agui_replay::app_model::document::LoadOptions;
use agui_replay::app_model::indexing::IndexPlan;
use agui_replay::replay::{Lockstep, Replayer, replay_comparing};
use agui_replay::timeline::Timeline;
use agui_replay::ui::ReplayApp;
use agui_replay::{EventLog, Options, Seq};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::TempPath;
use crate::common::generator::{GenConfig, generate};
use crate::common::store::{assert_unchanged, file_state, import};

const EVENTS: usize = 50_000;

/// A generated stream of [`EVENTS`] events imported into a recording.
fn long_recording(test: &str) -> (EventLog, TempPath) {
    let log = generate(GenConfig {
        events: EVENTS,
        activities: 30,
        seed: 5,
    });
    let jsonl = TempPath::new(test, "long.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(jsonl.path()).expect("create"));
    for (_, raw) in log.iter() {
        file.write_all(raw).expect("write");
        file.write_all(b"\n").expect("write");
    }
    file.flush().expect("flush");
    drop(file);
    let rec = TempPath::new(test, "long.rec");
    import(&[jsonl.path().to_owned()], rec.path());
    (log, rec)
}

/// Indexing in chunks of 5,000 events past the first 10,000, the index
/// `import` stored ignored (`--no-stored-index`).
fn small_chunks(paced: bool) -> LoadOptions {
    LoadOptions {
        stored_index: false,
        sync_events: 10_000,
        plan: IndexPlan {
            chunk_events: 5_000,
            publish_every: Duration::ZERO,
            paced,
        },
    }
}

/// The app at 1400×900 opening `path` with `options`, one frame drawn.
fn opening(path: &std::path::Path, options: LoadOptions) -> Harness<'static, ReplayApp> {
    let mut app = ReplayApp::new(None);
    app.state.set_load_options(options);
    app.state.open_now(path, None);
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut ReplayApp| app.ui(ui), app);
    harness.step();
    harness
}

fn num_events(harness: &Harness<'static, ReplayApp>) -> u64 {
    harness.state().state.doc().map_or(0, |d| d.num_events())
}

#[test]
fn a_long_recording_shows_its_first_rows_while_it_is_indexed_and_cancel_keeps_them() {
    // Issue 13, point 9: rows at once, a percentage, a Cancel.
    let (_, rec) = long_recording("open-progress");
    let before = file_state(rec.path());
    let mut harness = opening(rec.path(), small_chunks(true));
    let shown = num_events(&harness);
    {
        let state = &harness.state().state;
        assert!(state.error().is_none(), "{:?}", state.error());
        let doc = state.doc().expect("open");
        let indexing = doc.indexing.as_ref().expect("indexing in the background");
        assert_eq!(indexing.total, EVENTS as u64);
        assert!(
            (5_000..EVENTS as u64).contains(&shown),
            "the first chunks, not all: {shown}"
        );
        assert!(doc.timeline.events().is_file(), "events left in the file");
        assert_eq!(
            state.event_rows().len() as u64,
            shown,
            "every row read so far"
        );
        assert_eq!(
            state.view().map(|v| v.step),
            Some(Seq::new(1)),
            "the inspector at step 1"
        );
    }
    let percent = shown * 100 / EVENTS as u64;
    harness.get_by_label(&format!(
        "Indexing {percent}% · {} of 50,000 events",
        agui_replay::app_model::words::thousands(shown)
    ));
    // Frames go on: more is shown, still not all (each chunk waits for the
    // app to take the last).
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(30));
        harness.step();
    }
    let later = num_events(&harness);
    assert!(
        later >= shown && later < EVENTS as u64,
        "{shown} then {later}"
    );
    assert_eq!(harness.state().state.event_rows().len() as u64, later);

    harness.get_by_label("Cancel").click();
    harness.step();
    harness.step();
    let kept = num_events(&harness);
    {
        let doc = harness.state().state.doc().expect("still open");
        assert!(doc.indexing.is_none(), "indexing stopped");
        assert_eq!(doc.cancelled, Some(EVENTS as u64));
        assert!(kept >= later && kept < EVENTS as u64, "kept {kept}");
    }
    harness.get_by_label(&format!(
        "Indexed {} of 50,000 events (cancelled)",
        agui_replay::app_model::words::thousands(kept)
    ));
    // Nothing more arrives, and the events kept still show.
    std::thread::sleep(Duration::from_millis(100));
    harness.step();
    assert_eq!(num_events(&harness), kept);
    harness
        .state_mut()
        .state
        .apply(vec![agui_replay::app_model::command::Command::Time(
            agui_replay::app_model::time_control::TimeCommand::Set(Seq::new(kept)),
        )]);
    harness.step();
    assert_eq!(
        harness.state().state.view().map(|v| v.step),
        Some(Seq::new(kept))
    );
    drop(harness);
    assert_unchanged(
        rec.path(),
        &before,
        "opening it and cancelling the indexing",
    );
}

#[test]
fn a_long_recording_indexed_in_the_background_equals_a_replay_in_memory() {
    let (log, rec) = long_recording("open-whole");
    let mut harness = opening(rec.path(), small_chunks(false));
    // Frames until whole, as the app draws them (bounded).
    let started = Instant::now();
    while harness
        .state()
        .state
        .doc()
        .is_some_and(|d| d.indexing.is_some())
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "indexing took too long"
        );
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    harness.step();
    let state = &harness.state().state;
    let doc = state.doc().expect("open");
    assert!(doc.is_whole());
    assert_eq!(doc.num_events(), EVENTS as u64);
    assert_eq!(doc.arrival_nanos.len(), EVENTS);
    assert_eq!(state.event_rows().len(), EVENTS);
    let options = Options::default();
    let memory = Timeline::from_log(log.clone(), options);
    assert_eq!(doc.timeline.diagnostics(), memory.diagnostics());
    assert_eq!(doc.timeline.effects(), memory.effects());
    assert_eq!(doc.timeline.index().lanes(), memory.index().lanes());
    for step in [0u64, 1, 9_999, 10_001, 31_337, EVENTS as u64] {
        let step = Seq::new(step);
        assert_eq!(
            doc.timeline.seek(step).document(),
            memory.seek(step).document()
        );
    }
    // P13, computed off the path to the first frame.
    let divergences = replay_comparing(
        Replayer::new(options),
        Replayer::new(Lockstep::other_options(options)),
        &log,
    )
    .1;
    assert_eq!(doc.divergences, divergences);
    assert!(harness.query_by_label_contains("Indexing").is_none());
}

#[test]
fn a_recording_with_its_stored_index_opens_whole_at_once_with_its_events_in_the_file() {
    // Issue 14, points 2 and 3: `import` stored the index, so the open
    // reads it instead of replaying: every event on the timeline in the
    // first frame, events left in the file, only the profiles' comparison
    // in the background.
    let (log, rec) = long_recording("open-stored");
    let before = file_state(rec.path());
    let mut harness = opening(
        rec.path(),
        LoadOptions {
            stored_index: true,
            ..small_chunks(true)
        },
    );
    {
        let state = &harness.state().state;
        assert!(state.error().is_none(), "{:?}", state.error());
        let doc = state.doc().expect("open");
        assert!(doc.is_whole(), "the whole timeline in the first frame");
        assert_eq!(doc.num_events(), EVENTS as u64);
        assert_eq!(doc.arrival_nanos.len(), EVENTS);
        assert!(doc.timeline.events().is_file(), "events left in the file");
        assert_eq!(state.event_rows().len(), EVENTS);
        let memory = Timeline::from_log(log.clone(), Options::default());
        assert_eq!(doc.timeline.diagnostics(), memory.diagnostics());
        assert_eq!(doc.timeline.index().lanes(), memory.index().lanes());
        for step in [1u64, 12_345, 49_999] {
            let step = Seq::new(step);
            assert_eq!(
                doc.timeline.seek(step).document(),
                memory.seek(step).document()
            );
        }
    }
    assert!(harness.query_by_label_contains("Indexing").is_none());
    // The comparison finishes in the background and marks what differs.
    harness.state_mut().state.wait_for_indexing();
    harness.step();
    let divergences = replay_comparing(
        Replayer::new(Options::default()),
        Replayer::new(Lockstep::other_options(Options::default())),
        &log,
    )
    .1;
    assert_eq!(
        harness.state().state.doc().expect("open").divergences,
        divergences
    );
    drop(harness);
    assert_unchanged(rec.path(), &before, "opening it with its stored index");
}
