//! The session files of other AG-UI tools in the app (issue 17.5): a
//! DevTools session opens on its first connection with the times the file
//! recorded, the Exchange picker offers every connection, and what the file
//! says (redaction, the inspector's findings) is among the diagnostics.

use std::path::Path;

use agui_replay::app_model::document::Timing;
use agui_replay::diagnostic::Code;
use agui_replay::ui::ReplayApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use crate::common::peers::{held, peer_file};
use crate::panel::{harness, wait_for_loading};

fn open(path: &Path) -> Harness<'static, ReplayApp> {
    let mut harness = harness(ReplayApp::with_file(path));
    wait_for_loading(&mut harness);
    assert!(
        harness.state().state.error().is_none(),
        "{:?}",
        harness.state().state.error()
    );
    harness
}

#[test]
fn a_devtools_session_offers_each_connection_with_its_recorded_times() {
    let path = peer_file("ag-ui-devtools/runs-edge.agui.jsonl");
    let file = held(&path);
    let mut harness = open(&path);
    {
        let doc = harness.state().state.doc().expect("a document");
        assert_eq!(doc.session, Some(1));
        assert_eq!(doc.num_events() as usize, file.sessions[0].events.len());
        assert_eq!(doc.source.exchanges.len(), file.sessions.len());
        assert_eq!(
            Some(&doc.arrival_nanos),
            file.sessions[0].arrival_nanos.as_ref()
        );
        assert_eq!(doc.timing, Timing::Recorded, "the file's own times");
    }
    harness.get_by_label("Exchange").click();
    harness.run();
    harness
        .get_by_label_contains("2: c2 POST /api/copilotkit/agent/booking/run")
        .click();
    harness.step();
    wait_for_loading(&mut harness);
    let doc = harness.state().state.doc().expect("a document");
    assert_eq!(doc.session, Some(2));
    assert_eq!(doc.num_events() as usize, file.sessions[1].events.len());
    assert_eq!(
        Some(&doc.arrival_nanos),
        file.sessions[1].arrival_nanos.as_ref()
    );
}

#[test]
fn an_inspector_export_and_a_redacted_session_say_what_their_files_say() {
    let path = peer_file("agui-inspector/generated/agui-inspector-session-sse.json");
    let file = held(&path);
    let harness = open(&path);
    let doc = harness.state().state.doc().expect("a document");
    assert_eq!(doc.num_events() as usize, file.sessions[0].events.len());
    assert_eq!(doc.source.exchanges.len(), 3);
    let codes: Vec<Code> = doc.diagnostics().map(|d| d.code).collect();
    assert!(codes.contains(&Code::PeerFinding), "{codes:?}");
    assert!(!codes.contains(&Code::PeerRecordDamaged), "{codes:?}");
    assert!(!codes.contains(&Code::EventUnparseable), "{codes:?}");

    let path = peer_file(
        "ag-ui-devtools/generated/agui-localhost-3000-2026-08-15T09-00-00.000Z-demo-redacted.agui.jsonl",
    );
    let harness = open(&path);
    let doc = harness.state().state.doc().expect("a document");
    let redacted: Vec<_> = doc
        .diagnostics()
        .filter(|d| d.code == Code::PeerRedacted)
        .collect();
    assert_eq!(redacted.len(), 1);
    assert_eq!(doc.counts.get(agui_replay::Severity::Info), 1);
}
