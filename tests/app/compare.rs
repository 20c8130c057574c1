//! File › Compare with… (issue 17, point 4): a second stream (B) beside
//! the demo (A), the two timelines linked, and A's state at the cursor
//! beside B's at the aligned step. The pairs are those of the `compare`
//! command's tests (`tests/fixtures/compare/`).

use agui_replay::app_model::command::CentralTab;
use agui_replay::app_model::command::Command;
use agui_replay::app_model::compare_with::CompareCommand;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::diff::DiffScope;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::compare_with::strips::{LABEL, StripsLayout, axis};
use agui_replay::ui::file_dialog::{FilePicker, Purpose};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::{demo, manifest_path};
use crate::panel::{harness, step};

fn fixture(name: &str) -> std::path::PathBuf {
    manifest_path(&format!("tests/fixtures/compare/{name}"))
}

/// The demo compared with `b` (the command applied as a menu would).
fn compared_with(b: &str) -> Harness<'static, ReplayApp> {
    let mut h = harness(ReplayApp::with_file(&demo()));
    h.state_mut()
        .state
        .apply(vec![Command::Compare(CompareCommand::Open(fixture(b)))]);
    h.state_mut().state.wait_for_compare();
    h.run();
    h
}

fn b_step(h: &Harness<'static, ReplayApp>) -> u64 {
    let state = &h.state().state;
    let compared = state.compare_with().compared().expect("compared");
    compared.b_step(state.step()).get()
}

fn set_step(h: &mut Harness<'static, ReplayApp>, step: u64) {
    h.state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
    h.run();
}

#[test]
fn file_compare_with_opens_b_in_the_apps_dialog_and_goes_to_the_first_divergence() {
    let mut app = ReplayApp::with_file(&demo());
    app.file_picker = FilePicker::without_native();
    let mut h = harness(app);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Compare with…").click();
    h.run();
    let dialog = h.state().file_picker.fallback().expect("the app's dialog");
    assert_eq!(dialog.purpose(), Purpose::Compare);
    h.get_by_label("Path").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&fixture("fixed.jsonl").display().to_string());
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    h.state_mut().state.wait_for_compare();
    h.run();
    assert_eq!(h.state().state.central_tab(), CentralTab::Compare);
    assert_eq!(h.state().state.error(), None);
    let compared = h.state().state.compare_with().compared().expect("B");
    assert_eq!(compared.doc.path, fixture("fixed.jsonl"));
    // The demo's delta at step 16 fails; B's (fixed) applies.
    h.get_by_label("First event divergence: A 16 / B 16")
        .click();
    h.run();
    h.run();
    assert_eq!((step(&h), b_step(&h)), (16, 16));
    let compared = h.state().state.compare_with().compared().unwrap();
    let view = compared.diff().expect("the diff of A and B");
    assert_eq!((view.key.0, view.key.1), (Seq::new(16), Seq::new(16)));
    // The activity the inspector follows: the one step 16 names.
    assert_eq!(view.key.2, DiffScope::Message("search-1".into()));
    assert!(!view.comparison.is_unchanged());
    assert_eq!(view.comparison.before["content"].get("stats"), None);
    assert_eq!(view.comparison.after["content"]["stats"]["total"], 2);
    h.get_by_label("Close comparison").click();
    h.run();
    assert!(!h.state().state.compare_with().is_open());
    assert_eq!(h.state().state.central_tab(), CentralTab::Conversation);
}

#[test]
fn moving_the_cursor_in_a_moves_b_to_the_aligned_step() {
    // `inserted.jsonl` has one event more, B's step 13: after it, A's step
    // n is B's step n + 1.
    let mut h = compared_with("inserted.jsonl");
    set_step(&mut h, 12);
    assert_eq!(b_step(&h), 12);
    set_step(&mut h, 20);
    assert_eq!(b_step(&h), 21);
    set_step(&mut h, 45);
    assert_eq!(b_step(&h), 46);
    // The state is the same at aligned steps: no difference shown.
    let compared = h.state().state.compare_with().compared().unwrap();
    let view = compared.diff().expect("a diff");
    assert_eq!((view.key.0, view.key.1), (Seq::new(45), Seq::new(46)));
    assert!(view.comparison.is_unchanged(), "{}", view.patch_text);
    h.get_by_label("Previous difference").click();
    h.run();
    assert_eq!((step(&h), b_step(&h)), (12, 13), "the event B alone has");
}

