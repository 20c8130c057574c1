//! Issue 13, points 4 and 6: search lists every match (a list to click,
//! marks on the timeline, found on a thread), the "In" box filters, an empty
//! value means any value; the timeline's lanes are all reachable, groups
//! collapse, the ids never created sit in a group of their own, and the
//! diagnostics row of a long stream is a density.

use std::time::{Duration, Instant};

use agui_replay::app_model::command::Command;
use agui_replay::app_model::search::{Condition, EMPTY_VALUE_MEANS};
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::search::{Predicate, Query, Target, find_all};
use agui_replay::ui::{ReplayApp, RightTab};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::demo_rec as demo;
use crate::common::generator::{GenConfig, generate_each};
use crate::panel::{harness, settle, step};

fn demo_harness() -> Harness<'static, ReplayApp> {
    harness(ReplayApp::with_file(&demo()))
}

/// Runs frames until no search runs (bounded).
fn finish_search(harness: &mut Harness<'static, ReplayApp>) {
    let started = Instant::now();
    while harness.state().state.search().progress().is_some() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "searching took too long"
        );
        std::thread::sleep(Duration::from_millis(5));
        harness.step();
    }
    harness.run();
}

/// The search tab, its fields set.
fn search_for(
    harness: &mut Harness<'static, ReplayApp>,
    message: Option<&str>,
    pointer: &str,
    condition: Condition,
    value: &str,
) {
    let app = harness.state_mut();
    app.right_tab = RightTab::Search;
    let form = &mut app.search_form;
    form.message = message.map(str::to_owned);
    form.picked = true;
    form.pointer = pointer.into();
    form.condition = condition;
    form.value = value.into();
    harness.run();
}

/// The demo's matches of a query, as `find` lists them (the engine's pass).
fn expected_steps(harness: &Harness<'static, ReplayApp>, query: &Query) -> Vec<Seq> {
    let doc = harness.state().state.doc().expect("open");
    find_all(&doc.timeline, query)
        .iter()
        .map(|m| m.step)
        .collect()
}

#[test]
fn find_all_lists_every_match_and_a_click_on_one_seeks_there() {
    let mut harness = demo_harness();
    search_for(
        &mut harness,
        Some("search-1"),
        "/content/found",
        Condition::Exists,
        "",
    );
    harness.get_by_label("Find all").click();
    harness.run();
    finish_search(&mut harness);
    let query = Query::new(
        Target::Message("search-1".into()),
        "/content/found",
        Predicate::Exists,
    )
    .unwrap();
    let expected = expected_steps(&harness, &query);
    assert_eq!(
        expected.iter().map(|s| s.get()).collect::<Vec<_>>(),
        [13, 14, 15, 19]
    );
    {
        let list = harness.state().state.search().list().expect("a list");
        assert!(list.is_complete());
        let steps: Vec<Seq> = list.matches().iter().map(|m| m.step).collect();
        assert_eq!(steps, expected, "what `find` lists");
    }
    harness.get_by_label_contains("4 matches: search-1 /content/found exists");
    // Every match has its row, as `find` prints it.
    for label in ["step 13: 0", "step 14: 1", "step 15: 2", "step 19: 3"] {
        harness.get_by_label(label);
    }
    harness.get_by_label("step 15: 2").click();
    harness.run();
    assert_eq!(step(&harness), 15);
    harness.get_by_label("step 19: 3").click();
    harness.run();
    assert_eq!(step(&harness), 19);
    // Previous and Next (and F3) now read the list.
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F3);
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 15);
    harness.key_press(egui::Key::F3);
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 19);
}

#[test]
fn the_matches_are_marked_on_the_timeline() {
    let mut harness = demo_harness();
    search_for(
        &mut harness,
        Some("search-1"),
        "/content/found",
        Condition::Exists,
        "",
    );
    let marks_before = match_marks(&harness);
    harness.get_by_label("Find all").click();
    harness.run();
    finish_search(&mut harness);
    assert_eq!(marks_before, 0);
    // One mark per match (the demo's 45 steps are wider than a pixel).
    assert_eq!(match_marks(&harness), 4);
}

