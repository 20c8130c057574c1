//! The Timing tab (issue 17.3): the waterfall of the demo, the figures
//! per run beside it, a click on a bar going to its step, the stall
//! threshold, and invented times said as such.

use agui_replay::timing::SpanKind;
use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::{demo_rec, sample};
use crate::panel::{harness, harness_sized, step, wait_for_loading};

fn timing_tab(app: ReplayApp) -> Harness<'static, ReplayApp> {
    open_tab(harness(app))
}

fn open_tab(mut harness: Harness<'static, ReplayApp>) -> Harness<'static, ReplayApp> {
    wait_for_loading(&mut harness);
    harness.get_by_label("Timing").click();
    harness.run();
    harness
}

fn click_at(harness: &mut Harness<'static, ReplayApp>, pos: egui::Pos2) {
    let button = |pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.hover_at(pos);
    harness.run();
    harness.event(button(true));
    harness.step();
    harness.event(button(false));
    harness.run();
}

#[test]
fn the_timing_tab_shows_the_demos_runs_and_figures() {
    let mut harness = timing_tab(ReplayApp::with_file(&demo_rec()));
    harness.get_by_label("Run 1 run-1");
    harness.get_by_label("Run 2 run-2");
    harness.get_by_label("Stalls over 2 s: 0");
    // The demo's times are its events' timestamps, 137 ms apart.
    harness.get_by_label("3.836 s (seq 29)");
    harness.get_by_label("tool call book_flight: 411 ms, result after 548 ms");
    let app = harness.state_mut();
    let doc = app.state.doc().expect("open");
    let report = app.timing_view.report_of(doc).clone();
    assert_eq!(report.runs.len(), 2);
    assert!(report.spans.iter().any(|s| s.kind == SpanKind::ToolCall));
}

#[test]
fn a_click_on_a_bar_goes_to_its_first_step() {
    let mut harness = timing_tab(ReplayApp::with_file(&demo_rec()));
    assert_eq!(step(&harness), 1);
    let (index, first) = {
        let app = harness.state_mut();
        let doc = app.state.doc().expect("open");
        let report = app.timing_view.report_of(doc).clone();
        let index = report
            .spans
            .iter()
            .position(|s| s.kind == SpanKind::ToolCall)
            .expect("a tool call");
        (index, report.spans[index].first_seq.get())
    };
    let pos = harness
        .state()
        .timing_view
        .bar_center(index)
        .expect("the bar is drawn");
    click_at(&mut harness, pos);
    assert_eq!(step(&harness), first);
    assert_eq!(first, 22);
}

#[test]
fn the_stall_threshold_is_a_setting_of_the_tab() {
    // T1: at 100 ms each of the demo's 44 gaps of 137 ms is a stall; a
    // click on one goes to the event that ended it. A tall window, so that
    // the figures show beside the waterfall, the stalls in view.
    let mut harness = open_tab(harness_sized(
        ReplayApp::with_file(&demo_rec()),
        2400.0,
        1600.0,
    ));
    harness.state_mut().timing_view.stall_after_secs = 0.1;
    harness.run();
    harness.get_by_label("Stalls over 100 ms: 44");
    harness.get_by_label("seq 4 to 5: 137 ms").click();
    harness.run();
    assert_eq!(step(&harness), 5);
}

#[test]
fn invented_times_are_said_in_the_timing_tab() {
    // The sample SSE body has no timestamp: its times are invented.
    let harness = timing_tab(ReplayApp::with_file(&sample()));
    harness.get_by_label_contains("invented times: the stream has none");
    harness.get_by_label("~800 ms (invented) (seq 9)");
}
