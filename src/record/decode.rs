//! Decoding a response body's `Content-Encoding` (gzip, deflate, br) for
//! what a recording stores: the events are framed from the decoded bytes,
//! while the client still receives the bytes the agent sent (issue 12).

use std::io::Write;

/// How much one chunk of a body may decode to: no real event stream comes
/// near it, a compression bomb does (its expansion is refused, not held in
/// memory).
pub const MAX_DECODED_CHUNK_BYTES: usize = 64 * 1024 * 1024;

/// Why a body could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// A coding this build does not decode.
    #[error("the body's Content-Encoding `{0}` is not one agui-replay decodes (gzip, deflate, br)")]
    Unsupported(String),
    /// The bytes are not what the coding says.
    #[error("the body is not valid {coding}")]
    Invalid {
        /// The coding.
        coding: &'static str,
        /// What the decoder said.
        #[source]
        source: std::io::Error,
    },
    /// One chunk decodes to more than [`MAX_DECODED_CHUNK_BYTES`].
    #[error(
        "one chunk of the {coding} body decodes to more than {MAX_DECODED_CHUNK_BYTES} bytes (a compression bomb?)"
    )]
    TooLarge {
        /// The coding.
        coding: &'static str,
    },
}

/// Where a decoder writes: bounded, drained after each chunk.
#[derive(Default)]
struct Sink {
    out: Vec<u8>,
    over: bool,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.out.len() + buf.len() > MAX_DECODED_CHUNK_BYTES {
            self.over = true;
            return Err(std::io::Error::other("decoded chunk too large"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One coding's decoder.
enum Stage {
    Gzip(Box<flate2::write::MultiGzDecoder<Sink>>),
    /// `deflate` as RFC 9110 says (zlib), or raw deflate as some servers
    /// send it: told apart by the first two bytes, kept until they come.
    DeflateStart(Vec<u8>),
    Zlib(Box<flate2::write::ZlibDecoder<Sink>>),
    RawDeflate(Box<flate2::write::DeflateDecoder<Sink>>),
    Brotli(Box<brotli::DecompressorWriter<Sink>>),
}

impl Stage {
    fn coding(&self) -> &'static str {
        match self {
            Self::Gzip(_) => "gzip",
            Self::DeflateStart(_) | Self::Zlib(_) | Self::RawDeflate(_) => "deflate",
            Self::Brotli(_) => "br",
        }
    }

    fn sink(&mut self) -> Option<&mut Sink> {
        match self {
            Self::Gzip(d) => Some(d.get_mut()),
            Self::Zlib(d) => Some(d.get_mut()),
            Self::RawDeflate(d) => Some(d.get_mut()),
            Self::Brotli(d) => Some(d.get_mut()),
            Self::DeflateStart(_) => None,
        }
    }

    fn error(&mut self, source: std::io::Error) -> DecodeError {
        let coding = self.coding();
        if self.sink().is_some_and(|sink| sink.over) {
            DecodeError::TooLarge { coding }
        } else {
            DecodeError::Invalid { coding, source }
        }
    }

    /// Decodes `input`, returning what it decodes to so far.
    fn push(&mut self, input: &[u8]) -> Result<Vec<u8>, DecodeError> {
        if let Self::DeflateStart(start) = self {
            start.extend_from_slice(input);
            if start.len() < 2 {
                return Ok(Vec::new());
            }
            let start = std::mem::take(start);
            let zlib =
                start[0] & 0x0f == 8 && (u16::from(start[0]) << 8 | u16::from(start[1])) % 31 == 0;
            *self = if zlib {
                Self::Zlib(Box::new(flate2::write::ZlibDecoder::new(Sink::default())))
            } else {
                Self::RawDeflate(Box::new(
                    flate2::write::DeflateDecoder::new(Sink::default()),
                ))
            };
            return self.push(&start);
        }
        let written = match self {
            Self::Gzip(d) => d.write_all(input),
            Self::Zlib(d) => d.write_all(input),
            Self::RawDeflate(d) => d.write_all(input),
            Self::Brotli(d) => d.write_all(input),
            Self::DeflateStart(_) => Ok(()),
        };
        written.map_err(|e| self.error(e))?;
        Ok(self
            .sink()
            .map(|s| std::mem::take(&mut s.out))
            .unwrap_or_default())
    }

    /// The end of the body: what is still held.
    fn finish(&mut self) -> Result<Vec<u8>, DecodeError> {
        if let Self::DeflateStart(start) = self
            && !start.is_empty()
        {
            let start = std::mem::take(start);
            *self = Self::RawDeflate(Box::new(
                flate2::write::DeflateDecoder::new(Sink::default()),
            ));
            let mut out = self.push(&start)?;
            out.extend(self.finish()?);
            return Ok(out);
        }
        let finished = match self {
            Self::Gzip(d) => d.try_finish(),
            Self::Zlib(d) => d.try_finish(),
            Self::RawDeflate(d) => d.try_finish(),
            Self::Brotli(d) => d.flush(),
            Self::DeflateStart(_) => Ok(()),
        };
        finished.map_err(|e| self.error(e))?;
        Ok(self
            .sink()
            .map(|s| std::mem::take(&mut s.out))
            .unwrap_or_default())
    }
}

/// Decodes a body chunk by chunk, as its `Content-Encoding` says (codings
/// applied in the order listed, so undone in reverse).
#[derive(Default)]
pub struct BodyDecoder {
    /// In the order the bytes go through them.
    stages: Vec<Stage>,
}

impl BodyDecoder {
    /// The decoder for a `Content-Encoding` header value (`None`, empty or
    /// `identity`: the bytes as they are).
    pub fn for_encoding(header: Option<&str>) -> Result<Self, DecodeError> {
        let mut stages = Vec::new();
        for coding in header.unwrap_or("").split(',').rev() {
            let coding = coding.trim().to_ascii_lowercase();
            stages.push(match coding.as_str() {
                "" | "identity" => continue,
                "gzip" | "x-gzip" => Stage::Gzip(Box::new(flate2::write::MultiGzDecoder::new(
                    Sink::default(),
                ))),
                "deflate" => Stage::DeflateStart(Vec::new()),
                "br" => Stage::Brotli(Box::new(brotli::DecompressorWriter::new(
                    Sink::default(),
                    4096,
                ))),
                _ => return Err(DecodeError::Unsupported(coding)),
            });
        }
        Ok(Self { stages })
    }

    /// Whether the bytes are decoded at all (not `identity`).
    pub fn is_identity(&self) -> bool {
        self.stages.is_empty()
    }

    /// What a chunk decodes to (maybe nothing yet: decoders hold bytes).
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<u8>, DecodeError> {
        let mut bytes = chunk.to_vec();
        for stage in &mut self.stages {
            bytes = stage.push(&bytes)?;
        }
        Ok(bytes)
    }

    /// The end of the body: what the decoders still held.
    pub fn finish(&mut self) -> Result<Vec<u8>, DecodeError> {
        let mut bytes = Vec::new();
        for stage in &mut self.stages {
            let mut out = stage.push(&bytes)?;
            out.extend(stage.finish()?);
            bytes = out;
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &[u8] = b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";

    fn decode_in_pieces(decoder: &mut BodyDecoder, encoded: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in encoded.chunks(3) {
            out.extend(decoder.push(piece).expect("decodes"));
        }
        out.extend(decoder.finish().expect("ends"));
        out
    }

    #[test]
    fn gzip_deflate_and_brotli_decode_across_chunks() {
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(TEXT).expect("gzip");
        let gzip = gzip.finish().expect("gzip");
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zlib.write_all(TEXT).expect("zlib");
        let zlib = zlib.finish().expect("zlib");
        let mut raw =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(TEXT).expect("deflate");
        let raw = raw.finish().expect("deflate");
        let mut br = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
        br.write_all(TEXT).expect("br");
        let br = br.into_inner();
        for (header, encoded) in [
            ("gzip", &gzip),
            ("deflate", &zlib),
            ("deflate", &raw),
            ("br", &br),
        ] {
            let mut decoder = BodyDecoder::for_encoding(Some(header)).expect("known");
            assert_eq!(decode_in_pieces(&mut decoder, encoded), TEXT, "{header}");
        }
        let mut identity = BodyDecoder::for_encoding(Some("identity")).expect("known");
        assert!(identity.is_identity());
        assert_eq!(decode_in_pieces(&mut identity, TEXT), TEXT);
        assert!(matches!(
            BodyDecoder::for_encoding(Some("zstd")),
            Err(DecodeError::Unsupported(_))
        ));
        let mut bad = BodyDecoder::for_encoding(Some("gzip")).expect("known");
        assert!(bad.push(b"not gzip at all").is_err());
    }
}
