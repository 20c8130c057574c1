//! The lanes of the timeline ([`super::timeline`]): one per entity of the
//! stream, in groups a click on whose header collapses: the runs, the
//! subagents, the steps, the text and reasoning messages and the tool calls
//! (issue 43), each a bar from its first event to its last with a mark at
//! each event; then the activities, grouped by `activityType`, the ids no
//! snapshot ever created in a group of their own, each marking what every
//! event did to its activity. This module lays them out (the rows, the
//! marks merged per bin, the scroll area) and finds what the pointer is
//! over; [`super::lane_row`] paints a row. The lane of the current event
//! is highlighted and scrolled into view when the cursor moves.
//!
//! The lanes scroll vertically; only the rows in view are drawn, and in
//! each only the marks and the drift rings in the visible range, merged per
//! bin. What is merged is kept between frames while the range stays the
//! same.

use std::cmp::Reverse;
use std::ops::RangeInclusive;
use std::sync::Arc;

use egui::containers::scroll_area::ScrollSource;
use egui::{Pos2, Rangef, Rect};
use rustc_hash::{FxHashMap, FxHashSet};

use super::HIT_RADIUS;
use super::lane_row::{EntityRow, LaneRow, group_row_ui};
use super::mesh::Kept;
use super::range::bin_groups;
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::state::AppState;
use crate::diagnostic::{Code, DriftKind, Seq};
use crate::protocol::EventType;
use crate::replay::ActivityChange;
use crate::timeline::{ActivityLane, EntityKind, EntityLane, EventKind, LaneEvent, StreamIndex};
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

/// A row of the lanes: a group header or a lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    /// The header of a group of activities.
    Group {
        /// Which group.
        group: LaneGroup,
        /// How many lanes it holds (shown or not).
        num_lanes: usize,
        /// Whether its lanes are hidden.
        collapsed: bool,
    },
    /// An activity: an index into [`crate::timeline::StreamIndex::lanes`].
    Lane(usize),
    /// Another entity: an index into
    /// [`crate::timeline::EntityLanes::lanes`].
    Entity(usize),
}

/// A group of lanes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaneGroup {
    /// The entities of one kind (runs, steps, messages…).
    Entities(EntityKind),
    /// The activities of one `activityType`.
    Type(String),
    /// Ids that events named but no snapshot ever created as an activity
    /// (deltas to unknown ids, R12; snapshots skipped, R9): in a group of
    /// their own, last (issue 13, point 6).
    NeverCreated,
}

impl LaneGroup {
    /// Its name on the header.
    pub fn label(&self) -> &str {
        match self {
            Self::Entities(kind) => kind.group_label(),
            Self::Type(name) if name.is_empty() => "(no type)",
            Self::Type(name) => name,
            Self::NeverCreated => "never created",
        }
    }
}

/// Whether an activity existed at some step: an event created it, or
/// changed (or tried to change) what existed.
pub fn was_created(lane: &ActivityLane) -> bool {
    lane.events.iter().any(|e| {
        matches!(
            e.change(),
            ActivityChange::Created
                | ActivityChange::Replaced
                | ActivityChange::Declined
                | ActivityChange::DeltaApplied
                | ActivityChange::Retyped
                | ActivityChange::PatchFailed
        )
    })
}

/// The rows: the entities' groups in the order of [`EntityKind::ALL`],
/// then the activities' types in order of their first activity; each
/// followed by its lanes in order of their first event (none when the
/// group is in `collapsed`); then the activities never created.
pub fn rows_of(
    lanes: &[ActivityLane],
    entities: &[EntityLane],
    collapsed: &FxHashSet<LaneGroup>,
) -> Vec<Row> {
    let mut groups: Vec<LaneGroup> = Vec::new();
    let mut members: FxHashMap<LaneGroup, Vec<usize>> = FxHashMap::default();
    for kind in EntityKind::ALL {
        let of_kind: Vec<usize> = (0..entities.len())
            .filter(|&i| entities[i].kind == kind)
            .collect();
        if !of_kind.is_empty() {
            groups.push(LaneGroup::Entities(kind));
            members.insert(LaneGroup::Entities(kind), of_kind);
        }
    }
    let mut never_created = Vec::new();
    for (index, lane) in lanes.iter().enumerate() {
        if !was_created(lane) {
            never_created.push(index);
            continue;
        }
        let group = LaneGroup::Type(lane.activity_type.clone());
        members
            .entry(group)
            .or_insert_with_key(|group| {
                groups.push(group.clone());
                Vec::new()
            })
            .push(index);
    }
    if !never_created.is_empty() {
        groups.push(LaneGroup::NeverCreated);
        members.insert(LaneGroup::NeverCreated, never_created);
    }
    let mut rows = Vec::with_capacity(lanes.len() + entities.len() + groups.len());
    for group in groups {
        let lanes = &members[&group];
        let is_collapsed = collapsed.contains(&group);
        let is_entity = matches!(group, LaneGroup::Entities(_));
        rows.push(Row::Group {
            group,
            num_lanes: lanes.len(),
            collapsed: is_collapsed,
        });
        if !is_collapsed {
            rows.extend(lanes.iter().map(|&lane| match is_entity {
                true => Row::Entity(lane),
                false => Row::Lane(lane),
            }));
        }
    }
    rows
}

