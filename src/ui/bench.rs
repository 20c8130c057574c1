//! `agui-replay bench ui`: the app driven headless, timed: how long until it
//! is usable on a large recording (issue 14, point 1), then frames of
//! scrubbing.

use crate::app_model::time_control::TimeCommand;
use std::path::Path;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::ReplayApp;

use crate::app_model::command::Command;
use crate::app_model::document::LoadOptions;
use crate::app_model::seek::SeekPolicy;
use crate::diagnostic::Seq;

/// What `agui-replay bench ui` measures in the app; the binary's bench
/// turns it into figures.
#[derive(Clone, Debug)]
pub struct UiTimings {
    /// Events in the recording.
    pub events: u64,
    /// From the start of the open to the first frame in which the timeline
    /// covers the whole recording, the event list shows its rows, the
    /// inspector shows step 1, and a seek to a random step has answered
    /// (the state at that step shown).
    pub open_to_usable_ms: f64,
    /// From the start of the open to the first frame showing the first
    /// rows (the inspector at step 1) while indexing goes on in the
    /// background; `None` when the recording opened whole at once.
    pub open_to_first_rows_ms: Option<f64>,
    /// Events indexed per second, from the start of the open to the whole
    /// timeline (`None` when there was no indexing in the background).
    pub index_events_per_sec: Option<f64>,
    /// From the start of the open to the profiles' comparison done (its
    /// marks shown), if it ran in the background.
    pub open_to_divergences_ms: Option<f64>,
    /// Heap bytes allocated with the recording open and usable, by the
    /// caller's measure (jemalloc's statistics in the binary).
    pub allocated_bytes_open: Option<usize>,
    /// Each frame (the scrub's seek, the whole UI laid out and
    /// tessellated), in milliseconds, sorted.
    pub frame_millis: Vec<f64>,
    /// The scrub's seek of each frame alone (the cursor moved, the state
    /// at the new step and the one before computed), in milliseconds,
    /// sorted.
    pub seek_millis: Vec<f64>,
    /// A search over every event that matches nothing, as `agui-replay
    /// find` runs it ([`crate::search::find_in_log`] over the loaded
    /// events, without the load).
    pub find_all_ms: f64,
    /// A drag across the timeline's plot, as a hand makes it (issue 43).
    pub drag: DragTimings,
    /// The same search run by the app's "Find all" (issue 13, point 4):
    /// from the command to the frame that shows the list complete, the
    /// frames drawn as the app draws them while it runs (one each
    /// [`crate::app_model::search::LIST_POLL`]).
    pub app_search_all_ms: f64,
}

/// A drag across the timeline's plot (issue 43: "the playhead trails the
/// pointer"): the pointer moves at [`DRAG_PX_PER_SEC`] by the clock, back
/// and forth, each frame given where it is when the frame starts, the
/// frames run back to back as the window runs them while input comes; then
/// the release, and the frames the app asks for after it.
#[derive(Clone, Debug, Default)]
pub struct DragTimings {
    /// Each frame of the drag, in milliseconds, sorted.
    pub frame_millis: Vec<f64>,
    /// Each frame: steps between the step under the pointer (the frame's
    /// input) and the playhead the frame painted, sorted.
    pub playhead_lag_steps: Vec<u64>,
    /// Each frame: pixels between the pointer when the frame is done (what
    /// the eye compares it with) and the playhead it painted, sorted.
    pub playhead_lag_px: Vec<f64>,
    /// Each frame: steps between the playhead it painted and the state
    /// its panels drew, sorted.
    pub panels_lag_steps: Vec<u64>,
    /// From the release to the end of the first frame whose panels show
    /// the step of the release, frames drawn only as the app asks for them
    /// (as the window draws them); `None` when the app stopped asking with
    /// the panels at another step (they would wait for input).
    pub panels_final_ms: Option<f64>,
    /// The frames drawn after the release until then.
    pub panels_final_frames: usize,
}

/// How fast the pointer moves in the drag of [`DragTimings`]: a quick
/// scrub.
pub const DRAG_PX_PER_SEC: f32 = 1000.0;

/// How long the drag of [`DragTimings`] lasts.
const DRAG_FOR: Duration = Duration::from_secs(3);

/// How long the bench waits, after a drag, for the panels to show its step.
const DRAG_SETTLE_LIMIT: Duration = Duration::from_secs(5);

