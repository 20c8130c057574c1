//! The event list's filter, run: [`filter_rows`] runs an [`EventFilter`] over
//! the whole stream when it changes (the list's bar sets it).

use crate::app_model::state::EventFilter;

use crate::app_model::document::Doc;
use crate::diagnostic::{Seq, Severity};
use crate::timeline::NUM_KINDS;

/// The seqs of the events that pass `filter`, ascending: every event when
/// the filter is empty. Runs over the whole stream: call it when the filter
/// changes, not per frame.
pub fn filter_rows(doc: &Doc, filter: &EventFilter) -> Vec<Seq> {
    filter_rows_after(doc, filter, Seq::START)
}

/// [`filter_rows`] for the events after `after` only (those a live
/// recording appended).
pub fn filter_rows_after(doc: &Doc, filter: &EventFilter, after: Seq) -> Vec<Seq> {
    let index = doc.timeline.index();
    let range = after.get() + 1..=doc.num_events();
    let mut rows: Vec<Seq> = match filter.min_severity {
        None => range.map(Seq::new).collect(),
        Some(min) => {
            // Severities are ordered worst first: "at least `min`" is `<= min`.
            let mut steps: Vec<Seq> = Severity::ALL
                .iter()
                .filter(|&&severity| severity <= min)
                .flat_map(|&severity| index.steps_with(severity).iter().copied())
                .filter(|seq| range.contains(&seq.get()))
                .collect();
            steps.sort_unstable();
            steps.dedup();
            steps
        }
    };
    let mut kinds = [false; NUM_KINDS];
    for kind in &filter.kinds {
        kinds[kind.index()] = true;
    }
    let needle = filter.text.to_ascii_lowercase().into_bytes();
    let message_id = filter.message_id.trim();
    if filter.kinds.is_empty() && needle.is_empty() && message_id.is_empty() {
        return rows;
    }
    rows.retain(|&seq| {
        if !filter.kinds.is_empty() && !index.kind(seq).is_some_and(|k| kinds[k.index()]) {
            return false;
        }
        let Some(raw) = doc.raw(seq) else {
            return false;
        };
        let raw: &[u8] = &raw;
        (needle.is_empty() || contains_ignore_ascii_case(raw, &needle))
            && (message_id.is_empty() || names_message_id(raw, message_id))
    });
    rows
}

/// The row after `step` (`forward`) or before it among the event list's
/// `rows` (ascending), as ↓ and ↑ walk the list (issue 43, point 2): the
/// list as filtered, so that a filtered list is walked row by row.
pub fn row_beside(rows: &[Seq], step: Seq, forward: bool) -> Option<Seq> {
    let at = rows.partition_point(|&row| row < step);
    if forward {
        let after = if rows.get(at) == Some(&step) {
            at + 1
        } else {
            at
        };
        rows.get(after).copied()
    } else {
        at.checked_sub(1)
            .and_then(|before| rows.get(before).copied())
    }
}

/// Whether `haystack` contains `needle_lower` (already lowercase), ignoring
/// ASCII case. Other characters must match byte for byte.
pub fn contains_ignore_ascii_case(haystack: &[u8], needle_lower: &[u8]) -> bool {
    let Some((&first, rest)) = needle_lower.split_first() else {
        return true;
    };
    if haystack.len() < needle_lower.len() {
        return false;
    }
    let first_upper = first.to_ascii_uppercase();
    (0..=haystack.len() - needle_lower.len()).any(|i| {
        let byte = haystack[i];
        (byte == first || byte == first_upper)
            && haystack[i + 1..i + needle_lower.len()].eq_ignore_ascii_case(rest)
    })
}

/// Whether the event's top-level `messageId` is `message_id`.
fn names_message_id(raw: &[u8], message_id: &str) -> bool {
    // Most events do not name it: skip the parse unless the id's bytes, or
    // an escape that could spell them, are there.
    let may_name = contains(raw, message_id.as_bytes()) || raw.contains(&b'\\');
    may_name && crate::input::EventKeys::of(raw).message_id.as_deref() == Some(message_id)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if haystack.len() < needle.len() {
        return false;
    }
    (0..=haystack.len() - needle.len())
        .any(|i| haystack[i] == first && haystack[i + 1..i + needle.len()] == *rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app_model::test_support::{STREAM, doc_of, seqs};
    use crate::protocol::EventType;
    use crate::timeline::EventKind;

    #[test]
    fn arrows_walk_the_filtered_rows_and_stop_at_the_ends() {
        // Issue 43, point 2: ↓ and ↑ go to the next and previous row shown,
        // from a step on a row or between rows.
        let rows = [Seq::new(2), Seq::new(5), Seq::new(9)];
        let beside = |step, forward| row_beside(&rows, Seq::new(step), forward).map(Seq::get);
        assert_eq!(beside(0, true), Some(2));
        assert_eq!(beside(2, true), Some(5));
        assert_eq!(beside(3, true), Some(5));
        assert_eq!(beside(9, true), None);
        assert_eq!(beside(9, false), Some(5));
        assert_eq!(beside(6, false), Some(5));
        assert_eq!(beside(2, false), None);
        assert_eq!(row_beside(&[], Seq::new(3), true), None);
    }

    #[test]
    fn an_empty_filter_keeps_every_event() {
        let doc = doc_of(STREAM);
        let rows = filter_rows(&doc, &EventFilter::default());
        assert_eq!(seqs(&rows), (1..=8).collect::<Vec<_>>());
    }

    #[test]
    fn filters_by_kind() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            kinds: [
                EventKind::Known(EventType::ActivityDelta),
                EventKind::Known(EventType::TextMessageEnd),
            ]
            .into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [3, 4, 7]);
    }

    #[test]
    fn filters_by_text_ignoring_case() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            text: "hello LISBON".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [6]);
    }

    #[test]
    fn filters_by_top_level_message_id_exactly() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            message_id: "m-1".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [5, 6, 7]);
        let partial = EventFilter {
            message_id: "m-".into(),
            ..EventFilter::default()
        };
        assert!(filter_rows(&doc, &partial).is_empty());
    }

    #[test]
    fn a_message_id_spelled_with_escapes_still_matches() {
        let doc = doc_of(&[r#"{"type":"TEXT_MESSAGE_END","messageId":"m\u002d1"}"#]);
        let filter = EventFilter {
            message_id: "m-1".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [1]);
    }

    #[test]
    fn filters_by_severity_at_least() {
        let doc = doc_of(STREAM);
        // Seq 4 is a delta for an unknown activity: a warning.
        let warnings = EventFilter {
            min_severity: Some(Severity::Warning),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &warnings)), [4]);
        let errors = EventFilter {
            min_severity: Some(Severity::Error),
            ..EventFilter::default()
        };
        assert!(filter_rows(&doc, &errors).is_empty());
    }

    #[test]
    fn filters_combine() {
        let doc = doc_of(STREAM);
        let filter = EventFilter {
            kinds: [EventKind::Known(EventType::ActivityDelta)].into(),
            message_id: "a-1".into(),
            ..EventFilter::default()
        };
        assert_eq!(seqs(&filter_rows(&doc, &filter)), [3]);
    }
}
