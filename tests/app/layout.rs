//! The window at any size, the View menu, the keys overlay, the status
//! bar's words and the pickers (issue 13, points 5 and 12).

use agui_replay::app_model::actions::ACTIONS;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::layout::{MIN_CENTRAL_WIDTH, MIN_EVENTS_WIDTH, MIN_INSPECTOR_WIDTH};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use serde_json::json;

use crate::common::{TempPath, demo_rec, manifest_path};
use crate::panel::{harness, harness_sized, wait_for_loading};

fn demo_at(width: f32, height: f32) -> Harness<'static, ReplayApp> {
    harness_sized(ReplayApp::with_file(&demo_rec()), width, height)
}

// Issue 13, point 5: at 1024×700 the conversation got about 200 px.
#[test]
fn every_panel_keeps_a_readable_width_in_a_small_window() {
    let harness = demo_at(1024.0, 700.0);
    let widths = harness.state().layout.widths();
    let events = widths.events.expect("the event list shows");
    let inspector = widths.inspector.expect("the inspector shows");
    assert!(events >= MIN_EVENTS_WIDTH, "event list {events}");
    assert!(inspector >= MIN_INSPECTOR_WIDTH, "inspector {inspector}");
    assert!(
        widths.central >= MIN_CENTRAL_WIDTH,
        "conversation {}",
        widths.central
    );
}

// Issue 13, point 5: the panels share the width in proportion.
#[test]
fn a_wider_window_widens_every_panel() {
    let small = demo_at(1024.0, 700.0).state().layout.widths();
    let large = demo_at(1920.0, 1080.0).state().layout.widths();
    assert!(large.events > small.events, "{small:?} {large:?}");
    assert!(large.inspector > small.inspector, "{small:?} {large:?}");
    assert!(large.central > small.central, "{small:?} {large:?}");
}

fn click_view_entry(harness: &mut Harness<'static, ReplayApp>, entry: &str) {
    harness.get_by_label("View").click();
    harness.run();
    match harness.query_by_role_and_label(egui::accesskit::Role::CheckBox, entry) {
        Some(checkbox) => checkbox.click(),
        None => harness.get_by_label(entry).click(),
    }
    harness.run();
}

/// How many widgets are labelled `label` (the event list's filter bar and
/// its header both say "messageId").
fn count(harness: &Harness<'static, ReplayApp>, label: &str) -> usize {
    harness.query_all_by_label(label).count()
}

#[test]
fn a_hidden_panel_is_gone_and_reset_layout_brings_it_back() {
    let mut harness = demo_at(1024.0, 700.0);
    assert!(count(&harness, "messageId") > 0, "the event list's header");
    let central_before = harness.state().layout.widths().central;
    click_view_entry(&mut harness, "Event list");
    // The menu stays open on a checkbox: close it.
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(!harness.state().layout.show_events);
    assert_eq!(count(&harness, "messageId"), 0, "the event list is gone");
    assert_eq!(harness.state().layout.widths().events, None);
    assert!(
        harness.state().layout.widths().central > central_before,
        "the conversation takes its room"
    );
    click_view_entry(&mut harness, "Reset layout");
    assert!(harness.state().layout.show_events);
    assert!(count(&harness, "messageId") > 0, "the event list is back");
}

#[test]
fn the_timeline_can_be_hidden_from_the_view_menu() {
    let mut harness = demo_at(1400.0, 900.0);
    let before = harness.state().layout.widths();
    click_view_entry(&mut harness, "Timeline");
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(!harness.state().layout.show_timeline);
    // The side panels are still there.
    assert_eq!(
        harness.state().layout.widths().events.is_some(),
        before.events.is_some()
    );
}

