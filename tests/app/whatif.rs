//! Issue 41: "What if this event were different?" in the app. A right-click
//! on an event skips it, edits its JSON or inserts one before it; the
//! replay shows the edited stream (the failed patch of the demo's step 16
//! goes when that delta is skipped), marked "edited", with the edits as
//! chips above the timeline; E toggles back to the recording; an invalid
//! event is refused in the editor and nothing changes; the export writes
//! the edited stream and leaves the file as it was; the edits saved into a
//! recording come back when it opens again.

use agui_replay::app_model::command::Command;
use agui_replay::app_model::export_dialog::{ExportCommand, Format, ScopeChoice};
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::app_model::whatif::WhatIfCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::ui::ReplayApp;
use agui_replay::whatif::Edit;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::TempDir;
use crate::common::files::{demo, demo_rec};
use crate::panel::{click_button, harness, settle, wait_for_loading};

/// The app open on `path`, at `step`.
fn open_at(path: &std::path::Path, step: u64) -> Harness<'static, ReplayApp> {
    let mut h = harness(ReplayApp::with_file(path));
    wait_for_loading(&mut h);
    assert!(
        h.state().state.error().is_none(),
        "{:?}",
        h.state().state.error()
    );
    h.state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
    settle(&mut h);
    h
}

/// The demo's failed patches (its step 16).
fn failed_patches(h: &Harness<'static, ReplayApp>) -> usize {
    h.state()
        .state
        .doc()
        .expect("a stream")
        .diagnostics()
        .filter(|d| d.code.as_str() == "activity.patch.failed")
        .count()
}

/// The event list's row of `step` (its step number, left of the window).
fn row_of(h: &Harness<'static, ReplayApp>, step: u64) -> egui::Rect {
    h.get_all_by_label(&step.to_string())
        .map(|node| node.rect())
        .min_by(|a, b| a.left().total_cmp(&b.left()))
        .expect("the row's step")
}

/// A right-click at `pos`.
fn right_click(h: &mut Harness<'static, ReplayApp>, pos: egui::Pos2) {
    click_button(h, pos, egui::PointerButton::Secondary);
}

#[test]
fn skipping_the_failed_delta_from_its_row_removes_the_failure_and_e_restores_it() {
    let mut h = open_at(&demo(), 16);
    assert_eq!(failed_patches(&h), 1);
    let row = row_of(&h, 16);
    right_click(&mut h, row.center());
    h.get_by_label("Skip this event").click();
    settle(&mut h);
    let whatif = h.state().state.whatif();
    assert!(whatif.showing_edited());
    assert_eq!(whatif.edits(), [Edit::Drop(Seq::new(16))]);
    assert_eq!(failed_patches(&h), 0);
    // The chip above the timeline, and the marker in the status bar.
    h.get_by_label("skip #16 ×");
    assert!(h.query_all_by_label("edited").count() >= 1);
    // The state at the cursor: step 16 is the recording's 17 now (the
    // price chart's delta, which names an activity never created).
    let view = h.state().state.view().expect("a view");
    assert_eq!(view.step, Seq::new(16));
    assert_eq!(h.state().state.doc().unwrap().num_events(), 44);

    // E: the recording, as recorded.
    h.key_press(egui::Key::E);
    settle(&mut h);
    assert!(!h.state().state.whatif().showing_edited());
    assert_eq!(failed_patches(&h), 1);
    assert_eq!(h.state().state.doc().unwrap().num_events(), 45);
    h.get_by_label("Recorded");
    // And back.
    h.key_press(egui::Key::E);
    settle(&mut h);
    assert_eq!(failed_patches(&h), 0);
    // The chip removes its edit.
    h.get_by_label("skip #16 ×").click();
    settle(&mut h);
    assert!(h.state().state.whatif().edits().is_empty());
    assert_eq!(failed_patches(&h), 1);
    assert!(h.query_by_label("skip #16 ×").is_none());
}

