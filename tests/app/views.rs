//! The desktop app, driven headless with egui_kittest: open the bundled
//! demo recording, step with keys, switch profile, and the panels'
//! interactions (issue 6).

use std::path::PathBuf;

use agui_replay::app_model::command::Command;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::{Code, Seq, Severity};
use agui_replay::replay::Profile;
use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::demo_rec as demo;
use crate::panel::{harness, step, wait_for_loading};

fn demo_harness() -> Harness<'static, ReplayApp> {
    harness(ReplayApp::with_file(&demo()))
}

#[test]
fn the_bundled_demo_recording_opens_and_replays() {
    let harness = demo_harness();
    let state = &harness.state().state;
    assert!(state.error().is_none(), "{:?}", state.error());
    let doc = state.doc().expect("the demo is open");
    assert_eq!(doc.num_events(), 45);
    assert_eq!(doc.counts.get(Severity::Warning), 2);
    assert_eq!(doc.counts.get(Severity::Error), 0);
    assert!(
        doc.timeline.index().lanes().len() >= 4,
        "several activities"
    );
    harness.get_by_label("Step 1 of 45");
}

#[test]
fn the_app_opens_a_file_in_the_background() {
    let mut harness = harness(ReplayApp::new(Some(demo())));
    wait_for_loading(&mut harness);
    assert_eq!(
        harness.state().state.doc().map(|d| d.num_events()),
        Some(45)
    );
}

/// The app opened on `path`, which fails to open, and the error it shows.
fn opened_with_an_error(path: PathBuf) -> (Harness<'static, ReplayApp>, String) {
    let mut harness = harness(ReplayApp::new(Some(path)));
    wait_for_loading(&mut harness);
    let error = harness
        .state()
        .state
        .error()
        .map(str::to_owned)
        .expect("an error");
    (harness, error)
}

#[test]
fn an_unreadable_file_shows_an_error_and_keeps_running() {
    let missing = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("no-such-recording.rec");
    let (mut harness, error) = opened_with_an_error(missing);
    // The banner says what happened, then the file (issue 16, point 4).
    assert!(error.contains("no such file"), "{error}");
    assert!(error.ends_with("no-such-recording.rec"), "{error}");
    harness.get_by_label(&error);
    harness.get_by_label("Dismiss").click();
    harness.run();
    assert!(harness.state().state.error().is_none());
}

// Issue 43, point 3b: the banner was one line; at 1400×900 a long path put
// its end and Dismiss off-screen, and it stayed above the recordings opened
// fine after it.
#[test]
fn a_long_error_wraps_with_dismiss_in_sight_and_a_later_open_clears_it() {
    let mut missing = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for _ in 0..6 {
        missing.push("a-folder-whose-name-is-long-enough-to-fill-a-line");
    }
    missing.push("no-such-recording.rec");
    let (mut harness, error) = opened_with_an_error(missing);
    assert!(error.len() > 300, "{error}");
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 900.0));
    let message = harness.get_by_label(&error).rect();
    let dismiss = harness.get_by_label("Dismiss").rect();
    assert!(window.contains_rect(message), "{message:?}");
    assert!(window.contains_rect(dismiss), "{dismiss:?}");
    assert!(
        message.height() > 2.0 * 14.0,
        "wrapped on several lines: {message:?}"
    );
    assert!(!message.intersects(dismiss), "{message:?} {dismiss:?}");
    // A file that opens: the banner goes.
    harness.state_mut().state.apply(vec![Command::Open(demo())]);
    wait_for_loading(&mut harness);
    assert_eq!(harness.state().state.error(), None);
    assert!(harness.query_by_label("Dismiss").is_none());
    assert_eq!(
        harness.state().state.doc().map(|d| d.num_events()),
        Some(45)
    );
}

/// A directory where a recording was expected: the system's cause (no
/// read permission for a user, "is a directory" here, whoever runs the
/// tests) reaches the banner, and the command line says the same.
fn a_directory_named_like_a_recording() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agui-replay-app-{}-a-directory.rec",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("make the directory");
    dir
}

