//! "What if this event were different?" in the app (issue 41): a stack of
//! edits to the open stream (skip an event, replace it with JSON, insert
//! an event before it), each naming a step of the recording, checked as
//! `agui-replay whatif` checks them ([`crate::whatif`]), and a toggle
//! between the stream as recorded and as edited.
//!
//! While the edited view is on, the document's timeline, arrival times,
//! divergences, run input and indexing are the edited stream's, and the
//! recording's are set aside to toggle back: every panel (timeline, lanes,
//! inspector, conversation, state, diagnostics, blame, search, export)
//! reads the edited stream without knowing it. The recording is never
//! modified; its events are read where they lie ([`crate::whatif::EditedEvents`]).
//!
//! The edited replay starts from the recording's checkpoint before the
//! first edit ([`Timeline::shared_prefix`]) and is replayed at once up to
//! the cursor; a long rest is indexed in the background, with progress,
//! as a long stream is on open ([`Indexing`]).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::app_model::document::{Doc, LoadOptions};
use crate::app_model::indexing::{IndexSource, Indexing};
use crate::diagnostic::{Diagnostic, Seq};
use crate::event_log::RawEvents;
use crate::replay::{Lockstep, Options, Replayer};
use crate::schemas::{SchemaSet, StreamCheck};
use crate::store::SessionId;
use crate::timeline::Timeline;
use crate::whatif::{Edit, EditedEvents, Edits, Layout, Origin};

/// What the user asks of the edits. Steps are those shown: of the edited
/// stream while it shows, of the recording otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhatIfCommand {
    /// Leave the event at this step out (step 0: the run input).
    Skip(Seq),
    /// Opens the editor on the event at this step, to replace it.
    Edit(Seq),
    /// Opens the editor to insert an event before this step.
    InsertBefore(Seq),
    /// The editor's text, as typed.
    SetText(String),
    /// Checks the editor's event and, when it is one, applies the edit.
    ApplyEditor,
    /// Closes the editor without editing.
    CancelEditor,
    /// Removes the edit at this index of the stack.
    Remove(usize),
    /// Removes every edit: the recording shows.
    Clear,
    /// Shows the stream as edited, or as recorded.
    Toggle,
    /// Saves the edits into the recording (a `.rec` file only).
    Save,
    /// Shows the edited stream beside the recording (File › Compare
    /// with…, the recording as B), the first divergence first.
    CompareWithRecording,
}

/// What the editor edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditorKind {
    /// The event at the step is replaced.
    Replace,
    /// An event is inserted before the step.
    Insert,
}

/// The JSON editor of an event, open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Editor {
    /// The step shown it was opened on.
    pub step: Seq,
    /// Replace, or insert before.
    pub kind: EditorKind,
    /// The JSON text.
    pub text: String,
    /// Why the text was refused, shown under it.
    pub error: Option<String>,
}

impl Editor {
    /// The window's title.
    pub fn title(&self) -> String {
        match (self.kind, self.step) {
            (EditorKind::Replace, Seq::START) => "Edit the run input (step 0)".to_owned(),
            (EditorKind::Replace, step) => format!("Edit event #{}", step_label(step)),
            (EditorKind::Insert, step) => {
                format!("Insert an event before #{}", step_label(step))
            }
        }
    }
}

/// What a [`WhatIfCommand`] changed, for the app state to act on.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WhatIfResponse {
    /// The stream shown changed (edited, toggled, cleared): everything
    /// derived from it is computed again.
    pub stream_changed: bool,
    /// A message for the status bar.
    pub notice: Option<String>,
    /// Why the command was refused (the editor shows its own).
    pub error: Option<String>,
}

/// The recording's parts of a document while the edited ones show, or the
/// edited ones while the recording shows.
struct Parts {
    timeline: Arc<Timeline>,
    arrival_nanos: Vec<u64>,
    indexing: Option<Indexing>,
    cancelled: Option<u64>,
    divergences: Vec<Diagnostic>,
    schema_findings: Vec<Diagnostic>,
    /// The schema folder's check of these events, fed as they are indexed
    /// (the edited stream's starts at its step 0).
    schema_check: Option<(Arc<SchemaSet>, StreamCheck)>,
    run_input: Option<Value>,
}

