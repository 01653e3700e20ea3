//! `-I [ADDR:]PORT`: one TCP sender as the input.
//!
//! The socket is bound when the run starts, so a busy port fails at once
//! (port 0 binds any free port, and one line says which, even under `-q`),
//! but the wait for a sender happens on the first `fill`, in the reader
//! thread, where a stop or the watchdog can end it. `net::accept` finds the
//! sender: connections that `--allow` does not cover, that send nothing,
//! or that send no tapebuf header are logged, disconnected, and the wait
//! goes on. The listener is closed once a sender is in, so a second sender
//! is refused at once rather than left hanging in the backlog.
//!
//! A tapebuf sender's stream is framed (`net::frame`) and checked as it
//! arrives; the end is a success only after a trailer that matches, and the
//! sender gets a reply. A stream without the header (mbuffer, nc, socat) is
//! taken only with `--raw`, with a warning that a truncated stream cannot
//! be detected. With `--raw` every stream is raw, even one that begins
//! with tapebuf's header (a recorded framed stream arrives as the bytes
//! sent), so a tapebuf sender to a `--raw` receiver sends with `--raw`.
//! A framed sender's announced block is held to the receiver's `-m`
//! before the first frame, so no sender can make it hold more.
//!
//! A resumable stream (`--resume-timeout` on both ends, `tcp_resume.rs`)
//! keeps the listener open until its end, for the sender to come back.

use std::io::{self, Cursor, Read, Write};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::tcp_resume::{open_session, Comeback, Resuming, Returning, Session};
use super::{fill_from, End, Filled, Source};
use crate::base::console::{message, say};
use crate::keys::Fingerprint;
use crate::net::accept;
use crate::net::facts::{LinkFacts, Privacy};
use crate::net::foreign_host;
use crate::net::frame::{self, FrameError, FramedReader, Hello, Opening};
use crate::net::link::Link;
use crate::net::socket::{self, Listener, Timed};
use crate::net::{ListenAddr, NetSettings};

enum Wire {
    Waiting,
    Framed(Box<FramedReader<Link>>),
    Raw(io::Chain<Cursor<Vec<u8>>, Timed>),
    Closed,
}

/// A listener, then the one sender it accepted.
pub struct TcpSource {
    wire: Wire,
    /// Open until a sender is in, or to the end of a resumable stream.
    listener: Option<Listener>,
    /// A resumable stream's session.
    session: Option<Session>,
    /// A served resumable stream's way back: what the service routes to it.
    mailbox: Option<Receiver<Returning>>,
    /// "-I ADDR", as on the command line.
    endpoint: String,
    name: String,
    settings: NetSettings,
    stop: Option<Receiver<()>>,
    quiet: bool,
    note: Option<String>,
    link: Option<LinkFacts>,
}

/// Binds and listens on `-I ADDR`, saying the port when it was 0 (even
/// under -q: nothing else tells the sender's user the port), and what
/// the listener's setup noted. Also returns the settings as a host in
/// ADDR that is not this machine's narrows them (`foreign_host`).
pub fn bind(
    addr: &ListenAddr,
    settings: &NetSettings,
    quiet: bool,
) -> anyhow::Result<(Listener, NetSettings)> {
    let (listener, settings, note) = foreign_host::listen(addr, settings)
        .map_err(|e| anyhow::anyhow!("-I {addr}: cannot listen: {e}"))?;
    if addr.port == 0 {
        let bound = listener.local_addr()?;
        say(&message!("-I: listening on {}", socket::show(bound)));
    }
    for line in [&note, &listener.warning].into_iter().flatten() {
        if !quiet {
            say(&message!("-I {addr}: {line}"));
        }
    }
    Ok((listener, settings))
}

impl TcpSource {
    /// Binds and listens; the sender is awaited on the first fill.
    pub fn listen(
        addr: &ListenAddr,
        settings: &NetSettings,
        quiet: bool,
    ) -> anyhow::Result<TcpSource> {
        let (listener, settings) = bind(addr, settings, quiet)?;
        let mut source = TcpSource::waiting(format!("-I {addr}"), settings, quiet);
        source.listener = Some(listener);
        Ok(source)
    }

    /// The stream of a sender that a service (`--senders`) already told
    /// apart; or why it cannot be taken.
    pub fn served(
        sender: accept::Accepted,
        endpoint: String,
        settings: &NetSettings,
        quiet: bool,
    ) -> Result<TcpSource, String> {
        let mut source = TcpSource::waiting(endpoint, settings.clone(), quiet);
        source.take(sender)?;
        Ok(source)
    }