/// A mark drawn on a lane: the most telling of the events merged into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneMark {
    /// The step of the event shown.
    pub seq: Seq,
    /// What it did.
    pub change: ActivityChange,
    /// How many of the lane's events the mark stands for.
    pub num_merged: u32,
}

/// How much a change matters when marks merge: failures first.
fn importance(change: ActivityChange) -> u8 {
    match change {
        ActivityChange::Fatal => 9,
        ActivityChange::PatchFailed => 8,
        ActivityChange::DeltaSkipped => 7,
        ActivityChange::SnapshotSkipped => 6,
        ActivityChange::Declined => 5,
        ActivityChange::Created => 4,
        ActivityChange::Replaced => 3,
        ActivityChange::Retyped => 2,
        ActivityChange::DeltaApplied => 1,
        ActivityChange::NotApplied => 0,
    }
}

/// The marks of a lane's events in the visible bins: one per bin, showing
/// its most important change (the first of those).
pub fn merge_marks(
    events: &[LaneEvent],
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<LaneMark> {
    bin_groups(events, |e| e.seq(), bins, bin_steps)
        .into_iter()
        .filter_map(|(_, group)| {
            let group = &events[group];
            let shown = group
                .iter()
                .min_by_key(|e| Reverse(importance(e.change())))?;
            let (seq, change) = (shown.seq(), shown.change());
            Some(LaneMark {
                seq,
                change,
                num_merged: u32::try_from(group.len()).unwrap_or(u32::MAX),
            })
        })
        .collect()
}

/// A mark drawn on an entity's lane: the most telling of the events
/// merged into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityMark {
    /// The step of the event shown.
    pub seq: Seq,
    /// What the event is to its entity.
    pub role: MarkRole,
    /// How many of the entity's events the mark stands for.
    pub num_merged: u32,
}

/// What an event is to its entity, as its mark shows it; ordered by how
/// much it tells when marks merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MarkRole {
    /// Content, arguments, a chunk.
    Part,
    /// It ended the entity.
    End,
    /// It started the entity.
    Start,
    /// A run's error.
    Error,
}

impl MarkRole {
    /// The role of the event at `seq` ([`StreamIndex::kind`]).
    pub fn of(index: &StreamIndex, seq: Seq) -> Self {
        use EventType as T;
        match index.kind(seq) {
            Some(EventKind::Known(T::RunError)) => Self::Error,
            Some(EventKind::Known(
                T::RunStarted
                | T::SubagentStarted
                | T::StepStarted
                | T::TextMessageStart
                | T::ReasoningStart
                | T::ReasoningMessageStart
                | T::ToolCallStart,
            )) => Self::Start,
            Some(EventKind::Known(
                T::RunFinished
                | T::SubagentFinished
                | T::StepFinished
                | T::TextMessageEnd
                | T::ReasoningEnd
                | T::ToolCallResult,
            )) => Self::End,
            _ => Self::Part,
        }
    }
}

/// The marks of an entity's events in the visible bins: one per bin,
/// showing the more telling of its first and last event (each bin is
/// looked at in two places, however many events it holds).
pub fn merge_entity_marks(
    index: &StreamIndex,
    lane: &EntityLane,
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<EntityMark> {
    let offsets = lane.offsets();
    bin_groups(offsets, |&o| lane.step_of(o), bins, bin_steps)
        .into_iter()
        .filter_map(|(_, group)| {
            let num_merged = u32::try_from(group.len()).unwrap_or(u32::MAX);
            let first = lane.step_of(*offsets.get(group.start)?);
            let last = lane.step_of(*offsets.get(group.end.checked_sub(1)?)?);
            let (seq, role) = [first, last]
                .into_iter()
                .map(|seq| (seq, MarkRole::of(index, seq)))
                .max_by_key(|(seq, role)| (*role, Reverse(*seq)))?;
            Some(EntityMark {
                seq,
                role,
                num_merged,
            })
        })
        .collect()
}

/// A drift ring drawn on a lane: the most telling of the activity's drifts
/// (E20) merged into its bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriftMark {
    /// The step of the drift shown.
    pub seq: Seq,
    /// Which of the two it is.
    pub kind: DriftKind,
    /// How many of the activity's drifts the ring stands for.
    pub num_merged: u32,
}

/// The drift rings of a lane in the visible bins: one per bin, an
/// unexplained drift before a repair before a change without a delta
/// (the first of the most telling kind).
pub fn merge_drifts(
    drifts: &[(Seq, DriftKind)],
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<DriftMark> {
    bin_groups(drifts, |d| d.0, bins, bin_steps)
        .into_iter()
        .filter_map(|(_, group)| {
            let group = &drifts[group];
            let &(seq, kind) = [DriftKind::Unexplained, DriftKind::Repair]
                .iter()
                .find_map(|telling| group.iter().find(|(_, kind)| kind == telling))
                .or_else(|| group.first())?;
            Some(DriftMark {
                seq,
                kind,
                num_merged: u32::try_from(group.len()).unwrap_or(u32::MAX),
            })
        })
        .collect()
}

/// What a change is called in the tooltip.
pub fn change_label(change: ActivityChange) -> &'static str {
    match change {
        ActivityChange::Created => "snapshot created it",
        ActivityChange::Replaced => "snapshot replaced it",
        ActivityChange::Declined => "snapshot declined (replace: false)",
        ActivityChange::SnapshotSkipped => "snapshot skipped (not an activity)",
        ActivityChange::DeltaApplied => "delta applied",
        ActivityChange::Retyped => "delta applied, type changed",
        ActivityChange::DeltaSkipped => "delta skipped",
        ActivityChange::PatchFailed => "patch failed",
        ActivityChange::Fatal => "fatal error",
        ActivityChange::NotApplied => "not applied (after a fatal error)",
    }
}

