//! The receiver's side of a resumable stream (`--resume-timeout` on both
//! ends): it acknowledges every frame it holds, and when the connection
//! drops it keeps its output open and its listener listening, and waits
//! for the same sender to come back.
//!
//! - **What is acknowledged.** Each frame once it arrived whole and
//!   checked, and is in this receiver's ring: from then on it reaches the
//!   output unless this process dies, which no resume could mend. (Waiting
//!   for the output to commit it would make the sender keep this
//!   receiver's whole ring as well, or starve the ring.)
//! - **Who may resume.** A connection that passes every check a new
//!   sender passes (`--allow`, and under TLS an allowed key), whose
//!   session record carries this session's identity and, under TLS, whose
//!   key is the one that opened it. Anyone else is refused with one line
//!   (the refused sender exits 1), and the wait goes on.
//! - **Where it goes on.** From the last whole frame, at the byte the
//!   receiver answers with; a frame cut short is read again whole. A
//!   sender that no longer keeps that byte is a gap, which fails both.
//! - **How long.** Until `--resume-timeout` after the drop, or a stop;
//!   then the stream is truncated, as without resuming.
//! - **Where it comes back** ([`Comeback`]): a lone `-I` keeps its
//!   listener open; a service's stream (`--senders`) has a mailbox, into
//!   which the service puts each connection that names its session, told
//!   apart and its session record read ([`returning`]).

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use crate::base::console::{message, say};
use crate::keys::Fingerprint;
use crate::net::accept::{self, Accepted, HEADER_WAIT};
use crate::net::facts::Resumes;
use crate::net::frame::{self, FramedReader, Hello, Refused, SessionId, RESUMABLE};
use crate::net::link::{self, Link};
use crate::net::socket::{self, Listener, Timed};
use crate::net::NetSettings;

/// A resumable stream, as its receiver holds it.
pub struct Session {
    pub id: SessionId,
    /// Under TLS, the key that opened it: only it may resume it.
    pub key: Option<Fingerprint>,
    pub window: Duration,
    pub resumes: Resumes,
    /// The byte of the last drop, and when its window closes.
    pub window_ends: Option<(u64, Instant)>,
    /// An acknowledgement failed on this connection: send no more on it.
    pub mute: bool,
}

/// Reads a session record within the handshake's limit.
pub fn read_hello(link: &mut Link, settings: &NetSettings) -> io::Result<Hello> {
    let mut record = [0u8; frame::SESSION_LEN];
    let limit = settings.stall.unwrap_or(HEADER_WAIT);
    let read = link.read_exact_within(&mut record, limit, settings.stall);
    read.map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => io::Error::other("it closed inside its session record"),
        _ => io::Error::new(e.kind(), format!("reading its session record failed: {e}")),
    })?;
    Ok(Hello::decode(&record))
}

/// The answer to a new sender's header: its session, if it asked for one.
/// Err: why it was refused (it has been told).
/// `hello`: its session record where it was read already (a service
/// reads it to tell a new stream from one coming back).
pub fn open_session(
    link: &mut Link,
    header: &[u8],
    key: Option<Fingerprint>,
    settings: &NetSettings,
    hello: Option<Hello>,
) -> Result<Option<Session>, String> {
    if !asks_resume(header) {
        return Ok(None);
    }
    let hello = match hello {
        Some(hello) => hello,
        None => read_hello(link, settings).map_err(|e| e.to_string())?,
    };
    let refuse = |link: &mut Link, why: Refused, text: String| {
        let _ = link.write_all(&frame::reply_refused(why));
        Err(text)
    };
    let Some(window) = settings.resume else {
        return refuse(link, Refused::NotResumable, "it asks for a resumable stream, but this receiver was started without --resume-timeout".into());
    };
    if hello.from != 0 {
        return refuse(
            link,
            Refused::UnknownSession,
            format!(
                "it asks to resume session {}, which this receiver does not hold",
                hello.id
            ),
        );
    }
    link.write_all(&frame::reply_go_on(0))
        .map_err(|e| format!("answering its session record failed: {e}"))?;
    Ok(Some(Session {
        id: hello.id,
        key,
        window,
        resumes: Resumes::default(),
        window_ends: None,
        mute: false,
    }))
}

