//! How a TCP sender reaches its receiver, the first time and again after
//! a dropped connection (`Dial`): connect within a limit, tune the socket,
//! open the link (TLS with `--key`), send the header with this run's
//! flags. And what a resumable sender keeps of each block it sent (`Kept`).

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use crate::base::block::BlockRef;
use crate::base::sync::lock;
use crate::keys::Fingerprint;
use crate::net::accept::HEADER_WAIT;
use crate::net::frame::{self, FramedWriter, RESUMABLE, UNSUMMED};
use crate::net::link::{self, Link};
use crate::net::socket::{self, Timed};
use crate::net::{NetSettings, PeerAddr};

/// A block sent and kept until the receiver holds it.
pub enum Kept {
    /// The ring's own block, lent to this output.
    Ring(BlockRef),
    /// A copy, where other outputs share the ring.
    Copy(Vec<u8>),
}

impl Kept {
    pub fn data(&self) -> &[u8] {
        match self {
            Kept::Ring(b) => b.data(),
            Kept::Copy(v) => v,
        }
    }
}

/// How to reach the receiver, the first time and again.
pub struct Dial {
    peer: PeerAddr,
    pub(super) settings: NetSettings,
    pub(super) block: u32,
    receiver_key: Mutex<Option<Fingerprint>>,
}

impl Dial {
    /// The way to `peer`, with its own pin where the `receivers` file
    /// gave each `-O` one.
    pub fn new(peer: &PeerAddr, settings: &NetSettings, block_bytes: usize) -> Dial {
        let tls = (settings.tls.as_ref()).map(|t| t.for_peer(peer));
        Dial {
            peer: peer.clone(),
            settings: NetSettings {
                tls,
                ..settings.clone()
            },
            block: u32::try_from(block_bytes).unwrap_or(frame::MAX_FRAME),
            receiver_key: Mutex::new(None),
        }
    }

    /// Connects within `limit` (retrying, `retrying` hears why) and tunes
    /// the socket.
    pub fn connect(
        &self,
        limit: Duration,
        retrying: impl FnMut(&str),
    ) -> anyhow::Result<(Timed, SocketAddr, Option<String>)> {
        let peer = &self.peer;
        let (stream, addr, warning) = socket::connect(peer, &self.settings, limit, retrying)
            .map_err(|e| anyhow::anyhow!("-O {peer}: {e}"))?;
        socket::tune(&stream, &self.settings)
            .map_err(|e| anyhow::anyhow!("-O {peer}: cannot set socket options: {e}"))?;
        Ok((Timed::new(stream, &self.settings), addr, warning))
    }

    /// The link over a connection: TLS with `--key` (the handshake and
    /// the receiver's acceptance, within `limit`), else the connection
    /// itself.
    pub(super) fn link(&self, timed: Timed, limit: Duration) -> Result<Link, String> {
        match &self.settings.tls {
            None => Ok(Link::Plain(timed)),
            Some(keys) => {
                let (link, key) = link::open_as_sender(timed, keys, limit, self.settings.stall)?;
                *lock(&self.receiver_key) = Some(key);
                Ok(link)
            }
        }
    }

    /// The key the receiver proved it holds in the last handshake: its
    /// pin, or under `--ca` whatever key its certificate carries.
    pub fn receiver_key(&self) -> Option<Fingerprint> {
        *lock(&self.receiver_key)
    }

    /// How long the opening of a stream may take: `--timeout`, else
    /// `accept::HEADER_WAIT`.
    pub(super) fn opening_limit(&self) -> Duration {
        self.settings.stall.unwrap_or(HEADER_WAIT)
    }

    /// The header's flags: no frame sums inside TLS, whose records' tags
    /// check every byte; resumable with `--resume-timeout`.
    pub(super) fn flags(&self, link: &Link) -> u8 {
        let unsummed = if link.is_private() { UNSUMMED } else { 0 };
        let resumable = match self.settings.resume {
            Some(_) => RESUMABLE,
            None => 0,
        };
        unsummed | resumable
    }

    /// The framed stream over a new connection: the link, then the header.
    pub fn framed(&self, timed: Timed) -> Result<FramedWriter<Link>, String> {
        let link = self.link(timed, self.opening_limit())?;
        let flags = self.flags(&link);
        FramedWriter::start_with(link, self.block, flags)
            .map_err(|e| format!("sending the stream header failed: {e}"))
    }
}
