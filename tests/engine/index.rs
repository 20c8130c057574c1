//! The indices a timeline is drawn from (`StreamIndex`), checked on every
//! conformance vector of `tests/vectors` against the events as sent and the
//! replay's own effects and diagnostics: the kind of each event, the counts
//! per kind, the steps with diagnostics of each severity, and the activity
//! lanes.

use std::collections::BTreeSet;
use std::path::Path;

use agui_replay::timeline::{EventKind, NUM_KINDS, Timeline};
use agui_replay::{
    ActivityChange, Code, Effect, EventType, Options, ParseOutcome, Profile, Seq, Severity,
    parse_event, read_path,
};
use serde_json::Value;

use crate::common::{load, vector as vector_path, vector_paths};

fn name_of(path: &Path) -> String {
    path.file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// The vector's timeline, replayed with the profile it declares.
fn timeline_of(path: &Path) -> (Value, Timeline) {
    let vector = load(path);
    let profile: Profile = vector["profile"]
        .as_str()
        .unwrap_or("spec")
        .parse()
        .expect("profile");
    let stream = read_path(path).expect("the vector reads");
    let timeline = Timeline::from_log(
        stream.events,
        Options {
            profile,
            best_effort: false,
            ..Options::default()
        },
    );
    (vector, timeline)
}

/// The kind of an event as sent (R41, R42).
fn kind_of(event: &Value) -> EventKind {
    match event.get("type").and_then(Value::as_str) {
        Some(name) if event.is_object() => {
            EventType::from_name(name).map_or(EventKind::UnknownType, EventKind::Known)
        }
        _ => EventKind::Unparseable,
    }
}

/// The `messageId` of an activity event, when it is a string.
fn activity_id(event: &Value) -> Option<&str> {
    match kind_of(event) {
        EventKind::Known(EventType::ActivitySnapshot | EventType::ActivityDelta) => {
            event.get("messageId").and_then(Value::as_str)
        }
        _ => None,
    }
}

/// What became of an event, as the change to its activity says.
fn effect_of(change: ActivityChange) -> Effect {
    use ActivityChange as C;
    match change {
        C::Created | C::Replaced | C::Declined | C::DeltaApplied | C::Retyped => Effect::Applied,
        C::SnapshotSkipped | C::DeltaSkipped | C::PatchFailed => Effect::Skipped,
        C::Fatal => Effect::Fatal,
        C::NotApplied => Effect::NotApplied,
    }
}

/// The changes a snapshot or a delta can make.
fn possible_changes(event_type: EventType) -> &'static [ActivityChange] {
    use ActivityChange as C;
    match event_type {
        EventType::ActivitySnapshot => &[
            C::Created,
            C::Replaced,
            C::Declined,
            C::SnapshotSkipped,
            C::Fatal,
            C::NotApplied,
        ],
        _ => &[
            C::DeltaApplied,
            C::Retyped,
            C::DeltaSkipped,
            C::PatchFailed,
            C::Fatal,
            C::NotApplied,
        ],
    }
}

/// The diagnostic a change comes with, if it always comes with one.
fn code_of(change: ActivityChange) -> Option<Code> {
    match change {
        ActivityChange::Declined => Some(Code::SnapshotDeclined),
        ActivityChange::Retyped => Some(Code::DeltaRetyped),
        ActivityChange::PatchFailed => Some(Code::PatchFailed),
        _ => None,
    }
}

