//! What a panel asks for: every change to [`super::AppState`] is one of
//! these, applied once per frame, so clicks, keys and tests take one path.

use std::path::PathBuf;

use super::state::{EventFilter, TimelineRange};
use super::time_control::TimeCommand;
use crate::app_model::notes::AnnotationId;
use crate::diagnostic::Seq;
use crate::protocol::ProtocolVersion;
use crate::replay::Profile;
use crate::search::Query;

/// Which mark a command sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkSlot {
    /// The earlier point of a diff.
    A,
    /// The later point of a diff.
    B,
}

/// What the diff view compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffScopeChoice {
    /// The selected activity (or message).
    #[default]
    Activity,
    /// Every message.
    Conversation,
    /// The shared state.
    State,
}

/// The centre's tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CentralTab {
    /// The conversation at the cursor.
    #[default]
    Conversation,
    /// Marks A and B compared.
    Diff,
    /// How the stream spent its time (issue 17.3).
    Timing,
    /// The stream shown (A) beside another (B): File › Compare with….
    Compare,
}

/// Where a search starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchFrom {
    /// The first match in the stream.
    First,
    /// The first match after the cursor.
    Next,
    /// The last match before the cursor.
    Previous,
}

/// What a panel asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Move the cursor, play or pause: the time control's commands.
    Time(TimeCommand),
    /// Pin an activity (or message) in the inspector (and the timeline
    /// lane, the diff's "the activity"); `None` follows the current event
    /// again (issue 13.1).
    SelectActivity(Option<String>),
    /// Pin what the inspector shows now (`true`), or follow the current
    /// event again (`false`).
    PinInspected(bool),
    /// Replay with another profile (the cursor stays).
    SetProfile(Profile),
    /// Replay as a consumer of another protocol version (the cursor stays;
    /// `spec` only: the client profile is a 1.0 consumer, P6).
    SetProtocol(ProtocolVersion),
    /// Replay with best effort on or off (the cursor stays).
    SetBestEffort(bool),
    /// Open a file.
    Open(PathBuf),
    /// Show another session of the recording.
    PickSession(i64),
    /// The event list's filter.
    SetEventFilter(EventFilter),
    /// The diagnostics panel's filter.
    SetDiagnosticsFilter(String),
    /// The timeline's visible range.
    SetTimelineRange(TimelineRange),
    /// The timeline read in recorded time (true) or in steps (issue 43);
    /// refused for a stream without recorded times.
    SetTimelineInTime(bool),
    /// Dismiss the error banner.
    DismissError,
    /// A short message in the status bar (copied, saved…).
    Notify(String),
    /// Marks A and B: the diff's two points.
    Mark(MarkCommand),
    /// What the diff compares.
    SetDiffScope(DiffScopeChoice),
    /// The centre's tab.
    ShowCentral(CentralTab),
    /// The diff over the whole window (the side panels hidden), or not.
    SetWideDiff(bool),
    /// Bookmarks and notes.
    Note(NoteCommand),
    /// Search over time.
    Search(SearchCommand),
    /// Stops indexing a long stream in the background, keeping the events
    /// indexed so far (issue 13, point 9).
    CancelIndexing,
    /// The comparison with a second stream (File › Compare with…).
    Compare(crate::app_model::compare_with::CompareCommand),
    /// The schema folder the contents are checked against (View ›
    /// Activity schemas…, issue 42).
    Schemas(crate::app_model::schemas::SchemaCommand),
    /// "What if this event were different?": the edits of the stream and
    /// the toggle between recorded and edited (issue 41).
    WhatIf(crate::app_model::whatif::WhatIfCommand),
}

/// What the marks A and B (the diff's two points) are asked.
#[derive(Clone, Debug, PartialEq)]
pub enum MarkCommand {
    /// Put mark A (or B) at a step; `None` removes it.
    Set(MarkSlot, Option<Seq>),
    /// Put a mark at the cursor; with both marks set, the diff shows.
    AtCursor(MarkSlot),
    /// Put both marks (a drag over a range of the timeline), and show the
    /// diff.
    SetBoth(Seq, Seq),
    /// Marks A at the step before the cursor and B at the cursor, and shows
    /// the diff.
    DiffWithPrevious,
}

/// What the bookmarks and notes are asked.
#[derive(Clone, Debug, PartialEq)]
pub enum NoteCommand {
    /// A bookmark at the cursor (labelled with the step, or the text given).
    AddBookmark(Option<String>),
    /// A new label for a bookmark.
    RenameBookmark(AnnotationId, String),
    /// Removes a bookmark.
    DeleteBookmark(AnnotationId),
    /// To the next bookmark after the cursor.
    NextBookmark,
    /// To the previous bookmark before the cursor.
    PreviousBookmark,
    /// A note at the cursor, on the selected activity if any.
    AddNote(String),
    /// A new text for a note.
    EditNote(AnnotationId, String),
    /// Removes a note.
    DeleteNote(AnnotationId),
}

/// What the search over time is asked.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchCommand {
    /// Starts a search (the running one, if any, stops).
    Start(Query, SearchFrom),
    /// Finds every match, on a thread (the list being found, if any, is
    /// dropped).
    All(Query),
    /// Stops the running search, and the "find all" (its matches so far
    /// stay).
    Cancel,
    /// Fills the search tab (a message, or the state; a pointer) and shows
    /// it: "find the steps where this changes" from a JSON tree.
    Prefill {
        /// The message searched (`None`: the state).
        message: Option<String>,
        /// The pointer, into the message as `state --message` prints it.
        pointer: String,
    },
}
