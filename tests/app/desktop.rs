//! The app on any desktop, with any file (issue 13, points 8, 10 and 11):
//! the app's own file dialog where the system shows none, the bytes of an
//! unparseable event exactly as received, times that were made up said to
//! be, and the bundled demo never written.

use std::path::{Path, PathBuf};

use agui_replay::app_model::command::Command;
use agui_replay::app_model::document::Timing;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::store::Recording;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::file_dialog::{FilePicker, NativeAnswer, NativeDialogs, Purpose};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::bin::BIN;
use crate::common::store::{assert_unchanged, file_state};
use crate::common::{TempDir, demo, demo_rec};
use crate::panel::{harness, step, wait_for_loading};

/// An app whose system file dialog never shows (no desktop portal).
fn without_portal(app: ReplayApp) -> Harness<'static, ReplayApp> {
    let mut app = app;
    app.file_picker = FilePicker::without_native();
    harness(app)
}

/// Two events a line each, without timestamps.
const UNTIMED: &str = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
                       {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n";

fn type_in_path_field(harness: &mut Harness<'static, ReplayApp>, text: &str) {
    harness.get_by_label("Path").focus();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("Path").type_text(text);
    harness.run();
}

fn fallback_text(harness: &Harness<'static, ReplayApp>) -> String {
    harness
        .state()
        .file_picker
        .fallback()
        .expect("the app's dialog shows")
        .text()
        .to_owned()
}

// ------------------------------------------------------------ file dialog

#[test]
fn file_open_without_a_portal_shows_the_apps_dialog_and_enter_opens_the_path() {
    // Issue 13, point 8: File › Open… did nothing without a portal.
    let dir = TempDir::new("dialog-open");
    let file = dir.write("untimed.jsonl", UNTIMED);
    let mut harness = without_portal(ReplayApp::new(None));
    harness.get_by_label("File").click();
    harness.run();
    harness
        .get_by(|node| {
            node.role() == egui::accesskit::Role::Button
                && node.label().is_some_and(|l| l.starts_with("Open…"))
        })
        .click();
    harness.run();
    let dialog = harness.state().file_picker.fallback().expect("it shows");
    assert_eq!(dialog.purpose(), Purpose::Open);
    harness.get_by_label("Open a recording or stream");
    type_in_path_field(&mut harness, &file.display().to_string());
    harness.key_press(egui::Key::Enter);
    harness.step();
    wait_for_loading(&mut harness);
    assert!(harness.state().file_picker.fallback().is_none(), "closed");
    let doc = harness.state().state.doc().expect("the file opened");
    assert_eq!(doc.path, file);
    assert_eq!(doc.num_events(), 2);
}

#[test]
fn ctrl_o_opens_the_dialog_and_escape_closes_it() {
    let mut harness = without_portal(ReplayApp::with_file(&demo()));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    let text = fallback_text(&harness);
    // It starts in the open file's folder.
    let folder = std::path::absolute(demo()).expect("absolute");
    let folder = folder.parent().expect("a folder");
    assert_eq!(text, format!("{}/", folder.display()));
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.state().file_picker.fallback().is_none());
    let doc = harness.state().state.doc().expect("still open");
    assert_eq!(doc.path, demo(), "nothing else opened");
}

#[test]
fn tab_completes_a_name_of_the_folder_typed() {
    let dir = TempDir::new("dialog-tab");
    dir.write("lisbon-trip.jsonl", UNTIMED);
    dir.subdir("other");
    let mut harness = without_portal(ReplayApp::new(None));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    let typed = format!("{}/lis", dir.display());
    type_in_path_field(&mut harness, &typed);
    // The name that fits shows, under the field and in the listing.
    assert_eq!(harness.get_all_by_label("lisbon-trip.jsonl").count(), 2);
    harness.key_press(egui::Key::Tab);
    harness.run();
    let completed = format!("{}/lisbon-trip.jsonl", dir.display());
    assert_eq!(fallback_text(&harness), completed);
    harness.key_press(egui::Key::Enter);
    // The file opens in the background: step until it has.
    harness.step();
    wait_for_loading(&mut harness);
    let doc = harness.state().state.doc().expect("opened");
    assert_eq!(doc.path, PathBuf::from(&completed));
}

