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
//! so, and how to talk to a raw receiver (`tcp_reply::RAW_HINT`).
//!
//! With `--resume-timeout` the framed stream is resumable
//! (`tcp_resume.rs`): the sender keeps every block until the receiver
//! holds it, and a dropped connection is made again and the stream sent
//! on from the receiver's byte.

use std::io::{self, Write};
use std::net::Shutdown;

use crossbeam_channel::Receiver;
use nix::sys::socket::{setsockopt, sockopt};

use super::tcp_dial::{Dial, Kept};
use super::tcp_reply::{await_reply, explain_hangup};
use super::tcp_resume::Resume;
use super::{Sink, SinkTraits};
use crate::base::block::BlockRef;
use crate::base::console::{message, say};
use crate::net::facts::{LinkFacts, Privacy};
use crate::net::frame::FramedWriter;
use crate::net::link::Link;
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
    /// A resumable stream's kept blocks and the way back to its receiver.
    resume: Option<Resume>,
}

impl TcpSink {
    /// Connects, tunes the socket and, unless raw, sends the header (and,
    /// to resume, the session record, and reads the receiver's answer).
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
        let dial = Dial::new(peer, settings, block_bytes);
        let (timed, addr, warning) = dial.connect(connect_limit, retrying)?;
        let shown = socket::show(addr);
        let name = if shown.starts_with(&peer.to_string()) {
            format!("receiver {shown}")
        } else {
            format!("receiver {peer} ({shown})")
        };
        let endpoint = format!("-O {peer}");
        if settings.raw {
            let sink = TcpSink {
                wire: Some(Wire::Raw(timed)),
                name,
                link: LinkFacts::new(endpoint, shown, Privacy::Raw),
                resume: None,
            };
            return Ok((sink, warning));
        }
        let mut writer = dial
            .framed(timed)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let pin = dial.receiver_key();
        let resume = match settings.resume {
            Some(window) => Some(
                Resume::begin(&mut writer, dial, window, quiet)
                    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?,
            ),
            None => None,
        };
        let ktls = settings.tls.as_ref().map(|t| t.ktls);
        let link = LinkFacts {
            peer_key: pin.map(|p| p.to_string()),
            resumable: resume.is_some(),
            resumes: resume.as_ref().map(Resume::counter).unwrap_or_default(),
            ..(writer.get_ref()).facts(endpoint, shown, ktls)
        };
        let sink = TcpSink {
            wire: Some(Wire::Framed(Box::new(writer))),
            name,
            link,
            resume,
        };
        Ok((sink, warning))
    }

    /// Sends one block of a stream that is not resumable.
    fn send(&mut self, data: &[u8]) -> io::Result<()> {
        match self.wire.as_mut() {
            Some(Wire::Framed(w)) => w.write_frame(data).map_err(|e| explain_hangup(w, e)),
            Some(Wire::Raw(t)) => t.write_all(data),
            None => Err(io::Error::other("written after it was closed")),
        }
    }

    /// Sends one block of a resumable stream and keeps it until the
    /// receiver holds it; a dropped connection is resumed here.
    fn send_kept(&mut self, kept: Kept) -> io::Result<()> {
        match (self.wire.as_mut(), self.resume.as_mut()) {
            (Some(Wire::Framed(w)), Some(r)) => r.send(w, kept, &self.name),
            _ => self.send(kept.data()),
        }
    }
}

impl Sink for TcpSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        match self.resume.is_some() {
            true => self.send_kept(Kept::Copy(data.to_vec())),
            false => self.send(data),
        }
    }

    /// A resumable stream keeps the ring's block itself until the
    /// receiver holds it (`SinkTraits::keeps_blocks`).
    fn write_shared(&mut self, block: &BlockRef) -> io::Result<()> {
        match self.resume.is_some() {
            true => self.send_kept(Kept::Ring(block.clone())),
            false => self.send(block.data()),
        }
    }

    fn acknowledged_bytes(&self) -> Option<u64> {
        self.resume.as_ref().map(Resume::held)
    }

    fn finish(&mut self) -> io::Result<()> {
        match self.wire.take() {
            Some(Wire::Framed(mut w)) => match self.resume.as_mut() {
                Some(r) => r.finish(&mut w, &self.name),
                None => {
                    if let Err(e) = w.finish() {
                        return Err(explain_hangup(&mut w, e));
                    }
                    w.get_mut().close_write()?;
                    await_reply(&mut w, |_, _| {})
                }
            },
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

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        if let Some(r) = self.resume.as_mut() {
            r.attach_stop(stop);
        }
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
            keeps_blocks: self.resume.as_ref().map_or(0, Resume::most_blocks),
            ..SinkTraits::stream(Some(refusal))
        }
    }
}
