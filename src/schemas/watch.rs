//! Validation of contents against their schemas, step by step (rule S1,
//! issue 42): a violation (its instance path and schema keyword) is
//! reported as `activity.content.schema` (`state.content.schema` for the
//! state) at the step where it appears, and again only when it appears anew
//! after the content was valid there.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::observe::{ObservedReplay, Target, input_has_state, observe_replay};
use super::{Schema, SchemaSet};
use crate::diagnostic::{Code, Diagnostic, Seq};
use crate::input::RawEvents;
use crate::replay::Replayer;

/// The longest text of a violation, in bytes (a value echoed whole could
/// be megabytes).
const MAX_TEXT: usize = 240;

/// One way a content breaks its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The JSON pointer of the value inside the content (or state), `""`
    /// for the whole of it; for `required`, the member that is missing.
    pub pointer: String,
    /// The schema keyword it fails (`type`, `required`, …).
    pub keyword: String,
    /// What the schema expected, as the validator says it.
    pub expected: String,
}

/// A violation's identity across steps: where and which keyword.
type Key = (String, String);

impl Violation {
    fn key(&self) -> Key {
        (self.pointer.clone(), self.keyword.clone())
    }
}

/// The violations of `value` against `schema`, one per pointer and
/// keyword, in pointer order.
pub fn violations(schema: &Schema, value: &Value) -> Vec<Violation> {
    if schema.validator().is_valid(value) {
        return Vec::new();
    }
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    for error in schema.validator().iter_errors(value) {
        let mut pointer = error.instance_path().as_str().to_owned();
        if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind() {
            pointer.push('/');
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
        }
        let violation = Violation {
            pointer,
            keyword: error.kind().keyword().to_owned(),
            expected: brief(&error.to_string()),
        };
        if seen.insert(violation.key()) {
            out.push(violation);
        }
    }
    // In path order, whatever order the validator visits the schema in.
    out.sort_by(|a, b| (&a.pointer, &a.keyword).cmp(&(&b.pointer, &b.keyword)));
    out
}

/// `text` cut at about [`MAX_TEXT`] bytes, on a character boundary.
fn brief(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Watches the contents of one replay against a [`SchemaSet`]: feed it
/// each content a widget reads ([`observe_replay`]); it keeps what each
/// content breaks now and reports what is new.
#[derive(Debug, Default)]
pub struct SchemaWatch {
    /// What each content breaks now: per activity id (`None`: the state).
    broken: FxHashMap<Option<String>, FxHashSet<Key>>,
    found: Vec<Diagnostic>,
}

impl SchemaWatch {
    /// A watch with nothing seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates one content at `seq`; reports each violation it did not
    /// have at the last validation of that content.
    pub fn see(&mut self, schemas: &SchemaSet, seq: Seq, target: Target<'_>, value: &Value) {
        let (key, schema) = match target {
            Target::Activity { id, activity_type } => {
                (Some(id.to_owned()), schemas.activity(activity_type))
            }
            Target::State => (None, schemas.state.as_ref()),
        };
        let now = schema.map(|s| violations(s, value)).unwrap_or_default();
        if now.is_empty() {
            self.broken.remove(&key);
            return;
        }
        let before = self.broken.remove(&key).unwrap_or_default();
        let mut keys = FxHashSet::default();
        for violation in now {
            let vkey = violation.key();
            if !before.contains(&vkey)
                && let Some(schema) = schema
            {
                self.found.push(diagnostic(seq, target, schema, &violation));
            }
            keys.insert(vkey);
        }
        self.broken.insert(key, keys);
    }

    /// The diagnostics found so far, in step order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.found
    }

    /// The diagnostics found.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.found
    }
}

/// The diagnostic of a new violation.
fn diagnostic(seq: Seq, target: Target<'_>, schema: &Schema, violation: &Violation) -> Diagnostic {
    let at = if violation.pointer.is_empty() {
        "the whole".to_owned()
    } else {
        violation.pointer.clone()
    };
    let (code, whose, path) = match target {
        Target::Activity { activity_type, .. } => (
            Code::ActivityContentSchema,
            format!("{activity_type:?} content"),
            format!("/content{}", violation.pointer),
        ),
        Target::State => (
            Code::StateContentSchema,
            "the state".to_owned(),
            violation.pointer.clone(),
        ),
    };
    let message = format!(
        "{whose} breaks {} at {at}: {} (keyword `{}`)",
        schema.file_name, violation.expected, violation.keyword
    );
    let diagnostic = Diagnostic::new(seq, code, message).with_path(path);
    match target {
        Target::Activity { id, .. } => diagnostic.with_message_id(id),
        Target::State => diagnostic,
    }
}

/// Replays `log` from `start` and validates every content a widget reads
/// against `schemas` (S1): the schema diagnostics, in step order.
/// `run_input` is the recorded run input `start` was made from, if any.
pub fn check_stream<E: RawEvents + ?Sized>(
    schemas: &SchemaSet,
    start: Replayer,
    run_input: Option<&Value>,
    log: &E,
) -> Vec<Diagnostic> {
    let mut watch = SchemaWatch::new();
    observe_replay(
        start,
        input_has_state(run_input),
        log,
        |seq, target, value| {
            watch.see(schemas, seq, target, value);
        },
    );
    watch.into_diagnostics()
}

/// [`check_stream`] as the stream grows: [`Self::feed`] validates the
/// events appended since (a live recording followed, a stream indexed in
/// the background), with what the earlier ones left broken, without
/// replaying them again. Fed the whole stream, it finds what
/// `check_stream` finds.
#[derive(Debug)]
pub struct StreamCheck {
    replay: ObservedReplay,
    watch: SchemaWatch,
}

impl StreamCheck {
    /// Step 0 of `start` (made from `run_input`, if any) validated.
    pub fn new(schemas: &SchemaSet, start: Replayer, run_input: Option<&Value>) -> Self {
        let mut watch = SchemaWatch::new();
        let replay =
            ObservedReplay::start(start, input_has_state(run_input), |seq, target, value| {
                watch.see(schemas, seq, target, value);
            });
        Self { replay, watch }
    }

    /// Validates the events of `log` after those seen.
    pub fn feed<E: RawEvents + ?Sized>(&mut self, schemas: &SchemaSet, log: &E) {
        self.feed_some(schemas, log, usize::MAX);
    }

    /// [`Self::feed`], for at most `max_events` events (a slice of a
    /// frame's work).
    pub fn feed_some<E: RawEvents + ?Sized>(
        &mut self,
        schemas: &SchemaSet,
        log: &E,
        max_events: usize,
    ) {
        let watch = &mut self.watch;
        self.replay
            .feed_some(log, max_events, |seq, target, value| {
                watch.see(schemas, seq, target, value);
            });
    }

    /// How many events of the stream were validated.
    pub fn num_seen(&self) -> usize {
        self.replay.num_seen()
    }

    /// The findings so far, in step order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.watch.diagnostics()
    }
}
