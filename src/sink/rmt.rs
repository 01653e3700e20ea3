//! Writing to a tape drive or file on another host over rmt, pipelined.
//!
//! A block is sent as `W` and held until its reply; up to the window's
//! size of blocks are in flight at once, so the round trip is paid once
//! per window instead of once per block. As the only output the sink holds
//! the ring's own blocks (the ring has `keeps_blocks` extra for them);
//! beside other outputs it holds copies. Replies come back in
//! order, and each one settles the oldest block: `A<n>` commits it, `E28`
//! is the end of the medium, any other `E` ends the output. So the bytes
//! committed are known exactly at every moment, and a failure says how
//! many there are. A block counts as committed only once its reply has
//! come: blocks merely sent are never reported as written, also when the
//! run is stopped while the server is silent (a stop cuts every wait on
//! the server short, and the failure then carries the acknowledged count).
//!
//! After any refusal but the end of a tape, the blocks already sent behind
//! the refused one are still executed by the server. The sink takes their
//! replies (within the timeout) and says how many bytes landed beyond the
//! committed prefix: the medium then has a gap and stray data after it.
//! E28 from a regular file is a full disk, a plain write failure like a
//! local ENOSPC; only a device changes volumes at E28.
//!
//! At the end of the medium the server has already been sent the blocks
//! behind the one refused, and goes on executing them. A Linux tape drive
//! past its early warning alternately refuses and takes writes, so some of
//! those may land on the tape after the gap. The sink takes every
//! outstanding reply, spaces back over the records that landed late and
//! writes the filemark there, which erases them, so the volume ends with
//! exactly the blocks before the first refusal. Then the volume is changed
//! by the same logic as a local tape (each volume in its own session,
//! because GNU rmt exits after `C`), and every block from the first refused
//! one on is sent again to the new volume, in order.
//!
//! With `--manifest` every committed block goes to the ledger, and every
//! volume's end (a change, the finish) goes through `close_volume`, so
//! `--verify` reads the volume back through the same session before it is
//! ejected or closed (a remote file's read-back may come from the cache).

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;

use super::rmt_failure::{failure_why, landed_beyond};
use super::volumes::{VolumeSettings, Volumes};
use super::write_error::VolumeChangeFailed;
use super::{LateFailure, Sink, SinkTraits};
use crate::base::block::BlockRef;
use crate::manifest::{Ledger, Recording};
use crate::rmt::flavor::{OpenMode, RemoteOp};
use crate::rmt::name::RemoteName;
use crate::rmt::protocol::{Reply, Request, END_OF_MEDIUM_ERRNO};
use crate::rmt::remote::RemoteFile;
use crate::rmt::session::{RmtError, RmtSettings};
use crate::rmt::window::Window;
use crate::volume::Medium;

/// A block the sink holds until its reply.
enum Held {
    /// The ring's own block, lent by the writer.
    Ring(BlockRef),
    /// A copy, when the block was only lent for the call.
    Copy(Vec<u8>),
}

impl Held {
    fn data(&self) -> &[u8] {
        match self {
            Held::Ring(block) => block.data(),
            Held::Copy(bytes) => bytes,
        }
    }
}

pub struct RmtSink {
    file: RemoteFile,
    label: String,
    window: Window,
    /// Blocks sent and awaiting their replies, oldest first.
    in_flight: VecDeque<(Held, Instant)>,
    /// Blocks to send before any new one: those carried to a new volume.
    unsent: VecDeque<Held>,
    /// Copies whose replies have come, for reuse.
    spare: Vec<Vec<u8>>,
    volumes: Volumes,
    committed_bytes: u64,
    /// What became of the blocks sent after a refusal, for the message.
    beyond: Option<String>,
}

