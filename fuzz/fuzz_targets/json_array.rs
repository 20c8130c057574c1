//! The JSON array reader (`[event, ...]`): every element is an event, kept
//! byte for byte; then every event is parsed.
#![no_main]

use agui_replay::input::Format;
use libfuzzer_sys::{Corpus, fuzz_target};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| -> Corpus {
    let Some(stream) = common::read(data, "fuzz.json") else {
        return Corpus::Keep;
    };
    if stream.format != Format::JsonArray {
        // Another reader's input: the other targets cover it.
        return Corpus::Reject;
    }
    assert!(
        stream.events.num_bytes() <= data.len(),
        "the events hold more bytes than the file"
    );
    common::parse_all(&stream.events);
    Corpus::Keep
});
