//! View › Activity schemas… (issue 42, point 3): the schema folder the app
//! checks the open stream against, as `check --schemas DIR` does (rule S1),
//! and View › Infer from this recording…, which writes one as
//! `schemas infer` does.
//!
//! The folder is kept for the session, and per recording with the recent
//! files ([`SchemaFolders`]): a recording opened again is checked against
//! the folder last chosen for it. No UI toolkit here; the menus and the
//! status bar read [`SchemaSetting`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Seq};
use crate::schemas::{Inference, SchemaSet, StreamCheck};

use super::document::Doc;

/// What View › Activity schemas… and its neighbours ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaCommand {
    /// Check the stream against this folder (replayed again with it).
    Load(PathBuf),
    /// Check nothing any more (View › No activity schemas).
    Clear,
    /// Write the schemas inferred from the open stream into this folder,
    /// then check against it.
    Infer(PathBuf),
}

/// The schema folder in use, if any, loaded.
#[derive(Clone, Debug, Default)]
pub struct SchemaSetting {
    set: Option<Arc<SchemaSet>>,
}

impl SchemaSetting {
    /// The folder checked against, if any.
    pub fn folder(&self) -> Option<&Path> {
        self.set.as_deref().map(|set| set.folder.as_path())
    }

    /// The loaded schemas, shared with the thread that replays.
    pub fn set(&self) -> Option<Arc<SchemaSet>> {
        self.set.clone()
    }

    /// Reads `folder`; on an error (naming the file) the setting is left
    /// as it was.
    pub fn load(&mut self, folder: &Path) -> Result<(), String> {
        let set = SchemaSet::load(folder).map_err(|error| crate::error::error_chain(&error))?;
        self.set = Some(Arc::new(set));
        Ok(())
    }

    /// No folder any more.
    pub fn clear(&mut self) {
        self.set = None;
    }
}

/// The check of `set` on the document's stream, in a replay of their own
/// from step 0 (the engine's replay is not changed for it, rule S1), over
/// the events read so far.
fn check_of(doc: &Doc, set: &SchemaSet) -> StreamCheck {
    let mut check = StreamCheck::new(
        set,
        doc.source.start(doc.options()),
        doc.source.run_input.as_ref(),
    );
    check.feed(set, doc.timeline.events());
    check
}

/// The schema folder chosen for each recording (issue 42): remembered
/// with the recent files, and loaded again when the recording opens again.
/// Keyed by the recording's path as the recent files hold it (canonical).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchemaFolders {
    by_file: BTreeMap<PathBuf, PathBuf>,
}

impl SchemaFolders {
    /// The folder chosen for `file`, if any.
    pub fn folder_for(&self, file: &Path) -> Option<&Path> {
        self.by_file.get(file).map(PathBuf::as_path)
    }

    /// `folder` is the one of `file` from now on.
    pub fn remember(&mut self, file: PathBuf, folder: PathBuf) {
        self.by_file.insert(file, folder);
    }

    /// `file` has no folder any more.
    pub fn forget(&mut self, file: &Path) {
        self.by_file.remove(file);
    }

    /// Keeps only the folders of `files` (the recent files).
    pub fn keep_only(&mut self, files: &[PathBuf]) {
        self.by_file.retain(|file, _| files.contains(file));
    }

    /// As kept between runs: a JSON object from recording to folder,
    /// sorted.
    pub fn to_text(&self) -> String {
        let map: BTreeMap<String, String> = self
            .by_file
            .iter()
            .map(|(file, folder)| (file.display().to_string(), folder.display().to_string()))
            .collect();
        serde_json::to_string_pretty(&map).unwrap_or_default() + "\n"
    }

    /// Read back from [`Self::to_text`]; a text that is not that is none
    /// (the settings are best effort, as the recent files).
    pub fn from_text(text: &str) -> Self {
        let map: BTreeMap<String, String> = serde_json::from_str(text).unwrap_or_default();
        Self {
            by_file: map
                .into_iter()
                .map(|(file, folder)| (PathBuf::from(file), PathBuf::from(folder)))
                .collect(),
        }
    }
}

