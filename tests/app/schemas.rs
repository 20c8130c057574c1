//! Issue 42, point 3: activity content contracts in the app. View ›
//! Activity schemas… checks the open stream against a schema folder, as
//! `check --schemas` does (rule S1): the findings are diagnostics, a mark
//! of their own on the activity's lane, and the expectation beside the
//! violating member in the inspector; an unreadable schema is an error
//! that keeps the stream; Infer from this recording… writes a folder that
//! finds nothing on the same stream; clearing the folder removes the
//! findings.

use agui_replay::app_model::command::Command;
use agui_replay::app_model::schemas::SchemaCommand;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::ui::file_dialog::{FilePicker, Purpose};
use agui_replay::ui::{ReplayApp, RightTab};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::TempDir;
use crate::panel::{harness, settle, wait_for_loading};

/// The demo's `web_search` type, whose second delta turns `found` into a
/// string.
const STREAM: &str = r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"search-1","activityType":"web_search","content":{"query":"rust","found":1}}
{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":"3"}]}
{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":4}]}
{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
"#;

/// `found` must be an integer.
const SCHEMA: &str =
    r#"{"type":"object","properties":{"found":{"type":"integer"}},"required":["query"]}"#;

/// A folder with the stream and a schema folder `schemas/` in it; the app
/// open on the stream, with its own file dialog.
fn opened(test: &str) -> (TempDir, Harness<'static, ReplayApp>) {
    let dir = TempDir::new(test);
    let stream = dir.write("stream.jsonl", STREAM);
    let schemas = dir.subdir("schemas");
    std::fs::write(schemas.join("web_search.schema.json"), SCHEMA).expect("write the schema");
    let mut app = ReplayApp::with_file(&stream);
    app.file_picker = FilePicker::without_native();
    let mut h = harness(app);
    wait_for_loading(&mut h);
    assert!(
        h.state().state.error().is_none(),
        "{:?}",
        h.state().state.error()
    );
    (dir, h)
}

/// A View menu entry, then `folder` typed into the app's dialog.
fn choose_folder(h: &mut Harness<'static, ReplayApp>, entry: &str, purpose: Purpose, folder: &str) {
    h.get_by_label("View").click();
    h.run();
    h.get_by_label(entry).click();
    h.run();
    let dialog = h.state().file_picker.fallback().expect("the app's dialog");
    assert_eq!(dialog.purpose(), purpose);
    h.get_by_label("Path").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path").type_text(folder);
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    wait_for_loading(h);
}

fn num_findings(h: &Harness<'static, ReplayApp>) -> usize {
    h.state().state.doc().map_or(0, |d| d.schema_findings.len())
}

/// The squares painted in the schema marks' colour (filled rectangles).
fn schema_marks(h: &Harness<'static, ReplayApp>) -> usize {
    fn walk(shape: &egui::Shape, colors: &[egui::Color32], count: &mut usize) {
        match shape {
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, colors, count)),
            egui::Shape::Rect(rect) if colors.contains(&rect.fill) => *count += 1,
            _ => {}
        }
    }
    let colors = [
        agui_replay::ui::timeline::schema_color(&egui::Visuals::dark()),
        agui_replay::ui::timeline::schema_color(&egui::Visuals::light()),
    ];
    let mut count = 0;
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &colors, &mut count);
    }
    count
}

fn set_step(h: &mut Harness<'static, ReplayApp>, step: u64) {
    h.state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
    settle(h);
}

