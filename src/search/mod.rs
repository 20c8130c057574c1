//! Search over time: the steps at which a value, in one message or in the
//! shared state, became what a query looks for.
//!
//! A [`Query`] names a value (by JSON pointer into a message's AG-UI object
//! or into the shared state) and a [`Predicate`] on it. A step is a
//! [`Match`] when the predicate holds after it and the value changed at it
//! (or the predicate did not hold before it): each match is a moment where
//! something relevant happened, and a value that keeps matching while other
//! things change gives one match, not one per step. Step 0 is a match when
//! the predicate holds there.
//!
//! [`find_all`] lists every match in one pass over a [`Timeline`].
//! [`Search`] finds the next or previous match from a step, starting from
//! the timeline's checkpoints, a bounded number of events at a time so that
//! a caller can show progress and give up by dropping it.
//!
//! Following a value costs little per step: an activity's content is shared
//! (`Arc`), so a step that leaves the content where it was cannot have
//! changed a value inside it, and is not looked at further.

mod blame;
mod find;
mod query;
mod watch;

pub use blame::{Blame, Change, blame};
pub use find::{Direction, Search, SearchStatus, find_all, find_in_log, find_in_log_with_progress};
pub use query::{Predicate, Query, QueryError, Target};
pub use watch::Match;

/// The demo recording as a log, for the tests of the parts.
#[cfg(test)]
fn demo() -> crate::input::EventLog {
    let mut log = crate::input::EventLog::default();
    for line in include_str!("../../recordings/demo.jsonl").lines() {
        log.push(line.as_bytes());
    }
    log
}
