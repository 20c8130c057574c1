//! Issue 11: the AG-UI conformance corpus (`tests/conformance/`, the
//! protocol's own `spec/1.0` and `spec/1.1` stream fixtures) is normative
//! (§11 of `REPLAY-RULES.md`); issue 39 adds its working draft
//! (`spec/draft`, C12). Every fixture of every folder runs under both
//! profiles: `spec/1.0` with a 1.0 consumer, `spec/1.1` with 1.1,
//! `spec/draft` with the draft's, and the `ag-ui-client-1.0` profile as the
//! 1.0 consumer it is (§10). Each must pass, except where [`DIFFERS`] names
//! the fixture, the profile, the keys and the rule that decides it; any
//! other disagreement fails this test.

use std::path::{Path, PathBuf};

use agui_replay::conformance::{
    Fixture, FixtureResult, Verdict, folder_version, read_dir, run_fixture,
};
use agui_replay::protocol::ProtocolVersion;
use agui_replay::{Code, Options, Profile, Severity};
use serde_json::json;

/// Issue 18: the differential test against the real `@ag-ui/client` 1.0.0
/// (`tests/engine/differential/`), in this binary to spare another link.
#[path = "differential/mod.rs"]
pub(crate) mod differential;

/// Which profiles a row of [`DIFFERS`] is about.
#[derive(Clone, Copy, Debug)]
enum Profiles {
    Spec,
    Client,
    Both,
}

impl Profiles {
    fn covers(self, profile: Profile) -> bool {
        matches!(
            (self, profile),
            (Self::Both, _) | (Self::Spec, Profile::Spec) | (Self::Client, Profile::AgUiClient10)
        )
    }
}

/// One deliberate difference: in `folder` (`"*"`: both), the fixture
/// `fixture` (a name, or a prefix ending in `*`), under `profiles`, may fail
/// on `keys` and on nothing else, because of `rule`.
struct Differs {
    folder: &'static str,
    fixture: &'static str,
    profiles: Profiles,
    keys: &'static [&'static str],
    rule: &'static str,
}

/// What the era fixtures may fail on: what their shims would translate.
const ERA_KEYS: &[&str] = &[
    "warnings",
    "noWarnings",
    "messages",
    "messageCount",
    "eventTypes",
    "eventTypesAbsent",
    "eventPaths",
    "eventAbsentPaths",
];

/// Why the era fixtures differ.
const ERA_RULE: &str = "§11: the era-* translation fixtures exercise the reference client's optional \
               compatibility shims for old peers (client.maxProtocolVersion: 0.0.39 content \
               flattening, 0.0.57 subagent downgrade), not implemented; the THINKING_* \
               translation (0.0.45) is done by ag-ui-client-1.0 only (event.legacy-translated), \
               spec drops the retired events (R42). Their outcome is still judged";

/// The one table of deliberate differences: only what §11 excuses.
const DIFFERS: &[Differs] = &[
    Differs {
        folder: "*",
        fixture: "era-0-0-39-flattens-content",
        profiles: Profiles::Both,
        keys: ERA_KEYS,
        rule: ERA_RULE,
    },
    Differs {
        folder: "*",
        fixture: "era-0-0-57-subagent-dropped-with-warning",
        profiles: Profiles::Both,
        keys: ERA_KEYS,
        rule: ERA_RULE,
    },
    Differs {
        folder: "*",
        fixture: "era-0-0-45-thinking-translated",
        profiles: Profiles::Spec,
        keys: ERA_KEYS,
        rule: ERA_RULE,
    },
    Differs {
        folder: "*",
        fixture: "unknown-enum-value-role-fatal",
        profiles: Profiles::Spec,
        keys: &["outcome", "errorContains"],
        rule: "§11 admitted gap, R42: spec strips an unrecognised role with a warning \
               (event.unknown-enum-value); ag-ui-client-1.0 is fatal like the reference client",
    },
    Differs {
        folder: "1.0",
        fixture: "truncated-run-reported-as-completed",
        profiles: Profiles::Spec,
        keys: &["noWarnings"],
        rule: "§11, R62: a truncated stream is completed with a warning (stream.truncated); \
               ag-ui-client-1.0 says nothing, as the reference client (a note only)",
    },
    Differs {
        folder: "1.1",
        fixture: "*",
        profiles: Profiles::Client,
        keys: &["noWarnings"],
        rule: "§10, §11 version declaration: ag-ui-client-1.0 is a 1.0 consumer, so a stream \
               declaring 1.1 (or newer) draws protocol.version.newer naming 1.0, and members of \
               the 1.1 schema are stripped with a warning",
    },
    Differs {
        folder: "1.1",
        fixture: "producer-declares-newer-version-warns",
        profiles: Profiles::Client,
        keys: &["warnings"],
        rule: "§10, §11 version declaration: the warning names the consumer's version, which \
               is 1.0 for ag-ui-client-1.0 where the fixture's text expects 1.1",
    },
    // Issue 39: the draft's rules (C12) are the draft consumer's; the
    // client profile is the reference client 1.0.0, which has none of them.
    Differs {
        folder: "draft",
        fixture: "truncated-stream-fails-the-run",
        profiles: Profiles::Client,
        keys: &["outcome", "errorContains"],
        rule: "C12, §10: a truncated stream fails the run under the draft; ag-ui-client-1.0 \
               consumes it without a word, as the reference client does (a note only, R62)",
    },
    Differs {
        folder: "draft",
        fixture: "run-finished-wrong-run-id-fatal",
        profiles: Profiles::Client,
        keys: &["outcome", "errorContains"],
        rule: "C12, §10: the draft holds a run's RUN_FINISHED to its runId; the reference \
               client 1.0.0 compares no ids",
    },
    Differs {
        folder: "draft",
        fixture: "duplicate-interrupt-id-fatal",
        profiles: Profiles::Client,
        keys: &["outcome", "errorContains"],
        rule: "C12, §10: the draft fails an interrupt outcome repeating an id; the reference \
               client 1.0.0 does not scan the interrupts",
    },
    Differs {
        folder: "draft",
        fixture: "activity-delta-missing-target-tolerated",
        profiles: Profiles::Client,
        keys: &["warnings"],
        rule: "P2, §10: the reference client 1.0.0 skips a delta for an unknown activity \
               silently (a note only); spec warns (R12), which the draft asserts",
    },
];

