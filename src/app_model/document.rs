//! The document: one stream opened and replayed (a recording's session, a
//! HAR exchange, or a stream file), what opening it takes (on whatever
//! thread), and the recent files.

use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Seq, SeverityCounts};
use crate::error::error_chain;
use crate::open::{Source, SourceError, open_source};
use crate::replay::Options;
use crate::store::{Recording, SessionInfo, StoreError, file_is_sqlite};
use crate::timeline::{RawEvent, Timeline};

use super::indexing::{IndexPlan, Indexing, MemorySource};

/// The most recent files kept.
pub const MAX_RECENT: usize = 10;

/// One opened stream, replayed.
pub struct Doc {
    /// The file.
    pub path: PathBuf,
    /// The recording's sessions (empty for a plain stream file).
    pub sessions: Vec<SessionInfo>,
    /// The session shown, for recordings and HAR files.
    pub session: Option<i64>,
    /// Where the stream came from (its events are in the timeline).
    pub source: Source,
    /// The replay, with checkpoints and indices. Shared, so that a search
    /// over every event runs on a thread of its own (issue 13, point 4);
    /// a live recording's growth changes it through [`std::sync::Arc::make_mut`].
    pub timeline: std::sync::Arc<Timeline>,
    /// When each event arrived, in nanoseconds from the start (index 0 is
    /// seq 1): recorded, or derived from `timestamp`s, or 100 ms apart.
    pub arrival_nanos: Vec<u64>,
    /// Where the arrival times come from: invented ones are said to be
    /// wherever times show (issue 13, point 10).
    pub timing: Timing,
    /// Diagnostics per severity, the reader's included (counted once).
    pub counts: SeverityCounts,
    /// The recording, open read-only, for recordings: its bookmarks and
    /// notes, and the events a live session adds.
    pub recording: Option<Recording>,
    /// Whether the session is still being written (the timeline grows).
    pub live: bool,
    /// Where the other profile shows something else (P13, issue 18): the
    /// `profile.divergence` diagnostics, in seq order. Found once when a
    /// finished stream opens (in the background for a long one); empty for
    /// a live one.
    pub divergences: Vec<Diagnostic>,
    /// The indexing in the background of a long stream, while it goes on:
    /// the timeline holds the events read so far.
    pub indexing: Option<Indexing>,
    /// Indexing was cancelled: the stream holds this many events, the
    /// timeline those read before.
    pub cancelled: Option<u64>,
    /// Where the contents break the schema folder of View › Activity
    /// schemas… (issue 42, rule S1): the `activity.content.schema` and
    /// `state.content.schema` warnings, in seq order. Found in a replay of
    /// their own, as `check --schemas` does; empty without a folder. Set
    /// by [`Doc::set_schema_findings`].
    pub schema_findings: Vec<Diagnostic>,
    /// The steps of `schema_findings`, for going from diagnostic to
    /// diagnostic without collecting them at each command.
    schema_finding_steps: Vec<Seq>,
    /// The folder's check, kept to validate the events that arrive after
    /// the open (a live recording, a stream indexed in the background).
    pub(super) schema_check: Option<(
        std::sync::Arc<crate::schemas::SchemaSet>,
        crate::schemas::StreamCheck,
    )>,
}

/// Where a document's arrival times come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Recorded as the events arrived.
    Recorded,
    /// From the events' `timestamp`s.
    Timestamps,
    /// Invented: no event has a `timestamp`, so they are spaced 100 ms
    /// apart (as `import` spaces them too).
    Invented,
    /// Some events have no `timestamp`: those before the first one are
    /// spaced 100 ms apart, those after take the time of the one before.
    PartlyInvented {
        /// How many events have none.
        num_untimed: usize,
    },
    /// A recording whose events all arrived at the same time (no timing
    /// recorded): playback paces them 100 ms apart.
    Untimed,
}

impl Timing {
    /// Whether some times shown are not the stream's own.
    pub fn is_invented(self) -> bool {
        !matches!(self, Self::Recorded | Self::Timestamps)
    }

