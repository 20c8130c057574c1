//! The session files of other AG-UI tools (issue 17.5): every file of
//! `tests/interop/` opens (`open_source`) and imports (`import_files`) with
//! the sessions, events, arrival times and run inputs the file holds, as
//! `common::peers` works them out from the file itself; no header, wrapper
//! or keepalive record is taken for an event (E22), redaction marks stay
//! marks and are said (E21), and damage costs only the damaged line.

use std::path::Path;

use agui_replay::diagnostic::Code;
use agui_replay::open::{Source, SourceError, open_source};
use agui_replay::replay::{Options, Replayer, replay_from};
use agui_replay::store::{Recording, import_files};
use agui_replay::{Diagnostic, Seq};
use serde_json::Value;

use crate::common::TempPath;
use crate::common::peers::{Held, HeldSession, Tool, held, holds_mark, peer_file, peer_files};

/// Session `n` (from 1) of `path`.
fn open(path: &Path, n: usize) -> Source {
    open_source(path, Some(n as i64))
        .unwrap_or_else(|e| panic!("{} session {n}: {e}", path.display()))
}

/// The replay of a source from its run input, with its reader's
/// diagnostics first (as `check` lists them).
fn replay(source: &Source) -> (Replayer, Vec<Diagnostic>) {
    let replayer = replay_from(source.start(Options::default()), &source.events);
    let mut all = source.diagnostics.clone();
    all.extend(replayer.diagnostics().iter().cloned());
    (replayer, all)
}

/// Asserts that `events` are the `expected` ones, one for one.
fn assert_events(what: &str, events: &agui_replay::EventLog, expected: &HeldSession) {
    assert_eq!(
        events.len(),
        expected.events.len(),
        "{what}: number of events"
    );
    for ((seq, raw), held) in events.iter().zip(&expected.events) {
        assert!(
            held.matches(raw),
            "{what}: event {seq} is {:?}, the file holds {held:?}",
            String::from_utf8_lossy(raw)
        );
    }
}

#[test]
fn the_folder_holds_every_file_of_both_formats() {
    let names: Vec<String> = peer_files()
        .iter()
        .map(|p| crate::common::peers::relative(p))
        .collect();
    // SOURCE.md lists ten DevTools sessions (eight upstream, two made with
    // its export code), its aimock fixture file and two inspector exports.
    assert_eq!(names.len(), 13, "{names:#?}");
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".agui.jsonl")).count(),
        10
    );
    assert!(peer_file("SOURCE.md").exists() && peer_file("FORMATS.md").exists());
    let tools: Vec<Tool> = peer_files().iter().map(|p| held(p).tool).collect();
    assert_eq!(tools.iter().filter(|t| **t == Tool::Inspector).count(), 2);
    assert_eq!(tools.iter().filter(|t| **t == Tool::Fixtures).count(), 1);
    // What the files exercise: records that are not events, several
    // connections, a redacted export.
    let files: Vec<_> = peer_files().iter().map(|p| held(p)).collect();
    assert!(
        files
            .iter()
            .all(|f| f.tool != Tool::DevTools || f.num_other_records >= 1)
    );
    assert!(files.iter().any(|f| f.sessions.len() >= 4));
    assert!(files.iter().any(|f| !f.redacted.is_empty()));
}