/// True for a header with the `RESUMABLE` flag.
pub fn asks_resume(header: &[u8]) -> bool {
    let whole = header
        .get(..frame::HEADER_LEN)
        .and_then(|h| h.try_into().ok());
    whole.is_some_and(|h| frame::announced_flags(h) & RESUMABLE != 0)
}

/// The framed stream as the ring reads it, resumed where it drops.
pub struct Resuming<'a> {
    pub reader: &'a mut FramedReader<Link>,
    /// None: not resumable; every failure is the stream's end.
    pub session: Option<(&'a mut Session, Comeback<'a>)>,
    pub settings: &'a NetSettings,
    pub stop: Option<&'a Receiver<()>>,
    pub name: &'a str,
    pub quiet: bool,
}

impl Read for Resuming<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let before = self.reader.total();
            match self.reader.read(buf) {
                Ok(n) => {
                    let total = self.reader.total();
                    if let Some((session, _)) = self.session.as_mut() {
                        let link = self.reader.get_mut();
                        // After one acknowledgement failed (perhaps cut
                        // short, which would garble the next ones), none
                        // more on this connection; what it still brings
                        // is read, and its end is the drop.
                        if total != before && !session.mute {
                            let acked = link.write_all(&frame::reply_held(total));
                            session.mute = acked.is_err();
                        }
                    }
                    return Ok(n);
                }
                Err(e) if self.session.is_some() && link::dropped(&e) => self.wait_for_sender(e)?,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Resuming<'_> {
    /// Waits for the sender to come back; Ok once the stream goes on.
    fn wait_for_sender(&mut self, why: io::Error) -> io::Result<()> {
        let (session, comeback) = self.session.as_mut().expect("a session");
        let at = self.reader.total();
        // A stalled connection is given up here, so the sender notices.
        let _ = self
            .reader
            .get_mut()
            .tcp()
            .shutdown(std::net::Shutdown::Both);
        let window = session.window.as_secs();
        if !self.quiet {
            say(&message!("{}: the connection dropped at byte {at} ({why}); waiting up to {window} s for the sender to resume (--resume-timeout)", self.name));
        }
        // A drop at the byte of the last one gets what was left of that
        // one's window: a link that connects but moves nothing ends.
        let deadline = match session.window_ends {
            Some((held, ends)) if held == at => ends,
            _ => Instant::now() + session.window,
        };
        session.window_ends = Some((at, deadline));
        let name = self.name;
        loop {
            let back = match comeback.next(self.settings, self.stop, deadline, name) {
                Ok(Some(back)) => back,
                Ok(None) => return Err(why),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, format!(
                        "the connection dropped at byte {at} ({why}) and the sender did not resume within --resume-timeout ({window} s): the stream is truncated"
                    )))
                }
                Err(e) => return Err(e),
            };
            let back = match back {
                Ok(back) => back,
                Err((peer, why)) => {
                    say(&message!("{name}: ignored a connection from {peer}: {why}; still waiting for the sender to resume"));
                    continue;
                }
            };
            let peer = socket::show(back.peer);
            match take_back(back, session, at) {
                Ok(link) => {
                    self.reader.replace_inner(link);
                    session.mute = false;
                    session.resumes.add();
                    if !self.quiet {
                        say(&message!("{name}: resumed at byte {at} by {peer}"));
                    }
                    return Ok(());
                }
                Err(Back::Refused(why)) => say(&message!(
                    "{name}: ignored a connection from {peer}: {why}; still waiting for the sender to resume"
                )),
                Err(Back::Gap(why)) => return Err(io::Error::new(io::ErrorKind::InvalidData, why)),
            }
        }
    }
}

/// Why a connection did not take the stream back.
enum Back {
    /// Not this stream's sender, or it failed on the way: wait on.
    Refused(String),
    /// The sender no longer keeps the bytes this receiver needs.
    Gap(String),
}

/// A connection that came while a stream waits, told apart: its link,
/// its key under TLS, and its session record.
pub struct Returning {
    pub link: Link,
    /// Under TLS, the key it proved, and the name it goes by.
    pub key: Option<Fingerprint>,
    pub name: Option<String>,
    pub hello: Hello,
    pub peer: std::net::SocketAddr,
    /// Its stream header.
    pub first: Vec<u8>,
}

