//! Issue 43: the timeline read in recorded time (gaps visible, labels in
//! ms, s and min) as well as in steps: a toggle in its toolbar and the
//! `t` key (View › Timeline in recorded time), disabled with its reason
//! for a stream without times of its own.

use agui_replay::app_model::command::Command;
use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::common::TempDir;
use crate::panel::{opened_text, step};

/// Steps 1 to 3 10 ms apart, then a 10 s gap before step 4.
const WITH_A_GAP: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":1764470000000}
{"type":"STEP_STARTED","stepName":"a","timestamp":1764470000010}
{"type":"STEP_FINISHED","stepName":"a","timestamp":1764470000020}
{"type":"RUN_FINISHED","threadId":"t","runId":"r","timestamp":1764470010020}
"#;

/// The same without timestamps: times the app would make up.
const WITHOUT_TIMES: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STEP_STARTED","stepName":"a"}
{"type":"STEP_FINISHED","stepName":"a"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
"#;

/// The texts painted on the ruler, left to right: the row of the label
/// "Steps" or "Recorded time".
fn ruler_labels(harness: &Harness<'static, ReplayApp>) -> Vec<String> {
    let plot = harness.get_by_label("Timeline").rect();
    let name = harness
        .query_by_label("Steps")
        .or_else(|| harness.query_by_label("Recorded time"))
        .expect("the ruler's name")
        .rect();
    let mut texts: Vec<(f32, String)> = harness
        .output()
        .shapes
        .iter()
        .filter_map(|clipped| match &clipped.shape {
            egui::Shape::Text(text)
                if text.pos.x >= plot.left() - 1.0
                    && name.y_range().expand(4.0).contains(text.pos.y + 1.0) =>
            {
                Some((text.pos.x, text.galley.text().to_owned()))
            }
            _ => None,
        })
        .collect();
    texts.sort_by(|a, b| a.0.total_cmp(&b.0));
    texts.into_iter().map(|(_, t)| t).collect()
}

fn press_t(harness: &mut Harness<'static, ReplayApp>) {
    harness.key_press(egui::Key::T);
    harness.run();
}

#[test]
fn the_time_toggle_puts_the_axis_in_recorded_time_and_back() {
    let dir = TempDir::new("time-axis");
    let mut harness = opened_text(&dir, "gap.jsonl", WITH_A_GAP);
    let steps = ruler_labels(&harness);
    assert!(!steps.is_empty(), "labelled in steps");
    assert!(steps.iter().all(|l| l.parse::<u64>().is_ok()), "{steps:?}");
    harness.get_by_label("Time").click();
    harness.run();
    assert!(harness.state().state.timeline_in_time());
    assert!(harness.query_by_label("Recorded time").is_some());
    let times = ruler_labels(&harness);
    assert!(
        times.len() >= 3
            && times
                .iter()
                .all(|l| l.ends_with(" s") || l.ends_with(" ms")),
        "{times:?}"
    );
    // From the first event's time, 0, to the 10 s gap's end.
    assert!(
        times.first().is_some_and(|l| l.starts_with("0")),
        "{times:?}"
    );
    assert!(
        times
            .last()
            .is_some_and(|l| l.starts_with("10") || l.starts_with("9")),
        "{times:?}"
    );
    // The key does it too, and back again.
    press_t(&mut harness);
    assert!(!harness.state().state.timeline_in_time());
    assert!(harness.query_by_label("Steps").is_some());
    press_t(&mut harness);
    assert!(harness.state().state.timeline_in_time());
}

#[test]
fn in_recorded_time_the_gap_takes_its_width() {
    // Steps 1 to 3 in the first 20 ms, step 4 ten seconds later: in
    // steps, the middle of the axis is step 2; in time, it is in the gap,
    // after step 3.
    let dir = TempDir::new("time-axis-gap");
    let mut harness = opened_text(&dir, "gap.jsonl", WITH_A_GAP);
    let plot = harness.get_by_label("Timeline").rect();
    let middle = egui::pos2(plot.center().x, plot.top() + 6.0);
    let click = |harness: &mut Harness<'static, ReplayApp>| {
        harness.hover_at(middle);
        harness.run();
        for pressed in [true, false] {
            harness.event(egui::Event::PointerButton {
                pos: middle,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            });
        }
        harness.run();
    };
    click(&mut harness);
    assert_eq!(step(&harness), 2);
    harness.get_by_label("Time").click();
    harness.run();
    click(&mut harness);
    assert!(step(&harness) >= 3, "{}", step(&harness));
}

#[test]
fn a_stream_without_times_keeps_its_steps_and_says_why() {
    let dir = TempDir::new("time-axis-none");
    let mut harness = opened_text(&dir, "plain.jsonl", WITHOUT_TIMES);
    let toggle = harness.get_by_label("Time");
    assert!(toggle.accesskit_node().is_disabled(), "disabled");
    toggle.hover();
    harness.run();
    assert!(
        harness
            .query_by_label_contains("has no recorded times")
            .is_some(),
        "its tooltip says why"
    );
    press_t(&mut harness);
    harness
        .state_mut()
        .state
        .apply(vec![Command::SetTimelineInTime(true)]);
    harness.run();
    assert!(!harness.state().state.timeline_in_time());
    assert!(harness.query_by_label("Steps").is_some());
}

/// The rects filled in the Events strip's row (its mesh's quads).
fn density_columns(harness: &Harness<'static, ReplayApp>) -> Vec<egui::Rect> {
    let plot = harness.get_by_label("Timeline").rect();
    let row = harness
        .query_all_by_label("Events")
        .map(|node| node.rect())
        .find(|r| r.right() <= plot.left())
        .expect("the Events row")
        .y_range();
    let mut columns = Vec::new();
    for clipped in &harness.output().shapes {
        if let egui::Shape::Mesh(mesh) = &clipped.shape {
            for quad in mesh.vertices.chunks_exact(4) {
                let rect = egui::Rect::from_points(&quad.iter().map(|v| v.pos).collect::<Vec<_>>());
                if rect.left() >= plot.left() && row.contains(rect.center().y) {
                    columns.push(rect);
                }
            }
        }
    }
    columns
}

#[test]
fn in_recorded_time_the_events_strip_leaves_the_gap_empty() {
    // Half a step either side of an event is half the 10 s gap on a time
    // axis: the columns stop a few points past their events.
    let dir = TempDir::new("time-axis-strip");
    let mut harness = opened_text(&dir, "gap.jsonl", WITH_A_GAP);
    let plot = harness.get_by_label("Timeline").rect();
    let middle = plot.center().x;
    assert!(
        density_columns(&harness)
            .iter()
            .any(|r| r.x_range().contains(middle)),
        "in steps, the strip is full"
    );
    harness.get_by_label("Time").click();
    harness.run();
    let columns = density_columns(&harness);
    assert!(columns.len() >= 4, "{columns:?}");
    assert!(
        columns.iter().all(|r| !r.x_range().contains(middle)),
        "{columns:?}"
    );
}
