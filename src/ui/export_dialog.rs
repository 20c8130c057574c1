//! File › Export repro…: what to export (the selected activity's minimal
//! repro up to the cursor, the range between marks A and B, or the whole
//! stream), in which format (a conformance fixture among them), with which
//! redactions, and a preview of the bytes that will be written. It calls the engine's export, the code the
//! `export` command runs.

use std::path::PathBuf;

use super::memo::Memo;
use egui::{RichText, Ui};
use serde_json::Value;

use super::state::{AppState, Doc};
use crate::diagnostic::Seq;
use crate::export::{
    self, ExportContext, ExportFormat, ExportRequest, Preview, Redaction, Scope, export_name,
};

/// Bytes of the preview shown.
const PREVIEW_BYTES: usize = 16 * 1024;
/// Streams up to this many events preview as the fields change; longer ones
/// on request.
const AUTO_PREVIEW_EVENTS: u64 = 100_000;

/// What an export preview is for, besides the document generation: the
/// dialog's fields, the cursor, the marks, the selected activity.
type PreviewKey = (u64, Seq, [Option<Seq>; 2], Option<String>);

/// What is exported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScopeChoice {
    /// The selected activity's minimal repro, up to the cursor.
    #[default]
    Activity,
    /// Marks A to B.
    Range,
    /// Every event.
    Whole,
}

/// The dialog's fields.
#[derive(Default)]
pub struct ExportDialog {
    /// Whether it shows.
    pub open: bool,
    /// What is exported.
    pub scope: ScopeChoice,
    /// The format.
    pub format: Format,
    /// Store no request or response headers (recording format).
    pub drop_headers: bool,
    /// Values to replace: a JSON pointer, and the JSON replacing it.
    pub redactions: Vec<(String, String)>,
    /// Where to write.
    pub path: String,
    /// Replace the file if it exists.
    pub replace: bool,
    /// The preview, and what it was made for.
    preview: Memo<PreviewKey, Result<Preview, String>>,
    /// What the last export did.
    pub result: Option<Result<String, String>>,
    /// The file the path was chosen for (another file gets a new default).
    for_doc: Option<PathBuf>,
    /// The fields the last export's message is about.
    result_fields: Option<u64>,
    /// The path the app chose last: while the path is that one, it follows
    /// the scope and the format.
    chosen_path: String,
    /// When the preview was made.
    previewed_at: Option<std::time::Instant>,
}

/// The formats offered (the engine's, with a name and an extension).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// A conformance vector: the events with their expected outcome.
    #[default]
    Vector,
    /// One event per line.
    Jsonl,
    /// An SSE body.
    Sse,
    /// A recording file.
    Recording,
    /// A fixture of the AG-UI conformance corpus, to file upstream. Also
    /// `.json`: chosen here, never by the extension (which stays a vector).
    Conformance,
}

impl Format {
    const ALL: [Self; 5] = [
        Self::Vector,
        Self::Conformance,
        Self::Jsonl,
        Self::Sse,
        Self::Recording,
    ];

    fn engine(self) -> ExportFormat {
        match self {
            Self::Vector => ExportFormat::Vector,
            Self::Jsonl => ExportFormat::Jsonl,
            Self::Sse => ExportFormat::Sse,
            Self::Recording => ExportFormat::Recording,
            Self::Conformance => ExportFormat::Conformance,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Vector => "Vector (a test case)",
            Self::Jsonl => "JSON lines",
            Self::Sse => "SSE body",
            Self::Recording => "Recording",
            Self::Conformance => "Conformance fixture",
        }
    }

