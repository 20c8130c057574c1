//! Serve › Serve this stream… (issue 15.2), headless: the control starts
//! the endpoint on the open recording, a front end (a plain HTTP/1.1
//! client on another thread) posts a run input, and receives the events
//! step by step as the cursor moves; moving back ends its stream, and its
//! next run catches up to the cursor. The status bar and the window say
//! where serving is and what the front end sent (R50).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use agui_replay::app_model::command::Command;
use agui_replay::app_model::time_control::TimeCommand;
use agui_replay::diagnostic::Seq;
use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::json;

use crate::common::TempPath;
use crate::common::serve::{Seen, post, session, write_recording};
use crate::panel::harness;

/// Runs frames (the app polls the server) until `done`, for at most 10 s.
fn frames_until(
    harness: &mut Harness<'static, ReplayApp>,
    mut done: impl FnMut(&ReplayApp) -> bool,
) {
    let started = Instant::now();
    while !done(harness.state()) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the app did not get there in 10 s"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    harness.step();
}

/// The next event the front end receives (running frames meanwhile).
fn next_event(
    harness: &mut Harness<'static, ReplayApp>,
    seen: &mpsc::Receiver<Seen>,
) -> Option<String> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        harness.step();
        match seen.recv_timeout(Duration::from_millis(20)) {
            Ok(Seen::Event(event, _)) => return Some(event),
            Ok(Seen::Head(_)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
        }
    }
    panic!("no event and no end in 10 s");
}

/// No event comes for a while (the front end waits at the cursor).
fn assert_quiet(harness: &mut Harness<'static, ReplayApp>, seen: &mpsc::Receiver<Seen>) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(400) {
        harness.step();
        match seen.recv_timeout(Duration::from_millis(20)) {
            Ok(Seen::Event(event, _)) => panic!("an event came without a step: {event}"),
            Ok(Seen::Head(_)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the stream ended"),
        }
    }
}

/// Something shows `text` (the status bar and the window both say where
/// serving is).
#[track_caller]
fn assert_shows(harness: &Harness<'static, ReplayApp>, text: &str) {
    assert!(
        harness.query_all_by_label_contains(text).count() > 0,
        "nothing shows {text:?}"
    );
}

fn press(harness: &mut Harness<'static, ReplayApp>, key: egui::Key) {
    harness.key_press(key);
    harness.step();
}

/// Issue 15.2: the Serve control drives a connected client step by step.
#[test]
fn the_serve_control_sends_the_events_step_by_step_as_the_cursor_moves() {
    let spec = session("t-1", "r-1", 3, 100);
    let recorded: Vec<String> = spec.events.iter().map(|(_, e)| e.to_string()).collect();
    let rec = TempPath::new("app-serve", "served.rec");
    write_recording(rec.path(), std::slice::from_ref(&spec));
    let before = std::fs::read(rec.path()).expect("reads");
    let mut harness = harness(ReplayApp::with_file(rec.path()));
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(0)))]);
    harness.step();
    // Serve › Serve this stream…, on a free port, Start serving.
    harness.get_by_label("Serve").click();
    harness.run();
    harness.get_by_label("Serve this stream…").click();
    harness.run();
    harness.state_mut().serve.listen = "127.0.0.1:0".to_owned();
    harness.get_by_label("Start serving").click();
    harness.step();
    harness.step();
    let address = harness
        .state()
        .serve
        .address()
        .unwrap_or_else(|| panic!("serving: {:?}", harness.state().serve.message()));
    assert_shows(&harness, &format!("Serving http://{address}"));

    // A front end connects at step 0: it waits.
    let seen = post(address, "/agent", &spec.run_input);
    frames_until(&mut harness, |app| {
        app.serve.handle().is_some_and(|h| h.status().streaming)
    });
    assert_quiet(&mut harness, &seen);
    assert_shows(&harness, "received 0 of 7 events");

    // Each step forward sends the next event.
    for expected in &recorded[..3] {
        press(&mut harness, egui::Key::ArrowRight);
        assert_eq!(
            next_event(&mut harness, &seen).as_deref(),
            Some(expected.as_str())
        );
    }
    assert_quiet(&mut harness, &seen);
    frames_until(&mut harness, |app| {
        app.serve.handle().is_some_and(|h| h.status().sent == 3)
    });
    assert_shows(&harness, "received 3 of 7 events");

    // Back before what was sent: the stream ends.
    press(&mut harness, egui::Key::ArrowLeft);
    assert_eq!(next_event(&mut harness, &seen), None, "the stream ends");
    frames_until(&mut harness, |app| {
        app.serve.handle().is_some_and(|h| !h.status().streaming)
    });

    // The next run starts from step 0 and catches up to the cursor (2),
    // then follows it to the end, where the stream is complete. This one
    // sends an activity message back: the window shows R50.
    let mut input = spec.run_input.clone();
    input["messages"]
        .as_array_mut()
        .expect("messages")
        .push(json!({"id": "plan-1", "role": "activity", "activityType": "PLAN", "content": {}}));
    let seen = post(address, "/agent", &input);
    assert_eq!(
        next_event(&mut harness, &seen).as_deref(),
        Some(recorded[0].as_str())
    );
    assert_eq!(
        next_event(&mut harness, &seen).as_deref(),
        Some(recorded[1].as_str())
    );
    assert_quiet(&mut harness, &seen);
    press(&mut harness, egui::Key::End);
    for expected in &recorded[2..] {
        assert_eq!(
            next_event(&mut harness, &seen).as_deref(),
            Some(expected.as_str())
        );
    }
    assert_eq!(next_event(&mut harness, &seen), None, "complete at the end");
    frames_until(&mut harness, |app| {
        app.serve.handle().is_some_and(|h| !h.status().streaming)
    });
    assert_shows(&harness, "received 7 of 7 events (stream ended)");
    harness.get_by_label("2 requests received");
    assert_shows(&harness, "input.activity-message");
    harness.get_by_label("Its run input matches the recorded one");

    harness.get_by_label("Stop serving").click();
    harness.step();
    assert!(harness.state().serve.address().is_none());
    assert_eq!(
        std::fs::read(rec.path()).expect("reads"),
        before,
        "serving leaves the file as it was"
    );
}

/// Issue 15.2: playing sends the events as the cursor passes them, at the
/// recorded timing, to the end of the stream.
#[test]
fn playing_sends_the_events_as_the_cursor_passes_them() {
    let spec = session("t-2", "r-2", 2, 100);
    let recorded: Vec<String> = spec.events.iter().map(|(_, e)| e.to_string()).collect();
    let rec = TempPath::new("app-serve-play", "served.rec");
    write_recording(rec.path(), std::slice::from_ref(&spec));
    let mut harness = harness(ReplayApp::with_file(rec.path()));
    harness
        .state_mut()
        .state
        .apply(vec![Command::Time(TimeCommand::Set(Seq::new(0)))]);
    harness.state_mut().serve.listen = "127.0.0.1:0".to_owned();
    harness.state_mut().serve.open = true;
    harness.run();
    harness.get_by_label("Start serving").click();
    harness.step();
    let address = harness.state().serve.address().expect("serving");
    let seen = post(address, "/agent", &spec.run_input);
    frames_until(&mut harness, |app| {
        app.serve.handle().is_some_and(|h| h.status().streaming)
    });
    press(&mut harness, egui::Key::Space);
    let mut received = Vec::new();
    while let Some(event) = next_event(&mut harness, &seen) {
        received.push(event);
    }
    assert_eq!(received, recorded, "every event, in order, then the end");
    assert_eq!(crate::panel::step(&harness), recorded.len() as u64);
}
