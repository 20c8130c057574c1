//! A timeline whose events are read from the recording (issue 14, point 3):
//! the events read from the file equal those in memory, and a timeline
//! replayed from the file gives the same indices, diagnostics and seeks as
//! one replayed from memory, from several threads at once.

use std::io::Write;

use agui_replay::input::RawEvents;
use agui_replay::replay::Replayer;
use agui_replay::store::Recording;
use agui_replay::timeline::{BLOCK_EVENTS, CheckpointPolicy, Timeline};
use agui_replay::{EventLog, Options, Seq};

use crate::common::TempPath;
use crate::common::generator::{GenConfig, generate};
use crate::common::store::{assert_unchanged, file_state, import};

/// A generated stream, and the recording it was imported into.
fn generated(test: &str, events: usize) -> (EventLog, TempPath, TempPath) {
    let config = GenConfig {
        events,
        activities: 20,
        seed: 11,
    };
    let log = generate(config);
    let jsonl = TempPath::new(test, "stream.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(jsonl.path()).expect("create"));
    for (_, raw) in log.iter() {
        file.write_all(raw).expect("write");
        file.write_all(b"\n").expect("write");
    }
    file.flush().expect("flush");
    drop(file);
    let rec = TempPath::new(test, "stream.rec");
    import(&[jsonl.path().to_owned()], rec.path());
    (log, jsonl, rec)
}

#[test]
fn events_read_from_the_file_equal_those_in_memory() {
    let (log, _jsonl, rec) = generated("lazy-equal", 3 * BLOCK_EVENTS + 17);
    let before = file_state(rec.path());
    let recording = Recording::open(rec.path()).expect("opens");
    let session = recording.sessions()[0].id;
    let events = recording
        .file_events(session)
        .expect("a reader")
        .with_len(log.len());
    assert_eq!(events.len(), log.len());
    let timeline_events = agui_replay::timeline::Events::File(events.clone());
    // Backwards, so that every block is read again out of order.
    for (seq, raw) in log.iter().collect::<Vec<_>>().into_iter().rev() {
        assert_eq!(
            &*timeline_events.get(seq).expect("in the file"),
            raw,
            "event {seq}"
        );
    }
    assert!(
        timeline_events
            .get(Seq::new(log.len() as u64 + 1))
            .is_none()
    );
    assert_eq!(*timeline_events.to_log(), log);
    let mut across = Vec::new();
    events.for_each_raw(BLOCK_EVENTS - 1..BLOCK_EVENTS + 1, &mut |seq, raw| {
        across.push((seq, raw.to_vec()));
    });
    assert_eq!(
        across,
        vec![
            (
                Seq::new(BLOCK_EVENTS as u64),
                log.get(Seq::new(BLOCK_EVENTS as u64)).unwrap().to_vec()
            ),
            (
                Seq::new(BLOCK_EVENTS as u64 + 1),
                log.get(Seq::new(BLOCK_EVENTS as u64 + 1)).unwrap().to_vec()
            ),
        ]
    );
    assert!(timeline_events.read_error().is_none());
    drop(recording);
    // Reading never modifies the recording.
    assert_unchanged(rec.path(), &before, "reading its events block by block");
}

#[test]
fn a_timeline_over_the_file_seeks_as_one_in_memory() {
    let (log, _jsonl, rec) = generated("lazy-seek", 12_000);
    let options = Options::default();
    // Small checkpoints: seeks cross blocks.
    let policy = CheckpointPolicy {
        max_cost: 64 * 1024,
        op_cost: 48,
    };
    let memory = Timeline::builder(options)
        .policy(policy)
        .replay(log.clone());
    let recording = Recording::open(rec.path()).expect("opens");
    let session = recording.sessions()[0].id;
    let shown = recording.file_events(session).expect("a reader");
    let reader = recording
        .file_events(session)
        .expect("a reader")
        .with_len(log.len());
    let mut file = Timeline::starting_from(Replayer::new(options))
        .policy(policy)
        .over_file(shown);
    // In chunks, as the background indexing reads them.
    while file.len() < log.len() {
        assert!(file.extend_from(&reader, 5_000) > 0);
    }
    file.finish();
    assert!(file.events().is_file());
    assert_eq!(file.len(), memory.len());
    assert_eq!(file.diagnostics(), memory.diagnostics());
    assert_eq!(file.effects(), memory.effects());
    assert_eq!(file.num_checkpoints(), memory.num_checkpoints());
    assert_eq!(file.index().lanes(), memory.index().lanes());
    // Seeks from several threads at once share the reader and its cache.
    std::thread::scope(|scope| {
        for thread in 0..3u64 {
            let file = file.clone();
            let memory = &memory;
            scope.spawn(move || {
                for i in 0..40u64 {
                    let step = Seq::new((i * 2_971 + thread * 613) % (memory.len() as u64 + 1));
                    let from_file = file.seek(step);
                    let from_memory = memory.seek(step);
                    assert_eq!(from_file.step(), step);
                    assert_eq!(from_file.document(), from_memory.document(), "step {step}");
                    assert_eq!(from_file.fatal(), from_memory.fatal(), "step {step}");
                }
            });
        }
    });
}