    /// A short label for where times show (`None`: the stream's own).
    pub fn label(self) -> Option<&'static str> {
        match self {
            Self::Recorded | Self::Timestamps => None,
            Self::Invented => Some("invented timing"),
            Self::PartlyInvented { .. } => Some("partly invented timing"),
            Self::Untimed => Some("no timing"),
        }
    }

    /// What the times mean, for a tooltip.
    pub fn explanation(self) -> String {
        match self {
            Self::Recorded => "The times the events arrived, as recorded".to_owned(),
            Self::Timestamps => "From the events' timestamps".to_owned(),
            Self::Invented => "Invented: the events have no timestamp, so they are spaced \
                               100 ms apart; the stream's real pace is unknown"
                .to_owned(),
            Self::PartlyInvented { num_untimed } => format!(
                "Partly invented: {num_untimed} events have no timestamp; those before the \
                 first timestamp are spaced 100 ms apart, the others take the time of the \
                 event before"
            ),
            Self::Untimed => "No timing: every event of the recording has the same arrival \
                              time; Play paces them 100 ms apart"
                .to_owned(),
        }
    }

    /// [`Self::of_recorded`] of `total` arrival times of which only the
    /// first few (`prefix`) and the last are read (a recording opened
    /// before all of it is read).
    pub fn of_recorded_prefix(prefix: &[u64], last: u64, total: usize, imported: bool) -> Self {
        let timing = Self::of_recorded(prefix, imported);
        if total <= prefix.len() {
            return timing;
        }
        let step = crate::input::UNTIMED_STEP_NANOS;
        match timing {
            Self::Untimed if prefix.first() == Some(&last) => Self::Untimed,
            Self::Invented if last == (total as u64 - 1).saturating_mul(step) => Self::Invented,
            _ => Self::Recorded,
        }
    }

    /// The timing of a recording's arrival times: `imported` sessions got
    /// theirs from the events' timestamps, 100 ms apart without any.
    pub fn of_recorded(arrival_nanos: &[u64], imported: bool) -> Self {
        let step = crate::input::UNTIMED_STEP_NANOS;
        match arrival_nanos {
            [] | [_] => Self::Recorded,
            [first, .., last] if first == last => Self::Untimed,
            arrivals
                if imported
                    && arrivals
                        .iter()
                        .enumerate()
                        .all(|(i, &a)| a == (i as u64).saturating_mul(step)) =>
            {
                Self::Invented
            }
            _ => Self::Recorded,
        }
    }
}

impl Doc {
    /// The number of events.
    pub fn num_events(&self) -> u64 {
        self.timeline.len() as u64
    }

    /// Every diagnostic: the reader's (seq 0), then the replay's, then
    /// the schema folder's findings (issue 42).
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.source
            .diagnostics
            .iter()
            .chain(self.timeline.diagnostics())
            .chain(&self.schema_findings)
    }

    /// Counts every diagnostic ([`Self::diagnostics`]) per severity again.
    pub fn recount(&mut self) {
        let mut counts = SeverityCounts::default();
        for diagnostic in self.diagnostics() {
            counts.add(diagnostic.severity);
        }
        self.counts = counts;
    }

    /// Sets the schema folder's findings (issue 42), in seq order, and
    /// counts them with the rest.
    pub fn set_schema_findings(&mut self, findings: Vec<Diagnostic>) {
        self.schema_finding_steps = findings.iter().map(|d| d.seq).collect();
        self.schema_findings = findings;
        self.recount();
    }

    /// The steps to go to from diagnostic to diagnostic: the index's, per
    /// severity, and the schema findings'.
    pub fn diagnostic_steps(&self) -> Vec<&[Seq]> {
        let index = self.timeline.index();
        let mut lists: Vec<&[Seq]> = crate::diagnostic::Severity::ALL
            .iter()
            .map(|&s| index.steps_with(s))
            .collect();
        lists.push(&self.schema_finding_steps);
        lists
    }

    /// The raw bytes of the event at `seq` (read from the recording when
    /// its events are left in the file).
    pub fn raw(&self, seq: Seq) -> Option<RawEvent<'_>> {
        self.timeline.events().get(seq)
    }

    /// Whether the timeline holds the whole stream (not indexing, not
    /// cancelled).
    pub fn is_whole(&self) -> bool {
        self.indexing.as_ref().is_none_or(|i| i.comparing) && self.cancelled.is_none()
    }

    /// The replay options.
    pub fn options(&self) -> Options {
        self.timeline.options()
    }
}

