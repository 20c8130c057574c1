//! The activity lanes of the timeline ([`super::timeline`]): one per
//! activity, grouped by `activityType` (a click on a group's header
//! collapses it), the ids no snapshot ever created in a group of their
//! own, each marking what every event did to its activity. This module lays them out (the rows, the marks merged per
//! bin, the scroll area) and finds what the pointer is over;
//! [`super::lane_row`] paints a row.
//!
//! The lanes scroll vertically; only the rows in view are drawn, and in
//! each only the marks in the visible range, merged per bin. The merged
//! marks are kept between frames while the range stays the same.

use std::cmp::Reverse;
use std::ops::RangeInclusive;
use std::sync::Arc;

use egui::containers::scroll_area::ScrollSource;
use egui::{Pos2, Rangef, Rect};
use rustc_hash::{FxHashMap, FxHashSet};

use super::HIT_RADIUS;
use super::lane_row::{LaneRow, group_row_ui};
use super::range::bin_groups;
use crate::diagnostic::{Code, DriftKind, Seq};
use crate::replay::ActivityChange;
use crate::timeline::ActivityLane;
use crate::ui::state::{AppState, Command, Doc};
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
}

/// A group of lanes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaneGroup {
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
            Self::Type(name) if name.is_empty() => "(no type)",
            Self::Type(name) => name,
            Self::NeverCreated => "never created",
        }
    }
}

/// Whether an activity existed at some step: an event created it, or
/// changed (or tried to change) what existed.
pub fn was_created(lane: &ActivityLane) -> bool {
    lane.events.iter().any(|(_, change)| {
        matches!(
            change,
            ActivityChange::Created
                | ActivityChange::Replaced
                | ActivityChange::Declined
                | ActivityChange::DeltaApplied
                | ActivityChange::Retyped
                | ActivityChange::PatchFailed
        )
    })
}

