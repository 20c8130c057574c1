//! Issue 43: every entity on the timeline, not only activities: runs,
//! steps, messages, reasoning, tool calls and subagents have lanes, in
//! groups that collapse; a click on a bar goes to the entity's event
//! nearest it; a stream without activities no longer shows an empty
//! "No activities" area.

use agui_replay::app_model::command::Command;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::step_axis::StepAxis;
use agui_replay::ui::theme;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::common::TempDir;
use crate::panel::{click_button, opened_text, step};

/// A run with a step, a message and a tool call, and no activity.
const NO_ACTIVITIES: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"run-a"}
{"type":"STEP_STARTED","stepName":"look-up"}
{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"get_weather"}
{"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"{\"city\":"}
{"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"\"Lisbon\"}"}
{"type":"STATE_SNAPSHOT","snapshot":{}}
{"type":"STATE_SNAPSHOT","snapshot":{"a":1}}
{"type":"TOOL_CALL_RESULT","messageId":"tool-1","toolCallId":"call-1","content":"sunny"}
{"type":"STEP_FINISHED","stepName":"look-up"}
{"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Sunny."}
{"type":"TEXT_MESSAGE_END","messageId":"msg-1"}
{"type":"RUN_FINISHED","threadId":"t","runId":"run-a"}
"#;

/// The rect of the timeline row (lane or group header) labelled `label`
/// in the label column (left of the plot), if drawn.
fn row_rect(harness: &Harness<'static, ReplayApp>, label: &str) -> Option<egui::Rect> {
    let plot = harness.get_by_label("Timeline").rect();
    harness
        .query_all_by_label(label)
        .map(|node| node.rect())
        .find(|r| r.right() <= plot.left() && plot.y_range().contains(r.center().y))
}

/// The rect of the row labelled `label`, the lanes scrolled down by the
/// wheel until it shows (bounded): the lanes area holds a few rows.
fn scrolled_to(harness: &mut Harness<'static, ReplayApp>, label: &str) -> egui::Rect {
    let plot = harness.get_by_label("Timeline").rect();
    let over_lanes = egui::pos2(plot.center().x, plot.bottom() - 20.0);
    for _ in 0..10 {
        if let Some(rect) = row_rect(harness, label) {
            return rect;
        }
        harness.hover_at(over_lanes);
        harness.run();
        harness.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, -1.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(20);
    }
    panic!("the row {label}")
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

#[test]
fn a_stream_without_activities_shows_its_runs_steps_messages_and_tool_calls() {
    let dir = TempDir::new("entity-lanes");
    let mut harness = opened_text(&dir, "no-activities.jsonl", NO_ACTIVITIES);
    assert!(harness.query_by_label_contains("No activities").is_none());
    // Groups in the order of the issue, each lane under its header: the
    // lanes scroll down to each in turn.
    let mut last_label = "";
    for (group, lane) in [
        ("Runs", "run-a"),
        // Not "Steps", the ruler's name.
        ("Agent steps", "look-up"),
        ("Messages", "msg-1"),
        ("Tool calls", "call-1"),
    ] {
        let header = scrolled_to(&mut harness, group);
        let row = scrolled_to(&mut harness, lane);
        if let Some(header) = row_rect(&harness, group) {
            assert!(header.top() < row.top(), "{lane} under {group}");
        }
        if let Some(before) = row_rect(&harness, last_label) {
            assert!(before.top() < header.top(), "{last_label} before {group}");
        }
        last_label = lane;
    }
    assert!(harness.query_by_label_contains("No activities").is_none());
    // The tool's name beside the call's id.
    assert!(row_rect(&harness, "get_weather").is_some());
}

#[test]
fn a_stream_of_no_entity_says_it_has_nothing_to_show() {
    // The state alone: no run, message, tool call or activity.
    let dir = TempDir::new("entity-lanes-empty");
    let state = r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#;
    let harness = opened_text(&dir, "state.jsonl", state);
    assert!(harness.state().state.doc().is_some(), "it opens");
    assert!(
        harness
            .query_by_label_contains("No runs, messages, tool calls or activities")
            .is_some()
    );
}

#[test]
fn collapsing_a_group_hides_its_lanes() {
    let dir = TempDir::new("entity-lanes-collapse");
    let mut harness = opened_text(&dir, "no-activities.jsonl", NO_ACTIVITIES);
    scrolled_to(&mut harness, "call-1");
    harness.get_by_label("Tool calls").click();
    harness.run();
    assert!(row_rect(&harness, "call-1").is_none(), "collapsed");
    assert!(row_rect(&harness, "msg-1").is_some(), "other groups stay");
    harness.get_by_label("Tool calls").click();
    harness.run();
    scrolled_to(&mut harness, "call-1");
}

/// A run of about 1,200 events, a tool call's start at step 402 and its
/// result at 803 among state snapshots: a step or two a pixel.
fn long_run() -> String {
    let filler = r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#;
    let mut lines = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"run-a"}"#];
    lines.extend([filler; 400]);
    lines.push(r#"{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"get_weather"}"#);
    lines.extend([filler; 400]);
    lines.push(
        r#"{"type":"TOOL_CALL_RESULT","messageId":"t-1","toolCallId":"call-1","content":"ok"}"#,
    );
    lines.extend([filler; 400]);
    lines.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"run-a"}"#);
    lines.join("\n")
}

/// A click (press and release) at a position.
fn click_at(harness: &mut Harness<'static, ReplayApp>, pos: egui::Pos2) {
    click_button(harness, pos, egui::PointerButton::Primary);
}

#[test]
fn a_click_on_a_tool_calls_bar_or_mark_moves_the_cursor() {
    let dir = TempDir::new("entity-lanes-click");
    let mut harness = opened_text(&dir, "long.jsonl", &long_run());
    let axis = axis(&harness);
    assert!(axis.steps_per_pixel() > 0.8, "{axis:?}");
    let row = scrolled_to(&mut harness, "call-1");
    // 4 points right of the result's mark: its step, where a click on a
    // plain row goes a few steps further.
    let near_result = axis.x_from_step(803.0) + 4.0;
    assert!(axis.step_from_x(near_result).round() >= 806.0);
    click_at(&mut harness, egui::pos2(near_result, row.center().y));
    assert_eq!(step(&harness), 803);
    // On the bar between the marks: the step under the pointer.
    click_at(
        &mut harness,
        egui::pos2(axis.x_from_step(600.0), row.center().y),
    );
    assert!((598..=602).contains(&step(&harness)), "{}", step(&harness));
    // Its label goes to its first event.
    click_at(&mut harness, row.left_center() + egui::vec2(30.0, 0.0));
    assert_eq!(step(&harness), 402);
}

#[test]
fn hovering_a_bar_names_the_entity_and_its_steps() {
    let dir = TempDir::new("entity-lanes-hover");
    let mut harness = opened_text(&dir, "long.jsonl", &long_run());
    let axis = axis(&harness);
    let row = scrolled_to(&mut harness, "call-1");
    harness.hover_at(egui::pos2(axis.x_from_step(600.0), row.center().y));
    harness.run_steps(10);
    let tooltip = "toolCallId call-1\ntool get_weather\nsteps 402 to 803 · 2 events";
    assert!(
        harness.query_by_label_contains(tooltip).is_some(),
        "the tooltip names the call, its tool and its steps"
    );
}

/// A run of 20 short messages, then a tool call from step 42 to 53: more
/// lanes than the lanes' area shows.
fn many_lanes() -> String {
    let mut lines = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"run-a"}"#.to_owned()];
    for i in 0..20 {
        lines.push(format!(
            r#"{{"type":"TEXT_MESSAGE_START","messageId":"m-{i}"}}"#
        ));
        lines.push(format!(
            r#"{{"type":"TEXT_MESSAGE_END","messageId":"m-{i}"}}"#
        ));
    }
    lines.push(
        r#"{"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"get_weather"}"#.into(),
    );
    for _ in 0..10 {
        lines.push(r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#.into());
    }
    lines.push(
        r#"{"type":"TOOL_CALL_RESULT","messageId":"t-1","toolCallId":"call-1","content":"ok"}"#
            .into(),
    );
    lines.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"run-a"}"#.into());
    lines.join("\n")
}