fn corpus() -> PathBuf {
    crate::common::manifest_path("tests/conformance")
}

/// The folders and the consumer version each is judged with.
fn folders() -> Vec<(&'static str, Vec<Fixture>)> {
    ["1.0", "1.1", "draft"]
        .into_iter()
        .map(|folder| {
            let fixtures = read_dir(&corpus().join(folder)).expect("the corpus reads");
            (folder, fixtures)
        })
        .collect()
}

fn options(folder: &str, profile: Profile) -> Options {
    Options {
        profile,
        protocol: folder_version(Path::new(folder)).expect("a version folder"),
        ..Options::default()
    }
}

fn row_matches(row: &Differs, folder: &str, fixture: &str, profile: Profile) -> bool {
    let name_matches = match row.fixture.strip_suffix('*') {
        Some(prefix) => fixture.starts_with(prefix),
        None => fixture == row.fixture,
    };
    (row.folder == "*" || row.folder == folder) && name_matches && row.profiles.covers(profile)
}

/// The extra condition of the version-declaration row: every warning is
/// about the version (a newer declaration, a member of the newer schema).
fn only_version_warnings(result: &FixtureResult) -> bool {
    let warnings: Vec<_> = result
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    warnings
        .iter()
        .any(|d| d.code == Code::ProtocolVersionNewer)
        && warnings.iter().all(|d| {
            d.code == Code::ProtocolVersionNewer
                || (d.code == Code::EventUnknownProperty
                    && d.path.as_deref() == Some("/encryptedValueType"))
        })
}

fn describe(result: &FixtureResult) -> String {
    result
        .failed()
        .map(|k| match &k.verdict {
            Verdict::Failed(why) => format!("{}: {why}", k.key),
            _ => unreachable!(),
        })
        .collect::<Vec<_>>()
        .join("\n      ")
}

#[test]
fn the_corpus_is_here_with_its_source_note() {
    for folder in ["1.0", "1.1", "draft"] {
        assert!(corpus().join(folder).join("README.md").exists(), "{folder}");
    }
    let source = std::fs::read_to_string(corpus().join("SOURCE.md")).expect("SOURCE.md");
    assert!(
        source.contains("ag-ui") && source.contains("MIT"),
        "{source}"
    );
    let counts: Vec<usize> = folders().iter().map(|(_, f)| f.len()).collect();
    assert!(
        counts.iter().all(|&n| n >= 40),
        "fixtures per folder: {counts:?}"
    );
}