/// The rows: the types in order of their first activity, each followed by
/// its activities in order of their first event (none when the group is
/// in `collapsed`); then the activities never created.
pub fn rows_of(lanes: &[ActivityLane], collapsed: &FxHashSet<LaneGroup>) -> Vec<Row> {
    let mut groups: Vec<LaneGroup> = Vec::new();
    let mut members: FxHashMap<LaneGroup, Vec<usize>> = FxHashMap::default();
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
    let mut rows = Vec::with_capacity(lanes.len() + groups.len());
    for group in groups {
        let lanes = &members[&group];
        let is_collapsed = collapsed.contains(&group);
        rows.push(Row::Group {
            group,
            num_lanes: lanes.len(),
            collapsed: is_collapsed,
        });
        if !is_collapsed {
            rows.extend(lanes.iter().map(|&lane| Row::Lane(lane)));
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
    events: &[(Seq, ActivityChange)],
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<LaneMark> {
    bin_groups(events, |e| e.0, bins, bin_steps)
        .into_iter()
        .filter_map(|(_, group)| {
            let group = &events[group];
            let &(seq, change) = group.iter().min_by_key(|(_, c)| Reverse(importance(*c)))?;
            Some(LaneMark {
                seq,
                change,
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
    /// The bins and steps per bin the marks are for.
    marks_for: Option<(RangeInclusive<u64>, u64)>,
    marks: FxHashMap<usize, Arc<[LaneMark]>>,
    /// The number of diagnostics `drifts` was gathered from.
    drifts_for: Option<usize>,
    /// Every drift (E20) per activity id.
    drifts: Arc<Drifts>,
}

/// Each activity's drifts (E20): their steps and kinds.
pub type Drifts = FxHashMap<String, Arc<[(Seq, DriftKind)]>>;

/// The drifts (E20, issue 17.1) of every activity: the steps of their
/// `activity.drift` and `messages.drift` diagnostics, with their kinds.
pub fn drifts_of(diagnostics: &[crate::diagnostic::Diagnostic]) -> Drifts {
    let mut found: FxHashMap<String, Vec<(Seq, DriftKind)>> = FxHashMap::default();
    for diagnostic in diagnostics {
        if !matches!(diagnostic.code, Code::ActivityDrift | Code::MessagesDrift) {
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
            cache.rows = rows_of(doc.timeline.index().lanes(), &cache.collapsed).into();
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

/// The marks of some lanes (from the cache when the range is the same).
fn marks(
    ui: &egui::Ui,
    doc: &Doc,
    lanes: &[usize],
    bins: &(RangeInclusive<u64>, u64),
) -> Vec<Arc<[LaneMark]>> {
    let all = doc.timeline.index().lanes();
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        if cache.marks_for.as_ref() != Some(bins) {
            cache.marks_for = Some(bins.clone());
            cache.marks.clear();
        }
        lanes
            .iter()
            .map(|&lane| {
                let marks = cache
                    .marks
                    .entry(lane)
                    .or_insert_with(|| merge_marks(&all[lane].events, &bins.0, bins.1).into());
                Arc::clone(marks)
            })
            .collect()
    })
}

/// The height of every row.
pub fn content_height(ui: &egui::Ui, doc: &Doc, generation: u64) -> f32 {
    rows(ui, doc, generation).len() as f32 * theme::LANE_HEIGHT
}

/// A lane on screen.
struct VisibleLane {
    lane: usize,
    rect: Rect,
    marks: Arc<[LaneMark]>,
    drifts: Arc<[(Seq, DriftKind)]>,
}

/// The lanes drawn this frame, to find what the pointer is over.
pub struct LanesView {
    /// Where the lanes show.
    pub viewport: Rect,
    axis: StepAxis,
    lanes: Vec<VisibleLane>,
}

impl LanesView {
    /// The lane (an index into the stream's lanes) and the mark nearest a
    /// position, if one is near.
    pub fn hit(&self, pos: Pos2) -> Option<(usize, LaneMark)> {
        if !self.viewport.contains(pos) {
            return None;
        }
        let lane = self.lanes.iter().find(|l| l.rect.contains(pos))?;
        let x_of = |mark: &LaneMark| self.axis.x_from_step(mark.seq.get() as f64);
        let start = lane.marks.partition_point(|m| x_of(m) < pos.x - HIT_RADIUS);
        let mark = lane.marks[start..]
            .iter()
            .take_while(|m| x_of(m) <= pos.x + HIT_RADIUS)
            .min_by(|a, b| (x_of(a) - pos.x).abs().total_cmp(&(x_of(b) - pos.x).abs()))?;
        Some((lane.lane, *mark))
    }

    /// The drift (E20) nearest a position on a lane, if one is near.
    pub fn drift_hit(&self, pos: Pos2) -> Option<(Seq, DriftKind)> {
        if !self.viewport.contains(pos) {
            return None;
        }
        let lane = self.lanes.iter().find(|l| l.rect.contains(pos))?;
        lane.drifts
            .iter()
            .map(|&(seq, kind)| {
                (
                    seq,
                    kind,
                    (self.axis.x_from_step(seq.get() as f64) - pos.x).abs(),
                )
            })
            .filter(|(_, _, dx)| *dx <= HIT_RADIUS + 2.0)
            .min_by(|a, b| a.2.total_cmp(&b.2))
            .map(|(seq, kind, _)| (seq, kind))
    }
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
    let output = egui::ScrollArea::vertical()
        .id_salt("timeline_lanes")
        .auto_shrink(false)
        .scroll_source(ScrollSource::SCROLL_BAR | ScrollSource::MOUSE_WHEEL)
        .show_viewport(ui, |ui, viewport| {
            ui.set_height(rows.len() as f32 * row_height);
            if rows.is_empty() {
                ui.weak("No activities");
                return Vec::new();
            }
            let first = ((viewport.min.y / row_height).floor().max(0.0) as usize).min(rows.len());
            let last = ((viewport.max.y / row_height).ceil().max(0.0) as usize).min(rows.len());
            let top = ui.max_rect().top();
            let x_range = ui.max_rect().x_range();
            let row_rect = |i: usize| {
                let y = top + i as f32 * row_height;
                Rect::from_x_y_ranges(x_range, y..=y + row_height)
            };
            let visible: Vec<usize> = rows[first..last]
                .iter()
                .filter_map(|row| match row {
                    Row::Lane(lane) => Some(*lane),
                    Row::Group { .. } => None,
                })
                .collect();
            let mut marks = match &bins {
                Some(bins) => marks(ui, doc, &visible, bins),
                None => Vec::new(),
            }
            .into_iter();
            let drifts = drifts(ui, doc);
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
                    Row::Lane(lane) => {
                        let activity = &doc.timeline.index().lanes()[*lane];
                        let is_selected = selected == Some(activity.message_id.as_str());
                        let marks = marks.next().unwrap_or_default();
                        let lane_drifts = drifts
                            .get(&activity.message_id)
                            .cloned()
                            .unwrap_or_else(|| Arc::from(Vec::new()));
                        let row = LaneRow {
                            rect,
                            plot_x,
                            axis,
                            activity,
                            striped: i % 2 == 1,
                            selected: is_selected,
                            drifts: &lane_drifts,
                        };
                        row.ui(ui, &marks, commands);
                        shown.push(VisibleLane {
                            lane: *lane,
                            rect: Rect::from_x_y_ranges(plot_x, rect.y_range()),
                            marks,
                            drifts: lane_drifts,
                        });
                    }
                }
            }
            if let Some(group) = toggled {
                toggle_group(ui, &group);
                ui.ctx().request_repaint();
            }
            shown
        });
    LanesView {
        viewport: output.inner_rect,
        axis: *axis,
        lanes: output.inner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(id: &str, activity_type: &str) -> ActivityLane {
        ActivityLane {
            message_id: id.into(),
            activity_type: activity_type.into(),
            events: vec![(Seq::new(1), ActivityChange::Created)],
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
            rows_of(&lanes, &none),
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
        assert!(rows_of(&[], &none).is_empty());
        // Collapsed: the header stays, its lanes go.
        let collapsed: FxHashSet<_> = [LaneGroup::Type("search".into())].into_iter().collect();
        assert_eq!(
            rows_of(&lanes, &collapsed),
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
                .map(|(i, c)| (Seq::new(i as u64 + 1), *c))
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
            rows_of(&lanes, &FxHashSet::default()),
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
            merge_marks(&events, &(0..=1), 4),
            vec![mark(3, C::PatchFailed, 4), mark(7, C::DeltaSkipped, 3)]
        );
        // Unmerged when every step has its bin.
        let marks = merge_marks(&events, &(0..=100), 1);
        assert_eq!(marks.len(), events.len());
        assert!(marks.iter().all(|m| m.num_merged == 1));
        assert_eq!(
            merge_marks(&events, &(7..=7), 4),
            vec![mark(30, C::Fatal, 1)]
        );
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
