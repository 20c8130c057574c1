//! The app's tools for after the moment is found (issue 7), driven headless
//! with egui_kittest: marks and the diff view, the export dialog, bookmarks
//! and notes, search over time, and following a recording that is still
//! being written.

use agui_replay::app_model::command::{MarkCommand, NoteCommand};
use agui_replay::app_model::export_dialog::{ExportCommand, Format, ScopeChoice};
use agui_replay::app_model::notes::AnnotationId;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agui_replay::app_model::command::Command;
use agui_replay::app_model::command::{CentralTab, DiffScopeChoice};
use agui_replay::app_model::search::Condition;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::diff::DiffScope;
use agui_replay::store::{
    Arrival, NewSession, Recording, RecordingWriter, SessionId, SessionStatus,
};
use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::{TempDir, manifest_path as fixture};
use crate::panel::{harness, settle, step, wait_for_loading};

fn open(path: &Path) -> Harness<'static, ReplayApp> {
    let harness = harness(ReplayApp::with_file(path));
    assert!(
        harness.state().state.error().is_none(),
        "{:?}",
        harness.state().state.error()
    );
    harness
}

/// Applies `commands` and runs frames until the app is idle: a command
/// that opens in the background (another session, another profile) keeps
/// a spinner turning, so a bare `Harness::run` fails or not by the
/// machine's speed (it failed so in CI).
fn apply(harness: &mut Harness<'static, ReplayApp>, commands: Vec<Command>) {
    harness.state_mut().state.apply(commands);
    settle(harness);
}

fn press(harness: &mut Harness<'static, ReplayApp>, key: egui::Key) {
    harness.key_press(key);
    settle(harness);
}

// ------------------------------------------------------------------- diff

#[test]
fn keys_a_and_b_mark_two_points_and_the_diff_shows_the_patch() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    apply(
        &mut harness,
        vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Time(TimeCommand::Set(Seq::new(26))),
        ],
    );
    press(&mut harness, egui::Key::A);
    assert_eq!(harness.state().state.marks(), [Some(Seq::new(26)), None]);
    assert_eq!(
        harness.state().state.central_tab(),
        CentralTab::Conversation
    );
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(27)))],
    );
    press(&mut harness, egui::Key::B);
    let state = &harness.state().state;
    assert_eq!(state.marks(), [Some(Seq::new(26)), Some(Seq::new(27))]);
    assert_eq!(
        state.central_tab(),
        CentralTab::Diff,
        "both marks: the diff shows"
    );
    let view = state.comparison().expect("a comparison");
    assert_eq!(view.comparison.scope, DiffScope::Message("plan-1".into()));
    let patch = serde_json::to_value(&view.comparison.patch).expect("JSON");
    assert_eq!(
        patch,
        serde_json::json!([{"op": "replace", "path": "/content/items/0/done", "value": true}])
    );
    harness.get_by_label("Patch from A to B");
    harness.get_by_label_contains("1 changed");

    // Copy puts the patch on the clipboard.

    harness.get_by_label("Copy patch").click();
    let mut copied = None;
    for _ in 0..4 {
        harness.step();
        copied = copied.or_else(|| {
            harness
                .output()
                .platform_output
                .commands
                .iter()
                .find_map(|c| match c {
                    egui::OutputCommand::CopyText(text) => Some(text.clone()),
                    _ => None,
                })
        });
    }
    let copied = copied.expect("the patch was copied");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&copied).expect("the copy is JSON"),
        patch
    );

    // The state did not change between 26 and 27.
    harness.get_by_label("Compare").click();
    harness.run();
    harness.get_by_label("the state").click();
    harness.run();
    assert_eq!(
        harness.state().state.diff_scope_choice(),
        DiffScopeChoice::State
    );
    let view = harness
        .state()
        .state
        .comparison()
        .cloned()
        .expect("a comparison");
    assert_eq!(view.comparison.scope, DiffScope::State);
    assert!(view.comparison.is_unchanged());
    harness.get_by_label("no difference");
}

#[test]
fn diff_with_previous_step_compares_the_cursor_with_the_step_before() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    apply(
        &mut harness,
        vec![
            Command::SetDiffScope(DiffScopeChoice::State),
            Command::Time(TimeCommand::Set(Seq::new(20))),
        ],
    );
    press(&mut harness, egui::Key::D);
    let view = harness
        .state()
        .state
        .comparison()
        .cloned()
        .expect("a comparison");
    assert_eq!(
        (view.comparison.from, view.comparison.to),
        (Seq::new(19), Seq::new(20))
    );
    assert_eq!(view.comparison.before["budget"], 800);
    assert_eq!(view.comparison.after["budget"], 739);
    let mut patched = view.comparison.before.clone();
    json_patch::patch(&mut patched, &view.comparison.patch).expect("applies");
    assert_eq!(patched, view.comparison.after);

    // The button does the same at the cursor.
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(2)))],
    );
    harness.get_by_label("Diff with previous step (d)").click();
    harness.run();
    assert_eq!(
        harness.state().state.marks(),
        [Some(Seq::new(1)), Some(Seq::new(2))]
    );
    let view = harness
        .state()
        .state
        .comparison()
        .cloned()
        .expect("a comparison");
    assert_eq!(
        (view.comparison.from, view.comparison.to),
        (Seq::new(1), Seq::new(2))
    );
    assert_eq!(view.comparison.after["city"], "Lisbon");
    assert!(
        view.right
            .iter()
            .any(|(pointer, _)| pointer == "/city" || pointer.is_empty())
    );
}