impl Parts {
    /// Puts these parts in the document and takes its own.
    fn swap_with(&mut self, doc: &mut Doc) {
        std::mem::swap(&mut self.timeline, &mut doc.timeline);
        std::mem::swap(&mut self.arrival_nanos, &mut doc.arrival_nanos);
        std::mem::swap(&mut self.indexing, &mut doc.indexing);
        std::mem::swap(&mut self.cancelled, &mut doc.cancelled);
        std::mem::swap(&mut self.divergences, &mut doc.divergences);
        std::mem::swap(&mut self.run_input, &mut doc.source.run_input);
        std::mem::swap(&mut self.schema_check, &mut doc.schema_check);
        let findings = std::mem::take(&mut self.schema_findings);
        self.schema_findings = std::mem::take(&mut doc.schema_findings);
        doc.set_schema_findings(findings);
    }
}

/// The edits of the open stream, and which view shows.
#[derive(Default)]
pub struct WhatIf {
    /// The stack, in the order made; each names a step of the recording.
    edits: Vec<Edit>,
    /// Whether the document shows the edited stream.
    showing_edited: bool,
    /// The parts of the view not shown (`None` without edits).
    set_aside: Option<Parts>,
    /// Where each event of the edited stream comes from.
    layout: Arc<Layout>,
    /// The indexing in the background of the rest of the edited stream,
    /// started once the state at the cursor shows
    /// ([`WhatIf::start_indexing`]): the two cores on that first.
    pending: Option<PendingIndexing>,
    /// The JSON editor, when open.
    editor: Option<Editor>,
    /// Edits restored from the recording (or kept over a replay again),
    /// to apply once the recording is whole.
    restored: bool,
}

/// What the indexing of an edited stream starts with.
struct PendingIndexing {
    events: EditedEvents<Shared>,
    total: u64,
    comparison: (Replayer, Replayer),
    plan: crate::app_model::indexing::IndexPlan,
}

/// A step in the app's way: `4,790`.
pub fn step_label(step: Seq) -> String {
    crate::app_model::words::thousands(step.get())
}

impl WhatIf {
    /// The stack of edits, in the order made.
    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    /// Whether the edited stream shows.
    pub fn showing_edited(&self) -> bool {
        self.showing_edited
    }

    /// The editor, when open.
    pub fn editor(&self) -> Option<&Editor> {
        self.editor.as_ref()
    }

    /// Whether the event shown at `step` is not the recorded one (what the
    /// app marks "edited"): only while the edited stream shows.
    pub fn is_edited(&self, step: Seq) -> bool {
        self.origin(step).is_some_and(Origin::is_edited)
    }

    /// Where the event shown at `step` comes from, while the edited stream
    /// shows.
    pub fn origin(&self, step: Seq) -> Option<Origin> {
        if !self.showing_edited {
            return None;
        }
        step.index().and_then(|i| self.layout.origin(i))
    }

    /// A chip's text for an edit: `skip #4,790`, `edit #4,801`, `insert
    /// before #12`, `edit run input`.
    pub fn chip_label(edit: &Edit) -> String {
        match edit {
            Edit::Drop(Seq::START) => "skip run input".to_owned(),
            Edit::Replace(Seq::START, _) => "edit run input".to_owned(),
            Edit::Drop(step) => format!("skip #{}", step_label(*step)),
            Edit::Replace(step, _) => format!("edit #{}", step_label(*step)),
            Edit::Insert(step, _) => format!("insert before #{}", step_label(*step)),
        }
    }

    /// The document changed: another stream forgets the edits, and loads
    /// those its recording saved (shown once it is whole); the same one
    /// replayed again (another profile) takes them again.
    pub fn opened(&mut self, same_stream: bool, doc: &Doc) -> Option<String> {
        self.set_aside = None;
        self.layout = Arc::default();
        self.pending = None;
        self.editor = None;
        self.showing_edited = false;
        if !same_stream {
            self.edits.clear();
            self.restored = false;
            let (edits, error) = load_saved(doc);
            self.edits = edits;
            self.restored = !self.edits.is_empty();
            return error;
        }
        self.restored = !self.edits.is_empty();
        None
    }

    /// Starts indexing the rest of the edited stream in the background, if
    /// it waits for that and shows (after the state at the cursor did).
    pub fn start_indexing(&mut self, doc: &mut Doc) {
        if !self.showing_edited || doc.indexing.is_some() {
            return;
        }
        let Some(pending) = self.pending.take() else {
            return;
        };
        // The recording's arrival times, set aside while the edits show.
        let recorded_arrivals = self
            .set_aside
            .as_ref()
            .map(|parts| parts.arrival_nanos.clone())
            .unwrap_or_default();
        doc.indexing = Some(Indexing::start(
            Timeline::clone(&doc.timeline),
            EditedSource {
                events: pending.events,
                recorded_arrivals,
            },
            pending.total,
            pending.comparison,
            pending.plan,
        ));
    }