#[test]
fn a_schema_folder_shows_its_finding_as_a_diagnostic_a_lane_mark_and_in_the_inspector() {
    let (dir, mut h) = opened("schemas-app-load");
    assert_eq!(num_findings(&h), 0);
    assert_eq!(schema_marks(&h), 0, "no mark without a folder");
    let folder = dir.path().join("schemas");
    choose_folder(
        &mut h,
        "Activity schemas…",
        Purpose::SchemaFolder,
        &folder.display().to_string(),
    );
    let state = &h.state().state;
    assert_eq!(state.error(), None);
    assert_eq!(state.schemas().folder(), Some(folder.as_path()));
    let doc = state.doc().expect("open");
    assert_eq!(doc.num_events(), 5, "the stream replayed again, whole");
    // The delta at step 3 broke it; the one at step 4 mended it.
    assert_eq!(doc.schema_findings.len(), 1, "{:?}", doc.schema_findings);
    let finding = &doc.schema_findings[0];
    assert_eq!(finding.seq, Seq::new(3));
    assert_eq!(finding.code.as_str(), "activity.content.schema");
    assert_eq!(finding.path.as_deref(), Some("/content/found"));
    h.get_by_label(&format!("schemas: {}", folder.display()));
    assert_eq!(schema_marks(&h), 1, "one mark on the activity's lane");

    // Next diagnostic from step 2 stops at the finding (the stream has no
    // other diagnostic before it).
    set_step(&mut h, 2);
    h.state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::ToNextDiagnostic)]);
    settle(&mut h);
    assert_eq!(h.state().state.step(), Seq::new(3));

    // The inspector at the violating step: the box and the expectation
    // beside `found`; at the next step, neither.
    set_step(&mut h, 3);
    h.get_by_label("Breaks its schema at /found");
    assert!(
        h.query_by_label_contains("schema: \"3\" is not of type \"integer\"")
            .is_some(),
        "the expectation beside the member"
    );
    // And among the step's diagnostics, under the current event.
    assert!(
        h.query_all_by_label_contains("breaks web_search.schema.json at /found")
            .count()
            >= 2,
        "the box's message and the step's diagnostic"
    );
    set_step(&mut h, 4);
    assert!(h.query_by_label("Breaks its schema at /found").is_none());

    // The diagnostics panel lists it with the others.
    h.state_mut().right_tab = RightTab::Diagnostics;
    settle(&mut h);
    assert!(
        h.query_by_label_contains("breaks web_search.schema.json at /found")
            .is_some(),
        "the finding in the diagnostics panel"
    );
}

#[test]
fn an_unreadable_schema_is_an_error_naming_it_and_the_stream_stays() {
    let (dir, mut h) = opened("schemas-app-broken");
    let broken = dir.subdir("broken");
    std::fs::write(broken.join("web_search.schema.json"), "{ not json").expect("write");
    let before = h.state().state.doc().map(|d| d.num_events());
    h.state_mut()
        .state
        .apply(vec![Command::Schemas(SchemaCommand::Load(broken.clone()))]);
    wait_for_loading(&mut h);
    let state = &h.state().state;
    let error = state.error().expect("an error in the banner");
    assert!(error.contains("web_search.schema.json"), "{error}");
    assert!(state.schemas().folder().is_none());
    assert_eq!(
        state.doc().map(|d| d.num_events()),
        before,
        "the stream stays"
    );
    assert!(
        h.query_by_label_contains("is not JSON").is_some(),
        "the banner"
    );
}

#[test]
fn an_inferred_folder_finds_nothing_and_clearing_the_folder_removes_the_findings() {
    let (dir, mut h) = opened("schemas-app-infer");
    let folder = dir.path().join("schemas");
    h.state_mut()
        .state
        .apply(vec![Command::Schemas(SchemaCommand::Load(folder.clone()))]);
    wait_for_loading(&mut h);
    assert_eq!(num_findings(&h), 1);

    // Infer into a folder that does not exist yet: written, then used.
    let inferred = dir.path().join("inferred");
    choose_folder(
        &mut h,
        "Infer from this recording…",
        Purpose::InferFolder,
        &inferred.display().to_string(),
    );
    assert_eq!(h.state().state.error(), None);
    assert!(inferred.join("web_search.schema.json").is_file());
    assert_eq!(h.state().state.schemas().folder(), Some(inferred.as_path()));
    assert_eq!(
        num_findings(&h),
        0,
        "the stream it was inferred from passes"
    );
    assert_eq!(schema_marks(&h), 0);

    // Again into the same folder: refused, the files kept.
    let written = std::fs::read(inferred.join("web_search.schema.json")).expect("read");
    h.state_mut()
        .state
        .apply(vec![Command::Schemas(SchemaCommand::Infer(
            inferred.clone(),
        ))]);
    wait_for_loading(&mut h);
    let error = h.state().state.error().expect("refused").to_owned();
    assert!(error.contains("not overwriting"), "{error}");
    assert_eq!(
        std::fs::read(inferred.join("web_search.schema.json")).expect("read"),
        written
    );

    // The breaking folder again, then the status bar's clear button.
    h.state_mut().state.apply(vec![
        Command::DismissError,
        Command::Schemas(SchemaCommand::Load(folder.clone())),
    ]);
    wait_for_loading(&mut h);
    assert_eq!(num_findings(&h), 1);
    assert_eq!(schema_marks(&h), 1);
    h.get_by_label("×").click();
    settle(&mut h);
    assert!(h.state().state.schemas().folder().is_none());
    assert_eq!(num_findings(&h), 0);
    assert_eq!(schema_marks(&h), 0);
    assert!(h.query_by_label_contains("schemas: ").is_none());
}

