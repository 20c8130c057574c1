//! Indices built while events are appended, so that a timeline can be drawn
//! without scanning the stream: per-activity lanes, the lanes of the other
//! entities ([`super::entities`]), the steps with
//! diagnostics of each severity, and event counts per kind over step ranges.

use std::ops::RangeInclusive;

use crate::diagnostic::{Diagnostic, Seq, Severity};
use crate::protocol::{EventType, ParseOutcome};
use crate::replay::codec::{DecodeError, Decoded, Decoder, Encoder, change_byte, change_of};
use crate::replay::{ActivityChange, EventEffect};

use super::entities::EntityLanes;

/// What kind of event a step holds, as the density strip counts it.
/// Ordered as [`EventKind::index`] numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventKind {
    /// A known AG-UI 1.0 type (valid or malformed).
    Known(EventType),
    /// An unknown `type` (R42).
    UnknownType,
    /// Not an event at all (R41).
    Unparseable,
}

/// How many kinds there are: 31 types, unknown, unparseable.
pub const NUM_KINDS: usize = 33;

impl EventKind {
    /// A dense index in `0..NUM_KINDS`.
    pub fn index(self) -> usize {
        match self {
            // `EventType::ALL` lists the variants in declaration order.
            Self::Known(t) => t as usize,
            Self::UnknownType => NUM_KINDS - 2,
            Self::Unparseable => NUM_KINDS - 1,
        }
    }

    /// The kind with a dense index.
    pub fn from_index(index: usize) -> Option<Self> {
        match index {
            i if i < EventType::ALL.len() => Some(Self::Known(EventType::ALL[i])),
            i if i == NUM_KINDS - 2 => Some(Self::UnknownType),
            i if i == NUM_KINDS - 1 => Some(Self::Unparseable),
            _ => None,
        }
    }

    /// The kind of a parsed event.
    pub fn of(parsed: &ParseOutcome) -> Self {
        match parsed {
            ParseOutcome::UnknownType { .. } => Self::UnknownType,
            ParseOutcome::Unparseable { .. } => Self::Unparseable,
            other => other
                .event_type()
                .map_or(Self::Unparseable, EventKind::Known),
        }
    }

    /// A name for display (`ACTIVITY_DELTA`, `unknown type`, `unparseable`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Known(t) => t.as_str(),
            Self::UnknownType => "unknown type",
            Self::Unparseable => "unparseable",
        }
    }
}

/// Counts of events per kind.
pub type KindCounts = [u32; NUM_KINDS];

/// One activity's events, for its lane on the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActivityLane {
    /// The activity's `messageId`.
    pub message_id: String,
    /// The `activityType` of its latest event.
    pub activity_type: String,
    /// Every activity event naming it, with what the event did.
    pub events: Vec<LaneEvent>,
}

/// One event of an activity's lane: its step and what it did to the
/// activity, in eight bytes (issue 40: an import holds every lane of the
/// stream until its index is written; they were sixteen bytes each).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaneEvent(u64);

impl LaneEvent {
    /// The event at `seq` (below 2⁵⁶) that did `change`.
    pub fn new(seq: Seq, change: ActivityChange) -> Self {
        Self((seq.get() << 8) | u64::from(change_byte(change)))
    }

    /// Its step.
    pub fn seq(self) -> Seq {
        Seq::new(self.0 >> 8)
    }

    /// What it did.
    pub fn change(self) -> ActivityChange {
        change_of((self.0 & 0xff) as u8).unwrap_or(ActivityChange::DeltaApplied)
    }
}

impl PackedLane {
    fn push(&mut self, event: LaneEvent) {
        self.last = encode_lane_event(&mut self.encoded, self.last, event);
        self.count += 1;
    }
}

/// Encodes a lane's event after the one at step `last`: its step from
/// that one, and its change. Returns its step.
fn encode_lane_event(e: &mut Encoder, last: u64, event: LaneEvent) -> u64 {
    let seq = event.seq().get();
    e.u64(seq.wrapping_sub(last));
    e.u8(change_byte(event.change()));
    seq
}

impl From<(Seq, ActivityChange)> for LaneEvent {
    fn from((seq, change): (Seq, ActivityChange)) -> Self {
        Self::new(seq, change)
    }
}

impl std::fmt::Debug for LaneEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.seq(), self.change()).fmt(f)
    }
}

