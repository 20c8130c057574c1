//! Search over time: `agui-replay find` through the built binary (output,
//! exit codes, options), and the engine (`agui_replay::search`) against a
//! naive oracle that replays every step from the start, with resumable
//! searches run a few events at a time over small checkpoint segments.

use std::process::Output;

use crate::common::generator::{GenConfig, generate};
use agui_replay::replay::{Options, Profile, Replayer, replay_from_to};
use agui_replay::search::{
    Direction, Match, Predicate, Query, Search, SearchStatus, Target, find_all,
};
use agui_replay::timeline::{CheckpointPolicy, Timeline};
use agui_replay::{EventLog, Seq, read_path};
use serde_json::{Value, json};

use crate::common::snapshot::{assert_output, transcript};
use crate::common::{TempPath, code, p, stderr, stdout};

/// The demo as an argument.
fn demo() -> String {
    p(&crate::common::demo()).to_owned()
}

/// The vector `name` as an argument.
fn vector(name: &str) -> String {
    p(&crate::common::vector(name)).to_owned()
}

/// Runs `find ARGS…`.
fn run(args: &[&str]) -> Output {
    crate::common::run(&[&["find"], args].concat())
}

/// Runs `find` and returns its stdout, checking the exit code.
fn find(args: &[&str], expected_code: i32) -> String {
    let output = run(args);
    assert_eq!(
        code(&output),
        expected_code,
        "find {args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

// The command line.

#[test]
fn text_output_has_one_line_per_change_of_the_value() {
    // search-1's `found` goes 0, 1, 2; a failed patch (16) and a snapshot
    // that keeps 2 (18) are not matches; then 3.
    let out = find(
        &[
            &demo(),
            "--message",
            "search-1",
            "--pointer",
            "/content/found",
        ],
        0,
    );
    assert_eq!(out, "step 13: 0\nstep 14: 1\nstep 15: 2\nstep 19: 3\n");
}

#[test]
fn json_output_holds_the_query_and_the_matches() {
    let out = find(
        &[
            &demo(),
            "--message",
            "hotels-1",
            "--pointer",
            "/content/candidates/0/name",
            "--equals",
            r#""Rossio Rooms""#,
            "--format",
            "json",
        ],
        0,
    );
    let document: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        document,
        json!({
            "query": {"target": "message", "message": "hotels-1",
                      "pointer": "/content/candidates/0/name",
                      "predicate": "equals", "value": "Rossio Rooms"},
            "matches": [{"step": 38, "value": "Rossio Rooms"}],
        })
    );
    assert!(out.ends_with('\n'));
}

#[test]
fn no_match_exits_1_with_empty_output() {
    let out = find(
        &[
            &demo(),
            "--message",
            "search-1",
            "--pointer",
            "/content/found",
            "--equals",
            "99",
        ],
        1,
    );
    assert_eq!(out, "");
    let out = find(
        &[
            &demo(),
            "--state",
            "--pointer",
            "/budget",
            "--equals",
            "1",
            "--format",
            "json",
        ],
        1,
    );
    let document: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(document["matches"], json!([]));
    assert_eq!(document["query"]["target"], "state");
}

#[test]
fn first_stops_at_the_first_match() {
    let args = [
        &demo(),
        "--message",
        "search-1",
        "--pointer",
        "/content/found",
    ];
    let out = find(&[&args[..], &["--first"]].concat(), 0);
    assert_eq!(out, "step 13: 0\n");
}

#[test]
fn from_keeps_only_the_matches_after_the_step() {
    let args = [
        &demo(),
        "--message",
        "search-1",
        "--pointer",
        "/content/found",
    ];
    assert_eq!(
        find(&[&args[..], &["--from", "14"]].concat(), 0),
        "step 15: 2\nstep 19: 3\n"
    );
    assert_eq!(
        find(&[&args[..], &["--from", "14", "--first"]].concat(), 0),
        "step 15: 2\n"
    );
    assert_eq!(find(&[&args[..], &["--from", "19"]].concat(), 1), "");
    // Step 15 is judged against step 14 even when the search starts there.
    assert_eq!(
        find(&[&args[..], &["--from", "14", "--equals", "2"]].concat(), 0),
        "step 15: 2\n"
    );
}

#[test]
fn from_past_the_end_is_bad_usage() {
    let output = run(&[&demo(), "--state", "--pointer", "/budget", "--from", "46"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("step 46 is past the end of the stream (45 events)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn state_queries_look_into_the_shared_state() {
    assert_eq!(
        find(&[&demo(), "--state", "--pointer", "/budget"], 0),
        "step 2: 800\nstep 20: 739\n"
    );
    assert_eq!(
        find(
            &[
                &demo(),
                "--state",
                "--pointer",
                "/steps",
                "--contains",
                "flights"
            ],
            0
        ),
        "step 20: [\"flights\"]\n"
    );
    // A string against an object: the key exists; the whole state changes
    // at 20 too.
    let out = find(
        &[&demo(), "--state", "--pointer", "", "--contains", "budget"],
        0,
    );
    let steps: Vec<&str> = out.lines().map(|l| &l[..l.find(':').unwrap()]).collect();
    assert_eq!(steps, ["step 2", "step 20"]);
}

#[test]
fn contains_takes_json_or_plain_text() {
    // Plain text is a string: a substring of the streamed text.
    let out = find(
        &[
            &demo(),
            "--message",
            "a-2",
            "--pointer",
            "/content",
            "--contains",
            "Ryanair",
        ],
        0,
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.starts_with("step 30: \"I held two seats on the Saturday 07:15 Ryanair"));
    // JSON: an element of an array, a subset of an object.
    let out = find(
        &[
            &demo(),
            "--message",
            "search-1",
            "--pointer",
            "/content/results",
            "--contains",
            r#"{"price":84,"title":"easyJet, Fri 20:40"}"#,
            "--first",
        ],
        0,
    );
    assert!(out.starts_with("step 15: "), "{out}");
    let out = find(
        &[
            &demo(),
            "--message",
            "plan-1",
            "--pointer",
            "/metadata",
            "--contains",
            r#"{"acme.renderer":"checklist@3"}"#,
        ],
        0,
    );
    assert_eq!(out, "step 39: {\"acme.renderer\":\"checklist@3\"}\n");
}

#[test]
fn metadata_and_whole_message_pointers_read_the_message_json() {
    let out = find(
        &[
            &vector("metadata-merges-last-write-wins-no-recursion"),
            "--message",
            "act-1",
            "--pointer",
            "/metadata/acme.x",
        ],
        0,
    );
    assert_eq!(out, "step 2: {\"p\":1,\"q\":2}\nstep 3: {\"p\":3}\n");
    let out = find(&[&demo(), "--message", "hotels-1", "--pointer", ""], 0);
    let steps: Vec<&str> = out.lines().map(|l| &l[..l.find(':').unwrap()]).collect();
    assert_eq!(steps, ["step 35", "step 37", "step 38"]);
    assert!(out.contains(r#""subagentRunId":"sub-hotels""#), "{out}");
}

#[test]
fn step_zero_is_a_match_when_the_run_input_holds() {
    let file = TempPath::with_bytes(
        "find",
        "run-input.json",
        json!({
            "input": {"threadId": "t", "runId": "r", "messages": [], "state": {"mode": "draft"}},
            "events": [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/mode", "value": "final"}]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
            ],
        })
        .to_string()
        .as_bytes(),
    );
    assert_eq!(
        find(&[file.s(), "--state", "--pointer", "/mode"], 0),
        "step 0: \"draft\"\nstep 2: \"final\"\n"
    );
    assert_eq!(
        find(
            &[file.s(), "--state", "--pointer", "/mode", "--from", "0"],
            0
        ),
        "step 2: \"final\"\n"
    );
}

#[test]
fn a_failed_run_is_noted_and_searched_until_the_failure() {
    let output = run(&[
        &vector("event-after-run-finished-is-fatal"),
        "--message",
        "act-1",
        "--pointer",
        "/content",
    ]);
    assert_eq!(code(&output), 1);
    assert!(stderr(&output).contains("note: the run failed at seq 3"));
    assert!(stderr(&output).contains("note: no message \"act-1\""));
    let output = run(&[
        &vector("event-after-run-finished-is-fatal"),
        "--message",
        "act-1",
        "--pointer",
        "/content",
        "--best-effort",
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "step 3: {\"a\":1}\n");
}

#[test]
fn bad_pointers_and_bad_json_are_bad_usage() {
    let output = run(&[&demo(), "--state", "--pointer", "budget"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains(r#"invalid JSON pointer "budget": must start with '/'"#),
        "{}",
        stderr(&output)
    );
    let output = run(&[&demo(), "--state", "--pointer", "/a~2b"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("'~' must be followed by 0 or 1"));
    let output = run(&[
        &demo(),
        "--state",
        "--pointer",
        "/city",
        "--equals",
        "Lisbon",
    ]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("--equals is not JSON: expected value"),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn usage_errors_exit_2() {
    // No target; two targets; two predicates; an unreadable file.
    for args in [
        &[demo().as_str(), "--pointer", "/x"][..],
        &[&demo(), "--state", "--message", "m", "--pointer", "/x"],
        &[
            &demo(),
            "--state",
            "--pointer",
            "/x",
            "--exists",
            "--equals",
            "1",
        ],
        &["/no/such/file.jsonl", "--state", "--pointer", "/x"],
    ] {
        let output = run(args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        assert_eq!(stdout(&output), "");
    }
}

// The engine.

/// The value a query looks at, read the slow way: the message's JSON.
fn oracle_value(replayer: &Replayer, query: &Query) -> Option<Value> {
    match &query.target {
        Target::State => replayer.state().pointer(&query.pointer).cloned(),
        Target::Message(id) => replayer
            .conversation()
            .get(id)?
            .to_json()
            .pointer(&query.pointer)
            .cloned(),
    }
}

/// The matches by definition, from the values at every step.
fn matches_from_values(values: Vec<Option<Value>>, query: &Query) -> Vec<Match> {
    let holds = |value: &Option<Value>| query.predicate.holds_for(value.as_ref());
    let mut matches = Vec::new();
    for (step, value) in values.iter().enumerate() {
        let matched =
            holds(value) && (step == 0 || !holds(&values[step - 1]) || values[step - 1] != *value);
        if matched {
            matches.push(Match {
                step: Seq::new(step as u64),
                value: value.clone(),
            });
        }
    }
    matches
}

/// Every step replayed from the start (`replay_to` per step).
fn naive_matches(start: &Replayer, log: &EventLog, query: &Query) -> Vec<Match> {
    let values = (0..=log.len() as u64)
        .map(|step| oracle_value(&replay_from_to(start.clone(), log, Seq::new(step)), query))
        .collect();
    matches_from_values(values, query)
}

/// One replay, the value read the slow way after every event.
fn incremental_matches(start: &Replayer, log: &EventLog, query: &Query) -> Vec<Match> {
    let mut replayer = start.clone();
    let mut values = vec![oracle_value(&replayer, query)];
    for (_, raw) in log.iter() {
        replayer.apply_bytes(raw);
        values.push(oracle_value(&replayer, query));
    }
    matches_from_values(values, query)
}

fn query(target: Target, pointer: &str, predicate: Predicate) -> Query {
    Query::new(target, pointer, predicate).expect("valid query")
}

fn message(id: &str) -> Target {
    Target::Message(id.to_owned())
}

fn generated(events: usize, activities: usize, seed: u64) -> EventLog {
    generate(GenConfig {
        events,
        activities,
        seed,
    })
}

/// Queries on a generated stream: dense and sparse, into contents, whole
/// messages, texts and the state, and some that never match.
fn generated_queries() -> Vec<Query> {
    vec![
        query(message("act-0001"), "/content/progress", Predicate::Exists),
        query(
            message("act-0002"),
            "/content/status",
            Predicate::Equals(json!("waiting")),
        ),
        query(
            message("act-0003"),
            "/content",
            Predicate::Contains(json!({"status": "running"})),
        ),
        query(
            message("act-0001"),
            "/content/items/0/label",
            Predicate::Contains(json!("result 1")),
        ),
        query(message("act-0000"), "", Predicate::Exists),
        query(
            message("act-0004"),
            "",
            Predicate::Contains(json!({"activityType": "code_run"})),
        ),
        query(message("act-0001"), "/activityType", Predicate::Exists),
        query(message("act-0001"), "/metadata", Predicate::Exists),
        query(
            message("msg-2"),
            "/content",
            Predicate::Contains(json!("forty")),
        ),
        query(message("msg-3"), "", Predicate::Exists),
        query(Target::State, "/counter", Predicate::Exists),
        query(Target::State, "", Predicate::Contains(json!("last"))),
        query(message("ghost-1"), "/content", Predicate::Exists),
    ]
}

#[test]
fn find_all_equals_replaying_every_step_from_the_start() {
    let options = Options::default();
    let start = Replayer::new(options);
    let mut cases: Vec<(EventLog, Vec<Query>)> = Vec::new();
    let mut demo_log = EventLog::default();
    for line in std::fs::read_to_string(demo()).expect("demo").lines() {
        demo_log.push(line.as_bytes());
    }
    let demo_queries = vec![
        query(message("search-1"), "/content/found", Predicate::Exists),
        query(message("search-1"), "", Predicate::Exists),
        query(
            message("plan-1"),
            "/metadata/acme.renderer",
            Predicate::Equals(json!("checklist@3")),
        ),
        query(message("plan-1"), "/metadata", Predicate::Exists),
        query(
            message("plan-1"),
            "/content/items",
            Predicate::Contains(json!({"text": "Find flights", "done": true})),
        ),
        query(message("hotels-1"), "", Predicate::Exists),
        query(message("hotels-1"), "/subagentRunId", Predicate::Exists),
        query(
            message("a-1"),
            "/toolCalls/0/function/arguments",
            Predicate::Exists,
        ),
        query(
            message("a-2"),
            "/content",
            Predicate::Contains(json!("EUR")),
        ),
        query(message("think-1"), "", Predicate::Exists),
        query(message("tool-1"), "", Predicate::Exists),
        query(message("a-1"), "", Predicate::Exists),
        query(Target::State, "", Predicate::Exists),
        query(
            Target::State,
            "/steps",
            Predicate::Contains(json!("flights")),
        ),
    ];
    cases.push((demo_log, demo_queries));
    cases.push((generated(300, 4, 5), generated_queries()));
    for (log, queries) in &cases {
        let timeline = Timeline::from_log(log.clone(), options);
        for query in queries {
            assert_eq!(
                find_all(&timeline, query),
                naive_matches(&start, log, query),
                "{query:?}"
            );
        }
    }
    // The demo's queries match somewhere (the oracle is not vacuous).
    let timeline = Timeline::from_log(cases[0].0.clone(), options);
    for query in &cases[0].1 {
        assert!(!find_all(&timeline, query).is_empty(), "{query:?}");
    }
}

#[test]
fn find_all_equals_the_oracle_on_the_vectors() {
    let paths = crate::common::vector_paths();
    assert!(paths.len() > 20);
    for path in paths {
        let stream = read_path(&path).expect("a vector");
        let profile: Profile = stream
            .declared_profile
            .as_deref()
            .map_or(Ok(Profile::Spec), str::parse)
            .expect("a profile");
        for best_effort in [false, true] {
            let options = Options {
                profile,
                best_effort,
                ..Options::default()
            };
            let start = match &stream.run_input {
                Some(input) => Replayer::with_run_input(options, input),
                None => Replayer::new(options),
            };
            // Every message id the stream ever holds.
            let mut ids = Vec::new();
            let mut replayer = start.clone();
            for (_, raw) in stream.events.iter() {
                replayer.apply_bytes(raw);
                for message in replayer.conversation().iter() {
                    if !ids.iter().any(|id| id == message.id()) {
                        ids.push(message.id().to_owned());
                    }
                }
            }
            let mut queries = vec![query(Target::State, "", Predicate::Exists)];
            for id in &ids {
                for pointer in ["", "/content", "/metadata", "/activityType", "/content/a"] {
                    queries.push(query(message(id), pointer, Predicate::Exists));
                }
            }
            let policy = CheckpointPolicy {
                max_cost: 100,
                op_cost: 48,
            };
            let timeline = Timeline::starting_from(start.clone())
                .policy(policy)
                .replay(stream.events.clone());
            for query in &queries {
                assert_eq!(
                    find_all(&timeline, query),
                    naive_matches(&start, &stream.events, query),
                    "{}: {query:?}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn find_all_equals_the_oracle_on_longer_generated_streams() {
    let options = Options::default();
    for seed in [1, 2] {
        let log = generated(4_000, 6, seed);
        let timeline = Timeline::from_log(log.clone(), options);
        let start = Replayer::new(options);
        for query in generated_queries() {
            let found = find_all(&timeline, &query);
            assert_eq!(
                found,
                incremental_matches(&start, &log, &query),
                "seed {seed}: {query:?}"
            );
        }
    }
}

/// Runs a search to the end, `budget` events at a time, checking that it
/// keeps to the budget and that its progress only grows.
fn run_search(search: Search, timeline: &Timeline, budget: usize) -> Option<Match> {
    resume_search(search, 0, timeline, budget)
}

/// [`run_search`] for a search that replayed `done` events already.
fn resume_search(
    mut search: Search,
    mut last_done: u64,
    timeline: &Timeline,
    budget: usize,
) -> Option<Match> {
    loop {
        match search.advance(timeline, budget) {
            SearchStatus::Pending { done, total } => {
                assert!(done > last_done, "no progress");
                assert!(
                    done - last_done <= budget as u64,
                    "{} events for a budget of {budget}",
                    done - last_done
                );
                assert!(done <= total);
                last_done = done;
            }
            SearchStatus::Found(found) => {
                // Finished searches keep their answer.
                assert_eq!(
                    search.advance(timeline, budget),
                    SearchStatus::Found(found.clone())
                );
                return Some(found);
            }
            SearchStatus::NotFound => {
                assert_eq!(search.advance(timeline, budget), SearchStatus::NotFound);
                return None;
            }
        }
    }
}

#[test]
fn next_and_previous_equal_the_neighbours_in_find_all() {
    let options = Options::default();
    let log = generated(1_500, 5, 9);
    // A checkpoint every few dozen events: many segments to cross.
    let timeline = Timeline::builder(options)
        .policy(CheckpointPolicy {
            max_cost: 5_000,
            op_cost: 48,
        })
        .replay(log);
    assert!(timeline.num_checkpoints() > 30);
    let last = timeline.last_step().get();
    let checkpoints: Vec<u64> = timeline.checkpoint_steps().map(|s| s.get()).collect();
    // Steps around every other checkpoint, and a stride through the rest.
    let mut steps: Vec<u64> = checkpoints
        .iter()
        .step_by(2)
        .flat_map(|&c| [c.saturating_sub(1), c, c + 1])
        .chain((0..=last + 2).step_by(53))
        .chain([0, 1, last - 1, last, last + 1])
        .collect();
    steps.sort_unstable();
    steps.dedup();
    let mut num_found = 0;
    // Dense and sparse, content and whole message, text, state, never.
    let queries = generated_queries();
    for i in [0, 1, 4, 8, 10, 12] {
        let query = &queries[i];
        let all = find_all(&timeline, query);
        assert_eq!(
            run_search(Search::first(query.clone()), &timeline, 7),
            all.first().cloned(),
            "first {query:?}"
        );
        for &step in &steps {
            let expected_next = all.iter().find(|m| m.step.get() > step).cloned();
            let search = Search::next(query.clone(), Seq::new(step));
            assert_eq!(search.direction(), Direction::Forward);
            assert_eq!(
                run_search(search, &timeline, 7),
                expected_next,
                "next after {step}: {query:?}"
            );
            let expected_previous = all.iter().rev().find(|m| m.step.get() < step).cloned();
            let search = Search::previous(query.clone(), Seq::new(step));
            assert_eq!(search.direction(), Direction::Backward);
            let found = run_search(search, &timeline, 7);
            num_found += usize::from(found.is_some());
            assert_eq!(
                found, expected_previous,
                "previous before {step}: {query:?}"
            );
        }
        // A large budget finds the same in one call.
        if let Some(middle) = all.get(all.len() / 2) {
            let mut search = Search::previous(query.clone(), middle.step);
            let expected = all.iter().rev().find(|m| m.step < middle.step).cloned();
            let status = search.advance(&timeline, usize::MAX);
            assert_eq!(
                status,
                expected.map_or(SearchStatus::NotFound, SearchStatus::Found),
                "{query:?}"
            );
        }
    }
    assert!(num_found > 500, "too few matches to test: {num_found}");
}

#[test]
fn a_search_goes_on_as_the_timeline_grows() {
    let options = Options::default();
    let mut timeline = Timeline::builder(options)
        .policy(CheckpointPolicy {
            max_cost: 300,
            op_cost: 48,
        })
        .empty();
    timeline.append(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#);
    for i in 0..20 {
        let event = json!({"type": "CUSTOM", "name": "tick", "value": i}).to_string();
        timeline.append(event.as_bytes());
    }
    let query = query(Target::State, "/done", Predicate::Equals(json!(true)));
    let mut search = Search::next(query, Seq::new(3));
    let SearchStatus::Pending { done, .. } = search.advance(&timeline, 5) else {
        panic!("the search is not done after 5 events");
    };
    timeline.append(br#"{"type":"STATE_SNAPSHOT","snapshot":{"done":true}}"#);
    assert_eq!(
        resume_search(search, done, &timeline, 5),
        Some(Match {
            step: Seq::new(22),
            value: Some(json!(true)),
        })
    );
}

// ---------------------------------------------------------------- snapshots

#[test]
fn find_outputs_are_the_snapshots() {
    let demo = "recordings/demo.jsonl";
    for (name, args) in [
        (
            "found_text",
            &[
                "find",
                demo,
                "--message",
                "search-1",
                "--pointer",
                "/content/found",
            ][..],
        ),
        (
            "equals_json",
            &[
                "find",
                demo,
                "--message",
                "hotels-1",
                "--pointer",
                "/content/candidates/0/name",
                "--equals",
                r#""Rossio Rooms""#,
                "--format",
                "json",
            ],
        ),
        (
            "state_budget",
            &["find", demo, "--state", "--pointer", "/budget"],
        ),
        (
            "no_match",
            &[
                "find",
                demo,
                "--state",
                "--pointer",
                "/budget",
                "--equals",
                "1",
            ],
        ),
        (
            "bad_pointer",
            &["find", demo, "--state", "--pointer", "budget"],
        ),
    ] {
        assert_output!(name, transcript(args));
    }
}
