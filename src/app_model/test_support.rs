//! What the model's tests and the panels' tests share: a short stream, and a
//! document and an app state opened on it.

use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use crate::app_model::command::Command;
use crate::app_model::document::{Doc, load};
use crate::app_model::state::AppState;
use crate::app_model::time_control::TimeCommand;
use crate::diagnostic::Seq;
use crate::replay::Options;

/// A fresh, empty folder under the system's temporary one, for the
/// test `name` of `module`.
pub fn temp_dir(module: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agui-replay-{module}-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A document replaying `lines` (one event each), opened as the app
/// opens a JSON lines file.
pub fn doc_of(lines: &[&str]) -> Doc {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "agui-replay-event-list-{}-{}.jsonl",
        std::process::id(),
        NEXT.fetch_add(1, AtomicOrdering::Relaxed)
    ));
    std::fs::write(&path, lines.join("\n")).expect("write the test stream");
    let doc = load(&path, None, Options::default()).expect("open the test stream");
    let _ = std::fs::remove_file(&path);
    *doc
}

/// An app state with `lines` open, at step 1.
pub fn state_of(lines: &[&str]) -> AppState {
    let mut state = AppState::default();
    state.install_doc(doc_of(lines));
    state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(1)))]);
    state
}

/// A short stream: a run with activities (one of them unknown) and a text
/// message.
pub const STREAM: &[&str] = &[
    r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a-1","activityType":"search","content":{"found":0,"results":[]}}"#,
    r#"{"type":"ACTIVITY_DELTA","messageId":"a-1","activityType":"search","patch":[{"op":"replace","path":"/found","value":1},{"op":"add","path":"/results/-","value":"x"}]}"#,
    r#"{"type":"ACTIVITY_DELTA","messageId":"ghost","activityType":"search","patch":[{"op":"add","path":"/a","value":1}]}"#,
    r#"{"type":"TEXT_MESSAGE_START","messageId":"m-1","role":"assistant"}"#,
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"Hello Lisbon"}"#,
    r#"{"type":"TEXT_MESSAGE_END","messageId":"m-1"}"#,
    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
];

/// The numbers of `rows`, to compare with literals.
pub fn seqs(rows: &[Seq]) -> Vec<u64> {
    rows.iter().map(|s| s.get()).collect()
}