    /// Applies edits waiting for the recording to be whole (restored from
    /// it, or kept over a replay again), once it is.
    pub fn resume(&mut self, doc: &mut Doc, cursor: Seq, load: LoadOptions) -> WhatIfResponse {
        if !self.restored || !doc.is_whole() || doc.live {
            return WhatIfResponse::default();
        }
        self.restored = false;
        let edits = std::mem::take(&mut self.edits);
        match self.rebuild(edits, doc, cursor, load) {
            Ok(()) => WhatIfResponse {
                stream_changed: true,
                notice: Some(format!(
                    "{} applied: press E to see the recording",
                    edits_in_words(self.edits.len())
                )),
                error: None,
            },
            Err(error) => WhatIfResponse {
                error: Some(format!("the saved edits do not fit this stream: {error}")),
                ..WhatIfResponse::default()
            },
        }
    }

    /// Applies a command to the open document (its cursor at `cursor`).
    pub fn apply(
        &mut self,
        command: WhatIfCommand,
        doc: &mut Doc,
        cursor: Seq,
        load: LoadOptions,
    ) -> WhatIfResponse {
        let refused = |error: String| WhatIfResponse {
            error: Some(error),
            ..WhatIfResponse::default()
        };
        match command {
            WhatIfCommand::Skip(step) => {
                let mut edits = self.edits.clone();
                match self.locate(step) {
                    Located::Recorded(seq) => edits.push(Edit::Drop(seq)),
                    Located::Existing(i) => match &edits[i] {
                        Edit::Replace(seq, _) => edits[i] = Edit::Drop(*seq),
                        Edit::Insert(..) => {
                            edits.remove(i);
                        }
                        Edit::Drop(_) => return WhatIfResponse::default(),
                    },
                }
                self.try_edits(edits, doc, cursor, load)
                    .unwrap_or_else(refused)
            }
            WhatIfCommand::Edit(step) | WhatIfCommand::InsertBefore(step) => {
                let kind = match command {
                    WhatIfCommand::Edit(_) => EditorKind::Replace,
                    _ => EditorKind::Insert,
                };
                if kind == EditorKind::Insert && step == Seq::START {
                    return refused(
                        "nothing goes before the run input (step 0): insert before step 1".into(),
                    );
                }
                match event_text(doc, step) {
                    Some(text) => {
                        self.editor = Some(Editor {
                            step,
                            kind,
                            text,
                            error: None,
                        });
                        WhatIfResponse::default()
                    }
                    None if kind == EditorKind::Insert => {
                        self.editor = Some(Editor {
                            step,
                            kind,
                            text: "{\n  \"type\": \"CUSTOM\",\n  \"name\": \"\",\n  \"value\": null\n}"
                                .to_owned(),
                            error: None,
                        });
                        WhatIfResponse::default()
                    }
                    None => refused(format!("step {step} has no event to edit")),
                }
            }
            WhatIfCommand::SetText(text) => {
                if let Some(editor) = &mut self.editor {
                    editor.text = text;
                    editor.error = None;
                }
                WhatIfResponse::default()
            }
            WhatIfCommand::ApplyEditor => {
                let Some(editor) = self.editor.clone() else {
                    return WhatIfResponse::default();
                };
                let mut edits = self.edits.clone();
                let text = editor.text.clone();
                match (editor.kind, self.locate(editor.step)) {
                    (EditorKind::Replace, Located::Recorded(seq)) => {
                        edits.push(Edit::Replace(seq, text));
                    }
                    (EditorKind::Replace, Located::Existing(i)) => {
                        edits[i] = match &edits[i] {
                            Edit::Insert(before, _) => Edit::Insert(*before, text),
                            other => Edit::Replace(other.step(), text),
                        };
                    }
                    (EditorKind::Insert, Located::Recorded(seq)) => {
                        edits.push(Edit::Insert(seq, text));
                    }
                    (EditorKind::Insert, Located::Existing(i)) => {
                        let before = edits[i].step();
                        // Before an inserted event: in front of it.
                        let at = if matches!(edits[i], Edit::Insert(..)) {
                            i
                        } else {
                            edits.len()
                        };
                        edits.insert(at, Edit::Insert(before, text));
                    }
                }
                match self.try_edits(edits, doc, cursor, load) {
                    Ok(response) => {
                        self.editor = None;
                        response
                    }
                    Err(error) => {
                        if let Some(editor) = &mut self.editor {
                            editor.error = Some(error);
                        }
                        WhatIfResponse::default()
                    }
                }
            }
            WhatIfCommand::CancelEditor => {
                self.editor = None;
                WhatIfResponse::default()
            }
            WhatIfCommand::Remove(i) => {
                if i >= self.edits.len() {
                    return WhatIfResponse::default();
                }
                let mut edits = self.edits.clone();
                edits.remove(i);
                self.try_edits(edits, doc, cursor, load)
                    .unwrap_or_else(refused)
            }
            WhatIfCommand::Clear => {
                if self.edits.is_empty() {
                    return WhatIfResponse::default();
                }
                self.try_edits(Vec::new(), doc, cursor, load)
                    .unwrap_or_else(refused)
            }
            WhatIfCommand::Toggle => {
                let Some(parts) = &mut self.set_aside else {
                    return refused(
                        "no edits yet: skip or edit an event first (right-click it)".into(),
                    );
                };
                parts.swap_with(doc);
                self.showing_edited = !self.showing_edited;
                WhatIfResponse {
                    stream_changed: true,
                    notice: Some(
                        if self.showing_edited {
                            "showing the stream as edited"
                        } else {
                            "showing the stream as recorded"
                        }
                        .to_owned(),
                    ),
                    error: None,
                }
            }
            // The app state opens the comparison (it holds it).
            WhatIfCommand::CompareWithRecording => WhatIfResponse::default(),
            WhatIfCommand::Save => match save(doc, &self.edits) {
                Ok(notice) => WhatIfResponse {
                    notice: Some(notice),
                    ..WhatIfResponse::default()
                },
                Err(error) => refused(error),
            },
        }
    }