#[test]
fn a_right_drag_over_the_timeline_marks_a_range() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    let plot = harness.get_by_label("Timeline").rect();
    let y = plot.top() + 30.0;
    let (x1, x2) = (
        plot.left() + plot.width() * 0.25,
        plot.left() + plot.width() * 0.75,
    );
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Secondary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.hover_at(egui::pos2(x1, y));
    harness.run();
    harness.event(button(egui::pos2(x1, y), true));
    harness.step();
    for i in 1..=10 {
        let x = x1 + (x2 - x1) * i as f32 / 10.0;
        harness.event(egui::Event::PointerMoved(egui::pos2(x, y)));
        harness.step();
    }
    harness.event(button(egui::pos2(x2, y), false));
    harness.run();
    let state = &harness.state().state;
    let [Some(a), Some(b)] = state.marks() else {
        panic!("both marks are set: {:?}", state.marks());
    };
    assert!(a < b, "{a} < {b}");
    assert!(
        (8..=14).contains(&a.get()),
        "A near a quarter of 45 steps: {a}"
    );
    assert!((30..=37).contains(&b.get()), "B near three quarters: {b}");
    assert_eq!(state.central_tab(), CentralTab::Diff);
    assert_eq!(step(&harness), 1, "a right drag does not move the cursor");
}

// ----------------------------------------------------------------- export

/// Applies `commands` to the export dialog over the app's state, as its
/// window does; each must be accepted (issue 16, point 3).
fn export(harness: &mut Harness<'static, ReplayApp>, commands: Vec<ExportCommand>) {
    let app = harness.state_mut();
    for command in commands {
        let response = app.export_dialog.apply(command.clone(), &app.state);
        assert_eq!(response.error, None, "{command:?}");
    }
}

/// The export dialog's list of formats, beside its label.
fn format_list<'h>(harness: &'h Harness<'static, ReplayApp>) -> egui_kittest::Node<'h> {
    let format = harness.get_by_label("Format").rect();
    harness
        .query_all(egui_kittest::kittest::by().role(egui::accesskit::Role::ComboBox))
        .find(|node| format.y_range().contains(node.rect().center().y))
        .expect("the list of formats")
}

/// Picks a format from the export dialog's list.
fn pick_format(harness: &mut Harness<'static, ReplayApp>, label: &str) {
    format_list(harness).click();
    harness.run();
    harness.get_by_label(label).click();
    harness.run();
}

// Issue 43, point 4: wrapped inside its grid cell, the "Recording" choice
// was drawn over the "Drop the request and response headers" checkbox. The
// formats are a list one line high, above the checkbox; picking Recording
// enables it.
#[test]
fn the_export_format_is_picked_from_a_list_above_the_redaction() {
    let mut harness = open(&fixture("recordings/demo.jsonl"));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    harness.run();
    let checkbox = harness
        .get_by_label("Drop the request and response headers")
        .rect();
    let format = harness.get_by_label("Format").rect();
    let combo_rect = format_list(&harness).rect();
    for rect in [format, combo_rect] {
        assert!(
            !rect.intersects(checkbox) && rect.bottom() <= checkbox.top(),
            "{rect:?} over the checkbox {checkbox:?}"
        );
    }
    pick_format(&mut harness, Format::Recording.label());
    assert_eq!(harness.state().export_dialog.format(), Format::Recording);
}

#[test]
fn the_export_dialog_writes_what_the_export_command_writes() {
    let dir = TempDir::new("export");
    let source = fixture("recordings/demo.jsonl");
    let mut harness = open(&source);
    apply(
        &mut harness,
        vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Time(TimeCommand::Set(Seq::new(40))),
        ],
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    harness.run();
    assert!(
        harness.state().export_dialog.is_open(),
        "Ctrl+E opens the dialog"
    );
    harness.get_by_label_contains("Activity plan-1 up to step 40");
    let out = dir.join("repro.jsonl");
    export(
        &mut harness,
        vec![
            ExportCommand::SetFormat(Format::Jsonl),
            ExportCommand::SetPath(out.display().to_string()),
        ],
    );
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    let written = std::fs::read(&out).expect("the dialog wrote the file");
    let result = harness.state().export_dialog.result().cloned();
    assert!(
        matches!(&result, Some(Ok(message)) if message.contains("Wrote")),
        "{result:?}"
    );

    // The command, with the same scope and format, writes the same bytes.
    let by_command = dir.join("by-command.jsonl");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_agui-replay"))
        .args([
            "export",
            source.to_str().unwrap(),
            "--message",
            "plan-1",
            "--to",
            "40",
        ])
        .args(["--format", "jsonl", "--out", by_command.to_str().unwrap()])
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(written, std::fs::read(&by_command).expect("written"));

    // The preview shows the start of what was written.
    let first_line = String::from_utf8_lossy(&written)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    harness.get_by_label_contains(&first_line[..60]);
}

