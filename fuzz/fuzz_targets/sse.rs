//! The SSE reader (`.sse`), and the incremental framer the proxy uses: the
//! same body fed in two chunks split anywhere (even between CR and LF) must
//! give the very same events as the body read at once.
#![no_main]

use agui_replay::input::{Format, SseFramer};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fn frame(chunks: &[&[u8]]) -> (Vec<Vec<u8>>, bool) {
    let mut framer = SseFramer::default();
    let mut events = Vec::new();
    for chunk in chunks {
        framer.push(chunk, &mut |event| events.push(event.to_vec()));
    }
    framer.finish(&mut |event| events.push(event.to_vec()));
    (events, framer.saw_crlf())
}

fuzz_target!(|data: &[u8]| {
    if let Some(stream) = common::read(data, "fuzz.sse") {
        assert_eq!(stream.format, Format::Sse);
        common::parse_all(&stream.events);
    }
    let whole = frame(&[data]);
    // The split point comes from the input itself, so it moves as it mutates.
    let split = data
        .first()
        .map_or(0, |&b| usize::from(b) * 7 % (data.len() + 1));
    let (head, tail) = data.split_at(split);
    assert_eq!(frame(&[head, tail]), whole, "split at {split}");
    let bytes: Vec<&[u8]> = data.chunks(3).collect();
    assert_eq!(frame(&bytes), whole, "fed 3 bytes at a time");
});