    fn hover_text(self) -> &'static str {
        match self {
            Self::Vector => {
                "The events and what this replay expects of them, in the format of tests/vectors (.json)"
            }
            Self::Conformance => {
                "A fixture of the AG-UI conformance corpus (name, area, description, kill, stream, \
                 expect), to file upstream or run through the reference client's harness; named \
                 after its file (.json, chosen here: a typed .json stays a fixture)"
            }
            Self::Jsonl => "One event per line (.jsonl)",
            Self::Sse => "data: frames, as an agent sends them (.sse)",
            Self::Recording => "A new recording file with one session (.rec)",
        }
    }

    /// The format a file name's extension names, as the `export` command
    /// reads it ([`ExportFormat::from_extension`]).
    fn of_extension(path: &str) -> Option<Self> {
        let format = ExportFormat::from_extension(std::path::Path::new(path))?;
        Self::ALL.into_iter().find(|f| f.engine() == format)
    }

    fn extension(self) -> &'static str {
        self.engine().extension()
    }
}

impl ExportDialog {
    /// Opens the dialog, with defaults that fit the state: the activity
    /// repro when one is selected, the range when both marks are set.
    pub fn open_for(&mut self, state: &AppState) {
        self.open = true;
        self.result = None;
        self.preview.clear();
        self.scope = if state.selected_activity().is_some() {
            ScopeChoice::Activity
        } else if state.marks().iter().all(Option::is_some) {
            ScopeChoice::Range
        } else {
            ScopeChoice::Whole
        };
        self.replace = false;
        let doc_path = state.doc().map(|d| d.path.clone());
        if self.path.is_empty() || self.for_doc != doc_path || self.path_is_default() {
            self.for_doc = doc_path;
            self.choose_path(default_path(state, self.format, self.scope));
        }
    }

    /// Whether the path is the one the app chose.
    fn path_is_default(&self) -> bool {
        self.path == self.chosen_path
    }

    fn choose_path(&mut self, path: String) {
        self.chosen_path.clone_from(&path);
        self.path = path;
    }

    /// After the format changed: a path the app chose follows it; one the
    /// user typed keeps its name and takes the extension.
    fn choices_changed(&mut self, state: &AppState) {
        if self.path_is_default() {
            self.choose_path(default_path(state, self.format, self.scope));
        } else {
            self.path = PathBuf::from(&self.path)
                .with_extension(self.format.extension())
                .display()
                .to_string();
        }
        // "Replace" was for the file named before.
        self.replace = false;
    }

    /// The request the fields describe, or why they describe none.
    pub fn request(&self, state: &AppState) -> Result<ExportRequest, String> {
        let scope = match self.scope {
            ScopeChoice::Activity => Scope::Repro {
                message_id: state
                    .selected_activity()
                    .map(str::to_owned)
                    .ok_or("select an activity to export its repro")?,
                to: state.step(),
            },
            ScopeChoice::Range => match state.marks() {
                [Some(a), Some(b)] if a.max(b) == Seq::START => {
                    return Err("marks A and B are both at step 0, before any event".into());
                }
                [Some(a), Some(b)] => Scope::Range(a.min(b).max(Seq::new(1)), a.max(b)),
                _ => return Err("put marks A and B on the timeline (keys a and b)".into()),
            },
            ScopeChoice::Whole => {
                Scope::UpTo(state.doc().map_or(Seq::new(0), |d| d.timeline.last_step()))
            }
        };
        let mut replace = Vec::new();
        for (pointer, replacement) in &self.redactions {
            let pointer = pointer.trim();
            if pointer.is_empty() {
                continue;
            }
            export::parse_pointer(pointer).map_err(|e| e.to_string())?;
            // As the command line takes them: JSON, strings quoted.
            let value = if replacement.trim().is_empty() {
                Value::String(export::REDACTED_VALUE.into())
            } else {
                serde_json::from_str(replacement.trim()).map_err(|e| {
                    format!(
                        "the replacement for {pointer} is not JSON ({e}): a string needs \
                         quotes, as in \"[hidden]\""
                    )
                })?
            };
            replace.push((pointer.to_owned(), value));
        }
        Ok(ExportRequest {
            scope,
            format: self.format.engine(),
            redaction: Redaction {
                drop_headers: self.drop_headers,
                replace,
            },
        })
    }

