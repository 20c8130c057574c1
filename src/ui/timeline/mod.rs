//! The timeline panel, at the bottom of the window: the whole stream on one
//! axis of steps, with the playhead at the cursor.
//!
//! From the top: a toolbar (playback, speed, the step, navigation, zoom); a
//! ruler of steps; a density strip (the kinds of the events under each pixel
//! column); the diagnostics; one lane per run, subagent, step, message,
//! reasoning, tool call and activity (issue 43). Click or drag to scrub;
//! Ctrl + wheel zooms around the pointer; the wheel, Shift + drag or a
//! middle drag pans.
//!
//! Everything is looked up in the stream's indices for the visible range
//! only, in *bins* of a power of two steps at least a pixel wide (bin `i`
//! holds steps `i·k+1 ..= (i+1)·k`; step 0 joins bin 0). A frame costs what
//! its pixels and visible marks cost, however long the stream; what depends
//! only on the range (the density, the lanes' marks) is kept between frames,
//! so scrubbing recomputes nothing.
//!
//! This module draws the panel from its parts: the toolbar
//! ([`self::toolbar`]); the plot and the pointer
//! ([`self::plot`]), with its tooltip ([`self::hover`]);
//! the ruler and the diagnostics ([`self::strips`]); the density
//! ([`self::density`]); the lanes ([`self::lanes`]),
//! one row of which [`self::lane_row`] paints; marks A and B and the
//! bookmarks ([`self::marks`]); the range and bin arithmetic
//! ([`self::range`]).

mod density;
mod hover;
mod lane_row;
mod lanes;
mod marks;
mod mesh;
mod plot;
mod range;
mod schema_marks;
mod strips;
mod toolbar;

pub use self::density::KindGroup;
pub use self::marks::match_color;
use self::plot::plot_ui;
pub use self::plot::{PaintedPlayhead, painted_playhead};
pub use self::range::{
    bin_groups, bin_of, bin_seqs, bin_steps, clamp_range, full_range, pan_range, ruler_spacing,
    visible_bins, zoom_range,
};
use self::toolbar::toolbar_ui;
use crate::app_model::command::Command;
use crate::app_model::state::AppState;
pub use crate::ui::theme::schema_color;

/// How near the pointer must be to a mark or a tick to hover or click it.
pub(super) const HIT_RADIUS: f32 = 5.0;

/// Draws the timeline panel.
pub fn timeline_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let Some(doc) = state.doc() else {
        ui.add_space(4.0);
        // While opening, the centre says what is being opened.
        if state.loading().is_none() {
            ui.weak("No stream open");
        }
        return;
    };
    let num_events = doc.num_events();
    let range = state
        .timeline_range()
        .map_or_else(|| full_range(num_events), |r| clamp_range(r, num_events));
    let num_commands = commands.len();
    toolbar_ui(ui, state, doc, range, commands);
    plot_ui(ui, state, doc, range, commands);
    if commands.len() > num_commands {
        // The commands apply at the end of the frame: show their result.
        ui.ctx().request_repaint();
    }
}

#[cfg(test)]
mod tests {
    use crate::app_model::time_control::TimeCommand;
    use egui_kittest::Harness;

    use crate::ui::test_harness::panel_harness;
    use egui_kittest::kittest::Queryable;

    use super::timeline_ui;
    use crate::app_model::command::Command;
    use crate::app_model::state::{AppState, TimelineRange};
    use crate::diagnostic::Seq;