/// Where the recent files are kept: `$XDG_CONFIG_HOME/agui-replay/recent`
/// (or `~/.config/…`).
fn recent_file() -> Option<PathBuf> {
    config_file("recent")
}

/// A file of the app's settings: `$XDG_CONFIG_HOME/agui-replay/NAME` (or
/// `~/.config/…`).
fn config_file(name: &str) -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("agui-replay").join(name))
}

/// The theme chosen in an earlier run (`system`, `dark` or `light`).
pub fn load_theme() -> Option<String> {
    let text = std::fs::read_to_string(config_file("theme")?).ok()?;
    Some(text.trim().to_owned())
}

/// Keeps the theme for the next run (best effort, as the recent files).
pub fn save_theme(name: &str) {
    let Some(file) = config_file("theme") else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(file, format!("{name}\n"));
}

/// The schema folder of each recent recording, from earlier runs (issue
/// 42).
pub fn load_schema_folders() -> super::schemas::SchemaFolders {
    config_file(SCHEMA_FOLDERS_FILE)
        .and_then(|file| std::fs::read_to_string(file).ok())
        .map(|text| super::schemas::SchemaFolders::from_text(&text))
        .unwrap_or_default()
}

/// Keeps the schema folder of each recent recording for the next run
/// (best effort, as the recent files).
pub(super) fn save_schema_folders(folders: &super::schemas::SchemaFolders) {
    let Some(file) = config_file(SCHEMA_FOLDERS_FILE) else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(file, folders.to_text());
}

/// The file of [`load_schema_folders`], beside the recent files.
const SCHEMA_FOLDERS_FILE: &str = "schema-folders.json";

/// The recent files of earlier runs, one path a line, most recent first.
pub fn load_recent() -> Vec<PathBuf> {
    let Some(text) = recent_file().and_then(|file| std::fs::read_to_string(file).ok()) else {
        return Vec::new();
    };
    text.lines()
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .take(MAX_RECENT)
        .collect()
}

/// Keeps the recent files for the next run (best effort: a read-only home
/// only loses the list).
pub(super) fn save_recent(recent: &[PathBuf]) {
    let Some(file) = recent_file() else { return };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let text: String = recent
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect();
    let _ = std::fs::write(file, text);
}

/// How a stream is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Open a recording with the index stored in it, when it has one
    /// (issue 14, point 2); `false` ignores it and indexes on open
    /// (`bench ui --no-stored-index`).
    pub stored_index: bool,
    /// A stream of at most this many events is replayed whole before it
    /// shows (about 50 ms); a longer one shows its first events at once and
    /// is indexed in the background, with progress.
    pub sync_events: usize,
    /// How indexing in the background goes.
    pub plan: IndexPlan,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            stored_index: true,
            sync_events: 50_000,
            plan: IndexPlan {
                chunk_events: 16_384,
                publish_every: std::time::Duration::from_millis(200),
                paced: false,
            },
        }
    }
}

/// Opens and replays a stream (on whatever thread calls it), with the
/// default [`LoadOptions`].
pub fn load(path: &Path, session: Option<i64>, options: Options) -> Result<Box<Doc>, String> {
    load_with(path, session, options, LoadOptions::default())
}

