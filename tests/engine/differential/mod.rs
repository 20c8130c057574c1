//! Issue 18: the differential test. Random streams ([`streams`]) replayed by
//! the engine under the `ag-ui-client-1.0` profile and by the real
//! `@ag-ui/client` 1.0.0 ([`peer`]) must show the same outcome (failing at the same event), the same
//! messages (id, role, content, activity type, metadata, owner, position,
//! tool calls) and the same state. Every disagreement is shrunk to a minimal
//! stream and must be recognised by a row of [`KNOWN`], the one table of
//! known divergences (each with the rule or issue item that decides it);
//! anything else fails the test.
//!
//! `AGUI_DIFF_STREAMS` (default 2000) sets the number of streams,
//! `AGUI_DIFF_SEED` (default 18) the seed, and `AGUI_DIFF_DUMP=FILE` writes
//! every shrunk disagreement to FILE as JSON lines. Without Node or without the peer
//! installed (`npm ci` in `tests/peer/node`) the test says so and passes,
//! unless `AGUI_PEER_REQUIRED=1` (set by `.ci/run`), where that fails it.
//!
//! Run it: `AGUI_DIFF_STREAMS=20000 cargo test --test conformance differential -- --nocapture`.

mod known;
mod peer;
mod shrink;
pub(crate) mod streams;

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::Value;

use known::{KNOWN, classify};
use peer::{Observed, Peer, engine};
use streams::{Stream, render};

/// How two consumers' results differ: the aspect (`outcome`, `messages`,
/// `state`) and a description.
#[derive(Clone, Debug)]
pub struct Difference {
    /// `outcome`, `messages` or `state`: the first aspect that differs.
    pub aspect: &'static str,
    /// What differs, for the report.
    pub detail: String,
}

/// Equal as JSON values read by JavaScript: numbers by value (`1` and `1.0`
/// are one number to `JSON.parse`, so the client cannot tell them apart in
/// what it shows), everything else structurally.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The first difference between what the engine and the client showed.
pub fn compare(ours: &Observed, theirs: &Observed) -> Option<Difference> {
    if ours.outcome != theirs.outcome || ours.failed_at != theirs.failed_at {
        let at = |o: &Observed| o.failed_at.map(|s| format!(" at {s}")).unwrap_or_default();
        return Some(Difference {
            aspect: "outcome",
            detail: format!(
                "engine {}{} ({}), client {}{} ({})",
                ours.outcome,
                at(ours),
                ours.error.as_deref().unwrap_or("-"),
                theirs.outcome,
                at(theirs),
                theirs.error.as_deref().unwrap_or("-")
            ),
        });
    }
    let ids = |list: &[Value]| -> Vec<String> {
        list.iter()
            .map(|m| m["id"].as_str().unwrap_or("?").to_owned())
            .collect()
    };
    if ours.messages.len() != theirs.messages.len() {
        return Some(Difference {
            aspect: "messages",
            detail: format!(
                "engine {:?}, client {:?}",
                ids(&ours.messages),
                ids(&theirs.messages)
            ),
        });
    }
    for (i, (a, b)) in ours.messages.iter().zip(&theirs.messages).enumerate() {
        if !same(a, b) {
            return Some(Difference {
                aspect: "messages",
                detail: format!("message {i}: engine {a}, client {b}"),
            });
        }
    }
    if !same(&ours.state, &theirs.state) {
        return Some(Difference {
            aspect: "state",
            detail: format!("engine {}, client {}", ours.state, theirs.state),
        });
    }
    None
}

/// The wire texts of a stream.
pub fn wire(stream: &Stream) -> Vec<String> {
    stream.iter().map(render).collect()
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not a number")),
        Err(_) => default,
    }
}

