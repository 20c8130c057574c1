//! File › Export repro…, its state: what to export (the selected activity's
//! minimal repro up to the cursor, the range between marks A and B, or the
//! whole stream), in which format (a conformance fixture among them), with
//! which redactions, and a preview of the bytes that will be written. It
//! calls the engine's export, the code the `export` command runs; the
//! app's window draws it.

use std::path::PathBuf;

use serde_json::Value;

use crate::app_model::document::Doc;
use crate::app_model::memo::Memo;
use crate::app_model::state::AppState;
use crate::diagnostic::Seq;
use crate::export::{
    self, ExportContext, ExportFormat, ExportRequest, Preview, Redaction, Scope, export_name,
};

/// Bytes of the preview shown.
pub const PREVIEW_BYTES: usize = 16 * 1024;
/// Streams up to this many events preview as the fields change; longer ones
/// on request.
pub const AUTO_PREVIEW_EVENTS: u64 = 100_000;

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

/// The export dialog's state: its fields, the preview, what the last
/// export did. Changed by [`ExportCommand`]s ([`ExportDialog::apply`]), read
/// through its accessors; the window ([`export_dialog_ui`]) only draws it
/// and applies what the user does (issue 16, point 3).
#[derive(Default)]
pub struct ExportDialog {
    /// Whether it shows.
    open: bool,
    /// What is exported.
    scope: ScopeChoice,
    /// The format.
    format: Format,
    /// Store no request or response headers (recording format).
    drop_headers: bool,
    /// Values to replace: a JSON pointer, and the JSON replacing it.
    redactions: Vec<(String, String)>,
    /// Where to write.
    path: String,
    /// Replace the file if it exists.
    replace: bool,
    /// The preview, and what it was made for.
    preview: Memo<PreviewKey, Result<Preview, String>>,
    /// What the last export did.
    result: Option<Result<String, String>>,
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

/// What the user does with the export dialog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportCommand {
    /// Opens it, with defaults that fit the state: the activity repro when
    /// one is selected, the range when both marks are set.
    Open,
    /// Closes it.
    Close,
    /// Chooses what is exported; refused when the state offers no such
    /// scope (no activity selected, marks not set).
    SetScope(ScopeChoice),
    /// Chooses the format: a path the app chose follows it, one the user
    /// typed keeps its name and takes the format's extension.
    SetFormat(Format),
    /// The path, as typed: the extension names the format, as for the
    /// command (`.json` keeps a fixture a fixture); "Replace" is unticked.
    SetPath(String),
    /// The path, as picked in the system's file dialog (which asked about
    /// replacing it): the format stays, "Replace" is ticked.
    PickPath(String),
    /// Replace the file if it exists.
    SetReplace(bool),
    /// Store no request or response headers (a recording export).
    SetDropHeaders(bool),
    /// Adds a redaction: a JSON pointer, and the JSON replacing its value
    /// (empty: `"[REDACTED]"`).
    AddRedaction(String, String),
    /// Changes the redaction at this index (none there: nothing changes).
    EditRedaction(usize, String, String),
    /// Removes the redaction at this index (none there: nothing changes).
    RemoveRedaction(usize),
    /// Writes the export, never over the open file nor over an existing
    /// file without "Replace".
    Run,
}

/// What an [`ExportCommand`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportResponse {
    /// The export was written there.
    pub written: Option<PathBuf>,
    /// The command was refused, or the export failed: why.
    pub error: Option<String>,
    /// The dialog closed.
    pub closed: bool,
}

impl ExportResponse {
    fn error(why: impl Into<String>) -> Self {
        Self {
            error: Some(why.into()),
            ..Self::default()
        }
    }
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
    /// AG-UI's protobuf encoding (issue 15.7).
    Proto,
    /// A recording file.
    Recording,
    /// A fixture of the AG-UI conformance corpus, to file upstream. Also
    /// `.json`: chosen here, never by the extension (which stays a vector).
    Conformance,
}

impl Format {
    /// Every format, in the order offered.
    pub const ALL: [Self; 6] = [
        Self::Vector,
        Self::Conformance,
        Self::Jsonl,
        Self::Sse,
        Self::Proto,
        Self::Recording,
    ];

    fn engine(self) -> ExportFormat {
        match self {
            Self::Vector => ExportFormat::Vector,
            Self::Jsonl => ExportFormat::Jsonl,
            Self::Sse => ExportFormat::Sse,
            Self::Proto => ExportFormat::Proto,
            Self::Recording => ExportFormat::Recording,
            Self::Conformance => ExportFormat::Conformance,
        }
    }