/// Every mismatch between a vector's timeline index and its events.
fn index_problems(path: &Path) -> Vec<String> {
    let (vector, timeline) = timeline_of(path);
    let events = vector["events"].as_array().expect("events");
    let index = timeline.index();
    let effects = timeline.effects();
    let diagnostics = timeline.diagnostics();
    let n = events.len();
    let mut problems = Vec::new();
    if timeline.len() != n || effects.len() != n {
        problems.push(format!(
            "{} events read and {} effects for {n} events",
            timeline.len(),
            effects.len()
        ));
        return problems;
    }

    // Kinds, one per event, and none past the end.
    let mut expected_counts = [0u32; NUM_KINDS];
    for (i, event) in events.iter().enumerate() {
        let seq = Seq::from_index(i);
        let expected = kind_of(event);
        expected_counts[expected.index()] += 1;
        if index.kind(seq) != Some(expected) {
            problems.push(format!(
                "kind at seq {seq}: expected {expected:?}, got {:?}",
                index.kind(seq)
            ));
        }
    }
    for seq in [Seq::new(0), Seq::new(n as u64 + 1)] {
        if let Some(kind) = index.kind(seq) {
            problems.push(format!("a kind at seq {seq}, outside the stream: {kind:?}"));
        }
    }

    // Counts over the whole stream.
    let counts = index.counts(Seq::new(1)..=Seq::new(n as u64));
    let total: u32 = counts.iter().sum();
    if total as usize != n {
        problems.push(format!("counts sum to {total}, not {n}"));
    }
    for (i, (&got, &expected)) in counts.iter().zip(&expected_counts).enumerate() {
        if got != expected {
            let kind = EventKind::from_index(i).expect("a kind");
            problems.push(format!(
                "count of {}: expected {expected}, got {got}",
                kind.name()
            ));
        }
    }

    // Steps with diagnostics, per severity: exactly the seqs of the
    // diagnostics of that severity.
    for severity in Severity::ALL {
        let expected: Vec<Seq> = diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .map(|d| d.seq)
            .collect::<BTreeSet<Seq>>()
            .into_iter()
            .collect();
        if index.steps_with(severity) != expected.as_slice() {
            problems.push(format!(
                "steps with {severity:?}: expected {expected:?}, got {:?}",
                index.steps_with(severity)
            ));
        }
    }
    // Every diagnostic the vector expects is on its step, under the
    // severity the engine reported it with.
    for expected in vector["expect"]["diagnostics"].as_array().expect("expect") {
        let seq = Seq::new(expected["seq"].as_u64().expect("seq"));
        let code = expected["code"].as_str().expect("code");
        match diagnostics
            .iter()
            .find(|d| d.seq == seq && d.code.as_str() == code)
        {
            Some(d) if index.steps_with(d.severity).contains(&seq) => {}
            Some(d) => problems.push(format!(
                "{code} ({:?}) at seq {seq} is not in steps_with({:?}): {:?}",
                d.severity,
                d.severity,
                index.steps_with(d.severity)
            )),
            None => problems.push(format!("the engine did not report {code} at seq {seq}")),
        }
    }

    // Lanes: every activity event with a string messageId is in its lane,
    // with the change the engine reports for it; nothing else is.
    let mut first_seen: Vec<&str> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let Some(id) = activity_id(event) else {
            continue;
        };
        let seq = Seq::from_index(i);
        if !first_seen.contains(&id) {
            first_seen.push(id);
        }
        let effect = effects[i];
        let Some(change) = effect.activity else {
            problems.push(format!(
                "seq {seq}: an activity event with no activity change: {effect:?}"
            ));
            continue;
        };
        let EventKind::Known(event_type) = kind_of(event) else {
            unreachable!("activity_id only names known types");
        };
        if !possible_changes(event_type).contains(&change) {
            problems.push(format!(
                "seq {seq}: {change:?} from an {}",
                event_type.as_str()
            ));
        }
        if effect_of(change) != effect.effect {
            problems.push(format!(
                "seq {seq}: {change:?} with effect {:?}",
                effect.effect
            ));
        }
        if let Some(code) = code_of(change)
            && !diagnostics.iter().any(|d| d.seq == seq && d.code == code)
        {
            problems.push(format!("seq {seq}: {change:?} without {code}"));
        }
        match index.lane(id) {
            Some(lane) if lane.events.contains(&(seq, change).into()) => {}
            Some(lane) => problems.push(format!(
                "seq {seq}: ({seq}, {change:?}) is not in the lane of {id:?}: {:?}",
                lane.events
            )),
            None => problems.push(format!("seq {seq}: no lane for {id:?}")),
        }
    }
    let lane_ids: Vec<&str> = index
        .lanes()
        .iter()
        .map(|l| l.message_id.as_str())
        .collect();
    if lane_ids != first_seen {
        problems.push(format!(
            "lanes {lane_ids:?}, expected in order of first appearance {first_seen:?}"
        ));
    }
    for lane in index.lanes() {
        let expected: Vec<Seq> = events
            .iter()
            .enumerate()
            .filter(|(_, event)| activity_id(event) == Some(lane.message_id.as_str()))
            .map(|(i, _)| Seq::from_index(i))
            .collect();
        let got: Vec<Seq> = lane.events.iter().map(|e| e.seq()).collect();
        if got != expected {
            problems.push(format!(
                "lane {:?} holds seqs {got:?}, expected {expected:?}",
                lane.message_id
            ));
        }
        if index.lane(&lane.message_id) != Some(lane) {
            problems.push(format!("lane({:?}) is another lane", lane.message_id));
        }
        // Its type is that of the last of its events that reads.
        let last_type = events
            .iter()
            .filter(|event| activity_id(event) == Some(lane.message_id.as_str()))
            .filter(|event| {
                matches!(
                    parse_event(event.to_string().as_bytes()),
                    ParseOutcome::Event { .. }
                )
            })
            .filter_map(|event| event["activityType"].as_str())
            .next_back();
        if let Some(last_type) = last_type
            && lane.activity_type != last_type
        {
            problems.push(format!(
                "lane {:?} has type {:?}, its last event {last_type:?}",
                lane.message_id, lane.activity_type
            ));
        }
    }
    problems
}

