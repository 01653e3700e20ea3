//! The senders of a receiver that serves many at once (`-I --senders`):
//! each connection is taken from the listener as it comes and then told
//! apart from everything else on its own (a thread of its own in
//! `serve/`), so a connection that stalls its header or its TLS handshake
//! holds up no other sender. The rules are `accept`'s: `--allow`, the
//! header or the allowed key, and the time a connection has to say what
//! it is.

use std::io;
use std::os::fd::AsFd;
use std::time::Duration;

use crossbeam_channel::Receiver;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use super::accept::{step, take_connection, Accepted, Pending, Step};
use super::socket::{show, Listener};
use super::NetSettings;
use crate::base::signals::stopped;

/// How often a wait looks at its stop.
const LOOK_EVERY: Duration = Duration::from_millis(200);

/// A connection that `--allow` covers, not yet told apart.
pub struct Arrival(Pending);

impl Arrival {
    /// Where it comes from, for messages.
    pub fn peer(&self) -> String {
        show(self.0.peer)
    }
}

/// Waits up to `wait` for the listener to have a connection, and takes
/// it. None when none came, or it was refused (said through `note`).
pub fn arrive(
    listener: &Listener,
    settings: &NetSettings,
    wait: Duration,
    note: &mut impl FnMut(String),
) -> io::Result<Option<Arrival>> {
    if !readable(listener, wait)? {
        return Ok(None);
    }
    Ok(take_connection(listener, settings, note)?.map(Arrival))
}

/// Tells the connection apart: the sender, or the line saying why it was
/// ignored. A stop ends the wait as ignored.
pub fn identify(
    arrival: Arrival,
    settings: &NetSettings,
    stop: &Receiver<()>,
) -> Result<Accepted, String> {
    let mut pending = arrival.0;
    loop {
        if stopped(stop) {
            return Err(format!(
                "ignored a connection from {}: the run was stopped",
                show(pending.peer)
            ));
        }
        match step(pending, settings) {
            Step::Wait(p) => pending = p,
            Step::Ignored(line) => return Err(line),
            Step::Sender(sender) => return Ok(*sender),
        }
        // Errors of the wait show on the next read.
        let _ = readable(&pending.stream, LOOK_EVERY);
    }
}

/// Whether `fd` has something to read within `wait`.
fn readable(fd: &impl AsFd, wait: Duration) -> io::Result<bool> {
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
    let ms = u16::try_from(wait.as_millis().max(1)).unwrap_or(u16::MAX);
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(n) => Ok(n > 0),
        Err(nix::errno::Errno::EINTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
