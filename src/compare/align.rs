//! Aligning two streams by their events' keys (issue 40): near-linear in
//! the length of both, for near-identical and unrelated streams alike.
//!
//! The protocol names its entities: a message's, a tool call's, an
//! activity's events carry its id, so an event whose key (type, message,
//! tool call) occurs once in each stream is the same event in both. The
//! alignment takes those first, as anchors (the longest run of them in
//! the same order in both, as patience diff does), and diffs only the
//! windows between anchors, each again by its own anchors, and by the
//! shortest difference (Myers, from `similar`) where it is small. The common start and end of a window are aligned first, so
//! two streams that differ in a few events cost one pass.
//!
//! Two streams of up to [`EXACT_WINDOW`] events between them get the
//! shortest difference, as they always did. In longer ones, a long window
//! with no anchor at all is diffed in slices: valid, bounded, not the
//! shortest, and said so (`alignment_exact: false`).

use std::ops::Range;
use std::time::Instant;

use rustc_hash::FxHashMap;
use similar::{Algorithm, DiffOp};

/// Two streams of at most this many events between them are diffed whole
/// by the shortest difference, with no anchors.
pub const EXACT_WINDOW: usize = 4096;

/// Within longer streams, a window between anchors of at most this many
/// events is diffed by the shortest difference: Myers' time, in the
/// window's length times its differences, stays within this many steps
/// per event.
const WINDOW: usize = 512;

/// A longer window without anchors is diffed by the shortest difference
/// too while the squares of such windows' lengths add up to at most this
/// many times the streams' length; past that, in slices.
const EFFORT_PER_EVENT: u64 = 256;

/// One row of the alignment: an event of A, of B, or one of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Row {
    Both(usize, usize),
    OnlyA(usize),
    OnlyB(usize),
}

/// What is left to align, in the order of the rows.
enum Task {
    /// A window of both streams.
    Window(Range<usize>, Range<usize>),
    /// `len` events aligned one to one from `a` and `b` on.
    Run { a: usize, b: usize, len: usize },
}

/// The alignment of `a` and `b` (interned keys), and whether it is exact:
/// the shortest difference in every window between anchors. It is not
/// where a long window had no anchor and was diffed in slices, or where
/// the search reached `deadline` and settled for a longer difference.
pub(super) fn rows(a: &[u32], b: &[u32], deadline: Instant) -> (Vec<Row>, bool) {
    let mut aligner = Aligner {
        a,
        b,
        deadline,
        rows: Vec::with_capacity(a.len().max(b.len())),
        exact: true,
        effort_left: EFFORT_PER_EVENT * (a.len() + b.len()) as u64,
    };
    if a.len() + b.len() <= EXACT_WINDOW {
        aligner.shortest(0..a.len(), 0..b.len());
    } else {
        aligner.windows();
    }
    (aligner.rows, aligner.exact)
}

struct Aligner<'a> {
    a: &'a [u32],
    b: &'a [u32],
    deadline: Instant,
    rows: Vec<Row>,
    exact: bool,
    /// What is left of the effort allowed for long windows.
    effort_left: u64,
}

