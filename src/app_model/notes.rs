//! Bookmarks and notes, their state: a step worth coming back to, with a
//! label; a note on a step (and the activity selected then). In a recording
//! they are saved in the file (the only write the app makes, and only when
//! the user adds, renames or deletes one); for other files they last until
//! the file is closed. Changed by [`NoteCommand`]s.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::app_model::command::NoteCommand;
use crate::app_model::document::Doc;
use crate::app_model::state::AppState;
use crate::app_model::words::thousands;
use crate::diagnostic::Seq;
use crate::protocol::ParseOutcome;
use crate::store::{self, Bookmark, Note, SessionId};

/// Which bookmark or note: a row of the recording, or one kept in memory
/// (not a recording, or a save that failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AnnotationId {
    /// Its row in the recording.
    Saved(i64),
    /// Kept in memory while the app runs, numbered from 1.
    InMemory(u64),
}

/// A bookmark or a note with its id. It reads as the row itself (`.seq`,
/// `.label`); for one kept in memory the row's own id means nothing, `id`
/// says which it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept<T> {
    /// Which it is.
    pub id: AnnotationId,
    /// The bookmark or note.
    pub row: T,
}

impl<T> std::ops::Deref for Kept<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.row
    }
}

impl<T> Kept<T> {
    fn is_in_memory(&self) -> bool {
        matches!(self.id, AnnotationId::InMemory(_))
    }
}

/// The bookmarks and notes of the open session.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    /// By step.
    bookmarks: Vec<Kept<Bookmark>>,
    /// By step.
    notes: Vec<Kept<Note>>,
    /// Where they are saved: the recording and its session (`None`: kept
    /// in memory only).
    saved_in: Option<(PathBuf, SessionId)>,
    /// Why the recording's could not be read, if they could not.
    load_error: Option<String>,
    /// The number of the last one kept in memory.
    last_memory_id: u64,
}

impl Annotations {
    /// The bookmarks and notes a document's recording holds (none for other
    /// files).
    pub fn load(doc: &Doc) -> Self {
        let mut annotations = Self::default();
        let Some(recording) = &doc.recording else {
            return annotations;
        };
        let session = SessionId::new(doc.session.unwrap_or(1));
        annotations.saved_in = Some((doc.path.clone(), session));
        match (recording.bookmarks(session), recording.notes(session)) {
            (Ok(bookmarks), Ok(notes)) => {
                annotations.bookmarks = bookmarks
                    .into_iter()
                    .map(|row| Kept {
                        id: AnnotationId::Saved(row.id),
                        row,
                    })
                    .collect();
                annotations.notes = notes
                    .into_iter()
                    .map(|row| Kept {
                        id: AnnotationId::Saved(row.id),
                        row,
                    })
                    .collect();
            }
            (Err(error), _) | (_, Err(error)) => {
                annotations.load_error = Some(crate::error::error_chain(&error));
            }
        }
        annotations
    }

    /// The bookmarks, by step.
    pub fn bookmarks(&self) -> &[Kept<Bookmark>] {
        &self.bookmarks
    }

    /// The notes, by step.
    pub fn notes(&self) -> &[Kept<Note>] {
        &self.notes
    }

    /// Whether they are saved in a recording (otherwise kept in memory).
    pub fn is_saved(&self) -> bool {
        self.saved_in.is_some()
    }

    /// Why the recording's could not be read, if they could not.
    pub fn load_error(&self) -> Option<&str> {
        self.load_error.as_deref()
    }

    /// The step of the next bookmark after `current` (or the previous one
    /// before it).
    pub fn bookmark_step(&self, current: Seq, forward: bool) -> Option<Seq> {
        let steps = self.bookmarks.iter().map(|b| b.seq);
        if forward {
            steps.filter(|&s| s > current).min()
        } else {
            steps.filter(|&s| s < current).max()
        }
    }

    /// The bookmarks and notes kept in memory only.
    pub fn unsaved(&self) -> Self {
        Self {
            bookmarks: self
                .bookmarks
                .iter()
                .filter(|b| b.is_in_memory())
                .cloned()
                .collect(),
            notes: self
                .notes
                .iter()
                .filter(|n| n.is_in_memory())
                .cloned()
                .collect(),
            last_memory_id: self.last_memory_id,
            ..Self::default()
        }
    }

