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
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.windows(2).any(|w| w == b"\r\n") {
        stream.diagnostics.push(Diagnostic::new(
            Seq::START,
            Code::SseCrlf,
            "the SSE body is framed with CRLF line ends; accepted",
        ));
    }
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    for line in lines(bytes) {
        if line.is_empty() {
            dispatch(&mut data, &mut has_data, stream);
            continue;
        }
        if line[0] == b':' {
            continue;
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
                if has_data {
                    data.push(b'\n');
                }
                data.extend_from_slice(value);
                has_data = true;
            }
            b"event" | b"id" | b"retry" => {}
            _ => {
                // Not SSE: keep the line as an event so it is seen (R41).
                stream.events.push(line);
            }
        }
    }
    dispatch(&mut data, &mut has_data, stream);
}

fn dispatch(data: &mut Vec<u8>, has_data: &mut bool, stream: &mut Stream) {
    if *has_data && !data.is_empty() {
        stream.events.push(data);
    }
    data.clear();
    *has_data = false;
}

/// Splits on LF, CRLF or a lone CR, without the line ends.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(end) => {
                let line = &rest[..end];
                let skip = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                rest = &rest[end + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = &[];
                Some(line)
            }
        }
    })
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
    fn lone_cr_ends_lines() {
        let stream = read("data: 1\r\rdata: 2\r\r");
        assert_eq!(texts(&stream), ["1", "2"]);
    }
}
