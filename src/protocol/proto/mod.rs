//! AG-UI's protobuf encoding, `application/vnd.ag-ui.event+proto`: each
//! event a 4-byte big-endian length, then one protobuf `Event` message
//! (issue 15, points 6 and 7).
//!
//! The schema is `proto/agui.proto`, written from the protocol's schema as
//! `@ag-ui/proto` 1.0.0 puts it on the wire; `build.rs` compiles it into
//! typed prost messages (protox, a compiler in Rust, so no `protoc` is
//! needed), and the JSON mapping follows the same file (`typed.rs`).
//! A decoded event is the JSON its SSE twin carries (R41: the replay reads
//! the same text either way); a frame that does not decode is kept, raw,
//! and reported as `event.unparseable` with the reason ([`why_undecodable`]).

mod event;
mod json;
mod typed;

use serde_json::Value;

/// The content type of the protobuf encoding.
pub const CONTENT_TYPE: &str = "application/vnd.ag-ui.event+proto";

/// The length a frame may say before it is taken for a broken stream
/// rather than an event: the rest of the body is then kept as one piece.
pub const MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// Why an event could not be encoded, or a frame decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtoError {
    /// The bytes are not a protobuf `Event`, or not one the protocol allows.
    #[error("not a protobuf AG-UI event: {0}")]
    Decode(String),
    /// The frame's length prefix is wrong or its bytes are cut short.
    #[error("a broken protobuf frame: {0}")]
    Frame(String),
    /// The `Event` carries only event types this schema does not know
    /// (or, encoding, the event's `type` has no protobuf form).
    #[error("an event type the protobuf schema (AG-UI 1.0) does not have")]
    UnknownEventType,
    /// The event cannot be carried by the encoding.
    #[error("cannot be encoded as protobuf: {0}")]
    Encode(String),
}

/// Encodes one JSON event as one frame: its length (4 bytes, big-endian),
/// then its `Event` message.
pub fn encode_event(event: &Value) -> Result<Vec<u8>, ProtoError> {
    let message = event::encode_event(event)?;
    let len = u32::try_from(message.len())
        .map_err(|_| ProtoError::Encode("the event is over 4 GiB".into()))?;
    let mut frame = Vec::with_capacity(message.len() + 4);
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(&message);
    Ok(frame)
}

/// Encodes one event given as its raw JSON text (what a recording holds).
pub fn encode_event_text(raw: &[u8]) -> Result<Vec<u8>, ProtoError> {
    // Issue 39: a protobuf string is UTF-8, which has no lone surrogate.
    if let Ok(text) = std::str::from_utf8(raw)
        && let Some(rewritten) = crate::surrogate::rewrite(text)
    {
        let splits = serde_json::from_str::<Value>(&rewritten)
            .map(|value| crate::surrogate::splits(&value))
            .unwrap_or_default();
        let what = splits
            .iter()
            .map(|split| format!("`{}` {}", split.path, split.what))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ProtoError::Encode(format!(
            "it holds a lone UTF-16 surrogate ({what}): half of a character cut in two, which a \
             protobuf string (UTF-8) cannot carry; export JSON lines, SSE or a recording, which \
             keep the escape"
        )));
    }
    let value: Value = serde_json::from_slice(raw)
        .map_err(|e| ProtoError::Encode(format!("the event is not JSON ({e})")))?;
    encode_event(&value)
}

/// Decodes one `Event` message (no length prefix) to its JSON text.
pub fn decode_message(message: &[u8]) -> Result<String, ProtoError> {
    event::decode_event(message).map(|event| event.to_text())
}

/// Decodes one whole frame (length prefix included) to its JSON text.
pub fn decode_frame(frame: &[u8]) -> Result<String, ProtoError> {
    let Some((prefix, message)) = frame.split_first_chunk::<4>() else {
        return Err(ProtoError::Frame(format!(
            "{} bytes, fewer than the 4 of a length prefix",
            frame.len()
        )));
    };
    let len = u32::from_be_bytes(*prefix) as usize;
    if len != message.len() {
        return Err(ProtoError::Frame(format!(
            "the length prefix says {len} bytes, {} follow",
            message.len()
        )));
    }
    decode_message(message)
}

/// What the replay stores for one frame: its JSON text when it decodes,
/// else the frame's own bytes (reported as unparseable, never dropped).
pub fn event_bytes(frame: &[u8]) -> Vec<u8> {
    match decode_frame(frame) {
        Ok(text) => text.into_bytes(),
        Err(_) => frame.to_vec(),
    }
}