// Issue 13, point 12: a `?` / F1 overlay lists the keys, from the one table.
#[test]
fn f1_shows_every_key_and_f1_again_hides_them() {
    let mut harness = demo_at(1400.0, 900.0);
    assert!(harness.query_by_label("Keys").is_none());
    harness.key_press(egui::Key::F1);
    harness.run();
    assert!(harness.state().show_keys);
    harness.get_by_label("Keys");
    // Issue 43, point 1: from the table of actions, every key and gesture
    // with its help line (F1 omitted F3, Shift+F3, Esc, Ctrl+wheel and
    // right-drag).
    for action in ACTIONS.iter().filter(|action| !action.triggers.is_empty()) {
        assert!(
            harness.query_all_by_label(action.help).next().is_some(),
            "{}: {:?} is not listed",
            action.name,
            action.help
        );
        assert!(
            harness
                .query_all_by_label(&action.triggers_label())
                .next()
                .is_some(),
            "{}: {:?} is not listed",
            action.name,
            action.triggers_label()
        );
    }
    harness.get_by_label("→");
    harness.get_by_label("Page Down");
    harness.get_by_label("F3");
    harness.get_by_label("Shift+F3");
    harness.get_by_label("Esc");
    harness.get_by_label("Ctrl+wheel");
    harness.get_by_label("Right-drag");
    harness.key_press(egui::Key::F1);
    harness.run();
    assert!(!harness.state().show_keys);
    assert!(harness.query_by_label("Keys").is_none());
}

#[test]
fn the_keys_overlay_closes_with_escape() {
    let mut harness = demo_at(1400.0, 900.0);
    harness.key_press(egui::Key::F1);
    harness.run();
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(!harness.state().show_keys);
}

// Issue 13, point 12: "W worst: warning", "0 errors" in red, "1 events".
#[test]
fn the_status_bar_counts_only_what_occurs_in_words() {
    let harness = demo_at(1400.0, 900.0);
    harness.get_by_label("Step 1 of 45");
    harness.get_by_label("2 warnings");
    // The declined snapshot at 39 and (issue 17, E20) the repaired drift
    // at 18.
    harness.get_by_label("2 info");
    for absent in ["0 errors", "0 notes", "No diagnostics", "W worst: warning"] {
        assert!(harness.query_by_label(absent).is_none(), "{absent:?} shows");
    }
    harness.get_by_label("Outcome: ok");
}

#[test]
fn a_stream_without_diagnostics_says_so() {
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ];
    let file = TempPath::jsonl("layout", "clean.jsonl", &events);
    let harness = harness(ReplayApp::with_file(file.path()));
    harness.get_by_label("No diagnostics");
    assert!(harness.query_by_label("0 errors").is_none());
    harness.get_by_label("Step 1 of 2");
}

fn open_har() -> Harness<'static, ReplayApp> {
    let mut harness = harness(ReplayApp::new(Some(manifest_path(
        "tests/samples/two-streams.har",
    ))));
    wait_for_loading(&mut harness);
    harness
}

// Issue 13, point 12: two identical "POST https://…/agent" rows.
#[test]
fn the_exchange_picker_rows_differ_by_time_status_and_events() {
    let mut harness = open_har();
    harness.get_by_label("Exchange").click();
    harness.run();
    let first = harness
        .get_by_label_contains("1: POST https://app.example.com/agent")
        .accesskit_node()
        .label()
        .expect("a label");
    let second = harness
        .get_by_label_contains("2: POST https://app.example.com/agent")
        .accesskit_node()
        .label()
        .expect("a label");
    assert_ne!(
        first[3..],
        second[3..],
        "the rows say more than the request"
    );
    assert!(first.contains("09:26:53.120 UTC"), "{first}");
    assert!(first.contains("200"), "{first}");
    assert!(first.contains("7 events"), "{first}");
    assert!(second.contains("9 events"), "{second}");
}

// Issue 13, point 12: the picker appearing shifted the Profile controls,
// so a click meant for it replayed the stream.
#[test]
fn opening_a_file_with_a_picker_does_not_move_the_profile_controls() {
    let mut empty = harness(ReplayApp::new(None));
    empty.run();
    let before = empty.get_by_label("Best effort").rect();
    let spec_before = empty.get_by_label("spec").rect();
    let har = open_har();
    har.get_by_label("Exchange");
    assert_eq!(har.get_by_label("Best effort").rect(), before);
    assert_eq!(har.get_by_label("spec").rect(), spec_before);
}

#[test]
fn help_keys_opens_the_keys_overlay() {
    let mut harness = demo_at(1024.0, 700.0);
    harness.get_by_label("Help").click();
    harness.run();
    // The entry's label carries its shortcut too.
    harness.get_by_label_contains("Keys").click();
    harness.run();
    assert!(harness.state().show_keys);
    harness.get_by_label("Keys");
    harness.get_by_label("Diff with the previous step");
}

