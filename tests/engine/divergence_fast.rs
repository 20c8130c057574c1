//! Issue 40: `check` (and every caller of `replay_comparing`) replays the
//! second profile only where it can part from the first; the full replay
//! of both profiles in lockstep (`replay_comparing_fully`) is the
//! reference. On every vector, every fixture of the conformance corpus,
//! the demo recording, the samples, generated streams and a few hundred
//! random differential streams, the two give the same primary replay
//! (diagnostics, effects, outcome, messages, state) and the same
//! `profile.divergence` diagnostics (P13).

use std::path::Path;

use agui_replay::conformance::{folder_version, read_dir};
use agui_replay::open::open_source;
use agui_replay::protocol::ProtocolVersion;
use agui_replay::replay::{Lockstep, replay_comparing, replay_comparing_fully};
use agui_replay::{EventLog, Options, Profile, Replayer};
use serde_json::Value;

use crate::common::generator::{GenConfig, generate};
use crate::common::{demo, demo_rec, har, manifest_path, sample, vector_paths};
use crate::conformance::differential::streams::{render, stream};

/// The option sets each stream is replayed with: `spec` first (where the
/// shortcut applies), then best-effort, then the client as the primary.
fn option_sets(protocol: ProtocolVersion) -> [Options; 3] {
    let spec = Options {
        protocol,
        ..Options::default()
    };
    [
        spec,
        Options {
            best_effort: true,
            ..spec
        },
        Options {
            profile: Profile::AgUiClient10,
            ..spec
        },
    ]
}

/// Replays `log` both ways under every option set and asserts that they
/// agree; returns the number of `profile.divergence` diagnostics found.
fn assert_same(
    label: &str,
    log: &EventLog,
    input: Option<&Value>,
    protocol: ProtocolVersion,
) -> usize {
    let start = |options: Options| match input {
        Some(input) => Replayer::with_run_input(options, input),
        None => Replayer::new(options),
    };
    let mut found = 0;
    for options in option_sets(protocol) {
        let other = Lockstep::other_options(options);
        let (fast, fast_found) = replay_comparing(start(options), start(other), log);
        let (full, full_found) = replay_comparing_fully(start(options), start(other), log);
        let label = format!("{label} ({options:?})");
        assert_eq!(fast_found, full_found, "{label}: profile.divergence");
        assert_eq!(
            fast.diagnostics(),
            full.diagnostics(),
            "{label}: diagnostics"
        );
        assert_eq!(fast.effects(), full.effects(), "{label}: effects");
        assert_eq!(fast.outcome(), full.outcome(), "{label}: outcome");
        assert_eq!(fast.step(), full.step(), "{label}: step");
        assert_eq!(
            fast.conversation().to_json(),
            full.conversation().to_json(),
            "{label}: messages"
        );
        assert_eq!(fast.state(), full.state(), "{label}: state");
        found += full_found.len();
    }
    found
}

fn log_of(texts: impl IntoIterator<Item = String>) -> EventLog {
    let mut log = EventLog::default();
    for text in texts {
        log.push(text.as_bytes());
    }
    log
}

fn assert_same_file(path: &Path, session: Option<i64>) -> usize {
    let source = open_source(path, session).expect("the file opens");
    assert_same(
        &format!("{} (session {session:?})", path.display()),
        &source.events,
        source.run_input.as_ref(),
        ProtocolVersion::default(),
    )
}

/// Every vector of `tests/vectors/`.
#[test]
fn the_shortcut_reports_what_both_replays_report_on_every_vector() {
    let mut found = 0;
    for path in vector_paths() {
        found += assert_same_file(&path, None);
    }
    // The vectors of the client profile part the two (P13): the
    // comparison is not vacuous.
    assert!(found > 0, "no profile.divergence in the vectors");
}

/// The demo recording (both forms) and the samples.
#[test]
fn the_shortcut_reports_what_both_replays_report_on_the_demo_and_the_samples() {
    for path in [demo(), demo_rec(), sample()] {
        assert_same_file(&path, None);
    }
    for session in [1, 2] {
        assert_same_file(&har(), Some(session));
    }
}

/// Every fixture of the conformance corpus, under its folder's version.
#[test]
fn the_shortcut_reports_what_both_replays_report_on_the_conformance_corpus() {
    let mut fixtures = 0;
    for folder in ["1.0", "1.1", "draft"] {
        let dir = manifest_path(&format!("tests/conformance/{folder}"));
        let protocol = folder_version(&dir).expect("a version folder");
        for fixture in read_dir(&dir).expect("the corpus reads") {
            let log = log_of(fixture.stream.iter().map(Value::to_string));
            assert_same(&fixture.name, &log, fixture.input.as_ref(), protocol);
            fixtures += 1;
        }
    }
    assert!(fixtures > 100, "only {fixtures} fixtures read");
}

/// Generated streams: mostly deltas the shortcut takes, some failing on
/// purpose (which the second profile then applies itself), deltas to
/// unknown ids, replacing snapshots, state deltas and text.
#[test]
fn the_shortcut_reports_what_both_replays_report_on_generated_streams() {
    for (events, activities, seed) in [(3_000, 12, 1), (2_000, 3, 40), (1_500, 1, 7)] {
        let log = generate(GenConfig {
            events,
            activities,
            seed,
        });
        assert_same(
            &format!("generated {events}/{activities}/{seed}"),
            &log,
            None,
            ProtocolVersion::default(),
        );
    }
}

/// Random differential streams (issue 18's generator), the corners where
/// the two profiles part drawn often; seed 40 with index 760 among them
/// (a panic of the client's applier was once seen there).
#[test]
fn the_shortcut_reports_what_both_replays_report_on_random_streams() {
    let mut found = 0;
    for index in 0..800 {
        let events = stream(40, index);
        let log = log_of(events.iter().map(render));
        found += assert_same(
            &format!("differential seed 40 index {index}"),
            &log,
            None,
            ProtocolVersion::default(),
        );
    }
    assert!(found > 0, "the random streams part the profiles somewhere");
}