/// Issue 11: the dialog offers a conformance fixture, keeps it when a
/// `.json` name is typed (which alone would mean a vector), and writes what
/// `export --format conformance` writes.
#[test]
fn the_export_dialog_writes_a_conformance_fixture() {
    let dir = TempDir::new("conformance");
    let source = fixture("recordings/demo.jsonl");
    let mut harness = open(&source);
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(33)))],
    );
    export(&mut harness, vec![ExportCommand::Open]);
    harness.run();
    // The formats are a list since issue 43 (they were a row of choices).
    pick_format(&mut harness, "Conformance fixture");
    harness
        .get_by_label_contains("Whole stream (45 events)")
        .click();
    harness.run();
    let dialog = &harness.state().export_dialog;
    assert_eq!(dialog.format(), Format::Conformance);
    assert!(dialog.path().ends_with("export.json"), "{}", dialog.path());
    // Typing a .json name keeps the fixture.
    let out = dir.join("lisbon-case.json");
    harness.get_by_label("Save to").focus();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness
        .get_by_label("Save to")
        .type_text(&out.display().to_string());
    harness.run();
    let dialog = &harness.state().export_dialog;
    assert_eq!(dialog.path(), out.display().to_string());
    assert_eq!(dialog.format(), Format::Conformance);
    // The preview is the fixture, named after the file.
    harness.get_by_label_contains(r#""name": "lisbon-case","#);
    harness.get_by_label("Export").click();
    harness.run();
    let written = std::fs::read(&out).expect("the dialog wrote the fixture");
    let fixture: serde_json::Value = serde_json::from_slice(&written).expect("JSON");
    assert_eq!(fixture["name"], "lisbon-case");
    assert_eq!(fixture["stream"].as_array().map(Vec::len), Some(45));
    assert_eq!(fixture["expect"]["outcome"], "completed");

    // The command writes the same bytes (same file name, another folder).
    let by_command = dir.join("command");
    std::fs::create_dir_all(&by_command).expect("a folder");
    let by_command = by_command.join("lisbon-case.json");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_agui-replay"))
        .args([
            "export",
            source.to_str().unwrap(),
            "--format",
            "conformance",
        ])
        .args(["--out", by_command.to_str().unwrap()])
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(written, std::fs::read(&by_command).expect("written"));
}

#[test]
fn the_export_dialog_redacts_values_at_pointers() {
    let dir = TempDir::new("redact");
    let mut harness = open(&fixture("recordings/demo.jsonl"));
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(45)))],
    );
    let out = dir.join("whole.jsonl");
    export(
        &mut harness,
        vec![
            ExportCommand::Open,
            ExportCommand::SetScope(ScopeChoice::Whole),
            ExportCommand::SetFormat(Format::Jsonl),
            ExportCommand::SetPath(out.display().to_string()),
        ],
    );
    harness.run();
    harness
        .get_by_label("Replace values at a JSON pointer…")
        .click();
    harness.run();
    assert_eq!(harness.state().export_dialog.redactions().len(), 1);
    export(
        &mut harness,
        vec![ExportCommand::EditRedaction(
            0,
            "/content/title".to_owned(),
            "\"(hidden)\"".to_owned(),
        )],
    );
    harness.run();
    harness.get_by_label_contains("values redacted");
    harness.get_by_label("Export").click();
    harness.run();
    let written = std::fs::read_to_string(&out).expect("written");
    assert_eq!(written.lines().count(), 45);
    assert!(
        !written.contains("Weekend in Lisbon"),
        "the title is redacted"
    );
    assert!(written.contains("(hidden)"));
    // The file exists now: exporting again needs "Replace".
    harness.get_by_label(&format!("Replace {}", out.display()));
}

// -------------------------------------------------------------- bookmarks

