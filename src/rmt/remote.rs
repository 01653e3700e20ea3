//! A file or tape drive on an rmt server, opened for one volume at a time.
//!
//! Each volume is its own session: GNU rmt exits after `C`, so the next
//! volume starts a new remote shell, and the old one's exit status is
//! checked. Closing writes no filemark itself: the server's close writes
//! one after data, as every tape driver does, and `C`'s reply carries
//! close's error. Before a rewind or an unload after writing, the filemark
//! is written explicitly, as for a local drive. `C` must be answered
//! `A0`: any other number is a reply meant for an earlier request.
//!
//! For `--verify` the file is opened read-write, and a volume is read back
//! through the same session before it is closed: a device gets its
//! filemark explicitly, is spaced back over it and its own records and
//! read record by record up to that filemark; a file is sought back to its start (`L0\n0\n`, the one seek
//! every server reads alike) and read to its end. The filemark written for
//! a read-back is the volume's only one: the close after it writes none.

use super::flavor::{OpenMode, RemoteOp};
use super::name::RemoteName;
use super::path_check::check_server_reads_path;
use super::protocol::{Reply, Request, END_OF_MEDIUM_ERRNO, MAX_RECORD_BYTES};
use super::session::{CloseFailed, RmtError, RmtSettings, Session};
use crate::tape::AtEnd;
use crossbeam_channel::Receiver;

pub struct RemoteFile {
    pub name: RemoteName,
    pub settings: RmtSettings,
    mode: OpenMode,
    /// Open `O_RDWR`, so that a volume can be read back.
    read_write: bool,
    /// The filemark after this volume's data is written already.
    marked: bool,
    session: Option<Session>,
    stop: Option<Receiver<()>>,
    /// The server reads this path whole (`path_check`); asked once.
    path_checked: bool,
}

/// Requests in flight while a file is read back: past its end each is
/// answered `A0`, so reading ahead is harmless there. A tape is read one
/// record at a time, so that it stops right after its filemark.
const FILE_READ_AHEAD: usize = 8;
/// Bytes asked for at a time from a file.
const FILE_READ_BYTES: usize = 1 << 20;

impl RemoteFile {
    /// Starts a session and opens `name` on it.
    pub fn open(
        name: &RemoteName,
        settings: &RmtSettings,
        mode: OpenMode,
    ) -> Result<RemoteFile, RmtError> {
        RemoteFile::open_with(name, settings, mode, false)
    }

    /// Starts a session and opens `name` on it read-write, so that what is
    /// written can be read back (`--verify`); otherwise as `open`.
    pub fn open_read_write(
        name: &RemoteName,
        settings: &RmtSettings,
        mode: OpenMode,
    ) -> Result<RemoteFile, RmtError> {
        RemoteFile::open_with(name, settings, mode, true)
    }

    fn open_with(
        name: &RemoteName,
        settings: &RmtSettings,
        mode: OpenMode,
        read_write: bool,
    ) -> Result<RemoteFile, RmtError> {
        let mut file = RemoteFile {
            name: name.clone(),
            settings: settings.clone(),
            mode,
            read_write,
            marked: false,
            session: None,
            stop: None,
            path_checked: false,
        };
        file.reopen()?;
        Ok(file)
    }

