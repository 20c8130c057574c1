//! Issue 39: a stream with lone UTF-16 surrogate escapes through the
//! command line: `state` shows a half that never met its pair as the
//! escape, the JSON exports keep the exact escapes, and the protobuf export
//! refuses the event, naming it.

use crate::common::*;

const STREAM: &str = concat!(
    r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    "\n",
    r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
    "\n",
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"ok \ud83d"}"#,
    "\n",
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ude42 and \uD83D"}"#,
    "\n",
    r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
    "\n",
    r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"preview":"\ud83d"}}"#,
    "\n",
    r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    "\n",
);

/// Issue 39: the run goes on, the halves that met join, and the one that
/// never met its pair is written as its escape (what `JSON.stringify`
/// writes), which reads back as the same string.
#[test]
fn state_shows_an_unpaired_half_as_its_escape() {
    let file = TempPath::with_bytes("surrogates", "state.jsonl", STREAM.as_bytes());
    let output = run(&["state", file.s(), "--at", "7"]);
    assert_eq!(code(&output), 0, "stderr: {}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains(r#""content": "ok 🙂 and \ud83d""#), "{text}");
    assert!(text.contains(r#""preview": "\ud83d""#), "{text}");
    let check = run(&["check", file.s()]);
    assert_eq!(code(&check), 0, "{}", stdout(&check));
    assert!(
        stdout(&check).contains("text.split-surrogate"),
        "{}",
        stdout(&check)
    );
}

/// Issue 39: JSON lines, SSE, vector and recording exports keep the exact
/// escapes (the original bytes); the vector's expectation writes the
/// unpaired half as its escape.
#[test]
fn json_exports_round_trip_the_exact_escapes() {
    let file = TempPath::with_bytes("surrogates", "in.jsonl", STREAM.as_bytes());
    let jsonl = TempPath::new("surrogates", "out.jsonl");
    run_ok(&["export", file.s(), "--out", jsonl.s()]);
    assert_eq!(jsonl.read(), STREAM.as_bytes());

    let sse = TempPath::new("surrogates", "out.sse");
    run_ok(&["export", file.s(), "--out", sse.s()]);
    let sse_text = String::from_utf8(sse.read()).expect("UTF-8");
    for line in STREAM.lines() {
        assert!(sse_text.contains(&format!("data: {line}\n")), "{sse_text}");
    }

    let rec = TempPath::new("surrogates", "out.rec");
    run_ok(&["export", file.s(), "--out", rec.s()]);
    let back = TempPath::new("surrogates", "back.jsonl");
    run_ok(&["export", rec.s(), "--format", "jsonl", "--out", back.s()]);
    assert_eq!(back.read(), STREAM.as_bytes());

    let vector = TempPath::new("surrogates", "out.json");
    run_ok(&["export", file.s(), "--out", vector.s()]);
    let text = String::from_utf8(vector.read()).expect("UTF-8");
    for line in STREAM.lines() {
        assert!(text.contains(line), "{line} not in {text}");
    }
    assert!(text.contains(r#""content": "ok 🙂 and \ud83d""#), "{text}");
    // The vector's `outcome` is the run's: it went on.
    assert!(text.contains(r#""outcome": "ok""#), "{text}");
}

/// Issue 39: protobuf strings are UTF-8; the export refuses the event with
/// an error naming its step and member, and writes nothing.
#[test]
fn protobuf_export_refuses_a_lone_half_naming_the_event() {
    let file = TempPath::with_bytes("surrogates", "proto.jsonl", STREAM.as_bytes());
    let out = TempPath::new("surrogates", "out.pb");
    let output = run(&["export", file.s(), "--out", out.s()]);
    assert_ne!(code(&output), 0);
    let error = stderr(&output);
    assert!(error.contains("step 3"), "{error}");
    assert!(error.contains("/delta"), "{error}");
    assert!(error.contains("lone UTF-16 surrogate"), "{error}");
    assert!(!out.path().exists(), "nothing is written");
}

/// A stream whose ids, keys and values hold lone halves.
const IDS: &str = concat!(
    r#"{"type":"RUN_STARTED","threadId":"t","runId":"r\ud83d"}"#,
    "\n",
    r#"{"type":"TEXT_MESSAGE_START","messageId":"m\udc00","role":"assistant"}"#,
    "\n",
    r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\udc00","delta":"hi"}"#,
    "\n",
    r#"{"type":"STATE_SNAPSHOT","snapshot":{"k\udc00":"v\ud83d","n":1}}"#,
    "\n",
    r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":"x\ud83d"}]}"#,
    "\n",
    r#"{"type":"RUN_ERROR","message":"bad \ud83d"}"#,
    "\n",
);

/// Whether `text` holds a stand-in the engine keeps a lone half as (the
/// last 2,048 code points of plane 16), or its code written by `{:?}`.
fn holds_stand_in(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{10F800}'..='\u{10FFFF}').contains(&c))
        || text.contains("\\u{10f")
}

/// Issue 39: in the text every command prints (diagnostics, values, ids,
/// run and key labels), a half that never met its pair is shown as such:
/// `�⟨\ud83d⟩` in words, the escape `\ud83d` in a JSON value; never as the
/// private-use character the engine holds it as. Events holding one keep
/// their keys (`compare` said "(no type)", `timing` "(no RUN_STARTED)").
#[test]
fn text_output_shows_an_unpaired_half_as_such() {
    let file = TempPath::with_bytes("surrogates", "ids.jsonl", IDS.as_bytes());
    let other = IDS.replace("bad ", "worse ").replace("\"hi\"", "\"ho\"");
    let second = TempPath::with_bytes("surrogates", "ids2.jsonl", other.as_bytes());
    let f = file.s();
    let outputs = [
        run(&["check", f]),
        run(&["check", f, "--format", "json"]),
        run(&["state", f, "--at", "6"]),
        run(&["diff", f, "--from", "1", "--to", "6"]),
        run(&["find", f, "--state", "--pointer", "/n"]),
        run(&["blame", f, "--state", "--pointer", "/n"]),
        run(&["blame", f, "--state", "--pointer", "/n", "--format", "json"]),
        run(&[
            "blame",
            f,
            "--message",
            "m\u{10FC00}",
            "--pointer",
            "/content",
        ]),
        run(&["timing", f]),
        run(&["compare", f, second.s()]),
        run(&["compare", f, second.s(), "--format", "json"]),
    ];
    for output in &outputs {
        let text = stdout(output);
        assert!(!holds_stand_in(&text), "{text}");
        assert!(!holds_stand_in(&stderr(output)), "{}", stderr(output));
    }
    let check = stdout(&outputs[0]);
    assert!(
        check.contains("m\u{FFFD}⟨\\udc00⟩"),
        "the message id: {check}"
    );
    assert!(check.contains("/snapshot/k\u{FFFD}⟨\\udc00⟩"), "{check}");
    let blame = stdout(&outputs[5]);
    assert!(blame.contains(r#"1 -> "x\ud83d""#), "{blame}");
    let timing = stdout(&outputs[8]);
    assert!(
        timing.contains("run 1 r\u{FFFD}⟨\\ud83d⟩: seq 1-6"),
        "{timing}"
    );
    let compare = stdout(&outputs[9]);
    assert!(
        compare.contains("RUN_ERROR changed (/message)"),
        "{compare}"
    );
    assert!(
        compare.contains("TEXT_MESSAGE_CONTENT m\u{FFFD}⟨\\udc00⟩ changed"),
        "{compare}"
    );
}
