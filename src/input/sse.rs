//! Server-Sent Events bodies, framed as the WHATWG event-stream format says:
//! lines end with LF, CRLF or CR; a blank line dispatches the frame; `data:`
//! lines are joined with `\n`; comments and the `event`, `id` and `retry`
//! fields carry no event and are ignored.
//!
//! The framing is written here rather than taken from an SSE crate because
//! those (eventsource-stream and kin) are async and lossy by design: they drop
//! lines they do not understand and an unterminated last frame. A debugger
//! must keep both, so an unknown field line becomes an event of its own (and
//! an `event.unparseable` diagnostic), and a last frame without its blank line
//! is still dispatched.

use super::Stream;
use crate::diagnostic::{Code, Diagnostic, Seq};

pub(super) fn read_sse(bytes: &[u8], stream: &mut Stream) {
    let bytes = super::strip_bom(bytes);
    let mut framer = SseFramer::default();
    framer.push(bytes, &mut |event| {
        stream.events.push(event);
    });
    framer.finish(&mut |event| {
        stream.events.push(event);
    });
    if framer.saw_crlf() {
        stream.diagnostics.push(Diagnostic::new(
            Seq::START,
            Code::SseCrlf,
            "the SSE body is framed with CRLF line ends; accepted",
        ));
    }
}

/// Frames an SSE body into events incrementally, chunk by chunk as it
/// arrives (a chunk may end anywhere, even between the CR and LF of a line
/// end). Each event's bytes are its `data` lines joined with `\n`; a line
/// that is not SSE is an event of its own so that it is seen.
///
/// A framer made [`with_max_frame_bytes`](Self::with_max_frame_bytes) holds
/// at most that much of a line and of a frame's data (issue 12): what
/// passes it is cut, the event keeps its first bytes (and is reported as
/// unparseable when replayed), and [`num_truncated`](Self::num_truncated)
/// counts it. A file is read whole, so its framer has no bound.
#[derive(Debug, Default)]
pub struct SseFramer {
    /// The current line, not ended yet.
    line: Vec<u8>,
    /// The current frame's data.
    data: Vec<u8>,
    has_data: bool,
    /// The last chunk ended with a CR: a LF starting the next one belongs
    /// to the same line end.
    after_cr: bool,
    /// The line before the current one ended with a lone CR (a CR not
    /// followed by LF; at a chunk's end, until the next chunk says).
    after_lone_cr: bool,
    saw_crlf: bool,
    /// The most bytes kept of a line and of a frame's data.
    max_frame_bytes: Option<usize>,
    /// The current line, or the current frame, was cut.
    line_cut: bool,
    frame_cut: bool,
    num_truncated: u64,
}

/// What a bounded framer keeps of a line beyond the frame bound: the
/// field name and its colon.
const FIELD_NAME_ROOM: usize = 16;

impl SseFramer {
    /// A framer that keeps at most `max_frame_bytes` of a line and of a
    /// frame: what a live recording uses, so that an upstream that never
    /// ends a line cannot exhaust the memory.
    pub fn with_max_frame_bytes(max_frame_bytes: usize) -> Self {
        Self {
            max_frame_bytes: Some(max_frame_bytes),
            ..Self::default()
        }
    }

    /// How many events were cut at the bound.
    pub fn num_truncated(&self) -> u64 {
        self.num_truncated
    }