    /// Which recorded step, or which edit, the step shown names.
    fn locate(&self, shown: Seq) -> Located {
        if shown == Seq::START || !self.showing_edited {
            // The recording shows: an edit of this step already made is
            // the one changed.
            return match self
                .edits
                .iter()
                .position(|e| e.step() == shown && !matches!(e, Edit::Insert(..)))
            {
                Some(i) => Located::Existing(i),
                None => Located::Recorded(shown),
            };
        }
        let Some(index) = shown.index() else {
            return Located::Recorded(shown);
        };
        match self.layout.origin(index).as_ref() {
            None => Located::Recorded(shown),
            Some(Origin::Recorded(seq)) => Located::Recorded(*seq),
            Some(Origin::Replaced(seq)) => self
                .edits
                .iter()
                .position(|e| matches!(e, Edit::Replace(s, _) if s == seq))
                .map_or(Located::Recorded(*seq), Located::Existing),
            Some(Origin::Inserted { before }) => {
                // The how-manieth insert before that step it is.
                let nth = (0..index)
                    .rev()
                    .map_while(|i| self.layout.origin(i))
                    .take_while(|o| matches!(o, Origin::Inserted { before: b } if b == before))
                    .count();
                self.edits
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| matches!(e, Edit::Insert(s, _) if s == before))
                    .nth(nth)
                    .map_or(Located::Recorded(*before), |(i, _)| Located::Existing(i))
            }
        }
    }

    /// Checks `edits` against the recording and, when they fit, shows the
    /// stream they make (the recording, without any).
    fn try_edits(
        &mut self,
        edits: Vec<Edit>,
        doc: &mut Doc,
        cursor: Seq,
        load: LoadOptions,
    ) -> Result<WhatIfResponse, String> {
        let was_showing = self.showing_edited;
        self.rebuild(edits, doc, cursor, load)?;
        let notice = match (self.edits.len(), was_showing) {
            (0, _) => "edits cleared: the stream as recorded".to_owned(),
            (n, false) => format!("{}: showing the stream as edited", edits_in_words(n)),
            (n, true) => edits_in_words(n),
        };
        Ok(WhatIfResponse {
            stream_changed: true,
            notice: Some(notice),
            error: None,
        })
    }

    /// Shows the stream `edits` make of the recording (the recording
    /// itself without any); nothing changes when they do not fit it.
    fn rebuild(
        &mut self,
        edits: Vec<Edit>,
        doc: &mut Doc,
        cursor: Seq,
        load: LoadOptions,
    ) -> Result<(), String> {
        let (recorded, recorded_arrivals, recorded_input) =
            match (&self.set_aside, self.showing_edited) {
                (Some(parts), true) => (
                    Arc::clone(&parts.timeline),
                    &parts.arrival_nanos,
                    parts.run_input.clone(),
                ),
                _ => (
                    Arc::clone(&doc.timeline),
                    &doc.arrival_nanos,
                    doc.source.run_input.clone(),
                ),
            };
        let recorded_is_whole = match (&self.set_aside, self.showing_edited) {
            (Some(parts), true) => parts.indexing.as_ref().is_none_or(|i| i.comparing),
            _ => doc.is_whole(),
        };
        if !edits.is_empty() && (!recorded_is_whole || doc.live) {
            return Err(if doc.live {
                "a live recording cannot be edited: edit it once it is finished".to_owned()
            } else {
                "the recording is still being indexed: edit it once it is whole".to_owned()
            });
        }
        let checked = Edits::new(edits, recorded.len(), recorded_input.is_some())
            .map_err(|e| e.to_string())?;
        let edited = (!checked.is_empty()).then(|| {
            edited_parts(
                &checked,
                Recorded {
                    timeline: &recorded,
                    arrivals: recorded_arrivals,
                    input: recorded_input.as_ref(),
                    schemas: doc.schema_check.as_ref().map(|(set, _)| Arc::clone(set)),
                },
                doc.options(),
                cursor,
                load,
            )
        });
        // Back to the recording, then to the new edited stream.
        if self.showing_edited
            && let Some(parts) = &mut self.set_aside
        {
            parts.swap_with(doc);
        }
        self.showing_edited = false;
        // The edited stream replaced: freed off the frame's path.
        if let Some(old) = self.set_aside.take() {
            crate::timeline::drop_in_background(old);
        }
        self.layout = Arc::default();
        self.pending = None;
        if let Some((mut parts, layout, pending)) = edited {
            parts.swap_with(doc);
            self.set_aside = Some(parts);
            self.layout = layout;
            self.pending = pending;
            self.showing_edited = true;
        }
        self.edits = checked.edits().to_vec();
        Ok(())
    }
}

