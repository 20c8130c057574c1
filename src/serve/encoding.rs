//! The body encoding of a served response: the one place that chooses it
//! from the request's `Accept` and writes each event in it: SSE, or
//! AG-UI's protobuf encoding when the client asks for it (issue 15,
//! point 4).

use bytes::{BufMut, Bytes, BytesMut};

use crate::protocol::proto;

/// How the events of a response are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEncoding {
    /// `text/event-stream`: one `data:` frame per event, the event's
    /// stored bytes as its data.
    Sse,
    /// `application/vnd.ag-ui.event+proto`: each event a 4-byte big-endian
    /// length and a protobuf `Event`, encoded from the stored JSON.
    Proto,
}

impl BodyEncoding {
    /// The encoding a request's `Accept` header asks for: protobuf when it
    /// names AG-UI's protobuf media type (with a quality above zero), as the
    /// official encoder decides; SSE otherwise.
    pub fn for_accept(accept: Option<&str>) -> Self {
        let asks_for_proto = accept.is_some_and(|accept| {
            accept.split(',').any(|range| {
                let mut parts = range.split(';').map(str::trim);
                let media = parts.next().unwrap_or_default();
                let refused = parts.any(|param| {
                    param
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f64>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                media.eq_ignore_ascii_case(proto::CONTENT_TYPE) && !refused
            })
        });
        if asks_for_proto {
            Self::Proto
        } else {
            Self::Sse
        }
    }

    /// The response's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Sse => "text/event-stream",
            Self::Proto => proto::CONTENT_TYPE,
        }
    }

    /// One event's bytes on the wire. An SSE event's stored bytes are its
    /// frame's `data` lines joined with `\n`: each line goes back as a
    /// `data:` line of its own, so the client reads exactly those bytes.
    /// In protobuf, an event the encoding cannot carry (not JSON, a type the
    /// schema lacks) is an error: the caller skips it and says so.
    pub fn encode(self, raw: &[u8]) -> Result<Bytes, proto::ProtoError> {
        match self {
            Self::Proto => proto::encode_event_text(raw).map(Bytes::from),
            Self::Sse => {
                let mut frame = BytesMut::with_capacity(raw.len() + 8);
                for line in raw.split(|&b| b == b'\n') {
                    frame.put_slice(b"data: ");
                    frame.put_slice(line);
                    frame.put_u8(b'\n');
                }
                frame.put_u8(b'\n');
                Ok(frame.freeze())
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
            let frame = BodyEncoding::Sse
                .encode(raw)
                .expect("SSE carries any bytes");
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

    #[test]
    fn protobuf_is_sent_only_to_a_client_that_asks_for_it() {
        assert_eq!(BodyEncoding::for_accept(None), BodyEncoding::Sse);
        assert_eq!(
            BodyEncoding::for_accept(Some("text/event-stream")),
            BodyEncoding::Sse
        );
        assert_eq!(
            BodyEncoding::for_accept(Some("application/vnd.ag-ui.event+proto")),
            BodyEncoding::Proto
        );
        assert_eq!(
            BodyEncoding::for_accept(Some(
                "text/event-stream, application/vnd.ag-ui.event+proto;q=0.9"
            )),
            BodyEncoding::Proto
        );
        assert_eq!(
            BodyEncoding::for_accept(Some("application/vnd.ag-ui.event+proto;q=0")),
            BodyEncoding::Sse
        );
    }

    #[test]
    fn a_protobuf_frame_decodes_to_the_stored_event() {
        let raw = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
        let frame = BodyEncoding::Proto.encode(raw).expect("encodes");
        let decoded = proto::decode_frame(&frame).expect("decodes");
        let got: serde_json::Value = serde_json::from_str(&decoded).expect("JSON");
        let want: serde_json::Value = serde_json::from_slice(raw).expect("JSON");
        assert_eq!(got, want);
        assert!(BodyEncoding::Proto.encode(b"not json").is_err());
    }
}