#[test]
fn an_invalid_event_is_refused_in_the_editor_and_nothing_is_applied() {
    let mut h = open_at(&demo(), 16);
    h.get_by_label("What if").click();
    h.run();
    h.get_by_label("Edit this event…").click();
    settle(&mut h);
    let editor = h
        .state()
        .state
        .whatif()
        .editor()
        .expect("the editor")
        .clone();
    assert!(editor.text.contains("/stats/total"), "{}", editor.text);
    let field = h.get_by_label_contains("The event as JSON");
    field.focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label_contains("The event as JSON")
        .type_text("{ \"type\": ");
    h.run();
    h.get_by_label("Apply").click();
    settle(&mut h);
    let error = h
        .state()
        .state
        .whatif()
        .editor()
        .and_then(|e| e.error.clone())
        .expect("refused in place");
    assert!(error.contains("not JSON"), "{error}");
    h.get_by_label_contains("not JSON");
    assert!(h.state().state.whatif().edits().is_empty());
    assert!(!h.state().state.whatif().showing_edited());
    assert_eq!(failed_patches(&h), 1);

    // A valid event is applied: the delta replaced by one that fits.
    let fixed = r#"{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"add","path":"/stats","value":{"total":2}}]}"#;
    h.get_by_label_contains("The event as JSON").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label_contains("The event as JSON")
        .type_text(fixed);
    h.run();
    h.get_by_label("Apply").click();
    settle(&mut h);
    assert!(h.state().state.whatif().editor().is_none(), "it closes");
    assert_eq!(failed_patches(&h), 0);
    h.get_by_label("edit #16 ×");
    let view = h.state().state.view().expect("a view");
    let search = view
        .at
        .conversation()
        .get("search-1")
        .expect("the activity");
    let content = search.to_json().to_string();
    assert!(content.contains("\"total\":2"), "{content}");

    // Esc closes the editor unchanged.
    h.get_by_label("What if").click();
    h.run();
    h.get_by_label("Insert an event before…").click();
    settle(&mut h);
    assert!(h.state().state.whatif().editor().is_some());
    h.key_press(egui::Key::Escape);
    settle(&mut h);
    assert!(h.state().state.whatif().editor().is_none());
    assert_eq!(h.state().state.whatif().edits().len(), 1);
}

#[test]
fn the_export_writes_the_edited_stream_and_leaves_the_file_as_it_was() {
    let dir = TempDir::new("whatif-export");
    let source = dir.write("demo.jsonl", std::fs::read(demo()).expect("the demo"));
    let before = std::fs::read(&source).expect("read");
    let mut h = open_at(&source, 16);
    h.state_mut()
        .state
        .apply(vec![Command::WhatIf(WhatIfCommand::Skip(Seq::new(16)))]);
    settle(&mut h);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    h.run();
    assert!(h.state().export_dialog.is_open());
    h.get_by_label_contains("Exports the stream as edited");
    let out = dir.path().join("edited.jsonl");
    let app = h.state_mut();
    for command in [
        ExportCommand::SetScope(ScopeChoice::Whole),
        ExportCommand::SetFormat(Format::Jsonl),
        ExportCommand::SetPath(out.display().to_string()),
    ] {
        let response = app.export_dialog.apply(command, &app.state);
        assert_eq!(response.error, None);
    }
    h.run();
    h.get_by_label("Export").click();
    h.run();
    let result = h.state().export_dialog.result().cloned();
    assert!(
        matches!(&result, Some(Ok(m)) if m.contains("the stream as edited")),
        "{result:?}"
    );
    let written = std::fs::read_to_string(&out).expect("written");
    let recorded: Vec<&str> = std::str::from_utf8(&before).unwrap().lines().collect();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), recorded.len() - 1);
    assert!(
        !written.contains("/stats/total\",\"value\":2}]"),
        "step 16 left out"
    );
    assert_eq!(lines[15], recorded[16]);
    assert_eq!(
        std::fs::read(&source).expect("read"),
        before,
        "the file is unchanged"
    );
}