/// What a step shown names.
enum Located {
    /// A recorded step no edit changes yet.
    Recorded(Seq),
    /// The edit at this index of the stack.
    Existing(usize),
}

/// `1 edit`, `3 edits`.
fn edits_in_words(n: usize) -> String {
    match n {
        1 => "1 edit".to_owned(),
        n => format!("{n} edits"),
    }
}

/// The JSON of the event shown at `step` (step 0: the run input),
/// re-indented.
fn event_text(doc: &Doc, step: Seq) -> Option<String> {
    if step == Seq::START {
        return doc
            .source
            .run_input
            .as_ref()
            .and_then(|input| serde_json::to_string_pretty(input).ok());
    }
    let raw = doc.raw(step)?;
    let text = String::from_utf8_lossy(&raw);
    // Members in the order sent, as the inspector's Pretty shows them; a
    // text that is not JSON as it is.
    Some(match serde_json::from_str::<serde::de::IgnoredAny>(&text) {
        Ok(_) => crate::app_model::json_text::pretty_raw(&text),
        Err(_) => text.into_owned(),
    })
}

/// The recording's events, shared with the thread that indexes the
/// edited stream.
struct Shared(Arc<Timeline>);

impl RawEvents for Shared {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn for_each_raw(&self, indices: std::ops::Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        self.0.events().for_each_raw(indices, each);
    }
}

/// The edited stream, read over the recording's events, and its arrival
/// times: what the indexing thread reads.
struct EditedSource {
    events: EditedEvents<Shared>,
    /// The recording's arrival times (index 0 is step 1).
    recorded_arrivals: Vec<u64>,
}

impl RawEvents for EditedSource {
    fn len(&self) -> usize {
        self.events.len()
    }

    fn for_each_raw(&self, indices: std::ops::Range<usize>, each: &mut dyn FnMut(Seq, &[u8])) {
        self.events.for_each_raw(indices, each);
    }
}

impl IndexSource for EditedSource {
    fn arrivals(&mut self, indices: std::ops::Range<usize>) -> Result<Vec<u64>, String> {
        Ok(self
            .events
            .layout()
            .arrivals(indices, &self.recorded_arrivals))
    }

    fn read_error(&self) -> Option<String> {
        self.events.recorded().0.events().read_error()
    }
}

/// What the edited stream is made from: the recording's timeline, arrival
/// times and run input, and the schema folder it is checked against.
struct Recorded<'r> {
    timeline: &'r Arc<Timeline>,
    arrivals: &'r [u64],
    input: Option<&'r Value>,
    schemas: Option<Arc<SchemaSet>>,
}

