//! `agui-replay bench ui`: the app driven headless through frames of
//! scrubbing on a large recording, timed.

use crate::ui::TimeCommand;
use std::path::Path;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{Command, ReplayApp};
use crate::diagnostic::Seq;

/// What `agui-replay bench ui` measures in the app; the binary's bench
/// turns it into figures.
#[derive(Clone, Debug)]
pub struct UiTimings {
    /// Events in the recording.
    pub events: u64,
    /// Opening the recording (read, replay, indices), before the first frame.
    pub open_ms: f64,
    /// Each frame (the scrub's seek, the whole UI laid out and
    /// tessellated), in milliseconds, sorted.
    pub frame_millis: Vec<f64>,
    /// A search over every event that matches nothing, as `agui-replay
    /// find` runs it ([`crate::search::find_in_log`] over the loaded
    /// events, without the load).
    pub find_all_ms: f64,
    /// The same search run by the app's "Find all" (issue 13, point 4):
    /// from the command to the frame that shows the list complete, the
    /// frames drawn as the app draws them while it runs (one each
    /// [`crate::ui::search::LIST_POLL`]).
    pub app_search_all_ms: f64,
}

/// The query of the search figures: the state's `/last` equal to a value
/// it never takes, so that every event is replayed and followed.
fn no_match_query() -> crate::search::Query {
    crate::search::Query::new(
        crate::search::Target::State,
        "/last",
        crate::search::Predicate::Equals(serde_json::Value::from("no-such-activity")),
    )
    .expect("a valid pointer")
}

/// Opens `recording` in the app and runs `frames` frames, each moving the
/// cursor by a scrub (mostly small moves, sometimes a jump), at 1400×900.
pub fn ui_timings(recording: &Path, frames: usize, seed: u64) -> anyhow::Result<UiTimings> {
    let started = Instant::now();
    let mut app = ReplayApp::with_file(recording);
    if let Some(error) = app.state.error() {
        anyhow::bail!("{error}");
    }
    let open_ms = started.elapsed().as_secs_f64() * 1e3;
    let events = app.state.doc().map_or(0, |d| d.num_events());
    let ctx = egui::Context::default();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1400.0, 900.0),
        )),
        ..Default::default()
    };
    // Warm-up: fonts, layout caches.
    let frame = |app: &mut ReplayApp| {
        let mut output = ctx.run_ui(input(), |ui| app.ui(ui));
        // No renderer: the textures are dropped, not uploaded.
        output.textures_delta.clear();
        let _ = ctx.tessellate(output.shapes, output.pixels_per_point);
    };
    for _ in 0..3 {
        frame(&mut app);
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut step = events / 2;
    let mut millis = Vec::with_capacity(frames);
    for _ in 0..frames {
        step = if rng.random_bool(0.05) {
            rng.random_range(0..=events)
        } else {
            let delta = rng.random_range(-2000i64..=2000);
            step.saturating_add_signed(delta).min(events)
        };
        let started = Instant::now();
        app.state
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        frame(&mut app);
        millis.push(started.elapsed().as_secs_f64() * 1e3);
    }
    millis.sort_by(f64::total_cmp);

    let query = no_match_query();
    let Some(doc) = app.state.doc() else {
        anyhow::bail!("the recording did not open");
    };
    let started = Instant::now();
    let mut num_matches = 0usize;
    crate::search::find_in_log(
        doc.timeline.seek(Seq::START),
        doc.timeline.events(),
        &query,
        |_| {
            num_matches += 1;
            std::ops::ControlFlow::Continue(())
        },
    );
    let find_all_ms = started.elapsed().as_secs_f64() * 1e3;
    anyhow::ensure!(num_matches == 0, "the no-match query matched");

    let started = Instant::now();
    app.state.apply(vec![Command::Search(
        crate::ui::command::SearchCommand::All(query),
    )]);
    loop {
        frame(&mut app);
        match app.state.search().list() {
            Some(list) if list.is_running() => std::thread::sleep(crate::ui::search::LIST_POLL),
            Some(list) if list.is_complete() => break,
            _ => anyhow::bail!("the app's search did not run to the end"),
        }
    }
    let app_search_all_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(UiTimings {
        events,
        open_ms,
        frame_millis: millis,
        find_all_ms,
        app_search_all_ms,
    })
}
