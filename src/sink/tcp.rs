//! `-O HOST:PORT`: a TCP receiver as an output.
//!
//! The connection is made at start (see `net::socket::connect` for the
//! retries). By default the stream is framed (`net::frame`): each block is
//! a checked frame, and `finish` sends the trailer, half-closes, and waits
//! for the receiver's reply, so a run ends in success only when the
//! receiver has every byte intact. A run that stops before the end of its
//! input (a signal, the watchdog, an input failure) ends the stream with
//! the abort marker instead (`finish_early`), so the receiver fails rather
//! than take a short stream for a whole one. `--raw` sends the bytes alone, for
//! mbuffer, nc and socat receivers; then nothing can tell the receiver
//! whether the stream ended early. A framed sender that gets no reply says
//! so, and how to talk to a raw receiver (`RAW_HINT`).

use std::io::{self, Read, Write};
use std::net::Shutdown;

use nix::sys::socket::{setsockopt, sockopt};

use super::{Sink, SinkTraits};
use crate::base::console::{message, say};
use crate::net::accept::HEADER_WAIT;
use crate::net::facts::{LinkFacts, Privacy};
use crate::net::frame::{self, FramedWriter, Reply};
use crate::net::link::{self, Link};
use crate::net::socket::{self, Timed};
use crate::net::{NetSettings, PeerAddr};

enum Wire {
    Framed(Box<FramedWriter<Link>>),
    Raw(Timed),
}

/// A connected receiver.
pub struct TcpSink {
    wire: Option<Wire>,
    name: String,
    link: LinkFacts,
}

impl TcpSink {
    /// Connects, tunes the socket and, unless raw, sends the header.
    /// Returns the sink and any warning from tuning it.
    pub fn connect(
        peer: &PeerAddr,
        settings: &NetSettings,
        connect_limit: std::time::Duration,
        block_bytes: usize,
        quiet: bool,
    ) -> anyhow::Result<(TcpSink, Option<String>)> {
        let retrying = |why: &str| {
            if !quiet {
                say(&message!(
                    "-O {peer}: {why}; retrying for up to {} s",
                    connect_limit.as_secs()
                ));
            }
        };
        let (stream, addr, warning) = socket::connect(peer, settings, connect_limit, retrying)
            .map_err(|e| anyhow::anyhow!("-O {peer}: {e}"))?;
        let shown = socket::show(addr);
        let name = if shown.starts_with(&peer.to_string()) {
            format!("receiver {shown}")
        } else {
            format!("receiver {peer} ({shown})")
        };
        socket::tune(&stream, settings)
            .map_err(|e| anyhow::anyhow!("{name}: cannot set socket options: {e}"))?;
        let timed = Timed::new(stream, settings);
        let endpoint = format!("-O {peer}");
        let (wire, link) = if settings.raw {
            (
                Wire::Raw(timed),
                LinkFacts::new(endpoint, shown, Privacy::Raw),
            )
        } else {
            let writer = open_framed(timed, settings, &name, block_bytes)?;
            let link = LinkFacts {
                peer_key: settings
                    .tls
                    .as_ref()
                    .and_then(|t| t.pin)
                    .map(|p| p.to_string()),
                ..(writer.get_ref()).facts(endpoint, shown, settings.tls.as_ref().map(|t| t.ktls))
            };
            (Wire::Framed(Box::new(writer)), link)
        };
        Ok((
            TcpSink {
                wire: Some(wire),
                name,
                link,
            },
            warning,
        ))
    }
}

/// The framed stream to the receiver `name`: over TLS with `--key`, the
/// handshake and the receiver's acceptance first; then the header.
fn open_framed(
    timed: Timed,
    settings: &NetSettings,
    name: &str,
    block_bytes: usize,
) -> anyhow::Result<FramedWriter<Link>> {
    let link = match &settings.tls {
        None => Link::Plain(timed),
        Some(keys) => {
            let limit = settings.stall.unwrap_or(HEADER_WAIT);
            link::open_as_sender(timed, keys, limit, settings.stall)
                .map_err(|e| anyhow::anyhow!("{name}: {e}"))?
        }
    };
    let block = u32::try_from(block_bytes).unwrap_or(frame::MAX_FRAME);
    // TLS checks every byte with its records' tags: no frame sums inside.
    let started = match link.is_private() {
        false => FramedWriter::start(link, block),
        true => FramedWriter::start_unsummed(link, block),
    };
    started.map_err(|e| anyhow::anyhow!("{name}: sending the stream header failed: {e}"))
}

