//! The arithmetic of the timeline ([`super::timeline`]), with no drawing:
//! the visible range of steps (fit, clamp, zoom, pan, follow the playhead),
//! the bins of steps that the strips and the lanes are looked up in, the
//! ruler's spacing, and the step under an x.

use std::ops::{Range, RangeInclusive};

use crate::app_model::state::TimelineRange;
use crate::diagnostic::Seq;
use crate::ui::step_axis::StepAxis;

/// The narrowest visible range, in steps.
pub(super) const MIN_SPAN_STEPS: f64 = 4.0;

/// The whole stream: step 0 (before any event) to the last.
pub fn full_range(num_events: u64) -> TimelineRange {
    TimelineRange {
        first: 0.0,
        last: num_events.max(1) as f64,
    }
}

/// A range moved and narrowed to fit the stream, and no narrower than a few
/// steps.
pub fn clamp_range(range: TimelineRange, num_events: u64) -> TimelineRange {
    let full = full_range(num_events);
    let full_span = full.last - full.first;
    let span = range.last - range.first;
    let span = if span.is_finite() {
        span.clamp(MIN_SPAN_STEPS.min(full_span), full_span)
    } else {
        full_span
    };
    let first = if range.first.is_finite() {
        range.first.clamp(full.first, full.last - span)
    } else {
        full.first
    };
    TimelineRange {
        first,
        last: first + span,
    }
}

/// Zooms by `factor` (above 1: in) keeping `anchor_step` where it is.
pub fn zoom_range(
    range: TimelineRange,
    anchor_step: f64,
    factor: f64,
    num_events: u64,
) -> TimelineRange {
    let full = full_range(num_events);
    let full_span = full.last - full.first;
    let span = (range.last - range.first).max(f64::EPSILON);
    let new_span = (span / factor).clamp(MIN_SPAN_STEPS.min(full_span), full_span);
    let t = ((anchor_step - range.first) / span).clamp(0.0, 1.0);
    let first = anchor_step - t * new_span;
    clamp_range(
        TimelineRange {
            first,
            last: first + new_span,
        },
        num_events,
    )
}

/// Moves a range by a number of steps (negative: back), within the stream.
pub fn pan_range(range: TimelineRange, delta_steps: f64, num_events: u64) -> TimelineRange {
    clamp_range(
        TimelineRange {
            first: range.first + delta_steps,
            last: range.last + delta_steps,
        },
        num_events,
    )
}

/// Steps per bin: the least power of two at least `steps_per_pixel`, so
/// that a bin is at least a pixel wide and bins stay put while panning.
pub fn bin_steps(steps_per_pixel: f64) -> u64 {
    if steps_per_pixel.is_nan() || steps_per_pixel <= 1.0 {
        return 1;
    }
    (steps_per_pixel.min(1e18).ceil() as u64).next_power_of_two()
}

/// The bin of a step (step 0 joins bin 0).
pub fn bin_of(step: Seq, bin_steps: u64) -> u64 {
    step.get().saturating_sub(1) / bin_steps
}

/// The bins a range shows, or none for an empty stream.
pub fn visible_bins(
    range: TimelineRange,
    bin_steps: u64,
    num_events: u64,
) -> Option<RangeInclusive<u64>> {
    if num_events == 0 {
        return None;
    }
    let step = |s: f64| Seq::new((s.max(0.0) as u64).min(num_events));
    let first = bin_of(step(range.first.floor()), bin_steps);
    let last = bin_of(step(range.last.ceil()), bin_steps);
    Some(first..=last)
}

/// The events of a bin.
pub fn bin_seqs(bin: u64, bin_steps: u64, num_events: u64) -> RangeInclusive<Seq> {
    let first = bin.saturating_mul(bin_steps).saturating_add(1);
    let last = bin
        .saturating_add(1)
        .saturating_mul(bin_steps)
        .min(num_events);
    Seq::new(first)..=Seq::new(last)
}

/// The visible items of a list sorted by step, grouped by bin: each group
/// is a bin and the range of the items in it. One galloping search per
/// group ([`gallop`]), so the cost grows with the groups drawn, not with the
/// items.
pub fn bin_groups<T>(
    items: &[T],
    step_of: impl Fn(&T) -> Seq,
    bins: &RangeInclusive<u64>,
    bin_steps: u64,
) -> Vec<(u64, Range<usize>)> {
    let first_step = match *bins.start() {
        0 => 0,
        bin => bin.saturating_mul(bin_steps).saturating_add(1),
    };
    let last_step = bins.end().saturating_add(1).saturating_mul(bin_steps);
    let mut i = items.partition_point(|t| step_of(t).get() < first_step);
    let end = items.partition_point(|t| step_of(t).get() <= last_step);
    let mut groups = Vec::new();
    while i < end {
        let bin = bin_of(step_of(&items[i]), bin_steps);
        let bin_last = bin.saturating_add(1).saturating_mul(bin_steps);
        let j = gallop(&items[..end], i, |t| step_of(t).get() <= bin_last);
        groups.push((bin, i..j));
        i = j;
    }
    groups
}