// Issue 43, point 4: Tab with nothing to complete moved the keyboard to
// the listing's "../"; it stays in the field.
#[test]
fn tab_with_nothing_to_complete_keeps_the_keyboard_in_the_field() {
    let dir = TempDir::new("dialog-tab-none");
    dir.write("lisbon-trip.jsonl", UNTIMED);
    let mut harness = without_portal(ReplayApp::new(None));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    let typed = format!("{}/zz", dir.display());
    type_in_path_field(&mut harness, &typed);
    assert!(harness.get_by_label("Path").is_focused());
    harness.key_press(egui::Key::Tab);
    harness.run();
    assert!(
        harness.get_by_label("Path").is_focused(),
        "the field keeps the keyboard"
    );
    assert!(!harness.get_by_label("../").is_focused());
    assert_eq!(fallback_text(&harness), typed);
    // Typing goes on in the field.
    harness.get_by_label("Path").type_text("z");
    harness.run();
    assert_eq!(fallback_text(&harness), format!("{typed}z"));
}

#[test]
fn a_path_that_does_not_exist_is_refused_in_the_dialog_with_the_reason() {
    let dir = TempDir::new("dialog-missing");
    let mut harness = without_portal(ReplayApp::new(None));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    let missing = dir.join("nothing-here.rec");
    type_in_path_field(&mut harness, &missing.display().to_string());
    harness.key_press(egui::Key::Enter);
    harness.run();
    let reason = format!("no such file or directory: {}", missing.display());
    harness.get_by_label(&reason);
    let dialog = harness.state().file_picker.fallback().expect("still shows");
    assert_eq!(dialog.error(), Some(reason.as_str()));
    assert!(harness.state().state.doc().is_none());
    assert!(!harness.state().state.is_loading(), "nothing is opened");
}

/// A system dialog that answers as told, and counts the questions.
struct Answering(NativeAnswer, std::rc::Rc<std::cell::Cell<u32>>);

impl NativeDialogs for Answering {
    fn pick_file(&mut self, _start_dir: Option<&Path>) -> NativeAnswer {
        self.1.set(self.1.get() + 1);
        self.0.clone()
    }

    fn save_file(&mut self, _suggested: &Path) -> NativeAnswer {
        self.1.set(self.1.get() + 1);
        self.0.clone()
    }
}

#[test]
fn where_the_system_dialog_shows_the_apps_own_does_not() {
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut app = ReplayApp::new(None);
    app.file_picker = FilePicker::new(Box::new(Answering(
        NativeAnswer::Picked(demo()),
        asked.clone(),
    )));
    let mut harness = harness(app);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.step();
    wait_for_loading(&mut harness);
    assert_eq!(asked.get(), 1);
    assert!(harness.state().file_picker.fallback().is_none());
    assert_eq!(
        harness.state().state.doc().map(|d| d.path.clone()),
        Some(demo())
    );
    // A cancel is a cancel: no dialog of the app's after it.
    harness.state_mut().file_picker =
        FilePicker::new(Box::new(Answering(NativeAnswer::Cancelled, asked.clone())));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    assert_eq!(asked.get(), 2);
    assert!(harness.state().file_picker.fallback().is_none());
}

#[test]
fn export_browse_without_a_portal_fills_the_path_from_the_apps_dialog() {
    let dir = TempDir::new("dialog-export");
    let mut harness = without_portal(ReplayApp::with_file(&demo()));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    harness.run();
    harness.get_by_label("Browse…").click();
    harness.run();
    let dialog = harness.state().file_picker.fallback().expect("it shows");
    assert_eq!(dialog.purpose(), Purpose::Export);
    let out = dir.join("case.rec");
    type_in_path_field(&mut harness, &out.display().to_string());
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert!(harness.state().file_picker.fallback().is_none());
    assert_eq!(
        harness.state().export_dialog.path(),
        out.display().to_string()
    );
    assert!(!out.exists(), "choosing writes nothing");
}