impl RmtSink {
    /// Starts the first session and opens the file or device; with
    /// `recording`, records the run for `--manifest` (read-write, to read
    /// each volume back, with `--verify`).
    pub fn open(
        name: &RemoteName,
        settings: &RmtSettings,
        mode: OpenMode,
        block_bytes: usize,
        volume_settings: VolumeSettings,
        recording: Option<Recording>,
    ) -> Result<RmtSink, RmtError> {
        let file = match recording {
            Some(r) if r.verify => RemoteFile::open_read_write(name, settings, mode)?,
            _ => RemoteFile::open(name, settings, mode)?,
        };
        let label = name.to_string();
        let mut volumes = Volumes::new(&label, volume_settings);
        if let Some(recording) = recording {
            volumes.attach_ledger(Ledger::new(recording, block_bytes, &label), &label);
        }
        Ok(RmtSink {
            file,
            window: Window::new(settings.window, block_bytes),
            in_flight: VecDeque::new(),
            unsent: VecDeque::new(),
            spare: Vec::new(),
            volumes,
            label,
            committed_bytes: 0,
            beyond: None,
        })
    }

    /// Sends what is waiting while the window has room, and settles
    /// replies; with `drain`, until every block has its reply.
    fn pump(&mut self, drain: bool) -> io::Result<()> {
        loop {
            while let Some(reply) = self.file.session().try_reply()? {
                self.settle(reply)?;
            }
            if !self.unsent.is_empty() && self.in_flight.len() < self.window.size() {
                let block = self.unsent.pop_front().expect("checked non-empty");
                let now = Instant::now();
                self.window.sending(now);
                let data = block.data();
                let sent = self.file.session().send(&Request::Write(data.len()), data);
                self.in_flight.push_back((block, now));
                if let Err(e) = sent {
                    return Err(self.explain(e));
                }
                continue;
            }
            let waiting = !self.unsent.is_empty() || (drain && !self.in_flight.is_empty());
            if !waiting {
                return Ok(());
            }
            if !self.unsent.is_empty() {
                self.window.full();
            }
            let reply = self.file.session().wait_reply()?;
            self.settle(reply)?;
        }
    }

    /// Settles the oldest block in flight with its reply.
    fn settle(&mut self, reply: Reply) -> io::Result<()> {
        let (block, sent) = self
            .in_flight
            .pop_front()
            .expect("every reply matches a block in flight");
        let len = block.data().len();
        let at = self.committed_bytes;
        match reply {
            Reply::Number(n) if n == len as u64 => {
                self.window.replied(sent, len, Instant::now());
                self.commit(block.data());
                if let Held::Copy(bytes) = block {
                    self.spare.push(bytes);
                }
                Ok(())
            }
            Reply::Number(n) if n > len as u64 => Err(RmtError::Protocol(format!(
                "protocol error: the server acknowledged {n} bytes of a {len}-byte block at byte {at}, \
                 more than was sent; the block is not counted"
            ))
            .into()),
            Reply::Number(n) => {
                self.commit(&block.data()[..n as usize]);
                self.account_beyond();
                Err(io::Error::other(RmtError::Protocol(format!(
                    "the server wrote only {n} of a {len}-byte block at byte {at} (a short W count)"
                ))))
            }
            Reply::Failed { errno, message }
                if errno == END_OF_MEDIUM_ERRNO && self.file.is_device() =>
            {
                self.end_of_medium(block, &message)
            }
            Reply::Failed { errno, message } if errno == END_OF_MEDIUM_ERRNO => {
                self.account_beyond();
                Err(io::Error::other(format!(
                    "the remote disk is full: the server replied \"{message}\" (E{errno}) at byte {at}"
                )))
            }
            Reply::Failed { errno, message } => {
                self.account_beyond();
                Err(io::Error::other(format!(
                    "{} at byte {at}",
                    RmtError::Remote { errno, message }
                )))
            }
            Reply::Bytes(_) => Err(RmtError::Protocol("data in reply to a write".into()).into()),
        }
    }

    /// After a refusal: notes what became of the blocks sent behind it.
    fn account_beyond(&mut self) {
        if self.in_flight.is_empty() {
            return;
        }
        let timeout = self.file.settings.timeout;
        self.beyond = Some(landed_beyond(
            &mut self.in_flight,
            self.file.session(),
            timeout,
        ));
    }

    fn commit(&mut self, data: &[u8]) {
        self.committed_bytes += data.len() as u64;
        self.volumes.add(data);
    }