#[test]
fn bookmarks_and_notes_are_saved_in_the_recording() {
    let dir = TempDir::new("bookmarks");
    let path = dir.join("demo.rec");
    std::fs::copy(fixture("recordings/demo.rec"), &path).expect("copied");
    let before = std::fs::read(&path).expect("read");
    let mut harness = open(&path);
    harness.run();
    assert_eq!(
        std::fs::read(&path).expect("read"),
        before,
        "opening writes nothing"
    );

    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(16)))],
    );
    press(&mut harness, egui::Key::M);
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(30)))],
    );
    press(&mut harness, egui::Key::M);
    let saved = Recording::open(&path)
        .and_then(|r| r.bookmarks(SessionId::new(1)))
        .expect("bookmarks read");
    let steps: Vec<u64> = saved.iter().map(|b| b.seq.get()).collect();
    assert_eq!(steps, [16, 30]);
    harness.get_by_label("Saved in the recording.");
    // Named after the event at the step.
    assert_eq!(saved[0].label, "ACTIVITY_DELTA search-1");
    harness.get_by_label_contains("16  ACTIVITY_DELTA search-1");

    // [ and ] go to the previous and next bookmark.
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(20)))],
    );
    press(&mut harness, egui::Key::CloseBracket);
    assert_eq!(step(&harness), 30);
    press(&mut harness, egui::Key::OpenBracket);
    assert_eq!(step(&harness), 16);
    press(&mut harness, egui::Key::OpenBracket);
    assert_eq!(step(&harness), 16, "none before the first");

    // Rename and delete reach the file.
    let first = AnnotationId::Saved(saved[0].id);
    apply(
        &mut harness,
        vec![
            Command::Note(NoteCommand::RenameBookmark(
                first,
                "the failed patch".into(),
            )),
            Command::Note(NoteCommand::DeleteBookmark(AnnotationId::Saved(
                saved[1].id,
            ))),
        ],
    );
    let saved = Recording::open(&path)
        .and_then(|r| r.bookmarks(SessionId::new(1)))
        .expect("bookmarks read");
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].label, "the failed patch");

    // A note on the selected activity, typed in the panel.
    apply(
        &mut harness,
        vec![Command::SelectActivity(Some("prices-7".into()))],
    );
    harness.state_mut().notes_form.note = "delta before snapshot".into();
    harness.run();
    harness
        .get_by_label_contains("Add note at step 16 on prices-7")
        .click();
    harness.run();
    let notes = Recording::open(&path)
        .and_then(|r| r.notes(SessionId::new(1)))
        .expect("notes read");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].text, "delta before snapshot");
    assert_eq!(notes[0].message_id.as_deref(), Some("prices-7"));
    assert_eq!(notes[0].seq, Seq::new(16));
    // Edited in the panel, saved in the file.
    // The Edit menu is the other "Edit": the note's is below it.
    harness
        .query_all_by_label("Edit")
        .max_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .expect("the note's Edit")
        .click();
    harness.run();
    harness
        .state_mut()
        .notes_form
        .editing
        .as_mut()
        .expect("editing")
        .1 = "patched before its snapshot".into();
    harness.run();
    harness.get_by_label("Save").click();
    harness.run();
    let notes = Recording::open(&path)
        .and_then(|r| r.notes(SessionId::new(1)))
        .expect("notes read");
    assert_eq!(notes[0].text, "patched before its snapshot");

    // Opened again, they are there.
    let harness = open(&path);
    assert_eq!(harness.state().state.annotations().bookmarks().len(), 1);
    assert_eq!(harness.state().state.annotations().notes().len(), 1);
}

#[test]
fn bookmarks_on_a_plain_stream_file_stay_in_memory() {
    let dir = TempDir::new("memory-bookmarks");
    let path = dir.join("demo.jsonl");
    std::fs::copy(fixture("recordings/demo.jsonl"), &path).expect("copied");
    let before = std::fs::read(&path).expect("read");
    let mut harness = open(&path);
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(5)))],
    );
    press(&mut harness, egui::Key::M);
    let bookmarks = &harness.state().state.annotations().bookmarks();
    assert_eq!(bookmarks.len(), 1);
    assert_eq!(bookmarks[0].seq, Seq::new(5));
    harness.get_by_label_contains("Kept until the app closes");
    assert_eq!(
        std::fs::read(&path).expect("read"),
        before,
        "the file is untouched"
    );
    assert!(harness.state().state.error().is_none());
}

// ----------------------------------------------------------------- search

/// Runs frames until the search has finished (bounded).
fn finish_search(harness: &mut Harness<'static, ReplayApp>) {
    let started = Instant::now();
    while harness.state().state.search().progress().is_some() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "searching took too long"
        );
        harness.step();
    }
    harness.run();
}

#[test]
fn search_moves_the_playhead_to_the_first_next_and_previous_match() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    harness.state_mut().right_tab = agui_replay::ui::RightTab::Search;
    {
        let form = &mut harness.state_mut().search_form;
        form.message = Some("plan-1".into());
        form.picked = true;
        form.pointer = "/content/items/0/done".into();
        form.condition = Condition::Equals;
        form.value = "true".into();
    }
    harness.run();
    harness.get_by_label("First").click();
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 27, "the delta that ticks the first item");
    harness.get_by_label("Step 27");

    // Nothing after it: the snapshot at 39 empties the list.
    harness.get_by_label("Next").click();
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 27);
    harness.get_by_label("No match");

    // On the state: where the budget became 739, searching back from the end.
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(45)))],
    );
    {
        let form = &mut harness.state_mut().search_form;
        form.message = None;
        form.pointer = "/budget".into();
        form.value = "739".into();
    }
    harness.run();
    harness.get_by_label("Previous").click();
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 20);
}