/// Why bytes kept from a protobuf stream are not an event, if they look
/// like a frame (a JSON text never starts with a NUL byte; a frame shorter
/// than 16 MiB always does): `event.unparseable`'s reason.
pub fn why_undecodable(bytes: &[u8]) -> Option<String> {
    if bytes.first() != Some(&0) {
        return None;
    }
    Some(match decode_frame(bytes) {
        Err(error) => error.to_string(),
        Ok(_) => "a protobuf frame stored undecoded".to_owned(),
    })
}

/// Whether bytes start like a protobuf stream: a length prefix under
/// 16 MiB (so a first byte no text starts with, NUL) that fits in the
/// bytes, then an `Event` that decodes.
pub fn looks_like_stream(bytes: &[u8]) -> bool {
    let Some((prefix, rest)) = bytes.split_first_chunk::<4>() else {
        return false;
    };
    let len = u32::from_be_bytes(*prefix) as usize;
    prefix[0] == 0 && len > 0 && len <= rest.len() && decode_message(&rest[..len]).is_ok()
}

/// Frames a protobuf body into frames incrementally, chunk by chunk (a
/// chunk may end anywhere). A frame whose length is over the bound cannot
/// be skipped reliably: it and everything after it are kept as one last
/// piece (cut at the bound), so nothing is lost silently.
#[derive(Debug)]
pub struct ProtoFramer {
    held: Vec<u8>,
    max_frame_bytes: usize,
    /// A bad length was met: the rest is one piece.
    broken: bool,
    cut: bool,
}

impl Default for ProtoFramer {
    fn default() -> Self {
        Self::with_max_frame_bytes(MAX_FRAME_BYTES)
    }
}

impl ProtoFramer {
    /// A framer that takes a frame longer than `max_frame_bytes` for a
    /// broken stream.
    pub fn with_max_frame_bytes(max_frame_bytes: usize) -> Self {
        Self {
            held: Vec::new(),
            max_frame_bytes,
            broken: false,
            cut: false,
        }
    }

    /// Whether the last piece was cut at the bound.
    pub fn was_cut(&self) -> bool {
        self.cut
    }

    /// Feeds a chunk; `emit` receives every whole frame (prefix included).
    pub fn push(&mut self, chunk: &[u8], emit: &mut dyn FnMut(&[u8])) {
        if self.broken {
            let room = self.max_frame_bytes.saturating_sub(self.held.len());
            self.cut |= chunk.len() > room;
            self.held.extend_from_slice(&chunk[..chunk.len().min(room)]);
            return;
        }
        self.held.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(prefix) = self.held.get(start..start + 4) {
            let len = u32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
            if len > self.max_frame_bytes {
                self.broken = true;
                break;
            }
            let end = start + 4 + len;
            if end > self.held.len() {
                break;
            }
            emit(&self.held[start..end]);
            start = end;
        }
        self.held.drain(..start);
        if self.broken && self.held.len() > self.max_frame_bytes {
            self.held.truncate(self.max_frame_bytes);
            self.cut = true;
        }
    }

    /// The end of the body: bytes of a frame cut short (or after a bad
    /// length) are one last piece.
    pub fn finish(&mut self, emit: &mut dyn FnMut(&[u8])) {
        if !self.held.is_empty() {
            emit(&self.held);
            self.held.clear();
        }
    }
}