#[test]
fn a_json_row_cut_by_the_inspector_edge_shows_whole_on_hover() {
    // Issue 13, point 5: at 1024×700 the inspector's JSON rows are wider
    // than the panel (it scrolls sideways); a row the edge cuts shows its
    // whole value on hover.
    let mut harness = demo_at(1024.0, 700.0);
    harness
        .state_mut()
        .state
        .apply(vec![agui_replay::app_model::command::Command::Time(
            agui_replay::app_model::time_control::TimeCommand::Set(agui_replay::Seq::new(16)),
        )]);
    harness.run();
    let whole = r#"{"price":129,"title":"TAP Air Portugal, Fri 18:05"}"#;
    let row = harness.get_by_label_contains(r#"0  {"price":129"#);
    // The inspector's scroll area ends before the window's edge (1024).
    assert!(
        row.rect().right() > 1012.0,
        "the row is cut by the panel's edge at 1024×700: {:?}",
        row.rect()
    );
    let before = harness.query_all_by_label_contains(whole).count();
    row.hover();
    harness.run();
    assert_eq!(
        harness.query_all_by_label_contains(whole).count(),
        before + 1,
        "the whole value shows on hover, in a tooltip"
    );
}

#[test]
fn a_cards_cut_preview_shows_the_whole_content_on_hover() {
    // Issue 13, point 5: a card's preview is cut to two rows; its content
    // shows whole on hover.
    let mut harness = demo_at(1024.0, 700.0);
    harness
        .state_mut()
        .state
        .apply(vec![agui_replay::app_model::command::Command::Time(
            agui_replay::app_model::time_control::TimeCommand::Set(agui_replay::Seq::new(16)),
        )]);
    harness.run();
    let tail = r#"easyJet, Fri 20:40"}]"#;
    let before = harness.query_all_by_label_contains(tail).count();
    harness.get_by_label("Activity search-1").hover();
    harness.run();
    assert_eq!(
        harness.query_all_by_label_contains(tail).count(),
        before + 1,
        "the card's tooltip holds the whole content"
    );
}

// Issue 43, point 3a: at 1024×700 the Bookmarks tab was wider than its
// panel, which the conversation was then drawn over: the Inspector tab, the
// label field, Previous, each bookmark's step and Delete, a note's Edit
// were hidden. Each must lie inside the right panel and the window.
#[test]
fn the_bookmarks_tab_fits_its_panel_in_a_small_window() {
    use agui_replay::app_model::command::{Command, NoteCommand};
    use agui_replay::app_model::time_control::TimeCommand;
    // JSON lines: the bookmarks stay in memory, no file is written.
    let mut harness = harness_sized(ReplayApp::with_file(&crate::common::demo()), 1024.0, 700.0);
    harness.state_mut().state.apply(vec![
        Command::Time(TimeCommand::Set(agui_replay::Seq::new(16))),
        Command::Note(NoteCommand::AddBookmark(Some(
            "the failed patch of search-1, worth a second look".to_owned(),
        ))),
        Command::Note(NoteCommand::AddNote(
            "the test op fails: /found was 3, the delta expected 2".to_owned(),
        )),
    ]);
    harness.state_mut().right_tab = agui_replay::ui::RightTab::Bookmarks;
    crate::panel::settle(&mut harness);
    let widths = harness.state().layout.widths();
    let inspector = widths.inspector.expect("the right panel shows");
    let events = widths.events.expect("the event list shows");
    assert!(
        events + widths.central + inspector <= 1024.0 + 1.0,
        "the panels overlap: {widths:?}"
    );
    let panel_left = 1024.0 - inspector;
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 700.0));
    let inside = |what: &str, rect: egui::Rect| {
        assert!(
            rect.left() >= panel_left - 1.0 && window.contains_rect(rect),
            "{what} at {rect:?} is outside the right panel (from x = {panel_left}) or the window"
        );
    };
    inside(
        "the Inspector tab",
        harness.get_by_label("Inspector").rect(),
    );
    inside("the label field", harness.get_by_label("Label").rect());
    inside("Previous", harness.get_by_label("Previous ([)").rect());
    inside("Next", harness.get_by_label("Next (])").rect());
    inside(
        "the bookmark's step",
        harness
            .get_by_label_contains("the failed patch of search-1")
            .rect(),
    );
    inside("Rename", harness.get_by_label("Rename").rect());
    for delete in harness.query_all_by_label("Delete") {
        inside("Delete", delete.rect());
    }
    assert_eq!(harness.query_all_by_label("Delete").count(), 2);
    // The Edit menu is the other "Edit": the note's is below it.
    let note_edit = harness
        .query_all_by_label("Edit")
        .max_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .expect("the note's Edit");
    inside("the note's Edit", note_edit.rect());
    inside(
        "the Bookmark button",
        harness.get_by_label("Bookmark step 16 (m)").rect(),
    );
    inside(
        "the Add note button",
        harness.get_by_label_contains("Add note at step 16").rect(),
    );
    // The note's step, a link to it.
    let link = harness
        .query_all_by_label_contains("step 16")
        .filter(|node| {
            node.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("step 16"))
        })
        .map(|node| node.rect())
        .find(|rect| rect.left() >= panel_left - 1.0);
    inside("the note's step", link.expect("the note's step link"));
}