#[test]
fn every_vector_is_indexed_as_its_events_and_replay_say() {
    let paths = vector_paths();
    assert!(paths.len() >= 35, "tests/vectors holds the shared vectors");
    let mut failures = Vec::new();
    for path in paths {
        for problem in index_problems(&path) {
            failures.push(format!("{}: {problem}", name_of(&path)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The lane of `message_id` in a vector's timeline.
fn lane_events(vector: &str, message_id: &str) -> Vec<(u64, ActivityChange)> {
    let (_, timeline) = timeline_of(&vector_path(vector));
    let lane = timeline
        .index()
        .lane(message_id)
        .unwrap_or_else(|| panic!("{vector}: no lane for {message_id:?}"));
    lane.events
        .iter()
        .map(|e| (e.seq().get(), e.change()))
        .collect()
}

#[test]
fn a_failed_patch_shows_on_its_lane() {
    assert_eq!(
        lane_events("failed-patch-is-atomic", "act-1"),
        [
            (2, ActivityChange::Created),
            (3, ActivityChange::PatchFailed)
        ]
    );
    let (_, timeline) = timeline_of(&vector_path("failed-patch-is-atomic"));
    assert_eq!(
        timeline.index().steps_with(Severity::Warning),
        [Seq::new(3)]
    );
    assert_eq!(timeline.index().steps_with(Severity::Error), []);
}

#[test]
fn a_declined_snapshot_shows_on_its_lane() {
    assert_eq!(
        lane_events("replace-false-leaves-existing", "act-1"),
        [(2, ActivityChange::Created), (3, ActivityChange::Declined)]
    );
    let (_, timeline) = timeline_of(&vector_path("replace-false-leaves-existing"));
    assert!(
        timeline
            .index()
            .steps_with(Severity::Info)
            .contains(&Seq::new(3))
    );
}

#[test]
fn a_retyping_delta_shows_on_its_lane_with_the_new_type() {
    let vector = load(&vector_path("delta-retypes-activity"));
    let delta = &vector["events"][2];
    let id = delta["messageId"].as_str().expect("messageId");
    assert_eq!(
        lane_events("delta-retypes-activity", id),
        [(2, ActivityChange::Created), (3, ActivityChange::Retyped)]
    );
    let (_, timeline) = timeline_of(&vector_path("delta-retypes-activity"));
    let lane = timeline.index().lane(id).expect("the lane");
    assert_eq!(
        lane.activity_type,
        delta["activityType"].as_str().expect("type")
    );
    assert_ne!(
        lane.activity_type,
        vector["events"][1]["activityType"].as_str().expect("type"),
        "the vector retypes"
    );
}

#[test]
fn an_owner_mismatch_is_fatal_on_its_lane_and_later_events_not_applied() {
    let vector = load(&vector_path("tagged-delta-owner-mismatch-is-fatal"));
    let id = vector["events"][1]["messageId"]
        .as_str()
        .expect("messageId");
    assert_eq!(
        lane_events("tagged-delta-owner-mismatch-is-fatal", id),
        [
            (2, ActivityChange::Created),
            (3, ActivityChange::Fatal),
            (4, ActivityChange::NotApplied)
        ]
    );
    let (_, timeline) = timeline_of(&vector_path("tagged-delta-owner-mismatch-is-fatal"));
    assert_eq!(timeline.index().steps_with(Severity::Error), [Seq::new(3)]);
    assert_eq!(
        timeline.effects()[4].effect,
        Effect::NotApplied,
        "RUN_FINISHED after the fatal"
    );
}

#[test]
fn an_unknown_type_is_counted_as_such() {
    let (vector, timeline) = timeline_of(&vector_path("unknown-event-type-dropped"));
    let index = timeline.index();
    assert_eq!(index.kind(Seq::new(2)), Some(EventKind::UnknownType));
    assert_eq!(
        index.kind(Seq::new(1)),
        Some(EventKind::Known(EventType::RunStarted))
    );
    let n = vector["events"].as_array().expect("events").len() as u64;
    let counts = index.counts(Seq::new(1)..=Seq::new(n));
    assert_eq!(counts[EventKind::UnknownType.index()], 1);
    assert_eq!(counts[EventKind::Unparseable.index()], 0);
    // A range holding only the unknown event.
    let counts = index.counts(Seq::new(2)..=Seq::new(2));
    assert_eq!(counts.iter().sum::<u32>(), 1);
    assert_eq!(counts[EventKind::UnknownType.index()], 1);
    assert_eq!(index.steps_with(Severity::Warning), [Seq::new(2)]);
}

#[test]
fn a_malformed_snapshot_has_a_lane_and_is_fatal() {
    let (vector, timeline) = timeline_of(&vector_path("null-metadata-is-fatal"));
    let id = vector["events"][1]["messageId"]
        .as_str()
        .expect("messageId");
    let lane = timeline
        .index()
        .lane(id)
        .expect("a lane for the malformed snapshot");
    assert_eq!(lane.events, [(Seq::new(2), ActivityChange::Fatal).into()]);
    assert_eq!(
        timeline.index().kind(Seq::new(2)),
        Some(EventKind::Known(EventType::ActivitySnapshot))
    );
    assert_eq!(timeline.index().steps_with(Severity::Error), [Seq::new(2)]);
}

#[test]
fn events_that_are_not_objects_with_a_string_type_are_unparseable() {
    let lines: [&[u8]; 7] = [
        br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        b"7",
        br#"{"type":5}"#,
        b"not json",
        br#"["RUN_STARTED"]"#,
        br#"{"type":"ACME_PING"}"#,
        br#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ];
    let mut log = agui_replay::EventLog::default();
    for line in lines {
        log.push(line);
    }
    let timeline = Timeline::from_log(
        log,
        Options {
            profile: Profile::Spec,
            best_effort: true,
            ..Options::default()
        },
    );
    let index = timeline.index();
    let kinds: Vec<Option<EventKind>> = (1..=7).map(|seq| index.kind(Seq::new(seq))).collect();
    assert_eq!(
        kinds,
        [
            Some(EventKind::Known(EventType::RunStarted)),
            Some(EventKind::Unparseable),
            Some(EventKind::Unparseable),
            Some(EventKind::Unparseable),
            Some(EventKind::Unparseable),
            Some(EventKind::UnknownType),
            Some(EventKind::Known(EventType::RunFinished)),
        ]
    );
    let counts = index.counts(Seq::new(1)..=Seq::new(7));
    assert_eq!(counts[EventKind::Unparseable.index()], 4);
    assert_eq!(counts[EventKind::UnknownType.index()], 1);
    assert_eq!(counts.iter().sum::<u32>(), 7);
    assert_eq!(
        index.steps_with(Severity::Error),
        [Seq::new(2), Seq::new(3), Seq::new(4), Seq::new(5)]
    );
    assert_eq!(index.steps_with(Severity::Warning), [Seq::new(6)]);
    assert!(index.lanes().is_empty());
}

/// Counts over any range of a stream longer than a histogram bucket equal
/// the kinds of the events in it, counted one by one.
#[test]
fn counts_over_any_range_equal_the_kinds_in_it() {
    use crate::common::generator::{GenConfig, generate};

    let log = generate(GenConfig {
        events: 3_000,
        activities: 12,
        seed: 4,
    });
    let kinds: Vec<EventKind> = log
        .iter()
        .map(|(_, raw)| EventKind::of(&parse_event(raw)))
        .collect();
    let timeline = Timeline::from_log(log, Options::default());
    let index = timeline.index();
    for (i, kind) in kinds.iter().enumerate() {
        assert_eq!(index.kind(Seq::from_index(i)), Some(*kind), "seq {}", i + 1);
    }
    let n = kinds.len() as u64;
    let bounds = [
        1, 2, 255, 256, 257, 511, 512, 513, 1_000, 2_047, 2_999, 3_000,
    ];
    for &start in &bounds {
        for &end in &bounds {
            let mut expected = [0u32; NUM_KINDS];
            for kind in kinds.iter().take(end as usize).skip(start as usize - 1) {
                expected[kind.index()] += 1;
            }
            assert_eq!(
                index.counts(Seq::new(start)..=Seq::new(end)),
                expected,
                "counts({start}..={end})"
            );
        }
    }
    // Clamped to the stream.
    assert_eq!(
        index.counts(Seq::new(0)..=Seq::new(n + 100)),
        index.counts(Seq::new(1)..=Seq::new(n))
    );
    assert_eq!(index.counts(Seq::new(1)..=Seq::new(0)), [0; NUM_KINDS]);
}
