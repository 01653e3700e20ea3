//! The sender's side of a resumable stream (`--resume-timeout`): every
//! block is kept until the receiver says it holds it, and a dropped
//! connection is made again, within the time limit, and the stream sent
//! on from the receiver's byte.
//!
//! - **What is kept.** The ring's own blocks where the stream is the run's
//!   only output (the ring gets `most_blocks` more than `-m` for them, as
//!   for a remote tape), copies where it shares the ring with other
//!   outputs or digests. At most `KEEP_BYTES` (or two blocks) are kept:
//!   the sender then waits for the receiver before it sends more.
//! - **What is a drop.** The connection's end, a reset, a stall past
//!   `--timeout`: every failure but damage (`InvalidData`). Damage, a
//!   refusal and a gap are never resumed; each fails the run, naming it.
//! - **The way back.** Connect again, with the same checks as the first
//!   time (the receiver's pinned key under TLS); send the header and the
//!   session record (its identity, and the first byte still kept); the
//!   receiver answers with the byte it holds up to, and the kept frames
//!   after it go again. Attempts pause from `FIRST_PAUSE` doubling to
//!   `LAST_PAUSE`, until `--resume-timeout` from the first drop since the
//!   receiver last held more, or a stop.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};

use super::tcp_dial::{Dial, Kept};
use super::tcp_reply::{await_reply, damaged, explain_hangup, introduce, read_replies, unexpected};
use crate::base::console::{message, say};
use crate::net::facts::Resumes;
use crate::net::frame::{self, FramedWriter, Hello, Reply, SessionId};
use crate::net::link::{self, Link};

/// The most bytes kept for the receiver beyond `-m`.
pub const KEEP_BYTES: u64 = 32 << 20;
const FIRST_PAUSE: Duration = Duration::from_millis(200);
const LAST_PAUSE: Duration = Duration::from_secs(5);
/// The longest attempt to connect again before the stop is looked at.
const ATTEMPT: Duration = Duration::from_secs(2);
/// How often a sender waiting for acknowledgements looks at the stop.
const LOOK_EVERY: Duration = Duration::from_millis(200);

/// Why an attempt to resume failed: worth another try, or never.
enum Rejoin {
    Again(String),
    Never(String),
}

/// A resumable stream's sender side.
pub struct Resume {
    id: SessionId,
    window: Duration,
    dial: Dial,
    quiet: bool,
    /// Sent and not yet held by the receiver, oldest first.
    kept: VecDeque<Kept>,
    /// The first byte of `kept[0]`: the receiver holds everything before.
    held: u64,
    most_bytes: u64,
    /// Reply bytes read short of a whole reply.
    replies: Vec<u8>,
    resumes: Resumes,
    stop: Option<Receiver<()>>,
    /// The bytes held when the last window opened, and when it closes.
    window_ends: Option<(u64, Instant)>,
}

impl Resume {
    /// Opens the session on a stream whose header was just sent: the
    /// session record, then the receiver's answer.
    pub fn begin(
        w: &mut FramedWriter<Link>,
        dial: Dial,
        window: Duration,
        quiet: bool,
    ) -> Result<Resume, String> {
        let id = SessionId::new().map_err(|e| e.to_string())?;
        let hello = Hello { id, from: 0 };
        let limit = dial.opening_limit();
        match introduce(w.get_mut(), hello, limit, dial.settings.stall) {
            Ok(Reply::GoOn(0)) => {}
            Ok(Reply::Refused(why)) => return Err(why.explain().to_string()),
            Ok(other) => {
                return Err(format!(
                    "the receiver answered a new session with {other:?}"
                ))
            }
            Err(e) => {
                return Err(format!(
                    "opening a resumable stream failed: {e} (a receiver of raw streams, such as mbuffer, nc, socat or tapebuf -I --raw, never answers one)"
                ))
            }
        }
        let most_bytes = KEEP_BYTES.max(2 * u64::from(dial.block));
        Ok(Resume {
            id,
            window,
            dial,
            quiet,
            kept: VecDeque::new(),
            held: 0,
            most_bytes,
            replies: Vec::new(),
            resumes: Resumes::default(),
            stop: None,
            window_ends: None,
        })
    }

    /// The bytes the receiver holds.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// The count of resumes, shared with the summary.
    pub fn counter(&self) -> Resumes {
        self.resumes.clone()
    }

    /// The most ring blocks kept at once.
    pub fn most_blocks(&self) -> usize {
        let block = u64::from(self.dial.block.max(1));
        (self.most_bytes.div_ceil(block) + 1) as usize
    }