/// The demo at step 16 (the failed patch of search-1) in a window
/// `width`×`height`.
fn demo_at_step_16(width: f32, height: f32) -> Harness<'static, ReplayApp> {
    let mut harness = demo_at(width, height);
    harness
        .state_mut()
        .state
        .apply(vec![agui_replay::app_model::command::Command::Time(
            agui_replay::app_model::time_control::TimeCommand::Set(agui_replay::Seq::new(16)),
        )]);
    crate::panel::settle(&mut harness);
    harness
}

const RIGHT_TABS: [&str; 5] = ["Inspector", "Diagnostics", "Bookmarks", "Search", "State"];

/// The side panel's tab `label` (the timeline has a Diagnostics row too).
fn right_tab<'h>(
    harness: &'h Harness<'static, ReplayApp>,
    label: &'h str,
) -> egui_kittest::Node<'h> {
    harness
        .query_all_by_label(label)
        .find(|node| node.rect().top() < 120.0)
        .unwrap_or_else(|| panic!("the {label} tab"))
}

// Issue 43: at 1024×700 the side panel's tabs took two rows.
#[test]
fn the_side_panels_tabs_sit_on_one_row_in_a_small_window() {
    for (width, height) in [(1024.0, 700.0), (1400.0, 900.0)] {
        let harness = demo_at(width, height);
        let rects: Vec<egui::Rect> = RIGHT_TABS
            .iter()
            .map(|tab| right_tab(&harness, tab).rect())
            .collect();
        for (tab, rect) in RIGHT_TABS.iter().zip(&rects) {
            assert!(
                (rect.center().y - rects[0].center().y).abs() < 1.0,
                "{width}: {tab} at {rect:?} is not on the row of {:?}",
                rects[0]
            );
            assert!(rect.right() <= width, "{width}: {tab} at {rect:?} is cut");
        }
    }
}

// Issue 43: the side panel's width jumped between its Inspector and
// Diagnostics tabs (a rule's long heading widened it).
#[test]
fn the_side_panel_keeps_its_width_whichever_tab_shows() {
    for (width, height) in [(1024.0, 700.0), (1400.0, 900.0)] {
        let mut harness = demo_at_step_16(width, height);
        let inspector = harness.state().layout.widths().inspector;
        for tab in ["Diagnostics", "Bookmarks", "Search", "State", "Inspector"] {
            right_tab(&harness, tab).click();
            crate::panel::settle(&mut harness);
            assert_eq!(
                harness.state().layout.widths().inspector,
                inspector,
                "{width}: the {tab} tab changed the panel's width"
            );
        }
    }
}

// Issue 43: at 1024×700 the event list cut the event types
// ("ACTIVITY_SNA…").
#[test]
fn the_event_list_shows_its_types_whole_in_a_small_window() {
    let width_of = |harness: &Harness<'static, ReplayApp>, name: &str| {
        harness
            .query_all_by_label(name)
            .map(|node| node.rect().width())
            .next()
            .unwrap_or_else(|| panic!("{name} in the event list"))
    };
    let small = demo_at(1024.0, 700.0);
    let large = demo_at(1920.0, 1080.0);
    for name in [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "STEP_STARTED",
    ] {
        let (cut, whole) = (width_of(&small, name), width_of(&large, name));
        assert!(
            (cut - whole).abs() < 0.5,
            "{name} is {cut} wide at 1024×700, {whole} at 1920×1080"
        );
    }
}