/// Sets the document's findings for `set` (none without one), counted
/// with its other diagnostics, as `check --schemas` counts them; the
/// events that arrive later are checked by [`check_new_events`].
pub fn attach_findings(doc: &mut Doc, set: Option<Arc<SchemaSet>>) {
    doc.schema_check = set.map(|set| {
        let check = check_of(doc, &set);
        (set, check)
    });
    let findings = doc
        .schema_check
        .as_ref()
        .map_or_else(Vec::new, |(_, check)| check.diagnostics().to_vec());
    doc.set_schema_findings(findings);
}

/// Events of a stream that grew validated per frame (about 20 ms).
pub const EVENTS_PER_FRAME: usize = 5_000;

/// Validates up to `max_events` of the events the document got since its
/// findings were set (a live recording followed, a stream indexed in the
/// background: issue 42), without replaying the others again. Returns
/// `(changed, behind)`: whether a finding was added, and whether events
/// are still to be checked.
pub fn check_new_events(doc: &mut Doc, max_events: usize) -> (bool, bool) {
    let num_events = doc.timeline.len();
    let Some((set, check)) = &mut doc.schema_check else {
        return (false, false);
    };
    if check.num_seen() >= num_events {
        return (false, false);
    }
    let before = check.diagnostics().len();
    check.feed_some(set, doc.timeline.events(), max_events);
    let behind = check.num_seen() < num_events;
    if check.diagnostics().len() == before {
        return (false, behind);
    }
    let findings = check.diagnostics().to_vec();
    doc.set_schema_findings(findings);
    (true, behind)
}

/// The findings at `step` about message `id` (`None`: about the state).
pub fn findings_at<'d>(
    doc: &'d Doc,
    step: Seq,
    id: Option<&'d str>,
) -> impl Iterator<Item = &'d Diagnostic> {
    let all = &doc.schema_findings;
    let from = all.partition_point(|d| d.seq < step);
    all[from..]
        .iter()
        .take_while(move |d| d.seq == step)
        .filter(move |d| d.message_id.as_deref() == id)
}

/// The pointer of a finding inside the activity's content (`/found` for
/// `/content/found`), or inside the state.
pub fn content_pointer(finding: &Diagnostic) -> Option<&str> {
    let path = finding.path.as_deref()?;
    Some(
        path.strip_prefix("/content")
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
            .unwrap_or(path),
    )
}

/// What the schema expected, as the finding says it: the message after
/// its place (`"3" is not of type "integer" (keyword `type`)`).
pub fn expectation(finding: &Diagnostic) -> &str {
    match finding.message.split_once(" at ") {
        Some((_, rest)) => rest.split_once(": ").map_or(rest, |(_, said)| said),
        None => &finding.message,
    }
}

