//! A deterministic generator of realistic activity-heavy streams.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::{Value, json};

use agui_replay::input::EventLog;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// The number of events, `RUN_STARTED` and `RUN_FINISHED` included.
    pub events: usize,
    /// The number of activities.
    pub activities: usize,
    /// The seed: the same config gives the same bytes.
    pub seed: u64,
}

impl Default for GenConfig {
    fn default() -> Self {
        Self {
            events: 1_000_000,
            activities: 100,
            seed: 7,
        }
    }
}

const ACTIVITY_TYPES: [&str; 6] = [
    "web_search",
    "checklist",
    "progress",
    "hotel_search",
    "code_run",
    "plan",
];

/// Items an activity holds at most (keeps contents bounded).
const MAX_ITEMS: usize = 8;

struct Activity {
    id: String,
    activity_type: &'static str,
    created: bool,
    items: usize,
    next_item: u64,
}

/// A text message being streamed.
struct OpenText {
    id: String,
    contents_left: u32,
}

/// Generates the stream: one run; every activity created by a snapshot in the
/// first tenth of the stream, then amended by deltas (add, remove, replace,
/// move; about 1% failing on purpose, 0.5% aimed at unknown ids), with the
/// odd replacing snapshot, state delta and streamed text message; about 200
/// bytes an event.
pub fn generate(config: GenConfig) -> EventLog {
    let mut log = EventLog::with_capacity(config.events * 210, config.events);
    generate_each(config, |line| {
        log.push(line.as_bytes());
    });
    log
}

/// Writes the stream to `path` as JSON lines.
pub fn write_jsonl(config: GenConfig, path: &std::path::Path) -> std::io::Result<()> {
    use std::io::Write;
    let mut writer = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut written = Ok(());
    generate_each(config, |line| {
        if written.is_ok() {
            written = writeln!(writer, "{line}");
        }
    });
    written?;
    writer.flush()
}

/// Generates the stream, handing each event's JSON text to `emit`.
pub fn generate_each(config: GenConfig, mut emit: impl FnMut(&str)) {
    let mut out = |value: Value| emit(&value.to_string());
    let n = config.events;
    if n == 0 {
        return;
    }
    let mut rng = Pcg64Mcg::seed_from_u64(config.seed);
    let mut activities: Vec<Activity> = (0..config.activities)
        .map(|i| Activity {
            id: format!("act-{i:04}"),
            activity_type: ACTIVITY_TYPES[i % ACTIVITY_TYPES.len()],
            created: false,
            items: 0,
            next_item: 0,
        })
        .collect();
    let mut num_created = 0;
    let mut text: Option<OpenText> = None;
    let mut num_texts = 0u64;
    let mut counter = 0u64;

    out(json!({"type": "RUN_STARTED", "threadId": "bench-thread", "runId": "bench-run"}));
    let body = n.saturating_sub(2);
    let creation_span = (body / 10).max(1);
    for step in 0..body {
        // Create every activity within the first tenth of the stream.
        if num_created < activities.len() && step * activities.len() >= num_created * creation_span
        {
            let activity = &mut activities[num_created];
            activity.created = true;
            activity.items = 2;
            activity.next_item = 2;
            out(snapshot(activity, &mut rng));
            num_created += 1;
            continue;
        }
        // A streamed text message now and then (never near the end).
        if let Some(open) = &mut text {
            if rng.random_bool(0.5) {
                if open.contents_left == 0 {
                    out(json!({"type": "TEXT_MESSAGE_END", "messageId": open.id}));
                    text = None;
                } else {
                    open.contents_left -= 1;
                    out(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": open.id,
                        "delta": "streaming a sentence of about forty characters. "}));
                }
                continue;
            }
        } else if step + 20 < body && rng.random_bool(0.01) {
            num_texts += 1;
            let id = format!("msg-{num_texts}");
            out(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}));
            text = Some(OpenText {
                id,
                contents_left: rng.random_range(2..8),
            });
            continue;
        }
        if num_created == 0 {
            // No activity at all (`--activities 0`): ticks keep the count.
            out(json!({"type": "CUSTOM", "name": "bench.tick", "value": step}));
            continue;
        }
        let roll: f64 = rng.random();
        counter += 1;
        if roll < 0.005 {
            // A delta to an activity no snapshot created (R12).
            out(
                json!({"type": "ACTIVITY_DELTA", "messageId": format!("ghost-{counter}"),
                "activityType": "web_search",
                "patch": [{"op": "replace", "path": "/progress", "value": counter}]}),
            );
        } else if roll < 0.015 {
            // A patch that fails on purpose (R14).
            let activity = &activities[rng.random_range(0..num_created)];
            out(json!({"type": "ACTIVITY_DELTA", "messageId": activity.id,
                "activityType": activity.activity_type,
                "patch": [{"op": "replace", "path": "/progress", "value": counter},
                          {"op": "replace", "path": format!("/missing/{counter}"), "value": 1}]}));
        } else if roll < 0.018 {
            let i = rng.random_range(0..num_created);
            let activity = &mut activities[i];
            activity.items = 2;
            out(snapshot(activity, &mut rng));
        } else if roll < 0.028 {
            out(json!({"type": "STATE_DELTA", "delta": [
                {"op": "add", "path": "/counter", "value": counter},
                {"op": "add", "path": "/last", "value": format!("act-{:04}", counter % 100)}]}));
        } else {
            let i = rng.random_range(0..num_created);
            let activity = &mut activities[i];
            out(delta(activity, counter, &mut rng));
        }
    }
    if n >= 2 {
        out(json!({"type": "RUN_FINISHED", "threadId": "bench-thread", "runId": "bench-run"}));
    }
}