#[test]
fn a_missing_file_on_the_command_line_reaches_the_window() {
    // Issue 13, point 8: `agui-replay missing.rec` printed "no such file"
    // and exited before any window. Now the window opens with the error in
    // its banner (the kittest half), and the command no longer stops
    // before it (here without a display, so the window itself fails).
    let missing = std::env::temp_dir().join("agui-replay-surely-missing.rec");
    let mut harness = harness(ReplayApp::new(Some(missing.clone())));
    wait_for_loading(&mut harness);
    let error = harness.state().state.error().expect("an error").to_owned();
    assert!(error.contains("no such file"), "{error}");
    harness.get_by_label(&error);

    let home = TempDir::new("missing-home");
    let output = std::process::Command::new(BIN)
        .arg(&missing)
        .args(["--exit-after", "0"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("no such file"), "{stderr}");
    assert!(stderr.contains("cannot open the window"), "{stderr}");
}

// ------------------------------------------------------------ exact bytes

#[test]
fn an_unparseable_event_shows_its_bytes_exactly_and_binary_ones_as_hex() {
    // Issue 13, point 10: the Raw JSON panel re-indented the text and
    // dropped its white space, the very bytes that are the bug.
    let odd = "{\"type\":\"TEXT_MESSAGE_CONTENT\",\t\"delta\":  \"hi\" ,,}  \t";
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n");
    bytes.extend_from_slice(odd.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(b"{\"type\":\"RUN_\xff\xfeED\"}\n");
    let dir = TempDir::new("raw-bytes");
    let file = dir.write("odd.jsonl", &bytes);
    let mut harness = harness(ReplayApp::with_file(&file));
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(2)))]);
    harness.run();
    harness.get_by_label("Raw bytes (as received)");
    // The inspector's label holds the text exactly, white space and all
    // (the event list's summary shows it too, on the left).
    let in_inspector = |harness: &Harness<'static, ReplayApp>, text: &str| {
        harness
            .query_all_by_label(text)
            .filter(|node| node.rect().left() > 900.0)
            .count()
    };
    assert_eq!(in_inspector(&harness, odd), 1);
    assert!(
        harness
            .query_by_label_contains("\"delta\": \"hi\"")
            .is_none()
    );
    harness.get_by_label_contains("Holds tabs");

    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(3)))]);
    harness.run();
    harness.get_by_label("Not UTF-8 text: the bytes as received, in hex");
    // 8 bytes a line: `"RUN_`, the two bytes, `E`; then `D"}`.
    harness.get_by_label_contains("00000008  22 52 55 4e 5f ff fe 45  |\"RUN_..E|");
    harness.get_by_label_contains("00000010  44 22 7d");
}

#[test]
fn a_parsed_event_can_be_shown_as_received_too() {
    let dir = TempDir::new("raw-parsed");
    let sent = "{\"type\": \"RUN_STARTED\",   \"threadId\":\"t\",\"runId\":\"r\"}";
    let file = dir.write("spaced.jsonl", format!("{sent}\n"));
    let mut harness = harness(ReplayApp::with_file(&file));
    harness.get_by_label("Raw JSON");
    let in_inspector = |harness: &Harness<'static, ReplayApp>| {
        harness
            .query_all_by_label(sent)
            .filter(|node| node.rect().left() > 900.0)
            .count()
    };
    assert_eq!(in_inspector(&harness), 0, "pretty by default");
    harness.get_by_label("As received").click();
    harness.run();
    assert_eq!(in_inspector(&harness), 1);
}

// ------------------------------------------------------- invented timings

#[test]
fn times_made_up_for_a_file_without_timestamps_are_labelled() {
    // Issue 13, point 10.
    let dir = TempDir::new("invented");
    let file = dir.write("untimed.jsonl", UNTIMED);
    let mut harness = harness(ReplayApp::with_file(&file));
    let doc = harness.state().state.doc().expect("open");
    assert_eq!(doc.timing, Timing::Invented);
    assert_eq!(doc.arrival_nanos, [0, 100_000_000]);
    harness.get_by_label("invented timing");
    // The event list's time column says so too.
    harness.get_by_label("ms*");
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(2)))]);
    harness.run();
    harness.get_by_label("at 0.100 s");

    // A stream with its own timestamps has no such label.
    let harness = self::harness(ReplayApp::with_file(&demo()));
    assert_eq!(
        harness.state().state.doc().map(|d| d.timing),
        Some(Timing::Timestamps)
    );
    assert!(harness.query_by_label("invented timing").is_none());
    assert!(harness.query_by_label("ms*").is_none());
}