#[test]
fn a_bad_pointer_is_explained_and_nothing_runs() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    harness.state_mut().right_tab = agui_replay::ui::RightTab::Search;
    harness.state_mut().search_form.pointer = "content".into();
    harness.run();
    harness.get_by_label_contains("must start with '/'");
    harness.get_by_label("Next").click();
    harness.run();
    let state = &harness.state().state;
    assert!(state.search().progress().is_none(), "nothing runs");
    assert!(state.search().outcome().is_none());
    assert_eq!(state.step(), Seq::new(1));
}

// ------------------------------------------------------------ live follow

fn event(i: u64) -> Vec<u8> {
    if i == 1 {
        return br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_vec();
    }
    format!(r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"n":{i}}}}}"#).into_bytes()
}

#[test]
fn a_recording_being_written_grows_and_the_playhead_follows_it() {
    let dir = TempDir::new("live");
    let path = dir.join("live.rec");
    let (to_writer, writer_inbox) = mpsc::channel::<&'static str>();
    let (to_test, test_inbox) = mpsc::channel::<()>();
    let writer_path = path.clone();
    let writer = std::thread::spawn(move || {
        let mut writer = RecordingWriter::create(&writer_path, false).expect("creates");
        let first = writer
            .begin_session(NewSession {
                source: "proxy".into(),
                format: "sse".into(),
                ..NewSession::default()
            })
            .expect("begins");
        for i in 1..=3 {
            writer.append(&event(i), Arrival::now()).expect("appends");
        }
        writer.flush().expect("flushes");
        to_test.send(()).expect("told");
        // More events, then a second session, then the end of the first.
        assert_eq!(writer_inbox.recv(), Ok("more"));
        for i in 4..=10 {
            writer
                .append(&event(i), Arrival::at(i * 1_000_000).in_session(first))
                .expect("appends");
        }
        writer.flush().expect("flushes");
        to_test.send(()).expect("told");
        assert_eq!(writer_inbox.recv(), Ok("second session"));
        writer
            .begin_session(NewSession {
                source: "proxy".into(),
                format: "sse".into(),
                ..NewSession::default()
            })
            .expect("begins");
        writer.flush().expect("flushes");
        to_test.send(()).expect("told");
        assert_eq!(writer_inbox.recv(), Ok("end"));
        writer
            .end(first, SessionStatus::Complete, None)
            .expect("ends");
        to_test.send(()).expect("told");
        assert_eq!(writer_inbox.recv(), Ok("finish"));
        writer.finish().expect("finishes");
    });
    test_inbox.recv().expect("three events written");

    let mut harness = open(&path);
    assert!(harness.state().state.is_live());
    assert_eq!(harness.state().state.doc().unwrap().num_events(), 3);
    harness.get_by_label("LIVE");
    press(&mut harness, egui::Key::End);
    assert!(harness.state().state.time().is_following(), "End follows");
    assert_eq!(step(&harness), 3);

    let poll = |harness: &mut Harness<'static, ReplayApp>| {
        harness.state_mut().state.poll_live_now();
        harness.run();
    };
    to_writer.send("more").unwrap();
    test_inbox.recv().unwrap();
    poll(&mut harness);
    let doc = harness.state().state.doc().unwrap();
    assert_eq!(doc.num_events(), 10, "the timeline grew");
    assert_eq!(doc.arrival_nanos.len(), 10);
    assert_eq!(step(&harness), 10, "the playhead followed");
    assert_eq!(
        doc.timeline.head().state()["n"],
        10,
        "the new events were replayed"
    );

    to_writer.send("second session").unwrap();
    test_inbox.recv().unwrap();
    poll(&mut harness);
    assert_eq!(
        harness.state().state.doc().unwrap().sessions.len(),
        2,
        "the new session is in the picker"
    );
    harness.get_by_label("Session");

    // Stepping back stops following; the session ends.
    press(&mut harness, egui::Key::ArrowLeft);
    assert!(!harness.state().state.time().is_following());
    apply(
        &mut harness,
        vec![Command::SetEventFilter(
            agui_replay::app_model::state::EventFilter {
                min_severity: Some(agui_replay::diagnostic::Severity::Warning),
                ..Default::default()
            },
        )],
    );
    assert!(
        harness.state().state.event_rows().is_empty(),
        "no warning yet"
    );
    to_writer.send("end").unwrap();
    test_inbox.recv().unwrap();
    poll(&mut harness);
    let state = &harness.state().state;
    assert!(!state.is_live(), "the session ended");
    assert_eq!(step(&harness), 9);
    // Ended without RUN_FINISHED: the end-of-stream check, on the last
    // event, shown in the filtered list and counted.
    let doc = state.doc().unwrap();
    assert!(
        doc.timeline
            .diagnostics()
            .iter()
            .any(|d| d.code.as_str() == "stream.truncated"),
        "{:?}",
        doc.timeline.diagnostics()
    );
    assert_eq!(state.event_rows(), vec![Seq::new(10)]);
    assert_eq!(
        doc.counts.get(agui_replay::diagnostic::Severity::Warning),
        1
    );
    to_writer.send("finish").unwrap();
    writer.join().expect("the writer finished");
}

