//! The time cursor and playback as one small state machine (after Rerun's
//! `TimeControl`): the step shown, the number of steps, playing or paused,
//! the speed, following the end of a live stream, and where playback is in
//! recorded time. It knows nothing of the UI toolkit: panels send it
//! [`TimeCommand`]s, [`TimeControl::apply`] applies one and says what
//! changed, and [`TimeControl::tick`] moves playback on by a frame's time.

use crate::diagnostic::Seq;

/// The speeds offered.
pub const SPEEDS: [f32; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

/// The slowest speed.
const MIN_SPEED: f32 = 0.25;
/// The fastest speed.
const MAX_SPEED: f32 = 16.0;

/// The pace of a stream with no timing (every arrival time the same, as a
/// store writes for events without timestamps): one event per 100 ms at
/// speed 1, the spacing the app gives events without timestamps (issue 13,
/// point 10: such a stream must not jump to its end in one frame).
pub const UNTIMED_STEP_NANOS: u64 = crate::input::UNTIMED_STEP_NANOS;

/// The smallest page, in steps.
const MIN_PAGE_STEPS: u64 = 10;

/// What a panel asks of the cursor and playback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeCommand {
    /// To a step; a step past the end is refused (nothing changes).
    Set(Seq),
    /// To a step, or the last one if it is past the end.
    SetClamped(Seq),
    /// By a number of steps (negative: back), stopping at the ends.
    Step(i64),
    /// By a number of pages (negative: back): a page is a tenth of the
    /// visible steps, at least 10.
    Page(i64),
    /// To the next step with a diagnostic.
    ToNextDiagnostic,
    /// To the previous step with a diagnostic.
    ToPreviousDiagnostic,
    /// To the first event: step 1, where a stream opens (step 0, before
    /// any event, for an empty one). Home went to step 0 while the app
    /// opened at step 1 (issue 43, point 4); step 0 is one ← further.
    ToStart,
    /// To the last step; a live stream is then followed as it grows (the
    /// End key).
    ToEndAndFollow,
    /// Stop following the end of a live stream (the cursor stays).
    StopFollowing,
    /// Play at recorded timing (from the start, when at the end).
    Play,
    /// Pause.
    Pause,
    /// Play or pause.
    TogglePlay,
    /// The playback speed factor (clamped to 0.25–16).
    SetSpeed(f32),
}

/// What applying a command (or a tick) changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeResponse {
    /// The step moved.
    pub step_changed: bool,
    /// Playback started or stopped.
    pub playing_changed: bool,
    /// Following the end started or stopped.
    pub following_changed: bool,
}

impl TimeResponse {
    /// Whether anything changed.
    pub fn any(self) -> bool {
        self.step_changed || self.playing_changed || self.following_changed
    }
}

/// What a command reads of the stream and of the view.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeContext<'a> {
    /// The steps with a diagnostic, one sorted list per severity (or any
    /// number of sorted lists).
    pub diagnostic_steps: &'a [&'a [Seq]],
    /// How many steps the timeline shows (a page is a tenth of it).
    pub visible_steps: Option<f64>,
}

/// The cursor and playback.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeControl {
    step: Seq,
    num_steps: u64,
    /// The stream may still grow (a live recording): the end can be
    /// followed.
    live: bool,
    playing: bool,
    speed: f32,
    following: bool,
    /// While playing: the recorded time reached, in nanoseconds (`None`:
    /// the arrival time of the current step, set at the next tick).
    play_nanos: Option<f64>,
}

impl Default for TimeControl {
    fn default() -> Self {
        Self {
            step: Seq::START,
            num_steps: 0,
            live: false,
            playing: false,
            speed: 1.0,
            following: false,
            play_nanos: None,
        }
    }
}

impl TimeControl {
    /// The current step.
    pub fn step(&self) -> Seq {
        self.step
    }

    /// The number of steps (the last step).
    pub fn num_steps(&self) -> u64 {
        self.num_steps
    }

