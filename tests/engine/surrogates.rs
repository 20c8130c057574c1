//! Issue 39: lone UTF-16 surrogates (an emoji cut in two by a producer
//! slicing text by UTF-16 units) are read as JavaScript reads them: the run
//! goes on under both profiles, halves that meet by concatenation join,
//! content patches carry a lone half, `spec` notes each split (E24).

use agui_replay::surrogate::escape_json;
use agui_replay::{Code, Options, Outcome, Profile, Replayer, Severity};
use serde_json::{Value, json};

const RUN_STARTED: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
const RUN_FINISHED: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

fn options(profile: Profile) -> Options {
    Options {
        profile,
        ..Options::default()
    }
}

/// Replays raw lines (which `json!` cannot write: they hold lone escapes).
fn replay(profile: Profile, lines: &[&str]) -> Replayer {
    let mut replayer = Replayer::new(options(profile));
    for line in lines {
        replayer.apply_bytes(line.as_bytes());
    }
    replayer.finish();
    replayer
}

/// The splits said, as (seq, severity, path).
fn splits(replayer: &Replayer) -> Vec<(u64, Severity, String)> {
    replayer
        .diagnostics()
        .iter()
        .filter(|d| d.code == Code::TextSplitSurrogate)
        .map(|d| (d.seq.get(), d.severity, d.path.clone().unwrap_or_default()))
        .collect()
}

/// The severity of the split note under a profile.
fn severity(profile: Profile) -> Severity {
    match profile {
        Profile::Spec => Severity::Note,
        Profile::AgUiClient10 => Severity::Info,
    }
}

const PROFILES: [Profile; 2] = [Profile::Spec, Profile::AgUiClient10];

/// Issue 39: `"ok \ud83d"` then `"\ude42 done"` was `event.malformed`
/// (fatal); the halves now join into the emoji.
#[test]
fn an_emoji_split_between_text_deltas_joins_under_both_profiles() {
    for profile in PROFILES {
        let r = replay(
            profile,
            &[
                RUN_STARTED,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"ok \ud83d"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ude42 done"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
                RUN_FINISHED,
            ],
        );
        assert_eq!(
            r.outcome(),
            Outcome::Ok,
            "{profile:?}: {:?}",
            r.diagnostics()
        );
        let sev = severity(profile);
        assert_eq!(
            splits(&r),
            vec![(3, sev, "/delta".into()), (4, sev, "/delta".into())],
            "{profile:?}"
        );
        assert_eq!(
            r.conversation().to_json(),
            json!([{"id": "m", "role": "assistant", "content": "ok 🙂 done"}]),
            "{profile:?}"
        );
        let note = &r.diagnostics()[0];
        assert!(
            note.message.contains("TEXT_MESSAGE_CONTENT"),
            "{}",
            note.message
        );
        assert!(note.message.contains("\\ud83d"), "{}", note.message);
    }
}

/// Issue 39: tool-call arguments join as text does.
#[test]
fn an_emoji_split_between_tool_call_args_joins_under_both_profiles() {
    for profile in PROFILES {
        let r = replay(
            profile,
            &[
                RUN_STARTED,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"say"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"s\":\"\ud83d"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"\uDE42\"}"}"#,
                r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
                RUN_FINISHED,
            ],
        );
        assert_eq!(
            r.outcome(),
            Outcome::Ok,
            "{profile:?}: {:?}",
            r.diagnostics()
        );
        assert_eq!(splits(&r).len(), 2, "{profile:?}");
        let messages = r.conversation().to_json();
        assert_eq!(
            messages.pointer("/0/toolCalls/0/function/arguments"),
            Some(&json!("{\"s\":\"🙂\"}")),
            "{profile:?}: {messages}"
        );
    }
}

/// Issue 39: chunk deltas (text and tool call) and reasoning deltas join.
#[test]
fn an_emoji_split_between_chunks_and_reasoning_deltas_joins_under_both_profiles() {
    for profile in PROFILES {
        let r = replay(
            profile,
            &[
                RUN_STARTED,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"assistant","delta":"a\ud83d"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"\ude42b"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","parentMessageId":"m","delta":"\ud83d"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","delta":"\ude42"}"#,
                r#"{"type":"REASONING_START","messageId":"r1"}"#,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"rm","role":"reasoning"}"#,
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"x\ud83d"}"#,
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"rm","delta":"\ude42"}"#,
                r#"{"type":"REASONING_MESSAGE_END","messageId":"rm"}"#,
                r#"{"type":"REASONING_END","messageId":"r1"}"#,
                RUN_FINISHED,
            ],
        );
        assert_eq!(
            r.outcome(),
            Outcome::Ok,
            "{profile:?}: {:?}",
            r.diagnostics()
        );
        assert_eq!(splits(&r).len(), 6, "{profile:?}");
        let text = escape_json(r.conversation().to_json().to_string());
        assert!(!text.contains("\\ud83d"), "{profile:?}: {text}");
        assert!(!text.contains("\\ude42"), "{profile:?}: {text}");
        let messages = r.conversation().to_json();
        let find = |id: &str| {
            messages
                .as_array()
                .and_then(|all| all.iter().find(|m| m["id"] == id))
                .cloned()
                .unwrap_or(Value::Null)
        };
        assert_eq!(find("m")["content"], json!("a🙂b"), "{profile:?}: {text}");
        assert_eq!(
            find("m").pointer("/toolCalls/0/function/arguments"),
            Some(&json!("🙂")),
            "{profile:?}: {text}"
        );
        assert_eq!(find("rm")["content"], json!("x🙂"), "{profile:?}: {text}");
    }
}

/// Issue 39: an activity's content carries a lone half as the client does
/// (a preview cut inside an emoji), written back as the escape; a later
/// patch that completes the emoji holds the character.
#[test]
fn an_activity_content_patch_carries_a_lone_half_under_both_profiles() {
    for profile in PROFILES {
        let r = replay(
            profile,
            &[
                RUN_STARTED,
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"t","content":{"preview":"ok \ud83d"}}"#,
                r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"t","patch":[{"op":"add","path":"/more","value":"\ude42"}]}"#,
            ],
        );
        assert_eq!(
            r.outcome(),
            Outcome::Ok,
            "{profile:?}: {:?}",
            r.diagnostics()
        );
        let sev = severity(profile);
        assert_eq!(
            splits(&r),
            vec![
                (2, sev, "/content/preview".into()),
                (3, sev, "/patch/0/value".into())
            ],
            "{profile:?}"
        );
        let text = escape_json(r.conversation().to_json().to_string());
        assert!(
            text.contains(r#""preview":"ok \ud83d""#),
            "{profile:?}: {text}"
        );
        assert!(text.contains(r#""more":"\ude42""#), "{profile:?}: {text}");
        // The escapes read back (as `JSON.parse` would) into the same text.
        let again = agui_replay::surrogate::rewrite(&text).expect("lone halves");
        assert_eq!(
            serde_json::from_str::<Value>(&again).expect("JSON"),
            r.conversation().to_json()
        );
    }
}