// ---------------------------------------------------------- regressions

/// Two recorded sessions: the demo (45 events) and a short SSE capture.
fn two_sessions(dir: &Path) -> PathBuf {
    let recording = dir.join("two.rec");
    agui_replay::store::import_files(
        &[
            fixture("recordings/demo.jsonl"),
            fixture("tests/samples/search-agent.sse"),
        ],
        &recording,
        &mut |_| {},
    )
    .expect("imports");
    recording
}

#[test]
fn another_session_starts_without_the_marks_and_selection_of_the_first() {
    let dir = TempDir::new("sessions");
    let recording = two_sessions(&dir);
    let mut harness = open(&recording);
    apply(
        &mut harness,
        vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Mark(MarkCommand::SetBoth(Seq::new(20), Seq::new(40))),
            Command::PickSession(2),
        ],
    );
    wait_for_loading(&mut harness);
    let state = &harness.state().state;
    assert_eq!(state.doc().unwrap().session, Some(2));
    assert_eq!(state.marks(), [None, None]);
    assert_ne!(state.selected_activity(), Some("plan-1"));
    assert_eq!(state.central_tab(), CentralTab::Conversation);
}

#[test]
fn bookmarks_kept_in_memory_survive_a_profile_switch() {
    let mut harness = open(&fixture("recordings/demo.jsonl"));
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(7)))],
    );
    press(&mut harness, egui::Key::M);
    apply(
        &mut harness,
        vec![Command::SetProfile(
            agui_replay::replay::Profile::AgUiClient10,
        )],
    );
    wait_for_loading(&mut harness);
    let state = &harness.state().state;
    assert_eq!(
        state.options().profile,
        agui_replay::replay::Profile::AgUiClient10
    );
    assert_eq!(state.step(), Seq::new(7), "the cursor stays");
    assert_eq!(
        state.annotations().bookmarks().len(),
        1,
        "the bookmark stays"
    );
}

#[test]
fn a_held_m_adds_one_bookmark() {
    let dir = TempDir::new("held");
    let path = dir.join("demo.rec");
    std::fs::copy(fixture("recordings/demo.rec"), &path).expect("copied");
    let mut harness = open(&path);
    let key = |repeat| egui::Event::Key {
        key: egui::Key::M,
        physical_key: None,
        pressed: true,
        repeat,
        modifiers: egui::Modifiers::NONE,
    };
    harness.event(key(false));
    for _ in 0..5 {
        harness.event(key(true));
    }
    harness.run();
    let saved = Recording::open(&path)
        .and_then(|r| r.bookmarks(SessionId::new(1)))
        .expect("bookmarks read");
    assert_eq!(saved.len(), 1);
}

#[test]
fn a_failed_export_leaves_the_file_it_would_replace() {
    let dir = TempDir::new("failed-export");
    let out = dir.join("keep.jsonl");
    std::fs::write(&out, "precious\n").expect("written");
    let mut harness = open(&fixture("recordings/demo.jsonl"));
    // An invalid pointer is refused before anything runs: no Export.
    export(
        &mut harness,
        vec![
            ExportCommand::Open,
            ExportCommand::SetScope(ScopeChoice::Whole),
            ExportCommand::SetFormat(Format::Jsonl),
            ExportCommand::SetPath(out.display().to_string()),
            ExportCommand::SetReplace(true),
            ExportCommand::AddRedaction("content/title".into(), String::new()),
        ],
    );
    harness.run();
    harness.get_by_label_contains("invalid JSON pointer");
    harness.get_by_label("Export").click();
    harness.run();
    assert_eq!(harness.state().export_dialog.result(), None, "disabled");
    // A repro of an activity before it exists fails while rendering.
    apply(
        &mut harness,
        vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Time(TimeCommand::Set(Seq::new(2))),
        ],
    );
    export(
        &mut harness,
        vec![
            ExportCommand::RemoveRedaction(0),
            ExportCommand::SetScope(ScopeChoice::Activity),
            ExportCommand::SetPath(out.display().to_string()),
            ExportCommand::SetReplace(true),
        ],
    );
    assert!(harness.state().export_dialog.redactions().is_empty());
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    let result = harness.state().export_dialog.result().cloned();
    assert!(
        matches!(&result, Some(Err(e)) if e.contains("no event names")),
        "{result:?}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious\n");
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no partial file is left");

    // Nor does it write over the open file.
    let open_path = fixture("recordings/demo.jsonl");
    let before = std::fs::read(&open_path).unwrap();
    export(
        &mut harness,
        vec![
            ExportCommand::SetPath(open_path.display().to_string()),
            ExportCommand::SetReplace(true),
        ],
    );
    assert!(harness.state().export_dialog.redactions().is_empty());
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    let result = harness.state().export_dialog.result().cloned();
    assert!(
        matches!(&result, Some(Err(e)) if e.contains("is the open file")),
        "{result:?}"
    );
    assert_eq!(std::fs::read(&open_path).unwrap(), before);
}