    /// What the preview depends on besides the document: the fields, and
    /// what of the state they refer to.
    fn preview_key(&self, state: &AppState) -> PreviewKey {
        (
            self.fields_key(),
            state.step(),
            state.marks(),
            state.selected_activity().map(str::to_owned),
        )
    }

    /// A hash of the dialog's own fields: when they change, the last
    /// export's message is about other ones.
    fn fields_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (
            self.scope,
            self.format,
            self.drop_headers,
            &self.redactions,
            &self.path,
        )
            .hash(&mut hasher);
        hasher.finish()
    }
}

fn default_path(state: &AppState, format: Format, scope: ScopeChoice) -> String {
    let stem = match (scope, state.selected_activity(), state.marks()) {
        (ScopeChoice::Activity, Some(id), _) => {
            format!("repro-{}-{}", sanitize(id), state.step())
        }
        (ScopeChoice::Range, _, [Some(a), Some(b)]) => {
            format!("range-{}-{}", a.min(b), a.max(b))
        }
        _ => "export".to_owned(),
    };
    let dir = state
        .doc()
        .and_then(|d| d.path.parent().map(PathBuf::from))
        .unwrap_or_default();
    dir.join(format!("{stem}.{}", format.extension()))
        .display()
        .to_string()
}

fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What the engine's export needs of the open document; `path` is where it
/// goes (a fixture is named after its file).
fn context<'a>(doc: &'a Doc, request: &ExportRequest, path: &std::path::Path) -> ExportContext<'a> {
    let source_name = doc.path.to_str().unwrap_or("stream");
    let name = if request.format == ExportFormat::Conformance {
        export::fixture_name(Some(path), &request.scope)
    } else {
        export_name(source_name, &request.scope)
    };
    ExportContext {
        source_name,
        session: doc.source.session.as_ref(),
        run_input: doc.source.run_input.as_ref(),
        options: doc.options(),
        name,
        arrival_nanos: doc.recording.as_ref().map(|_| doc.arrival_nanos.as_slice()),
    }
}

/// Renders the preview of a request to be written to `path`.
fn make_preview(
    doc: &Doc,
    request: &ExportRequest,
    path: &std::path::Path,
) -> Result<Preview, String> {
    let start = doc.source.start(doc.options());
    export::preview(
        doc.timeline.events(),
        &start,
        request,
        &context(doc, request, path),
        PREVIEW_BYTES,
    )
    .map_err(|e| crate::error::error_chain(&e))
}

/// Writes the export; the message to show.
pub fn run_export(
    doc: &Doc,
    request: &ExportRequest,
    path: &std::path::Path,
) -> Result<String, String> {
    let start = doc.source.start(doc.options());
    let summary = export::export(
        doc.timeline.events(),
        &start,
        request,
        &context(doc, request, path),
        path,
    )
    .map_err(|e| crate::error::error_chain(&e))?;
    let mut message = format!(
        "Wrote {} events ({} bytes) to {}",
        summary.num_events,
        summary.num_bytes,
        path.display()
    );
    for note in summary.redaction.notes() {
        message.push_str("; ");
        message.push_str(&note);
    }
    Ok(message)
}

/// The dialog window.
pub fn export_dialog_ui(ctx: &egui::Context, state: &AppState, dialog: &mut ExportDialog) {
    if !dialog.open {
        return;
    }
    let mut open = true;
    egui::Window::new("Export repro")
        .open(&mut open)
        .default_width(640.0)
        .default_height(560.0)
        .resizable(true)
        .show(ctx, |ui| match state.doc() {
            None => {
                ui.label("Open a stream first.");
            }
            Some(doc) => fields_ui(ui, state, doc, dialog),
        });
    if ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape)) {
        open = false;
    }
    dialog.open &= open;
}

