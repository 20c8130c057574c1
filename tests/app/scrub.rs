//! Issue 43: while the timeline is dragged, the playhead is under the
//! pointer in every frame, whatever the seek costs; the panels catch up
//! with the step it was let go at, the app asking for the frames to show
//! it.

use agui_replay::app_model::seek::SeekPolicy;
use agui_replay::ui::ReplayApp;
use agui_replay::ui::timeline::painted_playhead;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use crate::common::TempDir;
use crate::panel::{opened_text, step};

/// A message streamed one numbered word an event: at step `s` (from 2)
/// the conversation ends with `[s]`.
fn numbered_words(num_words: u64) -> String {
    let mut lines =
        vec![r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.to_owned()];
    for s in 2..num_words + 2 {
        lines.push(format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":" [{s}]"}}"#
        ));
    }
    lines.join("\n")
}

/// Puts `event` in the next frame's input (several may share a frame).
fn queue(harness: &mut Harness<'static, ReplayApp>, event: egui::Event) {
    harness.input_mut().events.push(event);
}

fn button(pos: egui::Pos2, pressed: bool) -> egui::Event {
    egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    }
}

/// The word of the event the inspector shows (the current event's JSON
/// has its delta; the event list's rows show only the deltas).
fn inspected_word(harness: &Harness<'static, ReplayApp>) -> Option<u64> {
    harness
        .query_all_by_label_contains("TEXT_MESSAGE_CONTENT")
        .filter_map(|node| node.accesskit_node().value())
        .find_map(|json| {
            let (_, after) = json.split_once("\"delta\": \" [")?;
            after.split_once(']')?.0.parse().ok()
        })
}

#[test]
fn while_dragging_the_playhead_is_under_the_pointer_and_the_panels_catch_up() {
    let dir = TempDir::new("scrub");
    let mut harness = opened_text(&dir, "words.jsonl", &numbered_words(119));
    // Every seek on the seek thread, as in a long recording (this one
    // would seek inline).
    harness
        .state_mut()
        .state
        .set_seek_policy(SeekPolicy::InBackgroundAbove(0));
    harness.run();
    let painted = painted_playhead(&harness.ctx).expect("the timeline shows");
    let plot = painted.plot;
    // On the ruler: nothing there but the scrub.
    let y = plot.top() + 6.0;
    let x_of = |fraction: f32| plot.left() + fraction * plot.width();

    let start = egui::pos2(x_of(0.2), y);
    harness.hover_at(start);
    harness.run();
    queue(&mut harness, button(start, true));
    harness.step();
    let mut behind = 0;
    for fraction in [0.25, 0.32, 0.45, 0.6, 0.58, 0.7, 0.83] {
        let pos = egui::pos2(x_of(fraction), y);
        queue(&mut harness, egui::Event::PointerMoved(pos));
        // One frame, as the window draws one for a move.
        harness.step();
        let painted = painted_playhead(&harness.ctx).expect("the timeline shows");
        let under = painted.step_at(pos.x);
        assert_eq!(
            painted.step, under,
            "the playhead painted in the frame of the move at {fraction} of the plot"
        );
        assert_eq!(step(&harness), under.get(), "the cursor at {fraction}");
        let view = harness.state().state.view().map(|v| v.step);
        if view != Some(under) {
            behind += 1;
        }
    }
    // The seek runs after the frame that asked for it: the panels showed
    // an earlier step while the playhead was at the pointer.
    assert!(
        behind > 0,
        "the panels were never behind: the seek ran in the frame"
    );

    // The last move and the release in one frame (a frame slower than the
    // pointer): the scrub ends where the button was let go.
    let end = egui::pos2(x_of(0.9), y);
    queue(&mut harness, egui::Event::PointerMoved(end));
    queue(&mut harness, button(end, false));
    harness.step();
    let painted = painted_playhead(&harness.ctx).expect("the timeline shows");
    let last = painted.step_at(end.x);
    assert_eq!(
        painted.step, last,
        "the playhead where the button was let go"
    );
    assert_eq!(step(&harness), last.get());

    // The frames the app asks for, as the window draws them, bring the
    // panels to that step; it never stops asking before.
    let mut frames = 0;
    while harness.state().state.view().map(|v| v.step) != Some(last) {
        let delay = harness
            .output()
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.repaint_delay)
            .expect("the window's output");
        assert!(
            delay < std::time::Duration::from_secs(1),
            "the panels show step {:?}, the cursor {last}, and the app asks for no frame",
            harness.state().state.view().map(|v| v.step)
        );
        assert!(frames < 1000, "the panels never showed step {last}");
        std::thread::sleep(delay);
        harness.step();
        frames += 1;
    }
    harness.run();
    assert_eq!(
        inspected_word(&harness),
        Some(last.get()),
        "the inspector at step {last}"
    );
}