    /// Appends to the current line, up to the bound.
    fn extend_line(&mut self, bytes: &[u8]) {
        // Room for the field name too, so that a data line can fill a frame.
        let room = self.max_frame_bytes.map_or(usize::MAX, |max| {
            (max + FIELD_NAME_ROOM).saturating_sub(self.line.len())
        });
        if bytes.len() > room {
            self.line_cut = true;
        }
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Feeds a chunk; `emit` receives every event it completes.
    pub fn push(&mut self, chunk: &[u8], emit: &mut dyn FnMut(&[u8])) {
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if let Some(after) = rest.strip_prefix(b"\n") {
                self.saw_crlf = true;
                self.after_lone_cr = false;
                rest = after;
            }
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.extend_line(&rest[..end]);
            let mut skip = 1;
            let mut lone_cr = false;
            if rest[end] == b'\r' {
                match rest.get(end + 1) {
                    Some(b'\n') => {
                        self.saw_crlf = true;
                        skip = 2;
                    }
                    Some(_) => lone_cr = true,
                    // Lone unless the next chunk starts with LF.
                    None => {
                        self.after_cr = true;
                        lone_cr = true;
                    }
                }
            }
            let line = std::mem::take(&mut self.line);
            self.line_ended(&line, emit);
            self.after_lone_cr = lone_cr;
            self.line = line;
            self.line.clear();
            rest = &rest[end + skip..];
        }
        self.extend_line(rest);
    }

