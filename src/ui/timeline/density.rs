//! The density strip of the timeline ([`super::timeline`]): the kinds of the
//! events under each pixel column, in groups of kinds, a column of their
//! colours per bin. The counts of a range are kept between frames while the
//! range and the document stay the same.

use std::ops::RangeInclusive;
use std::sync::Arc;

use egui::{Mesh, Rect, Shape};

use super::range::bin_seqs;
use crate::app_model::document::Doc;
use crate::protocol::EventType;
use crate::timeline::{EventKind, KindCounts};
use crate::ui::step_axis::StepAxis;
use crate::ui::theme;

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

/// The density strip of a range, kept between frames.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Density {
    /// The document generation it is for.
    generation: u64,
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
    generation: u64,
    bin_steps: u64,
    bins: &RangeInclusive<u64>,
) -> Arc<Density> {
    let id = ui.make_persistent_id("timeline_density");
    let cached: Option<Arc<Density>> = ui.data(|d| d.get_temp(id));
    if let Some(cached) =
        cached.filter(|c| c.generation == generation && c.bin_steps == bin_steps && c.bins == *bins)
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
        generation,
        bin_steps,
        bins: bins.clone(),
        counts,
    });
    ui.data_mut(|d| d.insert_temp(id, Arc::clone(&density)));
    density
}

/// How far, at most, a column of a time axis reaches past its events'
/// times, in points.
const MAX_TIME_PAD: f32 = 10.0;

/// Each bin as a column of its kinds' colours, in proportion.
pub(super) fn paint_density(
    painter: &egui::Painter,
    axis: &StepAxis,
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
        let (first, last) = (seqs.start().get() as f64, seqs.end().get() as f64);
        let (mut x0, mut x1) = (axis.x_from_step(first - 0.5), axis.x_from_step(last + 0.5));
        if axis.time.is_some() {
            // Issue 43: on a time axis half a step can be a long gap; a
            // column reaches at most a few points past its events' times.
            x0 = x0.max(axis.x_from_step(first) - MAX_TIME_PAD);
            x1 = x1.min(axis.x_from_step(last) + MAX_TIME_PAD);
        }
        x0 = x0.max(rect.left());
        x1 = x1.min(rect.right());
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