#[test]
fn the_error_banner_says_the_cause_before_the_file() {
    // Issue 16, point 4: "cannot read (is a directory): …", not only
    // "cannot read …".
    let dir = a_directory_named_like_a_recording();
    let (harness, error) = opened_with_an_error(dir.clone());
    assert!(error.contains("is a directory"), "{error}");
    assert!(error.ends_with(&*dir.to_string_lossy()), "{error}");
    harness.get_by_label(&error);
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_agui-replay"))
        .arg("check")
        .arg(&dir)
        .output()
        .expect("run agui-replay");
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert_eq!(cli.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!("error: {error}"),
        "the same words"
    );
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn keys_step_through_the_stream() {
    let mut harness = demo_harness();
    assert_eq!(step(&harness), 1);
    harness.key_press(egui::Key::ArrowRight);
    harness.run();
    assert_eq!(step(&harness), 2);
    harness.key_press(egui::Key::ArrowLeft);
    harness.key_press(egui::Key::ArrowLeft);
    harness.run();
    assert_eq!(step(&harness), 0);
    harness.key_press(egui::Key::End);
    harness.run();
    assert_eq!(step(&harness), 45);
    harness.get_by_label("Step 45 of 45");
    // Home: the first event, where the app opens (issue 43, point 4).
    harness.key_press(egui::Key::Home);
    harness.run();
    assert_eq!(step(&harness), 1);
    harness.get_by_label("Step 1 of 45");
    harness.key_press(egui::Key::ArrowLeft);
    harness.run();
    assert_eq!(step(&harness), 0);
    // n / p: the next and previous steps with a diagnostic.
    harness.key_press(egui::Key::N);
    harness.run();
    assert_eq!(step(&harness), 16, "the failed patch");
    harness.key_press(egui::Key::N);
    harness.run();
    assert_eq!(step(&harness), 17, "the delta to an unknown activity");
    harness.key_press(egui::Key::N);
    harness.run();
    // Issue 17 (E20): the snapshot repairing the failed patch's drift.
    assert_eq!(step(&harness), 18, "the repaired drift");
    harness.key_press(egui::Key::N);
    harness.run();
    assert_eq!(step(&harness), 39, "the declined snapshot");
    harness.key_press(egui::Key::P);
    harness.run();
    assert_eq!(step(&harness), 18);
    harness.key_press(egui::Key::PageDown);
    harness.run();
    assert_eq!(step(&harness), 28, "a page is at least 10 steps");
}

#[test]
fn the_cursor_view_holds_the_state_at_the_step() {
    let mut harness = demo_harness();
    harness.key_press(egui::Key::End);
    harness.run();
    harness.key_press(egui::Key::P);
    harness.run();
    let state = &harness.state().state;
    let view = state.view().expect("a view");
    assert_eq!(view.step, Seq::new(39));
    let doc = state.doc().expect("doc");
    let expected =
        agui_replay::replay::replay_to(doc.timeline.events(), doc.options(), Seq::new(39));
    assert_eq!(view.at.document(), expected.document());
    let before = agui_replay::replay::replay_to(doc.timeline.events(), doc.options(), Seq::new(38));
    assert_eq!(view.before.document(), before.document());
}

#[test]
fn switching_profile_replays_and_keeps_the_cursor() {
    let mut harness = demo_harness();
    for _ in 0..17 {
        harness.key_press(egui::Key::ArrowRight);
    }
    harness.run();
    assert_eq!(step(&harness), 18);
    harness.key_press(egui::Key::ArrowLeft);
    harness.run();
    assert_eq!(step(&harness), 17);
    harness.get_by_label("@ag-ui/client 1.0").click();
    harness.step();
    wait_for_loading(&mut harness);
    let state = &harness.state().state;
    assert_eq!(state.options().profile, Profile::AgUiClient10);
    assert_eq!(step(&harness), 17, "the cursor stays");
    // R12 under the reference client's profile: a note, not a warning.
    let doc = state.doc().expect("doc");
    let unknown = doc
        .timeline
        .diagnostics()
        .iter()
        .find(|d| d.code == Code::DeltaUnknownTarget)
        .expect("the delta to an unknown activity");
    assert_eq!(unknown.severity, Severity::Note);
    assert_eq!(doc.counts.get(Severity::Warning), 1);
}

#[test]
fn the_protocol_version_is_a_setting_of_the_spec_profile() {
    // Issue 11, C4: the version the consumer implements is chosen in the
    // app as with `--protocol`; a 1.0 consumer warns on a 1.1 declaration.
    let dir = std::env::temp_dir().join(format!("agui-replay-app-protocol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("declares-1.1.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\",\"protocolVersion\":\"1.1\"}\n\
         {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n",
    )
    .unwrap();
    let mut harness = harness(ReplayApp::with_file(&file));
    let codes = |harness: &Harness<'static, ReplayApp>| -> Vec<Code> {
        let doc = harness.state().state.doc().expect("doc");
        doc.timeline.diagnostics().iter().map(|d| d.code).collect()
    };
    assert_eq!(
        codes(&harness),
        Vec::<Code>::new(),
        "a 1.1 consumer by default"
    );
    harness.get_by_label("Protocol").click();
    harness.run();
    harness.get_by_label("AG-UI 1.0").click();
    harness.step();
    wait_for_loading(&mut harness);
    assert_eq!(
        harness.state().state.options().protocol,
        agui_replay::protocol::ProtocolVersion::V1_0
    );
    assert_eq!(codes(&harness), [Code::ProtocolVersionNewer]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_protocol_menu_offers_the_draft_and_replays_by_it() {
    // Issue 39, item 6: the app's Protocol choice lists the working draft,
    // as `--protocol draft`; under it a truncated stream fails the run
    // (R62 fatal), where 1.1 warns.
    let dir = std::env::temp_dir().join(format!("agui-replay-app-draft-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("truncated.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\
         {\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"n\":1}}\n",
    )
    .unwrap();
    let mut harness = harness(ReplayApp::with_file(&file));
    wait_for_loading(&mut harness);
    let severities = |harness: &Harness<'static, ReplayApp>| -> Vec<(Code, Severity)> {
        let doc = harness.state().state.doc().expect("doc");
        doc.timeline
            .diagnostics()
            .iter()
            .map(|d| (d.code, d.severity))
            .collect()
    };
    assert_eq!(
        severities(&harness),
        [(Code::StreamTruncated, Severity::Warning)]
    );
    harness.get_by_label("Protocol").click();
    harness.run();
    harness.get_by_label("AG-UI draft").click();
    harness.step();
    wait_for_loading(&mut harness);
    assert_eq!(
        harness.state().state.options().protocol,
        agui_replay::protocol::ProtocolVersion::Draft
    );
    assert_eq!(
        severities(&harness),
        [(Code::StreamTruncated, Severity::Error)]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_vector_opens_under_the_profile_it_declares() {
    // Issue 12, item 12: a vector's declared profile decides its replay in
    // the app as on the command line.
    let vector = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors/client-profile-merges-metadata-on-failed-patch.json");
    let mut harness = harness(ReplayApp::with_file(&vector));
    wait_for_loading(&mut harness);
    assert_eq!(
        harness.state().state.options().profile,
        Profile::AgUiClient10
    );
}

#[test]
fn playing_advances_the_cursor_and_pauses() {
    // Issue 16: playback takes each frame's time from egui's input (a fixed
    // 0.25 s a frame under kittest), not the wall clock, so this test does
    // not depend on the machine's load. The demo's events arrive 137 ms
    // apart, the first at 0.
    let mut harness = demo_harness();
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
    assert!(harness.state().state.time().is_playing());
    assert_eq!(step(&harness), 0, "play starts where the cursor is");
    harness.step();
    assert_eq!(step(&harness), 2, "0.25 s: the events at 0 and 137 ms");
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::SetSpeed(2.0))]);
    harness.step();
    // 0.25 s + 0.5 s of recorded time: the events up to 685 ms.
    assert_eq!(step(&harness), 6, "double speed");
    // Space pauses (the frame of the key press still plays its 0.25 s).
    harness.key_press(egui::Key::Space);
    harness.step();
    assert!(!harness.state().state.time().is_playing());
    let paused_at = step(&harness);
    for _ in 0..5 {
        harness.step();
    }
    assert_eq!(step(&harness), paused_at, "paused");
}

#[test]
fn clicking_a_diagnostic_lands_on_its_event_and_selects_its_activity() {
    let mut harness = demo_harness();
    // The right panel's tab (the timeline has a "Diagnostics" row too).
    harness
        .get_all_by_label("Diagnostics")
        .find(|node| in_right_panel(node.rect()))
        .expect("the Diagnostics tab")
        .click();
    harness.run();
    harness
        .get_by_label_contains(r#"ACTIVITY_DELTA for "prices-7""#)
        .click();
    harness.run();
    assert_eq!(step(&harness), 17);
    assert_eq!(harness.state().state.selected_activity(), Some("prices-7"));
}

/// Issue 11: the rules travel with the project. The diagnostics panel
/// shows, in each group, the rule its code reports (from `docs/RULES.md`
/// built into the binary), and the group's header shows it on hover.
#[test]
fn the_diagnostics_panel_shows_the_rule_of_each_code() {
    let mut harness = demo_harness();
    harness
        .get_all_by_label("Diagnostics")
        .find(|node| in_right_panel(node.rect()))
        .expect("the Diagnostics tab")
        .click();
    harness.run();
    // The demo's failed patch (R14) and its delta to an unknown activity
    // (R12).
    for code in [Code::PatchFailed, Code::DeltaUnknownTarget] {
        let rule = agui_replay::rules::reference()
            .rule_of(code)
            .expect("a rule for the code");
        harness.get_by_label(&rule.heading());
        harness.get_by_label(&rule.plain_text());
    }
    let r14 = agui_replay::rules::reference()
        .rule("R14")
        .expect("R14 is in the reference");
    assert!(r14.plain_text().contains("the whole event is skipped"));
    // Hovering the group's header shows the rule too (a second copy of its
    // text, in the tooltip).
    harness
        .get_by_label_contains("activity.patch.failed (")
        .hover();
    harness.run();
    assert_eq!(harness.get_all_by_label(&r14.plain_text()).count(), 2);
}

/// Issue 11: hovering a diagnostic's code in the inspector shows the rule
/// it reports.
#[test]
fn hovering_a_code_in_the_inspector_shows_its_rule() {
    let mut harness = demo_harness();
    harness.state_mut().state.apply(vec![
        Command::SelectActivity(Some("search-1".into())),
        Command::Time(TimeCommand::Set(Seq::new(16))),
    ]);
    harness.run();
    let r14 = agui_replay::rules::reference()
        .rule("R14")
        .expect("R14 is in the reference");
    assert_eq!(harness.query_all_by_label(&r14.plain_text()).count(), 0);
    // Under "this event" (issue 43: above the fold) and under the current
    // event: each shows its rule on hover; the first is hovered.
    let codes = harness.query_all_by_label("warning activity.patch.failed");
    assert_eq!(codes.count(), 2);
    harness
        .query_all_by_label("warning activity.patch.failed")
        .next()
        .expect("the code")
        .hover();
    harness.run();
    harness.get_by_label(&r14.plain_text());
    harness.get_by_label(&r14.heading());
}

#[test]
fn selecting_an_activity_shows_its_content_in_the_inspector() {
    let mut harness = demo_harness();
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(20)))]);
    harness.run();
    harness.get_by_label("Activity search-1").click();
    harness.run();
    assert_eq!(harness.state().state.selected_activity(), Some("search-1"));
    // The inspector (right panel) shows the activity's content at step 20.
    for member in ["results", "Ryanair, Sat 07:15", "stats"] {
        assert!(
            harness
                .get_all_by_label_contains(member)
                .any(|node| in_right_panel(node.rect())),
            "the inspector shows {member:?}"
        );
    }
}

