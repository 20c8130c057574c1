//! The rows of the timeline ([`super::timeline`]): the ruler, the density
//! strip, the diagnostics, and the activity lanes (one per activity,
//! grouped by `activityType`, each marking what every event did to its
//! activity).
//!
//! The lanes scroll vertically; only the rows in view are drawn, and in
//! each only the marks in the visible range, merged per bin. The density
//! and the merged marks are kept between frames while the range stays the
//! same.

use std::cmp::Reverse;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::Arc;

use egui::containers::scroll_area::ScrollSource;
use egui::{
    Align, Layout, Mesh, Pos2, Rangef, Rect, RichText, Sense, Shape, Stroke, UiBuilder, pos2,
};
use rustc_hash::FxHashMap;

use super::state::{Command, Doc};
use super::theme;
use super::time_axis::TimeAxis;
use super::timeline::{HIT_RADIUS, bin_groups, bin_seqs, ruler_spacing};
use crate::diagnostic::{Seq, Severity};
use crate::protocol::EventType;
use crate::replay::{ActivityChange, Options};
use crate::timeline::{ActivityLane, EventKind, KindCounts, StreamIndex};

/// Indent of a lane's name under its group's.
const LANE_INDENT: f32 = 12.0;

/// The least room between two labels of the ruler, in points.
const RULER_LABEL_POINTS: f32 = 90.0;

/// Groups of event kinds, as the density strip colours them (bottom to top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindGroup {
    /// Runs, steps and subagents starting and ending.
    Lifecycle,
    /// Text and reasoning messages.
    Text,
    /// Tool calls and their results.
    ToolCall,
    /// The shared state and message snapshots.
    State,
    /// Activity snapshots and deltas.
    Activity,
    /// Raw, custom, unknown and unreadable events.
    Other,
}

/// How many groups there are.
pub(super) const NUM_GROUPS: usize = 6;

/// Event counts per [`KindGroup`].
pub(super) type GroupCounts = [u32; NUM_GROUPS];

impl KindGroup {
    /// Every group, in drawing order.
    pub const ALL: [Self; NUM_GROUPS] = [
        Self::Lifecycle,
        Self::Text,
        Self::ToolCall,
        Self::State,
        Self::Activity,
        Self::Other,
    ];

    /// The group of a kind of event.
    pub fn of(kind: EventKind) -> Self {
        use EventType as T;
        let EventKind::Known(event_type) = kind else {
            return Self::Other;
        };
        match event_type {
            T::RunStarted
            | T::RunFinished
            | T::RunError
            | T::StepStarted
            | T::StepFinished
            | T::SubagentStarted
            | T::SubagentFinished
            | T::SubagentError => Self::Lifecycle,
            T::TextMessageStart
            | T::TextMessageContent
            | T::TextMessageEnd
            | T::TextMessageChunk
            | T::ReasoningStart
            | T::ReasoningMessageStart
            | T::ReasoningMessageContent
            | T::ReasoningMessageEnd
            | T::ReasoningMessageChunk
            | T::ReasoningEnd
            | T::ReasoningEncryptedValue => Self::Text,
            T::ToolCallStart
            | T::ToolCallArgs
            | T::ToolCallEnd
            | T::ToolCallChunk
            | T::ToolCallResult => Self::ToolCall,
            T::StateSnapshot | T::StateDelta | T::MessagesSnapshot => Self::State,
            T::ActivitySnapshot | T::ActivityDelta => Self::Activity,
            T::Raw | T::Custom => Self::Other,
        }
    }

    /// A name for the legend.
    pub fn label(self) -> &'static str {
        match self {
            Self::Lifecycle => "lifecycle",
            Self::Text => "text and reasoning",
            Self::ToolCall => "tool calls",
            Self::State => "state and messages",
            Self::Activity => "activities",
            Self::Other => "other",
        }
    }
}

/// Sums counts per kind into counts per group.
pub(super) fn group_counts(counts: &KindCounts) -> GroupCounts {
    let mut groups = [0; NUM_GROUPS];
    for (index, &count) in counts.iter().enumerate() {
        if let Some(kind) = EventKind::from_index(index) {
            groups[KindGroup::of(kind) as usize] += count;
        }
    }
    groups
}

