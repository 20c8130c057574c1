//! The vector document reader (`{"profile": ..., "input": ..., "events":
//! [...]}`), then a replay under the declared profile's rules and the other.
#![no_main]

use agui_replay::input::Format;
use libfuzzer_sys::{Corpus, fuzz_target};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| -> Corpus {
    let Some(stream) = common::read(data, "fuzz.json") else {
        return Corpus::Keep;
    };
    if stream.format != Format::Vector {
        return Corpus::Reject;
    }
    if let Some(profile) = &stream.declared_profile {
        let _ = profile.parse::<agui_replay::Profile>();
    }
    common::parse_all(&stream.events);
    common::replay_checked(&stream.events, stream.run_input.as_ref());
    Corpus::Keep
});
