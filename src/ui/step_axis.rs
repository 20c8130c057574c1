//! The step ↔ pixel mapping of the timeline: a small pure type. Steps are
//! evenly spaced, or (issue 43) placed where their recorded time falls,
//! so that the gaps of a stream show.

use std::sync::Arc;

use crate::app_model::time_axis::TimeMap;

/// Maps steps to x coordinates and back for a visible range of steps drawn
/// over a span of pixels.
#[derive(Clone, Debug)]
pub struct StepAxis {
    /// The first visible step.
    pub first_step: f64,
    /// The last visible step.
    pub last_step: f64,
    /// The x of `first_step`.
    pub left_x: f32,
    /// The x of `last_step`.
    pub right_x: f32,
    /// The steps' recorded times, when the axis is one of time: a step is
    /// drawn where its time falls between those of the first and last
    /// visible steps.
    pub time: Option<Arc<TimeMap>>,
}

impl PartialEq for StepAxis {
    fn eq(&self, other: &Self) -> bool {
        self.first_step == other.first_step
            && self.last_step == other.last_step
            && self.left_x == other.left_x
            && self.right_x == other.right_x
            && match (&self.time, &other.time) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl StepAxis {
    /// The x of a step.
    pub fn x_from_step(&self, step: f64) -> f32 {
        let t = match self.time_span() {
            Some((map, t0, t1)) => (map.nanos_from_step(step) - t0) / (t1 - t0),
            None => {
                let span = (self.last_step - self.first_step).max(f64::EPSILON);
                (step - self.first_step) / span
            }
        };
        self.left_x + (t as f32) * (self.right_x - self.left_x)
    }

    /// The step at an x (fractional; callers round).
    pub fn step_from_x(&self, x: f32) -> f64 {
        let width = (self.right_x - self.left_x).max(f32::EPSILON);
        let t = f64::from((x - self.left_x) / width);
        match self.time_span() {
            Some((map, t0, t1)) => map.step_from_nanos(t0 + t * (t1 - t0)),
            None => self.first_step + t * (self.last_step - self.first_step),
        }
    }

    /// Steps per pixel (on average, on a time axis).
    pub fn steps_per_pixel(&self) -> f64 {
        (self.last_step - self.first_step) / f64::from((self.right_x - self.left_x).max(1.0))
    }

    /// The recorded times of the first and last visible steps, in
    /// nanoseconds, on a time axis.
    pub fn nanos_range(&self) -> Option<(f64, f64)> {
        self.time_span().map(|(_, t0, t1)| (t0, t1))
    }

    /// The time map and the times of the visible ends, on a time axis
    /// whose visible steps span some time (else the steps are evenly
    /// spaced).
    fn time_span(&self) -> Option<(&TimeMap, f64, f64)> {
        let map = self.time.as_deref()?;
        let t0 = map.nanos_from_step(self.first_step);
        let t1 = map.nanos_from_step(self.last_step);
        (t1 > t0).then_some((map, t0, t1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_and_x_round_trip() {
        let axis = StepAxis {
            first_step: 100.0,
            last_step: 300.0,
            left_x: 10.0,
            right_x: 410.0,
            time: None,
        };
        assert_eq!(axis.x_from_step(100.0), 10.0);
        assert_eq!(axis.x_from_step(300.0), 410.0);
        assert_eq!(axis.step_from_x(210.0), 200.0);
        for step in [100.0, 150.5, 299.0] {
            assert!((axis.step_from_x(axis.x_from_step(step)) - step).abs() < 1e-3);
        }
        assert_eq!(axis.steps_per_pixel(), 0.5);
    }

    #[test]
    fn on_a_time_axis_a_step_is_where_its_time_falls() {
        // Steps 1..=4 at 0, 100, 200 and 1,000 ms: the gap before step 4
        // takes most of the width.
        let ms = |t: u64| t * 1_000_000;
        let map = TimeMap::from_arrivals(&[0, ms(100), ms(200), ms(1_000)]);
        let axis = StepAxis {
            first_step: 1.0,
            last_step: 4.0,
            left_x: 0.0,
            right_x: 1000.0,
            time: Some(Arc::new(map)),
        };
        assert_eq!(axis.x_from_step(1.0), 0.0);
        assert_eq!(axis.x_from_step(3.0), 200.0);
        assert_eq!(axis.x_from_step(4.0), 1000.0);
        assert!((axis.step_from_x(600.0) - 3.5).abs() < 1e-6);
        assert_eq!(axis.nanos_range(), Some((0.0, ms(1_000) as f64)));
        // Evenly spaced, the same steps sit a third apart.
        let steps = StepAxis { time: None, ..axis };
        assert_eq!(steps.x_from_step(3.0), 2000.0 / 3.0);
        assert_eq!(steps.nanos_range(), None);
    }
}
