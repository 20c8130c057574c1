//! `agui-replay bench ui`: the app driven headless through frames of
//! scrubbing on a large recording, timed.

use crate::ui::TimeCommand;
use std::path::Path;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use super::{Command, ReplayApp};
use crate::diagnostic::Seq;

/// The figures of `agui-replay bench ui`.
#[derive(Clone, Debug, Serialize)]
pub struct UiFigures {
    /// Events in the recording.
    pub events: u64,
    /// Frames timed.
    pub frames: usize,
    /// Opening the recording (read, replay, indices), before the first frame.
    pub open_ms: f64,
    /// Median frame: the scrub's seek, the whole UI laid out and
    /// tessellated.
    pub frame_p50_ms: f64,
    /// 99th percentile frame.
    pub frame_p99_ms: f64,
    /// Slowest frame.
    pub frame_max_ms: f64,
}

/// Opens `recording` in the app and runs `frames` frames, each moving the
/// cursor by a scrub (mostly small moves, sometimes a jump), at 1400×900.
pub fn ui_figures(recording: &Path, frames: usize, seed: u64) -> anyhow::Result<UiFigures> {
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
            .apply(vec![Command::Time(TimeCommand::Set(Seq(step)))]);
        frame(&mut app);
        millis.push(started.elapsed().as_secs_f64() * 1e3);
    }
    millis.sort_by(f64::total_cmp);
    let quantile = |q: f64| crate::bench::percentile(&millis, q);
    Ok(UiFigures {
        events,
        frames,
        open_ms: (open_ms * 10.0).round() / 10.0,
        frame_p50_ms: quantile(0.5),
        frame_p99_ms: quantile(0.99),
        frame_max_ms: quantile(1.0),
    })
}
