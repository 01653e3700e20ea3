//! Which stream a service's connection belongs to, when the streams can
//! be resumed (`--resume-timeout` with `--senders`): a sender whose
//! session record names a running stream's session is handed to that
//! stream, which checks its key and answers it (`source::tcp_resume`); a
//! record that names a session this service does not hold, past its
//! first byte, is refused; anything else begins a stream of its own,
//! whose session is known to the service from that moment.
//!
//! The invariant: a session is registered under the same lock that
//! looked it up, so a sender that comes back at once finds its stream,
//! and no two streams ever hold one session.

use std::io::Write;

use crossbeam_channel::{unbounded, Receiver};

use super::service::Service;
use crate::base::sync::lock;
use crate::net::accept::Accepted;
use crate::net::frame::{self, Refused};
use crate::net::socket::show;
use crate::source::{asks_resume, returning, Returning};

/// A connection that begins a stream.
pub(super) enum Taken {
    /// A stream that cannot be resumed.
    Sender(Box<Accepted>),
    /// A resumable one: its session record read, and its way back.
    Resumable(Box<Returning>, Receiver<Returning>),
}

/// Where a connection went.
pub(super) enum Route {
    Stream(Taken),
    /// Handed to the stream it resumes.
    Handed,
    /// Not taken, and the line that says why.
    Refused(String),
}

impl Taken {
    /// The name the sender's key goes by, if it has a key.
    pub(super) fn name(&self) -> Option<String> {
        match self {
            Taken::Sender(sender) => sender.private.as_ref().map(|p| p.name.clone()),
            Taken::Resumable(back, _) => back.name.clone(),
        }
    }

    /// The session a resumable stream holds.
    pub(super) fn session(&self) -> Option<frame::SessionId> {
        match self {
            Taken::Sender(_) => None,
            Taken::Resumable(back, _) => Some(back.hello.id),
        }
    }
}

impl Service {
    /// Waits for a place for a stream; false when the service is stopped
    /// first.
    pub(super) fn take_room(&self, stop: &Receiver<()>) -> bool {
        crossbeam_channel::select! {
            send(self.room.0, ()) -> taken => taken.is_ok(),
            recv(stop) -> _ => false,
        }
    }

    /// Routes an identified sender.
    pub(super) fn route(&self, sender: Accepted) -> Route {
        if self.settings.resume.is_none() || !asks_resume(&sender.first) {
            return Route::Stream(Taken::Sender(Box::new(sender)));
        }
        let peer = show(sender.peer);
        let mut back = match returning(sender, &self.settings) {
            Ok(back) => back,
            Err(why) => return Route::Refused(format!("ignored a connection from {peer}: {why}")),
        };
        let mut sessions = lock(&self.sessions);
        let id = back.hello.id;
        if let Some(mailbox) = sessions.get(&id) {
            return match mailbox.send(back) {
                Ok(()) => Route::Handed,
                Err(_) => Route::Refused(format!(
                    "ignored a connection from {peer}: session {id} has just ended"
                )),
            };
        }
        if back.hello.from != 0 {
            let _ = back
                .link
                .write_all(&frame::reply_refused(Refused::UnknownSession));
            return Route::Refused(format!(
                "ignored a connection from {peer}: it asks to resume session {id}, which this service does not hold"
            ));
        }
        let (tx, rx) = unbounded();
        sessions.insert(id, tx);
        Route::Stream(Taken::Resumable(Box::new(back), rx))
    }

    /// The stream of session `taken` has ended: its way back goes.
    pub(super) fn forget(&self, taken: &Option<frame::SessionId>) {
        if let Some(id) = taken {
            lock(&self.sessions).remove(id);
        }
    }
}