    /// Whether it is playing.
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// The playback speed factor.
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// Whether the end of a live stream is followed.
    pub fn is_following(&self) -> bool {
        self.following
    }

    /// A new stream: `num_steps` steps, live or not; the cursor at `step`
    /// (clamped), paused, not following. The speed stays.
    pub fn reset(&mut self, num_steps: u64, live: bool, step: Seq) -> TimeResponse {
        let before = self.clone();
        self.num_steps = num_steps;
        self.live = live;
        self.playing = false;
        self.play_nanos = None;
        self.following = false;
        self.step = Seq::new(step.get().min(num_steps));
        self.response_since(&before)
    }

    /// The stream grew (or ended): while following, the cursor goes to the
    /// new end.
    pub fn set_num_steps(&mut self, num_steps: u64, live: bool) -> TimeResponse {
        let before = self.clone();
        self.num_steps = num_steps;
        self.live = live;
        if self.following {
            self.step = Seq::new(num_steps);
        } else {
            self.step = Seq::new(self.step.get().min(num_steps));
        }
        if !live {
            self.following = false;
        }
        self.response_since(&before)
    }

    /// Applies one command; says what changed.
    pub fn apply(&mut self, command: TimeCommand, context: &TimeContext<'_>) -> TimeResponse {
        let before = self.clone();
        match command {
            TimeCommand::Set(step) => {
                if step.get() <= self.num_steps {
                    self.move_to(step);
                }
            }
            TimeCommand::SetClamped(step) => self.move_to(step),
            TimeCommand::Step(delta) => self.move_by(delta),
            TimeCommand::Page(pages) => {
                let visible = context.visible_steps.unwrap_or(self.num_steps as f64);
                let page = ((visible / 10.0) as u64).max(MIN_PAGE_STEPS);
                let page = i64::try_from(page).unwrap_or(i64::MAX);
                self.move_by(pages.saturating_mul(page));
            }
            TimeCommand::ToNextDiagnostic | TimeCommand::ToPreviousDiagnostic => {
                let forward = command == TimeCommand::ToNextDiagnostic;
                if let Some(step) = next_step_in(context.diagnostic_steps, self.step, forward) {
                    self.move_to(step);
                }
            }
            TimeCommand::ToStart => self.move_to(Seq::new(self.num_steps.min(1))),
            TimeCommand::ToEndAndFollow => {
                self.move_to(Seq::new(self.num_steps));
                self.following = self.live;
            }
            TimeCommand::StopFollowing => self.following = false,
            TimeCommand::Play => self.play(),
            TimeCommand::Pause => self.pause(),
            TimeCommand::TogglePlay => {
                if self.playing {
                    self.pause();
                } else {
                    self.play();
                }
            }
            TimeCommand::SetSpeed(speed) => {
                // A NaN speed keeps the one set.
                if !speed.is_nan() {
                    self.speed = speed.clamp(MIN_SPEED, MAX_SPEED);
                }
            }
        }
        self.response_since(&before)
    }

    /// Moves playback on by `dt_seconds` of the clock: the cursor goes to
    /// the last event whose arrival time (scaled by the speed) has come, and
    /// playback pauses at the end. `arrival_nanos` holds one arrival time
    /// per event (the event of step `n` at index `n - 1`); a stream without
    /// timing plays at [`UNTIMED_STEP_NANOS`] a step.
    pub fn tick(&mut self, dt_seconds: f64, arrival_nanos: &[u64]) -> TimeResponse {
        let before = self.clone();
        if !self.playing {
            return TimeResponse::default();
        }
        let timing = Timing::of(arrival_nanos);
        let from = self
            .play_nanos
            .unwrap_or_else(|| timing.arrival_at(self.step) as f64);
        let elapsed = dt_seconds.max(0.0) * f64::from(self.speed) * 1e9;
        let now = from + elapsed;
        self.play_nanos = Some(now);
        let reached = timing.reached(now).min(self.num_steps);
        if reached > self.step.get() {
            self.step = Seq::new(reached);
        }
        if self.step.get() >= self.num_steps {
            self.pause();
        }
        self.response_since(&before)
    }