#[test]
fn every_fixture_passes_under_both_profiles_except_the_table() {
    let mut unexpected = Vec::new();
    let mut used = vec![0usize; DIFFERS.len()];
    for (folder, fixtures) in folders() {
        for profile in Profile::ALL {
            let options = options(folder, profile);
            if profile == Profile::AgUiClient10 {
                assert_eq!(options.consumer_version(), ProtocolVersion::V1_0);
            }
            for fixture in &fixtures {
                let result = run_fixture(fixture, options);
                // It cannot pass vacuously: something was judged.
                assert!(
                    result.judged() > 0,
                    "{folder}/{} [{profile}]: nothing judged",
                    fixture.name
                );
                // Only what a replay cannot see (the request a client sends)
                // or what asserts nothing (an empty list, `noWarnings:
                // false`) goes unjudged: a key the judge does not know,
                // a typo included, fails here.
                for key in result.not_judged() {
                    assert!(
                        [
                            "request",
                            "requestAbsentPaths",
                            "warnings",
                            "noWarnings",
                            "eventTypesAbsent",
                            "eventAbsentPaths",
                        ]
                        .contains(&key.key.as_str()),
                        "{folder}/{} [{profile}]: {} not judged: {:?}",
                        fixture.name,
                        key.key,
                        key.verdict
                    );
                }
                if result.passed() {
                    continue;
                }
                let failed: Vec<&str> = result.failed().map(|k| k.key.as_str()).collect();
                let excused = DIFFERS.iter().position(|row| {
                    row_matches(row, folder, &fixture.name, profile)
                        && failed.iter().all(|k| row.keys.contains(k))
                        && (row.fixture != "*" || only_version_warnings(&result))
                });
                match excused {
                    Some(i) => used[i] += 1,
                    None => unexpected.push(format!(
                        "{folder}/{} [{profile} {}]\n      {}",
                        fixture.name,
                        result.protocol,
                        describe(&result)
                    )),
                }
            }
        }
    }
    assert!(
        unexpected.is_empty(),
        "{} fixture run(s) disagree with the corpus and are not in DIFFERS:\n  {}",
        unexpected.len(),
        unexpected.join("\n  ")
    );
    // No stale row: each one excuses something that does differ.
    for (row, n) in DIFFERS.iter().zip(&used) {
        assert!(
            *n > 0,
            "stale DIFFERS row {}/{} ({})",
            row.folder,
            row.fixture,
            row.rule
        );
    }
}

/// The same corpus under `spec` with each folder's own version is quiet
/// about versions: the table's version row is the client profile's only.
#[test]
fn spec_judges_each_folder_with_its_own_version() {
    for (folder, fixtures) in folders() {
        let options = options(folder, Profile::Spec);
        for fixture in &fixtures {
            let result = run_fixture(fixture, options);
            let newer: Vec<_> = result
                .diagnostics
                .iter()
                .filter(|d| d.code == Code::ProtocolVersionNewer)
                .collect();
            let declares_newer = fixture.name == "producer-declares-newer-version-warns";
            assert_eq!(
                !newer.is_empty(),
                declares_newer,
                "{folder}/{}: {newer:?}",
                fixture.name
            );
            for d in newer {
                // §11: the warning names both versions.
                let consumer = options.consumer_version().as_str();
                // The draft's fixtures call 1.1 newer (C12).
                let declared = if folder == "1.1" { "1.2" } else { "1.1" };
                assert!(
                    d.message.contains(consumer) && d.message.contains(declared),
                    "{}",
                    d.message
                );
            }
        }
    }
}

fn fixture(folder: &str, name: &str) -> Fixture {
    Fixture::read(&corpus().join(folder).join(format!("{name}.json"))).expect("fixture")
}

fn verdict(result: &FixtureResult, key: &str) -> Verdict {
    result
        .keys
        .iter()
        .find(|k| k.key == key)
        .map(|k| k.verdict.clone())
        .unwrap_or_else(|| panic!("no key {key}"))
}

#[test]
fn a_broken_expectation_fails() {
    let spec = options("1.1", Profile::Spec);
    let base = fixture("1.1", "triad-assembles-message");
    assert!(run_fixture(&base, spec).passed());
    let breakages = [
        ("outcome", json!("failed")),
        ("messageCount", json!(2)),
        (
            "messages",
            json!([{"id": "triad-m1", "role": "assistant", "content": "Deltas concatenated."}]),
        ),
        ("messages", json!([])),
        ("errorContains", json!("anything")),
        ("runError", json!(true)),
        ("warnings", json!(["a warning nobody emitted"])),
        ("state", json!({"absent": 1})),
        ("eventTypes", json!(["RUN_STARTED", "RUN_FINISHED"])),
        ("eventTypesAbsent", json!(["TEXT_MESSAGE_CONTENT"])),
        ("eventPaths", json!({"1.messageId": "another"})),
        ("eventAbsentPaths", json!(["1.messageId"])),
    ];
    for (key, value) in breakages {
        let mut broken = base.clone();
        broken.expect.insert(key.to_owned(), value.clone());
        let result = run_fixture(&broken, spec);
        assert!(!result.passed(), "{key} = {value} passed");
        assert!(
            matches!(verdict(&result, key), Verdict::Failed(_)),
            "{key} = {value}: {:?}",
            verdict(&result, key)
        );
    }
    // noWarnings fails where a warning is reported.
    let mut broken = fixture("1.1", "unknown-event-dropped");
    broken.expect.insert("noWarnings".into(), json!(true));
    assert!(matches!(
        verdict(&run_fixture(&broken, spec), "noWarnings"),
        Verdict::Failed(_)
    ));
}

