//! Shrinks each disagreeing stream to a minimal one that still disagrees on
//! the same aspect: whole events, then array members (patch operations,
//! snapshot messages, run-input messages) and optional members (metadata,
//! owner, `replace`, …) are dropped while the disagreement stays. All
//! streams shrink together, a few candidates each per batch, so the peer
//! sees a few large batches rather than many small ones.

use serde_json::Value;

use super::peer::{Observed, Peer, engine};
use super::streams::{Stream, render};
use super::{Difference, compare, wire};

/// A disagreement, shrunk.
pub struct Case {
    /// The index of the generated stream it came from.
    pub index: usize,
    /// The minimal stream.
    pub events: Stream,
    /// What the engine showed on it.
    pub ours: Observed,
    /// What the client showed on it.
    pub theirs: Observed,
    /// How they differ.
    pub difference: Difference,
}

impl Case {
    /// The minimal stream as one line of JSON (the events as sent).
    pub fn text(&self) -> String {
        let events: Vec<String> = self.events.iter().map(render).collect();
        format!("[{}]", events.join(","))
    }
}

/// Candidates tried per stream and batch.
const PER_BATCH: usize = 8;
/// Candidates tried per stream in all.
const MAX_TRIES: usize = 300;

/// Members an event can lose and still be the same kind of event.
const OPTIONAL: &[&str] = &[
    "metadata",
    "subagentRunId",
    "replace",
    "input",
    "parentMessageId",
    "name",
];
/// Array members whose elements can go one by one.
const LISTS: &[&str] = &["patch", "delta", "messages"];
/// Object members whose keys can go one by one.
const OBJECTS: &[&str] = &["content", "snapshot", "metadata"];

fn candidates(stream: &Stream) -> Vec<Stream> {
    let mut out = Vec::new();
    let n = stream.len();
    let mut size = n / 2;
    while size >= 1 {
        let mut start = 0;
        while start < n {
            let mut c = stream.clone();
            c.drain(start..(start + size).min(n));
            out.push(c);
            start += size;
        }
        size /= 2;
    }
    for (i, event) in stream.iter().enumerate() {
        let Some(object) = event.as_object() else {
            continue;
        };
        for key in OPTIONAL {
            if object.contains_key(*key) {
                let mut c = stream.clone();
                c[i].as_object_mut().map(|o| o.remove(*key));
                out.push(c);
            }
        }
        for key in LISTS {
            if let Some(Value::Array(list)) = object.get(*key) {
                for j in 0..list.len() {
                    let mut c = stream.clone();
                    if let Some(Value::Array(list)) = c[i].get_mut(*key) {
                        list.remove(j);
                    }
                    out.push(c);
                }
            }
        }
        if let Some(Value::Array(list)) = object.get("input").and_then(|i| i.get("messages")) {
            for j in 0..list.len() {
                let mut c = stream.clone();
                if let Some(Value::Array(list)) = c[i].pointer_mut("/input/messages") {
                    list.remove(j);
                }
                out.push(c);
            }
        }
        for key in OBJECTS {
            if let Some(Value::Object(members)) = object.get(*key) {
                for member in members.keys() {
                    let mut c = stream.clone();
                    if let Some(Value::Object(members)) = c[i].get_mut(*key) {
                        members.remove(member);
                    }
                    out.push(c);
                }
            }
        }
    }
    out
}

struct Shrinking {
    index: usize,
    current: Stream,
    aspect: &'static str,
    candidates: Vec<Stream>,
    next: usize,
    tries: usize,
}

/// Shrinks every disagreement; one [`Case`] each, in the same order.
pub fn shrink_all(peer: &mut Peer, disagreeing: &[(usize, Stream, Difference)]) -> Vec<Case> {
    let mut work: Vec<Shrinking> = disagreeing
        .iter()
        .map(|(index, stream, difference)| Shrinking {
            index: *index,
            current: stream.clone(),
            aspect: difference.aspect,
            candidates: candidates(stream),
            next: 0,
            tries: 0,
        })
        .collect();
    loop {
        let mut batch: Vec<(usize, usize)> = Vec::new();
        let mut texts = Vec::new();
        for (w, s) in work.iter().enumerate() {
            if s.tries >= MAX_TRIES {
                continue;
            }
            for c in s.next..(s.next + PER_BATCH).min(s.candidates.len()) {
                batch.push((w, c));
                texts.push(wire(&s.candidates[c]));
            }
        }
        if batch.is_empty() {
            break;
        }
        let answers = peer.run(&texts);
        let mut accepted = vec![false; work.len()];
        let mut attempted = vec![0usize; work.len()];
        for ((w, c), (theirs, text)) in batch.iter().zip(answers.iter().zip(&texts)) {
            attempted[*w] += 1;
            if accepted[*w] {
                continue;
            }
            let ours = engine(text);
            if compare(&ours, theirs).is_some_and(|d| d.aspect == work[*w].aspect) {
                let s = &mut work[*w];
                s.current = s.candidates[*c].clone();
                accepted[*w] = true;
            }
        }
        for (w, s) in work.iter_mut().enumerate() {
            s.tries += attempted[w];
            if accepted[w] {
                s.candidates = candidates(&s.current);
                s.next = 0;
            } else {
                s.next += attempted[w];
                if s.next >= s.candidates.len() {
                    s.tries = MAX_TRIES;
                }
            }
        }
    }
    let texts: Vec<Vec<String>> = work.iter().map(|s| wire(&s.current)).collect();
    let answers = peer.run(&texts);
    work.into_iter()
        .zip(answers)
        .zip(texts)
        .map(|((s, theirs), text)| {
            let ours = engine(&text);
            let difference = compare(&ours, &theirs).expect("a shrunk stream still disagrees");
            Case {
                index: s.index,
                events: s.current,
                ours,
                theirs,
                difference,
            }
        })
        .collect()
}
