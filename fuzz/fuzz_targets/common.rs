//! What the targets share: reading a stream the way the command line does,
//! and replaying it under every profile with the seek == replay check.

#![allow(dead_code)]

use std::path::Path;

use agui_replay::diagnostic::Seq;
use agui_replay::input::{EventLog, Stream};
use agui_replay::replay::{Options, Profile, Replayer, replay_from, replay_from_to};
use agui_replay::timeline::{CheckpointPolicy, Timeline};
use agui_replay::{parse_event, read_bytes};

/// Replays cost time per event; bigger logs are replayed without the
/// step-by-step checks so that one input stays well under the timeout.
const MAX_EVENTS_CHECKED: usize = 128;

/// How many steps the seek check compares, spread over the stream.
const MAX_SEEKS: usize = 12;

/// Reads `bytes` as the file `name` (its extension picks the format).
pub fn read(bytes: &[u8], name: &str) -> Option<Stream> {
    read_bytes(bytes, Path::new(name)).ok()
}

/// Parses every event of a log (the protocol layer, R41/R42).
pub fn parse_all(log: &EventLog) {
    for (_, raw) in log.iter() {
        let _ = parse_event(raw);
    }
}

fn start(options: Options, run_input: Option<&serde_json::Value>) -> Replayer {
    match run_input {
        Some(input) => Replayer::with_run_input(options, input),
        None => Replayer::new(options),
    }
}

/// Replays `log` under both profiles (strict and best effort), and checks
/// that seeking through a timeline with many checkpoints gives the state a
/// replay from the start gives.
pub fn replay_checked(log: &EventLog, run_input: Option<&serde_json::Value>) {
    for profile in Profile::ALL {
        for best_effort in [false, true] {
            let options = Options {
                profile,
                best_effort,
                ..Options::default()
            };
            let whole = replay_from(start(options, run_input), log);
            let _ = whole.document();
            let _ = whole.outcome();
            if log.len() > MAX_EVENTS_CHECKED || best_effort {
                continue;
            }
            // A checkpoint every few events: seeking thaws one and replays
            // the rest, which must land on the very same state.
            let policy = CheckpointPolicy {
                max_cost: 64,
                op_cost: 16,
            };
            let timeline = Timeline::starting_from(start(options, run_input))
                .policy(policy)
                .replay(log.clone());
            assert_eq!(
                timeline.head().document(),
                whole.document(),
                "the timeline's last step differs from the replay ({profile})"
            );
            assert_eq!(
                timeline.diagnostics(),
                whole.diagnostics(),
                "the timeline's diagnostics differ from the replay's ({profile})"
            );
            let len = log.len();
            let stride = (len / MAX_SEEKS).max(1);
            for step in (0..=len).step_by(stride) {
                let seq = Seq::new(step as u64);
                let sought = timeline.seek(seq);
                let replayed = replay_from_to(start(options, run_input), log, seq);
                assert_eq!(
                    sought.document(),
                    replayed.document(),
                    "seek({step}) differs from a replay to step {step} ({profile})"
                );
                assert_eq!(
                    sought.outcome(),
                    replayed.outcome(),
                    "seek({step}) has another outcome than a replay to step {step} ({profile})"
                );
            }
        }
    }
}