fn fields_ui(ui: &mut Ui, state: &AppState, doc: &Doc, dialog: &mut ExportDialog) {
    let step = state.step();
    if dialog.path_is_default() {
        // The name the app chose follows the scope, the cursor, the marks.
        dialog.choose_path(default_path(state, dialog.format, dialog.scope));
    }
    egui::Grid::new("export_fields")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Scope");
            ui.vertical(|ui| {
                let activity = match state.selected_activity() {
                    Some(id) => format!("Activity {id} up to step {step} (minimal repro)"),
                    None => "Selected activity up to the cursor (none selected)".to_owned(),
                };
                ui.add_enabled_ui(state.selected_activity().is_some(), |ui| {
                    ui.radio_value(&mut dialog.scope, ScopeChoice::Activity, activity);
                });
                let range = match state.marks() {
                    [Some(a), Some(b)] => format!("Range A..B: steps {}..{}", a.min(b), a.max(b)),
                    _ => "Range A..B (marks not set: keys a and b)".to_owned(),
                };
                ui.add_enabled_ui(state.marks().iter().all(Option::is_some), |ui| {
                    ui.radio_value(&mut dialog.scope, ScopeChoice::Range, range);
                });
                ui.radio_value(
                    &mut dialog.scope,
                    ScopeChoice::Whole,
                    format!("Whole stream ({} events)", doc.num_events()),
                );
            });
            ui.end_row();
            ui.label("Format");
            ui.horizontal_wrapped(|ui| {
                for format in Format::ALL {
                    if ui
                        .radio_value(&mut dialog.format, format, format.label())
                        .on_hover_text(format.hover_text())
                        .changed()
                    {
                        dialog.choices_changed(state);
                    }
                }
            });
            ui.end_row();
            ui.label("Redaction");
            ui.vertical(|ui| redaction_ui(ui, dialog));
            ui.end_row();
            let save_label = ui.label("Save to");
            ui.horizontal(|ui| {
                let field = ui
                    .add(egui::TextEdit::singleline(&mut dialog.path).desired_width(380.0))
                    .labelled_by(save_label.id);
                if field.changed() {
                    // "Replace" was for the file named before.
                    dialog.replace = false;
                    // The extension names the format, as for the command;
                    // `.json` keeps a fixture a fixture (it is also JSON).
                    if let Some(format) = Format::of_extension(&dialog.path)
                        && !(format == Format::Vector && dialog.format == Format::Conformance)
                    {
                        dialog.format = format;
                    }
                }
                if ui
                    .button("Browse…")
                    .on_hover_text(
                        "The system's file dialog (through the XDG desktop portal); \
                         where none opens, type the path",
                    )
                    .clicked()
                    && let Some(path) = rfd::FileDialog::new()
                        .set_file_name(
                            PathBuf::from(&dialog.path)
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                        )
                        .save_file()
                {
                    dialog.path = path.display().to_string();
                    dialog.replace = true;
                }
            });
            ui.end_row();
        });
    let request = dialog.request(state);
    let path = PathBuf::from(dialog.path.trim());
    let exists = path.exists();
    if exists {
        ui.checkbox(&mut dialog.replace, format!("Replace {}", path.display()));
    }
    ui.horizontal(|ui| {
        let ready =
            request.is_ok() && !dialog.path.trim().is_empty() && (!exists || dialog.replace);
        if ui.add_enabled(ready, egui::Button::new("Export")).clicked()
            && let Ok(request) = &request
        {
            dialog.result = Some(write(doc, request, &path));
            dialog.result_fields = Some(dialog.fields_key());
        }
        if ui.button("Close").clicked() {
            dialog.open = false;
        }
    });
    match &dialog.result {
        Some(Ok(message)) => {
            ui.label(message);
        }
        Some(Err(error)) => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        None => {}
    }
    ui.separator();
    match &request {
        Ok(request) => preview_ui(ui, state, doc, dialog, request),
        Err(why) => {
            ui.weak(format!("Nothing to export: {why}."));
        }
    }
}

