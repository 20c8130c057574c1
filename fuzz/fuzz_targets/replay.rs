//! The replay engine: any stream file (the format picked by content, as
//! for standard input), replayed under both profiles, strict and best
//! effort, with every step's state compared between a seek through a
//! timeline of checkpoints and a replay from the start.
#![no_main]

use libfuzzer_sys::{Corpus, fuzz_target};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| -> Corpus {
    let Some(stream) = common::read(data, "-") else {
        return Corpus::Reject;
    };
    common::replay_checked(&stream.events, stream.run_input.as_ref());
    Corpus::Keep
});
