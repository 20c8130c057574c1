//! The protobuf reader (`.pb`, issue 15.6) and the incremental framer the
//! proxy uses: any bytes are read without a panic, every frame decodes or
//! is kept raw, the same body fed in chunks split anywhere gives the very
//! same frames, and an event that decodes encodes again to bytes that
//! decode.
#![no_main]

use agui_replay::input::Format;
use agui_replay::protocol::proto::{self, ProtoFramer};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fn frame(chunks: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut framer = ProtoFramer::with_max_frame_bytes(1 << 16);
    let mut frames = Vec::new();
    for chunk in chunks {
        framer.push(chunk, &mut |f| frames.push(f.to_vec()));
    }
    framer.finish(&mut |f| frames.push(f.to_vec()));
    frames
}

fuzz_target!(|data: &[u8]| {
    if let Some(stream) = common::read(data, "fuzz.pb") {
        assert_eq!(stream.format, Format::Protobuf);
        common::parse_all(&stream.events);
    }
    // The input as one message, without a length prefix.
    if let Ok(text) = proto::decode_message(data) {
        let value: serde_json::Value = serde_json::from_str(&text).expect("decoded JSON");
        if let Ok(frame) = proto::encode_event(&value) {
            proto::decode_frame(&frame).expect("what we encode decodes");
        }
    }
    let whole = frame(&[data]);
    // Nothing is lost: the frames are the input, in order (up to the bound).
    if data.len() <= 1 << 16 {
        assert_eq!(whole.concat(), data);
    }
    let split = data
        .first()
        .map_or(0, |&b| usize::from(b) * 7 % (data.len() + 1));
    let (head, tail) = data.split_at(split);
    assert_eq!(frame(&[head, tail]), whole, "split at {split}");
    let bytes: Vec<&[u8]> = data.chunks(3).collect();
    assert_eq!(frame(&bytes), whole, "fed 3 bytes at a time");
});