/// The rows and the lanes' marks of one document and range, kept between
/// frames.
#[derive(Clone, Default)]
struct LanesCache {
    /// The document generation the rows are for.
    generation: Option<u64>,
    /// The groups collapsed.
    collapsed: FxHashSet<LaneGroup>,
    /// Whether `rows` are those of `collapsed` (a click on a header makes
    /// them stale).
    rows_fresh: bool,
    rows: Arc<[Row]>,
    /// The bins and steps per bin the marks are for, the ring bins the
    /// drift rings are for, and the number of diagnostics the rings were
    /// merged from.
    marks_for: Option<MarksKey>,
    marks: FxHashMap<usize, LaneMarks>,
    /// The entities' marks, for the same bins.
    entity_marks: FxHashMap<usize, Arc<[EntityMark]>>,
    /// The number of diagnostics `drifts` was gathered from.
    drifts_for: Option<usize>,
    /// Every drift (E20) per activity id.
    drifts: Arc<Drifts>,
}

/// A lane's marks and drift rings, merged.
type LaneMarks = (Arc<[LaneMark]>, Arc<[DriftMark]>);

/// What the kept marks and rings were merged for: the bins and their steps,
/// the ring bins and theirs, the number of diagnostics.
type MarksKey = (
    (RangeInclusive<u64>, u64),
    (RangeInclusive<u64>, u64),
    Option<usize>,
);

/// Each activity's drifts (E20): their steps and kinds.
pub type Drifts = FxHashMap<String, Arc<[(Seq, DriftKind)]>>;

/// The drifts (E20, issue 17.1) of every activity: the steps of their
/// `activity.drift` and `messages.drift` diagnostics and their
/// `*.unstreamed` kin (issue 39), with their kinds.
pub fn drifts_of(diagnostics: &[crate::diagnostic::Diagnostic]) -> Drifts {
    let mut found: FxHashMap<String, Vec<(Seq, DriftKind)>> = FxHashMap::default();
    for diagnostic in diagnostics {
        if !matches!(
            diagnostic.code,
            Code::ActivityDrift
                | Code::ActivityDriftUnstreamed
                | Code::MessagesDrift
                | Code::MessagesDriftUnstreamed
        ) {
            continue;
        }
        if let (Some(id), Some(drift)) = (&diagnostic.message_id, &diagnostic.drift) {
            found
                .entry(id.clone())
                .or_default()
                .push((diagnostic.seq, drift.kind));
        }
    }
    found.into_iter().map(|(id, d)| (id, d.into())).collect()
}

/// The drifts of the document's activities (from the cache).
fn drifts(ui: &egui::Ui, doc: &Doc) -> Arc<Drifts> {
    let diagnostics = doc.timeline.diagnostics();
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        if cache.drifts_for != Some(diagnostics.len()) {
            cache.drifts = Arc::new(drifts_of(diagnostics));
            cache.drifts_for = Some(diagnostics.len());
        }
        Arc::clone(&cache.drifts)
    })
}

fn cache_id() -> egui::Id {
    egui::Id::unique("timeline_lanes_cache")
}

/// The rows of a document (from the cache).
fn rows(ui: &egui::Ui, doc: &Doc, generation: u64) -> Arc<[Row]> {
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        if cache.generation != Some(generation) {
            *cache = LanesCache {
                generation: Some(generation),
                collapsed: std::mem::take(&mut cache.collapsed),
                ..LanesCache::default()
            };
        }
        if !cache.rows_fresh {
            let index = doc.timeline.index();
            cache.rows = rows_of(index.lanes(), index.entities().lanes(), &cache.collapsed).into();
            cache.rows_fresh = true;
        }
        Arc::clone(&cache.rows)
    })
}

/// Collapses a group of lanes, or shows it again.
fn toggle_group(ui: &egui::Ui, group: &LaneGroup) {
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        if !cache.collapsed.remove(group) {
            cache.collapsed.insert(group.clone());
        }
        cache.rows_fresh = false;
    });
}

/// How far apart, at least, the drift rings of a lane are drawn, in points:
/// their radius. Closer, they would only hide each other; issue 14: a
/// 10,000,000-event stream has about 1,700 drifts per activity, a ring in
/// nearly every pixel column, and their paths were the largest share of a
/// frame's tessellation.
const RING_SPACING: f32 = theme::LANE_HEIGHT * 0.42;

/// The bins the drift rings merge in, for the visible `bins` of `bin_steps`
/// steps each: as many of those bins as make [`RING_SPACING`] points (a
/// power of two, so that each ring bin holds whole bins and stays put while
/// panning). Returns the ring bins in view and their steps.
fn ring_bins(
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
    steps_per_pixel: f64,
) -> (RangeInclusive<u64>, u64) {
    let ring_steps = super::range::bin_steps(steps_per_pixel * f64::from(RING_SPACING));
    let per_ring = (ring_steps / bin_steps.max(1)).max(1);
    (
        bins.start() / per_ring..=bins.end() / per_ring,
        bin_steps.saturating_mul(per_ring),
    )
}

