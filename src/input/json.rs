//! JSON lines, JSON arrays and vector documents.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::EventLog;

/// One event per line. Blank lines separate nothing and are skipped; a
/// trailing `\r` is JSON white space and stays with its line.
pub(super) fn read_lines(bytes: &[u8], events: &mut EventLog) {
    // The events are the file's bytes but its line ends: room for them all
    // at once, where growing copied them again and again.
    events.reserve_bytes(bytes.len());
    for line in event_lines(bytes) {
        events.push(&bytes[line]);
    }
}

/// [`read_lines`] of a buffer the caller gives up: each line is moved down
/// over the line ends and blank lines before it, so that the events take
/// no memory but the buffer's (issue 14: a 10M-event file was read into one
/// buffer and copied into another, and the machine's time went into
/// clearing the second's fresh pages).
pub(super) fn read_lines_in_place(mut bytes: Vec<u8>) -> EventLog {
    let mut ends = Vec::new();
    let mut packed = 0;
    // The lines of `event_lines`, found as they are moved: each is read
    // after every byte before it was written, never after.
    let mut start = bom_len(&bytes);
    while start <= bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |at| start + at);
        if !is_blank(&bytes[start..end]) {
            bytes.copy_within(start..end, packed);
            packed += end - start;
            ends.push(packed);
        }
        start = end + 1;
    }
    EventLog::from_packed(bytes, ends)
}

/// The length of the UTF-8 byte-order mark `bytes` start with, if any.
fn bom_len(bytes: &[u8]) -> usize {
    bytes.len() - super::strip_bom(bytes).len()
}

/// Where each event's line is in `bytes`: after a byte-order mark, every
/// line but those of white space alone.
pub(super) fn event_lines(bytes: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let from = bom_len(bytes);
    let mut start = from;
    bytes[from..]
        .split(|&b| b == b'\n')
        .map(move |line| {
            let range = start..start + line.len();
            start = range.end + 1;
            range
        })
        .filter(|range| !is_blank(&bytes[range.clone()]))
}

/// Whether a line is white space alone: it holds no event.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// JSON lines read from a file a chunk of events at a time (issue 40: an
/// import streams a file of any size in bounded memory): the events of
/// [`event_lines`] over the whole file, in order, in [`EventLog`]s of
/// about [`LineChunks::BLOCK`] bytes.
pub struct LineChunks<R> {
    reader: R,
    block: usize,
    /// Bytes read and not yet handed out: the start of a line.
    pending: Vec<u8>,
    at_start: bool,
    done: bool,
}

impl<R: std::io::Read> LineChunks<R> {
    /// How many bytes are read at a time.
    pub const BLOCK: usize = 1 << 20;

    /// The lines of `reader`, from its start.
    pub fn new(reader: R) -> Self {
        Self::with_block(reader, Self::BLOCK)
    }

    /// The lines of `reader`, read `block` bytes at a time.
    pub fn with_block(reader: R, block: usize) -> Self {
        Self {
            reader,
            block: block.max(1),
            pending: Vec::new(),
            at_start: true,
            done: false,
        }
    }

    /// Reads up to a block more; `false` at the end of the input.
    fn fill(&mut self) -> std::io::Result<bool> {
        let before = self.pending.len();
        self.pending.resize(before + self.block, 0);
        let mut read = 0;
        // A short read is not the end: read until the block is full or
        // the input ends.
        while before + read < self.pending.len() {
            match self.reader.read(&mut self.pending[before + read..]) {
                Ok(0) => break,
                Ok(n) => read += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.pending.truncate(before);
                    return Err(e);
                }
            }
        }
        self.pending.truncate(before + read);
        Ok(read > 0)
    }
}

impl<R: std::io::Read> Iterator for LineChunks<R> {
    type Item = std::io::Result<EventLog>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let more = match self.fill() {
                Ok(more) => more,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            if self.at_start {
                if more && self.pending.len() < 3 {
                    continue;
                }
                // The first three bytes hold the byte-order mark, if any.
                let bom = bom_len(&self.pending);
                self.pending.drain(..bom);
                self.at_start = false;
            }
            // The complete lines, or at the end every line.
            let end = if more {
                match self.pending.iter().rposition(|&b| b == b'\n') {
                    Some(at) => at + 1,
                    None => continue,
                }
            } else {
                self.done = true;
                self.pending.len()
            };
            let mut events = EventLog::default();
            let whole = &self.pending[..end];
            events.reserve_bytes(whole.len());
            for line in whole.split(|&b| b == b'\n').filter(|line| !is_blank(line)) {
                events.push(line);
            }
            self.pending.drain(..end);
            if !events.is_empty() {
                return Some(Ok(events));
            }
        }
        None
    }
}