    /// The resumable stream of a sender that a service told apart and whose
    /// session record it read (a new session), with the mailbox the service
    /// routes its sender to when it comes back.
    pub fn served_resumable(
        back: Returning,
        mailbox: Receiver<Returning>,
        endpoint: String,
        settings: &NetSettings,
        quiet: bool,
    ) -> Result<TcpSource, String> {
        let mut source = TcpSource::waiting(endpoint, settings.clone(), quiet);
        let peer = socket::show(back.peer);
        let who = back.key.zip(back.name);
        source.name = named(&who, &peer);
        source.take_framed(&back.first, back.link, who, peer, Some(back.hello))?;
        source.mailbox = Some(mailbox);
        Ok(source)
    }

    /// The session this stream resumes, for a service to route by.
    pub fn session_id(&self) -> Option<crate::net::frame::SessionId> {
        self.session.as_ref().map(|s| s.id)
    }

    /// The summary's facts say the stream is resumable, and count resumes.
    fn mark_resumable(&mut self) {
        if let (Some(s), Some(link)) = (&self.session, self.link.as_mut()) {
            link.resumable = true;
            link.resumes = s.resumes.clone();
        }
    }

    /// A source for `endpoint` with no sender yet, and no listener.
    fn waiting(endpoint: String, settings: NetSettings, quiet: bool) -> TcpSource {
        TcpSource {
            wire: Wire::Waiting,
            listener: None,
            session: None,
            mailbox: None,
            name: endpoint.clone(),
            endpoint,
            settings,
            stop: None,
            quiet,
            note: None,
            link: None,
        }
    }

    /// Waits for the sender and reads its opening bytes. Ok(false) when
    /// the run was stopped first. A sender refused its session is noted,
    /// and the wait goes on.
    fn accept(&mut self) -> io::Result<bool> {
        let deadline = self.settings.connect.map(|d| Instant::now() + d);
        let listening = self.name.clone();
        loop {
            let Some(listener) = self.listener.as_ref() else {
                return Ok(true);
            };
            let accepted = accept::await_sender(
                listener,
                &self.settings,
                self.stop.as_ref(),
                deadline,
                |line| say(&message!("{listening}: {line}")),
            )?;
            let Some(sender) = accepted else {
                return Ok(false);
            };
            let peer = socket::show(sender.peer);
            match self.take(sender) {
                Ok(()) => break,
                Err(why) => {
                    (self.name, self.link) = (listening.clone(), None);
                    say(&message!(
                        "{listening}: ignored a connection from {peer}: {why}; still waiting for the sender"
                    ))
                }
            }
        }
        if self.session.is_none() {
            // A second sender is refused at once, not left in the backlog.
            self.listener = None;
        }
        Ok(true)
    }

    /// Takes an accepted sender's stream, or says why not.
    fn take(&mut self, sender: accept::Accepted) -> Result<(), String> {
        let peer = socket::show(sender.peer);
        let who = (sender.private.as_ref()).map(|p| (p.key, p.name.clone()));
        self.name = named(&who, &peer);
        socket::tune(&sender.stream, &self.settings).map_err(|e| e.to_string())?;
        let timed = Timed::new(sender.stream, &self.settings);
        if sender.opening == Opening::Framed {
            let link = match sender.private {
                Some(p) => Link::receiver(p, timed),
                None => Link::Plain(timed),
            };
            return self.take_framed(&sender.first, link, who, peer, None);
        }
        let endpoint = self.endpoint.clone();
        let why = match sender.first.starts_with(&frame::MAGIC) {
            true => "the stream begins with tapebuf's header, but --raw takes every stream as raw: it is kept as sent, framing and all (a tapebuf sender to a --raw receiver sends with --raw too), and a truncated stream cannot be detected",
            false => "no tapebuf header: reading a raw stream (--raw), in which a truncated stream cannot be detected",
        };
        if !self.quiet {
            say(&message!("{}: {why}", self.name));
        }
        self.note = Some(format!(
            "{}: raw stream, truncation undetectable",
            self.name
        ));
        self.link = Some(LinkFacts::new(endpoint, peer, Privacy::Raw));
        self.wire = Wire::Raw(Cursor::new(sender.first).chain(timed));
        Ok(())
    }
}

/// What a source calls its sender: by its key's name and key where it
/// has one, and where it connected from.
fn named(who: &Option<(Fingerprint, String)>, peer: &str) -> String {
    match who {
        Some((key, name)) => format!("sender {name} ({key}) at {peer}"),
        None => format!("sender {peer}"),
    }
}

