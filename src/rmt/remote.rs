//! A file or tape drive on an rmt server, opened for one volume at a time.
//!
//! Each volume is its own session: GNU rmt exits after `C`, so the next
//! volume starts a new remote shell, and the old one's exit status is
//! checked. Closing writes no filemark itself: the server's close writes
//! one after data, as every tape driver does, and `C`'s reply carries
//! close's error. Before a rewind or an unload after writing, the filemark
//! is written explicitly, as for a local drive. `C` must be answered
//! `A0`: any other number is a reply meant for an earlier request.

use super::flavor::{OpenMode, RemoteOp};
use super::name::RemoteName;
use super::session::{CloseFailed, RmtError, RmtSettings, Session};
use super::wire::{Reply, Request};
use crate::tape::AtEnd;
use crossbeam_channel::Receiver;

pub struct RemoteFile {
    pub name: RemoteName,
    pub settings: RmtSettings,
    mode: OpenMode,
    session: Option<Session>,
    stop: Option<Receiver<()>>,
}

impl RemoteFile {
    /// Starts a session and opens `name` on it.
    pub fn open(
        name: &RemoteName,
        settings: &RmtSettings,
        mode: OpenMode,
    ) -> Result<RemoteFile, RmtError> {
        let mut file = RemoteFile {
            name: name.clone(),
            settings: settings.clone(),
            mode,
            session: None,
            stop: None,
        };
        file.reopen()?;
        Ok(file)
    }

    /// Opens the file again in a new session, for the next volume.
    pub fn reopen(&mut self) -> Result<(), RmtError> {
        debug_assert!(self.session.is_none(), "the last volume was closed");
        let mut session = Session::start(&self.name, &self.settings)?;
        if let Some(stop) = &self.stop {
            session.attach_stop(stop);
        }
        let open = Request::Open {
            path: self.name.path.clone(),
            flags: self.settings.flavor.open_flags(self.mode),
        };
        session.call(&open)?;
        self.session = Some(session);
        Ok(())
    }

    /// Lets the run's stop cut this and every later session's waits short.
    pub fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = Some(stop.clone());
        if let Some(session) = self.session.as_mut() {
            session.attach_stop(stop);
        }
    }

    /// True for a device (`/dev/...`), false for a regular file.
    pub fn is_device(&self) -> bool {
        self.name.is_device()
    }

    /// The session of the open volume.
    pub fn session(&mut self) -> &mut Session {
        self.session.as_mut().expect("a volume is open")
    }

    /// Runs a tape operation and waits for it.
    pub fn op(&mut self, op: RemoteOp, count: u32) -> Result<(), RmtError> {
        let request = Request::Ioctl {
            op: self.settings.flavor.op(op),
            count,
        };
        self.session().call(&request).map(drop)
    }

    /// Does `then` (rewind or unload), closes the file, and ends the
    /// session. Every reply to the session's requests must have been taken.
    pub fn close(&mut self, then: AtEnd) -> Result<(), RmtError> {
        let Some(session) = self.session.as_mut() else {
            return Ok(());
        };
        debug_assert_eq!(session.outstanding(), 0);
        if then != AtEnd::Stay && self.mode != OpenMode::Read {
            // The filemark the close would write, before the tape moves.
            self.op(RemoteOp::WriteFilemarks, 1)?;
        }
        match then {
            AtEnd::Stay => {}
            AtEnd::Rewind => self.op(RemoteOp::Rewind, 1)?,
            AtEnd::Eject => self.op(RemoteOp::Unload, 1)?,
        }
        let mut session = self.session.take().expect("checked above");
        match session.call(&Request::Close) {
            Ok(Reply::Number(0)) => {}
            Ok(other) => {
                return Err(RmtError::Desync(format!(
                    "C was answered {}, not A0: a reply meant for an earlier request",
                    describe(&other)
                )))
            }
            Err(e) => return Err(RmtError::Close(Box::new(CloseFailed(e)))),
        }
        session.finish()
    }

    /// Ends the session without closing in order (after a failure).
    pub fn abandon(&mut self) {
        self.session = None;
    }
}

/// A reply, as a message quotes it.
fn describe(reply: &Reply) -> String {
    match reply {
        Reply::Number(n) => format!("\"A{n}\""),
        Reply::Bytes(b) => format!("with {} bytes of data", b.len()),
        Reply::Failed { errno, message } => format!("\"E{errno} {message}\""),
    }
}