/// The shapes painted in the matches' colour on the timeline.
fn match_marks(harness: &Harness<'static, ReplayApp>) -> usize {
    let color = agui_replay::ui::timeline::match_color(&egui::Visuals::dark());
    let light = agui_replay::ui::timeline::match_color(&egui::Visuals::light());
    rect_shapes(harness)
        .iter()
        .filter(|(_, fill)| *fill == color || *fill == light)
        .count()
}

/// Every filled rectangle painted in the last frame, with its fill: the
/// rectangle shapes, and the plain rectangles of meshes (four vertices of
/// one colour on two xs and two ys, as `Mesh::add_colored_rect` makes them:
/// the densities are drawn so, issue 14).
fn rect_shapes(harness: &Harness<'static, ReplayApp>) -> Vec<(egui::Rect, egui::Color32)> {
    fn walk(shape: &egui::Shape, out: &mut Vec<(egui::Rect, egui::Color32)>) {
        match shape {
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, out)),
            egui::Shape::Rect(rect) => out.push((rect.rect, rect.fill)),
            egui::Shape::Mesh(mesh) => {
                for quad in mesh.vertices.chunks_exact(4) {
                    let color = quad[0].color;
                    let rect =
                        egui::Rect::from_points(&quad.iter().map(|v| v.pos).collect::<Vec<_>>());
                    let on_corners = quad.iter().all(|v| {
                        (v.pos.x == rect.left() || v.pos.x == rect.right())
                            && (v.pos.y == rect.top() || v.pos.y == rect.bottom())
                    });
                    if on_corners && quad.iter().all(|v| v.color == color) {
                        out.push((rect, color));
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for clipped in &harness.output().shapes {
        walk(&clipped.shape, &mut out);
    }
    out
}

#[test]
fn an_empty_value_is_accepted_as_any_value() {
    let mut harness = demo_harness();
    search_for(&mut harness, None, "/budget", Condition::Equals, "");
    harness.get_by_label(EMPTY_VALUE_MEANS);
    assert!(
        harness.query_by_label_contains("not JSON").is_none(),
        "no error"
    );
    harness.get_by_label("Find all").click();
    harness.run();
    finish_search(&mut harness);
    let exists = Query::new(Target::State, "/budget", Predicate::Exists).unwrap();
    let expected = expected_steps(&harness, &exists);
    assert!(!expected.is_empty());
    let list = harness.state().state.search().list().expect("a list");
    assert_eq!(list.query(), &exists, "empty means exists");
    let steps: Vec<Seq> = list.matches().iter().map(|m| m.step).collect();
    assert_eq!(steps, expected);
}

#[test]
fn the_in_combo_filters_the_ids_as_one_types() {
    let mut harness = demo_harness();
    harness.state_mut().right_tab = RightTab::Search;
    harness.run();
    // The lanes name every activity once; the open list names them again.
    let before = harness.query_all_by_label("plan-1").count();
    // The lanes name hotels-1 when its lane shows (issue 43: below the
    // runs' and messages' lanes, it may not).
    let hotels_lane = harness.query_all_by_label("hotels-1").count();
    harness.get_by_role_and_label(Role::ComboBox, "In").click();
    harness.run();
    assert_eq!(harness.query_all_by_label("plan-1").count(), before + 1);
    harness.get_by_label_contains("4 of 4 activities");
    harness.get_by_label("Filter").type_text("HOTEL");
    harness.run();
    harness.get_by_label_contains("1 of 4 activities");
    assert_eq!(
        harness.query_all_by_label("plan-1").count(),
        before,
        "filtered out of the list"
    );
    let hotels = harness.query_all_by_label("hotels-1").count();
    assert_eq!(
        hotels,
        hotels_lane + 1,
        "the lane and the one id left in the list"
    );
    // The id left, clicked, is the target.
    harness
        .query_all_by_label("hotels-1")
        .max_by(|a, b| a.rect().left().total_cmp(&b.rect().left()))
        .expect("in the list")
        .click();
    harness.run();
    assert_eq!(
        harness.state().search_form.message.as_deref(),
        Some("hotels-1")
    );
}

/// The rect of the timeline lane (or group header) labelled `label`, if
/// drawn: the event list names the same ids.
fn lane_rect(harness: &Harness<'static, ReplayApp>, label: &str) -> Option<egui::Rect> {
    let plot = harness.get_by_label("Timeline").rect();
    harness
        .query_all_by_label(label)
        .map(|node| node.rect())
        .find(|rect| plot.y_range().contains(rect.center().y))
}

/// The wheel over a position (lines, down when negative).
fn wheel_at(harness: &mut Harness<'static, ReplayApp>, pos: egui::Pos2, lines: f32) {
    harness.hover_at(pos);
    harness.run();
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, lines),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run_steps(20);
}

#[test]
fn every_lane_of_the_demo_can_be_reached() {
    for size in [egui::vec2(1400.0, 900.0), egui::vec2(1024.0, 700.0)] {
        let mut harness = demo_harness();
        harness.set_size(size);
        harness.run();
        let lanes = harness
            .state()
            .state
            .doc()
            .unwrap()
            .timeline
            .index()
            .lanes()
            .iter()
            .map(|l| l.message_id.clone())
            .collect::<Vec<_>>();
        assert!(lanes.contains(&"hotels-1".to_owned()));
        // Scrolled down over the lanes if need be, the last group's lanes
        // show inside the window.
        let plan = lane_rect(&harness, "run-1").expect("the first lane shows");
        for _ in 0..12 {
            if lane_rect(&harness, "prices-7").is_some() {
                break;
            }
            wheel_at(&mut harness, plan.center(), -3.0);
        }
        for last in ["hotels-1", "prices-7"] {
            let rect = lane_rect(&harness, last).unwrap_or_else(|| panic!("{size:?}: {last}"));
            assert!(rect.bottom() <= size.y, "{size:?}: {rect:?}");
        }
        lane_rect(&harness, "hotel_search").expect("its group");
    }
}

#[test]
fn a_group_collapses_and_the_never_created_ids_have_their_own() {
    let mut harness = demo_harness();
    // prices-7 has a delta and no snapshot (R12): never created. The
    // lanes scroll to it.
    let plan = lane_rect(&harness, "run-1").expect("the first lane shows");
    for _ in 0..12 {
        if lane_rect(&harness, "prices-7").is_some() {
            break;
        }
        wheel_at(&mut harness, plan.center(), -3.0);
    }
    let never = lane_rect(&harness, "never created").expect("the group");
    let prices = lane_rect(&harness, "prices-7").expect("its lane");
    assert!(prices.top() > never.top(), "under its header");
    let hotels = lane_rect(&harness, "hotels-1").expect("a created one");
    assert!(hotels.top() < never.top(), "the last group");
    // Collapsed, the group's lane is no longer drawn.
    harness.get_by_label("never created").click();
    harness.run();
    assert!(lane_rect(&harness, "prices-7").is_none(), "collapsed");
    harness.get_by_label("never created").click();
    harness.run();
    // Shown again (the lanes scrolled back while it was shorter).
    for _ in 0..12 {
        if lane_rect(&harness, "prices-7").is_some() {
            break;
        }
        wheel_at(&mut harness, plan.center(), -3.0);
    }
    lane_rect(&harness, "prices-7").expect("shown again");
}

#[test]
fn the_timeline_panel_is_resized_by_its_splitter() {
    let mut harness = demo_harness();
    let before = harness.get_by_label("Timeline").rect();
    // The splitter is the panel's top edge, just above the toolbar.
    let toolbar = harness.get_by_label("First step").rect();
    let edge = egui::pos2(700.0, toolbar.top() - 4.0);
    harness.hover_at(edge);
    harness.run();
    harness.drag_at(edge);
    harness.run();
    for dy in [20.0, 60.0, 120.0] {
        harness.hover_at(edge - egui::vec2(0.0, dy));
        harness.run();
    }
    harness.drop_at(edge - egui::vec2(0.0, 120.0));
    harness.run();
    let after = harness.get_by_label("Timeline").rect();
    assert!(
        after.height() > before.height() + 80.0,
        "{before:?} then {after:?}"
    );
}

#[test]
fn the_diagnostics_row_of_a_long_stream_is_a_density() {
    let dir = crate::common::TempDir::new("density");
    let path = dir.join("long.jsonl");
    let mut text = String::new();
    generate_each(
        GenConfig {
            events: 20_000,
            activities: 20,
            seed: 3,
        },
        |line| {
            text.push_str(line);
            text.push('\n');
        },
    );
    std::fs::write(&path, text).unwrap();
    let mut harness = harness(ReplayApp::with_file(&path));
    harness.run();
    apply(&mut harness, Command::Time(TimeCommand::Set(Seq::new(1))));
    let label = harness
        .get_by_role_and_label(Role::Label, "Diagnostics")
        .rect();
    let row = label.y_range().expand(4.0);
    // The app's own visuals (its theme replaces egui's colours, issue 13.7).
    let severities: Vec<egui::Color32> = [egui::Theme::Dark, egui::Theme::Light]
        .map(agui_replay::ui::theme::visuals)
        .iter()
        .flat_map(|visuals| {
            agui_replay::diagnostic::Severity::ALL
                .map(|s| agui_replay::ui::theme::severity_color(visuals, s))
        })
        .collect();
    let bars: Vec<egui::Rect> = rect_shapes(&harness)
        .into_iter()
        .filter(|(rect, fill)| {
            severities.contains(fill)
                && rect.left() > label.right()
                && row.contains(rect.bottom())
                && rect.width() <= 1.5
        })
        .map(|(rect, _)| rect)
        .collect();
    assert!(bars.len() > 50, "bars in many columns: {}", bars.len());
    let mut heights: Vec<i32> = bars.iter().map(|r| (r.height() * 4.0) as i32).collect();
    heights.sort_unstable();
    heights.dedup();
    assert!(heights.len() >= 2, "not all columns equal: {heights:?}");
}

fn apply(harness: &mut Harness<'static, ReplayApp>, command: Command) {
    harness.state_mut().state.apply(vec![command]);
    settle(harness);
}

// Issue 43, point 5: the current event's lane scrolls into view; the
// demo's "never created" lane of the skipped delta sat below the fold.
#[test]
fn the_current_events_lane_scrolls_into_view() {
    let mut harness = demo_harness();
    assert!(
        lane_rect(&harness, "prices-7").is_none(),
        "below the fold at first"
    );
    let step = harness
        .state()
        .state
        .doc()
        .and_then(|doc| {
            let lane = doc
                .timeline
                .index()
                .lanes()
                .iter()
                .find(|lane| lane.message_id == "prices-7")?;
            lane.events.first().map(|e| e.seq())
        })
        .expect("prices-7 has an event");
    harness
        .state_mut()
        .state
        .apply(vec![agui_replay::app_model::command::Command::Time(
            agui_replay::app_model::time_control::TimeCommand::Set(step),
        )]);
    crate::panel::settle(&mut harness);
    let prices = lane_rect(&harness, "prices-7").expect("scrolled into view");
    let plot = harness.get_by_label("Timeline").rect();
    assert!(
        plot.top() <= prices.top() && prices.bottom() <= plot.bottom(),
        "{prices:?} in {plot:?}"
    );
}