/// Reads the session record of a sender that came back; Err: why it is
/// not one (a new stream, or a connection that failed on the way).
pub fn returning(sender: Accepted, settings: &NetSettings) -> Result<Returning, String> {
    socket::tune(&sender.stream, settings).map_err(|e| e.to_string())?;
    let peer = sender.peer;
    let timed = Timed::new(sender.stream, settings);
    let (mut link, key, name) = match sender.private {
        Some(p) => {
            let (key, name) = (p.key, p.name.clone());
            (Link::receiver(p, timed), Some(key), Some(name))
        }
        None => (Link::Plain(timed), None, None),
    };
    if !asks_resume(&sender.first) {
        return Err(
            "it opened a new stream while this receiver waits for its sender to resume".into(),
        );
    }
    let hello = read_hello(&mut link, settings).map_err(|e| e.to_string())?;
    Ok(Returning {
        link,
        key,
        name,
        hello,
        peer,
        first: sender.first,
    })
}

/// Where a dropped stream's sender comes back.
pub enum Comeback<'a> {
    /// A lone `-I`'s own listener, kept open.
    Listener(&'a Listener),
    /// A service's stream: the connections the service routed to it.
    Mailbox(&'a Receiver<Returning>),
}

/// What a wait for the sender brought: a connection to check, or one that
/// was not a returning sender (its peer, and why).
type Came = Result<Returning, (String, String)>;

impl<'a> Comeback<'a> {
    /// The listener of a lone `-I`, else a served stream's mailbox.
    pub fn of(
        listener: &'a Option<Listener>,
        mailbox: &'a Option<Receiver<Returning>>,
    ) -> Option<Comeback<'a>> {
        match (listener, mailbox) {
            (Some(l), _) => Some(Comeback::Listener(l)),
            (None, Some(m)) => Some(Comeback::Mailbox(m)),
            (None, None) => None,
        }
    }

    /// The next connection by `deadline`: None at a stop; TimedOut past
    /// the deadline.
    fn next(
        &self,
        settings: &NetSettings,
        stop: Option<&Receiver<()>>,
        deadline: Instant,
        name: &str,
    ) -> io::Result<Option<Came>> {
        match self {
            Comeback::Listener(listener) => {
                let note = |line: String| say(&message!("{name}: {line}"));
                let Some(sender) =
                    accept::await_sender(listener, settings, stop, Some(deadline), note)?
                else {
                    return Ok(None);
                };
                let peer = socket::show(sender.peer);
                Ok(Some(returning(sender, settings).map_err(|why| (peer, why))))
            }
            Comeback::Mailbox(mailbox) => {
                let never = crossbeam_channel::never();
                let timeout = crossbeam_channel::at(deadline);
                crossbeam_channel::select! {
                    recv(mailbox) -> back => match back {
                        Ok(back) => Ok(Some(Ok(back))),
                        Err(_) => Ok(None),
                    },
                    recv(stop.unwrap_or(&never)) -> _ => Ok(None),
                    recv(timeout) -> _ => Err(io::ErrorKind::TimedOut.into()),
                }
            }
        }
    }
}

/// Checks a sender that came back to this stream, and answers it.
fn take_back(back: Returning, session: &Session, at: u64) -> Result<Link, Back> {
    let refused = |why: &dyn std::fmt::Display| Back::Refused(why.to_string());
    let Returning {
        mut link,
        key,
        hello,
        ..
    } = back;
    if hello.id != session.id || key != session.key {
        let _ = link.write_all(&frame::reply_refused(Refused::UnknownSession));
        let whose = key.map_or(String::new(), |k| format!(" with key {k}"));
        return Err(refused(&format!(
            "it asks to resume session {}{whose}, which is not the stream being resumed",
            hello.id
        )));
    }
    link.write_all(&frame::reply_go_on(at))
        .map_err(|e| refused(&format!("answering its session record failed: {e}")))?;
    if hello.from > at {
        return Err(Back::Gap(format!(
            "the sender came back keeping bytes only from byte {}, but this receiver holds {at}: bytes {at} to {} are lost",
            hello.from, hello.from
        )));
    }
    Ok(link)
}