#[test]
fn a_click_on_bs_timeline_puts_b_there_and_a_at_the_aligned_step() {
    let mut h = compared_with("inserted.jsonl");
    set_step(&mut h, 30);
    let rect = h.get_by_label(LABEL).rect();
    let layout = StripsLayout::of(rect);
    let click = |h: &mut Harness<'static, ReplayApp>, pos: egui::Pos2| {
        h.hover_at(pos);
        h.run();
        for pressed in [true, false] {
            h.event(egui::Event::PointerButton {
                pos,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            });
        }
        h.run();
    };
    // B's step 13, the inserted event: A stays at the step it follows.
    let x = axis(layout.b, 46).x_from_step(13.0);
    click(&mut h, egui::pos2(x, layout.b.center().y));
    assert_eq!((step(&h), b_step(&h)), (12, 13));
    // B's step 25 is A's 24.
    let x = axis(layout.b, 46).x_from_step(25.0);
    click(&mut h, egui::pos2(x, layout.b.center().y));
    assert_eq!((step(&h), b_step(&h)), (24, 25));
    // A's strip moves A, and B follows.
    let x = axis(layout.a, 45).x_from_step(40.0);
    click(&mut h, egui::pos2(x, layout.a.center().y));
    assert_eq!((step(&h), b_step(&h)), (40, 41));
}

#[test]
fn a_file_that_cannot_be_compared_says_why() {
    let mut h = harness(ReplayApp::with_file(&demo()));
    let missing = fixture("no-such-file.jsonl");
    h.state_mut()
        .state
        .apply(vec![Command::Compare(CompareCommand::Open(missing))]);
    h.state_mut().state.wait_for_compare();
    h.run();
    let error = h.state().state.error().expect("an error");
    assert!(error.contains("no-such-file.jsonl"), "{error}");
    assert!(!h.state().state.compare_with().is_open());
    assert_eq!(h.state().state.central_tab(), CentralTab::Conversation);
}

// Issue 43: below about 1400 px the patch column was cut ("Patc", "Cop"),
// and at 1024×700 the tab row and the header ran under the side panel.
#[test]
fn the_comparison_shows_whole_in_a_small_window() {
    let compared_at = |width: f32, height: f32| {
        let mut h = crate::panel::harness_sized(ReplayApp::with_file(&demo()), width, height);
        h.state_mut()
            .state
            .apply(vec![Command::Compare(CompareCommand::Open(fixture(
                "inserted.jsonl",
            )))]);
        h.state_mut().state.wait_for_compare();
        crate::panel::settle(&mut h);
        assert_eq!(h.state().state.central_tab(), CentralTab::Compare);
        h
    };
    let roomy = compared_at(2400.0, 1080.0);
    for (width, height) in [(1024.0, 700.0), (1400.0, 900.0)] {
        let h = compared_at(width, height);
        let right = width - h.state().layout.widths().inspector.unwrap_or(0.0);
        for label in [
            "Patch from A to B",
            "Copy patch",
            "Compare",
            "A: demo.jsonl",
            "B: inserted.jsonl",
            "Full width",
            "Close comparison",
            "Next difference",
        ] {
            // Each widget so labelled ("Compare": the tab and the scope's).
            let rects = |h: &Harness<'static, ReplayApp>| {
                let mut rects: Vec<egui::Rect> = h
                    .query_all_by_label(label)
                    .map(|node| node.rect())
                    .collect();
                rects.sort_by(|a, b| a.top().total_cmp(&b.top()));
                rects
            };
            let (shown, wholes) = (rects(&h), rects(&roomy));
            assert!(
                !shown.is_empty() && shown.len() == wholes.len(),
                "{width}: {label}"
            );
            for (rect, whole) in shown.iter().zip(&wholes) {
                assert!(
                    rect.right() <= right && (rect.width() - whole.width()).abs() < 0.5,
                    "{width}: {label} at {rect:?} is cut by the centre's edge at {right} (whole: {whole:?})"
                );
            }
        }
        // The tab scrolls down to the patch, above the timeline.
        let mut h = h;
        let centre = egui::pos2(
            right - 60.0,
            h.get_by_label("Full width").rect().bottom() + 20.0,
        );
        h.hover_at(centre);
        h.run();
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, -40.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(20);
        let timeline_top = h.get_by_label("Steps").rect().top();
        let copy = h.get_by_label("Copy patch").rect();
        assert!(
            copy.bottom() < timeline_top,
            "{width}: Copy patch at {copy:?}, the timeline from {timeline_top}"
        );
    }
}