/// The demo as a recording whose every arrival time is 0 (no timing).
fn untimed_recording(dir: &TempDir) -> PathBuf {
    let rec = dir.join("untimed.rec");
    std::fs::copy(demo_rec(), &rec).expect("copy the demo");
    let db = rusqlite::Connection::open(&rec).expect("open");
    db.execute("UPDATE events SET arrival_nanos = 0", [])
        .expect("update");
    drop(db);
    rec
}

#[test]
fn play_with_every_time_zero_goes_step_by_step_not_to_the_end() {
    // Issue 13, point 10: a stream whose arrival times are all 0 played to
    // its end in one frame.
    let dir = TempDir::new("zero-times");
    let rec = untimed_recording(&dir);
    let mut harness = harness(ReplayApp::with_file(&rec));
    assert_eq!(
        harness.state().state.doc().map(|d| d.timing),
        Some(Timing::Untimed)
    );
    harness.get_by_label("no timing");
    // From step 0, before any event (Home goes to step 1 since issue 43).
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::START))]);
    harness.run();
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Play)]);
    let mut steps = vec![step(&harness)];
    for _ in 0..4 {
        // 0.25 s a frame under kittest: about 2.5 events at 100 ms each.
        harness.step();
        steps.push(step(&harness));
    }
    assert!(harness.state().state.time().is_playing(), "{steps:?}");
    for pair in steps.windows(2) {
        let advance = pair[1] - pair[0];
        assert!(
            (1..=3).contains(&advance),
            "one frame, a few steps: {steps:?}"
        );
    }
    assert!(*steps.last().expect("steps") < 45, "{steps:?}");
}

// ------------------------------------------------------ the demo, pristine

#[test]
fn bookmarking_in_the_demo_opened_with_no_argument_leaves_the_bundled_file_unchanged() {
    // Issue 13, point 11: a bookmark with no argument was written into the
    // checkout's recordings/demo.rec.
    let bundled = demo_rec();
    let before = file_state(&bundled);
    let data = TempDir::new("demo-data");
    let mut harness = harness(ReplayApp::with_demo(&bundled, Some(data.path())));
    wait_for_loading(&mut harness);
    let copy = data.join("agui-replay").join("demo.rec");
    let doc = harness.state().state.doc().expect("the demo is open");
    assert_eq!(doc.path, copy, "from the user's copy");
    assert_eq!(doc.num_events(), 45);
    let saved_before = Recording::open(&copy)
        .and_then(|r| r.bookmarks(agui_replay::store::SessionId::new(1)))
        .expect("bookmarks")
        .len();
    harness.key_press(egui::Key::ArrowRight);
    harness.run();
    harness.key_press(egui::Key::M);
    harness.run();
    harness.key_press(egui::Key::ArrowRight);
    harness.run();
    harness.state_mut().state.apply(vec![Command::Note(
        agui_replay::app_model::command::NoteCommand::AddBookmark(None),
    )]);
    harness.run();
    assert!(
        harness.state().state.error().is_none(),
        "{:?}",
        harness.state().state.error()
    );
    let saved = Recording::open(&copy)
        .and_then(|r| r.bookmarks(agui_replay::store::SessionId::new(1)))
        .expect("bookmarks");
    assert_eq!(saved.len(), saved_before + 2, "both saved in the copy");
    assert_unchanged(&bundled, &before, "bookmarking in the demo");

    // Opened again, the copy (and its bookmarks) is kept.
    let harness = {
        let mut h = self::harness(ReplayApp::with_demo(&bundled, Some(data.path())));
        wait_for_loading(&mut h);
        h
    };
    assert_eq!(
        harness.state().state.annotations().bookmarks().len(),
        saved_before + 2
    );
    assert_unchanged(&bundled, &before, "opening the demo again");
}

#[test]
fn the_binary_with_no_argument_copies_the_demo_into_xdg_data_home() {
    // The real route: the environment names the data folder. Without a
    // display the window fails, after the copy is made.
    let bundled = demo_rec();
    let before = file_state(&bundled);
    let home = TempDir::new("demo-home");
    let data = home.subdir("data");
    let output = std::process::Command::new(BIN)
        .args(["--exit-after", "0"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_DATA_HOME", &data)
        .output()
        .expect("the binary runs");
    let copy = data.join("agui-replay").join("demo.rec");
    assert!(
        copy.is_file(),
        "no copy; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(std::fs::read(&copy).expect("read"), before.bytes);
    assert_unchanged(&bundled, &before, "starting the app on the demo");
}