/// How many events [`LineChunks`] reads from `reader` (its lines that are
/// not white space alone), counted without keeping them.
pub fn count_lines(mut reader: impl std::io::Read) -> std::io::Result<u64> {
    use std::io::Read as _;
    let mut count = 0;
    let mut in_event = false;
    let mut count_in = |bytes: &[u8]| {
        for &b in bytes {
            if b == b'\n' {
                count += u64::from(in_event);
                in_event = false;
            } else if !b.is_ascii_whitespace() {
                in_event = true;
            }
        }
    };
    // The first three bytes, which hold the byte-order mark, if any.
    let mut head = Vec::with_capacity(3);
    (&mut reader).take(3).read_to_end(&mut head)?;
    count_in(&head[bom_len(&head)..]);
    let mut block = vec![0; 1 << 20];
    loop {
        match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => count_in(&block[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(count + u64::from(in_event))
}

/// A JSON array of events, read element by element so that a truncated or
/// damaged array still yields every element before the damage; the rest of
/// the text becomes one more event, which the replay reports as unparseable.
///
/// A byte that is not UTF-8 costs only the element that holds it (issue
/// 12): the array is framed on a copy where each such byte is a `?`, and
/// every element is kept as its original bytes, so the damaged one reaches
/// the replay as it was and is reported as unparseable.
pub(super) fn read_array(bytes: &[u8], events: &mut EventLog) {
    let repaired;
    let whole = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => {
            repaired = with_invalid_bytes_replaced(bytes);
            repaired.as_str()
        }
    };
    let mut framed = Framed::default();
    frame_array(whole, &mut framed);
    for part in framed.0 {
        // The original bytes of the part (`whole` has the same length).
        let start = part.as_ptr() as usize - whole.as_ptr() as usize;
        match bytes.get(start..start + part.len()) {
            Some(original) => events.push(original),
            None => events.push(part.as_bytes()),
        };
    }
}

/// The parts of an array's text that become events, in order.
#[derive(Default)]
struct Framed<'a>(Vec<&'a str>);

impl<'a> Framed<'a> {
    fn push(&mut self, part: &'a str) {
        self.0.push(part);
    }
}

/// `bytes` with each byte of an invalid UTF-8 sequence replaced by `?`:
/// the same length, the same JSON structure.
fn with_invalid_bytes_replaced(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad = error.error_len().unwrap_or(after.len());
                out.extend(std::iter::repeat_n('?', bad));
                rest = &after[bad..];
            }
        }
    }
}

fn frame_array<'a>(text: &'a str, events: &mut Framed<'a>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).trim_start();
    let Some(mut rest) = text.strip_prefix('[') else {
        push_rest(text, events);
        return;
    };
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return;
        }
        if let Some(after) = rest.strip_prefix(']') {
            push_rest(after, events);
            return;
        }
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<&RawValue>();
        match values.next() {
            Some(Ok(raw)) => {
                events.push(raw.get());
                rest = rest[values.byte_offset()..].trim_start();
            }
            _ => {
                push_rest(rest, events);
                return;
            }
        }
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with(']') {
            push_rest(rest, events);
            return;
        }
    }
}

/// Keeps text that is not part of an element as one more event, unless it
/// is only white space.
fn push_rest<'a>(rest: &'a str, events: &mut Framed<'a>) {
    let rest = rest.trim();
    if !rest.is_empty() {
        events.push(rest);
    }
}

#[derive(Deserialize)]
struct VectorDocument<'a> {
    #[serde(borrow)]
    events: Vec<&'a RawValue>,
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    input: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Whether the bytes are a vector document (an object with `events`).
pub(super) fn is_vector(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| serde_json::from_str::<VectorDocument<'_>>(text).ok())
        .is_some()
}

/// What a vector document declares besides its events: its profile, and
/// the run input of step 0.
type Declared = (Option<String>, Option<serde_json::Value>);

/// A conformance vector: its events, the profile and run input it declares.
pub(super) fn read_vector(text: &str, events: &mut EventLog) -> Result<Declared, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let document: VectorDocument<'_> =
        serde_json::from_str(text).map_err(|e| format!("not a vector document ({e})"))?;
    for raw in document.events {
        events.push(raw.get().as_bytes());
    }
    Ok((
        document.profile,
        document.input.map(serde_json::Value::Object),
    ))
}

