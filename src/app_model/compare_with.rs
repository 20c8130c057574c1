//! File › Compare with…: a second stream (B) opened beside the one shown
//! (A), the two aligned by the engine ([`crate::compare`]), their
//! timelines one above the other with aligned steps linked, and A's state
//! at the cursor beside B's at the aligned step (issue 17, point 4).
//!
//! The cursor is A's: moving it moves B to the aligned step. A click on
//! B's timeline puts B at that step and A at the step aligned with it (for
//! an event B alone has, the step of A it comes after).
//!
//! This module is the state of the feature, changed by
//! [`CompareCommand`]s; the app's panels draw the tab and the two
//! timelines.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::app_model::document::{Doc, LoadOptions, load_with};
use crate::app_model::highlights::side_by_side;
use crate::app_model::marks::CompareView;
use crate::app_model::memo::Memo;
use crate::compare::{Side, StreamComparison, compare};
use crate::diagnostic::Seq;
use crate::diff::{Comparison, DiffScope};
use crate::replay::{Options, Replayer};
use crate::timeline::Timeline;

/// The scope the compare tab compares: the diff's, or everything when the
/// activity scope has nothing selected.
pub fn scope_of(state_scope: Option<DiffScope>) -> DiffScope {
    state_scope.unwrap_or(DiffScope::Everything)
}

/// What the compare tab is asked.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareCommand {
    /// Open a stream as B and compare it with the one shown (File ›
    /// Compare with…).
    Open(PathBuf),
    /// Open one session of a recording as B (issue 41: the edited stream
    /// beside the session it edits, not the recording's first).
    OpenSession(PathBuf, i64),
    /// Put B's cursor at a step (a click on B's timeline); A's goes to the
    /// step aligned with it.
    SetB(Seq),
    /// Close the comparison.
    Close,
}

/// B, opened and compared with A.
pub struct Compared {
    /// B's document.
    pub doc: Box<Doc>,
    /// The comparison of A and B.
    pub comparison: Arc<StreamComparison>,
    /// B's step set by a click on B's timeline, with A's step then: it
    /// holds while A's cursor stays there.
    b_override: Option<(Seq, Seq)>,
    /// A's state at the cursor beside B's at the aligned step.
    diff: Memo<(Seq, Seq, DiffScope), Arc<CompareView>>,
}

impl Compared {
    /// B's step aligned with A's step `a` (or the one clicked on B's
    /// timeline while A stays at `a`).
    pub fn b_step(&self, a: Seq) -> Seq {
        match self.b_override {
            Some((at_a, b)) if at_a == a => b,
            _ => self.comparison.alignment.b_of_a(a),
        }
    }

    /// A's state at `a` beside B's at the aligned step, as last computed.
    pub fn diff(&self) -> Option<&Arc<CompareView>> {
        self.diff.last()
    }
}

/// B being read and compared on a thread of its own.
struct Comparing {
    path: PathBuf,
    session: Option<i64>,
    receiver: Receiver<Result<(Box<Doc>, StreamComparison), String>>,
}

/// The comparison with a second stream: none, being computed, or shown.
#[derive(Default)]
pub struct CompareWith {
    comparing: Option<Comparing>,
    compared: Option<Compared>,
}

/// What a [`CompareCommand`] or a finished comparison changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompareResponse {
    /// Where A's cursor goes.
    pub go_to: Option<Seq>,
    /// Show the compare tab (a comparison is open or on its way), or
    /// leave it (`Some(false)`: closed).
    pub show_tab: Option<bool>,
    /// Why the comparison could not be made.
    pub error: Option<String>,
}

impl CompareWith {
    /// B, once compared.
    pub fn compared(&self) -> Option<&Compared> {
        self.compared.as_ref()
    }

    /// The stream being compared, while it is read.
    pub fn comparing(&self) -> Option<&Path> {
        self.comparing.as_ref().map(|c| c.path.as_path())
    }

    /// Whether a comparison is shown or on its way.
    pub fn is_open(&self) -> bool {
        self.compared.is_some() || self.comparing.is_some()
    }

    /// Applies a command; A is `a` (its document and replay options), its
    /// cursor at `a_step`.
    pub fn apply(
        &mut self,
        command: CompareCommand,
        a: Option<&Doc>,
        options: Options,
        a_step: Seq,
    ) -> CompareResponse {
        let (path, session) = match command {
            CompareCommand::Open(path) => (path, None),
            CompareCommand::OpenSession(path, session) => (path, Some(session)),
            CompareCommand::SetB(b) => return self.set_b(b, a_step),
            CompareCommand::Close => {
                self.close();
                return CompareResponse {
                    show_tab: Some(false),
                    ..CompareResponse::default()
                };
            }
        };
        match a {
            Some(doc) => match self.start(path, session, doc, options) {
                Ok(()) => CompareResponse {
                    show_tab: Some(true),
                    ..CompareResponse::default()
                },
                Err(error) => CompareResponse {
                    error: Some(error),
                    ..CompareResponse::default()
                },
            },
            None => CompareResponse {
                error: Some("open a stream first, then compare another with it".to_owned()),
                ..CompareResponse::default()
            },
        }
    }