/// The stream decides, not the file name: break the stream the way each
/// fixture's `kill` describes a broken client, and the fixture fails.
#[test]
fn a_broken_stream_fails_its_fixture() {
    let spec = options("1.1", Profile::Spec);
    // Without its start, the triad's content is fatal.
    let mut broken = fixture("1.1", "triad-assembles-message");
    broken.stream.remove(1);
    assert!(!run_fixture(&broken, spec).passed());
    // A fatal fixture whose defect is removed completes, and fails.
    let mut broken = fixture("1.1", "content-without-start-fatal");
    broken.stream.insert(
        1,
        json!({"type": "TEXT_MESSAGE_START", "messageId": "orphan-content-m1"}),
    );
    broken.stream.insert(
        3,
        json!({"type": "TEXT_MESSAGE_END", "messageId": "orphan-content-m1"}),
    );
    let result = run_fixture(&broken, spec);
    assert_eq!(
        verdict(&result, "outcome"),
        Verdict::Failed("completed, expected failed".into())
    );
}

#[test]
fn keys_the_replay_cannot_see_are_not_judged() {
    let result = run_fixture(
        &fixture("1.1", "current-peer-declares-protocol-version"),
        options("1.1", Profile::Spec),
    );
    assert!(matches!(verdict(&result, "request"), Verdict::NotJudged(_)));
    assert_eq!(result.judged(), 2, "outcome and noWarnings");
    // A fixture whose only other key is unseen still judges its outcome.
    let result = run_fixture(
        &fixture("1.0", "era-pinned-peer-omits-protocol-version"),
        options("1.0", Profile::Spec),
    );
    assert_eq!(result.judged(), 1);
    assert!(matches!(
        verdict(&result, "requestAbsentPaths"),
        Verdict::NotJudged(_)
    ));
}

#[test]
fn the_typescript_override_is_the_client_profiles_expectation() {
    let mut f = fixture("1.0", "triad-assembles-message");
    f.overrides.insert(
        "typescript".into(),
        json!({"intentional": "test", "messageCount": 7}),
    );
    assert_eq!(f.expectation(Profile::Spec)["messageCount"], json!(1));
    let client = f.expectation(Profile::AgUiClient10);
    assert_eq!(client["messageCount"], json!(7));
    assert!(!client.contains_key("intentional"));
    let result = run_fixture(&f, options("1.0", Profile::AgUiClient10));
    assert!(matches!(
        verdict(&result, "messageCount"),
        Verdict::Failed(_)
    ));
}

/// The stripped material is observable: what the replay strips is absent
/// from the delivered events, and what it drops is not delivered.
#[test]
fn delivered_events_lose_what_the_replay_strips() {
    let spec = options("1.1", Profile::Spec);
    for name in [
        "unknown-property-stripped",
        "unknown-outcome-stripped",
        "unknown-event-dropped",
    ] {
        let result = run_fixture(&fixture("1.1", name), spec);
        assert!(result.passed(), "{name}: {result:?}");
        for key in ["eventTypes", "eventAbsentPaths"] {
            if let Some(k) = result.keys.iter().find(|k| k.key == key) {
                assert_eq!(k.verdict, Verdict::Passed, "{name} {key}");
            }
        }
    }
}

/// Issue 39: the draft folder is judged with the draft's consumer, and its
/// fixtures that go past 1.1 pass because of the draft's rules (C12): a 1.1
/// consumer fails them.
#[test]
fn the_draft_folder_needs_the_drafts_rules() {
    let draft = options("draft", Profile::Spec);
    assert_eq!(draft.consumer_version(), ProtocolVersion::Draft);
    let v1_1 = Options {
        protocol: ProtocolVersion::V1_1,
        ..draft
    };
    for name in [
        "truncated-stream-fails-the-run",
        "run-finished-wrong-run-id-fatal",
        "duplicate-interrupt-id-fatal",
        "producer-declares-newer-version-warns",
    ] {
        let f = fixture("draft", name);
        assert!(run_fixture(&f, draft).passed(), "{name} under the draft");
        assert!(!run_fixture(&f, v1_1).passed(), "{name} under 1.1");
    }
    // The truncation verdict decides its fixture: the stream closed, the
    // run completes, and the fixture fails.
    let mut whole = fixture("draft", "truncated-stream-fails-the-run");
    whole
        .stream
        .push(json!({"type": "RUN_FINISHED", "threadId": "t-truncated", "runId": "r-truncated"}));
    assert_eq!(
        verdict(&run_fixture(&whole, draft), "outcome"),
        Verdict::Failed("completed, expected failed".into())
    );
}