/// Opens a stream (on whatever thread calls it). A short one is replayed
/// whole; a long one comes back with its first events replayed and the
/// rest being indexed in the background ([`Doc::indexing`]). A finished
/// recording's events stay in the file: the document reads those it shows
/// (issue 14, point 3).
pub fn load_with(
    path: &Path,
    session: Option<i64>,
    options: Options,
    load_options: LoadOptions,
) -> Result<Box<Doc>, String> {
    if path != Path::new("-") && file_is_sqlite(path) {
        let recording = Recording::open(path).map_err(|e| error_chain(&e))?;
        if session.is_none() && recording.sessions().is_empty() {
            return Ok(Box::new(waiting_for_a_session(path, recording, options)));
        }
        if let Some(doc) = open_recording(path, recording, session, options, load_options)? {
            return Ok(Box::new(doc));
        }
    }
    let mut source = match open_source(path, session) {
        Ok(source) => source,
        // Several sessions and none picked: show the first; the session
        // picker offers the others.
        Err(
            SourceError::Store(StoreError::SessionNeeded { .. })
            | SourceError::NoSuchSession { .. },
        ) if session.is_none() => open_source(path, Some(1)).map_err(|e| error_chain(&e))?,
        Err(error) => return Err(error_chain(&error)),
    };
    let sessions = std::mem::take(&mut source.sessions);
    let (arrival_nanos, timing) = match source.arrival_nanos.take() {
        Some(recorded) => {
            let imported = source
                .session
                .as_ref()
                .is_some_and(|s| s.source.starts_with("import"));
            let timing = Timing::of_recorded(&recorded, imported);
            (recorded, timing)
        }
        None => derived_arrivals(&source),
    };
    // A HAR file with several exchanges shows the first unless told.
    let session = source
        .session
        .as_ref()
        .map(|s| s.id.get())
        .or(session)
        .or((source.num_sessions > 1).then_some(1));
    // A session still being written is followed: its end-of-stream checks
    // wait for its end.
    let mut arrival_nanos = arrival_nanos;
    // A recording being written may have committed more arrival times than
    // the events read a moment before (or fewer): one per event.
    let last_arrival = arrival_nanos.last().copied().unwrap_or(0);
    arrival_nanos.resize(source.events.len(), last_arrival);
    let live = source
        .session
        .as_ref()
        .is_some_and(|s| is_being_written(s, last_arrival));
    let recording = if file_is_sqlite(path) {
        Some(Recording::open(path).map_err(|e| error_chain(&e))?)
    } else {
        None
    };
    let start = source.start(options);
    // The timeline keeps the events; the source keeps the rest.
    let events = std::mem::take(&mut source.events);
    let opened = Opened {
        path: path.to_owned(),
        sessions,
        session,
        source,
        timing,
        recording,
        live,
        options,
    };
    if live {
        let timeline = Timeline::starting_from(start).replay_unfinished(events);
        return Ok(Box::new(opened.into_doc(timeline, arrival_nanos, None)));
    }
    if events.len() <= load_options.sync_events {
        // P13: the two profiles in lockstep, for the timeline's marks and
        // the inspector (not for a live session, whose events keep coming).
        let (shown, other) = opened.comparison();
        let divergences = crate::replay::replay_comparing(shown, other, &events).1;
        let timeline = Timeline::starting_from(start).replay(events);
        let mut doc = opened.into_doc(timeline, arrival_nanos, None);
        doc.divergences = divergences;
        return Ok(Box::new(doc));
    }
    // Long: the first chunk now, the rest in the background.
    let mut timeline =
        Timeline::starting_from(start).replay_unfinished(crate::input::EventLog::default());
    let total = events.len() as u64;
    timeline.extend_from(&events, load_options.plan.chunk_events);
    let shown = arrival_nanos[..timeline.len()].to_vec();
    let comparison = opened.comparison();
    let indexing = Indexing::start(
        timeline.clone(),
        MemorySource {
            events,
            arrivals: arrival_nanos,
        },
        total,
        comparison,
        load_options.plan,
    );
    Ok(Box::new(opened.into_doc(timeline, shown, Some(indexing))))
}

/// What a document is made of, before its timeline.
struct Opened {
    path: PathBuf,
    sessions: Vec<SessionInfo>,
    session: Option<i64>,
    source: Source,
    recording: Option<Recording>,
    live: bool,
    options: Options,
    timing: Timing,
}

impl Opened {
    /// Step 0 under the profile shown and under the other one (P13).
    fn comparison(&self) -> (crate::replay::Replayer, crate::replay::Replayer) {
        (
            self.source.start(self.options),
            self.source
                .start(crate::replay::Lockstep::other_options(self.options)),
        )
    }

    /// The document showing `timeline` (whole, or growing while `indexing`
    /// goes on).
    fn into_doc(
        self,
        timeline: Timeline,
        arrival_nanos: Vec<u64>,
        indexing: Option<Indexing>,
    ) -> Doc {
        let mut doc = Doc {
            counts: SeverityCounts::default(),
            path: self.path,
            sessions: self.sessions,
            session: self.session,
            source: self.source,
            timeline: timeline.into(),
            arrival_nanos,
            timing: self.timing,
            recording: self.recording,
            live: self.live,
            divergences: Vec::new(),
            indexing,
            cancelled: None,
            schema_findings: Vec::new(),
            schema_finding_steps: Vec::new(),
            schema_check: None,
        };
        doc.recount();
        doc
    }
}