#[test]
fn edits_saved_into_a_recording_come_back_when_it_opens_again() {
    let dir = TempDir::new("whatif-save");
    let rec = dir.path().join("demo.rec");
    std::fs::copy(demo_rec(), &rec).expect("copy the demo recording");
    let mut h = open_at(&rec, 16);
    let recorded_failures = failed_patches(&h);
    assert_eq!(recorded_failures, 1);
    let row = row_of(&h, 16);
    right_click(&mut h, row.center());
    h.get_by_label("Skip this event").click();
    settle(&mut h);
    assert_eq!(failed_patches(&h), 0);
    h.get_by_label("Save into the recording").click();
    settle(&mut h);
    assert!(
        h.state().state.error().is_none(),
        "{:?}",
        h.state().state.error()
    );
    drop(h);

    let mut again = open_at(&rec, 16);
    settle(&mut again);
    let whatif = again.state().state.whatif();
    assert_eq!(whatif.edits(), [Edit::Drop(Seq::new(16))]);
    assert!(whatif.showing_edited(), "restored on the edited view");
    assert_eq!(failed_patches(&again), 0);
    again.get_by_label("skip #16 ×");
    // The recorded events are untouched: the recording shows as before.
    again.key_press(egui::Key::E);
    settle(&mut again);
    assert_eq!(failed_patches(&again), 1);
    assert_eq!(again.state().state.doc().unwrap().num_events(), 45);
}

#[test]
fn a_stream_file_says_edits_are_saved_only_in_recordings() {
    let mut h = open_at(&demo(), 16);
    h.state_mut()
        .state
        .apply(vec![Command::WhatIf(WhatIfCommand::Skip(Seq::new(16)))]);
    settle(&mut h);
    h.get_by_label("edits are saved only in recordings (.rec)");
    assert!(h.query_by_label("Save into the recording").is_none());
}

#[test]
fn compare_with_the_recording_shows_the_edited_stream_beside_it() {
    let mut h = open_at(&demo(), 16);
    h.state_mut()
        .state
        .apply(vec![Command::WhatIf(WhatIfCommand::Skip(Seq::new(16)))]);
    settle(&mut h);
    h.get_by_label("Compare with the recording").click();
    h.step();
    h.state_mut().state.wait_for_compare();
    settle(&mut h);
    let compared = h.state().state.compare_with().compared().expect("compared");
    assert_eq!(compared.doc.num_events(), 45, "B is the recording");
    assert_eq!(h.state().state.doc().unwrap().num_events(), 44);
    let first = compared.comparison.alignment.b_of_a(Seq::new(16));
    assert!(first >= Seq::new(16), "{first}");
}

#[test]
fn a_right_click_on_the_timeline_and_the_inspector_menu_ask_what_if() {
    let mut h = open_at(&demo(), 16);
    // The timeline: the step under the pointer (the middle of the stream).
    let plot = h.get_by_label("Timeline").rect();
    right_click(&mut h, plot.center());
    h.get_by_label("Skip this event").click();
    settle(&mut h);
    let edits = h.state().state.whatif().edits().to_vec();
    assert_eq!(edits.len(), 1, "{edits:?}");
    let skipped = edits[0].step().get();
    assert!((20..=26).contains(&skipped), "skipped {skipped}");
    assert_eq!(
        h.state().state.step().get(),
        skipped,
        "the cursor went there"
    );
    // The inspector: the event at the cursor.
    h.get_by_label("What if…").click();
    h.run();
    h.get_by_label("Edit this event…").click();
    settle(&mut h);
    let editor = h.state().state.whatif().editor().expect("the editor");
    assert_eq!(editor.step.get(), skipped);
    h.get_by_label("Cancel").click();
    settle(&mut h);
    assert!(h.state().state.whatif().editor().is_none());
}