/// What a document is, for the caches: they are dropped when it changes.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct DocKey {
    path: PathBuf,
    session: Option<i64>,
    options: Options,
    num_events: u64,
    num_lanes: usize,
}

impl DocKey {
    /// The key of a document.
    pub(super) fn of(doc: &Doc) -> Self {
        Self {
            path: doc.path.clone(),
            session: doc.session,
            options: doc.options(),
            num_events: doc.num_events(),
            num_lanes: doc.timeline.index().lanes().len(),
        }
    }
}

/// The density strip of a range, kept between frames.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Density {
    doc: DocKey,
    /// Steps per bin.
    pub(super) bin_steps: u64,
    bins: RangeInclusive<u64>,
    /// Counts per group for each bin, from the first.
    counts: Vec<GroupCounts>,
}

impl Density {
    /// The counts of a bin, if in range.
    pub(super) fn get(&self, bin: u64) -> Option<&GroupCounts> {
        let offset = bin.checked_sub(*self.bins.start())?;
        self.counts.get(usize::try_from(offset).ok()?)
    }
}

/// The density of a range: from the cache when the range and the document
/// are the same, else one [`StreamIndex::counts`] per bin.
pub(super) fn density(
    ui: &egui::Ui,
    doc: &Doc,
    bin_steps: u64,
    bins: &RangeInclusive<u64>,
) -> Arc<Density> {
    let id = ui.make_persistent_id("timeline_density");
    let key = DocKey::of(doc);
    let cached: Option<Arc<Density>> = ui.data(|d| d.get_temp(id));
    if let Some(cached) =
        cached.filter(|c| c.doc == key && c.bin_steps == bin_steps && c.bins == *bins)
    {
        return cached;
    }
    let index = doc.timeline.index();
    let num_events = doc.num_events();
    let counts = bins
        .clone()
        .map(|bin| group_counts(&index.counts(bin_seqs(bin, bin_steps, num_events))))
        .collect();
    let density = Arc::new(Density {
        doc: key,
        bin_steps,
        bins: bins.clone(),
        counts,
    });
    ui.data_mut(|d| d.insert_temp(id, Arc::clone(&density)));
    density
}

/// A diagnostic tick drawn on the axis (several merged when in one bin).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tick {
    /// Where it is drawn.
    pub(super) x: f32,
    /// The step of the first diagnostic in its bin.
    pub(super) step: Seq,
    /// The severity.
    pub(super) severity: Severity,
    /// How many steps with diagnostics of that severity it stands for.
    pub(super) num_steps: usize,
}

/// The names of the rows, in the label column.
pub(super) fn strip_labels_ui(
    ui: &mut egui::Ui,
    rect: Rect,
    ruler: Rect,
    density: Rect,
    ticks: Rect,
) {
    let label_rect = |row: Rect| {
        Rect::from_x_y_ranges(
            rect.left()..=rect.left() + theme::TIMELINE_LABEL_WIDTH - 4.0,
            row.y_range(),
        )
    };
    let mut put = |row: Rect, text: &str| {
        ui.scope_builder(
            UiBuilder::new()
                .max_rect(label_rect(row))
                .layout(Layout::left_to_right(Align::Center)),
            |ui| ui.add(egui::Label::new(text).selectable(false).truncate()),
        )
        .inner
    };
    put(ruler, "Steps").on_hover_text(
        "Click or drag to scrub · Ctrl + wheel to zoom · wheel, Shift + drag or middle drag to pan",
    );
    put(density, "Events").on_hover_ui(|ui| {
        ui.label("The kinds of the events under each column:");
        for group in KindGroup::ALL {
            ui.horizontal(|ui| {
                let (swatch, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), Sense::hover());
                ui.painter()
                    .rect_filled(swatch, 2.0, theme::kind_group_color(group));
                ui.label(group.label());
            });
        }
    });
    put(ticks, "Diagnostics").on_hover_text("Steps with diagnostics, errors and warnings on top");
}