    /// Takes the bookmarks and notes that `earlier` kept in memory only
    /// (not saved in a file).
    pub fn keep_unsaved_from(&mut self, earlier: &Self) {
        self.bookmarks.extend(
            earlier
                .bookmarks
                .iter()
                .filter(|b| b.is_in_memory())
                .cloned(),
        );
        self.notes
            .extend(earlier.notes.iter().filter(|n| n.is_in_memory()).cloned());
        self.last_memory_id = self.last_memory_id.max(earlier.last_memory_id);
        self.sort();
    }

    fn memory_id(&mut self) -> AnnotationId {
        self.last_memory_id += 1;
        AnnotationId::InMemory(self.last_memory_id)
    }

    fn sort(&mut self) {
        self.bookmarks.sort_by_key(|b| (b.seq, b.id));
        self.notes.sort_by_key(|n| (n.seq, n.id));
    }
}

/// The bookmarks and notes feature: those of the open stream, and those
/// kept in memory for the streams not open now. Changed by
/// [`NoteCommand`]s.
#[derive(Default)]
pub struct Notes {
    annotations: Annotations,
    unsaved: BTreeMap<(PathBuf, Option<i64>), Annotations>,
}

/// What a [`NoteCommand`] needs of the rest of the app.
#[derive(Clone, Copy, Debug)]
pub struct NoteContext<'a> {
    /// The cursor.
    pub step: Seq,
    /// The activity selected (a note is on it).
    pub selected_activity: Option<&'a str>,
    /// A bookmark's label unless the user names it.
    pub default_label: &'a str,
}

/// What a [`NoteCommand`] did, for the app to show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoteResponse {
    /// Where the cursor goes (the next or previous bookmark).
    pub go_to: Option<Seq>,
    /// A short message for the status bar.
    pub notice: Option<String>,
    /// An error for the banner (a save that failed).
    pub error: Option<String>,
}

impl Notes {
    /// The bookmarks and notes of the open stream.
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// Another stream opens (or the same again): those of `old` kept in
    /// memory are set aside with it, `new`'s are read, with those kept for
    /// it earlier. Bookmarks and notes kept in memory (not a recording, or
    /// a save that failed) last while the app runs.
    pub fn open(&mut self, old: Option<&Doc>, new: &Doc) {
        if let Some(old) = old {
            self.unsaved
                .insert((old.path.clone(), old.session), self.annotations.unsaved());
        }
        let mut annotations = Annotations::load(new);
        if let Some(unsaved) = self.unsaved.get(&(new.path.clone(), new.session)) {
            annotations.keep_unsaved_from(unsaved);
        }
        self.annotations = annotations;
    }

