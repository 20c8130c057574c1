//! Recording one response body as it arrives: what the proxy and `run`
//! share, so that both frame, decode, bound and judge a body the same way
//! (issue 16: they had diverged on the status a session ends with, and on
//! which of them bounds a body that is not an event stream).

use std::time::Instant;

use super::decode::{BodyDecoder, DecodeError};
use super::writer_thread::WriterHandle;
use crate::input::SseFramer;
use crate::protocol::proto::{self, ProtoFramer};
use crate::store::{SessionId, SessionStatus};

/// The content type of AG-UI's protobuf encoding.
pub const PROTOBUF_CONTENT_TYPE: &str = proto::CONTENT_TYPE;

/// How much of a response that is not an event stream is recorded (the
/// proxy forwards it whole whatever its size); a longer body is cut there
/// and its session marked truncated.
pub(crate) const MAX_RECORDED_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How a response body is recorded, from its `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// `text/event-stream`: framed into events as it arrives.
    Sse,
    /// AG-UI protobuf: framed as it arrives, each frame stored as the JSON
    /// event it decodes to, or raw when it does not (issue 15.6).
    Protobuf,
    /// A body that cannot be decoded (its `Content-Encoding`): each chunk
    /// stored raw.
    Raw,
    /// Anything else (JSON errors…): stored as one raw event, bounded.
    Other,
}

impl BodyKind {
    /// The kind a `Content-Type` value names (case-insensitive, parameters
    /// ignored); no content type is [`BodyKind::Other`].
    pub(crate) fn of_content_type(content_type: Option<&str>) -> Self {
        let content_type = content_type.unwrap_or("").trim().to_ascii_lowercase();
        if content_type.starts_with("text/event-stream") {
            Self::Sse
        } else if content_type.starts_with(PROTOBUF_CONTENT_TYPE) {
            Self::Protobuf
        } else {
            Self::Other
        }
    }

    /// The session's `format` as the recording names it.
    pub(crate) fn format(self) -> &'static str {
        match self {
            Self::Sse => "sse",
            Self::Protobuf => "protobuf",
            Self::Raw | Self::Other => "http",
        }
    }
}

/// What a body is recorded under: its session, its kind, its encoding and
/// length as the headers said, and the response status.
pub(crate) struct BodyHead {
    pub session: SessionId,
    pub started: Instant,
    pub kind: BodyKind,
    /// The decoder for the body's `Content-Encoding` (an error when the
    /// encoding is not one we can undo).
    pub decoder: Result<BodyDecoder, DecodeError>,
    /// The body's `Content-Length`, if it said one.
    pub content_length: Option<u64>,
    /// The HTTP status: a session whose response is not 2xx fails.
    pub status: u16,
}

/// Records a response body chunk by chunk; `on_event` sees each event as it
/// is recorded, with its 1-based number.
pub(crate) struct BodyRecorder<F: FnMut(u64, &[u8])> {
    session: SessionId,
    writer: WriterHandle,
    started: Instant,
    kind: BodyKind,
    framer: SseFramer,
    proto_framer: ProtoFramer,
    other_body: Vec<u8>,
    /// Part of a body that is not an event stream was not kept.
    body_cut: bool,
    failed: bool,
    ended: bool,
    /// Undoes the body's `Content-Encoding` for what is stored; `None` once
    /// it failed (the rest is stored as it comes, and the session fails).
    decoder: Option<BodyDecoder>,
    /// A body that delivered its whole `Content-Length` is complete, even
    /// if the server stops reading it before its end.
    content_length: Option<u64>,
    /// Bytes of the body received (encoded, as `Content-Length` counts).
    received: u64,
    num_events: u64,
    on_event: F,
}

impl<F: FnMut(u64, &[u8])> BodyRecorder<F> {
    /// Starts recording a body into `head.session`.
    pub(crate) fn new(head: BodyHead, writer: WriterHandle, on_event: F) -> Self {
        let mut recorder = Self {
            session: head.session,
            writer,
            started: head.started,
            kind: head.kind,
            framer: SseFramer::with_max_frame_bytes(super::MAX_RECORDED_FRAME_BYTES),
            proto_framer: ProtoFramer::with_max_frame_bytes(super::MAX_RECORDED_FRAME_BYTES),
            other_body: Vec::new(),
            body_cut: false,
            failed: !(200..300).contains(&head.status),
            ended: false,
            decoder: None,
            content_length: head.content_length,
            received: 0,
            num_events: 0,
            on_event,
        };
        match head.decoder {
            Ok(decoder) => recorder.decoder = Some(decoder),
            Err(error) => recorder.undecodable(&error),
        }
        recorder
    }

    /// Events recorded so far.
    pub(crate) fn num_events(&self) -> u64 {
        self.num_events
    }

    /// Records a chunk of the body as received (encoded).
    pub(crate) fn chunk(&mut self, chunk: &[u8]) {
        self.received = self.received.saturating_add(chunk.len() as u64);
        let decoded = match self.decoder.as_mut().map(|d| d.push(chunk)) {
            Some(Ok(decoded)) => decoded,
            Some(Err(error)) => {
                self.undecodable(&error);
                chunk.to_vec()
            }
            None => chunk.to_vec(),
        };
        self.store(&decoded);
    }

    /// The body ended: normally (`complete`), or cut short (the connection
    /// broke, the client went away, the proxy is stopping). Ends the session
    /// and says how; a second call does nothing and says `None`.
    pub(crate) fn end(&mut self, complete: bool) -> Option<SessionStatus> {
        if self.ended {
            return None;
        }
        self.ended = true;
        match self.decoder.as_mut().map(BodyDecoder::finish) {
            Some(Ok(rest)) => self.store(&rest),
            Some(Err(error)) => self.undecodable(&error),
            None => {}
        }
        // A body that delivered its whole `Content-Length` is complete: the
        // proxy's server stops polling it there, before its end (issue 12).
        let complete = complete || self.content_length == Some(self.received);
        let arrival = self.arrival();
        match self.kind {
            BodyKind::Sse => {
                let mut framer = std::mem::take(&mut self.framer);
                framer.finish(&mut |event| self.record(event, arrival));
                self.framer = framer;
            }
            BodyKind::Protobuf => {
                let mut framer = std::mem::take(&mut self.proto_framer);
                framer.finish(&mut |frame| self.record(&proto::event_bytes(frame), arrival));
                self.proto_framer = framer;
            }
            BodyKind::Raw => {}
            BodyKind::Other => {
                if !self.other_body.is_empty() {
                    let body = std::mem::take(&mut self.other_body);
                    self.record(&body, arrival);
                }
            }
        }
        // An event cut at the frame bound, or a body cut at its bound: the
        // session is not whole.
        let whole = complete
            && self.framer.num_truncated() == 0
            && !self.proto_framer.was_cut()
            && !self.body_cut;
        let status = if self.failed {
            SessionStatus::Failed
        } else if whole {
            SessionStatus::Complete
        } else {
            SessionStatus::Truncated
        };
        self.writer.end(self.session, status);
        Some(status)
    }

    /// The body cannot be decoded: the recording says why in an event of its
    /// own, stores the rest as it comes (one raw event a chunk), and fails.
    fn undecodable(&mut self, error: &DecodeError) {
        let note = format!(
            "agui-replay: the response body is stored as received, undecoded: {}",
            crate::error::error_chain(error)
        );
        let arrival = self.arrival();
        self.record(note.as_bytes(), arrival);
        self.decoder = None;
        self.kind = BodyKind::Raw;
        self.failed = true;
    }

    /// Stores (decoded) body bytes.
    fn store(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        let arrival = self.arrival();
        match self.kind {
            BodyKind::Sse => {
                let mut framer = std::mem::take(&mut self.framer);
                framer.push(chunk, &mut |event| self.record(event, arrival));
                self.framer = framer;
            }
            BodyKind::Protobuf => {
                let mut framer = std::mem::take(&mut self.proto_framer);
                framer.push(chunk, &mut |frame| {
                    self.record(&proto::event_bytes(frame), arrival);
                });
                self.proto_framer = framer;
            }
            BodyKind::Raw => self.record(chunk, arrival),
            BodyKind::Other => {
                let room = MAX_RECORDED_BODY_BYTES.saturating_sub(self.other_body.len());
                self.body_cut |= chunk.len() > room;
                self.other_body
                    .extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
        }
    }

    fn record(&mut self, event: &[u8], arrival: u64) {
        self.num_events += 1;
        (self.on_event)(self.num_events, event);
        self.writer.event(self.session, event.to_vec(), arrival);
    }

    fn arrival(&self) -> u64 {
        nanos_since(self.started)
    }
}

/// Nanoseconds since `started`, saturating.
pub(crate) fn nanos_since(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
}