/// Step numbers at round intervals.
pub(super) fn paint_ruler(ui: &egui::Ui, painter: &egui::Painter, axis: &TimeAxis, rect: Rect) {
    let visuals = ui.visuals();
    let color = visuals.weak_text_color();
    painter.hline(
        rect.x_range(),
        rect.bottom(),
        Stroke::new(1.0, color.gamma_multiply(0.4)),
    );
    let spacing = ruler_spacing(axis.steps_per_pixel(), RULER_LABEL_POINTS);
    let first = (axis.first_step.max(0.0) / spacing as f64).ceil() as u64;
    let last = (axis.last_step.max(0.0) / spacing as f64).floor() as u64;
    let font = egui::FontId::proportional(10.0);
    for i in first..=last {
        let step = i.saturating_mul(spacing);
        let x = axis.x_from_step(step as f64);
        painter.vline(
            x,
            rect.bottom() - 4.0..=rect.bottom(),
            Stroke::new(1.0, color),
        );
        painter.text(
            egui::pos2(x + 2.0, rect.bottom() - 1.0),
            egui::Align2::LEFT_BOTTOM,
            step.to_string(),
            font.clone(),
            color,
        );
    }
}

/// Each bin as a column of its kinds' colours, in proportion.
pub(super) fn paint_density(
    painter: &egui::Painter,
    axis: &TimeAxis,
    rect: Rect,
    density: &Density,
    num_events: u64,
) {
    let mut mesh = Mesh::default();
    for (bin, counts) in density.bins.clone().zip(&density.counts) {
        let total: u32 = counts.iter().sum();
        if total == 0 {
            continue;
        }
        let seqs = bin_seqs(bin, density.bin_steps, num_events);
        let mut x0 = axis
            .x_from_step(seqs.start().0 as f64 - 0.5)
            .max(rect.left());
        let mut x1 = axis
            .x_from_step(seqs.end().0 as f64 + 0.5)
            .min(rect.right());
        if x1 - x0 > 4.0 {
            // Zoomed in to single events: a gap between them.
            x0 += 0.5;
            x1 -= 0.5;
        }
        if x1 <= x0 {
            continue;
        }
        let mut y = rect.bottom();
        for group in KindGroup::ALL {
            let count = counts[group as usize];
            if count == 0 {
                continue;
            }
            let height = rect.height() * count as f32 / total as f32;
            let segment = Rect::from_x_y_ranges(x0..=x1, y - height..=y);
            mesh.add_colored_rect(segment, theme::kind_group_color(group));
            y -= height;
        }
    }
    painter.add(Shape::mesh(mesh));
}