/// Writes the schemas inferred from the document's stream into `folder`
/// (made as needed), as `schemas infer` does; returns the files written.
/// A schema file that exists is not overwritten, and then nothing is
/// written (the CLI does so without `--force`): it may have been edited
/// by hand.
pub fn infer_into(doc: &Doc, folder: &Path) -> Result<Vec<PathBuf>, String> {
    let mut inference = Inference::new();
    inference.see_stream(
        doc.source.start(doc.options()),
        doc.source.run_input.as_ref(),
        doc.timeline.events(),
    );
    let schemas = inference.schemas();
    if schemas.is_empty() {
        return Err(format!(
            "no activity content and no state in this stream: no schema written to {}",
            folder.display()
        ));
    }
    let existing: Vec<String> = schemas
        .iter()
        .map(|s| folder.join(&s.file_name))
        .filter(|path| path.exists())
        .map(|path| path.display().to_string())
        .collect();
    if !existing.is_empty() {
        return Err(format!(
            "not overwriting schema files that may have been edited by hand (choose another folder, or remove them): {}",
            existing.join(", ")
        ));
    }
    std::fs::create_dir_all(folder).map_err(|error| {
        format!(
            "cannot create the folder: {}: {}",
            crate::error::io_cause(&error),
            folder.display()
        )
    })?;
    let mut written = Vec::with_capacity(schemas.len());
    for schema in &schemas {
        let path = folder.join(&schema.file_name);
        std::fs::write(&path, schema.text()).map_err(|error| {
            format!(
                "cannot write the schema: {}: {}",
                crate::error::io_cause(&error),
                path.display()
            )
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::test_support::doc_of;

    const STREAM: [&str; 4] = [
        r#"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"s1","activityType":"web_search","content":{"query":"q","found":1}}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"s1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":"3"}]}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"s1","activityType":"web_search","patch":[{"op":"replace","path":"/found","value":4}]}"#,
    ];

    fn temp_dir(name: &str) -> PathBuf {
        crate::app_model::test_support::temp_dir("schemas", name)
    }

    // Issue 42, rule S1: the finding is at the delta that broke the
    // content, names the content's path, and says what was expected; the
    // folder inferred from the stream itself finds nothing, and inferring
    // into it again is refused.
    #[test]
    fn findings_point_at_the_delta_and_an_inferred_folder_finds_nothing() {
        let dir = temp_dir("model");
        std::fs::write(
            dir.join("web_search.schema.json"),
            r#"{"type":"object","properties":{"found":{"type":"integer"}}}"#,
        )
        .expect("write the schema");
        let mut doc = doc_of(&STREAM);
        let mut setting = SchemaSetting::default();
        setting.load(&dir).expect("load the folder");
        assert_eq!(setting.folder(), Some(dir.as_path()));
        attach_findings(&mut doc, setting.set());
        assert_eq!(doc.schema_findings.len(), 1, "{:?}", doc.schema_findings);
        let warnings = doc.counts.get(crate::diagnostic::Severity::Warning);
        assert!(warnings >= 1, "the finding is counted");
        let finding = &doc.schema_findings[0];
        assert_eq!(finding.seq, Seq::new(3));
        assert_eq!(content_pointer(finding), Some("/found"));
        assert!(expectation(finding).contains("\"integer\""));
        assert_eq!(findings_at(&doc, Seq::new(3), Some("s1")).count(), 1);
        assert_eq!(findings_at(&doc, Seq::new(4), Some("s1")).count(), 0);

        let inferred = dir.join("inferred");
        let written = infer_into(&doc, &inferred).expect("infer");
        assert_eq!(written, [inferred.join("web_search.schema.json")]);
        setting.load(&inferred).expect("load the inferred folder");
        attach_findings(&mut doc, setting.set());
        assert!(doc.schema_findings.is_empty());
        assert_eq!(
            doc.counts.get(crate::diagnostic::Severity::Warning),
            warnings - 1,
            "and no longer counted"
        );
        let refused = infer_into(&doc, &inferred).expect_err("the file exists");
        assert!(refused.contains("web_search.schema.json"), "{refused}");

        setting.clear();
        attach_findings(&mut doc, setting.set());
        assert!(setting.folder().is_none() && doc.schema_findings.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    // Issue 42: the folders per recording go through their text as they
    // were, keep only the recent files', and a text that is not theirs is
    // none.
    #[test]
    fn the_folders_per_recording_round_trip_and_follow_the_recent_files() {
        let mut folders = SchemaFolders::default();
        folders.remember("/r/b.rec".into(), "/schemas/b".into());
        folders.remember("/r/a.rec".into(), "/schemas/a".into());
        folders.remember("/r/a.rec".into(), "/schemas/a2".into());
        let text = folders.to_text();
        assert!(text.find("a.rec") < text.find("b.rec"), "sorted: {text}");
        let back = SchemaFolders::from_text(&text);
        assert_eq!(back, folders);
        assert_eq!(
            back.folder_for(Path::new("/r/a.rec")),
            Some(Path::new("/schemas/a2"))
        );
        folders.keep_only(&[PathBuf::from("/r/b.rec")]);
        assert_eq!(folders.folder_for(Path::new("/r/a.rec")), None);
        assert_eq!(
            folders.folder_for(Path::new("/r/b.rec")),
            Some(Path::new("/schemas/b"))
        );
        folders.forget(Path::new("/r/b.rec"));
        assert_eq!(folders, SchemaFolders::default());
        assert_eq!(
            SchemaFolders::from_text("not json"),
            SchemaFolders::default()
        );
        assert_eq!(SchemaFolders::from_text(""), SchemaFolders::default());
    }

    // An unreadable schema is an error naming the file, and the setting
    // stays as it was.
    #[test]
    fn a_broken_schema_names_its_file_and_keeps_the_setting() {
        let dir = temp_dir("broken");
        std::fs::write(dir.join("web_search.schema.json"), "{ not json").expect("write");
        let mut setting = SchemaSetting::default();
        let error = setting.load(&dir).expect_err("not JSON");
        assert!(error.contains("web_search.schema.json"), "{error}");
        assert!(setting.folder().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
