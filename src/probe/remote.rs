//! The probe's remote target: a tape drive or file on another host, over
//! rmt, pipelined like tapebuf's own rmt output and input.
//!
//! Each pass is its own session, since GNU rmt exits after a close. A
//! write pass opens a device as it is, or a file truncated, and keeps a
//! window of `W` requests in flight; the quarter-mark sync and the end take
//! every reply, so the marks time bytes the server has written. A read
//! pass opens the path for reading, rewinds a tape, and keeps a window of
//! `R` requests in flight, never asking for more records than the pass
//! wrote, so it never reads past the filemark. The invariant: a remote
//! tape is rewound by `cleanup`, and a remote file is left empty (rmt cannot
//! remove a file).

use std::collections::VecDeque;
use std::io;
use std::time::Instant;

use super::schema::TargetKind;
use super::target::{Pass, ProbeTarget};
use crate::rmt::flavor::{OpenMode, RemoteOp};
use crate::rmt::name::RemoteName;
use crate::rmt::protocol::{Reply, Request};
use crate::rmt::remote::RemoteFile;
use crate::rmt::session::{RmtError, RmtSettings};
use crate::rmt::window::Window;
use crate::tape::AtEnd;

pub struct RemoteTarget {
    name: RemoteName,
    label: String,
    settings: RmtSettings,
    file: Option<RemoteFile>,
    window: Window,
    /// Requests sent whose replies are awaited: (bytes asked, sent at).
    in_flight: VecDeque<(usize, Instant)>,
    block_bytes: usize,
    /// Bytes of the pass not yet asked for by an `R`.
    unrequested_bytes: u64,
}

impl RemoteTarget {
    /// Checks that the server can be reached and the path opened for
    /// writing (a file is created or truncated), and closes it again.
    pub fn open(name: &RemoteName, settings: &RmtSettings) -> io::Result<RemoteTarget> {
        let mut target = RemoteTarget {
            name: name.clone(),
            label: name.to_string(),
            settings: settings.clone(),
            file: None,
            window: Window::new(settings.window, 1),
            in_flight: VecDeque::new(),
            block_bytes: 1,
            unrequested_bytes: 0,
        };
        let mut file = RemoteFile::open(name, settings, target.write_mode())?;
        if name.is_device() {
            file.op(RemoteOp::Rewind, 1)?;
        }
        file.close(AtEnd::Stay)?;
        target.file = None;
        Ok(target)
    }

    fn write_mode(&self) -> OpenMode {
        if self.name.is_device() {
            OpenMode::WriteDevice
        } else {
            OpenMode::Truncate
        }
    }

    fn file(&mut self) -> io::Result<&mut RemoteFile> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("no pass is under way"))
    }

    /// Takes the oldest reply and checks it.
    fn settle(&mut self) -> io::Result<Option<Vec<u8>>> {
        let (asked, sent) = self
            .in_flight
            .pop_front()
            .expect("a reply is awaited only for a request sent");
        let reply = RmtError::check(self.file()?.session().wait_reply()?)?;
        match reply {
            Reply::Number(n) if n == asked as u64 => {
                self.window.replied(sent, asked, Instant::now());
                Ok(None)
            }
            Reply::Number(n) => Err(io::Error::other(format!(
                "the server wrote {n} of a {asked}-byte block"
            ))),
            Reply::Bytes(data) => {
                self.window.replied(sent, data.len().max(1), Instant::now());
                Ok(Some(data))
            }
            Reply::Failed { .. } => unreachable!("checked above"),
        }
    }

    fn request_reads(&mut self) -> io::Result<()> {
        while self.unrequested_bytes > 0 && self.in_flight.len() < self.window.size() {
            let n = (self.block_bytes as u64).min(self.unrequested_bytes) as usize;
            let now = Instant::now();
            self.window.sending(now);
            self.file()?.session().send(&Request::Read(n), &[])?;
            self.in_flight.push_back((n, now));
            self.unrequested_bytes -= n as u64;
        }
        Ok(())
    }

    fn drain(&mut self) -> io::Result<()> {
        while !self.in_flight.is_empty() {
            self.settle()?;
        }
        Ok(())
    }
}

impl ProbeTarget for RemoteTarget {
    fn name(&self) -> &str {
        &self.label
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Remote
    }

    fn method(&self) -> String {
        let then = if self.name.is_device() {
            "the tape rewound between passes"
        } else {
            "the file truncated for each write pass"
        };
        format!(
            "rmt through '{}': requests pipelined, {then}",
            self.settings.rsh.join(" ")
        )
    }

    fn begin(&mut self, pass: Pass, block_bytes: usize, stream_bytes: u64) -> io::Result<()> {
        self.in_flight.clear();
        self.block_bytes = block_bytes;
        self.window = Window::new(self.settings.window, block_bytes);
        let mode = match pass {
            Pass::Write => self.write_mode(),
            Pass::Read => OpenMode::Read,
        };
        let mut file = RemoteFile::open(&self.name, &self.settings, mode)?;
        if pass == Pass::Read && self.name.is_device() {
            file.op(RemoteOp::Rewind, 1)?;
        }
        self.file = Some(file);
        self.unrequested_bytes = if pass == Pass::Read { stream_bytes } else { 0 };
        if pass == Pass::Read {
            self.request_reads()?;
        }
        Ok(())
    }

    fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        if self.in_flight.len() >= self.window.size() {
            // The link is what waits: a wider window may help.
            self.window.full();
        }
        while self.in_flight.len() >= self.window.size() {
            self.settle()?;
        }
        let now = Instant::now();
        self.window.sending(now);
        self.file()?
            .session()
            .send(&Request::Write(block.len()), block)?;
        self.in_flight.push_back((block.len(), now));
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.drain()
    }

    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.in_flight.is_empty() {
            return Ok(0);
        }
        let data = self.settle()?.unwrap_or_default();
        if data.len() > buf.len() {
            return Err(io::Error::other(format!(
                "a record of {} bytes came back for a {}-byte block",
                data.len(),
                buf.len()
            )));
        }
        buf[..data.len()].copy_from_slice(&data);
        let n = data.len();
        self.file()?.session().recycle(data);
        self.request_reads()?;
        Ok(n)
    }

    fn end(&mut self) -> io::Result<()> {
        self.drain()?;
        let mut file = self
            .file
            .take()
            .ok_or_else(|| io::Error::other("no pass"))?;
        // The server's close writes the filemark after a write.
        file.close(AtEnd::Stay)?;
        Ok(())
    }

    fn cleanup(&mut self) -> io::Result<String> {
        if let Some(mut file) = self.file.take() {
            // Replies may be outstanding after an error or a signal: end
            // the session without an orderly close.
            file.abandon();
        }
        self.in_flight.clear();
        if self.name.is_device() {
            let mut file = RemoteFile::open(&self.name, &self.settings, OpenMode::Read)?;
            file.op(RemoteOp::Rewind, 1)?;
            file.close(AtEnd::Stay)?;
            Ok(format!("rewound {}", self.label))
        } else {
            let mut file = RemoteFile::open(&self.name, &self.settings, OpenMode::Truncate)?;
            file.close(AtEnd::Stay)?;
            Ok(format!("left {} empty", self.label))
        }
    }
}