/// Writes the export, never over the open file (the app keeps reading it).
/// The engine writes beside `path` and renames: a failed export leaves a
/// file there as it was.
fn write(doc: &Doc, request: &ExportRequest, path: &std::path::Path) -> Result<String, String> {
    if export::is_same_file(path, &doc.path) {
        return Err(format!(
            "{} is the open file: export to another file",
            path.display()
        ));
    }
    run_export(doc, request, path)
}

fn redaction_ui(ui: &mut Ui, dialog: &mut ExportDialog) {
    let recording = dialog.format == Format::Recording;
    ui.add_enabled(
        recording,
        egui::Checkbox::new(
            &mut dialog.drop_headers,
            "Drop the request and response headers",
        ),
    )
    .on_disabled_hover_text("Only a recording export carries headers")
    .on_hover_text(
        "A recording export then stores no headers at all (secrets are always redacted)",
    );
    let mut remove = None;
    for (i, (pointer, replacement)) in dialog.redactions.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            let pointer_label = ui.label("Pointer");
            ui.add(
                egui::TextEdit::singleline(pointer)
                    .hint_text("/content/apiKey")
                    .desired_width(200.0),
            )
            .labelled_by(pointer_label.id);
            let with_label = ui.label("with");
            ui.add(
                egui::TextEdit::singleline(replacement)
                    .hint_text("\"[REDACTED]\"")
                    .desired_width(140.0),
            )
            .labelled_by(with_label.id);
            if ui.small_button("Remove").clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        dialog.redactions.remove(i);
    }
    if ui
        .small_button("Replace values at a JSON pointer…")
        .on_hover_text("In every exported event where the pointer resolves")
        .clicked()
    {
        dialog.redactions.push((String::new(), String::new()));
    }
}

fn preview_ui(
    ui: &mut Ui,
    state: &AppState,
    doc: &Doc,
    dialog: &mut ExportDialog,
    request: &ExportRequest,
) {
    let key = dialog.preview_key(state);
    let generation = state.generation();
    let fresh = dialog.preview.get(generation, &key).is_some();
    let fields = dialog.fields_key();
    if dialog.result_fields.is_some_and(|k| k != fields) {
        dialog.result = None;
        dialog.result_fields = None;
    }
    let auto = doc.num_events() <= AUTO_PREVIEW_EVENTS;
    // A live recording grows every moment: its preview follows at most
    // once a second.
    let settled = !doc.live
        || dialog
            .previewed_at
            .is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1));
    ui.horizontal(|ui| {
        ui.label(RichText::new("Preview").strong());
        let asked = !auto && ui.button("Preview").clicked();
        if (!fresh && auto && settled) || asked {
            let path = PathBuf::from(dialog.path.trim());
            dialog
                .preview
                .set(generation, key.clone(), make_preview(doc, request, &path));
            dialog.previewed_at = Some(std::time::Instant::now());
        }
    });
    let fresh = dialog.preview.get(generation, &key).is_some();
    let Some(preview) = dialog.preview.last() else {
        ui.weak("A long stream: press Preview to see what will be written.");
        return;
    };
    if !fresh {
        ui.weak("The fields changed since this preview.");
    }
    match preview {
        Ok(preview) => {
            let mut line = format!("{} events", preview.num_events);
            if let Some(bytes) = preview.total_bytes {
                line.push_str(&format!(", {bytes} bytes"));
            }
            if preview.truncated {
                line.push_str(&format!(" (first {} KiB shown)", PREVIEW_BYTES / 1024));
            }
            ui.weak(line);
            for note in preview.redaction.notes() {
                ui.weak(note);
            }
            egui::ScrollArea::both()
                .id_salt("export_preview")
                .auto_shrink([false, false])
                .max_height(ui.available_height().max(120.0))
                .show(ui, |ui| {
                    ui.add(
                        egui::Label::new(RichText::new(preview.text.as_str()).monospace())
                            .wrap_mode(egui::TextWrapMode::Extend),
                    );
                });
        }
        Err(error) => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
    }
}