/// The marks (per bin) and the drift rings (per ring bin) of some lanes
/// (from the cache when the range and the drifts are the same).
fn marks(
    ui: &egui::Ui,
    doc: &Doc,
    lanes: &[usize],
    bins: &(RangeInclusive<u64>, u64),
    steps_per_pixel: f64,
) -> Vec<LaneMarks> {
    let all = doc.timeline.index().lanes();
    let drifts = drifts(ui, doc);
    let rings = ring_bins(&bins.0, bins.1, steps_per_pixel);
    let drifts_for = Some(doc.timeline.diagnostics().len());
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        let key = (bins.clone(), rings.clone(), drifts_for);
        if cache.marks_for.as_ref() != Some(&key) {
            cache.marks_for = Some(key);
            cache.marks.clear();
            cache.entity_marks.clear();
        }
        lanes
            .iter()
            .map(|&lane| {
                let (marks, lane_rings) = cache.marks.entry(lane).or_insert_with(|| {
                    let activity = &all[lane];
                    (
                        merge_marks(&activity.events, &bins.0, bins.1).into(),
                        drifts
                            .get(&activity.message_id)
                            .map(|d| merge_drifts(d, &rings.0, rings.1))
                            .unwrap_or_default()
                            .into(),
                    )
                });
                (Arc::clone(marks), Arc::clone(lane_rings))
            })
            .collect()
    })
}

/// The marks of some entities' lanes (from the cache when the range is
/// the same; [`marks`] clears it when it changes, and runs first).
fn entity_marks(
    ui: &egui::Ui,
    doc: &Doc,
    lanes: &[usize],
    bins: &(RangeInclusive<u64>, u64),
) -> Vec<Arc<[EntityMark]>> {
    let index = doc.timeline.index();
    let all = index.entities().lanes();
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        lanes
            .iter()
            .map(|&lane| {
                let marks = cache.entity_marks.entry(lane).or_insert_with(|| {
                    merge_entity_marks(index, &all[lane], &bins.0, bins.1).into()
                });
                Arc::clone(marks)
            })
            .collect()
    })
}

/// The height of every row.
pub fn content_height(ui: &egui::Ui, doc: &Doc, generation: u64) -> f32 {
    rows(ui, doc, generation).len() as f32 * theme::LANE_HEIGHT
}

/// What a lane's plot was tessellated for ([`super::mesh::Kept`]): its
/// marks and rings (the same merge: the same `Arc`s), where it was drawn,
/// the axis and the colours.
#[derive(Clone)]
struct LaneMeshKey {
    marks: Arc<[LaneMark]>,
    rings: Arc<[DriftMark]>,
    rect: Rect,
    axis: StepAxis,
    visuals: egui::Visuals,
}

impl PartialEq for LaneMeshKey {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.marks, &other.marks)
            && Arc::ptr_eq(&self.rings, &other.rings)
            && self.rect == other.rect
            && self.axis == other.axis
            && self.visuals == other.visuals
    }
}

/// The tessellated plots of the lanes drawn in the last frame.
type LaneMeshes = FxHashMap<usize, Option<Kept<LaneMeshKey>>>;

fn meshes_id() -> egui::Id {
    egui::Id::unique("timeline_lane_meshes")
}

/// The meshes kept for the lanes drawn last, by lane, for tests.
#[cfg(test)]
pub(super) fn kept_meshes(ctx: &egui::Context) -> Vec<(usize, Vec<Arc<egui::Mesh>>)> {
    let kept: LaneMeshes = ctx.data(|d| d.get_temp(meshes_id()).unwrap_or_default());
    let mut meshes: Vec<_> = kept
        .into_iter()
        .filter_map(|(lane, slot)| Some((lane, slot?.meshes().to_vec())))
        .collect();
    meshes.sort_by_key(|(lane, _)| *lane);
    meshes
}

/// A lane on screen.
struct VisibleLane {
    lane: usize,
    rect: Rect,
    marks: Arc<[LaneMark]>,
    drifts: Arc<[DriftMark]>,
}

/// What of an entity's lane the pointer is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntityHit {
    /// A mark: its event (and those merged into it).
    Mark(EntityMark),
    /// The bar away from the marks: the step under the pointer.
    Bar(Seq),
}

impl EntityHit {
    /// The step a click goes to.
    pub fn step(self) -> Seq {
        match self {
            Self::Mark(mark) => mark.seq,
            Self::Bar(step) => step,
        }
    }
}

/// An entity's lane on screen.
struct VisibleEntity {
    entity: usize,
    rect: Rect,
    marks: Arc<[EntityMark]>,
}

/// The lanes drawn this frame, to find what the pointer is over.
pub struct LanesView {
    /// Where the lanes show.
    pub viewport: Rect,
    axis: StepAxis,
    lanes: Vec<VisibleLane>,
    entities: Vec<VisibleEntity>,
}

impl LanesView {
    /// The lane (an index into the stream's lanes) and the mark nearest a
    /// position, if one is near.
    pub fn hit(&self, pos: Pos2) -> Option<(usize, LaneMark)> {
        let lane = self.lane_at(pos)?;
        let mark = self.nearest(&lane.marks, |m| m.seq, pos.x, HIT_RADIUS)?;
        Some((lane.lane, *mark))
    }