    /// The end of the body: a last line without its line end, and a last
    /// frame without its blank line, still count.
    pub fn finish(&mut self, emit: &mut dyn FnMut(&[u8])) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_ended(&line, emit);
        }
        self.dispatch(emit);
    }

    /// Whether any line ended with CRLF.
    pub fn saw_crlf(&self) -> bool {
        self.saw_crlf
    }

    fn line_ended(&mut self, line: &[u8], emit: &mut dyn FnMut(&[u8])) {
        let cut = std::mem::take(&mut self.line_cut);
        if line.is_empty() {
            self.dispatch(emit);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                let room = self
                    .max_frame_bytes
                    .map_or(usize::MAX, |max| max.saturating_sub(self.data.len()));
                let separator = usize::from(self.has_data);
                if cut || separator + value.len() > room {
                    self.frame_cut = true;
                }
                if self.has_data && room > 0 {
                    self.data.push(b'\n');
                }
                let room = room.saturating_sub(separator);
                self.data.extend_from_slice(&value[..value.len().min(room)]);
                self.has_data = true;
            }
            b"event" | b"id" | b"retry" => {}
            // Not a field, after a lone CR inside a frame (`data: {…}\rJUNK`):
            // the SSE rules ignore it where it stands (a field of no known
            // name). Kept as an event, it came before the data of its own
            // frame and failed the run (issue 38).
            _ if self.after_lone_cr && self.has_data => {}
            // Not SSE: keep the line as an event so it is seen (R41).
            _ => {
                if cut {
                    self.num_truncated += 1;
                }
                emit(line);
            }
        }
    }

    fn dispatch(&mut self, emit: &mut dyn FnMut(&[u8])) {
        if self.has_data && !self.data.is_empty() {
            emit(&self.data);
            if self.frame_cut {
                self.num_truncated += 1;
            }
        }
        self.data.clear();
        self.has_data = false;
        self.frame_cut = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EventLog, Format};
    use super::*;

    fn read(text: &str) -> Stream {
        let mut stream = Stream {
            format: Format::Sse,
            events: EventLog::default(),
            diagnostics: Vec::new(),
            declared_profile: None,
            run_input: None,
        };
        read_sse(text.as_bytes(), &mut stream);
        stream
    }

    fn texts(stream: &Stream) -> Vec<String> {
        stream
            .events
            .iter()
            .map(|(_, raw)| String::from_utf8_lossy(raw).into_owned())
            .collect()
    }

    #[test]
    fn frames_join_data_lines_and_ignore_other_fields() {
        let stream = read(
            ": hello\nevent: message\nid: 1\nretry: 10\ndata: {\"a\":\ndata:1}\n\ndata: {\"b\":2}\n\n",
        );
        assert_eq!(texts(&stream), ["{\"a\":\n1}", "{\"b\":2}"]);
        assert!(stream.diagnostics.is_empty());
    }

    #[test]
    fn crlf_framing_is_accepted_with_an_info() {
        let stream = read("data: {\"a\":1}\r\n\r\ndata: {\"b\":2}\r\n\r\n");
        assert_eq!(texts(&stream), ["{\"a\":1}", "{\"b\":2}"]);
        assert_eq!(stream.diagnostics.len(), 1);
        assert_eq!(stream.diagnostics[0].code, Code::SseCrlf);
    }

    #[test]
    fn nothing_is_dropped_silently() {
        // An unknown field line becomes an event; an unterminated frame too.
        let stream = read("data: {\"a\":1}\n\ngarbage here\ndata: {\"b\":");
        assert_eq!(texts(&stream), ["{\"a\":1}", "garbage here", "{\"b\":"]);
    }

    #[test]
    fn chunks_may_split_anywhere() {
        let body = b"data: {\"a\":1}\r\n\r\n: c\r\ndata: x\r\ndata: y\r\n\r\nbad\rdata: z";
        let whole = read(std::str::from_utf8(body).expect("utf8"));
        for split in 0..=body.len() {
            let mut framer = SseFramer::default();
            let mut events: Vec<Vec<u8>> = Vec::new();
            framer.push(&body[..split], &mut |e| events.push(e.to_vec()));
            framer.push(&body[split..], &mut |e| events.push(e.to_vec()));
            framer.finish(&mut |e| events.push(e.to_vec()));
            let expected: Vec<Vec<u8>> = whole.events.iter().map(|(_, raw)| raw.to_vec()).collect();
            assert_eq!(events, expected, "split at {split}");
            assert!(framer.saw_crlf());
        }
    }

    #[test]
    fn a_bounded_framer_cuts_long_lines_and_frames() {
        // Issue 12: a line that never ends holds at most the bound.
        let mut framer = SseFramer::with_max_frame_bytes(10);
        let mut events: Vec<Vec<u8>> = Vec::new();
        framer.push(b"data: 0123456789abcdef", &mut |e| events.push(e.to_vec()));
        framer.push(&[b'x'; 1000], &mut |e| events.push(e.to_vec()));
        assert!(framer.line.len() <= 10 + FIELD_NAME_ROOM);
        framer.push(b"\n\ndata: ok\n\n", &mut |e| events.push(e.to_vec()));
        framer.push(b"data: 12345\ndata: 67890\n\n", &mut |e| {
            events.push(e.to_vec());
        });
        framer.finish(&mut |e| events.push(e.to_vec()));
        assert_eq!(events, [&b"0123456789"[..], b"ok", b"12345\n6789"]);
        assert_eq!(framer.num_truncated(), 2);
    }

    // Issue 38: a line that is not a field, after a lone CR inside a frame
    // (`data: {…}\rJUNKLINE`), came out as an event before the data of its
    // own frame and failed the run; the SSE rules ignore it where it
    // stands. After LF, or at a frame's start, it is still kept (R41).
    #[test]
    fn a_junk_line_after_a_lone_cr_inside_a_frame_is_ignored() {
        let body = b"data: {\"a\":1}\rJUNKLINE\n\ndata: {\"b\":2}\r\rJUNK2\n\ndata: x\nbad\n\n";
        let whole = read(std::str::from_utf8(body).expect("utf8"));
        assert_eq!(
            texts(&whole),
            ["{\"a\":1}", "{\"b\":2}", "JUNK2", "bad", "x"]
        );
        for split in 0..=body.len() {
            let mut framer = SseFramer::default();
            let mut events: Vec<Vec<u8>> = Vec::new();
            framer.push(&body[..split], &mut |e| events.push(e.to_vec()));
            framer.push(&body[split..], &mut |e| events.push(e.to_vec()));
            framer.finish(&mut |e| events.push(e.to_vec()));
            let expected: Vec<Vec<u8>> = whole.events.iter().map(|(_, raw)| raw.to_vec()).collect();
            assert_eq!(events, expected, "split at {split}");
        }
    }

    #[test]
    fn lone_cr_ends_lines() {
        let stream = read("data: 1\r\rdata: 2\r\r");
        assert_eq!(texts(&stream), ["1", "2"]);
    }
}