#[test]
fn the_inspector_opens_the_content_down_to_a_nested_violation() {
    // Issue 42: `/results/0/price` sits in a collapsed item unless the
    // tree opens to it.
    let dir = TempDir::new("schemas-app-nested");
    let stream = dir.write(
        "stream.jsonl",
        r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"ACTIVITY_SNAPSHOT","messageId":"search-1","activityType":"web_search","content":{"query":"q","found":0,"results":[]}}
{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":1},{"op":"add","path":"/results/-","value":{"title":"TAP","price":129}}]}
"#,
    );
    let schemas = dir.subdir("schemas");
    std::fs::write(
        schemas.join("web_search.schema.json"),
        r#"{"type":"object","properties":{"results":{"type":"array","items":{"type":"object","properties":{"price":{"maximum":100}}}}}}"#,
    )
    .expect("write the schema");
    let mut h = harness(ReplayApp::with_file(&stream));
    wait_for_loading(&mut h);
    h.state_mut()
        .state
        .apply(vec![Command::Schemas(SchemaCommand::Load(schemas))]);
    wait_for_loading(&mut h);
    assert_eq!(num_findings(&h), 1);
    set_step(&mut h, 3);
    h.get_by_label("Breaks its schema at /results/0/price");
    assert!(
        h.query_by_label_contains("schema: 129 is greater than the maximum of 100")
            .is_some(),
        "the expectation beside the nested member"
    );
}

/// The schema folder of [`SCHEMA`] in `dir`.
fn schema_folder(dir: &TempDir) -> std::path::PathBuf {
    let schemas = dir.subdir("schemas");
    std::fs::write(schemas.join("web_search.schema.json"), SCHEMA).expect("write the schema");
    schemas
}

/// Event `i` of a search whose `found` goes up by one per delta.
fn search_event(i: u64) -> String {
    match i {
        1 => r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#.to_owned(),
        2 => r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"search-1","activityType":"web_search","content":{"query":"rust","found":0}}"#.to_owned(),
        _ => format!(
            r#"{{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{{"op":"replace","path":"/found","value":{i}}}]}}"#
        ),
    }
}

/// The delta that turns `found` into a string.
const BREAKING_DELTA: &str = r#"{"type":"ACTIVITY_DELTA","messageId":"search-1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":"many"}]}"#;

// Issue 42: the events a live recording gets after the open are checked
// against the folder too (they were not until the stream was replayed
// again); the finding is a diagnostic and a lane mark.
#[test]
fn a_live_recordings_new_events_are_checked_against_the_folder() {
    use agui_replay::store::{Arrival, NewSession, RecordingWriter};
    let dir = TempDir::new("schemas-app-live");
    let folder = schema_folder(&dir);
    let path = dir.join("live.rec");
    let mut writer = RecordingWriter::create(&path, false).expect("creates");
    writer
        .begin_session(NewSession {
            source: "proxy".into(),
            format: "sse".into(),
            ..NewSession::default()
        })
        .expect("begins");
    for i in 1..=3 {
        writer
            .append(search_event(i).as_bytes(), Arrival::now())
            .expect("appends");
    }
    writer.flush().expect("flushes");
    let mut app = ReplayApp::new(None);
    app.state
        .apply(vec![Command::Schemas(SchemaCommand::Load(folder))]);
    app.state.open_now(&path, None);
    let mut h = harness(app);
    assert!(h.state().state.is_live(), "followed");
    assert_eq!(num_findings(&h), 0, "the first events are valid");
    writer
        .append(BREAKING_DELTA.as_bytes(), Arrival::now())
        .expect("appends");
    writer
        .append(search_event(5).as_bytes(), Arrival::now())
        .expect("appends");
    writer.flush().expect("flushes");
    h.state_mut().state.poll_live_now();
    wait_for_loading(&mut h);
    let state = &h.state().state;
    let doc = state.doc().expect("open");
    assert_eq!(doc.num_events(), 5, "the new events were read");
    let steps: Vec<u64> = doc.schema_findings.iter().map(|d| d.seq.get()).collect();
    assert_eq!(steps, [4], "{:?}", doc.schema_findings);
    assert_eq!(
        doc.counts.get(agui_replay::diagnostic::Severity::Warning),
        1,
        "counted"
    );
    assert!(schema_marks(&h) > 0, "a mark on the lane");
    drop(writer);
}