    /// Opens the file again in a new session, for the next volume.
    pub fn reopen(&mut self) -> Result<(), RmtError> {
        debug_assert!(self.session.is_none(), "the last volume was closed");
        if !self.path_checked {
            check_server_reads_path(&self.name, &self.settings)?;
            self.path_checked = true;
        }
        let mut session = Session::start(&self.name, &self.settings)?;
        if let Some(stop) = &self.stop {
            session.attach_stop(stop);
        }
        let flavor = self.settings.flavor;
        let flags = match self.read_write {
            true => flavor.open_flags_read_write(self.mode),
            false => flavor.open_flags(self.mode),
        };
        let open = Request::Open {
            path: self.name.path.clone().into(),
            flags,
        };
        session.call(&open)?;
        self.session = Some(session);
        self.marked = false;
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
            op: self.settings.flavor.op(op).into(),
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
        if then != AtEnd::Stay && self.mode != OpenMode::Read && !self.marked {
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

    /// Writes the filemark that ends a device's data now, so that the
    /// close writes none; a file needs none.
    pub fn end_data(&mut self) -> Result<(), RmtError> {
        if self.is_device() && !self.marked {
            self.op(RemoteOp::WriteFilemarks, 1)?;
            self.marked = true;
        }
        Ok(())
    }

    /// Writes one record and waits for its reply: a device's volume
    /// trailer, after the data's filemark (see `tape::trailer`). Past the
    /// early warning a Linux drive refuses one write (`E28`) and takes the
    /// next, so one refusal of that kind is tried again. The trailer's own
    /// filemark follows, so the close writes none.
    pub fn write_trailer(&mut self, record: &[u8]) -> Result<(), RmtError> {
        let mut refused_once = false;
        loop {
            let session = self.session();
            session.send(&Request::Write(record.len()), record)?;
            match session.wait_reply()? {
                Reply::Number(n) if n == record.len() as u64 => break,
                Reply::Failed { errno, .. } if errno == END_OF_MEDIUM_ERRNO && !refused_once => {
                    refused_once = true;
                }
                other => {
                    RmtError::check(other.clone())?;
                    return Err(RmtError::Protocol(format!(
                        "a {}-byte trailer was answered {}",
                        record.len(),
                        describe(&other)
                    )));
                }
            }
        }
        self.op(RemoteOp::WriteFilemarks, 1)?;
        self.marked = true;
        Ok(())
    }

    /// Reads the volume back from its start through the open session: a
    /// device is spaced back over its trailer's and its data's filemarks
    /// (see `write_trailer`) and its `records` records
    /// and read one record (of at most `record_bytes`) at a time up to its
    /// filemark, a file is sought to its start and
    /// read to its end. Each piece goes to `each`, which returns false to
    /// stop reading early. Returns how it was read, for the manifest: a
    /// file's read-back cannot get around the server's page cache.
    pub fn read_from_start(
        &mut self,
        record_bytes: usize,
        records: u64,
        each: impl FnMut(&[u8]) -> bool,
    ) -> Result<&'static str, RmtError> {
        if self.is_device() {
            // Back over the filemark and the volume's own records, not a
            // rewind: other backups may come before it on the tape.
            self.op(RemoteOp::BackspaceFiles, 2)?;
            for step in crate::tape::drive::limits::space_steps(records) {
                self.op(RemoteOp::BackspaceRecords, step)?;
            }
            let size = record_bytes.clamp(1, MAX_RECORD_BYTES);
            read_pieces(self.session(), 1, size, each)?;
            Ok("rmt, spaced back and read through the same session")
        } else {
            self.session().call(&Request::SEEK_START)?;
            read_pieces(self.session(), FILE_READ_AHEAD, FILE_READ_BYTES, each)?;
            Ok("rmt, read from the start through the same session; \
                the server's page cache may serve it")
        }
    }

    /// Ends the session without closing in order (after a failure).
    pub fn abandon(&mut self) {
        self.session = None;
    }
}

/// Reads with up to `ahead` requests of `size` bytes in flight, handing
/// each piece to `each` until a 0-byte reply (the end of the file, or the
/// filemark), an `E` reply, or until `each` says stop. The replies still
/// due are taken either way, so the session stays in step.
fn read_pieces(
    session: &mut Session,
    ahead: usize,
    size: usize,
    mut each: impl FnMut(&[u8]) -> bool,
) -> Result<(), RmtError> {
    let mut more = true;
    let mut refused = None;
    loop {
        while more && session.outstanding() < ahead {
            session.send(&Request::Read(size), &[])?;
        }
        if session.outstanding() == 0 {
            return refused.map_or(Ok(()), Err);
        }
        match RmtError::check(session.wait_reply()?) {
            Ok(Reply::Bytes(piece)) => {
                if more {
                    more = !piece.is_empty() && each(&piece);
                }
                session.recycle(piece);
            }
            Ok(other) => {
                return Err(RmtError::Desync(format!(
                    "R was answered {}, without its data",
                    describe(&other)
                )))
            }
            Err(e) => {
                more = false;
                refused.get_or_insert(e);
            }
        }
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