impl TcpSource {
    /// Takes the framed stream over `link` of a sender with header
    /// `first`, and its session if it asks to be resumable (`hello`: its
    /// session record, where a service read it already).
    fn take_framed(
        &mut self,
        first: &[u8],
        link: Link,
        who: Option<(Fingerprint, String)>,
        peer: String,
        hello: Option<Hello>,
    ) -> Result<(), String> {
        let key = who.as_ref().map(|(k, _)| *k);
        let mut wire = self.framed(first, link, who, (self.endpoint.clone(), peer));
        if let Wire::Framed(r) = &mut wire {
            self.session = open_session(r.get_mut(), first, key, &self.settings, hello)?;
        }
        self.mark_resumable();
        self.wire = wire;
        Ok(())
    }

    /// The framed stream of an accepted sender, plain or inside TLS, and
    /// what the summary will say of it.
    fn framed(
        &mut self,
        first: &[u8],
        link: Link,
        who: Option<(Fingerprint, String)>,
        (endpoint, peer): (String, String),
    ) -> Wire {
        let header = first[..frame::HEADER_LEN]
            .try_into()
            .expect("a framed opening is a whole header");
        let block = frame::announced_block_bytes(header);
        // Frames go unchecked only inside TLS, whatever a header says (the
        // listener refuses UNSUMMED outside it, too).
        let unsummed = frame::announced_flags(header) & frame::UNSUMMED != 0;
        let summed = !link.is_private() || !unsummed;
        let (key, sender_name) = who.map(|(k, n)| (k.to_string(), n)).unzip();
        let facts = LinkFacts {
            peer_key: key,
            peer_name: sender_name,
            ..link.facts(endpoint, peer, self.settings.tls.as_ref().map(|t| t.ktls))
        };
        self.link = Some(facts);
        let reader = FramedReader::new(link, block);
        Wire::Framed(Box::new(if summed { reader } else { reader.unsummed() }))
    }
}

impl Source for TcpSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        if matches!(self.wire, Wire::Waiting) {
            match self.accept() {
                Ok(true) => {}
                Ok(false) => {
                    return Filled {
                        bytes: 0,
                        end: End::Eof,
                    }
                }
                Err(e) => {
                    return Filled {
                        bytes: 0,
                        end: End::Failed(e),
                    }
                }
            }
        }
        match &mut self.wire {
            Wire::Framed(r) => {
                let mut reading = Resuming {
                    reader: r,
                    session: self
                        .session
                        .as_mut()
                        .zip(Comeback::of(&self.listener, &self.mailbox)),
                    settings: &self.settings,
                    stop: self.stop.as_ref(),
                    name: &self.name,
                    quiet: self.quiet,
                };
                let filled = fill_from(&mut reading, buf, arrived);
                // Tell the sender how it went; it waits for this.
                let reply = match &filled.end {
                    End::Eof => Some(frame::reply_ok(r.total())),
                    End::Failed(e) => {
                        match e.get_ref().and_then(|e| e.downcast_ref::<FrameError>()) {
                            Some(FrameError::Corrupt { at, .. }) => Some(frame::reply_bad(*at)),
                            Some(FrameError::BadTrailer { .. }) => {
                                Some(frame::reply_bad(r.total()))
                            }
                            _ => None,
                        }
                    }
                    End::More => None,
                };
                if let Some(reply) = reply {
                    // The sender may be gone; the outcome here stands.
                    let _ = r.get_mut().write_all(&reply);
                    if matches!(filled.end, End::Eof) {
                        r.get_mut().await_close();
                    }
                    self.wire = Wire::Closed;
                    self.listener = None;
                }
                filled
            }
            Wire::Raw(r) => fill_from(r, buf, arrived),
            Wire::Waiting | Wire::Closed => Filled {
                bytes: 0,
                end: End::Eof,
            },
        }
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = Some(stop.clone());
    }

    /// A raw stream's warning, or what the link's facts say (its
    /// privacy, its resumes), read at the end.
    fn note(&self) -> Option<String> {
        match &self.link {
            Some(facts) if facts.privacy != Privacy::Raw => {
                facts.clause().map(|c| format!("{}: {c}", self.name))
            }
            _ => self.note.clone(),
        }
    }

    fn link(&self) -> Option<LinkFacts> {
        self.link.clone()
    }

    fn splice_refusal(&self) -> Option<String> {
        Some(format!(
            "{} is a network input, whose frames tapebuf checks itself",
            self.name
        ))
    }
}
