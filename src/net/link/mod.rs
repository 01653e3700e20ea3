//! The byte stream under the frames: the TCP connection itself, or TLS
//! 1.3 over it between two tapebuf keys (`net::tls`), with its records
//! made in user space (rustls) or, where the kernel offers it, by the
//! kernel (`tls::ktls`).
//!
//! A private stream opens in three steps, each bounded by the handshake's
//! time limit (`--timeout`, else `accept::HEADER_WAIT`; `open.rs`):
//! 1. the TLS handshake, in which each side checks the other's key;
//! 2. the receiver's [`ACCEPT`], sent only once it has allowed the
//!    sender's key. In TLS 1.3 the sender's handshake is over before the
//!    receiver has judged its key, so without this word a refused sender
//!    would start sending into a connection the receiver is closing;
//! 3. the sender's stream header, inside TLS, then the frames.
//!
//! Nothing of the stream is sent before step 2, so whatever is refused is
//! refused before a byte of data is written. Each side hands its records
//! to the kernel right after step 2, when nothing of the other's is in
//! flight, or keeps them in rustls where the kernel has no `tls` module.

mod open;
mod sock;
mod stream;

pub use open::{open_as_receiver, open_as_sender};
pub use sock::Sock;
pub use stream::{dropped, AllowedSender, Link, ACCEPT};

#[cfg(test)]
mod tests;