impl Aligner<'_> {
    /// The whole streams, window by window.
    fn windows(&mut self) {
        let (a, b) = (self.a, self.b);
        // A stack: the next task in the rows' order is on top.
        let mut tasks = vec![Task::Window(0..a.len(), 0..b.len())];
        while let Some(task) = tasks.pop() {
            let (ra, rb) = match task {
                Task::Run { a, b, len } => {
                    self.rows.extend((0..len).map(|k| Row::Both(a + k, b + k)));
                    continue;
                }
                Task::Window(ra, rb) => (ra, rb),
            };
            let prefix = common_prefix(&a[ra.clone()], &b[rb.clone()]);
            self.rows
                .extend((0..prefix).map(|k| Row::Both(ra.start + k, rb.start + k)));
            let (ra, rb) = (ra.start + prefix..ra.end, rb.start + prefix..rb.end);
            let suffix = common_suffix(&a[ra.clone()], &b[rb.clone()]);
            let (ra, rb) = (ra.start..ra.end - suffix, rb.start..rb.end - suffix);
            if suffix > 0 {
                tasks.push(Task::Run {
                    a: ra.end,
                    b: rb.end,
                    len: suffix,
                });
            }
            if ra.len() + rb.len() <= WINDOW || ra.is_empty() || rb.is_empty() {
                self.shortest(ra, rb);
                continue;
            }
            let anchors = anchors(a, ra.clone(), b, rb.clone());
            if anchors.is_empty() {
                let effort = ((ra.len() + rb.len()) as u64).pow(2);
                if effort <= self.effort_left {
                    self.effort_left -= effort;
                    self.shortest(ra, rb);
                } else {
                    self.in_slices(ra, rb);
                }
                continue;
            }
            // The windows between anchors, pushed last first.
            let mut end = (ra.end, rb.end);
            for &(i, j) in anchors.iter().rev() {
                tasks.push(Task::Window(i + 1..end.0, j + 1..end.1));
                tasks.push(Task::Run { a: i, b: j, len: 1 });
                end = (i, j);
            }
            tasks.push(Task::Window(ra.start..end.0, rb.start..end.1));
        }
    }

    /// A long window without anchors, in slices of both of at most
    /// [`WINDOW`] events, each diffed by the shortest difference: a valid
    /// alignment in bounded time, not the shortest.
    fn in_slices(&mut self, ra: Range<usize>, rb: Range<usize>) {
        self.exact = false;
        let slices = ra.len().max(rb.len()).div_ceil(WINDOW / 2);
        let at = |range: &Range<usize>, k: usize| range.start + range.len() * k / slices;
        for k in 0..slices {
            self.shortest(at(&ra, k)..at(&ra, k + 1), at(&rb, k)..at(&rb, k + 1));
        }
    }

    /// The shortest difference of one window (Myers), as rows.
    fn shortest(&mut self, ra: Range<usize>, rb: Range<usize>) {
        let (a0, b0) = (ra.start, rb.start);
        let ops = similar::capture_diff_slices_deadline(
            Algorithm::Myers,
            &self.a[ra],
            &self.b[rb],
            Some(self.deadline),
        );
        self.exact &= Instant::now() < self.deadline;
        let rows = &mut self.rows;
        for op in ops {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    rows.extend((0..len).map(|k| Row::Both(a0 + old_index + k, b0 + new_index + k)))
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => rows.extend((a0 + old_index..a0 + old_index + old_len).map(Row::OnlyA)),
                DiffOp::Insert {
                    new_index, new_len, ..
                } => rows.extend((b0 + new_index..b0 + new_index + new_len).map(Row::OnlyB)),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    rows.extend((a0 + old_index..a0 + old_index + old_len).map(Row::OnlyA));
                    rows.extend((b0 + new_index..b0 + new_index + new_len).map(Row::OnlyB));
                }
            }
        }
    }
}

fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[u32], b: &[u32]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The keys that occur once in each window, paired, and of those the
/// longest run in the same order in both (positions in `a` and `b`,
/// ascending in both).
fn anchors(a: &[u32], ra: Range<usize>, b: &[u32], rb: Range<usize>) -> Vec<(usize, usize)> {
    /// Occurrences in A's window and B's, and the last position of each.
    #[derive(Default)]
    struct Seen {
        in_a: u32,
        in_b: u32,
        at_a: usize,
        at_b: usize,
    }
    let mut seen: FxHashMap<u32, Seen> = FxHashMap::default();
    for i in ra {
        let entry = seen.entry(a[i]).or_default();
        entry.in_a += 1;
        entry.at_a = i;
    }
    for j in rb {
        if let Some(entry) = seen.get_mut(&b[j]) {
            entry.in_b += 1;
            entry.at_b = j;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|s| s.in_a == 1 && s.in_b == 1)
        .map(|s| (s.at_a, s.at_b))
        .collect();
    pairs.sort_unstable();
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (sorted by their first member, all
/// distinct) whose second members increase too, in O(n log n): patience
/// sorting, each pile's top linked to the top of the pile before it.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // `tops[k]`: the index in `pairs` of the smallest last element of an
    // increasing run of length k + 1.
    let mut tops: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; pairs.len()];
    for (n, &(_, j)) in pairs.iter().enumerate() {
        let k = tops.partition_point(|&t| pairs[t].1 < j);
        before[n] = k.checked_sub(1).map(|k| tops[k]);
        if k == tops.len() {
            tops.push(n);
        } else {
            tops[k] = n;
        }
    }
    let mut run = Vec::with_capacity(tops.len());
    let mut next = tops.last().copied();
    while let Some(n) = next {
        run.push(pairs[n]);
        next = before[n];
    }
    run.reverse();
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(600)
    }

    /// Every event once, in order in both streams, and paired only with an
    /// event of the same key.
    fn assert_valid(a: &[u32], b: &[u32], rows: &[Row]) {
        let (mut next_a, mut next_b) = (0, 0);
        for row in rows {
            match *row {
                Row::Both(i, j) => {
                    assert_eq!((i, j), (next_a, next_b), "{rows:?}");
                    assert_eq!(a[i], b[j]);
                    (next_a, next_b) = (i + 1, j + 1);
                }
                Row::OnlyA(i) => {
                    assert_eq!(i, next_a);
                    next_a += 1;
                }
                Row::OnlyB(j) => {
                    assert_eq!(j, next_b);
                    next_b += 1;
                }
            }
        }
        assert_eq!((next_a, next_b), (a.len(), b.len()));
    }

    fn pairs(rows: &[Row]) -> usize {
        rows.iter().filter(|r| matches!(r, Row::Both(..))).count()
    }

    /// A stream of `n` keys: ids that recur (deltas of a few entities)
    /// between, with probability `p`, ids that occur once (the start of
    /// the next message: 1000, 1001…, as a generator numbers them).
    fn stream_with(rng: &mut Pcg64Mcg, n: usize, p: f64) -> Vec<u32> {
        let mut next = 1000;
        (0..n)
            .map(|_| {
                if rng.random_bool(p) {
                    next += 1;
                    next
                } else {
                    rng.random_range(0..20)
                }
            })
            .collect()
    }

    fn stream(rng: &mut Pcg64Mcg, n: usize) -> Vec<u32> {
        stream_with(rng, n, 0.02)
    }

    /// `a` with a few keys inserted, removed and replaced.
    fn edited(rng: &mut Pcg64Mcg, a: &[u32], edits: usize) -> Vec<u32> {
        let mut b = a.to_vec();
        for _ in 0..edits {
            let at = rng.random_range(0..b.len());
            match rng.random_range(0..3) {
                0 => b.insert(at, rng.random_range(0..20)),
                1 => {
                    b.remove(at);
                }
                _ => b[at] = rng.random_range(0..20),
            }
        }
        b
    }

    #[test]
    fn small_windows_get_the_shortest_difference_as_myers_alone_finds_it() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for round in 0..50 {
            let (len_a, len_b) = (rng.random_range(0..1500), rng.random_range(0..1500));
            let edits = rng.random_range(0..40);
            let a = stream(&mut rng, len_a);
            let b = if round % 2 == 0 {
                edited(&mut rng, &a, edits)
            } else {
                stream(&mut rng, len_b)
            };
            let (found, exact) = rows(&a, &b, far());
            assert!(exact);
            assert_valid(&a, &b, &found);
            let myers = similar::capture_diff_slices(Algorithm::Myers, &a, &b);
            let equal: usize = myers
                .iter()
                .map(|op| match op {
                    DiffOp::Equal { len, .. } => *len,
                    _ => 0,
                })
                .sum();
            assert_eq!(pairs(&found), equal, "round {round}");
        }
    }

    #[test]
    fn long_streams_align_through_their_anchors_validly_and_exactly() {
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let a = stream(&mut rng, 60_000);
        // Near-identical: a few edits, every other event paired.
        let near = edited(&mut rng, &a, 30);
        let (found, exact) = rows(&a, &near, far());
        assert!(exact);
        assert_valid(&a, &near, &found);
        assert!(pairs(&found) >= a.len() - 60, "{}", pairs(&found));
        // Unrelated, but numbering their messages alike: the anchors (the
        // keys that occur once in each) keep every window small.
        let other = stream(&mut rng, 60_000);
        let (found, exact) = rows(&a, &other, far());
        assert!(exact);
        assert_valid(&a, &other, &found);
        let unique_in_both = 1000 + a.iter().chain(&other).filter(|&&k| k > 1000).count() / 2;
        assert!(pairs(&found) > unique_in_both - 1000);
    }

    #[test]
    fn a_long_window_without_anchors_is_aligned_in_slices_and_said_approximate() {
        let mut rng = Pcg64Mcg::seed_from_u64(13);
        let a = stream_with(&mut rng, 20_000, 0.0);
        let b = stream_with(&mut rng, 20_000, 0.0);
        let (found, exact) = rows(&a, &b, far());
        assert!(!exact);
        assert_valid(&a, &b, &found);
        // Slices still pair a good part of two random streams of 20 keys
        // (the longest common subsequence of two is about a third).
        assert!(pairs(&found) > a.len() / 4, "{}", pairs(&found));
        // A few edits far apart, no anchor: the common start and end
        // stay aligned whole.
        let near = edited(&mut rng, &a, 2);
        let (found, _) = rows(&a, &near, far());
        assert_valid(&a, &near, &found);
        assert!(pairs(&found) > a.len() - 1000, "{}", pairs(&found));
    }

    #[test]
    fn anchors_are_the_longest_run_in_order_of_the_keys_once_in_each() {
        // 7, 8, 9 occur once in each; 9 comes first in B, so it cannot
        // pair with 7 and 8 in order. 1 occurs twice in A: no anchor.
        let a = [7, 1, 8, 1, 9];
        let b = [9, 7, 8, 1];
        assert_eq!(
            anchors(&a, 0..a.len(), &b, 0..b.len()),
            vec![(0, 1), (2, 2)]
        );
        assert_eq!(longest_increasing(&[]), vec![]);
        assert_eq!(
            longest_increasing(&[(0, 5), (1, 1), (2, 2), (3, 0), (4, 3)]),
            vec![(1, 1), (2, 2), (4, 3)]
        );
    }
}
