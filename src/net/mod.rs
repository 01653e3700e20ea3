//! TCP endpoints: `-I` listens for one sender, `-O` connects to receivers.
//!
//! `addr` parses the names users type, `allow` decides which senders a
//! listener accepts, `foreign_host` reads `-I HOST:PORT` as mbuffer does
//! when HOST is not this machine's, `accept` finds the one sender among
//! everything else that connects, `frame` is the wire format that makes
//! truncation and damage detectable, `tls` and `link` make it private
//! between keys, `facts` is what the summary says of a stream, and
//! `socket` makes, tunes and waits on the sockets so that no wait on a
//! peer is unbounded without a way out.

pub mod accept;
pub mod accept_one;
pub mod activation;
pub mod addr;
pub mod allow;
pub mod facts;
pub mod foreign_host;
pub mod frame;
pub mod link;
pub mod socket;
pub mod tls;

pub use addr::{Family, ListenAddr, PeerAddr};
pub use allow::AllowRule;

use std::time::Duration;

/// How long a sender keeps trying to reach its receiver by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// The network settings of one run, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetSettings {
    /// `--timeout`: the longest a stream may stand still, in either
    /// direction, before the run fails.
    pub stall: Option<Duration>,
    /// How long `-O` keeps retrying and `-I` waits for a sender. None:
    /// `-I` waits until stopped (the sender's default: `connect_limit`).
    pub connect: Option<Duration>,
    /// `--resume-timeout`: how long `-O` tries to connect again after its
    /// connection dropped, and `-I` holds the stream open for it. None: a
    /// dropped connection ends the stream.
    pub resume: Option<Duration>,
    /// `--tcp-buffer`: SO_SNDBUF and SO_RCVBUF, before connect or listen.
    pub buffer_bytes: Option<usize>,
    /// `--raw`: with -O, send no framing, for mbuffer, nc and socat
    /// receivers; with -I, take every sender's bytes as they come, even
    /// bytes that begin like a tapebuf header.
    pub raw: bool,
    /// The largest block a framed sender may announce to `-I`: the
    /// receiver's `-m`. A larger one is refused before anything is
    /// allocated for it. None: up to `frame::MAX_FRAME`.
    pub sender_block_limit_bytes: Option<u64>,
    /// `--allow`: the senders `-I` accepts; empty accepts every one.
    pub allow: Vec<AllowRule>,
    /// `-4` or `-6`: the one address family to use; None for both.
    pub family: Option<Family>,
    /// `--key` and its company: TLS 1.3 between tapebuf keys; None for
    /// plain TCP.
    pub tls: Option<tls::TlsSettings>,
}

impl NetSettings {
    /// How long `-O` keeps trying to reach its receiver.
    pub fn connect_limit(&self) -> Duration {
        self.connect.unwrap_or(DEFAULT_CONNECT_TIMEOUT)
    }
}