#[test]
fn every_file_opens_with_its_sessions_events_times_and_inputs() {
    for path in peer_files() {
        let file = held(&path);
        let name = path.display().to_string();
        for (i, expected) in file.sessions.iter().enumerate() {
            let n = i + 1;
            let what = format!("{name} session {n} ({})", expected.label);
            let source = open(&path, n);
            assert_eq!(source.num_sessions, file.sessions.len(), "{what}");
            assert_eq!(source.exchanges.len(), file.sessions.len(), "{what}");
            assert_eq!(
                source.exchanges[i].num_events,
                expected.events.len(),
                "{what}: the picker's count"
            );
            assert!(
                source.format.contains(&expected.label),
                "{what}: {}",
                source.format
            );
            assert_events(&what, &source.events, expected);
            assert_eq!(
                source.arrival_nanos, expected.arrival_nanos,
                "{what}: times"
            );
            assert_eq!(source.run_input, expected.run_input, "{what}: run input");

            // No header, keepalive or wrapper is a broken event: the only
            // unparseable events are payloads the file itself holds as
            // text, and no record of these files is damaged.
            let (_, diagnostics) = replay(&source);
            let unparseable: Vec<Seq> = diagnostics
                .iter()
                .filter(|d| d.code == Code::EventUnparseable)
                .map(|d| d.seq)
                .collect();
            let texts: Vec<Seq> = expected
                .events
                .iter()
                .enumerate()
                .filter(|(_, e)| matches!(e, Held::Text(_)))
                .map(|(i, _)| Seq::from_index(i))
                .collect();
            // A fatal error stops the replay: the first text payload is
            // the one reported.
            assert_eq!(
                unparseable,
                texts.into_iter().take(1).collect::<Vec<_>>(),
                "{what}"
            );
            assert!(
                !diagnostics
                    .iter()
                    .any(|d| d.code == Code::PeerRecordDamaged),
                "{what}: {diagnostics:#?}"
            );
        }
        // A file of several sessions needs one picked; one past the last
        // does not exist.
        let past = open_source(&path, Some(file.sessions.len() as i64 + 1));
        assert!(
            matches!(past, Err(SourceError::NoSuchSession { .. })),
            "{name}"
        );
        match open_source(&path, None) {
            Ok(source) => assert_eq!(file.sessions.len(), 1, "{name}: {}", source.format),
            Err(SourceError::NoSuchSession { reason, .. }) => {
                assert!(file.sessions.len() > 1, "{name}");
                for (i, session) in file.sessions.iter().enumerate() {
                    assert!(
                        reason.contains(&format!("{}: {}", i + 1, session.label)),
                        "{name}: {reason}"
                    );
                }
            }
            Err(other) => panic!("{name}: {other}"),
        }
    }
}

#[test]
fn run_inputs_are_step_0() {
    // demo.agui.jsonl's second connection asks its own question.
    let path = peer_file("ag-ui-devtools/demo.agui.jsonl");
    let file = held(&path);
    let source = open(&path, 2);
    let start = source.start(Options::default());
    let input = file.sessions[1].run_input.clone().expect("a request");
    assert_eq!(start.conversation().to_json(), input["messages"]);
    assert_eq!(*start.state(), input["state"]);
}

#[test]
fn redaction_marks_stay_marks_and_are_said() {
    let mut num_redacted = 0;
    for path in peer_files() {
        let file = held(&path);
        for (i, expected) in file.sessions.iter().enumerate() {
            let source = open(&path, i + 1);
            let said: Vec<&Diagnostic> = source
                .diagnostics
                .iter()
                .filter(|d| d.code == Code::PeerRedacted)
                .collect();
            let marked = expected.events.iter().any(|e| match e {
                Held::Json(v) => holds_mark(v),
                Held::Text(_) => false,
            }) || expected.run_input.as_ref().is_some_and(holds_mark);
            let what = format!("{} session {}", path.display(), i + 1);
            assert_eq!(
                said.len(),
                usize::from(marked || !file.redacted.is_empty()),
                "{what}: {said:#?}"
            );
            if let Some(diagnostic) = said.first() {
                num_redacted += 1;
                assert_eq!(diagnostic.seq, Seq::START);
                for group in &file.redacted {
                    assert!(diagnostic.message.contains(group.as_str()), "{what}");
                }
                assert!(diagnostic.message.contains("«redacted: N chars»"));
            }
            // The marks are what the conversation shows: each text
            // message is its deltas as the file holds them, not values
            // made up in their place.
            let (replayer, _) = replay(&source);
            let conversation = replayer.conversation().to_json();
            for message in conversation.as_array().into_iter().flatten() {
                let Some(id) = message["id"].as_str() else {
                    continue;
                };
                let deltas: String = expected
                    .events
                    .iter()
                    .filter_map(|e| match e {
                        Held::Json(v)
                            if v["messageId"] == id && v["type"] == "TEXT_MESSAGE_CONTENT" =>
                        {
                            v["delta"].as_str().map(str::to_owned)
                        }
                        _ => None,
                    })
                    .collect();
                if !deltas.is_empty() {
                    assert_eq!(message["content"], Value::String(deltas), "{what}: {id}");
                }
            }
        }
    }
    // The two generated exports (three connections) and the fixture file.
    assert_eq!(num_redacted, 4);
}