/// A recording whose one session started an hour ago and got three events
/// then, not ended: its writer, still open.
fn silent_for_an_hour(path: &Path) -> RecordingWriter {
    let mut writer = RecordingWriter::create(path, false).expect("creates");
    writer
        .begin_session(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            started_at_unix_ms: Some(agui_replay::store::now_unix_ms() - 3_600_000),
            ..NewSession::default()
        })
        .expect("begins");
    for i in 1..=3 {
        writer.append(&event(i), Arrival::now()).expect("appends");
    }
    writer.flush().expect("flushes");
    writer
}

#[test]
fn a_session_whose_writer_died_long_ago_is_not_live_and_gets_the_end_checks() {
    let dir = TempDir::new("dead-writer");
    let path = dir.join("dead.rec");
    // Dropped without ending the session: a killed proxy.
    drop(silent_for_an_hour(&path));
    let harness = open(&path);
    let state = &harness.state().state;
    assert!(!state.is_live());
    let codes: Vec<&str> = state
        .doc()
        .unwrap()
        .timeline
        .diagnostics()
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert!(codes.contains(&"stream.truncated"), "{codes:?}");
    // The same as `check`.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agui-replay"))
        .args(["check", path.to_str().unwrap(), "--format", "json"])
        .output()
        .expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let check_codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, check_codes);
}

#[test]
fn a_har_file_with_several_streams_offers_each_exchange() {
    let mut harness = open(&fixture("tests/samples/two-streams.har"));
    {
        let doc = harness.state().state.doc().unwrap();
        assert_eq!(doc.session, Some(1));
        assert_eq!(doc.num_events(), 7);
        assert_eq!(doc.source.exchanges.len(), 2);
    }
    harness.get_by_label("Exchange").click();
    harness.run();
    harness
        .get_by_label_contains("2: POST https://app.example.com/agent")
        .click();
    harness.step();
    wait_for_loading(&mut harness);
    let doc = harness.state().state.doc().unwrap();
    assert_eq!(doc.session, Some(2));
    assert_eq!(doc.num_events(), 9);
}

#[test]
fn a_bookmark_that_could_not_be_saved_is_kept_through_a_replay() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("unsaved");
    let path = dir.join("demo.rec");
    std::fs::copy(fixture("recordings/demo.rec"), &path).expect("copied");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("read-only");
    let before = std::fs::read(&path).expect("read");
    let mut harness = open(&path);
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(9)))],
    );
    press(&mut harness, egui::Key::M);
    {
        let state = &harness.state().state;
        let error = state
            .error()
            .map(str::to_owned)
            .expect("the save failed, and says so");
        assert!(error.contains("kept until the app closes"), "{error}");
        assert_eq!(state.annotations().bookmarks().len(), 1);
    }
    apply(&mut harness, vec![Command::SetBestEffort(true)]);
    wait_for_loading(&mut harness);
    let state = &harness.state().state;
    assert!(state.options().best_effort);
    assert_eq!(state.annotations().bookmarks().len(), 1, "still kept");
    assert_eq!(state.annotations().bookmarks()[0].seq, Seq::new(9));
    assert_eq!(std::fs::read(&path).expect("read"), before);
}

#[test]
fn a_session_taken_for_dead_that_grows_again_is_followed() {
    let dir = TempDir::new("revived");
    let path = dir.join("slow.rec");
    let mut writer = silent_for_an_hour(&path);
    let mut harness = open(&path);
    assert!(!harness.state().state.is_live(), "silent for an hour");
    // The writer was only slow.
    for i in 4..=5 {
        writer
            .append(&event(i), Arrival::at(3_600_000_000_000))
            .expect("appends");
    }
    writer.flush().expect("flushes");
    harness.state_mut().state.poll_live_now();
    wait_for_loading(&mut harness);
    let state = &harness.state().state;
    let doc = state.doc().unwrap();
    assert_eq!(doc.num_events(), 5);
    assert!(state.is_live(), "followed again");
    assert!(
        doc.timeline
            .diagnostics()
            .iter()
            .all(|d| d.code.as_str() != "stream.truncated"),
        "no end-of-stream check before its end: {:?}",
        doc.timeline.diagnostics()
    );
    drop(writer);
}

#[test]
fn a_value_in_the_inspector_leads_to_the_steps_where_it_changes() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    apply(
        &mut harness,
        vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Time(TimeCommand::Set(Seq::new(27))),
        ],
    );
    // The value the event at 27 changed: `done` of the first item.
    harness
        .get_all_by_label("true")
        .find(|node| node.rect().left() > 900.0)
        .expect("the changed value in the inspector")
        .click_secondary();
    harness.run();
    harness
        .get_by_label("Find the steps where this changes")
        .click();
    harness.run();
    {
        let app = harness.state();
        assert_eq!(app.right_tab, agui_replay::ui::RightTab::Search);
        assert_eq!(app.search_form.message.as_deref(), Some("plan-1"));
        assert_eq!(app.search_form.pointer, "/content/items/0/done");
        assert_eq!(app.search_form.condition, Condition::Exists);
    }
    harness.get_by_label("First").click();
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 4, "the snapshot that created it");
    harness.get_by_label("Next").click();
    harness.run();
    finish_search(&mut harness);
    assert_eq!(step(&harness), 27, "where it became true");
}