/// Waits for the receiver's reply after the trailer.
fn await_reply(w: &mut FramedWriter<Link>) -> io::Result<()> {
    let sent = w.total();
    // A raw receiver cannot have finished a TLS handshake: no hint there.
    let hint = match w.get_ref().is_private() {
        false => format!(" {RAW_HINT}"),
        true => String::new(),
    };
    let mut reply = [0u8; frame::REPLY_LEN];
    match w.get_mut().read_exact(&mut reply) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            return Err(io::Error::other(format!(
                "the receiver closed the connection without confirming the end of the stream; it may not have all {sent} bytes.{hint}"
            )))
        }
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("waiting for the receiver to confirm {sent} bytes: {e}.{hint}"),
            ))
        }
    }
    match frame::parse_reply(&reply).map_err(io::Error::other)? {
        Reply::Ok(n) if n == sent => Ok(()),
        Reply::Ok(n) => Err(io::Error::other(format!(
            "the receiver confirmed {n} bytes, but {sent} were sent"
        ))),
        Reply::Bad(at) => Err(io::Error::other(format!(
            "the receiver found the stream damaged at byte {at}"
        ))),
    }
}

/// What a sender whose confirmation never came tells the user: a raw
/// receiver stores the framing as data and never replies.
pub const RAW_HINT: &str = "If the receiver is mbuffer, nc, socat or tapebuf -I --raw, it takes raw bytes and stores tapebuf's framing as data: send with --raw";

/// A receiver that finds damage replies and hangs up, so the sender's next
/// write fails. If that reply is waiting on the socket, it is the better
/// reason; otherwise the write's own error stands.
fn explain_hangup(w: &mut FramedWriter<Link>, err: io::Error) -> io::Error {
    let link = w.get_mut();
    if link
        .tcp()
        .set_read_timeout(Some(HANGUP_REPLY_WAIT))
        .is_err()
    {
        return err;
    }
    let mut reply = [0u8; frame::REPLY_LEN];
    match link
        .read_exact(&mut reply)
        .map(|_| frame::parse_reply(&reply))
    {
        Ok(Ok(Reply::Bad(at))) => io::Error::other(format!(
            "the receiver found the stream damaged at byte {at} and hung up"
        )),
        _ => err,
    }
}

/// How long a failed sender looks for the receiver's reason.
const HANGUP_REPLY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

impl Sink for TcpSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        match self.wire.as_mut() {
            Some(Wire::Framed(w)) => w.write_frame(data).map_err(|e| explain_hangup(w, e)),
            Some(Wire::Raw(t)) => t.write_all(data),
            None => Err(io::Error::other("written after it was closed")),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        match self.wire.take() {
            Some(Wire::Framed(mut w)) => {
                if let Err(e) = w.finish() {
                    return Err(explain_hangup(&mut w, e));
                }
                w.get_mut().close_write()?;
                await_reply(&mut w)
            }
            Some(Wire::Raw(t)) => t.stream.shutdown(Shutdown::Write),
            None => Ok(()),
        }
    }

    /// Marks the stream incomplete and half-closes. The receiver fails on
    /// the marker, so its reply is not awaited: this run fails anyway.
    /// A raw stream has no marker: it is reset instead of closed.
    fn finish_early(&mut self) -> io::Result<()> {
        match self.wire.take() {
            Some(Wire::Framed(mut w)) => {
                w.abort()?;
                w.get_mut().close_write()
            }
            Some(Wire::Raw(t)) => {
                // A raw receiver cannot be told, but a reset is at least
                // not the clean end that a finished stream makes.
                let reset = libc::linger {
                    l_onoff: 1,
                    l_linger: 0,
                };
                setsockopt(&t.stream, sockopt::Linger, &reset).map_err(io::Error::from)
            }
            None => Ok(()),
        }
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn traits(&self) -> SinkTraits {
        let refusal = match self.link.privacy {
            Privacy::Raw => format!(
                "{} (-O) is written by tapebuf itself, which watches for a stall",
                self.name
            ),
            Privacy::Plain | Privacy::Tls => {
                format!("{} (-O) gets every block in a checked frame", self.name)
            }
        };
        SinkTraits {
            link: Some(self.link.clone()),
            ..SinkTraits::stream(Some(refusal))
        }
    }
}