    fn play(&mut self) {
        if self.playing {
            return;
        }
        self.following = false;
        if self.step.get() >= self.num_steps {
            if self.num_steps == 0 {
                return;
            }
            self.step = Seq::START;
        }
        self.playing = true;
        self.play_nanos = None;
    }

    fn pause(&mut self) {
        self.playing = false;
        self.play_nanos = None;
    }

    /// A move the user asked for: playback pauses; a step before the end
    /// stops following.
    fn move_to(&mut self, step: Seq) {
        self.pause();
        self.step = Seq::new(step.get().min(self.num_steps));
        if self.step.get() < self.num_steps {
            self.following = false;
        }
    }

    fn move_by(&mut self, delta: i64) {
        let step = self.step.get().saturating_add_signed(delta);
        self.move_to(Seq::new(step));
    }

    fn response_since(&self, before: &Self) -> TimeResponse {
        TimeResponse {
            step_changed: self.step != before.step,
            playing_changed: self.playing != before.playing,
            following_changed: self.following != before.following,
        }
    }
}

/// The first step after `current` (or the last before it, going back) in
/// any of the sorted lists (the steps with a diagnostic, per severity).
pub fn next_step_in(lists: &[&[Seq]], current: Seq, forward: bool) -> Option<Seq> {
    let candidates = lists.iter().filter_map(|steps| {
        if forward {
            let i = steps.partition_point(|s| *s <= current);
            steps.get(i).copied()
        } else {
            let i = steps.partition_point(|s| *s < current);
            i.checked_sub(1).and_then(|i| steps.get(i)).copied()
        }
    });
    if forward {
        candidates.min()
    } else {
        candidates.max()
    }
}

/// The arrival times playback follows: the recorded ones, or a fixed pace
/// when they are all the same.
enum Timing<'a> {
    Recorded(&'a [u64]),
    Paced(u64),
}

impl<'a> Timing<'a> {
    fn of(arrival_nanos: &'a [u64]) -> Self {
        match (arrival_nanos.first(), arrival_nanos.last()) {
            (Some(first), Some(last)) if first != last => Self::Recorded(arrival_nanos),
            _ => Self::Paced(arrival_nanos.len() as u64),
        }
    }

    /// The arrival time of a step's event (0 at step 0).
    fn arrival_at(&self, step: Seq) -> u64 {
        match self {
            Self::Recorded(arrivals) => step
                .index()
                .and_then(|i| arrivals.get(i))
                .copied()
                .unwrap_or(0),
            Self::Paced(_) => step.get().saturating_mul(UNTIMED_STEP_NANOS),
        }
    }

