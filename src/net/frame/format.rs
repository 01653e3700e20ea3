//! The fixed parts of the framed stream: the header a sender opens with,
//! the sizes and markers the reader and the writer share, and the errors
//! that say how a stream differs from what was sent. `classify` tells a
//! framed stream from a raw one by its first bytes alone.

use std::io;

/// The first bytes of a framed stream. The high byte makes it unlikely to
/// begin a tar, cpio, dump or zfs stream, which a raw sender would send.
pub const MAGIC: [u8; 8] = *b"\x89TAPEBUF";
/// The only version this build speaks.
pub const VERSION: u8 = 1;
pub const HEADER_LEN: usize = 16;
pub(super) const FRAME_HEAD_LEN: usize = 12;
pub(super) const TRAILER_LEN: usize = 24;
/// The largest frame: the largest block (-s).
pub const MAX_FRAME: u32 = 1 << 31;
/// The end marker of a stream whose sender stopped before its input ended.
/// Larger than `MAX_FRAME`, so a receiver that predates it fails too.
pub(super) const ABORT_MARK: u32 = u32::MAX;

/// Why a framed stream is not what the sender sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("the connection ended after {at} bytes without tapebuf's end-of-stream trailer: the sender stopped early (killed, crashed or cut off) and the stream is truncated")]
    Truncated { at: u64 },
    #[error(
        "the {len}-byte frame at byte {at} fails its checksum: the stream was damaged in transit"
    )]
    Corrupt { at: u64, len: u32 },
    #[error("a frame header at byte {at} claims {len} bytes, more than any block: the stream is damaged")]
    BadLength { at: u64, len: u32 },
    #[error("the trailer does not match what arrived ({why}): the stream is damaged")]
    BadTrailer { why: String },
    #[error("the sender speaks tapebuf stream version {0}; this tapebuf knows version {VERSION}")]
    Version(u8),
    #[error("the stream header has flags {0:#04x}, which this tapebuf does not know")]
    Flags(u8),
    #[error("the sender stopped before the end of its input, after {at} bytes (it was interrupted, stopped by its watchdog, or its input failed): the stream is incomplete")]
    Aborted { at: u64 },
}

impl From<FrameError> for io::Error {
    fn from(e: FrameError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

/// The block size a header announces (the largest frame that follows).
pub fn announced_block_bytes(header: &[u8; HEADER_LEN]) -> u32 {
    u32::from_be_bytes(header[12..].try_into().expect("4 bytes"))
}

/// The header flag of a stream whose frames carry no checksum (0 in its
/// place): only inside TLS, whose records each carry an authentication
/// tag that checks every byte. The trailer still counts bytes and frames.
pub const UNSUMMED: u8 = 0x01;

/// The header flag of a stream that can be resumed: a session record
/// (`session::Hello`) follows the header, the receiver answers it
/// (`Reply::At` or `Reply::No`) and then acknowledges every frame it holds
/// (`Reply::Ack`), so the sender can send again from there on a new
/// connection.
pub const RESUMABLE: u8 = 0x02;

/// Every flag this build knows.
const KNOWN_FLAGS: u8 = UNSUMMED | RESUMABLE;

/// The flags a header announces.
pub fn announced_flags(header: &[u8; HEADER_LEN]) -> u8 {
    header[9]
}

/// The stream header for a sender with this block size.
pub fn header(block_bytes: u32) -> [u8; HEADER_LEN] {
    header_with(block_bytes, 0)
}

/// The stream header with `flags` (`UNSUMMED`).
pub fn header_with(block_bytes: u32, flags: u8) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[8] = VERSION;
    h[9] = flags;
    h[12..].copy_from_slice(&block_bytes.to_be_bytes());
    h
}

/// What the first bytes of a connection say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// A whole tapebuf header: the rest is frames.
    Framed,
    /// Bytes that cannot begin a tapebuf header (mbuffer, nc, socat, or a
    /// stranger): data, if raw streams are allowed.
    Raw,
    /// Nothing yet, or the start of a header: more bytes are needed. A
    /// connection that ends here sent no stream at all.
    Incomplete,
}

/// Classifies the first bytes of a connection.
pub fn classify(first: &[u8]) -> Result<Opening, FrameError> {
    let magic = first.len().min(MAGIC.len());
    if first[..magic] != MAGIC[..magic] {
        return Ok(Opening::Raw);
    }
    if first.len() < HEADER_LEN {
        return Ok(Opening::Incomplete);
    }
    match (first[8], first[9] & !KNOWN_FLAGS) {
        (VERSION, 0) => Ok(Opening::Framed),
        (VERSION, _) => Err(FrameError::Flags(first[9])),
        (v, _) => Err(FrameError::Version(v)),
    }
}