fn item(id: u64) -> Value {
    json!({"id": id, "label": format!("result {id}: a line of text"), "score": id % 97})
}

fn snapshot(activity: &mut Activity, rng: &mut Pcg64Mcg) -> Value {
    let first = activity.next_item;
    activity.next_item += 2;
    json!({
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": activity.id,
        "activityType": activity.activity_type,
        "content": {
            "title": format!("{} {}", activity.activity_type, activity.id),
            "status": "running",
            "progress": rng.random_range(0..100),
            "items": [item(first), item(first + 1)],
        },
    })
}

fn delta(activity: &mut Activity, counter: u64, rng: &mut Pcg64Mcg) -> Value {
    let mut ops = Vec::with_capacity(2);
    let choice = rng.random_range(0..10);
    match choice {
        0..=3 if activity.items < MAX_ITEMS => {
            activity.items += 1;
            activity.next_item += 1;
            ops.push(json!({"op": "add", "path": "/items/-", "value": item(activity.next_item)}));
        }
        0..=5 if activity.items > 0 => {
            activity.items -= 1;
            ops.push(json!({"op": "remove", "path": "/items/0"}));
        }
        6 if activity.items >= 2 => {
            ops.push(json!({"op": "move", "from": "/items/0", "path": "/items/-"}));
        }
        7 => {
            ops.push(json!({"op": "replace", "path": "/status",
                "value": if counter.is_multiple_of(2) { "running" } else { "waiting" }}));
        }
        _ => {}
    }
    ops.push(json!({"op": "replace", "path": "/progress", "value": counter % 100}));
    json!({
        "type": "ACTIVITY_DELTA",
        "messageId": activity.id,
        "activityType": activity.activity_type,
        "patch": ops,
    })
}

/// One text message streamed as `deltas` one-character
/// `TEXT_MESSAGE_CONTENT`s, in one run (issue 38: an LLM streaming a long
/// answer token by token): 60 bytes a delta.
pub fn long_message_each(deltas: usize, mut emit: impl FnMut(&str)) {
    emit(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
    emit(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#);
    let letters = b"abcdefghijklmnopqrstuvwxyz";
    for i in 0..deltas {
        let letter = char::from(letters[i % letters.len()]);
        emit(&format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"{letter}"}}"#
        ));
    }
    emit(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#);
    emit(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#);
}

/// One activity whose `items` array `deltas` `ACTIVITY_DELTA`s grow by
/// `ops` `add` operations each, every one at the front (`/items/0`) or,
/// with `at_end`, at the end (`/items/-`), in one run (issue 38: front
/// inserts spread over many deltas).
pub fn inserts_each(deltas: usize, ops: usize, at_end: bool, mut emit: impl FnMut(&str)) {
    emit(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
    emit(
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"list","content":{"items":[]}}"#,
    );
    let path = if at_end { "/items/-" } else { "/items/0" };
    for d in 0..deltas {
        let patch: Vec<Value> = (0..ops)
            .map(|k| json!({"op": "add", "path": path, "value": d * ops + k}))
            .collect();
        emit(
            &json!({"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "list", "patch": patch})
                .to_string(),
        );
    }
    emit(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_exact_in_count() {
        let config = GenConfig {
            events: 3_000,
            activities: 20,
            seed: 11,
        };
        let a = generate(config);
        let b = generate(config);
        assert_eq!(a, b);
        assert_eq!(a.len(), 3_000);
        let c = generate(GenConfig { seed: 12, ..config });
        assert_ne!(a, c);
    }

    #[test]
    fn generated_stream_replays_with_the_planned_problems() {
        let log = generate(GenConfig {
            events: 5_000,
            activities: 30,
            seed: 3,
        });
        let replayer =
            agui_replay::replay::replay_log(&log, agui_replay::replay::Options::default());
        assert_eq!(replayer.outcome(), agui_replay::replay::Outcome::Ok);
        let count = |code| {
            replayer
                .diagnostics()
                .iter()
                .filter(|d| d.code == code)
                .count()
        };
        assert!(count(agui_replay::diagnostic::Code::PatchFailed) > 10);
        assert!(count(agui_replay::diagnostic::Code::DeltaUnknownTarget) > 5);
        // Nothing else goes wrong: every other diagnostic is one of those
        // two, or the `info` drift (E20, issue 17) that the odd replacing
        // snapshot shows: it resets an activity to two fresh items, which
        // is not what the deltas before it built (or, where no delta since
        // the last snapshot set the items, changed without a delta: issue
        // 39).
        assert!(count(agui_replay::diagnostic::Code::ActivityDrift) > 0);
        assert_eq!(
            count(agui_replay::diagnostic::Code::PatchFailed)
                + count(agui_replay::diagnostic::Code::DeltaUnknownTarget)
                + count(agui_replay::diagnostic::Code::ActivityDrift)
                + count(agui_replay::diagnostic::Code::ActivityDriftUnstreamed),
            replayer.diagnostics().len()
        );
        let activities = replayer
            .conversation()
            .iter()
            .filter(|m| m.role_name() == "activity")
            .count();
        assert_eq!(activities, 30);
        let mean = log.num_bytes() / log.len();
        assert!((150..=260).contains(&mean), "mean event size {mean}");
    }
}