/// Opens a finished recording's session with its events left in the file:
/// the first chunk replayed now, the rest indexed in the background.
/// `None`: a session still being written, read into memory as before (it
/// grows as it is followed).
/// A protobuf session recorded before its frames were decoded (issue 15.6):
/// its chunks are read whole and framed again ([`open_source`]).
fn is_raw_protobuf(recording: &Recording, info: &crate::store::SessionInfo) -> bool {
    info.format == "protobuf"
        && recording
            .events(info.id, 1..2)
            .ok()
            .and_then(|events| events.first().map(|e| e.raw.first() != Some(&b'{')))
            .unwrap_or(false)
}

fn open_recording(
    path: &Path,
    recording: Recording,
    session: Option<i64>,
    options: Options,
    load_options: LoadOptions,
) -> Result<Option<Doc>, String> {
    let info = match recording.pick_session(session) {
        Ok(info) => info.clone(),
        // Several sessions and none picked: show the first; the session
        // picker offers the others.
        Err(StoreError::SessionNeeded { .. }) if session.is_none() => recording
            .pick_session(Some(1))
            .map_err(|e| error_chain(&e))?
            .clone(),
        Err(error) => return Err(error_chain(&error)),
    };
    let total = info.num_events as usize;
    let reader = recording
        .file_events(info.id)
        .map_err(|e| error_chain(&e))?
        .with_len(total);
    let last_arrival = match total {
        0 => 0,
        n => reader.arrivals(n - 1..n)?.first().copied().unwrap_or(0),
    };
    if is_being_written(&info, last_arrival) || is_raw_protobuf(&recording, &info) {
        return Ok(None);
    }
    let source = Source {
        events: crate::input::EventLog::default(),
        format: format!("recording ({})", info.format),
        diagnostics: info.reader_diagnostics.clone(),
        declared_profile: recording.declared_profile(info.id),
        run_input: info.run_input(),
        num_sessions: recording.sessions().len(),
        sessions: Vec::new(),
        arrival_nanos: None,
        session: Some(info.clone()),
        exchanges: Vec::new(),
    };
    let shown_events = recording
        .file_events(info.id)
        .map_err(|e| error_chain(&e))?;
    let imported = info.source.starts_with("import");
    let opened = |recording: Recording, timing: Timing| Opened {
        path: path.to_owned(),
        sessions: recording.sessions().to_vec(),
        session: Some(info.id.get()),
        source,
        recording: Some(recording),
        live: false,
        options,
        timing,
    };
    // A recording whose index is stored with it (issue 14, point 2), unless
    // `load_options.stored_index` says to ignore it, opens with that
    // timeline: whole at once, its events left in the file (and, when the
    // index holds them, the arrival times too: no event's row is read);
    // only the profiles' comparison (P13) runs in the background. Without
    // one (or with one that is stale or damaged), it is indexed here.
    let stored = match load_options.stored_index {
        true => recording
            .stored_timeline_and_arrivals_of(info.id, options, shown_events.with_len(total))
            .ok()
            .and_then(Result::ok),
        false => None,
    };
    if let Some((timeline, arrivals)) = stored {
        // An index without the arrival times (an older writer's) leaves
        // them in the events' rows.
        let arrivals = match arrivals {
            Some(arrivals) => arrivals,
            None => reader.arrivals(0..total)?,
        };
        let opened = opened(recording, Timing::of_recorded(&arrivals, imported));
        let comparison = opened.comparison();
        let indexing = Indexing::compare_only(reader, total as u64, comparison, load_options.plan);
        return Ok(Some(opened.into_doc(timeline, arrivals, Some(indexing))));
    }
    let first_arrivals = reader.arrivals(0..total.min(load_options.plan.chunk_events))?;
    let timing = Timing::of_recorded_prefix(&first_arrivals, last_arrival, total, imported);
    let opened = opened(recording, timing);
    let start = opened.source.start(options);
    let mut timeline = Timeline::starting_from(start).over_file(shown_events);
    let first = if total <= load_options.sync_events {
        total
    } else {
        load_options.plan.chunk_events
    };
    timeline.extend_from(&reader, first);
    if let Some(error) = reader.read_error() {
        return Err(error);
    }
    let arrivals = reader.arrivals(0..timeline.len())?;
    if timeline.len() >= total {
        timeline.finish();
        let (shown, other) = opened.comparison();
        let divergences = crate::replay::replay_comparing(shown, other, timeline.events()).1;
        let mut doc = opened.into_doc(timeline, arrivals, None);
        doc.divergences = divergences;
        return Ok(Some(doc));
    }
    let comparison = opened.comparison();
    let indexing = Indexing::start(
        timeline.clone(),
        reader,
        total as u64,
        comparison,
        load_options.plan,
    );
    Ok(Some(opened.into_doc(timeline, arrivals, Some(indexing))))
}