    pub fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = Some(stop.clone());
    }

    /// Sends one block as a frame and keeps it; a drop on the way is
    /// resumed.
    pub fn send(&mut self, w: &mut FramedWriter<Link>, kept: Kept, name: &str) -> io::Result<()> {
        let len = kept.data().len() as u64;
        loop {
            let sent = self
                .make_room(w, len)
                .and_then(|()| w.write_frame(kept.data()));
            match sent {
                Ok(()) => break,
                Err(e) => self.recover(w, e, name)?,
            }
        }
        self.kept.push_back(kept);
        match self.take_replies(w, Duration::ZERO) {
            Ok(_) => Ok(()),
            Err(e) => self.recover(w, e, name),
        }
    }

    /// Ends the stream: the trailer, then the receiver's reply, resumed
    /// as often as the connection drops before it.
    pub fn finish(&mut self, w: &mut FramedWriter<Link>, name: &str) -> io::Result<()> {
        loop {
            let ended = w
                .finish()
                .and_then(|()| w.get_mut().close_write())
                .and_then(|()| {
                    await_reply(w, |w, n| {
                        let _ = self.settle(w, n);
                    })
                });
            match ended {
                Ok(()) => {
                    let total = w.total();
                    return self.settle(w, total);
                }
                Err(e) => self.recover(w, e, name)?,
            }
        }
    }

    /// Waits, reading acknowledgements, until `len` more bytes may be
    /// kept. A stop ends the wait: the run is ending, and one block more
    /// does no harm. `--timeout` bounds a receiver that acknowledges
    /// nothing.
    fn make_room(&mut self, w: &mut FramedWriter<Link>, len: u64) -> io::Result<()> {
        let mut since = Instant::now();
        // Every kept block has been sent: what is kept is what the
        // writer sent beyond what the receiver holds.
        while w.total() - self.held + len > self.most_bytes && !self.kept.is_empty() {
            if self
                .stop
                .as_ref()
                .is_some_and(crate::base::signals::stopped)
            {
                return Ok(());
            }
            if self.take_replies(w, LOOK_EVERY)? {
                since = Instant::now();
            } else if let Some(limit) = self.dial.settings.stall.filter(|l| since.elapsed() >= *l) {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the receiver acknowledged nothing for {} s (--timeout)",
                        limit.as_secs()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Reads the replies that arrive within `wait` and takes each
    /// acknowledgement; true if any came.
    fn take_replies(&mut self, w: &mut FramedWriter<Link>, wait: Duration) -> io::Result<bool> {
        let Some(replies) = read_replies(w.get_mut(), &mut self.replies, wait)? else {
            return Ok(false);
        };
        for reply in replies {
            match reply {
                Reply::Held(n) => self.settle(w, n)?,
                other => return Err(unexpected(other)),
            }
        }
        Ok(true)
    }

    /// The receiver holds every byte before `upto`: the blocks that end
    /// there or earlier go back to the ring.
    fn settle(&mut self, w: &mut FramedWriter<Link>, upto: u64) -> io::Result<()> {
        if upto > w.total() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the receiver says it holds {upto} bytes, more than the {} sent",
                    w.total()
                ),
            ));
        }
        w.acknowledge(upto);
        while let Some(front) = self.kept.front() {
            let len = front.data().len() as u64;
            if self.held + len > upto {
                break;
            }
            self.kept.pop_front();
            self.held += len;
        }
        Ok(())
    }

    /// After a failure: a drop is resumed; anything else, or a drop that
    /// the receiver explains as damage, is the run's failure.
    fn recover(&mut self, w: &mut FramedWriter<Link>, e: io::Error, name: &str) -> io::Result<()> {
        if !link::dropped(&e) {
            return Err(e);
        }
        let e = explain_hangup(w, e);
        if !link::dropped(&e) {
            return Err(e);
        }
        self.reconnect(w, e, name)
    }

    /// Connects again until the receiver takes the stream back and has
    /// the kept blocks again, or a window closes. Each drop after the
    /// receiver held more has its own window.
    fn reconnect(
        &mut self,
        w: &mut FramedWriter<Link>,
        why: io::Error,
        name: &str,
    ) -> io::Result<()> {
        let mut why = why;
        loop {
            let from = self.rejoin_within_window(w, &why, name)?;
            self.resumes.add();
            if !self.quiet {
                say(&message!("{name}: resumed at byte {from}"));
            }
            match self.send_kept_again(w) {
                Ok(()) => return Ok(()),
                Err(e) if link::dropped(&e) => why = e,
                Err(e) => return Err(e),
            }
        }
    }

    /// Tries to take the stream up again until `--resume-timeout` from
    /// now. Returns the byte the receiver goes on from.
    fn rejoin_within_window(
        &mut self,
        w: &mut FramedWriter<Link>,
        why: &io::Error,
        name: &str,
    ) -> io::Result<u64> {
        let (sent, window) = (w.total(), self.window.as_secs());
        if !self.quiet {
            say(&message!(
                "{name}: the connection dropped after {sent} bytes sent, {} held by the receiver ({why}); connecting again for up to {window} s (--resume-timeout)",
                self.held
            ));
        }
        // A drop before the receiver held anything more since the last one
        // gets what was left of that one's window, so that a link that
        // connects but moves nothing cannot retry for ever.
        let deadline = match self.window_ends {
            Some((held, ends)) if held == self.held => ends,
            _ => Instant::now() + self.window,
        };
        self.window_ends = Some((self.held, deadline));
        let (mut pause, mut last) = (FIRST_PAUSE, why.to_string());
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("the connection dropped after {sent} bytes sent, {} held by the receiver, and it could not be resumed within --resume-timeout ({window} s): {last}", self.held),
                ));
            }
            match self.rejoin(w, left) {
                Ok(from) => return Ok(from),
                Err(Rejoin::Never(why)) => {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, why))
                }
                Err(Rejoin::Again(why)) => last = why,
            }
            if self.pause(pause.min(left)) {
                return Err(io::Error::new(io::ErrorKind::Interrupted, last));
            }
            pause = (pause * 2).min(LAST_PAUSE);
        }
    }

    /// Sends every kept block again, on the connection just taken back.
    /// The replies that come meanwhile are read after each frame, so
    /// that the receiver's acknowledgements never fill the sockets while
    /// it waits for more frames; the latest is taken once all are sent.
    fn send_kept_again(&mut self, w: &mut FramedWriter<Link>) -> io::Result<()> {
        let mut latest = None;
        for k in &self.kept {
            w.write_frame(k.data())?;
            let replies = read_replies(w.get_mut(), &mut self.replies, Duration::ZERO)?;
            for reply in replies.into_iter().flatten() {
                match reply {
                    Reply::Held(n) => latest = Some(n),
                    other => return Err(unexpected(other)),
                }
            }
        }
        match latest {
            Some(n) => self.settle(w, n),
            None => Ok(()),
        }
    }

    /// Waits `d`; true if the run was stopped meanwhile.
    fn pause(&self, d: Duration) -> bool {
        match &self.stop {
            Some(s) => matches!(s.recv_timeout(d), Err(RecvTimeoutError::Disconnected)),
            None => {
                std::thread::sleep(d);
                false
            }
        }
    }

    /// One attempt to take the stream up again on a new connection, up to
    /// the receiver's answer. Returns the byte it goes on from.
    fn rejoin(&mut self, w: &mut FramedWriter<Link>, left: Duration) -> Result<u64, Rejoin> {
        let again = |e: &dyn std::fmt::Display| Rejoin::Again(e.to_string());
        // Short attempts, so that a stop is seen between them.
        let attempt = left.min(ATTEMPT);
        let (timed, _, _) = self.dial.connect(attempt, |_| {}).map_err(|e| again(&e))?;
        let limit = left.min(self.dial.opening_limit());
        let mut link = self.dial.link(timed, limit).map_err(|e| again(&e))?;
        let header = frame::header_with(self.dial.block, self.dial.flags(&link));
        link.write_all(&header).map_err(|e| again(&e))?;
        let hello = Hello {
            id: self.id,
            from: self.held,
        };
        let from = match introduce(&mut link, hello, limit, self.dial.settings.stall) {
            Ok(Reply::GoOn(n)) => n,
            Ok(Reply::Refused(why)) => return Err(Rejoin::Never(why.explain().to_string())),
            Ok(Reply::Bad(at)) => return Err(Rejoin::Never(damaged(at).to_string())),
            Ok(other) => {
                return Err(Rejoin::Never(format!(
                    "the receiver answered {other:?} to the session record"
                )))
            }
            Err(e) => return Err(again(&e)),
        };
        if from < self.held {
            return Err(Rejoin::Never(format!(
                "the receiver holds only {from} bytes, but had acknowledged {}; bytes {from} to {} are no longer kept here, and the stream cannot go on without them",
                self.held, self.held
            )));
        }
        self.settle(w, from)
            .map_err(|e| Rejoin::Never(e.to_string()))?;
        w.replace_inner(link);
        w.rewind(from).map_err(Rejoin::Never)?;
        self.replies.clear();
        Ok(from)
    }
}