// Issue 42: a long stream indexed in the background is checked as far as
// it is read, then the rest as it comes.
#[test]
fn a_stream_indexed_in_the_background_is_checked_to_its_end() {
    use agui_replay::app_model::document::LoadOptions;
    use agui_replay::app_model::indexing::IndexPlan;
    let dir = TempDir::new("schemas-app-indexed");
    let folder = schema_folder(&dir);
    let mut text: String = (1..=40).map(|i| search_event(i) + "\n").collect();
    text.push_str(BREAKING_DELTA);
    text.push('\n');
    let stream = dir.write("long.jsonl", text);
    let mut app = ReplayApp::new(None);
    app.state.set_load_options(LoadOptions {
        stored_index: false,
        sync_events: 10,
        plan: IndexPlan {
            chunk_events: 5,
            publish_every: std::time::Duration::ZERO,
            paced: true,
        },
    });
    app.state
        .apply(vec![Command::Schemas(SchemaCommand::Load(folder))]);
    app.state.open_now(&stream, None);
    {
        let doc = app.state.doc().expect("open");
        assert!(doc.indexing.is_some(), "indexed in the background");
        assert!(
            doc.num_events() < 41,
            "not read whole: {}",
            doc.num_events()
        );
        assert!(doc.schema_findings.is_empty());
    }
    app.state.wait_for_indexing();
    let doc = app.state.doc().expect("open");
    assert_eq!(doc.num_events(), 41);
    let steps: Vec<u64> = doc.schema_findings.iter().map(|d| d.seq.get()).collect();
    assert_eq!(steps, [41], "{:?}", doc.schema_findings);
}

// Issue 42: the folder is remembered per recording, with the recent files:
// a recording opened again (in the session, or in a later run) is checked
// against the folder last chosen for it; No activity schemas forgets it.
#[test]
fn the_folder_is_remembered_per_recording_and_loaded_when_it_opens_again() {
    let (dir, mut h) = opened("schemas-app-remember");
    let stream = dir.join("stream.jsonl");
    let folder = dir.join("schemas");
    let other = dir.write("other.jsonl", STREAM);
    let open = |h: &mut Harness<'static, ReplayApp>, path: &std::path::Path| {
        h.state_mut()
            .state
            .apply(vec![Command::Open(path.to_owned())]);
        wait_for_loading(h);
    };
    h.state_mut()
        .state
        .apply(vec![Command::Schemas(SchemaCommand::Load(folder.clone()))]);
    wait_for_loading(&mut h);
    assert_eq!(num_findings(&h), 1);
    let canonical = |path: &std::path::Path| std::fs::canonicalize(path).expect("exists");
    assert_eq!(
        h.state()
            .state
            .schema_folders()
            .folder_for(&canonical(&stream)),
        Some(folder.as_path())
    );
    // Another file, whose folder is then put away: the first keeps its own.
    open(&mut h, &other);
    h.state_mut()
        .state
        .apply(vec![Command::Schemas(SchemaCommand::Clear)]);
    settle(&mut h);
    assert_eq!(num_findings(&h), 0);
    assert!(h.state().state.schemas().folder().is_none());
    assert_eq!(
        h.state()
            .state
            .schema_folders()
            .folder_for(&canonical(&other)),
        None
    );
    open(&mut h, &stream);
    assert_eq!(h.state().state.schemas().folder(), Some(folder.as_path()));
    assert_eq!(num_findings(&h), 1, "checked again against its folder");
    // A later run starts from what this one keeps.
    let kept = h.state().state.schema_folders().to_text();
    let mut app = ReplayApp::new(None);
    app.state
        .remember_schema_folders(agui_replay::app_model::schemas::SchemaFolders::from_text(
            &kept,
        ));
    app.state.open_now(&stream, None);
    let h = harness(app);
    assert_eq!(h.state().state.schemas().folder(), Some(folder.as_path()));
    assert_eq!(num_findings(&h), 1);
    h.get_by_label_contains("schemas:");
}

