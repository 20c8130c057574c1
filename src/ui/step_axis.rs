//! The step ↔ pixel mapping of the timeline: a small pure type.

/// Maps steps to x coordinates and back for a visible range of steps drawn
/// over a span of pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepAxis {
    /// The first visible step.
    pub first_step: f64,
    /// The last visible step.
    pub last_step: f64,
    /// The x of `first_step`.
    pub left_x: f32,
    /// The x of `last_step`.
    pub right_x: f32,
}

impl StepAxis {
    /// The x of a step.
    pub fn x_from_step(&self, step: f64) -> f32 {
        let span = (self.last_step - self.first_step).max(f64::EPSILON);
        let t = (step - self.first_step) / span;
        self.left_x + (t as f32) * (self.right_x - self.left_x)
    }

    /// The step at an x (fractional; callers round).
    pub fn step_from_x(&self, x: f32) -> f64 {
        let width = (self.right_x - self.left_x).max(f32::EPSILON);
        let t = f64::from((x - self.left_x) / width);
        self.first_step + t * (self.last_step - self.first_step)
    }

    /// Steps per pixel.
    pub fn steps_per_pixel(&self) -> f64 {
        (self.last_step - self.first_step) / f64::from((self.right_x - self.left_x).max(1.0))
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
        };
        assert_eq!(axis.x_from_step(100.0), 10.0);
        assert_eq!(axis.x_from_step(300.0), 410.0);
        assert_eq!(axis.step_from_x(210.0), 200.0);
        for step in [100.0, 150.5, 299.0] {
            assert!((axis.step_from_x(axis.x_from_step(step)) - step).abs() < 1e-3);
        }
        assert_eq!(axis.steps_per_pixel(), 0.5);
    }
}