/// A tick per bin with diagnostics of a severity, the milder first so that
/// errors and warnings end on top.
pub(super) fn paint_ticks(
    ui: &egui::Ui,
    painter: &egui::Painter,
    index: &StreamIndex,
    axis: &TimeAxis,
    rect: Rect,
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<Tick> {
    let baseline = ui.visuals().weak_text_color().gamma_multiply(0.4);
    painter.hline(rect.x_range(), rect.bottom(), Stroke::new(1.0, baseline));
    let mut ticks = Vec::new();
    for severity in Severity::ALL.into_iter().rev() {
        let color = theme::severity_color(ui.visuals(), severity);
        let (height, width) = match severity {
            Severity::Error => (1.0, 2.5),
            Severity::Warning => (0.8, 2.0),
            Severity::Note => (0.55, 1.5),
            Severity::Info => (0.35, 1.0),
        };
        let steps = index.steps_with(severity);
        for (_, group) in bin_groups(steps, |s| *s, bins, bin_steps) {
            let step = steps[group.start];
            let x = axis.x_from_step(step.0 as f64);
            let top = rect.bottom() - rect.height() * height;
            painter.vline(x, top..=rect.bottom(), Stroke::new(width, color));
            ticks.push(Tick {
                x,
                step,
                severity,
                num_steps: group.len(),
            });
        }
    }
    ticks
}

/// The worst tick near a position on the diagnostics row.
pub(super) fn tick_at(ticks: &[Tick], rect: Rect, pos: egui::Pos2) -> Option<&Tick> {
    if !rect.y_range().contains(pos.y) {
        return None;
    }
    ticks
        .iter()
        .filter(|t| (t.x - pos.x).abs() <= HIT_RADIUS)
        .min_by(|a, b| {
            (a.severity, (a.x - pos.x).abs())
                .partial_cmp(&(b.severity, (b.x - pos.x).abs()))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// A row of the lanes: a group header or a lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    /// The header of the activities of one `activityType`.
    Group {
        /// The type.
        activity_type: String,
        /// How many lanes follow.
        num_lanes: usize,
    },
    /// An activity: an index into [`crate::timeline::StreamIndex::lanes`].
    Lane(usize),
}

/// The rows: the types in order of their first activity, each followed by
/// its activities in order of their first event.
pub fn rows_of(lanes: &[ActivityLane]) -> Vec<Row> {
    let mut types: Vec<&str> = Vec::new();
    let mut members: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (index, lane) in lanes.iter().enumerate() {
        let activity_type = lane.activity_type.as_str();
        members
            .entry(activity_type)
            .or_insert_with(|| {
                types.push(activity_type);
                Vec::new()
            })
            .push(index);
    }
    let mut rows = Vec::with_capacity(lanes.len() + types.len());
    for activity_type in types {
        let lanes = &members[activity_type];
        rows.push(Row::Group {
            activity_type: activity_type.to_owned(),
            num_lanes: lanes.len(),
        });
        rows.extend(lanes.iter().map(|&lane| Row::Lane(lane)));
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
    doc: Option<DocKey>,
    rows: Arc<[Row]>,
    /// The bins and steps per bin the marks are for.
    marks_for: Option<(RangeInclusive<u64>, u64)>,
    marks: FxHashMap<usize, Arc<[LaneMark]>>,
}

fn cache_id() -> egui::Id {
    egui::Id::unique("timeline_lanes_cache")
}

/// The rows of a document (from the cache).
fn rows(ui: &egui::Ui, doc: &Doc) -> Arc<[Row]> {
    let key = DocKey::of(doc);
    ui.data_mut(|d| {
        let cache = d.get_temp_mut_or_default::<LanesCache>(cache_id());
        if cache.doc.as_ref() != Some(&key) {
            *cache = LanesCache {
                doc: Some(key),
                rows: rows_of(doc.timeline.index().lanes()).into(),
                ..LanesCache::default()
            };
        }
        Arc::clone(&cache.rows)
    })
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
pub fn content_height(ui: &egui::Ui, doc: &Doc) -> f32 {
    rows(ui, doc).len() as f32 * theme::LANE_HEIGHT
}

/// A lane on screen.
struct VisibleLane {
    lane: usize,
    rect: Rect,
    marks: Arc<[LaneMark]>,
}

/// The lanes drawn this frame, to find what the pointer is over.
pub struct LanesView {
    /// Where the lanes show.
    pub viewport: Rect,
    axis: TimeAxis,
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
        let x_of = |mark: &LaneMark| self.axis.x_from_step(mark.seq.0 as f64);
        let start = lane.marks.partition_point(|m| x_of(m) < pos.x - HIT_RADIUS);
        let mark = lane.marks[start..]
            .iter()
            .take_while(|m| x_of(m) <= pos.x + HIT_RADIUS)
            .min_by(|a, b| (x_of(a) - pos.x).abs().total_cmp(&(x_of(b) - pos.x).abs()))?;
        Some((lane.lane, *mark))
    }
}

/// Draws the lanes in a vertical scroll area filling the rest of the panel.
/// `bins` are the visible bins and the steps per bin (none for an empty
/// stream).
pub fn lanes_ui(
    ui: &mut egui::Ui,
    doc: &Doc,
    selected: Option<&str>,
    axis: &TimeAxis,
    plot_x: Rangef,
    bins: Option<(RangeInclusive<u64>, u64)>,
    commands: &mut Vec<Command>,
) -> LanesView {
    let rows = rows(ui, doc);
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
            let mut shown = Vec::new();
            for (i, row) in rows.iter().enumerate().take(last).skip(first) {
                let rect = row_rect(i);
                match row {
                    Row::Group {
                        activity_type,
                        num_lanes,
                    } => group_row_ui(ui, rect, plot_x, activity_type, *num_lanes),
                    Row::Lane(lane) => {
                        let activity = &doc.timeline.index().lanes()[*lane];
                        let is_selected = selected == Some(activity.message_id.as_str());
                        let marks = marks.next().unwrap_or_default();
                        let row = LaneRow {
                            rect,
                            plot_x,
                            axis,
                            activity,
                            striped: i % 2 == 1,
                            selected: is_selected,
                        };
                        row.ui(ui, &marks, commands);
                        shown.push(VisibleLane {
                            lane: *lane,
                            rect: Rect::from_x_y_ranges(plot_x, rect.y_range()),
                            marks,
                        });
                    }
                }
            }
            shown
        });
    LanesView {
        viewport: output.inner_rect,
        axis: *axis,
        lanes: output.inner,
    }
}

/// Lays out one widget at the left of a rect, vertically centred.
fn left_aligned_ui<R>(ui: &mut egui::Ui, rect: Rect, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    ui.scope_builder(
        UiBuilder::new()
            .max_rect(rect)
            .layout(Layout::left_to_right(Align::Center)),
        add,
    )
    .inner
}

fn group_row_ui(
    ui: &mut egui::Ui,
    rect: Rect,
    plot_x: Rangef,
    activity_type: &str,
    num_lanes: usize,
) {
    let label_rect = Rect::from_x_y_ranges(rect.left()..=plot_x.min - 4.0, rect.y_range());
    let name = match activity_type {
        "" => "(no type)",
        name => name,
    };
    left_aligned_ui(ui, label_rect, |ui| {
        ui.add(
            egui::Label::new(RichText::new(name).strong())
                .selectable(false)
                .truncate(),
        )
        .on_hover_text(format!("activityType {name}: {num_lanes} activities"));
    });
    let color = ui.visuals().weak_text_color().gamma_multiply(0.3);
    ui.painter()
        .hline(plot_x, rect.center().y, Stroke::new(1.0, color));
}

/// One activity's row: its name on the left, its marks on the right.
struct LaneRow<'a> {
    rect: Rect,
    plot_x: Rangef,
    axis: &'a TimeAxis,
    activity: &'a ActivityLane,
    striped: bool,
    selected: bool,
}

impl LaneRow<'_> {
    fn ui(&self, ui: &mut egui::Ui, marks: &[LaneMark], commands: &mut Vec<Command>) {
        let visuals = ui.visuals().clone();
        let rect = self.rect;
        if self.selected {
            ui.painter()
                .rect_filled(rect, 0.0, visuals.selection.bg_fill.gamma_multiply(0.35));
        } else if self.striped {
            ui.painter().rect_filled(rect, 0.0, visuals.faint_bg_color);
        }
        let label_rect = Rect::from_x_y_ranges(
            rect.left() + LANE_INDENT..=self.plot_x.min - 4.0,
            rect.y_range(),
        );
        let id = &self.activity.message_id;
        let response = left_aligned_ui(ui, label_rect, |ui| {
            ui.spacing_mut().button_padding.y = 0.0;
            ui.spacing_mut().interact_size.y = rect.height();
            let text = RichText::new(id).monospace().size(11.0);
            ui.add(egui::Button::selectable(self.selected, text).truncate())
        });
        let response = response.on_hover_text(format!(
            "{id}\nactivityType {} · {} events\nClick to select",
            self.activity.activity_type,
            self.activity.events.len()
        ));
        if response.clicked() && !self.selected {
            commands.push(Command::SelectActivity(Some(id.clone())));
        }

        let plot = Rect::from_x_y_ranges(self.plot_x, rect.y_range());
        let painter = ui.painter().with_clip_rect(ui.clip_rect().intersect(plot));
        let y = rect.center().y;
        // Its lifetime: from its first event to its last.
        if let (Some(first), Some(last)) =
            (self.activity.events.first(), self.activity.events.last())
        {
            let x0 = self.axis.x_from_step(first.0.0 as f64).max(plot.left());
            let x1 = self.axis.x_from_step(last.0.0 as f64).min(plot.right());
            if x0 <= x1 {
                let color = visuals.weak_text_color().gamma_multiply(0.35);
                painter.hline(x0..=x1, y, Stroke::new(1.0, color));
            }
        }
        for mark in marks {
            let x = self.axis.x_from_step(mark.seq.0 as f64);
            paint_mark(&painter, &visuals, pos2(x, y), mark.change);
        }
    }
}