/// JSON text without the whitespace between its tokens: members, their
/// order and every string and number stay exactly as written, and an
/// event spread over lines (a vector's) sits on one line of the fixture.
pub fn without_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(events: &EventLog) -> Vec<String> {
        events
            .iter()
            .map(|(_, raw)| String::from_utf8_lossy(raw).into_owned())
            .collect()
    }

    /// Issue 14: lines read in place are the lines `read_lines` copies.
    #[test]
    fn lines_read_in_place_are_the_lines_copied() {
        let inputs: [&[u8]; 9] = [
            b"",
            b"\n",
            b"{\"a\":1}",
            b"{\"a\":1}\n",
            b"{\"a\":1}\r\n\n  \nnot json\n{\"b\":2}",
            b"\xEF\xBB\xBF{\"a\":1}\n\n{\"b\":22}\n \t\r\n",
            b"\xEF\xBB\xBF",
            b"\n\n\nx\n\n\ny\xff\n",
            b"  {\"a\":1}  \n\t{}\t",
        ];
        for input in inputs {
            let mut copied = EventLog::default();
            read_lines(input, &mut copied);
            let in_place = read_lines_in_place(input.to_vec());
            assert_eq!(in_place, copied, "{:?}", String::from_utf8_lossy(input));
            assert_eq!(in_place.num_bytes(), copied.num_bytes());
        }
    }

    /// Issue 40: the lines read a chunk at a time, whatever the chunks'
    /// size, are the lines read at once, and counted alike.
    #[test]
    fn lines_read_in_chunks_are_the_lines_read_at_once() {
        let inputs: [&[u8]; 7] = [
            b"",
            b"{\"a\":1}",
            b"{\"a\":1}\r\n\n  \nnot json\n{\"b\":2}",
            b"\xEF\xBB\xBF{\"a\":1}\n\n{\"b\":22}\n \t\r\n",
            b"\xEF\xBB\xBF",
            b"\n\n\nx\n\n\ny\xff\n",
            b"  {\"a\":1}  \n\t{}\t",
        ];
        for input in inputs {
            let mut whole = EventLog::default();
            read_lines(input, &mut whole);
            for block in [1, 2, 3, 5, 8, 64] {
                let mut chunked = EventLog::default();
                for chunk in LineChunks::with_block(input, block) {
                    for (_, raw) in chunk.expect("read").iter() {
                        chunked.push(raw);
                    }
                }
                assert_eq!(
                    texts(&chunked),
                    texts(&whole),
                    "{:?} by {block}",
                    String::from_utf8_lossy(input)
                );
            }
            assert_eq!(count_lines(input).expect("read"), whole.len() as u64);
        }
    }

    #[test]
    fn lines_skip_blank_lines_and_keep_bad_ones() {
        let mut events = EventLog::default();
        read_lines(b"{\"a\":1}\r\n\n  \nnot json\n{\"b\":2}", &mut events);
        assert_eq!(texts(&events), ["{\"a\":1}\r", "not json", "{\"b\":2}"]);
    }

    #[test]
    fn array_elements_keep_their_raw_text() {
        let mut events = EventLog::default();
        read_array(b"[ {\"a\": 1} ,{\"b\":[2, 3]}, 7 ]", &mut events);
        assert_eq!(texts(&events), ["{\"a\": 1}", "{\"b\":[2, 3]}", "7"]);
    }

    #[test]
    fn a_truncated_array_keeps_what_came_before_the_damage() {
        let mut events = EventLog::default();
        read_array(b"[{\"a\":1}, {\"b\":", &mut events);
        assert_eq!(texts(&events), ["{\"a\":1}", "{\"b\":"]);
        let mut events = EventLog::default();
        read_array(b"[{\"a\":1}] trailing", &mut events);
        assert_eq!(texts(&events), ["{\"a\":1}", "trailing"]);
        let mut events = EventLog::default();
        read_array(b"[{\"a\":1} {\"b\":2}]", &mut events);
        assert_eq!(texts(&events), ["{\"a\":1}", "{\"b\":2}]"]);
    }

    #[test]
    fn vector_documents_give_events_and_profile() {
        let mut events = EventLog::default();
        let (profile, _) = read_vector(
            r#"{"name":"x","profile":"ag-ui-client-1.0","events":[{"type":"RUN_STARTED"}],"expect":{}}"#,
            &mut events,
        )
        .expect("vector");
        assert_eq!(profile.as_deref(), Some("ag-ui-client-1.0"));
        assert_eq!(texts(&events), [r#"{"type":"RUN_STARTED"}"#]);
    }
}
