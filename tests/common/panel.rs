//! The panel harness of the app's kittest suites (`tests/app`): a
//! harness of the window's size, waiting for a background open, the step.

use std::time::{Duration, Instant};

use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;

/// The app headless at 1400×900, settled.
pub fn harness(app: ReplayApp) -> Harness<'static, ReplayApp> {
    harness_sized(app, 1400.0, 900.0)
}

/// Runs frames until the app asks for no more, waiting between tries for
/// the work it does in the background (an open, the profiles' comparison
/// after it): `Harness::run` alone fails when that work outlasts its few
/// frames, run back to back, which depends on the machine's speed (two
/// tests failed so on a faster machine). Bounded.
pub fn settle(harness: &mut Harness<'static, ReplayApp>) {
    let started = Instant::now();
    while harness.try_run().is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the app still asks for frames after 20 s"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
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
    settle(harness);
}

/// The cursor's step.
pub fn step(harness: &Harness<'static, ReplayApp>) -> u64 {
    harness.state().state.step().get()
}

/// The app headless in a window `width`×`height`, settled (issue 13,
/// point 5: any window).
pub fn harness_sized(app: ReplayApp, width: f32, height: f32) -> Harness<'static, ReplayApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(width, height))
        .build_ui_state(|ui, app: &mut ReplayApp| app.ui(ui), app);
    settle(&mut harness);
    harness
}

/// The app on `text` written to `name` in `dir`, its first frames run.
pub fn opened_text(
    dir: &crate::common::TempDir,
    name: &str,
    text: &str,
) -> Harness<'static, ReplayApp> {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the stream");
    let mut harness = harness(ReplayApp::with_file(&path));
    harness.run();
    harness
}

/// A click of `button` at `pos`: hovered, then pressed and released (a
/// frame each: `Harness::event` runs one).
pub fn click_button(
    harness: &mut Harness<'static, ReplayApp>,
    pos: egui::Pos2,
    button: egui::PointerButton,
) {
    harness.hover_at(pos);
    harness.run();
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    harness.run();
}
