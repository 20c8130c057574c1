//! The app's model stays apart from its drawing (issue 44, point 3): no file
//! of `src/app_model/` mentions the UI toolkit, and none imports the
//! panels' module, so that panels import the model and never the reverse.

use std::path::{Path, PathBuf};

/// What ties a model file to the drawing: the toolkit's crates by name, or
/// a path into the panels' module (in a `use`, in code or in a doc link).
const FORBIDDEN: &[&str] = &["egui", "eframe", "rfd::", "crate::ui", "agui_replay::ui"];

/// The forbidden words in `text`, each once, in [`FORBIDDEN`]'s order.
fn offences(text: &str) -> Vec<&'static str> {
    FORBIDDEN
        .iter()
        .copied()
        .filter(|word| text.contains(word))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("read the model's folder");
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_check_flags_a_toolkit_import_and_a_panel_import() {
    // issue 44: the check itself can fail.
    assert_eq!(offences("use egui::Ui;"), ["egui"]);
    assert_eq!(offences("use crate::ui::search::search_ui;"), ["crate::ui"]);
    assert_eq!(offences("/// See [`crate::ui::ReplayApp`]."), ["crate::ui"]);
    assert!(offences("use crate::app_model::state::AppState;").is_empty());
}

#[test]
fn no_model_file_mentions_the_toolkit_or_imports_a_panel() {
    // issue 44, point 3.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app_model");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    files.sort();
    assert!(files.len() >= 10, "the model's files: {}", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read a model file");
        for word in offences(&text) {
            found.push(format!("{} mentions {word}", file.display()));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
