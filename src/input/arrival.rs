//! Arrival times of events whose file does not record them (a stream file
//! opened directly, or imported into a recording): one rule for both, so
//! an imported file plays as the file opened directly does (issue 16.6).

/// The spacing of events before the first `timestamp`: 100 ms, so that a
/// stream with no timing plays one event per 100 ms at speed 1 instead of
/// jumping to its end (issue 13, point 10).
pub const UNTIMED_STEP_NANOS: u64 = 100_000_000;

/// Derives each event's arrival time, in order: its `timestamp`
/// (milliseconds) relative to the first one seen; before any timestamp,
/// [`UNTIMED_STEP_NANOS`] apart; after one, an event without a timestamp
/// arrives with the one before. Never goes backwards.
#[derive(Clone, Debug, Default)]
pub struct Arrivals {
    first_timestamp: Option<i64>,
    last_nanos: u64,
    num_events: u64,
}

impl Arrivals {
    /// The arrival time of the next event, given its `timestamp`.
    pub fn next(&mut self, timestamp: Option<i64>) -> u64 {
        let nanos = match (timestamp, self.first_timestamp) {
            (Some(ms), _) => {
                let first = *self.first_timestamp.get_or_insert(ms);
                u64::try_from(ms.saturating_sub(first))
                    .unwrap_or(0)
                    .saturating_mul(1_000_000)
            }
            (None, None) => self.num_events.saturating_mul(UNTIMED_STEP_NANOS),
            (None, Some(_)) => self.last_nanos,
        };
        self.last_nanos = self.last_nanos.max(nanos);
        self.num_events += 1;
        self.last_nanos
    }

    /// The next event's arrival time is known (a recording's): later
    /// derived times continue from it.
    pub fn known(&mut self, nanos: u64) {
        self.last_nanos = nanos;
        self.num_events += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derive(timestamps: &[Option<i64>]) -> Vec<u64> {
        let mut arrivals = Arrivals::default();
        timestamps.iter().map(|t| arrivals.next(*t)).collect()
    }

    #[test]
    fn untimed_events_are_100_ms_apart_until_a_timestamp() {
        assert_eq!(
            derive(&[None, None, None]),
            [0, UNTIMED_STEP_NANOS, 2 * UNTIMED_STEP_NANOS]
        );
        // The first timestamp is time 0 of the timed part, which never
        // goes back before the untimed events.
        assert_eq!(
            derive(&[None, None, Some(1_000), Some(1_500), None, Some(1_200)]),
            [
                0,
                UNTIMED_STEP_NANOS,
                UNTIMED_STEP_NANOS,
                UNTIMED_STEP_NANOS.max(500_000_000),
                500_000_000,
                500_000_000,
            ]
        );
    }

    #[test]
    fn timestamps_are_relative_to_the_first() {
        assert_eq!(
            derive(&[Some(10), Some(12), None, Some(11)]),
            [0, 2_000_000, 2_000_000, 2_000_000]
        );
    }
}