    /// Applies a command: a write to the recording for one saved there,
    /// a change in memory otherwise.
    pub fn apply(&mut self, command: NoteCommand, at: NoteContext<'_>) -> NoteResponse {
        let mut response = NoteResponse::default();
        match command {
            NoteCommand::AddBookmark(label) => {
                let step = at.step;
                let label = label
                    .filter(|l| !l.trim().is_empty())
                    .unwrap_or_else(|| at.default_label.to_owned());
                let saved = self
                    .annotations
                    .saved_in
                    .as_ref()
                    .map(|(path, session)| store::add_bookmark(path, *session, step, &label));
                let bookmark = self.saved_or_kept(
                    saved,
                    "bookmark",
                    step,
                    &mut response,
                    |row| row.id,
                    || Bookmark {
                        id: 0,
                        session: SessionId::new(0),
                        seq: step,
                        label,
                        created_at_unix_ms: store::now_unix_ms(),
                    },
                );
                self.annotations.bookmarks.push(bookmark);
                self.annotations.sort();
            }
            NoteCommand::RenameBookmark(id, label) => {
                response.error =
                    self.write_row(id, |path, row| store::rename_bookmark(path, row, &label));
                if response.error.is_none()
                    && let Some(bookmark) =
                        self.annotations.bookmarks.iter_mut().find(|b| b.id == id)
                {
                    bookmark.row.label = label;
                }
            }
            NoteCommand::DeleteBookmark(id) => {
                response.error = self.write_row(id, store::delete_bookmark);
                if response.error.is_none() {
                    self.annotations.bookmarks.retain(|b| b.id != id);
                }
            }
            NoteCommand::NextBookmark | NoteCommand::PreviousBookmark => {
                let forward = command == NoteCommand::NextBookmark;
                response.go_to = self.annotations.bookmark_step(at.step, forward);
                if response.go_to.is_none() {
                    let (which, side) = if forward {
                        ("next", "after")
                    } else {
                        ("previous", "before")
                    };
                    response.notice = Some(format!(
                        "No {which} bookmark: none {side} step {}",
                        thousands(at.step.get())
                    ));
                }
            }
            NoteCommand::AddNote(text) => {
                if text.trim().is_empty() {
                    return response;
                }
                let step = at.step;
                let message_id = at.selected_activity.map(str::to_owned);
                let saved = self.annotations.saved_in.as_ref().map(|(path, session)| {
                    store::add_note(path, *session, step, message_id.as_deref(), &text)
                });
                let note = self.saved_or_kept(
                    saved,
                    "note",
                    step,
                    &mut response,
                    |row| row.id,
                    || Note {
                        id: 0,
                        session: SessionId::new(0),
                        seq: step,
                        message_id,
                        text,
                        created_at_unix_ms: store::now_unix_ms(),
                    },
                );
                self.annotations.notes.push(note);
                self.annotations.sort();
            }
            NoteCommand::EditNote(id, text) => {
                if text.trim().is_empty() {
                    return response;
                }
                response.error = self.write_row(id, |path, row| store::edit_note(path, row, &text));
                if response.error.is_none()
                    && let Some(note) = self.annotations.notes.iter_mut().find(|n| n.id == id)
                {
                    note.row.text = text;
                }
            }
            NoteCommand::DeleteNote(id) => {
                response.error = self.write_row(id, store::delete_note);
                if response.error.is_none() {
                    self.annotations.notes.retain(|n| n.id != id);
                }
            }
        }
        response
    }

    /// The row a save gave (`saved`: `None` when there is no recording to
    /// save in), or, when there was none or the save failed (said in the
    /// error banner), the one `in_memory` makes, with a memory id.
    fn saved_or_kept<T>(
        &mut self,
        saved: Option<Result<T, store::StoreError>>,
        what: &str,
        step: Seq,
        response: &mut NoteResponse,
        row_id: impl FnOnce(&T) -> i64,
        in_memory: impl FnOnce() -> T,
    ) -> Kept<T> {
        match saved {
            Some(Ok(row)) => {
                response.notice = Some(format!(
                    "{} saved at step {}",
                    capitalized(what),
                    thousands(step.get())
                ));
                return Kept {
                    id: AnnotationId::Saved(row_id(&row)),
                    row,
                };
            }
            Some(Err(error)) => {
                response.error = Some(format!(
                    "The {what} is kept until the app closes: {}",
                    crate::error::error_chain(&error)
                ));
            }
            None => {}
        }
        Kept {
            id: self.annotations.memory_id(),
            row: in_memory(),
        }
    }

    /// Runs `write` on the recording for a saved row; the error to show if
    /// it failed (one kept in memory is changed in memory only).
    fn write_row(
        &self,
        id: AnnotationId,
        write: impl FnOnce(&std::path::Path, i64) -> Result<(), store::StoreError>,
    ) -> Option<String> {
        let AnnotationId::Saved(row) = id else {
            return None;
        };
        let (path, _) = self.annotations.saved_in.as_ref()?;
        write(path, row)
            .err()
            .map(|e| crate::error::error_chain(&e))
    }
}

impl AppState {
    /// What a bookmark is called unless the user names it: the event at
    /// the cursor (`ACTIVITY_DELTA plan-1`), or the start.
    pub fn default_bookmark_label(&self) -> String {
        let Some(view) = self.view() else {
            return String::new();
        };
        match &view.event {
            Some(ParseOutcome::Event { event, .. }) => match event.message_id() {
                Some(id) => format!("{} {id}", event.event_type().as_str()),
                None => event.event_type().as_str().to_owned(),
            },
            Some(_) => "unreadable event".to_owned(),
            None => "start".to_owned(),
        }
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    // The bookmarks' and notes' state machine, with no UI context
    // (issue 16, point 3). A JSON lines file keeps them in memory.
    use super::*;
    use crate::app_model::test_support::{STREAM, doc_of};

    fn at(step: u64) -> NoteContext<'static> {
        NoteContext {
            step: Seq::new(step),
            selected_activity: Some("a-1"),
            default_label: "ACTIVITY_DELTA a-1",
        }
    }

