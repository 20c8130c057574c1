//! Real AG-UI frameworks (issue 39, item 7): sessions of pydantic-ai,
//! LangGraph, LlamaIndex and Strands, each served by the package's own AG-UI
//! endpoint on a scripted model and captured through `agui-replay record`
//! (tests/frameworks/README.md says how). Each session replays under both
//! profiles, from its run input, and must
//! - report exactly the diagnostics (error, warning or note) its folder's
//!   `expected.json` lists, each with the rule it names and why the producer
//!   earned it: a diagnostic the producer did not earn fails the test;
//! - end with the messages and state the real `@ag-ui/client` 1.0.0 ended
//!   with on the same input and body (`<session>.client.json`).
//!
//! `expected.json`:
//! `{"framework", "packages", "diagnostics": [{"session", "profiles", "seq",
//! "code", "rule", "why"}]}`.

use std::path::{Path, PathBuf};

use agui_replay::open::open_source;
use agui_replay::replay::{Options, Profile, replay_from};
use agui_replay::rules::reference;
use agui_replay::{Code, Diagnostic, Outcome, Severity};
use serde_json::Value;

/// The frameworks whose captures are committed, one folder each.
const FRAMEWORKS: [&str; 4] = ["langgraph", "llama-index", "pydantic-ai", "strands"];

fn folder(framework: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/frameworks")
        .join(framework)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The sessions of a framework's folder: every `<name>.sse`, by name.
fn sessions(framework: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder(framework))
        .unwrap_or_else(|e| panic!("tests/frameworks/{framework}: {e}"))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".sse").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

/// One diagnostic as `expected.json` names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Named {
    session: String,
    profile: &'static str,
    seq: u64,
    code: String,
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{}] seq {}: {}",
            self.session, self.profile, self.seq, self.code
        )
    }
}

/// The entries of a list of `expected.json`, one per profile they name;
/// each must name a code the engine has and the rule that code reports.
fn entries(framework: &str, expected: &Value, list: &str) -> Vec<Named> {
    let mut out = Vec::new();
    for entry in expected[list].as_array().into_iter().flatten() {
        let code = entry["code"].as_str().unwrap_or_default();
        let parsed =
            Code::from_name(code).unwrap_or_else(|| panic!("{framework} {list}: no code {code:?}"));
        let rule = reference().rule_of(parsed).map(|r| r.id).unwrap_or("");
        assert!(
            entry["rule"]
                .as_str()
                .is_some_and(|r| r.eq_ignore_ascii_case(rule)),
            "{framework} {list}: {code} reports rule {rule:?}, the entry names {}",
            entry["rule"]
        );
        assert!(
            entry["why"].as_str().is_some_and(|why| why.len() > 20),
            "{framework} {list}: {code} needs a sentence saying why"
        );
        for profile in entry["profiles"].as_array().into_iter().flatten() {
            let profile = Profile::ALL
                .into_iter()
                .map(Profile::as_str)
                .find(|p| Some(*p) == profile.as_str())
                .unwrap_or_else(|| panic!("{framework} {list}: no profile {profile}"));
            out.push(Named {
                session: entry["session"].as_str().unwrap_or_default().to_owned(),
                profile,
                seq: entry["seq"].as_u64().unwrap_or(0),
                code: code.to_owned(),
            });
        }
    }
    out
}

/// Equal as JavaScript reads JSON: numbers by value.
fn same(a: &Value, b: &Value) -> bool {
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

/// Replays one session under a profile: its reader's and replay's
/// diagnostics that a producer earns (error, warning, note), the messages,
/// the state and whether the run failed.
fn replay(
    framework: &str,
    session: &str,
    profile: Profile,
) -> (Vec<Diagnostic>, Value, Value, bool) {
    let dir = folder(framework);
    let mut source = open_source(&dir.join(format!("{session}.sse")), None)
        .unwrap_or_else(|e| panic!("{framework}/{session}.sse: {e}"));
    source.run_input = Some(read_json(&dir.join(format!("{session}.input.json"))));
    let replayer = replay_from(source.start(Options::for_profile(profile)), &source.events);
    let mut diagnostics = source.diagnostics.clone();
    diagnostics.extend(replayer.diagnostics().iter().cloned());
    diagnostics.retain(|d| d.severity <= Severity::Note);
    (
        diagnostics,
        replayer.conversation().to_json(),
        replayer.state().clone(),
        replayer.outcome() == Outcome::Failed,
    )
}

fn check_framework(framework: &str) {
    let dir = folder(framework);
    let expected = read_json(&dir.join("expected.json"));
    let earned = entries(framework, &expected, "diagnostics");
    let names = sessions(framework);
    assert!(names.len() >= 3, "{framework}: only {names:?}");
    for entry in &earned {
        assert!(
            names.contains(&entry.session),
            "{framework}: no session for {entry}"
        );
    }
    let mut failures = Vec::new();
    let mut reported = Vec::new();
    for session in &names {
        let client = read_json(&dir.join(format!("{session}.client.json")));
        for profile in Profile::ALL {
            let (diagnostics, messages, state, failed) = replay(framework, session, profile);
            for d in &diagnostics {
                reported.push((
                    Named {
                        session: session.clone(),
                        profile: profile.as_str(),
                        seq: d.seq.get(),
                        code: d.code.as_str().to_owned(),
                    },
                    d.message.clone(),
                ));
            }
            let what = format!("{framework}/{session} [{}]", profile.as_str());
            if failed != (client["outcome"] == "error") {
                failures.push(format!(
                    "{what}: the engine's run failed = {failed}, the client's outcome {} ({})",
                    client["outcome"], client["error"]
                ));
            }
            if !same(&messages, &client["messages"]) {
                failures.push(format!(
                    "{what}: messages differ from the client's\n engine: {messages}\n client: {}",
                    client["messages"]
                ));
            }
            if !same(&state, &client["state"]) {
                failures.push(format!(
                    "{what}: state differs from the client's\n engine: {state}\n client: {}",
                    client["state"]
                ));
            }
        }
    }
    for (named, message) in &reported {
        if !earned.contains(named) {
            failures.push(format!(
                "{framework}: unearned diagnostic {named}: {message}"
            ));
        }
    }
    for named in &earned {
        if !reported.iter().any(|(r, _)| r == named) {
            failures.push(format!("{framework}: expected diagnostic missing: {named}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pydantic_ai_sessions_replay_as_the_client_showed_them() {
    // issue 39: pydantic-ai's AGUIAdapter on a FunctionModel.
    check_framework("pydantic-ai");
}

#[test]
fn langgraph_sessions_replay_as_the_client_showed_them() {
    // issue 39: ag-ui-langgraph over a graph on GenericFakeChatModel.
    check_framework("langgraph");
}

#[test]
fn llama_index_sessions_replay_as_the_client_showed_them() {
    // issue 39: llama-index-protocols-ag-ui on MockFunctionCallingLLM.
    check_framework("llama-index");
}

#[test]
fn strands_sessions_replay_as_the_client_showed_them() {
    // issue 39: ag-ui-strands over a Strands Agent on a scripted stub model.
    check_framework("strands");
}

#[test]
fn every_framework_folder_is_tested() {
    // issue 39: a capture committed without its test would guard nothing.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frameworks");
    let mut folders: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_type().ok()?.is_dir().then_some(())?;
            entry.file_name().into_string().ok()
        })
        .filter(|name| name != "capture")
        .collect();
    folders.sort();
    let mut known: Vec<String> = FRAMEWORKS.iter().map(|s| (*s).to_owned()).collect();
    known.sort();
    assert_eq!(folders, known);
}