/// What [`StreamIndex::prepare`] learnt of an event before it was applied.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    kind: EventKind,
    lane: Option<usize>,
    entity: Option<usize>,
}

/// Events per bucket of the density histogram.
const BUCKET_EVENTS: usize = 256;

/// The indices of one stream.
#[derive(Clone, Debug, Default)]
pub struct StreamIndex {
    lanes: Vec<ActivityLane>,
    lane_by_id: rustc_hash::FxHashMap<String, usize>,
    entities: EntityLanes,
    severity_steps: [Vec<Seq>; 4],
    kinds: Vec<u8>,
    buckets: Vec<KindCounts>,
    /// The lanes' events as they are encoded, instead of in `lanes`, for
    /// an index that is only encoded ([`Self::pack_lanes`]).
    packed: Option<Vec<PackedLane>>,
}

/// One lane's events as [`StreamIndex::encode`] writes them: their count,
/// then each one's step (from the one before) and change.
#[derive(Clone, Debug, Default)]
struct PackedLane {
    count: usize,
    last: u64,
    encoded: Encoder,
}

impl StreamIndex {
    /// Keeps the lanes' events encoded, two or three bytes each, instead
    /// of eight (issue 40: an import holds every lane until it writes the
    /// index): for the index of a writer, which encodes it and reads no
    /// lane ([`Self::lanes`] then shows none of their events).
    pub fn pack_lanes(&mut self) {
        let packed = self
            .lanes
            .iter_mut()
            .map(|lane| {
                let mut packed = PackedLane::default();
                for event in std::mem::take(&mut lane.events) {
                    packed.push(event);
                }
                packed
            })
            .collect();
        self.packed = Some(packed);
    }

    /// Makes room for `num_events` more events.
    pub fn reserve(&mut self, num_events: usize) {
        self.kinds.reserve(num_events);
        self.buckets.reserve(num_events / BUCKET_EVENTS + 1);
    }

    /// What the index needs of an event before the replay consumes it: its
    /// kind, the lane of the activity it names (created on first sight) and
    /// that of the other entity it belongs to.
    pub fn prepare(&mut self, parsed: &ParseOutcome) -> Pending {
        let lane = activity_of(parsed).map(|(id, activity_type)| {
            let index = match self.lane_by_id.get(id) {
                Some(&index) => index,
                None => {
                    self.lane_by_id.insert(id.to_owned(), self.lanes.len());
                    self.lanes.push(ActivityLane {
                        message_id: id.to_owned(),
                        activity_type: String::new(),
                        events: Vec::new(),
                    });
                    if let Some(packed) = &mut self.packed {
                        packed.push(PackedLane::default());
                    }
                    self.lanes.len() - 1
                }
            };
            if let Some(activity_type) = activity_type {
                let lane = &mut self.lanes[index];
                if lane.activity_type != activity_type {
                    lane.activity_type = activity_type.to_owned();
                }
            }
            index
        });
        Pending {
            kind: EventKind::of(parsed),
            lane,
            entity: self.entities.prepare_event(parsed),
        }
    }

    /// Records one appended event: its kind, what it did to an activity, and
    /// the diagnostics it raised.
    pub fn record(
        &mut self,
        seq: Seq,
        pending: Pending,
        effect: EventEffect,
        diagnostics: &[Diagnostic],
    ) {
        let kind = pending.kind.index();
        self.kinds.push(kind as u8);
        let bucket = (self.kinds.len() - 1) / BUCKET_EVENTS;
        if bucket == self.buckets.len() {
            self.buckets.push([0; NUM_KINDS]);
        }
        self.buckets[bucket][kind] += 1;
        if let (Some(lane), Some(change)) = (pending.lane, effect.activity) {
            let event = LaneEvent::new(seq, change);
            match &mut self.packed {
                Some(packed) => packed[lane].push(event),
                None => self.lanes[lane].events.push(event),
            }
        }
        if let Some(entity) = pending.entity {
            self.entities.record(entity, seq);
        }
        for diagnostic in diagnostics {
            self.record_diagnostic(diagnostic);
        }
    }