/// Whether the timeline row labelled `label` is drawn as the current
/// event's (its label selected).
fn is_current(harness: &Harness<'static, ReplayApp>, label: &str) -> bool {
    let plot = harness.get_by_label("Timeline").rect();
    harness
        .query_all_by_label(label)
        .filter(|node| node.rect().right() <= plot.left())
        .any(|node| node.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
}

/// Whether a row is inside the lanes' part of the plot.
fn in_view(harness: &Harness<'static, ReplayApp>, label: &str) -> bool {
    let plot = harness.get_by_label("Timeline").rect();
    row_rect(harness, label).is_some_and(|r| plot.top() <= r.top() && r.bottom() <= plot.bottom())
}

#[test]
fn the_current_events_entity_lane_is_highlighted_and_followed_but_not_forced() {
    // Issue 43: the lanes follow the cursor to the lane of its event, and
    // leave the wheel's scrolling alone until the cursor moves again.
    let dir = TempDir::new("entity-lanes-follow");
    let mut harness = opened_text(&dir, "many.jsonl", &many_lanes());
    let set = |harness: &mut Harness<'static, ReplayApp>, step: u64| {
        harness
            .state_mut()
            .state
            .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        crate::panel::settle(harness);
    };
    set(&mut harness, 1);
    assert!(is_current(&harness, "run-a"), "the run's start");
    assert!(!in_view(&harness, "call-1"), "below the fold");
    // The tool call's result: its lane shows, highlighted.
    set(&mut harness, 53);
    assert!(in_view(&harness, "call-1"));
    assert!(is_current(&harness, "call-1") && !is_current(&harness, "run-a"));
    // Scrolled away by hand, the lanes stay there while the cursor does.
    let plot = harness.get_by_label("Timeline").rect();
    let over_lanes = egui::pos2(plot.center().x, plot.bottom() - 20.0);
    harness.hover_at(over_lanes);
    harness.run();
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, 10.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run_steps(20);
    assert!(!in_view(&harness, "call-1"), "scrolled away");
    harness.run_steps(5);
    assert!(!in_view(&harness, "call-1"), "not yanked back");
    // The cursor moves to the call's start: its lane shows again.
    set(&mut harness, 42);
    assert!(in_view(&harness, "call-1"));
}