    /// The number of events arrived by `nanos`.
    fn reached(&self, nanos: f64) -> u64 {
        match self {
            Self::Recorded(arrivals) => arrivals.partition_point(|&a| (a as f64) <= nanos) as u64,
            Self::Paced(len) => ((nanos / UNTIMED_STEP_NANOS as f64) as u64).min(*len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(num_steps: u64, live: bool, step: u64) -> TimeControl {
        let mut time = TimeControl::default();
        time.reset(num_steps, live, Seq::new(step));
        time
    }

    fn apply(time: &mut TimeControl, command: TimeCommand) -> TimeResponse {
        time.apply(command, &TimeContext::default())
    }

    #[test]
    fn home_goes_to_the_first_event_where_a_stream_opens() {
        // Issue 43, point 4: Home went to step 0, the app opens at step 1.
        let mut time = control(10, false, 7);
        apply(&mut time, TimeCommand::ToStart);
        assert_eq!(time.step(), Seq::new(1));
        let mut empty = control(0, false, 0);
        apply(&mut empty, TimeCommand::ToStart);
        assert_eq!(empty.step(), Seq::START);
        // Step 0, before any event, is one step back.
        apply(&mut time, TimeCommand::Step(-1));
        assert_eq!(time.step(), Seq::START);
    }

    #[test]
    fn setting_a_step_past_the_end_is_refused_and_clamped_on_request() {
        let mut time = control(10, false, 3);
        let response = apply(&mut time, TimeCommand::Set(Seq::new(11)));
        assert_eq!(time.step(), Seq::new(3));
        assert!(!response.any());
        let response = apply(&mut time, TimeCommand::SetClamped(Seq::new(u64::MAX)));
        assert_eq!(time.step(), Seq::new(10));
        assert!(response.step_changed);
        assert_eq!(control(10, false, 99).step(), Seq::new(10), "reset clamps");
    }

    #[test]
    fn stepping_stops_at_both_ends() {
        let mut time = control(5, false, 4);
        assert!(apply(&mut time, TimeCommand::Step(1)).step_changed);
        assert_eq!(time.step(), Seq::new(5));
        let response = apply(&mut time, TimeCommand::Step(1));
        assert!(!response.step_changed, "already at the end");
        apply(&mut time, TimeCommand::Step(-100));
        assert_eq!(time.step(), Seq::START);
        assert!(!apply(&mut time, TimeCommand::Step(-1)).step_changed);
        apply(&mut time, TimeCommand::Step(i64::MAX));
        assert_eq!(time.step(), Seq::new(5));
    }

    #[test]
    fn a_page_is_a_tenth_of_the_visible_steps_and_at_least_ten() {
        let mut time = control(1000, false, 0);
        apply(&mut time, TimeCommand::Page(1));
        assert_eq!(time.step(), Seq::new(100), "a tenth of the whole stream");
        let zoomed = TimeContext {
            visible_steps: Some(30.0),
            ..TimeContext::default()
        };
        time.apply(TimeCommand::Page(-1), &zoomed);
        assert_eq!(time.step(), Seq::new(90), "at least 10 steps");
    }

    #[test]
    fn diagnostics_are_reached_across_severities() {
        let warnings = [Seq::new(3), Seq::new(8)];
        let errors = [Seq::new(5)];
        let lists: [&[Seq]; 2] = [&warnings, &errors];
        let context = TimeContext {
            diagnostic_steps: &lists,
            visible_steps: None,
        };
        let mut time = control(10, false, 3);
        time.apply(TimeCommand::ToNextDiagnostic, &context);
        assert_eq!(time.step(), Seq::new(5));
        time.apply(TimeCommand::ToNextDiagnostic, &context);
        assert_eq!(time.step(), Seq::new(8));
        let response = time.apply(TimeCommand::ToNextDiagnostic, &context);
        assert!(!response.step_changed, "none after the last");
        time.apply(TimeCommand::ToPreviousDiagnostic, &context);
        assert_eq!(time.step(), Seq::new(5));
    }

    #[test]
    fn the_end_is_followed_as_a_live_stream_grows_until_stepping_back() {
        let mut time = control(10, true, 2);
        let response = apply(&mut time, TimeCommand::ToEndAndFollow);
        assert!(response.step_changed && response.following_changed);
        assert!(time.is_following());
        assert!(time.set_num_steps(12, true).step_changed);
        assert_eq!(time.step(), Seq::new(12), "the cursor stays at the end");
        let response = apply(&mut time, TimeCommand::Step(-1));
        assert!(response.following_changed);
        assert!(!time.is_following(), "stepping back stops following");
        time.set_num_steps(15, true);
        assert_eq!(time.step(), Seq::new(11), "the cursor stays where it was");
    }

    #[test]
    fn a_stream_that_is_not_live_is_not_followed() {
        let mut time = control(10, false, 2);
        apply(&mut time, TimeCommand::ToEndAndFollow);
        assert_eq!(time.step(), Seq::new(10));
        assert!(!time.is_following());
        // A live stream that ends is no longer followed.
        let mut time = control(10, true, 2);
        apply(&mut time, TimeCommand::ToEndAndFollow);
        time.set_num_steps(10, false);
        assert!(!time.is_following());
    }

    #[test]
    fn playback_follows_the_recorded_timing_scaled_by_the_speed() {
        // Events at 1 s, 2 s, 3 s, 10 s.
        let arrivals = [1_000_000_000, 2_000_000_000, 3_000_000_000, 10_000_000_000];
        let mut time = control(4, false, 0);
        assert!(apply(&mut time, TimeCommand::Play).playing_changed);
        assert!(!time.tick(0.5, &arrivals).step_changed, "nothing yet");
        time.tick(0.6, &arrivals);
        assert_eq!(time.step(), Seq::new(1), "1.1 s: the first event");
        apply(&mut time, TimeCommand::SetSpeed(2.0));
        time.tick(0.5, &arrivals);
        assert_eq!(time.step(), Seq::new(2), "2.1 s at double speed");
        time.tick(1.0, &arrivals);
        assert_eq!(time.step(), Seq::new(3), "4.1 s: the gap before the last");
        assert!(time.is_playing());
    }

    #[test]
    fn playback_pauses_at_the_end_and_plays_again_from_the_start() {
        let arrivals = [0, 1_000_000_000];
        let mut time = control(2, false, 0);
        apply(&mut time, TimeCommand::Play);
        let response = time.tick(5.0, &arrivals);
        assert_eq!(time.step(), Seq::new(2));
        assert!(response.playing_changed && !time.is_playing(), "paused");
        apply(&mut time, TimeCommand::TogglePlay);
        assert!(time.is_playing());
        assert_eq!(time.step(), Seq::START, "from the start again");
    }

    #[test]
    fn pausing_stops_the_cursor() {
        let arrivals = [0, 1_000_000_000, 2_000_000_000];
        let mut time = control(3, false, 1);
        apply(&mut time, TimeCommand::Play);
        time.tick(1.0, &arrivals);
        assert_eq!(time.step(), Seq::new(2));
        apply(&mut time, TimeCommand::Pause);
        assert!(!time.tick(10.0, &arrivals).any());
        assert_eq!(time.step(), Seq::new(2));
    }

    #[test]
    fn a_move_pauses_playback() {
        let mut time = control(10, false, 1);
        apply(&mut time, TimeCommand::Play);
        let response = apply(&mut time, TimeCommand::Set(Seq::new(4)));
        assert!(response.playing_changed && !time.is_playing());
    }

    #[test]
    fn a_stream_without_timing_plays_at_a_fixed_pace() {
        // Issue 13, point 10: arrival times all zero (a store's events
        // without timestamps) must not jump to the end in one frame.
        let arrivals = [0; 100];
        let mut time = control(100, false, 0);
        apply(&mut time, TimeCommand::Play);
        time.tick(1.0 / 60.0, &arrivals);
        assert!(time.step().get() <= 1, "one frame: at most one step");
        time.tick(1.0, &arrivals);
        let step = time.step().get();
        assert!((9..=11).contains(&step), "about ten steps a second: {step}");
        assert!(time.is_playing());
    }

    #[test]
    fn a_nan_or_extreme_speed_is_kept_in_range() {
        let mut time = control(3, false, 0);
        apply(&mut time, TimeCommand::SetSpeed(1000.0));
        assert_eq!(time.speed(), 16.0);
        apply(&mut time, TimeCommand::SetSpeed(f32::NAN));
        assert_eq!(time.speed(), 16.0);
        apply(&mut time, TimeCommand::SetSpeed(0.0));
        assert_eq!(time.speed(), 0.25);
    }

    #[test]
    fn an_empty_stream_does_not_play() {
        let mut time = control(0, false, 0);
        assert!(!apply(&mut time, TimeCommand::Play).any());
        assert!(!time.is_playing());
    }
}