    /// The index of the first `num_events` events only (issue 41: an
    /// edited stream shares the recording's first steps). A lane whose
    /// every event comes later goes; a lane keeps the `activityType` its
    /// last event gave, which an activity that changes type later on
    /// shows a little early.
    pub fn truncated(&self, num_events: usize) -> Self {
        let last = Seq::new(num_events as u64);
        let mut index = Self::default();
        for lane in &self.lanes {
            let kept = lane.events.partition_point(|e| e.seq() <= last);
            if kept == 0 {
                continue;
            }
            index
                .lane_by_id
                .insert(lane.message_id.clone(), index.lanes.len());
            index.lanes.push(ActivityLane {
                message_id: lane.message_id.clone(),
                activity_type: lane.activity_type.clone(),
                events: lane.events[..kept].to_vec(),
            });
        }
        for (kept, steps) in index.severity_steps.iter_mut().zip(&self.severity_steps) {
            *kept = steps[..steps.partition_point(|seq| *seq <= last)].to_vec();
        }
        index.entities = self.entities.truncated(num_events);
        let num_events = num_events.min(self.kinds.len());
        index.kinds = self.kinds[..num_events].to_vec();
        let whole_buckets = num_events / BUCKET_EVENTS;
        index.buckets = self.buckets[..whole_buckets].to_vec();
        if !num_events.is_multiple_of(BUCKET_EVENTS) {
            let mut partial = [0; NUM_KINDS];
            for &kind in &index.kinds[whole_buckets * BUCKET_EVENTS..] {
                partial[usize::from(kind)] += 1;
            }
            index.buckets.push(partial);
        }
        index
    }

    /// Records a diagnostic raised outside an event (end of stream, reader).
    pub fn record_diagnostic(&mut self, diagnostic: &Diagnostic) {
        let steps = &mut self.severity_steps[severity_slot(diagnostic.severity)];
        if steps.last() != Some(&diagnostic.seq) {
            steps.push(diagnostic.seq);
        }
    }

    /// The activities, in order of their first event.
    pub fn lanes(&self) -> &[ActivityLane] {
        &self.lanes
    }

    /// The lanes of the entities other than activities (runs, steps,
    /// messages, tool calls…), in order of their first event.
    pub fn entities(&self) -> &EntityLanes {
        &self.entities
    }

    /// The lane of one activity.
    pub fn lane(&self, message_id: &str) -> Option<&ActivityLane> {
        self.lane_by_id.get(message_id).map(|&i| &self.lanes[i])
    }

    /// The steps with at least one diagnostic of `severity`, ascending.
    pub fn steps_with(&self, severity: Severity) -> &[Seq] {
        &self.severity_steps[severity_slot(severity)]
    }

    /// The kind of the event at `seq`.
    pub fn kind(&self, seq: Seq) -> Option<EventKind> {
        let index = seq.index()?;
        EventKind::from_index(usize::from(*self.kinds.get(index)?))
    }

    /// Events per kind over a range of steps (clamped to the stream). Whole
    /// buckets are summed; only the partial ones at the ends are scanned.
    pub fn counts(&self, steps: RangeInclusive<Seq>) -> KindCounts {
        let mut counts = [0; NUM_KINDS];
        let start = steps.start().index().unwrap_or(0);
        let end = match steps.end().index() {
            Some(end) => (end + 1).min(self.kinds.len()),
            None => return counts,
        };
        let mut i = start;
        while i < end {
            if i.is_multiple_of(BUCKET_EVENTS) && i + BUCKET_EVENTS <= end {
                let bucket = &self.buckets[i / BUCKET_EVENTS];
                for (total, n) in counts.iter_mut().zip(bucket) {
                    *total += n;
                }
                i += BUCKET_EVENTS;
            } else {
                counts[usize::from(self.kinds[i])] += 1;
                i += 1;
            }
        }
        counts
    }
}

/// The stored index's encoding (issue 14).
impl StreamIndex {
    /// Encodes the lanes, the diagnostic steps and the kinds (the
    /// histogram's buckets are summed again on decoding).
    pub(super) fn encode(&self, e: &mut Encoder) {
        e.usize(self.lanes.len());
        for (i, lane) in self.lanes.iter().enumerate() {
            e.str(&lane.message_id);
            e.str(&lane.activity_type);
            match self.packed.as_ref().and_then(|packed| packed.get(i)) {
                Some(packed) => {
                    e.usize(packed.count);
                    e.buf.extend_from_slice(&packed.encoded.buf);
                }
                None => {
                    e.usize(lane.events.len());
                    let mut last = 0;
                    for &event in &lane.events {
                        last = encode_lane_event(e, last, event);
                    }
                }
            }
        }
        self.entities.encode(e);
        for steps in &self.severity_steps {
            e.usize(steps.len());
            let mut last = 0;
            for seq in steps {
                e.u64(seq.get().wrapping_sub(last));
                last = seq.get();
            }
        }
        e.bytes(&self.kinds);
    }