#[test]
fn compare_with_the_recording_opens_the_session_edited() {
    // Issue 41: a recording of two sessions, the second edited; B is that
    // session, not the recording's first.
    let dir = TempDir::new("whatif-sessions");
    let recording = dir.path().join("two.rec");
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    agui_replay::store::import_files(
        &[demo(), root.join("tests/samples/search-agent.sse")],
        &recording,
        &mut |_| {},
    )
    .expect("imports");
    let mut h = harness(ReplayApp::with_file(&recording));
    wait_for_loading(&mut h);
    h.state_mut().state.apply(vec![Command::PickSession(2)]);
    h.step();
    wait_for_loading(&mut h);
    assert_eq!(h.state().state.doc().expect("doc").session, Some(2));
    assert_eq!(h.state().state.doc().unwrap().num_events(), 13);
    h.state_mut()
        .state
        .apply(vec![Command::WhatIf(WhatIfCommand::Skip(Seq::new(3)))]);
    settle(&mut h);
    assert_eq!(h.state().state.doc().unwrap().num_events(), 12);
    h.get_by_label("Compare with the recording").click();
    h.step();
    h.state_mut().state.wait_for_compare();
    settle(&mut h);
    let compared = h.state().state.compare_with().compared().expect("compared");
    assert_eq!(compared.doc.session, Some(2));
    assert_eq!(compared.doc.num_events(), 13, "B is the session edited");
}

#[test]
fn the_edited_stream_is_checked_against_the_schema_folder() {
    // Issue 41 with issue 42: the edited stream's schema findings are its
    // own, not none. Step 3 sets `found` to a string, which the schema
    // refuses; step 4 sets it to a number.
    let stream = r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"search-1","activityType":"web_search","content":{"query":"rust","found":1}}
{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":"3"}]}
{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":4}]}
{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
"#;
    let dir = TempDir::new("whatif-schemas");
    let path = dir.write("stream.jsonl", stream);
    let schemas = dir.subdir("schemas");
    std::fs::write(
        schemas.join("web_search.schema.json"),
        r#"{"type":"object","properties":{"found":{"type":"integer"}}}"#,
    )
    .expect("write the schema");
    let mut h = open_at(&path, 4);
    h.state_mut().state.apply(vec![Command::Schemas(
        agui_replay::app_model::schemas::SchemaCommand::Load(schemas),
    )]);
    settle(&mut h);
    let finding_steps = |h: &Harness<'static, ReplayApp>| -> Vec<u64> {
        let doc = h.state().state.doc().expect("doc");
        doc.schema_findings.iter().map(|d| d.seq.get()).collect()
    };
    assert_eq!(finding_steps(&h), [3], "as recorded");
    // The run's end skipped: the edited stream still sets a string at 3.
    h.state_mut()
        .state
        .apply(vec![Command::WhatIf(WhatIfCommand::Skip(Seq::new(5)))]);
    settle(&mut h);
    assert!(h.state().state.whatif().showing_edited());
    assert_eq!(finding_steps(&h), [3], "as edited");
    // The string replaced by a number: nothing to find.
    let number = r#"{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":3}]}"#;
    h.state_mut().state.apply(vec![
        Command::WhatIf(WhatIfCommand::Edit(Seq::new(3))),
        Command::WhatIf(WhatIfCommand::SetText(number.to_owned())),
        Command::WhatIf(WhatIfCommand::ApplyEditor),
    ]);
    settle(&mut h);
    assert_eq!(finding_steps(&h), Vec::<u64>::new(), "3 replaced");
    // Back to the recording: its finding.
    h.state_mut()
        .state
        .apply(vec![Command::WhatIf(WhatIfCommand::Toggle)]);
    settle(&mut h);
    assert_eq!(finding_steps(&h), [3], "as recorded again");
}
