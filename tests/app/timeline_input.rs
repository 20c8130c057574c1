//! Issue 43: the timeline takes a tap (press and release in one frame) on
//! each of its rows, and its splitter has a handle one can find.

use agui_replay::app_model::command::Command;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::step_axis::StepAxis;
use agui_replay::ui::theme;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::demo_rec as demo;
use crate::panel::{harness, step};

fn demo_harness() -> Harness<'static, ReplayApp> {
    harness(ReplayApp::with_file(&demo()))
}

/// The timeline's axis at the full range, as the plot lays it out.
fn axis(harness: &Harness<'static, ReplayApp>) -> StepAxis {
    let plot = harness.get_by_label("Timeline").rect();
    let last = harness.state().state.doc().unwrap().num_events();
    StepAxis {
        first_step: 0.0,
        last_step: last as f64,
        left_x: plot.left() + theme::TIMELINE_PLOT_PADDING,
        right_x: plot.right() - theme::TIMELINE_PLOT_PADDING,
    }
}

/// A press and its release in the same frame, as a touchpad's tap sends
/// them.
fn tap(harness: &mut Harness<'static, ReplayApp>, pos: egui::Pos2) {
    harness.hover_at(pos);
    harness.run();
    // `Harness::event` runs a frame per event: put both in one frame's
    // input instead.
    for pressed in [true, false] {
        harness.input_mut().events.push(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    harness.run();
}

#[test]
fn a_tap_on_each_row_of_the_timeline_moves_the_cursor() {
    // Issue 43: a touchpad's tap on the Events strip was lost (the scrub
    // wanted the button still down at the end of the frame).
    let mut harness = demo_harness();
    let axis = axis(&harness);
    let plot = harness.get_by_label("Timeline").rect();
    // The row named `label` in the timeline's label column.
    let row_y = |harness: &Harness<'static, ReplayApp>, label: &str| {
        harness
            .query_all_by_label(label)
            .map(|node| node.rect())
            .find(|r| r.right() < axis.left_x && plot.y_range().contains(r.center().y))
            .unwrap_or_else(|| panic!("the row {label}"))
            .center()
            .y
    };
    // Steps off the demo's marks and ticks, so that each tap lands on the
    // plain row.
    for (label, target) in [
        ("Events", 13),
        ("Steps", 7),
        ("Diagnostics", 19),
        ("plan-1", 23),
    ] {
        harness
            .state_mut()
            .state
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(1)))]);
        harness.run();
        let pos = egui::pos2(axis.x_from_step(target as f64), row_y(&harness, label));
        tap(&mut harness, pos);
        assert_eq!(step(&harness), target, "a tap on the {label} row");
    }
}