    /// Decodes what [`Self::encode`] wrote, checking that every step is at
    /// most `last_step` and every kind is one.
    pub(super) fn decode(d: &mut Decoder<'_>, last_step: u64) -> Decoded<Self> {
        let out_of_range = || DecodeError::Mismatch("a step in the index is past the stream's end");
        let mut index = Self::default();
        for _ in 0..d.count()? {
            let message_id = d.string()?;
            let activity_type = d.string()?;
            let n = d.count()?;
            let mut events = Vec::with_capacity(n);
            let mut seq = 0u64;
            for _ in 0..n {
                seq = seq.checked_add(d.u64()?).ok_or_else(out_of_range)?;
                if seq > last_step {
                    return Err(out_of_range());
                }
                events.push(LaneEvent::new(Seq::new(seq), change_of(d.u8()?)?));
            }
            if index
                .lane_by_id
                .insert(message_id.clone(), index.lanes.len())
                .is_some()
            {
                return Err(DecodeError::Malformed("the index holds an activity twice"));
            }
            index.lanes.push(ActivityLane {
                message_id,
                activity_type,
                events,
            });
        }
        index.entities = EntityLanes::decode(d, last_step)?;
        for slot in 0..index.severity_steps.len() {
            let n = d.count()?;
            let mut steps = Vec::with_capacity(n);
            let mut seq = 0u64;
            for _ in 0..n {
                seq = seq.checked_add(d.u64()?).ok_or_else(out_of_range)?;
                if seq > last_step {
                    return Err(out_of_range());
                }
                steps.push(Seq::new(seq));
            }
            index.severity_steps[slot] = steps;
        }
        let kinds = d.bytes()?;
        if kinds.iter().any(|&k| usize::from(k) >= NUM_KINDS) {
            return Err(DecodeError::Unknown(
                "an event kind in the index is unknown",
            ));
        }
        index.kinds = kinds.to_vec();
        index.buckets = index
            .kinds
            .chunks(BUCKET_EVENTS)
            .map(|chunk| {
                let mut counts = [0; NUM_KINDS];
                for &k in chunk {
                    counts[usize::from(k)] += 1;
                }
                counts
            })
            .collect();
        Ok(index)
    }

    /// The number of events indexed.
    pub fn num_events(&self) -> usize {
        self.kinds.len()
    }
}

fn severity_slot(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Note => 2,
        Severity::Info => 3,
    }
}

/// The `messageId` and, when readable, the `activityType` of an activity
/// event.
fn activity_of(parsed: &ParseOutcome) -> Option<(&str, Option<&str>)> {
    use crate::protocol::EventBody as B;
    match parsed {
        ParseOutcome::Event { event, .. } => match &event.body {
            B::ActivitySnapshot {
                message_id,
                activity_type,
                ..
            }
            | B::ActivityDelta {
                message_id,
                activity_type,
                ..
            } => Some((message_id, Some(activity_type))),
            _ => None,
        },
        ParseOutcome::Malformed {
            event_type: EventType::ActivitySnapshot | EventType::ActivityDelta,
            message_id: Some(id),
            ..
        } => Some((id, None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40: a lane's event packed in eight bytes gives back its step
    /// and its change, for every change and the largest steps.
    #[test]
    fn a_lane_event_gives_back_its_step_and_change() {
        for change in crate::replay::codec::CHANGES {
            for seq in [0, 1, 255, 256, 1 << 40, (1 << 56) - 1] {
                let event = LaneEvent::new(Seq::new(seq), change);
                assert_eq!((event.seq(), event.change()), (Seq::new(seq), change));
            }
        }
        assert_eq!(std::mem::size_of::<LaneEvent>(), 8);
    }

    #[test]
    fn kinds_round_trip_through_their_index() {
        for (i, t) in EventType::ALL.iter().enumerate() {
            assert_eq!(*t as usize, i, "EventType::ALL is in declaration order");
        }
        for index in 0..NUM_KINDS {
            let kind = EventKind::from_index(index).expect("kind");
            assert_eq!(kind.index(), index);
        }
        assert_eq!(EventKind::from_index(NUM_KINDS), None);
    }
}
