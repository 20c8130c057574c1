//! The body encoding of a served response: the one place that chooses it
//! from the request's `Accept` and writes each event in it. SSE for now;
//! AG-UI's protobuf encoding (issue 15, point 4) is one more variant here.

use bytes::{BufMut, Bytes, BytesMut};

/// How the events of a response are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEncoding {
    /// `text/event-stream`: one `data:` frame per event, the event's
    /// stored bytes as its data.
    Sse,
}

impl BodyEncoding {
    /// The encoding a request's `Accept` header asks for (SSE whatever it
    /// says, until another encoding is written).
    pub fn for_accept(_accept: Option<&str>) -> Self {
        Self::Sse
    }

    /// The response's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Sse => "text/event-stream",
        }
    }

    /// One event's bytes on the wire. An SSE event's stored bytes are its
    /// frame's `data` lines joined with `\n`: each line goes back as a
    /// `data:` line of its own, so the client reads exactly those bytes.
    pub fn encode(self, raw: &[u8]) -> Bytes {
        match self {
            Self::Sse => {
                let mut frame = BytesMut::with_capacity(raw.len() + 8);
                for line in raw.split(|&b| b == b'\n') {
                    frame.put_slice(b"data: ");
                    frame.put_slice(line);
                    frame.put_u8(b'\n');
                }
                frame.put_u8(b'\n');
                frame.freeze()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::SseFramer;

    /// What an SSE reader gives back of a frame is the stored bytes, lines
    /// included. (An SSE recording holds no empty event: a frame without
    /// data dispatches nothing.)
    #[test]
    fn an_sse_frame_reads_back_as_the_stored_bytes() {
        for raw in [
            &br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#[..],
            b"{\"type\":\n\"STEP_STARTED\",\"stepName\":\"a\"}",
        ] {
            let frame = BodyEncoding::Sse.encode(raw);
            let mut framer = SseFramer::default();
            let mut got = Vec::new();
            framer.push(&frame, &mut |event| got.push(event.to_vec()));
            framer.finish(&mut |event| got.push(event.to_vec()));
            assert_eq!(
                got,
                vec![raw.to_vec()],
                "{:?}",
                String::from_utf8_lossy(&frame)
            );
        }
    }
}
