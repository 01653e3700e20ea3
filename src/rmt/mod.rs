//! Remote tapes over the rmt protocol: the protocol itself (`protocol/`,
//! the one grammar the client and the `tapebuf rmt` server share), remote
//! names, and the pipelined client that `-i host:path` and `-o host:path`
//! use. The server is a command of its own (`rmt_server/`).
//!
//! The client never waits for one block's reply before sending the next:
//! a bounded window of W requests is in flight, and a separate thread reads
//! the replies, so the link's round trip is paid once per window and not
//! once per block. Every reply is matched to its block, so the bytes the
//! server committed are always known exactly.

pub mod flavor;
pub mod name;
mod path_check;
pub mod protocol;
pub mod remote;
pub mod session;
pub mod shell_guard;
pub mod window;
