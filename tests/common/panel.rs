//! The panel harness of the app's kittest suites (`tests/app`): a
//! harness of the window's size, waiting for a background open, the step.

use std::time::{Duration, Instant};

use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;

/// The app headless at 1400×900, one run done.
pub fn harness(app: ReplayApp) -> Harness<'static, ReplayApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut ReplayApp| app.ui(ui), app);
    harness.run();
    harness
}

/// Runs frames until a background open (a file, a replay again, another
/// session) has finished (bounded).
pub fn wait_for_loading(harness: &mut Harness<'static, ReplayApp>) {
    let started = Instant::now();
    while harness.state().state.is_loading() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "opening took too long"
        );
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    harness.run();
}

/// The cursor's step.
pub fn step(harness: &Harness<'static, ReplayApp>) -> u64 {
    harness.state().state.step().get()
}

/// The app headless in a window `width`×`height`, one run done (issue 13,
/// point 5: any window).
pub fn harness_sized(app: ReplayApp, width: f32, height: f32) -> Harness<'static, ReplayApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(width, height))
        .build_ui_state(|ui, app: &mut ReplayApp| app.ui(ui), app);
    harness.run();
    harness
}