/// The edited stream's parts: its timeline from the recording's
/// checkpoint before the first edit, replayed at once up to `cursor` (the
/// whole of a short stream), the rest indexed in the background.
fn edited_parts(
    edits: &Edits,
    recorded: Recorded<'_>,
    options: Options,
    cursor: Seq,
    load: LoadOptions,
) -> (Parts, Arc<Layout>, Option<PendingIndexing>) {
    let Recorded {
        timeline: recorded,
        arrivals: recorded_arrivals,
        input: recorded_input,
        schemas,
    } = recorded;
    let events = edits.over(Shared(Arc::clone(recorded)));
    let layout = Arc::clone(events.layout());
    let run_input = edits.run_input(recorded_input);
    let start = |options| match &run_input {
        Some(input) => Replayer::with_run_input(options, input),
        None => Replayer::new(options),
    };
    // Checked from step 0 as the events are indexed, a few a frame (issue
    // 42's check of a stream indexed in the background).
    let schema_check = schemas.map(|set| {
        let check = StreamCheck::new(&set, start(options), run_input.as_ref());
        (set, check)
    });
    let first = edits.first_step().unwrap_or(Seq::START);
    let mut timeline = match first {
        // The run input changes step 0 itself.
        Seq::START => Timeline::starting_from(start(options))
            .replay_unfinished(crate::event_log::EventLog::default()),
        first => recorded.shared_prefix(first),
    };
    let total = events.len();
    let comparison = (start(options), start(Lockstep::other_options(options)));
    if total <= load.sync_events {
        timeline.extend_from(&events, total);
        timeline.finish();
        let divergences = crate::replay::replay_comparing(comparison.0, comparison.1, &events).1;
        let parts = Parts {
            timeline: Arc::new(timeline),
            arrival_nanos: layout.arrivals(0..total, recorded_arrivals),
            indexing: None,
            cancelled: None,
            divergences,
            schema_findings: Vec::new(),
            schema_check,
            run_input,
        };
        return (parts, layout, None);
    }
    // The state at the cursor at once; the rest in the background.
    let to = (cursor.get() as usize + 1).min(total);
    timeline.extend_from(&events, to.saturating_sub(timeline.len()));
    let shown = layout.arrivals(0..timeline.len(), recorded_arrivals);
    let pending = PendingIndexing {
        events,
        total: total as u64,
        comparison,
        plan: load.plan,
    };
    let parts = Parts {
        timeline: Arc::new(timeline),
        arrival_nanos: shown,
        indexing: None,
        cancelled: None,
        divergences: Vec::new(),
        schema_findings: Vec::new(),
        schema_check,
        run_input,
    };
    (parts, layout, Some(pending))
}

/// The recording and session edits are saved in, or why there is none.
fn saved_in(doc: &Doc) -> Result<(&std::path::Path, SessionId), String> {
    match (&doc.recording, &doc.source.session) {
        (Some(_), Some(session)) => Ok((&doc.path, session.id)),
        _ => Err(format!(
            "edits are saved only in recordings (.rec); {} is not one: export the edited \
             stream instead (File › Export…)",
            doc.path.file_name().map_or_else(
                || doc.path.display().to_string(),
                |n| n.to_string_lossy().into_owned()
            )
        )),
    }
}

/// Saves the edits into the document's recording; the message to show.
fn save(doc: &Doc, edits: &[Edit]) -> Result<String, String> {
    let (path, session) = saved_in(doc)?;
    let text = (!edits.is_empty()).then(|| edits_to_text(edits));
    crate::store::save_edits(path, session, text.as_deref())
        .map_err(|e| crate::error::error_chain(&e))?;
    Ok(match edits.len() {
        0 => format!("no edits saved in {}", path.display()),
        n => format!("{} saved in {}", edits_in_words(n), path.display()),
    })
}

/// The edits as saved: a JSON array of `{"edit", "step", "text"}`.
pub fn edits_to_text(edits: &[Edit]) -> String {
    let list: Vec<Value> = edits
        .iter()
        .map(|edit| {
            let mut value = json!({ "edit": edit.kind(), "step": edit.step().get() });
            if let (Some(text), Value::Object(map)) = (edit.text(), &mut value) {
                map.insert("text".into(), Value::String(text.to_owned()));
            }
            value
        })
        .collect();
    Value::Array(list).to_string()
}