// Issue 43: the menu is on keys too, and the search runs at once: the
// previous query's matches did not stay until Find all was pressed.
#[test]
fn a_key_in_the_inspector_finds_the_steps_where_it_changes_at_once() {
    use agui_replay::app_model::command::SearchCommand;
    use agui_replay::search::{Predicate, Query, Target};
    let mut harness = open(&fixture("recordings/demo.rec"));
    let title = Query::new(
        Target::Message("plan-1".into()),
        "/content/title",
        Predicate::Exists,
    )
    .expect("a query");
    apply(
        &mut harness,
        vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Time(TimeCommand::Set(Seq::new(27))),
            Command::Search(SearchCommand::All(title.clone())),
        ],
    );
    finish_search(&mut harness);
    assert_eq!(
        harness.state().state.search().list().map(|l| l.query()),
        Some(&title)
    );
    harness
        .get_all_by_label("done:")
        .find(|node| node.rect().left() > 900.0)
        .expect("the first item's `done` key in the inspector")
        .click_secondary();
    settle(&mut harness);
    harness
        .get_by_label("Find the steps where this changes")
        .click();
    settle(&mut harness);
    assert_eq!(harness.state().search_form.pointer, "/content/items/0/done");
    let done = Query::new(
        Target::Message("plan-1".into()),
        "/content/items/0/done",
        Predicate::Exists,
    )
    .expect("a query");
    assert_eq!(
        harness.state().state.search().list().map(|l| l.query()),
        Some(&done),
        "the new query runs without Find all"
    );
    finish_search(&mut harness);
    let steps: Vec<u64> = harness
        .state()
        .state
        .search()
        .list()
        .expect("a list")
        .matches()
        .iter()
        .map(|m| m.step.get())
        .collect();
    assert_eq!(steps, [4, 27], "created false, then became true");
}

#[test]
fn a_recording_opened_before_its_first_session_follows_that_session() {
    let dir = TempDir::new("empty-live");
    let path = dir.join("new.rec");
    let mut writer = RecordingWriter::create(&path, false).expect("creates");
    writer.flush().expect("flushes");
    let mut harness = open(&path);
    {
        let state = &harness.state().state;
        assert!(state.error().is_none(), "{:?}", state.error());
        assert!(state.is_live());
        assert_eq!(state.doc().unwrap().session, None);
    }
    harness.get_by_label("LIVE, waiting for the first session");
    writer
        .begin_session(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            ..NewSession::default()
        })
        .expect("begins");
    for i in 1..=2 {
        writer.append(&event(i), Arrival::now()).expect("appends");
    }
    writer.flush().expect("flushes");
    harness.state_mut().state.poll_live_now();
    wait_for_loading(&mut harness);
    let state = &harness.state().state;
    let doc = state.doc().unwrap();
    assert_eq!(doc.session, Some(1));
    assert_eq!(doc.num_events(), 2);
    assert!(state.time().is_following(), "it follows the session");
    assert_eq!(state.step(), Seq::new(2));
    drop(writer);
}

#[test]
fn bookmarks_kept_in_memory_come_back_with_their_exchange() {
    let mut harness = open(&fixture("tests/samples/two-streams.har"));
    apply(
        &mut harness,
        vec![Command::Time(TimeCommand::Set(Seq::new(3)))],
    );
    press(&mut harness, egui::Key::M);
    assert_eq!(harness.state().state.annotations().bookmarks().len(), 1);
    apply(&mut harness, vec![Command::PickSession(2)]);
    wait_for_loading(&mut harness);
    assert_eq!(harness.state().state.doc().unwrap().session, Some(2));
    assert!(
        harness.state().state.annotations().bookmarks().is_empty(),
        "another stream's"
    );
    apply(&mut harness, vec![Command::PickSession(1)]);
    wait_for_loading(&mut harness);
    let bookmarks = &harness.state().state.annotations().bookmarks();
    assert_eq!(bookmarks.len(), 1, "back with its exchange");
    assert_eq!(bookmarks[0].seq, Seq::new(3));
}

#[test]
fn a_search_result_shows_only_while_the_fields_still_say_its_query() {
    let mut harness = open(&fixture("recordings/demo.rec"));
    harness.state_mut().right_tab = agui_replay::ui::RightTab::Search;
    {
        let form = &mut harness.state_mut().search_form;
        form.message = None;
        form.picked = true;
        form.pointer = "/budget".into();
        form.condition = Condition::Equals;
        form.value = "12345".into();
    }
    harness.run();
    harness.get_by_label("First").click();
    harness.run();
    finish_search(&mut harness);
    harness.get_by_label("No match");
    harness.state_mut().search_form.value = "739".into();
    harness.run();
    assert!(
        harness.query_by_label("No match").is_none(),
        "the old outcome is not shown under the new query"
    );
}