#[test]
fn malformed_gets_clear_diagnostics_without_losing_a_line() {
    let path = peer_file("ag-ui-devtools/malformed.agui.jsonl");
    let file = held(&path);
    let expected = &file.sessions[0];
    let source = open(&path, 1);
    assert_events("malformed", &source.events, expected);
    let (_, diagnostics) = replay(&source);
    // Where the file's own problems are, found from its events.
    let seq_of = |test: &dyn Fn(&Value) -> bool| {
        let index = expected
            .events
            .iter()
            .position(|e| matches!(e, Held::Json(v) if test(v)))
            .expect("the event is there");
        Seq::from_index(index)
    };
    let empty = seq_of(&|v| v["type"] == "TEXT_MESSAGE_CONTENT" && v["delta"] == "");
    let patch = seq_of(&|v| v["type"] == "STATE_DELTA");
    let last = Seq::from_index(expected.events.len() - 1);
    let found: Vec<(Seq, Code)> = diagnostics.iter().map(|d| (d.seq, d.code)).collect();
    assert_eq!(
        found,
        [
            (empty, Code::EmptyDelta),
            (patch, Code::StatePatchFailed),
            (last, Code::StreamTruncated),
        ]
    );

    // The same file damaged: a line of garbage, a record of an unknown
    // kind, and its last event cut in half. Each is said with its line;
    // every other line is read as before.
    let text = std::fs::read_to_string(&path).expect("text");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let cut_line = lines.len(); // 1-based number of the last line
    let last_line = lines.pop().expect("a last line");
    lines.push(last_line[..last_line.len() / 2].to_owned());
    lines.insert(3, "{\"kind\":\"snapshot\",\"connId\":\"c1\"}".to_owned());
    lines.insert(3, "this is not a record".to_owned());
    let damaged =
        TempPath::with_bytes("interop", "damaged.agui.jsonl", lines.join("\n").as_bytes());
    let source = open(damaged.path(), 1);
    assert_eq!(
        source.events.len(),
        expected.events.len(),
        "no line is lost"
    );
    assert_events(
        "damaged",
        &{
            let mut kept = agui_replay::EventLog::default();
            for (_, raw) in source.events.iter().take(expected.events.len() - 1) {
                kept.push(raw);
            }
            kept
        },
        &HeldSession {
            events: expected.events[..expected.events.len() - 1].to_vec(),
            ..expected.clone()
        },
    );
    let said: Vec<&str> = source
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::PeerRecordDamaged)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(said.len(), 3, "{said:#?}");
    assert!(
        said[0].starts_with("line 4 is not a record: not a JSON object"),
        "{}",
        said[0]
    );
    assert!(
        said[1].starts_with("line 5 has an unknown kind \"snapshot\""),
        "{}",
        said[1]
    );
    assert!(
        said[2].starts_with(&format!(
            "line {}: an event record that is not a JSON object",
            cut_line + 2
        )) && said[2].contains(&format!("kept as event {}", expected.events.len())),
        "{}",
        said[2]
    );
    let (_, diagnostics) = replay(&source);
    assert!(
        diagnostics
            .iter()
            .any(|d| d.code == Code::EventUnparseable && d.seq == last),
        "the cut event is reported where it was: {diagnostics:#?}"
    );
}

#[test]
fn import_keeps_every_session_with_its_times_inputs_and_diagnostics() {
    let files = peer_files();
    let out = TempPath::new("interop", "peers.rec");
    let imported = import_files(&files, out.path(), &mut |_| {}).expect("the import");
    let recording = Recording::open(out.path()).expect("the recording");
    let held_sessions: Vec<(std::path::PathBuf, usize, HeldSession)> = files
        .iter()
        .flat_map(|path| {
            held(path)
                .sessions
                .into_iter()
                .enumerate()
                .map(move |(i, s)| (path.clone(), i + 1, s))
        })
        .collect();
    assert_eq!(imported.len(), held_sessions.len());
    assert_eq!(recording.sessions().len(), held_sessions.len());
    for (info, (path, n, expected)) in recording.sessions().iter().zip(&held_sessions) {
        let what = format!("{} session {n}", path.display());
        let opened = open(path, *n);
        assert_events(
            &what,
            &recording.load_events(info.id).expect("events"),
            expected,
        );
        let arrivals = recording.arrival_nanos(info.id).expect("arrivals");
        match &expected.arrival_nanos {
            Some(times) => assert_eq!(&arrivals, times, "{what}"),
            // A file without times: an untimed stream's spacing.
            None => assert!(
                arrivals
                    .iter()
                    .enumerate()
                    .all(|(i, &a)| a == i as u64 * agui_replay::input::UNTIMED_STEP_NANOS),
                "{what}: {arrivals:?}"
            ),
        }
        assert_eq!(info.run_input(), expected.run_input, "{what}");
        assert_eq!(info.reader_diagnostics, opened.diagnostics, "{what}");
        assert!(
            info.source.contains(&expected.label),
            "{what}: {}",
            info.source
        );
        assert!(
            ["agui-devtools", "agui-inspector", "aimock-fixtures"].contains(&info.format.as_str()),
            "{what}: {}",
            info.format
        );
    }
}