    /// The entity (an index into [`crate::timeline::EntityLanes::lanes`])
    /// whose mark or bar is under a position, and where a click there
    /// goes: the mark's event, or the step under the pointer within the
    /// entity's span; the mark when one is near.
    pub fn entity_hit(&self, index: &StreamIndex, pos: Pos2) -> Option<(usize, EntityHit)> {
        if !self.viewport.contains(pos) {
            return None;
        }
        let visible = self.entities.iter().find(|l| l.rect.contains(pos))?;
        if let Some(mark) = self.nearest(&visible.marks, |m| m.seq, pos.x, HIT_RADIUS) {
            return Some((visible.entity, EntityHit::Mark(*mark)));
        }
        let lane = index.entities().lanes().get(visible.entity)?;
        let x = |seq: Seq| self.axis.x_from_step(seq.get() as f64);
        let on_bar = (x(lane.first()) - HIT_RADIUS..=x(lane.last()) + HIT_RADIUS).contains(&pos.x);
        let step = self.axis.step_from_x(pos.x).round().max(0.0) as u64;
        let step = Seq::new(step.clamp(lane.first().get(), lane.last().get()));
        on_bar.then_some((visible.entity, EntityHit::Bar(step)))
    }

    /// The drift ring (E20) nearest a position on a lane, if one is near.
    pub fn drift_hit(&self, pos: Pos2) -> Option<DriftMark> {
        let lane = self.lane_at(pos)?;
        self.nearest(&lane.drifts, |r| r.seq, pos.x, HIT_RADIUS + 2.0)
            .copied()
    }

    /// The lane drawn under a position.
    fn lane_at(&self, pos: Pos2) -> Option<&VisibleLane> {
        if !self.viewport.contains(pos) {
            return None;
        }
        self.lanes.iter().find(|l| l.rect.contains(pos))
    }

    /// The item of a list sorted by step drawn nearest `x`, if within
    /// `reach` of it.
    fn nearest<'a, T>(
        &self,
        items: &'a [T],
        seq_of: impl Fn(&T) -> Seq,
        x: f32,
        reach: f32,
    ) -> Option<&'a T> {
        let x_of = |item: &T| self.axis.x_from_step(seq_of(item).get() as f64);
        let start = items.partition_point(|item| x_of(item) < x - reach);
        items[start..]
            .iter()
            .take_while(|item| x_of(item) <= x + reach)
            .min_by(|a, b| (x_of(a) - x).abs().total_cmp(&(x_of(b) - x).abs()))
    }
}

/// A small square over the lane at each step where the activity's
/// content broke its schema (issue 42, rule S1): its own mark, apart from
/// a failed patch's or a skipped delta's.
fn schema_marks_ui(
    painter: &egui::Painter,
    visuals: &egui::Visuals,
    axis: &StepAxis,
    rect: Rect,
    doc: &Doc,
    activity: &ActivityLane,
) {
    let id = Some(activity.message_id.as_str());
    super::schema_marks::paint_schema_marks(painter, visuals, axis, rect, doc, id);
}

/// The lane of the current event: an activity's, else another entity's
/// (issue 43).
fn lane_of_step(index: &StreamIndex, step: Seq) -> Option<Row> {
    let activity = index
        .lanes()
        .iter()
        .position(|lane| lane.events.binary_search_by_key(&step, |e| e.seq()).is_ok());
    match activity {
        Some(lane) => Some(Row::Lane(lane)),
        None => index.entities().lane_at(step).map(Row::Entity),
    }
}

/// The row of the current event's lane, to highlight, and whether the
/// cursor moved since the last frame, or its event is on another lane (a
/// replay again): then the lanes scroll it into view, as the demo's "never
/// created" lane sat below the fold while its skipped delta was the
/// current event (issue 43, point 5). Between moves the lanes stay where
/// the wheel put them, however a live recording grows.
fn current_row(ui: &egui::Ui, state: &AppState, doc: &Doc, rows: &[Row]) -> (Option<usize>, bool) {
    let id = egui::Id::unique("timeline_lanes_followed");
    let now = (state.step(), state.generation());
    type Followed = ((Seq, u64), Option<Row>);
    let before: Option<Followed> = ui.data(|d| d.get_temp(id));
    let (lane, moved) = match before {
        Some((then, lane)) if then == now => (lane, false),
        _ => {
            let lane = lane_of_step(doc.timeline.index(), state.step());
            let moved =
                before.is_none_or(|((step, _), before)| step != state.step() || before != lane);
            ui.data_mut(|d| d.insert_temp(id, (now, lane.clone())));
            (lane, moved)
        }
    };
    let row = lane.and_then(|lane| rows.iter().position(|row| *row == lane));
    (row, moved)
}