/// A drag across the plot of `ctx`'s timeline ([`DragTimings`]); `frame`
/// runs one frame with the given input events and returns the delay the
/// app asked for before the next one.
fn drag_timings(
    app: &mut ReplayApp,
    ctx: &egui::Context,
    frame: &dyn Fn(&mut ReplayApp, Vec<egui::Event>) -> Duration,
) -> anyhow::Result<DragTimings> {
    let Some(painted) = super::timeline::painted_playhead(ctx) else {
        anyhow::bail!("the timeline did not show");
    };
    let plot = painted.plot;
    // Over the ruler: nothing there but the scrub.
    let y = plot.top() + 6.0;
    let (x0, x1) = (
        plot.left() + 0.1 * plot.width(),
        plot.right() - 0.1 * plot.width(),
    );
    let x_at = |since: Instant| {
        let travelled = since.elapsed().as_secs_f32() * DRAG_PX_PER_SEC;
        let period = 2.0 * (x1 - x0);
        let along = travelled % period;
        if along <= x1 - x0 {
            x0 + along
        } else {
            x1 - (along - (x1 - x0))
        }
    };
    let button = |x: f32, pressed: bool| egui::Event::PointerButton {
        pos: egui::pos2(x, y),
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    frame(app, vec![egui::Event::PointerMoved(egui::pos2(x0, y))]);
    let mut timings = DragTimings::default();
    let started = Instant::now();
    let mut events = vec![button(x0, true)];
    let mut x = x0;
    while started.elapsed() < DRAG_FOR {
        let frame_started = Instant::now();
        // What the frame's logic does first: the seek thread's answer
        // shown, so that the state read here is the one the panels draw.
        app.state.poll_seek();
        let panels_step = app.state.view().map_or(Seq::START, |v| v.step);
        frame(app, std::mem::take(&mut events));
        timings.frame_millis.push(millis(frame_started));
        let Some(painted) = super::timeline::painted_playhead(ctx) else {
            anyhow::bail!("the timeline did not show");
        };
        let under = painted.step_at(x);
        timings
            .playhead_lag_steps
            .push(under.get().abs_diff(painted.step.get()));
        let next = x_at(started);
        timings
            .playhead_lag_px
            .push(f64::from((next - painted.x()).abs()));
        timings
            .panels_lag_steps
            .push(panels_step.get().abs_diff(painted.step.get()));
        x = next;
        events = vec![egui::Event::PointerMoved(egui::pos2(x, y))];
    }
    // The pointer stops and the button is let go where it is.
    events.push(button(x, false));
    let released = Instant::now();
    let mut delay = frame(app, events);
    let Some(last) = super::timeline::painted_playhead(ctx) else {
        anyhow::bail!("the timeline did not show");
    };
    let final_step = last.step_at(x);
    loop {
        if app.state.view().is_some_and(|v| v.step == final_step) {
            timings.panels_final_ms = Some(millis(released));
            break;
        }
        if delay == Duration::MAX || released.elapsed() > DRAG_SETTLE_LIMIT {
            break;
        }
        std::thread::sleep(delay);
        delay = frame(app, Vec::new());
        timings.panels_final_frames += 1;
    }
    timings.frame_millis.sort_by(f64::total_cmp);
    timings.playhead_lag_steps.sort_unstable();
    timings.panels_lag_steps.sort_unstable();
    timings.playhead_lag_px.sort_by(f64::total_cmp);
    Ok(timings)
}

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
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

/// How long the bench waits between frames while the app is not usable:
/// the app repaints about this often while indexing.
const WAIT_BETWEEN_FRAMES: Duration = Duration::from_millis(16);

/// Opens `recording` in the app, runs frames until it is usable, then
/// `frames` frames, each moving the cursor by a scrub (mostly small moves,
/// sometimes a jump), at 1400×900. `allocated` measures the heap with the
/// recording open.
pub fn ui_timings(
    recording: &Path,
    frames: usize,
    seed: u64,
    load_options: LoadOptions,
    allocated: &dyn Fn() -> Option<usize>,
) -> anyhow::Result<UiTimings> {
    let ctx = egui::Context::default();
    let clock = Instant::now();
    let input = |events: Vec<egui::Event>| egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1400.0, 900.0),
        )),
        time: Some(clock.elapsed().as_secs_f64()),
        events,
        ..Default::default()
    };
    let frame_with = |app: &mut ReplayApp, events: Vec<egui::Event>| {
        let mut output = ctx.run_ui(input(events), |ui| app.ui(ui));
        // No renderer: the textures are dropped, not uploaded.
        output.textures_delta.clear();
        let delay = output
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map_or(Duration::MAX, |v| v.repaint_delay);
        let _ = ctx.tessellate(output.shapes, output.pixels_per_point);
        delay
    };
    let frame = |app: &mut ReplayApp| {
        frame_with(app, Vec::new());
    };
    let mut rng = Pcg64Mcg::seed_from_u64(seed);

    let started = Instant::now();
    let mut app = ReplayApp::new(None);
    app.state.set_load_options(load_options);
    // The open and the scrub figures time the seek where it runs alone,
    // inline, as they always have; the drag, the app as it runs.
    let app_policy = SeekPolicy::APP;
    app.state.set_seek_policy(SeekPolicy::Inline);

    app.state.open_now(recording, None);
    if let Some(error) = app.state.error() {
        anyhow::bail!("{error}");
    }
    let mut first_rows = None;
    let mut whole_at = None;
    let mut divergences_at = None;
    let mut indexed_in_background = false;
    let open_to_usable_ms = loop {
        frame(&mut app);
        let state = &app.state;
        let Some(doc) = state.doc() else {
            anyhow::bail!("the recording did not open");
        };
        if let Some(error) = state.error() {
            anyhow::bail!("{error}");
        }
        indexed_in_background |= doc.indexing.as_ref().is_some_and(|i| !i.comparing);
        let rows_shown =
            !state.event_rows().is_empty() && state.view().is_some_and(|v| v.step == Seq::new(1));
        if rows_shown && first_rows.is_none() && indexed_in_background {
            first_rows = Some(millis(started));
        }
        if doc.is_whole() && whole_at.is_none() {
            whole_at = Some(started.elapsed());
        }
        if doc.indexing.is_none() && indexed_in_background && divergences_at.is_none() {
            divergences_at = Some(millis(started));
        }
        if doc.is_whole() && rows_shown {
            // A seek to a random step answers: the state at it shown.
            let last = doc.num_events();
            let step = Seq::new(rng.random_range(1..=last.max(1)));
            app.state.apply(vec![Command::Time(TimeCommand::Set(step))]);
            frame(&mut app);
            anyhow::ensure!(
                app.state.view().is_some_and(|v| v.step == step),
                "the seek to step {step} did not answer"
            );
            break millis(started);
        }
        std::thread::sleep(WAIT_BETWEEN_FRAMES);
    };
    let allocated_bytes_open = allocated();
    let events = app.state.doc().map_or(0, |d| d.num_events());
    let index_events_per_sec = whole_at
        .filter(|_| indexed_in_background)
        .map(|at| (events as f64 / at.as_secs_f64().max(1e-9)).round());

    let mut step = app.state.step().get();
    let mut frame_millis = Vec::with_capacity(frames);
    let mut seek_millis = Vec::with_capacity(frames);
    for _ in 0..frames {
        step = if rng.random_bool(0.05) {
            rng.random_range(0..=events)
        } else {
            let delta = rng.random_range(-2000i64..=2000);
            step.saturating_add_signed(delta).min(events)
        };
        let frame_started = Instant::now();
        app.state
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        seek_millis.push(millis(frame_started));
        frame(&mut app);
        frame_millis.push(millis(frame_started));
        if divergences_at.is_none() && app.state.doc().is_some_and(|d| d.indexing.is_none()) {
            divergences_at = Some(millis(started));
        }
    }
    frame_millis.sort_by(f64::total_cmp);
    seek_millis.sort_by(f64::total_cmp);
    if indexed_in_background && divergences_at.is_none() {
        app.state.wait_for_indexing();
        divergences_at = Some(millis(started));
    }
    app.state.set_seek_policy(app_policy);
    let drag = drag_timings(&mut app, &ctx, &frame_with)?;
    app.state.set_seek_policy(SeekPolicy::Inline);
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
        crate::app_model::command::SearchCommand::All(query),
    )]);
    loop {
        frame(&mut app);
        match app.state.search().list() {
            Some(list) if list.is_running() => {
                std::thread::sleep(crate::app_model::search::LIST_POLL)
            }
            Some(list) if list.is_complete() => break,
            _ => anyhow::bail!("the app's search did not run to the end"),
        }
    }
    let app_search_all_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(UiTimings {
        events,
        open_to_usable_ms,
        open_to_first_rows_ms: first_rows,
        index_events_per_sec,
        open_to_divergences_ms: divergences_at,
        allocated_bytes_open,
        frame_millis,
        seek_millis,
        drag,
        find_all_ms,
        app_search_all_ms,
    })
}
