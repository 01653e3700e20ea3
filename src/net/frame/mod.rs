//! The framed stream that tapebuf sends over TCP, so that a receiver can
//! tell a finished stream from a truncated or damaged one. Plain TCP cannot:
//! a killed sender and a finished one both close with FIN.
//!
//! All integers are big-endian.
//!
//! ```text
//! header   16 bytes  "\x89TAPEBUF", version 1, flags, 2 reserved bytes,
//!                    the sender's block size (u32)
//! frame    12 bytes  length (u32, 1 ..= 2^31), XXH3-64 of the data (u64),
//!                    or 0 under the UNSUMMED flag, then the data
//! end      4 bytes   length 0 when the sender's input ended, or
//!                    0xFFFFFFFF when the sender stopped early (a signal,
//!                    its watchdog, an input failure)
//! trailer  24 bytes  total data bytes (u64), frame count (u64), XXH3-64
//!                    of every frame's checksum in order (u64)
//! reply    16 bytes  receiver to sender: "TBUF-OK\0" and the byte count,
//!                    or "TBUF-BAD" and the offset of the damage
//! ```
//!
//! A resumable stream (header flag `RESUMABLE`, 0x02) adds a session
//! record after the header (`session`), which the receiver answers with
//! "TBUF-AT\0" and the byte to send from, or "TBUF-NO\0" and why not;
//! then, as each frame arrives whole, "TBUF-ACK" and the bytes it holds.
//! A sender whose connection drops connects again, sends the header and
//! the same session, and sends again from the byte the answer names.
//!
//! Each frame is one block, checked as it arrives, so damage is named by
//! its byte offset. A sender that stops early still closes the stream in
//! order, but with the abort marker: the receiver then knows the bytes it
//! kept are intact and that the stream is incomplete, and fails. The reply
//! tells the sender that every byte arrived intact; it does not say the
//! receiver's outputs have committed them.
//! None of this is encryption or authentication. Inside TLS
//! (`net::link`) the sender sets the header's `UNSUMMED` flag (0x01) and
//! sends 0 for each frame's checksum: every TLS record carries a tag that
//! checks its bytes, so XXH3 would check them twice. A receiver takes the
//! flag only inside TLS. Any other flag is refused.
//!
//! `format` holds the header and the shared sizes and errors, `writer` the
//! sender's side, `reader` the receiver's, and `reply` the answer that
//! closes the stream.

mod format;
mod reader;
mod reply;
mod session;
mod writer;

pub use format::{
    announced_block_bytes, announced_flags, classify, header, header_with, FrameError, Opening,
    HEADER_LEN, MAGIC, MAX_FRAME, RESUMABLE, UNSUMMED, VERSION,
};
pub use reader::FramedReader;
pub use reply::{
    parse_reply, reply_bad, reply_go_on, reply_held, reply_ok, reply_refused, Refused, Reply,
    REPLY_LEN,
};
pub use session::{Hello, SessionId, SESSION_LEN};
pub use writer::FramedWriter;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod resume_tests;