/// Draws the lanes in a vertical scroll area filling the rest of the panel.
/// `bins` are the visible bins and the steps per bin (none for an empty
/// stream). `doc` is the state's document.
pub fn lanes_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    doc: &Doc,
    axis: &StepAxis,
    plot_x: Rangef,
    bins: Option<(RangeInclusive<u64>, u64)>,
    commands: &mut Vec<Command>,
) -> LanesView {
    let selected = state.selected_activity();
    let rows = rows(ui, doc, state.generation());
    let row_height = theme::LANE_HEIGHT;
    let (current, moved) = current_row(ui, state, doc, &rows);
    let follow = current.filter(|_| moved);
    let output = egui::ScrollArea::vertical()
        .id_salt("timeline_lanes")
        .auto_shrink(false)
        .scroll_source(ScrollSource::SCROLL_BAR | ScrollSource::MOUSE_WHEEL)
        .show_viewport(ui, |ui, viewport| {
            ui.set_height(rows.len() as f32 * row_height);
            if rows.is_empty() {
                ui.weak("No runs, messages, tool calls or activities yet");
                return (Vec::new(), Vec::new());
            }
            let first = ((viewport.min.y / row_height).floor().max(0.0) as usize).min(rows.len());
            let last = ((viewport.max.y / row_height).ceil().max(0.0) as usize).min(rows.len());
            let top = ui.max_rect().top();
            let x_range = ui.max_rect().x_range();
            let row_rect = |i: usize| {
                let y = top + i as f32 * row_height;
                Rect::from_x_y_ranges(x_range, y..=y + row_height)
            };
            if let Some(row) = follow {
                let (row_top, row_bottom) =
                    (row as f32 * row_height, (row + 1) as f32 * row_height);
                if row_top < viewport.min.y || row_bottom > viewport.max.y {
                    ui.scroll_to_rect(row_rect(row), Some(egui::Align::Center));
                }
            }
            let visible: Vec<usize> = rows[first..last]
                .iter()
                .filter_map(|row| match row {
                    Row::Lane(lane) => Some(*lane),
                    Row::Group { .. } | Row::Entity(_) => None,
                })
                .collect();
            let visible_entities: Vec<usize> = rows[first..last]
                .iter()
                .filter_map(|row| match row {
                    Row::Entity(lane) => Some(*lane),
                    Row::Group { .. } | Row::Lane(_) => None,
                })
                .collect();
            let mut marks = match &bins {
                Some(bins) => marks(ui, doc, &visible, bins, axis.steps_per_pixel()),
                None => Vec::new(),
            }
            .into_iter();
            let mut entity_marks = match &bins {
                Some(bins) => entity_marks(ui, doc, &visible_entities, bins),
                None => Vec::new(),
            }
            .into_iter();
            let mut shown_entities = Vec::new();
            let mut kept: LaneMeshes =
                ui.data_mut(|d| std::mem::take(d.get_temp_mut_or_default(meshes_id())));
            let mut meshes = LaneMeshes::default();
            let mut shown = Vec::new();
            let mut toggled = None;
            for (i, row) in rows.iter().enumerate().take(last).skip(first) {
                let rect = row_rect(i);
                match row {
                    Row::Group {
                        group,
                        num_lanes,
                        collapsed,
                    } => {
                        if group_row_ui(ui, rect, plot_x, group, *num_lanes, *collapsed) {
                            toggled = Some(group.clone());
                        }
                    }
                    Row::Entity(entity) => {
                        let index = doc.timeline.index();
                        let lane = &index.entities().lanes()[*entity];
                        let marks = entity_marks.next().unwrap_or_else(|| Arc::new([]));
                        let row = EntityRow {
                            rect,
                            plot_x,
                            axis,
                            lane,
                            striped: i % 2 == 1,
                            current: current == Some(i),
                        };
                        row.ui(ui, commands);
                        let plot = Rect::from_x_y_ranges(plot_x, rect.y_range());
                        let painter = ui.painter().with_clip_rect(ui.clip_rect().intersect(plot));
                        painter.extend(row.plot_shapes(ui.visuals(), &marks));
                        shown_entities.push(VisibleEntity {
                            entity: *entity,
                            rect: plot,
                            marks,
                        });
                    }
                    Row::Lane(lane) => {
                        let activity = &doc.timeline.index().lanes()[*lane];
                        let is_selected = selected == Some(activity.message_id.as_str());
                        let (marks, lane_drifts) = marks.next().unwrap_or_default();
                        let row = LaneRow {
                            rect,
                            plot_x,
                            axis,
                            activity,
                            striped: i % 2 == 1,
                            selected: is_selected,
                            current: current == Some(i),
                            drifts: &lane_drifts,
                        };
                        row.ui(ui, commands);
                        let mut slot = kept.remove(lane).flatten();
                        let key = LaneMeshKey {
                            marks: Arc::clone(&marks),
                            rings: Arc::clone(&lane_drifts),
                            rect,
                            axis: axis.clone(),
                            visuals: ui.visuals().clone(),
                        };
                        let layers = Kept::get_or_make(&mut slot, ui.ctx(), key, || {
                            row.plot_layers(ui.visuals(), &marks)
                        });
                        meshes.insert(*lane, slot);
                        let plot = Rect::from_x_y_ranges(plot_x, rect.y_range());
                        let painter = ui.painter().with_clip_rect(ui.clip_rect().intersect(plot));
                        let mut layers = layers.into_iter().map(egui::Shape::Mesh);
                        painter.extend(layers.next());
                        painter.extend(row.dot_shapes(ui.visuals(), &marks));
                        painter.extend(layers);
                        schema_marks_ui(&painter, ui.visuals(), axis, rect, doc, activity);
                        shown.push(VisibleLane {
                            lane: *lane,
                            rect: plot,
                            marks,
                            drifts: lane_drifts,
                        });
                    }
                }
            }
            // Only the lanes drawn keep their meshes.
            ui.data_mut(|d| d.insert_temp(meshes_id(), meshes));
            if let Some(group) = toggled {
                toggle_group(ui, &group);
                ui.ctx().request_repaint();
            }
            (shown, shown_entities)
        });
    let (lanes, entities) = output.inner;
    LanesView {
        viewport: output.inner_rect,
        axis: axis.clone(),
        lanes,
        entities,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(id: &str, activity_type: &str) -> ActivityLane {
        ActivityLane {
            message_id: id.into(),
            activity_type: activity_type.into(),
            events: vec![(Seq::new(1), ActivityChange::Created).into()],
        }
    }
    #[test]
    fn lanes_are_grouped_by_type_in_order_of_first_sight() {
        let lanes = [
            lane("plan", "checklist"),
            lane("s1", "search"),
            lane("s2", "search"),
            lane("plan-2", "checklist"),
            lane("s3", "search"),
        ];
        let group = |activity_type: &str, num_lanes| Row::Group {
            group: LaneGroup::Type(activity_type.into()),
            num_lanes,
            collapsed: false,
        };
        let none = FxHashSet::default();
        assert_eq!(
            rows_of(&lanes, &[], &none),
            vec![
                group("checklist", 2),
                Row::Lane(0),
                Row::Lane(3),
                group("search", 3),
                Row::Lane(1),
                Row::Lane(2),
                Row::Lane(4),
            ]
        );
        assert!(rows_of(&[], &[], &none).is_empty());
        // Collapsed: the header stays, its lanes go.
        let collapsed: FxHashSet<_> = [LaneGroup::Type("search".into())].into_iter().collect();
        assert_eq!(
            rows_of(&lanes, &[], &collapsed),
            vec![
                group("checklist", 2),
                Row::Lane(0),
                Row::Lane(3),
                Row::Group {
                    group: LaneGroup::Type("search".into()),
                    num_lanes: 3,
                    collapsed: true,
                },
            ]
        );
    }

    #[test]
    fn entities_come_first_a_group_per_kind_and_collapse() {
        // Issue 43: runs, steps, messages… each in a group, before the
        // activities.
        let mut index = StreamIndex::default();
        let lines = [
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"book"}"#,
        ];
        for (i, line) in lines.iter().enumerate() {
            let parsed = crate::protocol::parse_event(line.as_bytes());
            let pending = index.prepare(&parsed);
            let effect = crate::replay::EventEffect {
                effect: crate::replay::Effect::Applied,
                activity: None,
            };
            index.record(Seq::new(i as u64 + 1), pending, effect, &[]);
        }
        let entities = index.entities().lanes();
        let activities = [lane("plan", "checklist")];
        let group = |kind, num_lanes, collapsed| Row::Group {
            group: LaneGroup::Entities(kind),
            num_lanes,
            collapsed,
        };
        assert_eq!(
            rows_of(&activities, entities, &FxHashSet::default()),
            vec![
                group(EntityKind::Run, 1, false),
                Row::Entity(1),
                group(EntityKind::Message, 1, false),
                Row::Entity(2),
                group(EntityKind::ToolCall, 2, false),
                Row::Entity(0),
                Row::Entity(3),
                Row::Group {
                    group: LaneGroup::Type("checklist".into()),
                    num_lanes: 1,
                    collapsed: false,
                },
                Row::Lane(0),
            ]
        );
        let collapsed = [LaneGroup::Entities(EntityKind::ToolCall)]
            .into_iter()
            .collect();
        let rows = rows_of(&activities, entities, &collapsed);
        assert!(rows.contains(&group(EntityKind::ToolCall, 2, true)));
        assert!(!rows.contains(&Row::Entity(0)) && !rows.contains(&Row::Entity(3)));
        assert_eq!(
            LaneGroup::Entities(EntityKind::ToolCall).label(),
            "Tool calls"
        );
    }

    #[test]
    fn an_entitys_marks_merge_per_bin_its_start_and_end_first() {
        let mut index = StreamIndex::default();
        let mut lines = vec![r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#.to_owned()];
        for _ in 0..6 {
            lines.push(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#.into());
        }
        lines.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#.into());
        for (i, line) in lines.iter().enumerate() {
            let parsed = crate::protocol::parse_event(line.as_bytes());
            let pending = index.prepare(&parsed);
            let effect = crate::replay::EventEffect {
                effect: crate::replay::Effect::Applied,
                activity: None,
            };
            index.record(Seq::new(i as u64 + 1), pending, effect, &[]);
        }
        let lane = &index.entities().lanes()[0];
        // Bins of 4 steps: 1-4 (start, 3 parts), 5-8 (3 parts, end).
        let marks = merge_entity_marks(&index, lane, &(0..=1), 4);
        let summary: Vec<_> = marks
            .iter()
            .map(|m| (m.seq.get(), m.role, m.num_merged))
            .collect();
        assert_eq!(
            summary,
            vec![(1, MarkRole::Start, 4), (8, MarkRole::End, 4)]
        );
        // A bin a step: a mark per event.
        assert_eq!(merge_entity_marks(&index, lane, &(0..=100), 1).len(), 8);
    }

    #[test]
    fn activities_never_created_sit_in_a_group_of_their_own() {
        // Issue 13, point 6: a delta to an unknown id (R12) makes a lane
        // that no snapshot created.
        use ActivityChange as C;
        let with = |id: &str, changes: &[C]| ActivityLane {
            message_id: id.into(),
            activity_type: "search".into(),
            events: changes
                .iter()
                .enumerate()
                .map(|(i, c)| (Seq::new(i as u64 + 1), *c).into())
                .collect(),
        };
        let lanes = [
            with("ghost", &[C::DeltaSkipped, C::DeltaSkipped]),
            with("s1", &[C::Created, C::DeltaApplied]),
            with("msg", &[C::SnapshotSkipped]),
            with("s2", &[C::DeltaSkipped, C::Created]),
        ];
        assert!(!was_created(&lanes[0]) && was_created(&lanes[3]));
        assert_eq!(
            rows_of(&lanes, &[], &FxHashSet::default()),
            vec![
                Row::Group {
                    group: LaneGroup::Type("search".into()),
                    num_lanes: 2,
                    collapsed: false,
                },
                Row::Lane(1),
                Row::Lane(3),
                Row::Group {
                    group: LaneGroup::NeverCreated,
                    num_lanes: 2,
                    collapsed: false,
                },
                Row::Lane(0),
                Row::Lane(2),
            ]
        );
        assert_eq!(LaneGroup::NeverCreated.label(), "never created");
    }

    #[test]
    fn merged_marks_show_the_worst_change_of_their_bin() {
        use ActivityChange as C;
        let events = [
            (Seq::new(1), C::Created),
            (Seq::new(2), C::DeltaApplied),
            (Seq::new(3), C::PatchFailed),
            (Seq::new(4), C::DeltaApplied),
            (Seq::new(6), C::DeltaApplied),
            (Seq::new(7), C::DeltaSkipped),
            (Seq::new(8), C::DeltaSkipped),
            (Seq::new(30), C::Fatal),
        ];
        let mark = |seq, change, num_merged| LaneMark {
            seq: Seq::new(seq),
            change,
            num_merged,
        };
        // Bins of 4: steps 1-4, 5-8; the bin of step 30 is out of view.
        assert_eq!(
            merge_marks(&events.map(LaneEvent::from), &(0..=1), 4),
            vec![mark(3, C::PatchFailed, 4), mark(7, C::DeltaSkipped, 3)]
        );
        // Unmerged when every step has its bin.
        let marks = merge_marks(&events.map(LaneEvent::from), &(0..=100), 1);
        assert_eq!(marks.len(), events.len());
        assert!(marks.iter().all(|m| m.num_merged == 1));
        assert_eq!(
            merge_marks(&events.map(LaneEvent::from), &(7..=7), 4),
            vec![mark(30, C::Fatal, 1)]
        );
    }

    #[test]
    fn drift_rings_merge_per_bin_an_unexplained_drift_first() {
        use DriftKind as K;
        let drifts = [
            (Seq::new(1), K::Repair),
            (Seq::new(3), K::Unexplained),
            (Seq::new(4), K::Unexplained),
            (Seq::new(6), K::Repair),
            (Seq::new(8), K::Repair),
            (Seq::new(30), K::Unexplained),
        ];
        let ring = |seq, kind, num_merged| DriftMark {
            seq: Seq::new(seq),
            kind,
            num_merged,
        };
        // Bins of 4: steps 1-4, 5-8; the bin of step 30 is out of view.
        assert_eq!(
            merge_drifts(&drifts, &(0..=1), 4),
            vec![ring(3, K::Unexplained, 3), ring(6, K::Repair, 2)]
        );
        // One ring per drift when every step has its bin.
        let rings = merge_drifts(&drifts, &(0..=100), 1);
        assert_eq!(rings.len(), drifts.len());
        assert!(rings.iter().all(|r| r.num_merged == 1));
        assert_eq!(merge_drifts(&drifts, &(2..=6), 4), vec![]);
        assert_eq!(
            merge_drifts(&drifts, &(7..=7), 4),
            vec![ring(30, K::Unexplained, 1)]
        );
        // However many drifts, no more rings than bins in view.
        let many: Vec<_> = (1..=100_000).map(|s| (Seq::new(s), K::Repair)).collect();
        assert_eq!(merge_drifts(&many, &(0..=99), 1024).len(), 98);
    }

    #[test]
    fn drift_rings_are_at_least_their_radius_apart_in_whole_bins() {
        // 1,000,000 steps over 1,000 pixels: bins of 1,024 steps, rings
        // in bins of 8 of them (8,192 steps, about 8 pixels).
        let (rings, ring_steps) = ring_bins(&(0..=976), 1024, 1000.0);
        assert_eq!((rings, ring_steps), (0..=122, 8192));
        assert!(ring_steps as f64 / 1000.0 >= f64::from(RING_SPACING));
        // Zoomed in to a few steps a pixel apart: one ring per step.
        assert_eq!(ring_bins(&(40..=60), 1, 0.05), (40..=60, 1));
        // Bins of 2 steps, 2 steps a pixel: rings 16 steps (8 pixels) apart.
        assert_eq!(ring_bins(&(0..=31), 2, 2.0), (0..=3, 16));
    }

    #[test]
    fn failures_outrank_everything_when_marks_merge() {
        use ActivityChange as C;
        let all = [
            C::Created,
            C::Replaced,
            C::Declined,
            C::SnapshotSkipped,
            C::DeltaApplied,
            C::Retyped,
            C::DeltaSkipped,
            C::PatchFailed,
            C::Fatal,
            C::NotApplied,
        ];
        let top = all.iter().max_by_key(|c| importance(**c));
        assert_eq!(top, Some(&C::Fatal));
        for change in all {
            assert!(!change_label(change).is_empty());
            if change != C::Fatal && change != C::PatchFailed {
                assert!(importance(change) < importance(C::PatchFailed));
            }
        }
    }
}