    #[test]
    fn bookmarks_in_memory_are_added_renamed_walked_and_deleted() {
        let doc = doc_of(STREAM);
        let mut notes = Notes::default();
        notes.open(None, &doc);
        assert!(!notes.annotations().is_saved());
        let added = notes.apply(NoteCommand::AddBookmark(None), at(3));
        assert_eq!(added, NoteResponse::default(), "kept in memory silently");
        notes.apply(NoteCommand::AddBookmark(Some("end".into())), at(6));
        let bookmarks = notes.annotations().bookmarks();
        assert_eq!(bookmarks.len(), 2);
        assert_eq!(bookmarks[0].label, "ACTIVITY_DELTA a-1");
        assert_eq!(
            bookmarks.iter().map(|b| b.id).collect::<Vec<_>>(),
            [AnnotationId::InMemory(1), AnnotationId::InMemory(2)],
            "memory ids, not rows (issue 16, point 8)"
        );
        let next = notes.apply(NoteCommand::NextBookmark, at(3));
        assert_eq!(next.go_to, Some(Seq::new(6)));
        let none = notes.apply(NoteCommand::NextBookmark, at(6));
        assert_eq!(none.go_to, None);
        assert_eq!(
            none.notice.as_deref(),
            Some("No next bookmark: none after step 6")
        );
        let previous = notes.apply(NoteCommand::PreviousBookmark, at(6));
        assert_eq!(previous.go_to, Some(Seq::new(3)));
        let id = notes.annotations().bookmarks()[1].id;
        notes.apply(NoteCommand::RenameBookmark(id, "the end".into()), at(0));
        assert_eq!(notes.annotations().bookmarks()[1].label, "the end");
        notes.apply(NoteCommand::DeleteBookmark(id), at(0));
        assert_eq!(notes.annotations().bookmarks().len(), 1);
    }

    #[test]
    fn notes_take_the_selected_activity_and_refuse_empty_text() {
        let doc = doc_of(STREAM);
        let mut notes = Notes::default();
        notes.open(None, &doc);
        notes.apply(NoteCommand::AddNote("  ".into()), at(2));
        assert!(notes.annotations().notes().is_empty());
        notes.apply(NoteCommand::AddNote("why?".into()), at(2));
        let note = &notes.annotations().notes()[0];
        assert_eq!(note.message_id.as_deref(), Some("a-1"));
        assert_eq!(note.seq, Seq::new(2));
        let id = note.id;
        notes.apply(NoteCommand::EditNote(id, String::new()), at(2));
        assert_eq!(notes.annotations().notes()[0].text, "why?", "not emptied");
        notes.apply(NoteCommand::EditNote(id, "because".into()), at(2));
        assert_eq!(notes.annotations().notes()[0].text, "because");
        notes.apply(NoteCommand::DeleteNote(id), at(2));
        assert!(notes.annotations().notes().is_empty());
    }

    #[test]
    fn those_in_memory_come_back_with_their_stream() {
        let first = doc_of(STREAM);
        let other = doc_of(&STREAM[..3]);
        let mut notes = Notes::default();
        notes.open(None, &first);
        notes.apply(NoteCommand::AddBookmark(Some("kept".into())), at(4));
        notes.open(Some(&first), &other);
        assert!(notes.annotations().bookmarks().is_empty(), "another stream");
        let again = doc_of(STREAM);
        // The same path opened again (a replay) takes them back; a new temp
        // file is another stream, so open the first path's twin by hand.
        let mut back = again;
        back.path = first.path.clone();
        notes.open(Some(&other), &back);
        let bookmarks = notes.annotations().bookmarks();
        assert_eq!(bookmarks.len(), 1);
        assert_eq!(bookmarks[0].label, "kept");
    }
}
