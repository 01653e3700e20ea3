//! The rmt protocol, one grammar for both sides: the [`Request`] and
//! [`Reply`] types, each encoded and read back in one place. The client
//! (`rmt/session`, `rmt/remote`) encodes requests (`request.rs`) and reads
//! replies (`read_reply.rs`); the server (`rmt_server/`) reads requests
//! (`read_request.rs`) and sends replies (`reply.rs`). Decimal numbers,
//! on both sides, are read by `number.rs`.
//!
//! Invariant: every request the client encodes is read by the server as
//! the same value, and every reply the server sends is read by the client
//! as the same value (`round_trip_tests.rs`). Each reader is strict and
//! bounded on its own side: the server never reads an argument past its
//! limit ([`MAX_PATH_BYTES`], [`MAX_NUMBER_BYTES`], [`MAX_FLAGS_BYTES`],
//! [`MAX_RECORD_BYTES`]), the client never a reply line past
//! [`MAX_LINE_BYTES`] nor more data than it asked for.

pub mod number;
mod read_reply;
mod read_request;
mod reply;
mod request;

pub use read_reply::{printable, read_reply, Expect, ReplyError, MAX_LINE_BYTES, MAX_STATUS_BYTES};
pub use read_request::{
    read_request, ReadError, Rejection, MAX_FLAGS_BYTES, MAX_NUMBER_BYTES, MAX_PATH_BYTES,
};
pub use reply::{send_bytes, strerror, Reply, END_OF_MEDIUM_ERRNO};
pub use request::{Request, RequestError, MAX_RECORD_BYTES};

#[cfg(test)]
mod round_trip_tests;