/// Splits a whole protobuf body into the events the replay reads (see
/// [`event_bytes`]); how many of them did not decode is the second value.
pub fn read_body(bytes: &[u8]) -> (Vec<Vec<u8>>, usize) {
    let mut framer = ProtoFramer::default();
    let mut events = Vec::new();
    let mut undecodable = 0;
    let mut take = |frame: &[u8]| match decode_frame(frame) {
        Ok(text) => events.push(text.into_bytes()),
        Err(_) => {
            undecodable += 1;
            events.push(frame.to_vec());
        }
    };
    framer.push(bytes, &mut take);
    framer.finish(&mut take);
    (events, undecodable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(event: Value) -> Value {
        let frame = encode_event(&event).expect("encodes");
        let text = decode_frame(&frame).expect("decodes");
        serde_json::from_str(&text).expect("JSON")
    }

    #[test]
    fn events_round_trip_through_the_encoding() {
        let events = [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 1_700_000_000_000i64}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "héllo"}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": [1, 2.5, null, true, "x", {"b": {}}]}}),
            json!({"type": "STATE_DELTA", "delta": [
                {"op": "add", "path": "/a", "value": null},
                {"op": "move", "path": "/b", "from": "/a"},
                {"op": "remove", "path": "/c"}]}),
            json!({"type": "CUSTOM", "name": "n", "value": 3}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "1", "role": "user", "content": "hi"},
                {"id": "2", "role": "assistant", "content": "yo",
                 "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"id": "3", "role": "activity", "activityType": "plan", "content": {"steps": []}},
                {"id": "4", "role": "user", "content": [{"type": "text", "text": "t"}]}]}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": {"ok": 1},
                   "outcome": {"type": "interrupt", "interrupts": [{"id": "i", "reason": "why"}]}}),
            json!({"type": "RUN_ERROR", "message": "boom", "code": "E"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan",
                   "content": {"x": 1}, "replace": false}),
        ];
        for event in events {
            assert_eq!(round_trip(event.clone()), event);
        }
    }

    #[test]
    fn defaults_read_back_as_the_official_decoder_gives_them() {
        // proto3: an empty string is not sent and reads back as "" (R41:
        // the event still has its member).
        let back =
            round_trip(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""}));
        assert_eq!(
            back,
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""})
        );
        // Unknown members are not carried.
        let back = round_trip(json!({"type": "STEP_STARTED", "stepName": "s", "extra": 1}));
        assert_eq!(back, json!({"type": "STEP_STARTED", "stepName": "s"}));
    }

    #[test]
    fn undecodable_frames_are_errors_never_panics() {
        let good = encode_event(&json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}))
            .expect("encodes");
        for cut in 0..good.len() {
            assert!(decode_frame(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad_type = good.clone();
        // The base event's type (RUN_STARTED = 11) changed to 12.
        let at = bad_type.iter().rposition(|&b| b == 11).expect("type byte");
        bad_type[at] = 12;
        assert!(decode_frame(&bad_type).is_err());
        assert_eq!(
            decode_message(&[0x82, 0x02, 0x00]),
            Err(ProtoError::UnknownEventType),
            "only an arm the schema lacks (field 32; 31 is the last known)"
        );
        assert!(why_undecodable(&[0, 0, 0, 9, 1]).is_some());
        assert!(why_undecodable(b"{}").is_none());
        assert!(looks_like_stream(&good));
        assert!(!looks_like_stream(&good[..good.len() - 1]));
        assert!(!looks_like_stream(b"data: {}\n\n"));
        assert!(
            encode_event(&json!({"type": "STATE_DELTA", "delta": [{"op": "frob", "path": "/a"}]}))
                .is_err()
        );
        assert_eq!(
            encode_event(&json!({"type": "NOPE"})),
            Err(ProtoError::UnknownEventType)
        );
    }

    #[test]
    fn the_framer_splits_anywhere_and_keeps_what_is_broken() {
        let a = encode_event(&json!({"type": "STEP_STARTED", "stepName": "a"})).expect("a");
        let b = encode_event(&json!({"type": "STEP_FINISHED", "stepName": "b"})).expect("b");
        let body = [a.clone(), b.clone(), vec![0, 0, 0, 50, 1, 2]].concat();
        for split in 0..=body.len() {
            let mut framer = ProtoFramer::default();
            let mut pieces: Vec<Vec<u8>> = Vec::new();
            framer.push(&body[..split], &mut |f| pieces.push(f.to_vec()));
            framer.push(&body[split..], &mut |f| pieces.push(f.to_vec()));
            framer.finish(&mut |f| pieces.push(f.to_vec()));
            assert_eq!(
                pieces,
                [a.clone(), b.clone(), vec![0, 0, 0, 50, 1, 2]],
                "split {split}"
            );
        }
        let (events, undecodable) = read_body(&body);
        assert_eq!(events.len(), 3);
        assert_eq!(undecodable, 1);
        assert_eq!(events[2], [0, 0, 0, 50, 1, 2], "the cut frame is kept raw");
        // A length over the bound: the rest is one piece, cut at the bound.
        let mut framer = ProtoFramer::with_max_frame_bytes(8);
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        framer.push(&[0xff, 0xff, 0xff, 0xff], &mut |f| pieces.push(f.to_vec()));
        framer.push(&[7; 100], &mut |f| pieces.push(f.to_vec()));
        framer.finish(&mut |f| pieces.push(f.to_vec()));
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].len(), 8);
        assert!(framer.was_cut());
    }
}