/// The first index at or after `from` whose item fails `pred` (the items
/// that satisfy it come first, and `items[from]` does), found by doubling
/// the distance from `from`, then a binary search within the last
/// doubling: O(log distance), reading only near `from`. Issue 14: a binary
/// search per bin over the rest of a list of millions of steps (the
/// diagnostics of 10,000,000 events) missed the cache at each probe, and
/// was a third of a frame.
fn gallop<T>(items: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    let mut reach = 1;
    while from + reach < items.len() && pred(&items[from + reach]) {
        reach *= 2;
    }
    let low = from + reach / 2;
    let high = (from + reach).min(items.len());
    low + items[low..high].partition_point(pred)
}

/// Steps between two labels of the ruler: 1, 2 or 5 times a power of ten,
/// at least `min_points` apart.
pub fn ruler_spacing(steps_per_pixel: f64, min_points: f32) -> u64 {
    let min_steps = steps_per_pixel * f64::from(min_points);
    let mut power = 1u64;
    loop {
        for multiple in [1, 2, 5] {
            let spacing = power.saturating_mul(multiple);
            if spacing as f64 >= min_steps || spacing == u64::MAX {
                return spacing;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// The step nearest an x, within the stream.
pub(super) fn step_at(axis: &StepAxis, x: f32, num_events: u64) -> Seq {
    Seq::new(axis.step_from_x(x).round().clamp(0.0, num_events as f64) as u64)
}

/// Keeps the playhead in view while playing: when it leaves the range, the
/// range moves so that it shows near the left.
pub(super) fn follow_playhead(
    range: TimelineRange,
    playhead: Seq,
    num_events: u64,
) -> TimelineRange {
    let step = playhead.get() as f64;
    if (range.first..=range.last).contains(&step) {
        return range;
    }
    let span = range.last - range.first;
    let first = step - span * 0.1;
    clamp_range(
        TimelineRange {
            first,
            last: first + span,
        },
        num_events,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(first: f64, last: f64) -> TimelineRange {
        TimelineRange { first, last }
    }

    #[test]
    fn ranges_stay_inside_the_stream_and_a_few_steps_wide() {
        assert_eq!(full_range(0), range(0.0, 1.0));
        assert_eq!(clamp_range(range(-50.0, 50.0), 1000), range(0.0, 100.0));
        assert_eq!(
            clamp_range(range(950.0, 1050.0), 1000),
            range(900.0, 1000.0)
        );
        assert_eq!(clamp_range(range(-5.0, 5000.0), 1000), full_range(1000));
        assert_eq!(clamp_range(range(10.0, 10.5), 1000), range(10.0, 14.0));
        assert_eq!(clamp_range(range(f64::NAN, 3.0), 1000).first, 0.0);
        // A stream shorter than the narrowest range shows whole.
        assert_eq!(clamp_range(range(1.0, 1.5), 2), full_range(2));
    }

    #[test]
    fn zooming_keeps_the_anchor_under_the_pointer() {
        let zoomed = zoom_range(range(0.0, 1000.0), 250.0, 2.0, 1000);
        assert_eq!(zoomed, range(125.0, 625.0));
        // The anchor is a quarter of the way in, before and after.
        assert!(((250.0 - zoomed.first) / (zoomed.last - zoomed.first) - 0.25).abs() < 1e-9);
        let back = zoom_range(zoomed, 250.0, 0.5, 1000);
        assert_eq!(back, range(0.0, 1000.0));
        // No deeper than the narrowest range, no wider than the stream.
        let deep = zoom_range(range(100.0, 108.0), 104.0, 1000.0, 1000);
        assert_eq!(deep, range(102.0, 106.0));
        assert_eq!(
            zoom_range(range(0.0, 1000.0), 10.0, 0.1, 1000),
            full_range(1000)
        );
    }

    #[test]
    fn panning_stops_at_the_ends() {
        assert_eq!(
            pan_range(range(100.0, 200.0), 50.0, 1000),
            range(150.0, 250.0)
        );
        assert_eq!(
            pan_range(range(100.0, 200.0), -500.0, 1000),
            range(0.0, 100.0)
        );
        assert_eq!(
            pan_range(range(100.0, 200.0), 5000.0, 1000),
            range(900.0, 1000.0)
        );
    }

    #[test]
    fn bins_are_powers_of_two_at_least_a_pixel_wide() {
        assert_eq!(bin_steps(0.01), 1);
        assert_eq!(bin_steps(1.0), 1);
        assert_eq!(bin_steps(1.2), 2);
        assert_eq!(bin_steps(300.0), 512);
        assert_eq!(bin_steps(f64::NAN), 1);
        assert_eq!(bin_of(Seq::new(0), 4), 0);
        assert_eq!(bin_of(Seq::new(4), 4), 0);
        assert_eq!(bin_of(Seq::new(5), 4), 1);
        assert_eq!(bin_seqs(1, 4, 100), Seq::new(5)..=Seq::new(8));
        assert_eq!(bin_seqs(24, 4, 98), Seq::new(97)..=Seq::new(98));
        assert_eq!(visible_bins(range(0.0, 100.0), 4, 98), Some(0..=24));
        assert_eq!(visible_bins(range(10.2, 20.7), 4, 98), Some(2..=5));
        assert_eq!(visible_bins(range(0.0, 1.0), 4, 0), None);
    }

    #[test]
    fn a_column_of_bins_covers_each_event_once() {
        // Whatever the zoom, the bins of the whole stream hold every event once.
        for num_events in [1u64, 7, 256, 1000, 4097] {
            for steps_per_pixel in [0.3, 1.0, 3.7, 300.0] {
                let k = bin_steps(steps_per_pixel);
                let bins = visible_bins(full_range(num_events), k, num_events).unwrap();
                let covered: u64 = bins
                    .map(|bin| {
                        let seqs = bin_seqs(bin, k, num_events);
                        seqs.end().get() + 1 - seqs.start().get()
                    })
                    .sum();
                assert_eq!(
                    covered, num_events,
                    "{num_events} events, {steps_per_pixel}"
                );
            }
        }
    }

    /// Issue 14: galloping finds what a binary search over the rest finds.
    #[test]
    fn gallop_finds_the_partition_point() {
        let items: Vec<u64> = (0..300).map(|i| i * i / 7).collect();
        for from in 0..items.len() {
            for bound in [items[from], items[from] + 1, items[from] + 50, 20_000] {
                let pred = |&x: &u64| x <= bound;
                assert_eq!(
                    gallop(&items, from, pred),
                    from + items[from..].partition_point(pred),
                    "from {from}, bound {bound}"
                );
            }
        }
    }

    #[test]
    fn bin_groups_merge_what_falls_in_one_bin_and_skip_the_rest() {
        let steps: Vec<Seq> = [0, 1, 2, 3, 9, 10, 17, 40, 41].map(Seq::new).to_vec();
        // Bins of 4 steps; bins 1 to 4 show steps 5 to 20.
        let groups = bin_groups(&steps, |s| *s, &(1..=4), 4);
        assert_eq!(groups, vec![(2, 4..6), (4, 6..7)]);
        // Step 0 joins bin 0.
        let groups = bin_groups(&steps, |s| *s, &(0..=0), 4);
        assert_eq!(groups, vec![(0, 0..4)]);
        let all = bin_groups(&steps, |s| *s, &(0..=100), 1);
        assert_eq!(all.len(), steps.len() - 1, "steps 0 and 1 share bin 0");
        assert!(bin_groups(&steps, |s| *s, &(50..=60), 4).is_empty());
    }

    #[test]
    fn ruler_labels_are_round_and_far_enough_apart() {
        assert_eq!(ruler_spacing(0.01, 90.0), 1);
        assert_eq!(ruler_spacing(0.05, 90.0), 5);
        assert_eq!(ruler_spacing(1.0, 90.0), 100);
        assert_eq!(ruler_spacing(1.2, 90.0), 200);
        assert_eq!(ruler_spacing(1000.0, 90.0), 100_000);
    }

    #[test]
    fn the_playhead_is_followed_while_playing() {
        let r = range(0.0, 100.0);
        assert_eq!(follow_playhead(r, Seq::new(50), 1000), r);
        assert_eq!(follow_playhead(r, Seq::new(150), 1000), range(140.0, 240.0));
        assert_eq!(
            follow_playhead(r, Seq::new(995), 1000),
            range(900.0, 1000.0)
        );
    }
}