    /// The server refused `first` with E28: close this volume with exactly
    /// the blocks before it, change volumes, and queue the rest again.
    fn end_of_medium(&mut self, first: Held, message: &str) -> io::Result<()> {
        if self.volumes.on_volume() == 0 {
            let empty = self.volumes.full_and_empty(&self.file);
            return Err(io::Error::other(VolumeChangeFailed(format!(
                "{empty}: the server replied \"{message}\" (E{END_OF_MEDIUM_ERRNO}, the end of the medium)"
            ))));
        }
        let mut carry = vec![first];
        let mut late_records = 0u32;
        while let Some((block, _)) = self.in_flight.pop_front() {
            if let Reply::Number(n) = self.file.session().wait_reply()? {
                if n > 0 {
                    late_records += 1;
                }
            }
            carry.push(block);
        }
        if late_records > 0 {
            let taken_back = self
                .file
                .op(RemoteOp::BackspaceRecords, late_records)
                .and_then(|()| self.file.end_data());
            if let Err(e) = taken_back {
                return Err(io::Error::other(VolumeChangeFailed(format!(
                    "end of the medium after {} bytes: {late_records} records landed after the end \
                     and could not be taken back ({e}); the volume ends with misplaced blocks",
                    self.volumes.on_volume()
                ))));
            }
        }
        self.volumes.next(&mut self.file)?;
        for block in carry.into_iter().rev() {
            self.unsent.push_front(block);
        }
        Ok(())
    }

    /// The error for a send that failed. The replies the server sent
    /// before the session broke are settled first: they commit blocks, and
    /// an `E` reply or a short count among them explains the failure better.
    fn explain(&mut self, sent: RmtError) -> io::Error {
        while self.file.session().outstanding() > 0 {
            match self.file.session().wait_reply() {
                Ok(reply) => {
                    if let Err(e) = self.settle(reply) {
                        return e;
                    }
                }
                Err(_) => break,
            }
        }
        sent.into()
    }

    /// Waits for every reply, then closes the volume (reading it back
    /// first for `--verify`, unless the run is `stopping`).
    fn end(&mut self, stopping: bool) -> io::Result<()> {
        let at_end = self.volumes.settings().at_end;
        self.pump(true)
            .and_then(|()| self.volumes.close(&mut self.file, at_end, stopping))
            .map_err(|e| self.failure(e))
    }

    /// Wraps a failure with the exact number of bytes committed.
    fn failure(&mut self, e: io::Error) -> io::Error {
        self.file.abandon();
        let why = failure_why(
            &e,
            self.committed_bytes,
            self.in_flight.len(),
            self.beyond.take(),
        );
        io::Error::other(LateFailure { why })
    }
}

impl Sink for RmtSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        let mut copy = self.spare.pop().unwrap_or_default();
        copy.clear();
        copy.extend_from_slice(data);
        self.unsent.push_back(Held::Copy(copy));
        self.pump(false).map_err(|e| self.failure(e))
    }

    fn write_shared(&mut self, block: &BlockRef) -> io::Result<()> {
        self.unsent.push_back(Held::Ring(Arc::clone(block)));
        self.pump(false).map_err(|e| self.failure(e))
    }

    fn acknowledged_bytes(&self) -> Option<u64> {
        Some(self.committed_bytes)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.end(false)
    }

    /// A stopped run closes the volume without reading it back.
    fn finish_early(&mut self) -> io::Result<()> {
        self.end(true)
    }

    fn name(&self) -> &str {
        &self.label
    }

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.volumes.attach_stop(stop);
        self.file.attach_stop(stop);
    }

    /// It keeps every block in flight, and no more: `pump` returns with
    /// nothing unsent, and a volume change only sends again what was in
    /// flight.
    fn traits(&self) -> SinkTraits {
        SinkTraits {
            medium: Some(self.file.kind()),
            keeps_blocks: self.window.most(),
            volumes: Some(self.volumes.log()),
            ledger: self.volumes.ledger(),
            splice_refusal: Some(self.volumes.recording_refusal().unwrap_or_else(|| {
                format!("-o {} is written over rmt, a request per block", self.label)
            })),
            link: None,
            room_after_block: 0,
        }
    }
}