    /// The timeline alone, on the bundled demo; its commands applied
    /// each frame as the app does.
    fn harness() -> Harness<'static, AppState> {
        let mut state = AppState::default();
        let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/recordings/demo.jsonl");
        state.open_now(std::path::Path::new(demo), None);
        assert!(state.doc().is_some(), "{:?}", state.error());
        // Tall enough for every lane of the demo, its runs', steps',
        // messages' and tool calls' above its activities' (issue 43).
        panel_harness(timeline_ui, egui::vec2(1200.0, 720.0), state)
    }

    #[test]
    fn buttons_step_and_every_widget_is_named() {
        let mut h = harness();
        h.run();
        h.state_mut()
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(3)))]);
        h.run();
        h.get_by_label("Next step").click();
        h.run();
        assert_eq!(h.state().step(), Seq::new(4));
        h.get_by_label("Previous step").click();
        h.get_by_label("Previous step").click();
        h.run();
        assert_eq!(h.state().step(), Seq::new(2));
        // The first event, where the app opens (issue 43, point 4).
        h.get_by_label("First step").click();
        h.run();
        assert_eq!(h.state().step(), Seq::new(1));
        h.get_by_label("Last step").click();
        h.run();
        let last = h.state().doc().as_ref().unwrap().num_events();
        assert_eq!(h.state().step(), Seq::new(last));
        let previous = h
            .state()
            .diagnostic_step(false)
            .expect("the demo has diagnostics");
        h.get_by_label("Previous diagnostic").click();
        h.run();
        assert_eq!(h.state().step(), previous);
    }

    #[test]
    fn zoom_buttons_narrow_and_restore_the_range() {
        let mut h = harness();
        h.run();
        h.get_by_label("Zoom in").click();
        h.run();
        let range = h.state().timeline_range().expect("zoomed");
        let last = h.state().doc().as_ref().unwrap().num_events() as f64;
        assert!((range.last - range.first - last / 2.0).abs() < 1e-9);
        h.get_by_label("Fit").click();
        h.run();
        assert_eq!(
            h.state().timeline_range(),
            Some(super::full_range(last as u64))
        );
    }

    #[test]
    fn scrubbing_keeps_the_lanes_tessellated_and_zooming_makes_them_again() {
        // Issue 14: the lanes' marks are tessellated once per range, not
        // once per frame.
        let mut h = harness();
        h.run();
        let before = super::lanes::kept_meshes(&h.ctx);
        assert!(!before.is_empty(), "the demo's lanes are drawn");
        // Each lane's lifetime and marks, then its rings.
        assert!(before.iter().all(|(_, layers)| layers.len() == 2));
        assert!(
            before
                .iter()
                .all(|(_, layers)| !layers[0].vertices.is_empty())
        );
        h.state_mut()
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(5)))]);
        h.run();
        let scrubbed = super::lanes::kept_meshes(&h.ctx);
        assert_eq!(scrubbed.len(), before.len());
        for ((lane, a), (other, b)) in before.iter().zip(&scrubbed) {
            assert_eq!(lane, other);
            assert!(
                std::sync::Arc::ptr_eq(&a[0], &b[0]),
                "lane {lane} made again"
            );
        }
        h.get_by_label("Zoom in").click();
        h.run();
        let zoomed = super::lanes::kept_meshes(&h.ctx);
        for (lane, mesh) in &zoomed {
            let (_, old) = before
                .iter()
                .find(|(l, _)| l == lane)
                .expect("drawn before");
            assert!(
                !std::sync::Arc::ptr_eq(&mesh[0], &old[0]),
                "lane {lane} kept at a new range"
            );
        }
    }

    #[test]
    fn clicking_a_lane_name_selects_the_activity() {
        let mut h = harness();
        h.run();
        h.get_by_label("search-1").click();
        h.run();
        assert_eq!(h.state().selected_activity(), Some("search-1"));
    }

    fn wheel(delta_y: f32, modifiers: egui::Modifiers) -> egui::Event {
        egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, delta_y),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers,
        }
    }

    #[test]
    fn ctrl_wheel_zooms_around_the_pointer_and_the_wheel_pans() {
        let mut h = harness();
        h.run();
        let plot = h.get_by_label("Timeline").rect();
        let pointer = egui::pos2(plot.left() + plot.width() * 0.25, plot.top() + 30.0);
        h.hover_at(pointer);
        h.run();
        h.event_modifiers(wheel(3.0, egui::Modifiers::CTRL), egui::Modifiers::CTRL);
        // The wheel is smoothed over a few frames.
        h.run_steps(20);
        let zoomed = h.state().timeline_range().expect("zoomed in");
        let last = h.state().doc().as_ref().unwrap().num_events() as f64;
        assert!(zoomed.last - zoomed.first < last, "{zoomed:?}");
        // The step under the pointer stays under it: a quarter in.
        let anchor = zoomed.first + (zoomed.last - zoomed.first) * 0.25;
        assert!((anchor - last * 0.25).abs() < 0.5, "{zoomed:?}");
        // Wheel down: later steps.
        h.event(wheel(-3.0, egui::Modifiers::NONE));
        h.run_steps(20);
        let panned = h.state().timeline_range().expect("range");
        assert!(panned.first > zoomed.first, "{zoomed:?} then {panned:?}");
        let span = |r: TimelineRange| r.last - r.first;
        assert!((span(panned) - span(zoomed)).abs() < 1e-9);
    }

    #[test]
    fn clicking_a_mark_selects_its_activity_and_goes_there() {
        let mut h = harness();
        h.run();
        let index = h.state().doc().as_ref().unwrap().timeline.index();
        let seq = index.lane("prices-7").expect("lane").events[0].seq();
        let last = h.state().doc().as_ref().unwrap().num_events() as f64;
        let plot = h.get_by_label("Timeline").rect();
        let row = h.get_by_label("prices-7").rect();
        let axis = crate::ui::step_axis::StepAxis {
            first_step: 0.0,
            last_step: last,
            left_x: plot.left() + crate::ui::theme::TIMELINE_PLOT_PADDING,
            right_x: plot.right() - crate::ui::theme::TIMELINE_PLOT_PADDING,
            time: None,
        };
        // A little off the mark, and off the step: the mark wins.
        let pos = egui::pos2(axis.x_from_step(seq.get() as f64) + 3.0, row.center().y);
        h.hover_at(pos);
        h.run();
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed: true,
            modifiers: egui::Modifiers::NONE,
        });
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed: false,
            modifiers: egui::Modifiers::NONE,
        });
        h.run();
        assert_eq!(h.state().selected_activity(), Some("prices-7"));
        assert_eq!(h.state().step(), seq);
    }

    #[test]
    fn a_short_panel_and_a_one_event_stream_draw() {
        let mut h = harness();
        h.set_size(egui::vec2(600.0, 60.0));
        h.run();
        h.set_size(egui::vec2(100.0, 400.0));
        h.run();
        let path = std::env::temp_dir().join(format!("timeline-one-{}.jsonl", std::process::id()));
        std::fs::write(
            &path,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        )
        .unwrap();
        h.state_mut().open_now(&path, None);
        std::fs::remove_file(&path).unwrap();
        h.set_size(egui::vec2(1200.0, 320.0));
        h.run();
        assert_eq!(h.state().doc().as_ref().map(|d| d.num_events()), Some(1));
    }

    #[test]
    fn clicking_the_axis_scrubs() {
        let mut h = harness();
        h.run();
        // The middle of the plot is the middle of the stream.
        h.get_by_label("Timeline").click();
        h.run();
        let last = h.state().doc().as_ref().unwrap().num_events();
        let step = h.state().step().get() as i64;
        assert!(
            (step - (last / 2) as i64).abs() <= 1,
            "step {step} of {last}"
        );
    }
}