/// The edits [`edits_to_text`] wrote, or why the text holds none.
pub fn edits_from_text(text: &str) -> Result<Vec<Edit>, String> {
    let list: Vec<Value> =
        serde_json::from_str(text).map_err(|e| format!("the saved edits are not JSON ({e})"))?;
    list.iter()
        .map(|item| {
            let step = item
                .get("step")
                .and_then(Value::as_u64)
                .map(Seq::new)
                .ok_or("a saved edit has no step")?;
            let text = item.get("text").and_then(Value::as_str).map(str::to_owned);
            match (item.get("edit").and_then(Value::as_str), text) {
                (Some("drop"), _) => Ok(Edit::Drop(step)),
                (Some("replace"), Some(text)) => Ok(Edit::Replace(step, text)),
                (Some("insert"), Some(text)) => Ok(Edit::Insert(step, text)),
                _ => Err("a saved edit is not a drop, replace or insert".to_owned()),
            }
        })
        .collect()
}

/// The edits the document's recording saved, and why they could not be
/// read if they could not.
fn load_saved(doc: &Doc) -> (Vec<Edit>, Option<String>) {
    let (Some(recording), Some(session)) = (&doc.recording, &doc.source.session) else {
        return (Vec::new(), None);
    };
    match recording
        .saved_edits(session.id)
        .map_err(|e| crate::error::error_chain(&e))
        .and_then(|text| text.map_or(Ok(Vec::new()), |t| edits_from_text(&t)))
    {
        Ok(edits) => (edits, None),
        Err(error) => (Vec::new(), Some(error)),
    }
}

#[cfg(test)]
mod tests {
    // The edits of the open stream, with no UI context (issue 41).
    use super::*;
    use crate::app_model::command::Command;
    use crate::app_model::state::AppState;
    use crate::app_model::test_support::doc_of;
    use crate::app_model::time_control::TimeCommand;

    const DEMO: &str = include_str!("../../recordings/demo.jsonl");