    /// Puts B's cursor at `b`, and A's at the step aligned with it.
    fn set_b(&mut self, b: Seq, a_step: Seq) -> CompareResponse {
        let Some(compared) = &mut self.compared else {
            return CompareResponse::default();
        };
        let b = Seq::new(b.get().min(compared.comparison.num_events_b));
        let a = compared.comparison.alignment.a_of_b(b);
        compared.b_override = Some((a, b));
        CompareResponse {
            go_to: (a != a_step).then_some(a),
            ..CompareResponse::default()
        }
    }

    /// Forgets B.
    pub fn close(&mut self) {
        self.comparing = None;
        self.compared = None;
    }

    /// Reads B and compares it with A (`doc`) on a thread of its own.
    fn start(
        &mut self,
        path: PathBuf,
        session: Option<i64>,
        doc: &Doc,
        options: Options,
    ) -> Result<(), String> {
        if !doc.is_whole() {
            return Err(format!(
                "{} is still being read: compare once it is indexed",
                doc.path.display()
            ));
        }
        let timeline = Arc::clone(&doc.timeline);
        let start = doc.source.start(options);
        let (sender, receiver) = channel();
        let thread_path = path.clone();
        std::thread::Builder::new()
            .name("compare".to_owned())
            .spawn(move || {
                let _ = sender.send(compare_with(
                    &timeline,
                    start,
                    &thread_path,
                    session,
                    options,
                ));
            })
            .map_err(|e| format!("cannot start comparing: {e}"))?;
        self.compared = None;
        self.comparing = Some(Comparing {
            path,
            session,
            receiver,
        });
        Ok(())
    }

    /// A's document changed (another replay of it, or another stream):
    /// the same stream is compared again with B, another one closes the
    /// comparison.
    pub fn a_changed(&mut self, same_stream: bool, doc: &Doc, options: Options) {
        let (path, session) = match (&self.compared, &self.comparing) {
            (Some(compared), _) => (compared.doc.path.clone(), compared.doc.session),
            (None, Some(comparing)) => (comparing.path.clone(), comparing.session),
            (None, None) => return,
        };
        if !same_stream || self.start(path, session, doc, options).is_err() {
            self.close();
        }
    }

    /// Takes a finished comparison, if there is one.
    pub fn poll(&mut self) -> Option<CompareResponse> {
        let comparing = self.comparing.as_ref()?;
        let result = match comparing.receiver.try_recv() {
            Ok(result) => result,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => Err(format!(
                "comparing with {} stopped without an answer (a bug)",
                comparing.path.display()
            )),
        };
        Some(self.finished(result))
    }

    /// Waits for the comparison on its way (tests).
    pub fn wait(&mut self) -> Option<CompareResponse> {
        let comparing = self.comparing.as_ref()?;
        let result = comparing.receiver.recv().unwrap_or_else(|_| {
            Err(format!(
                "comparing with {} stopped without an answer (a bug)",
                comparing.path.display()
            ))
        });
        Some(self.finished(result))
    }

    fn finished(
        &mut self,
        result: Result<(Box<Doc>, StreamComparison), String>,
    ) -> CompareResponse {
        self.comparing = None;
        match result {
            Ok((doc, comparison)) => {
                self.compared = Some(Compared {
                    doc,
                    comparison: Arc::new(comparison),
                    b_override: None,
                    diff: Memo::default(),
                });
                CompareResponse::default()
            }
            Err(error) => CompareResponse {
                error: Some(error),
                show_tab: Some(false),
                ..CompareResponse::default()
            },
        }
    }

    /// Brings the diff of A at `a` (the replay `at_a`) and B at the
    /// aligned step up to date, for `scope`, in A's document `generation`.
    pub fn refresh(&mut self, generation: u64, a: Seq, at_a: &Replayer, scope: DiffScope) {
        let Some(compared) = &mut self.compared else {
            return;
        };
        let b = compared.b_step(a);
        let timeline = &compared.doc.timeline;
        compared
            .diff
            .get_or_compute(generation, (a, b, scope), |(a, b, scope)| {
                let before = scope.document(at_a);
                let after = scope.document(&timeline.seek(*b));
                let comparison = Comparison::of(scope.clone(), *a, before, *b, after);
                let (left, right) = side_by_side(&comparison.before, &comparison.after);
                let patch_text = comparison.patch_json();
                Arc::new(CompareView {
                    key: (*a, *b, scope.clone()),
                    comparison,
                    left,
                    right,
                    patch_text,
                })
            });
    }
}

/// Reads B whole (not in the background: the comparison needs every
/// event) and compares it with A.
fn compare_with(
    a: &Timeline,
    a_start: Replayer,
    b_path: &Path,
    b_session: Option<i64>,
    options: Options,
) -> Result<(Box<Doc>, StreamComparison), String> {
    let load_options = LoadOptions {
        stored_index: false,
        sync_events: usize::MAX,
        ..LoadOptions::default()
    };
    let b = load_with(b_path, b_session, options, load_options)?;
    let comparison = compare(
        Side {
            start: a_start,
            events: a.events(),
        },
        Side {
            start: b.source.start(b.options()),
            events: b.timeline.events(),
        },
    );
    Ok((b, comparison))
}
