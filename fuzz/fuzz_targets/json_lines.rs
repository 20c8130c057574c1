//! The JSON lines reader (`.jsonl`): every line is an event, kept byte for
//! byte; then every event is parsed (R41, R42).
#![no_main]

use agui_replay::input::Format;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some(stream) = common::read(data, "fuzz.jsonl") else {
        return;
    };
    assert_eq!(stream.format, Format::JsonLines);
    assert!(
        stream.events.num_bytes() <= data.len(),
        "the events hold more bytes than the file"
    );
    common::parse_all(&stream.events);
});