// Issue 43: at 1024×700 the explanation of the failed patch at step 16 was
// below the inspector's fold.
#[test]
fn a_failed_patch_is_explained_above_the_inspectors_fold_in_a_small_window() {
    let harness = demo_at_step_16(1024.0, 700.0);
    let timeline_top = harness.get_by_label("Steps").rect().top();
    let why = harness
        .query_all_by_label_contains("/stats does not exist")
        .map(|node| node.rect())
        .min_by(|a, b| a.top().total_cmp(&b.top()))
        .expect("the failing op's explanation");
    assert!(
        why.bottom() < timeline_top && why.left() > 1024.0 * 0.6,
        "the explanation at {why:?} is not in the inspector above its fold ({timeline_top})"
    );
}

/// The rect of the first node labelled `label`.
fn rect_of(harness: &Harness<'static, ReplayApp>, label: &str) -> egui::Rect {
    harness
        .query_all_by_label(label)
        .next()
        .unwrap_or_else(|| panic!("{label} shows"))
        .rect()
}

/// Asserts that `label` lies whole in the centre (left of the side panel):
/// inside it, as wide as in a window where nothing is short of room.
fn assert_whole(
    harness: &Harness<'static, ReplayApp>,
    roomy: &Harness<'static, ReplayApp>,
    label: &str,
    width: f32,
) {
    let right = width - harness.state().layout.widths().inspector.unwrap_or(0.0);
    let (rect, whole) = (rect_of(harness, label), rect_of(roomy, label));
    assert!(
        rect.right() <= right && (rect.width() - whole.width()).abs() < 0.5,
        "{width}: {label} at {rect:?} is cut by the centre's edge at {right} (whole: {whole:?})"
    );
}

/// The demo's diff of steps 15 and 16 (`d` at the failed patch).
fn diff_at(width: f32, height: f32) -> Harness<'static, ReplayApp> {
    let mut harness = demo_at_step_16(width, height);
    harness.key_press(egui::Key::D);
    crate::panel::settle(&mut harness);
    assert_eq!(
        harness.state().state.central_tab(),
        agui_replay::app_model::command::CentralTab::Diff
    );
    harness
}

// Issue 43: below about 1400 px the diff's toolbar wrapped to four rows and
// the patch column was cut ("Patc", "Cop").
#[test]
fn the_diff_lays_out_whole_in_a_small_window() {
    let roomy = diff_at(2400.0, 1080.0);
    for (width, height) in [(1024.0, 700.0), (1400.0, 900.0)] {
        let harness = diff_at(width, height);
        for label in [
            "Patch from A to B",
            "Copy patch",
            "A: 15",
            "B: 16",
            "Set (a)",
            "Set (b)",
            "Diff with previous step (d)",
            "Clear marks",
            "Full width",
            "Compare",
            "no difference",
            "A: step 15",
            "B: step 16",
        ] {
            assert_whole(&harness, &roomy, label, width);
        }
        // The two marks on one row, the toolbar on three.
        let row = |label: &str| rect_of(&harness, label).center().y;
        assert!(
            (row("A: 15") - row("B: 16")).abs() < 1.0,
            "{width}: the marks' row"
        );
        assert!(
            row("Compare") - row("A: 15") < 3.0 * 26.0,
            "{width}: more than three rows"
        );
        // The patch does not overlap either side's title.
        let patch = rect_of(&harness, "Patch from A to B");
        for side in ["A: step 15", "B: step 16"] {
            let title = rect_of(&harness, side);
            assert!(
                !title.intersects(patch),
                "{width}: {side} {title:?} under {patch:?}"
            );
        }
    }
}

// Issue 43: the event list's columns kept the widths of a wider window
// when it was made smaller, cutting the types.
#[test]
fn the_event_list_lays_out_its_columns_again_in_a_smaller_window() {
    let fresh = demo_at(1024.0, 700.0);
    let mut resized = demo_at(1400.0, 900.0);
    resized.set_size(egui::vec2(1024.0, 700.0));
    crate::panel::settle(&mut resized);
    let width = |h: &Harness<'static, ReplayApp>| rect_of(h, "ACTIVITY_SNAPSHOT").width();
    assert!(
        (width(&resized) - width(&fresh)).abs() < 0.5,
        "resized {} against {} opened at that size",
        width(&resized),
        width(&fresh)
    );
}