/// The rects of the squares painted in the schema marks' colour.
fn schema_mark_rects(h: &Harness<'static, ReplayApp>) -> Vec<egui::Rect> {
    fn walk(shape: &egui::Shape, colors: &[egui::Color32], rects: &mut Vec<egui::Rect>) {
        match shape {
            egui::Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, colors, rects)),
            egui::Shape::Rect(rect) if colors.contains(&rect.fill) => rects.push(rect.rect),
            _ => {}
        }
    }
    let colors = [
        agui_replay::ui::timeline::schema_color(&egui::Visuals::dark()),
        agui_replay::ui::timeline::schema_color(&egui::Visuals::light()),
    ];
    let mut rects = Vec::new();
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &colors, &mut rects);
    }
    rects
}

fn click_at(h: &mut Harness<'static, ReplayApp>, pos: egui::Pos2) {
    let button = |pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.hover_at(pos);
    h.run();
    h.event(button(true));
    h.step();
    h.event(button(false));
    settle(h);
}

// Issue 42: the state's findings get a mark too, over the Diagnostics row
// (the state has no lane); hovering a schema mark shows the finding (its
// path, keyword and expectation), a click goes to its step.
#[test]
fn a_schema_mark_shows_its_finding_on_hover_and_a_click_goes_there() {
    let dir = TempDir::new("schemas-app-marks");
    let schemas = dir.subdir("schemas");
    std::fs::write(schemas.join("web_search.schema.json"), SCHEMA).expect("write the schema");
    std::fs::write(
        schemas.join("_state.schema.json"),
        r#"{"type":"object","properties":{"city":{"type":"string"}}}"#,
    )
    .expect("write the state's schema");
    // The state snapshot before the run's end, as step 5.
    let (body, end) = STREAM.trim_end().rsplit_once('\n').expect("lines");
    let text = format!(
        "{body}\n{}\n{end}\n",
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"city":7}}"#
    );
    let stream = dir.write("stream.jsonl", text);
    let mut app = ReplayApp::new(None);
    app.state
        .apply(vec![Command::Schemas(SchemaCommand::Load(schemas))]);
    app.state.open_now(&stream, None);
    let mut h = harness(app);
    let steps: Vec<(u64, Option<String>)> = h
        .state()
        .state
        .doc()
        .expect("open")
        .schema_findings
        .iter()
        .map(|d| (d.seq.get(), d.message_id.clone()))
        .collect();
    assert_eq!(steps, [(3, Some("search-1".to_owned())), (5, None)]);
    let diagnostics_row = h
        .query_all_by_label("Diagnostics")
        .map(|node| node.rect())
        .find(|rect| rect.top() > h.get_by_label("Timeline").rect().top() - 40.0)
        .expect("the timeline's Diagnostics row");
    let squares = schema_mark_rects(&h);
    assert_eq!(squares.len(), 2, "{squares:?}");
    let state_mark = squares
        .iter()
        .find(|r| diagnostics_row.y_range().contains(r.center().y))
        .expect("the state's mark on the Diagnostics row");
    let lane_mark = squares
        .iter()
        .find(|r| r != &state_mark)
        .expect("the activity's mark on its lane");
    assert!(
        lane_mark.center().x < state_mark.center().x,
        "step 3 before step 5"
    );
    // Hovering the state's mark names the finding.
    h.hover_at(state_mark.center());
    h.run();
    h.get_by_label("The state breaks its schema");
    h.get_by_label("at /city");
    h.get_by_label_contains("is not of type \"string\" (keyword `type`)");
    // A click goes there.
    assert_ne!(crate::panel::step(&h), 5);
    click_at(&mut h, state_mark.center());
    assert_eq!(crate::panel::step(&h), 5);
    // The activity's, hovered then clicked, likewise (and selects it).
    h.hover_at(lane_mark.center());
    h.run();
    h.get_by_label("search-1's content breaks its schema");
    h.get_by_label("at /found");
    click_at(&mut h, lane_mark.center());
    assert_eq!(crate::panel::step(&h), 3);
    assert_eq!(h.state().state.selected_activity(), Some("search-1"));
}