#[test]
fn differential_client_profile_agrees_with_the_reference_client() {
    let count = env_number("AGUI_DIFF_STREAMS", 2000);
    let seed = env_number("AGUI_DIFF_SEED", 18);
    let required = crate::common::peer::required();
    let mut peer = match Peer::spawn() {
        Ok(peer) => peer,
        Err(why) if required => panic!("differential test: AGUI_PEER_REQUIRED=1 but {why}"),
        Err(why) => {
            println!("differential test NOT RUN: {why} (set AGUI_PEER_REQUIRED=1 to fail instead)");
            return;
        }
    };
    let started = Instant::now();
    println!("differential test: {count} streams, seed {seed} (AGUI_DIFF_STREAMS, AGUI_DIFF_SEED)");
    let generated: Vec<Stream> = (0..count).map(|i| streams::stream(seed, i)).collect();
    let texts: Vec<Vec<String>> = generated.iter().map(wire).collect();
    let theirs = peer.run(&texts);
    let peer_time = started.elapsed();
    let mut disagreeing = Vec::new();
    for (i, (stream, texts)) in generated.iter().zip(&texts).enumerate() {
        let ours = engine(texts);
        if let Some(difference) = compare(&ours, &theirs[i]) {
            disagreeing.push((i, stream.clone(), difference));
        }
    }
    let agree = count as usize - disagreeing.len();
    println!(
        "agreement in full: {agree} of {count} streams ({:.2}%), {} disagree; peer run {:.1} s",
        100.0 * agree as f64 / count.max(1) as f64,
        disagreeing.len(),
        peer_time.as_secs_f64()
    );

    let minimal = shrink::shrink_all(&mut peer, &disagreeing);
    let mut by_cause: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for (k, case) in minimal.iter().enumerate() {
        match classify(case) {
            Some(row) => by_cause.entry(row).or_default().push(k),
            None => unknown.push(k),
        }
    }
    for (row, cases) in &by_cause {
        let known = &KNOWN[*row];
        let example = &minimal[cases[0]];
        println!(
            "\n{:>6}  {} [{}]\n        e.g. stream #{}: {}\n        minimal: {}",
            cases.len(),
            known.cause,
            known.rule,
            example.index,
            example.difference.detail,
            example.text()
        );
    }
    if let Ok(path) = std::env::var("AGUI_DIFF_DUMP") {
        // Every shrunk disagreement as a JSON line, for study.
        let mut text = String::new();
        for (k, case) in minimal.iter().enumerate() {
            let row = classify(case).map(|row| KNOWN[row].rule);
            let line = serde_json::json!({
                "stream": case.index,
                "known": row,
                "aspect": case.difference.aspect,
                "detail": case.difference.detail,
                "engine": {"outcome": case.ours.outcome, "error": case.ours.error},
                "client": {"outcome": case.theirs.outcome, "error": case.theirs.error},
                "minimal": case.text(),
            });
            text.push_str(&line.to_string());
            text.push('\n');
            let _ = k;
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("AGUI_DIFF_DUMP={path}: {e}"));
        println!("wrote every shrunk disagreement to {path}");
    }
    let mut seen = std::collections::BTreeSet::new();
    for &k in &unknown {
        let case = &minimal[k];
        if seen.insert(case.text()) && seen.len() <= 25 {
            println!(
                "\nUNKNOWN stream #{} ({}): {}\n        minimal: {}",
                case.index,
                case.difference.aspect,
                case.difference.detail,
                case.text()
            );
        }
    }
    println!(
        "\ndifferential test: {agree} of {count} agree ({:.2}%); {} disagreements by {} known causes; \
         {} not recognised ({} distinct minimal streams); {:.1} s",
        100.0 * agree as f64 / count.max(1) as f64,
        disagreeing.len() - unknown.len(),
        by_cause.len(),
        unknown.len(),
        seen.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        unknown.is_empty(),
        "{} streams disagree with @ag-ui/client 1.0.0 for a cause tests/engine/differential/known.rs \
         does not name (minimal streams above); reproduce one with AGUI_DIFF_SEED={seed}",
        unknown.len()
    );
}

#[test]
fn differential_generator_is_seeded_and_sends_numbers_as_written() {
    // Issue 18: a stream is regenerated from its seed and index alone, and
    // a number placeholder reaches both consumers as the text it names.
    assert_eq!(streams::stream(18, 7), streams::stream(18, 7));
    assert_ne!(streams::stream(18, 7), streams::stream(19, 7));
    let event = serde_json::json!({"value": [streams::num("1e2"), streams::num("-0"), "#x"]});
    assert_eq!(render(&event), r##"{"value":[1e2,-0,"#x"]}"##);
    // What JavaScript shows: one number however it was written, not a string.
    assert!(same(&serde_json::json!(1), &serde_json::json!(1.0)));
    assert!(!same(&serde_json::json!(1), &serde_json::json!("1")));
}

#[test]
fn differential_subagent_chunk_lanes_and_activity_ids_agree_with_the_reference_client() {
    // Issue 39: the streams of the client profile's chunk lanes per
    // subagent and of tool-call and reasoning chunks reusing an activity's
    // id, replayed by the engine and by the real `@ag-ui/client` 1.0.0:
    // the same outcome (the ambiguous chunk refused at the same event), the
    // same messages and state.
    let required = crate::common::peer::required();
    let mut peer = match Peer::spawn() {
        Ok(peer) => peer,
        Err(why) if required => panic!("differential test: AGUI_PEER_REQUIRED=1 but {why}"),
        Err(why) => {
            println!(
                "issue 39 peer check NOT RUN: {why} (set AGUI_PEER_REQUIRED=1 to fail instead)"
            );
            return;
        }
    };
    use crate::client_conversation::{activity_id_chunks, ambiguous_lanes, interleaved_lanes};
    let streams = [interleaved_lanes(), ambiguous_lanes(), activity_id_chunks()];
    let texts: Vec<Vec<String>> = streams
        .iter()
        .map(|events| events.iter().map(Value::to_string).collect())
        .collect();
    let theirs = peer.run(&texts);
    for (i, texts) in texts.iter().enumerate() {
        let ours = engine(texts);
        assert_eq!(
            compare(&ours, &theirs[i]).map(|d| d.detail),
            None,
            "stream {i}: engine {ours:?}, client {:?}",
            theirs[i]
        );
    }
    // What the reference showed, as the issue says it does.
    assert_eq!(theirs[1].outcome, "error");
    assert_eq!(theirs[1].failed_at, Some(4));
    assert_eq!(theirs[2].messages.len(), 3);
}