/// Whether a widget is in the right panel (inspector, diagnostics) of the
/// 1400-pixel-wide window (its default width is under 500 pixels).
fn in_right_panel(rect: egui::Rect) -> bool {
    rect.left() > 900.0
}

#[test]
fn filtering_the_event_list_keeps_the_matching_events() {
    let mut harness = demo_harness();
    assert_eq!(harness.state().state.event_rows().len(), 45);
    harness.get_by_label("Filter text").focus();
    harness.run();
    harness.get_by_label("Filter text").type_text("hotels-1");
    harness.run();
    let rows = harness.state().state.event_rows().to_vec();
    assert!(!rows.is_empty() && rows.len() < 45, "{rows:?}");
    let doc = harness.state().state.doc().expect("doc");
    for seq in rows {
        let raw = String::from_utf8_lossy(&doc.raw(seq).expect("raw")).into_owned();
        assert!(raw.contains("hotels-1"), "{raw}");
    }
}

#[test]
fn a_recording_with_several_sessions_opens_its_first_and_offers_the_others() {
    let dir = std::env::temp_dir().join(format!("agui-replay-app-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let recording = dir.join("two.rec");
    let _ = std::fs::remove_file(&recording);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    agui_replay::store::import_files(
        &[
            root.join("recordings/demo.jsonl"),
            root.join("tests/samples/search-agent.sse"),
        ],
        &recording,
        &mut |_| {},
    )
    .expect("imports");
    let mut harness = harness(ReplayApp::with_file(&recording));
    {
        let state = &harness.state().state;
        assert!(state.error().is_none(), "{:?}", state.error());
        let doc = state.doc().expect("doc");
        assert_eq!(doc.sessions.len(), 2);
        assert_eq!(doc.session, Some(1));
        assert_eq!(doc.num_events(), 45);
    }
    harness.get_by_label("Session").click();
    harness.run();
    harness.get_by_label_contains("search-agent.sse").click();
    // The session opens in the background behind a spinner: step until it
    // has (a `run` here fails when the open takes more than a few frames).
    harness.step();
    wait_for_loading(&mut harness);
    let doc = harness.state().state.doc().expect("doc");
    assert_eq!(doc.session, Some(2));
    assert_eq!(doc.num_events(), 13);
    let _ = std::fs::remove_dir_all(&dir);
}