    /// The format's name in the dialog.
    pub fn label(self) -> &'static str {
        self.engine().label()
    }

    /// What the format is, on hover.
    pub fn hover_text(self) -> &'static str {
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
            Self::Proto => {
                "AG-UI's binary encoding, application/vnd.ag-ui.event+proto: a length and a \
                 protobuf Event per event (.pb)"
            }
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
    /// Whether it shows.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// What is exported.
    pub fn scope(&self) -> ScopeChoice {
        self.scope
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether a recording export stores no headers.
    pub fn drop_headers(&self) -> bool {
        self.drop_headers
    }

    /// The redactions: a JSON pointer, and the JSON replacing its value.
    pub fn redactions(&self) -> &[(String, String)] {
        &self.redactions
    }

    /// Where the export goes.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether an existing file is replaced.
    pub fn replace(&self) -> bool {
        self.replace
    }

    /// What the last export did: its message, or why it failed.
    pub fn result(&self) -> Option<&Result<String, String>> {
        self.result.as_ref()
    }

    /// Applies a command over `state` (the open document, the cursor, the
    /// marks, the selected activity).
    pub fn apply(&mut self, command: ExportCommand, state: &AppState) -> ExportResponse {
        match command {
            ExportCommand::Open => self.open_for(state),
            ExportCommand::Close => {
                let closed = self.open;
                self.open = false;
                return ExportResponse {
                    closed,
                    ..ExportResponse::default()
                };
            }
            ExportCommand::SetScope(scope) => {
                if let Err(why) = scope_available(state, scope) {
                    return ExportResponse::error(why);
                }
                self.scope = scope;
            }
            ExportCommand::SetFormat(format) => {
                if format != self.format {
                    self.format = format;
                    self.choices_changed(state);
                }
            }
            ExportCommand::SetPath(path) => {
                self.path = path;
                // "Replace" was for the file named before.
                self.replace = false;
                // The extension names the format, as for the command;
                // `.json` keeps a fixture a fixture (it is also JSON).
                if let Some(format) = Format::of_extension(&self.path)
                    && !(format == Format::Vector && self.format == Format::Conformance)
                {
                    self.format = format;
                }
            }
            ExportCommand::PickPath(path) => {
                self.path = path;
                self.replace = true;
            }
            ExportCommand::SetReplace(replace) => self.replace = replace,
            ExportCommand::SetDropHeaders(drop) => self.drop_headers = drop,
            ExportCommand::AddRedaction(pointer, replacement) => {
                self.redactions.push((pointer, replacement));
            }
            ExportCommand::EditRedaction(i, pointer, replacement) => {
                if let Some(redaction) = self.redactions.get_mut(i) {
                    *redaction = (pointer, replacement);
                }
            }
            ExportCommand::RemoveRedaction(i) => {
                if i < self.redactions.len() {
                    self.redactions.remove(i);
                }
            }
            ExportCommand::Run => return self.run(state),
        }
        ExportResponse::default()
    }

    /// Why the fields cannot be exported now (`None`: they can): the
    /// request they describe is invalid, the path is empty, or names a file
    /// that exists while "Replace" is off.
    pub fn not_ready(&self, state: &AppState) -> Option<String> {
        if let Err(why) = self.request(state) {
            return Some(why);
        }
        let path = self.path.trim();
        if path.is_empty() {
            return Some("the path is empty: type where to write the export".into());
        }
        if !self.replace && std::path::Path::new(path).exists() {
            return Some(format!("{path} exists: tick \"Replace\" to write over it"));
        }
        None
    }

    /// Writes the export, when the fields are ready; what it did is also
    /// the dialog's message.
    fn run(&mut self, state: &AppState) -> ExportResponse {
        let path = PathBuf::from(self.path.trim());
        let result = match (state.doc(), self.request(state)) {
            (None, _) => Err("open a stream first".to_owned()),
            (Some(_), Err(why)) => Err(why),
            (Some(doc), Ok(request)) => match self.not_ready(state) {
                Some(why) => Err(why),
                None => write(doc, &request, &path),
            },
        };
        // Issue 41: the edited stream is exported while it shows.
        let result = match result {
            Ok(message) if state.whatif().showing_edited() => {
                Ok(format!("{message} (the stream as edited)"))
            }
            other => other,
        };
        self.result = Some(result.clone());
        self.result_fields = Some(self.fields_key());
        match result {
            Ok(_) => ExportResponse {
                written: Some(path),
                ..ExportResponse::default()
            },
            Err(why) => ExportResponse::error(why),
        }
    }

    /// Opens the dialog, with defaults that fit the state.
    fn open_for(&mut self, state: &AppState) {
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

    /// A path the app chose follows the scope, the cursor, the marks.
    pub fn follow_state(&mut self, state: &AppState) {
        if self.path_is_default() {
            self.choose_path(default_path(state, self.format, self.scope));
        }
    }

    /// The last export's message is about the fields it ran with: once
    /// they change, it goes.
    pub fn drop_stale_result(&mut self) {
        let fields = self.fields_key();
        if self.result_fields.is_some_and(|k| k != fields) {
            self.result = None;
            self.result_fields = None;
        }
    }

    /// Makes the preview when it is stale and may be made now (`asked`:
    /// the user pressed Preview).
    pub fn refresh_preview(
        &mut self,
        state: &AppState,
        doc: &Doc,
        request: &ExportRequest,
        asked: bool,
    ) {
        let key = self.preview_key(state);
        let generation = state.generation();
        let fresh = self.preview.get(generation, &key).is_some();
        let auto = doc.num_events() <= AUTO_PREVIEW_EVENTS;
        // A live recording grows every moment: its preview follows at most
        // once a second.
        let settled = !doc.live
            || self
                .previewed_at
                .is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1));
        if (!fresh && auto && settled) || asked {
            let path = PathBuf::from(self.path.trim());
            self.preview
                .set(generation, key, make_preview(doc, request, &path));
            self.previewed_at = Some(std::time::Instant::now());
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
    /// The last preview, and whether it is still the one the fields,
    /// the cursor and the marks ask for.
    pub fn preview(&self, state: &AppState) -> Option<(&Result<Preview, String>, bool)> {
        let fresh = self
            .preview
            .get(state.generation(), &self.preview_key(state))
            .is_some();
        self.preview.last().map(|preview| (preview, fresh))
    }

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

/// Whether the state offers `scope`: an activity repro needs a selected
/// activity, a range both marks.
pub fn scope_available(state: &AppState, scope: ScopeChoice) -> Result<(), &'static str> {
    match scope {
        ScopeChoice::Activity if state.selected_activity().is_none() => {
            Err("select an activity to export its repro")
        }
        ScopeChoice::Range if !state.marks().iter().all(Option::is_some) => {
            Err("put marks A and B on the timeline (keys a and b)")
        }
        _ => Ok(()),
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
        // Read whole from the recording when its events are left there.
        &doc.timeline.events().to_log(),
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
        // Read whole from the recording when its events are left there.
        &doc.timeline.events().to_log(),
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

/// Writes the export, never over the open file (the app keeps reading it).
/// The engine writes beside `path` and renames: a failed export leaves a
/// file there as it was.
fn write(doc: &Doc, request: &ExportRequest, path: &std::path::Path) -> Result<String, String> {
    if crate::file_identity::is_same_file(path, &doc.path) {
        return Err(format!(
            "{} is the open file: export to another file",
            path.display()
        ));
    }
    run_export(doc, request, path)
}

#[cfg(test)]
mod tests {
    // The export dialog's state machine, with no UI context (issue 16,
    // point 3).
    use super::*;
    use crate::app_model::command::Command;
    use crate::app_model::test_support::{STREAM, state_of};
    use crate::app_model::time_control::TimeCommand;
    use clap::Parser;

    /// A fresh folder under the system's temporary one.
    fn temp_dir(name: &str) -> PathBuf {
        crate::app_model::test_support::temp_dir("export-dialog", name)
    }

    /// The short stream open at step 1, no activity selected, no marks.
    fn unselected() -> AppState {
        let mut state = state_of(STREAM);
        state.apply(vec![Command::SelectActivity(None)]);
        assert_eq!(state.selected_activity(), None);
        assert_eq!(state.marks(), [None, None]);
        state
    }

    #[test]
    fn a_format_change_renames_the_paths_extension() {
        let state = unselected();
        let mut dialog = ExportDialog::default();
        assert!(!dialog.is_open());
        assert_eq!(
            dialog.apply(ExportCommand::Open, &state),
            ExportResponse::default()
        );
        assert!(dialog.is_open());
        assert_eq!(dialog.scope(), ScopeChoice::Whole, "no activity, no marks");
        assert!(dialog.path().ends_with("export.json"), "{}", dialog.path());
        dialog.apply(ExportCommand::SetFormat(Format::Jsonl), &state);
        assert!(dialog.path().ends_with("export.jsonl"), "{}", dialog.path());
        // A typed path: its extension names the format; a format change
        // keeps its name and unticks "Replace".
        let typed = temp_dir("rename").join("my-case.sse");
        dialog.apply(ExportCommand::SetPath(typed.display().to_string()), &state);
        assert_eq!(dialog.format(), Format::Sse);
        dialog.apply(ExportCommand::SetReplace(true), &state);
        dialog.apply(ExportCommand::SetFormat(Format::Recording), &state);
        assert_eq!(
            dialog.path(),
            typed.with_extension("rec").display().to_string()
        );
        assert!(!dialog.replace());
        // A typed .json keeps a fixture a fixture.
        dialog.apply(ExportCommand::SetFormat(Format::Conformance), &state);
        assert_eq!(
            dialog.path(),
            typed.with_extension("json").display().to_string()
        );
        dialog.apply(ExportCommand::SetPath(dialog.path().to_owned()), &state);
        assert_eq!(dialog.format(), Format::Conformance);
        let closed = dialog.apply(ExportCommand::Close, &state);
        assert!(closed.closed && !dialog.is_open());
    }

    #[test]
    fn a_scope_the_state_does_not_offer_is_refused() {
        let mut state = unselected();
        let mut dialog = ExportDialog::default();
        dialog.apply(ExportCommand::Open, &state);
        let refused = dialog.apply(ExportCommand::SetScope(ScopeChoice::Activity), &state);
        assert!(
            refused
                .error
                .as_deref()
                .is_some_and(|e| e.contains("select an activity")),
            "{refused:?}"
        );
        let refused = dialog.apply(ExportCommand::SetScope(ScopeChoice::Range), &state);
        assert!(
            refused
                .error
                .as_deref()
                .is_some_and(|e| e.contains("marks A and B")),
            "{refused:?}"
        );
        assert_eq!(dialog.scope(), ScopeChoice::Whole, "unchanged");
        state.apply(vec![Command::SelectActivity(Some("a-1".into()))]);
        let accepted = dialog.apply(ExportCommand::SetScope(ScopeChoice::Activity), &state);
        assert_eq!(accepted, ExportResponse::default());
        assert_eq!(dialog.scope(), ScopeChoice::Activity);
    }

    #[test]
    fn running_with_an_empty_path_is_an_error_that_says_so() {
        let state = unselected();
        let mut dialog = ExportDialog::default();
        dialog.apply(ExportCommand::Open, &state);
        dialog.apply(ExportCommand::SetPath("   ".into()), &state);
        assert!(dialog.not_ready(&state).is_some());
        let response = dialog.apply(ExportCommand::Run, &state);
        assert_eq!(response.written, None);
        let error = response.error.expect("an error");
        assert!(error.contains("path is empty"), "{error}");
        assert_eq!(dialog.result(), Some(&Err(error)));
    }

    #[test]
    fn running_writes_what_the_export_command_writes() {
        let dir = temp_dir("run");
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/demo.jsonl");
        let mut state = AppState::default();
        state.open_now(&source, None);
        state.apply(vec![
            Command::SelectActivity(Some("plan-1".into())),
            Command::Time(TimeCommand::Set(Seq::new(40))),
        ]);
        let mut dialog = ExportDialog::default();
        dialog.apply(ExportCommand::Open, &state);
        assert_eq!(dialog.scope(), ScopeChoice::Activity);
        let out = dir.join("repro.jsonl");
        dialog.apply(ExportCommand::SetFormat(Format::Jsonl), &state);
        dialog.apply(ExportCommand::SetPath(out.display().to_string()), &state);
        assert_eq!(dialog.not_ready(&state), None);
        let response = dialog.apply(ExportCommand::Run, &state);
        assert_eq!(
            response.written.as_deref(),
            Some(out.as_path()),
            "{response:?}"
        );
        assert!(
            matches!(dialog.result(), Some(Ok(message)) if message.contains("Wrote")),
            "{:?}",
            dialog.result()
        );
        let written = std::fs::read(&out).expect("the dialog wrote the file");

        let by_command = dir.join("by-command.jsonl");
        let cli = crate::cli::Cli::try_parse_from([
            "agui-replay",
            "export",
            source.to_str().unwrap(),
            "--message",
            "plan-1",
            "--to",
            "40",
            "--format",
            "jsonl",
            "--out",
            by_command.to_str().unwrap(),
        ])
        .expect("a command line");
        assert_eq!(crate::cli::run(cli).expect("runs"), 0);
        assert_eq!(written, std::fs::read(&by_command).expect("written"));

        // The file exists now: without "Replace" it is kept.
        let again = dialog.apply(ExportCommand::Run, &state);
        assert!(
            again.error.as_deref().is_some_and(|e| e.contains("exists")),
            "{again:?}"
        );
        assert_eq!(std::fs::read(&out).expect("kept"), written);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