/// How long a session still marked incomplete may have been silent and
/// still count as being written; older, its writer is taken to have died
/// (the end-of-stream checks then run, as `check` does).
pub const WRITER_SILENCE_MS: i64 = 60_000;

/// Whether a session is still being written: incomplete, with its last
/// event (or its start) less than [`WRITER_SILENCE_MS`] ago.
fn is_being_written(session: &SessionInfo, last_arrival_nanos: u64) -> bool {
    let last_event_ms = session
        .started_at_unix_ms
        .saturating_add(i64::try_from(last_arrival_nanos / 1_000_000).unwrap_or(i64::MAX));
    session.is_open()
        && crate::store::now_unix_ms().saturating_sub(last_event_ms) < WRITER_SILENCE_MS
}

/// Arrival times of a plain stream file: from the events' `timestamp`s
/// when they have them, 100 ms apart otherwise; never going backwards (the
/// rule an imported file follows: [`crate::input::Arrivals`]).
fn derived_arrivals(source: &Source) -> (Vec<u64>, Timing) {
    let mut arrivals = crate::input::Arrivals::default();
    let mut num_untimed = 0;
    let nanos = source
        .events
        .iter()
        .map(|(_, raw)| {
            let timestamp = crate::input::EventKeys::of(raw).timestamp;
            num_untimed += usize::from(timestamp.is_none());
            arrivals.next(timestamp)
        })
        .collect::<Vec<_>>();
    let timing = match num_untimed {
        0 => Timing::Timestamps,
        n if n == nanos.len() => Timing::Invented,
        n => Timing::PartlyInvented { num_untimed: n },
    };
    (nanos, timing)
}

/// A recording with no session yet (the proxy has just started): an empty
/// document, live, that opens the first session once it appears.
fn waiting_for_a_session(path: &Path, recording: Recording, options: Options) -> Doc {
    let source = Source {
        events: crate::input::EventLog::default(),
        format: "recording".to_owned(),
        diagnostics: Vec::new(),
        declared_profile: None,
        run_input: None,
        session: None,
        num_sessions: 0,
        sessions: Vec::new(),
        arrival_nanos: None,
        exchanges: Vec::new(),
    };
    let start = source.start(options);
    Doc {
        path: path.to_owned(),
        sessions: Vec::new(),
        session: None,
        timeline: Timeline::starting_from(start)
            .replay_unfinished(crate::input::EventLog::default())
            .into(),
        source,
        arrival_nanos: Vec::new(),
        timing: Timing::Recorded,
        counts: SeverityCounts::default(),
        recording: Some(recording),
        live: true,
        divergences: Vec::new(),
        indexing: None,
        cancelled: None,
        schema_findings: Vec::new(),
        schema_finding_steps: Vec::new(),
        schema_check: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_times_all_alike_or_spaced_as_import_invents_are_marked() {
        // Issue 13, point 10.
        let step = crate::input::UNTIMED_STEP_NANOS;
        assert_eq!(Timing::of_recorded(&[0, 0, 0], false), Timing::Untimed);
        assert_eq!(Timing::of_recorded(&[5, 5], true), Timing::Untimed);
        assert_eq!(
            Timing::of_recorded(&[0, step, 2 * step], true),
            Timing::Invented
        );
        // A recording made live may well have such times by chance: only
        // an import invents them.
        assert_eq!(
            Timing::of_recorded(&[0, step, 2 * step], false),
            Timing::Recorded
        );
        assert_eq!(Timing::of_recorded(&[0, 7, 9], true), Timing::Recorded);
        assert_eq!(Timing::of_recorded(&[3], false), Timing::Recorded);
        assert!(Timing::Untimed.is_invented() && !Timing::Timestamps.is_invented());
        assert_eq!(Timing::Recorded.label(), None);
    }
}