/// A mark: its shape and colour tell the change.
fn paint_mark(
    painter: &egui::Painter,
    visuals: &egui::Visuals,
    center: Pos2,
    change: ActivityChange,
) {
    let color = theme::change_color(visuals, change);
    let half = theme::LANE_HEIGHT * 0.22;
    let square = Rect::from_center_size(center, egui::Vec2::splat(2.0 * half));
    let outline = Stroke::new(1.3, color);
    match change {
        ActivityChange::Created | ActivityChange::Replaced => {
            painter.rect_filled(square, 1.0, color);
        }
        ActivityChange::DeltaApplied => {
            painter.circle_filled(center, half * 0.6, color);
        }
        ActivityChange::Retyped => {
            let diamond = vec![
                center + egui::vec2(0.0, -half - 1.0),
                center + egui::vec2(half + 1.0, 0.0),
                center + egui::vec2(0.0, half + 1.0),
                center + egui::vec2(-half - 1.0, 0.0),
            ];
            painter.add(Shape::convex_polygon(diamond, color, Stroke::NONE));
        }
        ActivityChange::Declined | ActivityChange::SnapshotSkipped => {
            painter.rect_stroke(square.shrink(0.5), 1.0, outline, egui::StrokeKind::Middle);
        }
        ActivityChange::DeltaSkipped => {
            painter.circle_stroke(center, half, outline);
        }
        ActivityChange::PatchFailed => {
            let stroke = Stroke::new(2.0, color);
            painter.line_segment([square.left_top(), square.right_bottom()], stroke);
            painter.line_segment([square.left_bottom(), square.right_top()], stroke);
        }
        ActivityChange::Fatal => {
            let big = half + 1.5;
            let triangle = vec![
                center + egui::vec2(0.0, -big),
                center + egui::vec2(big, big * 0.8),
                center + egui::vec2(-big, big * 0.8),
            ];
            painter.add(Shape::convex_polygon(triangle, color, Stroke::NONE));
        }
        ActivityChange::NotApplied => {
            painter.circle_filled(center, half * 0.5, color.gamma_multiply(0.8));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(id: &str, activity_type: &str) -> ActivityLane {
        ActivityLane {
            message_id: id.into(),
            activity_type: activity_type.into(),
            events: Vec::new(),
        }
    }

    #[test]
    fn every_kind_has_a_group() {
        let counts: KindCounts = std::array::from_fn(|i| i as u32);
        let groups = group_counts(&counts);
        assert_eq!(groups.iter().sum::<u32>(), counts.iter().sum::<u32>());
        assert_eq!(
            KindGroup::of(EventKind::Known(EventType::ActivityDelta)),
            KindGroup::Activity
        );
        assert_eq!(KindGroup::of(EventKind::Unparseable), KindGroup::Other);
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
            activity_type: activity_type.into(),
            num_lanes,
        };
        assert_eq!(
            rows_of(&lanes),
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
        assert!(rows_of(&[]).is_empty());
    }

    #[test]
    fn merged_marks_show_the_worst_change_of_their_bin() {
        use ActivityChange as C;
        let events = [
            (Seq(1), C::Created),
            (Seq(2), C::DeltaApplied),
            (Seq(3), C::PatchFailed),
            (Seq(4), C::DeltaApplied),
            (Seq(6), C::DeltaApplied),
            (Seq(7), C::DeltaSkipped),
            (Seq(8), C::DeltaSkipped),
            (Seq(30), C::Fatal),
        ];
        let mark = |seq, change, num_merged| LaneMark {
            seq: Seq(seq),
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