    fn demo_at(step: u64) -> AppState {
        let lines: Vec<&str> = DEMO.lines().collect();
        let mut state = AppState::default();
        state.install_doc(doc_of(&lines));
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(step)))]);
        state
    }

    fn whatif(command: WhatIfCommand) -> Command {
        Command::WhatIf(command)
    }

    fn failed_patches(state: &AppState) -> usize {
        state
            .doc()
            .expect("a document")
            .diagnostics()
            .filter(|d| d.code.as_str() == "activity.patch.failed")
            .count()
    }

    #[test]
    fn skipping_the_failed_delta_removes_its_failure_and_toggling_restores_it() {
        let mut state = demo_at(16);
        assert_eq!(failed_patches(&state), 1);
        let recorded_len = state.doc().unwrap().num_events();
        state.apply(vec![whatif(WhatIfCommand::Skip(Seq::new(16)))]);
        assert!(state.whatif().showing_edited());
        assert_eq!(state.whatif().edits(), [Edit::Drop(Seq::new(16))]);
        assert_eq!(failed_patches(&state), 0);
        assert_eq!(state.doc().unwrap().num_events(), recorded_len - 1);
        // The step shown at 16 is now the recording's 17.
        assert_eq!(
            state.whatif().origin(Seq::new(16)),
            Some(Origin::Recorded(Seq::new(17)))
        );
        state.apply(vec![whatif(WhatIfCommand::Toggle)]);
        assert!(!state.whatif().showing_edited());
        assert_eq!(failed_patches(&state), 1);
        assert_eq!(state.doc().unwrap().num_events(), recorded_len);
        state.apply(vec![whatif(WhatIfCommand::Toggle)]);
        assert_eq!(failed_patches(&state), 0);
        state.apply(vec![whatif(WhatIfCommand::Clear)]);
        assert!(!state.whatif().showing_edited() && state.whatif().edits().is_empty());
        assert_eq!(failed_patches(&state), 1);
    }

    #[test]
    fn an_invalid_event_is_refused_in_the_editor_and_nothing_changes() {
        let mut state = demo_at(15);
        state.apply(vec![whatif(WhatIfCommand::Edit(Seq::new(15)))]);
        let editor = state.whatif().editor().expect("the editor opens");
        // The members in the order sent, one a line.
        assert!(
            editor
                .text
                .starts_with("{\n  \"type\": \"ACTIVITY_DELTA\","),
            "{}",
            editor.text
        );
        for text in ["{ not json", r#"{"no":"type"}"#] {
            state.apply(vec![
                whatif(WhatIfCommand::SetText(text.into())),
                whatif(WhatIfCommand::ApplyEditor),
            ]);
            let error = state.whatif().editor().and_then(|e| e.error.clone());
            assert!(error.is_some(), "{text} is refused in place");
            assert!(state.whatif().edits().is_empty());
            assert!(!state.whatif().showing_edited());
        }
        assert_eq!(failed_patches(&state), 1);
        state.apply(vec![whatif(WhatIfCommand::CancelEditor)]);
        assert!(state.whatif().editor().is_none());
    }

    #[test]
    fn edits_of_edited_steps_change_their_edit_and_steps_name_the_recording() {
        let mut state = demo_at(2);
        let snapshot = r#"{"type":"STATE_SNAPSHOT","snapshot":{"city":"Porto"}}"#;
        state.apply(vec![
            whatif(WhatIfCommand::InsertBefore(Seq::new(2))),
            whatif(WhatIfCommand::SetText(
                r#"{"type":"CUSTOM","name":"x","value":1}"#.into(),
            )),
            whatif(WhatIfCommand::ApplyEditor),
        ]);
        assert!(state.whatif().editor().is_none());
        assert!(state.whatif().is_edited(Seq::new(2)));
        // The snapshot is shown at step 3 now; editing it edits step 2.
        state.apply(vec![
            whatif(WhatIfCommand::Edit(Seq::new(3))),
            whatif(WhatIfCommand::SetText(snapshot.into())),
            whatif(WhatIfCommand::ApplyEditor),
        ]);
        assert_eq!(
            state.whatif().edits()[1],
            Edit::Replace(Seq::new(2), snapshot.into())
        );
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(3)))]);
        let city = state.view().unwrap().at.state().get("city").cloned();
        assert_eq!(city, Some(Value::String("Porto".into())));
        // Skipping the inserted event removes its edit.
        state.apply(vec![whatif(WhatIfCommand::Skip(Seq::new(2)))]);
        assert_eq!(
            state.whatif().edits(),
            [Edit::Replace(Seq::new(2), snapshot.into())]
        );
        state.apply(vec![whatif(WhatIfCommand::Remove(0))]);
        assert!(state.whatif().edits().is_empty());
        assert!(!state.whatif().showing_edited());
    }

    #[test]
    fn saved_edits_read_back() {
        let edits = vec![
            Edit::Drop(Seq::new(16)),
            Edit::Replace(Seq::START, "{\"messages\":[]}".into()),
            Edit::Insert(Seq::new(3), "{\"type\":\"CUSTOM\"}".into()),
        ];
        assert_eq!(edits_from_text(&edits_to_text(&edits)), Ok(edits));
        assert!(edits_from_text("[{\"edit\":\"move\",\"step\":1}]").is_err());
        assert!(edits_from_text("nope").is_err());
    }

    #[test]
    fn a_stream_file_says_edits_are_saved_only_in_recordings() {
        let mut state = demo_at(16);
        state.apply(vec![
            whatif(WhatIfCommand::Skip(Seq::new(16))),
            whatif(WhatIfCommand::Save),
        ]);
        let error = state.error().expect("refused");
        assert!(error.contains("only in recordings"), "{error}");
    }

    #[test]
    fn a_long_stream_shows_the_cursor_at_once_and_indexes_the_rest() {
        // Issue 41: the edited replay starts from the checkpoint before
        // the first edit and only replays up to the cursor before showing.
        let mut lines = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned()];
        for i in 0..3_000 {
            lines.push(format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"/k{}","value":{i}}}]}}"#,
                i % 50
            ));
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut state = AppState::default();
        let mut load = state.load_options();
        load.sync_events = 100;
        load.plan.chunk_events = 200;
        load.plan.paced = true;
        state.set_load_options(load);
        state.install_doc(doc_of(&lines));
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(1_500)))]);
        state.apply(vec![whatif(WhatIfCommand::Edit(Seq::new(1_500)))]);
        let text = r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/edited","value":true}]}"#;
        state.apply(vec![
            whatif(WhatIfCommand::SetText(text.into())),
            whatif(WhatIfCommand::ApplyEditor),
        ]);
        let doc = state.doc().unwrap();
        assert!(
            doc.indexing.is_some(),
            "the rest is indexed in the background"
        );
        assert!(doc.num_events() < 3_001, "{}", doc.num_events());
        let view = state.view().unwrap();
        assert_eq!(view.step, Seq::new(1_500));
        assert_eq!(view.at.state().get("edited"), Some(&Value::Bool(true)));
        state.wait_for_indexing();
        assert_eq!(state.doc().unwrap().num_events(), 3_001);
        state.apply(vec![Command::Time(TimeCommand::Set(Seq::new(3_001)))]);
        let view = state.view().unwrap();
        assert_eq!(view.at.state().get("edited"), Some(&Value::Bool(true)));
        assert!(view.at.state().get("k0").is_some());
    }
}
