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
        time: None,
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
        ("run-1", 23),
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

/// The line of the splitter above the timeline: the middle of its grab
/// zone, the one "Resize panel" as wide as the window.
fn splitter_y(harness: &Harness<'static, ReplayApp>) -> f32 {
    harness
        .query_all_by_label("Resize panel")
        .map(|node| node.rect())
        .find(|rect| rect.width() > 1000.0)
        .expect("the timeline's splitter")
        .center()
        .y
}

/// Drags with the primary button from `from` by `dy`, a few frames on the
/// way.
fn drag(harness: &mut Harness<'static, ReplayApp>, from: egui::Pos2, dy: f32) {
    harness.hover_at(from);
    harness.run();
    harness.drag_at(from);
    harness.run();
    for fraction in [0.25, 0.5, 1.0] {
        harness.hover_at(from + egui::vec2(0.0, dy * fraction));
        harness.run();
    }
    harness.drop_at(from + egui::vec2(0.0, dy));
    harness.run();
}

/// The colours of the short horizontal lines painted within 3 points of
/// the splitter's line: its grip.
fn grip_colors(harness: &Harness<'static, ReplayApp>, line: f32) -> Vec<egui::Color32> {
    harness
        .output()
        .shapes
        .iter()
        .filter_map(|clipped| match &clipped.shape {
            egui::Shape::LineSegment {
                points: [a, b],
                stroke,
            } if a.y == b.y && (a.y - line).abs() <= 3.0 && (b.x - a.x).abs() < 60.0 => {
                Some(stroke.color)
            }
            _ => None,
        })
        .collect()
}

/// egui shows the resize cursor.
fn resize_cursor(harness: &Harness<'static, ReplayApp>) -> bool {
    matches!(
        harness.output().platform_output.cursor_icon,
        egui::CursorIcon::ResizeVertical
            | egui::CursorIcon::ResizeNorth
            | egui::CursorIcon::ResizeSouth
    )
}

#[test]
fn the_timeline_splitter_is_grabbed_4_points_off_its_line() {
    // Issue 43: egui's edge took the pointer within 3 points only.
    let mut harness = demo_harness();
    let line = splitter_y(&harness);
    let x = 700.0;
    for dy in [-4.0, 4.0] {
        harness.hover_at(egui::pos2(x, line + dy));
        harness.run();
        assert!(
            resize_cursor(&harness),
            "the resize cursor {dy} off the line"
        );
    }
    // The grip, stronger while hovered.
    let visuals = harness.ctx.global_style().visuals.clone();
    assert_eq!(
        grip_colors(&harness, line),
        [visuals.strong_text_color(); 2]
    );
    // Away from it, the usual cursor, and the grip in the weak colour.
    harness.hover_at(egui::pos2(x, line - 40.0));
    harness.run();
    assert!(!resize_cursor(&harness));
    assert_eq!(grip_colors(&harness, line), [visuals.weak_text_color(); 2]);

    let before = harness.get_by_label("Timeline").rect().height();
    // From 4 points above the line (over the conversation), up: taller.
    drag(&mut harness, egui::pos2(x, line - 4.0), -100.0);
    let taller = harness.get_by_label("Timeline").rect().height();
    assert!(taller > before + 80.0, "{before} then {taller}");
    // From 4 points below the new line (over the timeline), down: shorter.
    let line = splitter_y(&harness);
    drag(&mut harness, egui::pos2(x, line + 4.0), 60.0);
    let shorter = harness.get_by_label("Timeline").rect().height();
    assert!(shorter < taller - 40.0, "{taller} then {shorter}");
}
