//! The timeline read in recorded time (issue 43): the mapping between
//! steps and the times the events arrived, so that the timeline can put a
//! step where its time falls (gaps visible, as Rerun's and Chrome's
//! Performance panel's timelines do) and label its axis in ms, s or min.
//! No UI toolkit here; the timeline's step axis draws with it.

use crate::app_model::document::Timing;

/// The steps' recorded times, made monotone: a time is never before the
/// one of the step before (a `timestamp` that goes back shows at the time
/// of the event before it). Step 0, before the first event, is at time 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeMap {
    /// The time of each step from 1, in nanoseconds from the start.
    nanos: Vec<u64>,
}

impl TimeMap {
    /// The map of the arrival times of a document (index 0 is step 1).
    pub fn from_arrivals(arrival_nanos: &[u64]) -> Self {
        let mut latest = 0;
        let nanos = arrival_nanos
            .iter()
            .map(|&t| {
                latest = latest.max(t);
                latest
            })
            .collect();
        Self { nanos }
    }

    /// How many steps it maps (after step 0).
    pub fn num_steps(&self) -> usize {
        self.nanos.len()
    }

    /// The time of a whole step (clamped to the last).
    fn nanos_of(&self, step: usize) -> f64 {
        match step.checked_sub(1) {
            None => 0.0,
            Some(i) => self
                .nanos
                .get(i)
                .or(self.nanos.last())
                .map_or(0.0, |&t| t as f64),
        }
    }

    /// The time of a step, fractional steps between their two times.
    pub fn nanos_from_step(&self, step: f64) -> f64 {
        let last = self.nanos.len() as f64;
        let step = step.clamp(0.0, last);
        let whole = step.floor() as usize;
        let fraction = step - whole as f64;
        let at = self.nanos_of(whole);
        if fraction == 0.0 {
            return at;
        }
        at + (self.nanos_of(whole + 1) - at) * fraction
    }

    /// The step at a time, fractional within the gap between two events
    /// (the inverse of [`Self::nanos_from_step`] where time moves).
    pub fn step_from_nanos(&self, nanos: f64) -> f64 {
        if self.nanos.is_empty() || nanos <= 0.0 {
            return 0.0;
        }
        // The steps from 1 whose time is at most `nanos`: the step before
        // the gap `nanos` falls in.
        let before = self.nanos.partition_point(|&t| (t as f64) <= nanos);
        if before >= self.nanos.len() {
            return self.nanos.len() as f64;
        }
        let (t0, t1) = (self.nanos_of(before), self.nanos_of(before + 1));
        let fraction = if t1 > t0 {
            (nanos - t0) / (t1 - t0)
        } else {
            0.0
        };
        before as f64 + fraction.clamp(0.0, 1.0)
    }
}

/// Whether a document's times can be read as a time axis: they are its
/// own, at least in part; invented ones (events 100 ms apart, or all at
/// one time) would draw a step axis under another name.
pub fn has_recorded_times(timing: Timing) -> bool {
    !matches!(timing, Timing::Invented | Timing::Untimed)
}

/// Why the timeline cannot be read in recorded time, for the toggle's
/// tooltip.
pub const NO_RECORDED_TIMES: &str = "This stream has no recorded times: its events carry no \
     timestamp and were not recorded as they arrived, so its times would be made up";

/// A time on the axis: `250 ms`, `1.5 s`, `2 min 05 s`. `step_nanos` is
/// the spacing of the labels, which picks one unit and precision for all
/// of them (`0.0 s`, `0.5 s`, `1.0 s`, not `0 ms`, `500 ms`, `1.0 s`).
pub fn time_label(nanos: f64, step_nanos: f64) -> String {
    let decimals = |unit: f64| {
        let per_unit = step_nanos / unit;
        match per_unit {
            p if p < 0.1 => 2,
            p if p < 1.0 => 1,
            _ => 0,
        }
    };
    if step_nanos < 100e6 {
        let millis = nanos / 1e6;
        return format!("{millis:.*} ms", decimals(1e6));
    }
    let seconds = nanos / 1e9;
    if seconds < 60.0 {
        return format!("{seconds:.*} s", decimals(1e9));
    }
    let minutes = (seconds / 60.0).floor();
    let rest = seconds - minutes * 60.0;
    if step_nanos >= 60e9 {
        return format!("{minutes:.0} min");
    }
    let places = decimals(1e9);
    let width = if places == 0 { 2 } else { 3 + places };
    format!("{minutes:.0} min {rest:0width$.places$} s")
}

/// The spacing of the axis' time labels: the nicest of 1, 2 and 5 times a
/// power of ten of nanoseconds (or 1, 2, 5, 10, 15, 30 s and minutes) at
/// least `min_nanos` apart.
pub fn time_spacing(min_nanos: f64) -> f64 {
    const NICE: [f64; 3] = [1.0, 2.0, 5.0];
    let min_nanos = min_nanos.max(1.0);
    if min_nanos > 10e9 {
        // Seconds and minutes as a clock divides them.
        for seconds in [15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0] {
            if seconds * 1e9 >= min_nanos {
                return seconds * 1e9;
            }
        }
    }
    let mut power = 10f64.powf(min_nanos.log10().floor());
    loop {
        for nice in NICE {
            if nice * power >= min_nanos {
                return nice * power;
            }
        }
        power *= 10.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_times_map_both_ways_with_gaps_visible() {
        // Steps 1..=4 at 100, 200, 200 (two at once) and 5,200 ms (a gap).
        let ms = |t: u64| t * 1_000_000;
        let map = TimeMap::from_arrivals(&[ms(100), ms(200), ms(200), ms(5_200)]);
        assert_eq!(map.num_steps(), 4);
        assert_eq!(map.nanos_from_step(0.0), 0.0);
        assert_eq!(map.nanos_from_step(1.0), ms(100) as f64);
        assert_eq!(map.nanos_from_step(3.5), ms(2_700) as f64);
        assert_eq!(map.nanos_from_step(9.0), ms(5_200) as f64, "clamped");
        assert_eq!(map.step_from_nanos(ms(150) as f64), 1.5);
        // In the gap, the steps move slowly: half of it is half a step.
        assert_eq!(map.step_from_nanos(ms(2_700) as f64), 3.5);
        assert_eq!(map.step_from_nanos(ms(200) as f64), 3.0);
        assert_eq!(map.step_from_nanos(-1.0), 0.0);
        assert_eq!(map.step_from_nanos(1e15), 4.0);
        // Where time moves (not between steps 2 and 3, at one time).
        for step in [0.25, 1.0, 3.0, 3.9] {
            let back = map.step_from_nanos(map.nanos_from_step(step));
            assert!((back - step).abs() < 1e-9, "{step} then {back}");
        }
    }

    #[test]
    fn times_that_go_back_are_made_monotone() {
        let map = TimeMap::from_arrivals(&[500, 300, 700]);
        assert_eq!(map.nanos_from_step(2.0), 500.0);
        assert_eq!(map.nanos_from_step(3.0), 700.0);
        assert_eq!(TimeMap::from_arrivals(&[]).step_from_nanos(5.0), 0.0);
    }

    #[test]
    fn only_the_streams_own_times_make_a_time_axis() {
        assert!(has_recorded_times(Timing::Recorded));
        assert!(has_recorded_times(Timing::Timestamps));
        assert!(has_recorded_times(Timing::PartlyInvented {
            num_untimed: 2
        }));
        assert!(!has_recorded_times(Timing::Invented));
        assert!(!has_recorded_times(Timing::Untimed));
    }

    #[test]
    fn time_labels_read_in_ms_s_and_min() {
        assert_eq!(time_label(250e6, 50e6), "250 ms");
        assert_eq!(time_label(3e5, 1e5), "0.3 ms");
        // One unit for every label: seconds once they are 100 ms apart.
        assert_eq!(time_label(0.0, 500e6), "0.0 s");
        assert_eq!(time_label(500e6, 500e6), "0.5 s");
        assert_eq!(time_label(1.5e9, 500e6), "1.5 s");
        assert_eq!(time_label(2e9, 1e9), "2 s");
        assert_eq!(time_label(1.2e9, 200e6), "1.2 s");
        assert_eq!(time_label(125e9, 5e9), "2 min 05 s");
        assert_eq!(time_label(90.5e9, 500e6), "1 min 30.5 s");
        assert_eq!(time_label(120e9, 60e9), "2 min");
        assert_eq!(time_spacing(130e6), 200e6);
        assert_eq!(time_spacing(1e9), 1e9);
        assert_eq!(time_spacing(3e9), 5e9);
        assert_eq!(time_spacing(40e9), 60e9);
        assert_eq!(time_spacing(0.0), 1.0);
    }
}
