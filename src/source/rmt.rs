//! Reading a tape drive or file on another host over rmt, pipelined.
//!
//! The reader keeps a window of `R` requests of one block each in flight,
//! so a restore pays the round trip once per window, like a backup. Each
//! reply holds one record (a tape) or one read's worth (a file); its bytes
//! are copied into the ring's blocks, so blocks come out full whatever the
//! record size. `A0` is a filemark or the end of a file, and ends the
//! volume.
//!
//! A regular file (a path outside `/dev/`) reads short only at its end, so
//! a short record is held back until the next reply confirms the end
//! (`A0`). A short record followed by more data means a reply was extra or
//! out of step with the requests (a server that answered one `R` twice),
//! and is an error before the suspect bytes reach the output.
//!
//! Reading ahead is safe for the data but moves the tape: the requests
//! behind the filemark have already read records of the next tape file.
//! When the tape is to stay where it is (no `--rewind` or `--eject`), the
//! reader steps back over what it read ahead, so the tape is left just
//! after the filemark, as a lock-step reader leaves it: back over the
//! records if it crossed no other filemark, else back over the filemarks
//! and forward over one. Extra `A0` replies alone (the end of a file read
//! again, or empty tape files) move nothing that can be told apart, and are
//! left as they are. At blank tape after the recorded data st answers the
//! first read `A0`, like a filemark, and fails the next: an `A0` just
//! before a failure is counted as blank tape, not as a filemark.
//!
//! The first record right after a device's filemark may be the volume's
//! trailer (`tape::trailer`): it is kept from the read-ahead (or read then,
//! when nothing was read ahead), and when it is one, the tape is left
//! after the trailer's own tape file instead.

use std::collections::VecDeque;
use std::io;
use std::time::Instant;

use super::volumes::{Got, ReadMedium};
use crate::rmt::flavor::RemoteOp;
use crate::rmt::protocol::{Reply, Request};
use crate::rmt::remote::RemoteFile;
use crate::rmt::session::RmtError;
use crate::rmt::window::Window;
use crate::tape::AtEnd;
use crate::volume::{Medium, MediumKind, Trailer};

/// What the read-ahead found behind the filemark.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Overrun {
    /// Filemarks crossed after the one that ended the volume.
    pub filemarks: u32,
    /// Records read after the last of those filemarks.
    pub records: u32,
    /// Whether any record was read at all.
    pub data_seen: bool,
}

impl Overrun {
    /// The tape operations that undo the read-ahead.
    pub fn undo(self) -> Vec<(RemoteOp, u32)> {
        match (self.data_seen, self.filemarks, self.records) {
            (false, _, _) => vec![],
            (true, 0, records) => vec![(RemoteOp::BackspaceRecords, records)],
            (true, filemarks, _) => vec![
                (RemoteOp::BackspaceFiles, filemarks + 1),
                (RemoteOp::ForwardFiles, 1),
            ],
        }
    }
}

pub struct RmtReader {
    file: RemoteFile,
    block_bytes: usize,
    window: Window,
    in_flight: VecDeque<Instant>,
    /// The record being copied out, and how far.
    record: Vec<u8>,
    copied: usize,
    overrun: Overrun,
    smallest: usize,
    largest: usize,
    /// Bytes passed on so far, for messages.
    delivered: u64,
    /// The end of the file was seen behind the record being copied out.
    end_seen: bool,
    /// Behind the filemark: whether anything was read there yet, the
    /// first record if it came right after the filemark (perhaps the
    /// trailer), and whether that trailer was taken.
    looked_behind: bool,
    after_mark: Option<Vec<u8>>,
    trailer_taken: bool,
    /// The last reply behind the filemark was a 0, counted as a filemark;
    /// the records counted before it, in case it was blank tape instead.
    zero_last: Option<u32>,
}

impl RmtReader {
    /// `file` is open for reading.
    pub fn new(file: RemoteFile, block_bytes: usize) -> RmtReader {
        let window = Window::new(file.settings.window, block_bytes);
        RmtReader {
            file,
            block_bytes,
            window,
            in_flight: VecDeque::new(),
            record: Vec::new(),
            copied: 0,
            overrun: Overrun::default(),
            smallest: usize::MAX,
            largest: 0,
            delivered: 0,
            end_seen: false,
            looked_behind: false,
            after_mark: None,
            trailer_taken: false,
            zero_last: None,
        }
    }

    fn request_more(&mut self) -> Result<(), RmtError> {
        while self.in_flight.len() < self.window.size() {
            let now = Instant::now();
            self.window.sending(now);
            self.file
                .session()
                .send(&Request::Read(self.block_bytes), &[])?;
            self.in_flight.push_back(now);
        }
        Ok(())
    }

    /// Sends more requests; when sending fails, the replies that came
    /// before are still taken, and the failure shows once they run out.
    fn request_more_or_take_replies(&mut self) -> Result<(), RmtError> {
        match self.request_more() {
            Err(e) if self.in_flight.is_empty() => Err(e),
            _ => Ok(()),
        }
    }

    /// The next record; empty at a filemark or the end of the file.
    fn next_record(&mut self) -> Result<Vec<u8>, RmtError> {
        self.request_more_or_take_replies()?;
        if !self.file.session().reply_ready() {
            // The ring is waiting on the link: a wider window would help.
            self.window.full();
            self.request_more_or_take_replies()?;
        }
        let reply = self.file.session().wait_reply()?;
        let sent = self.in_flight.pop_front().expect("a reply to a request");
        match RmtError::check(reply)? {
            Reply::Bytes(data) => {
                self.window.replied(sent, data.len().max(1), Instant::now());
                Ok(data)
            }
            _ => Err(RmtError::Protocol("a read got no data".into())),
        }
    }

    /// The error for a failed read; ENOMEM from the server means a record
    /// larger than the block.
    fn explain(&self, e: RmtError) -> io::Error {
        if e.errno() == Some(libc::ENOMEM) {
            return io::Error::other(format!(
                "a tape record is larger than the {}-byte block; run again with a larger -s/--block-size",
                self.block_bytes
            ));
        }
        e.into()
    }

    /// Takes the replies to the requests behind the filemark, keeping the
    /// first record if it came right after it.
    fn drain_read_ahead(&mut self) -> Result<(), RmtError> {
        let mut overrun = Overrun::default();
        let mut failed = false;
        self.looked_behind = !self.in_flight.is_empty();
        while self.in_flight.pop_front().is_some() {
            let reply = self.file.session().wait_reply()?;
            if !failed {
                self.count_behind(&mut overrun, reply, &mut failed);
            }
        }
        self.overrun = overrun;
        Ok(())
    }

    /// Counts one reply to a read behind the filemark into `overrun`.
    fn count_behind(&mut self, overrun: &mut Overrun, reply: Reply, failed: &mut bool) {
        let zero_before = self.zero_last.take();
        match reply {
            Reply::Bytes(data) if data.is_empty() => {
                self.zero_last = Some(overrun.records);
                overrun.filemarks += 1;
                overrun.records = 0;
            }
            Reply::Bytes(data) => {
                let first = !overrun.data_seen && overrun.filemarks == 0;
                overrun.records += 1;
                overrun.data_seen = true;
                match first {
                    true => self.after_mark = Some(data),
                    false => self.file.session().recycle(data),
                }
            }
            // A record larger than the read: the tape moved past it.
            Reply::Failed { errno, .. } if errno == libc::ENOMEM => {
                overrun.records += 1;
                overrun.data_seen = true;
                *failed = true;
            }
            _ => {
                // At blank tape st answers the first read 0, as at a
                // filemark, and fails the next (seen in the tape lab): a 0
                // just before a failure was no filemark.
                if let Some(records) = zero_before {
                    overrun.filemarks -= 1;
                    overrun.records = records;
                }
                *failed = true;
            }
        }
    }

    /// When the read-ahead ended on a 0 and the tape is to be stepped
    /// back, reads on until a reply tells a filemark from blank tape.
    fn settle_behind(&mut self) -> Result<(), RmtError> {
        for _ in 0..4 {
            if self.zero_last.is_none() || !self.overrun.data_seen {
                return Ok(());
            }
            self.read_behind()?;
        }
        Ok(())
    }

    /// Reads one more record behind the filemark, now, and counts it.
    fn read_behind(&mut self) -> Result<(), RmtError> {
        let session = self.file.session();
        session.send(&Request::Read(self.block_bytes), &[])?;
        let reply = session.wait_reply()?;
        let mut overrun = self.overrun;
        self.count_behind(&mut overrun, reply, &mut false);
        self.overrun = overrun;
        Ok(())
    }
}

impl ReadMedium for RmtReader {
    fn read(&mut self, buf: &mut [u8], _fresh: bool) -> io::Result<Got> {
        if self.copied == self.record.len() {
            if std::mem::take(&mut self.end_seen) {
                self.drain_read_ahead()?;
                return Ok(Got::EndOfVolume);
            }
            let record = self.next_record().map_err(|e| self.explain(e))?;
            if record.is_empty() {
                self.drain_read_ahead()?;
                return Ok(Got::EndOfVolume);
            }
            if record.len() < self.block_bytes && !self.file.is_device() {
                let next = self.next_record().map_err(|e| self.explain(e))?;
                if !next.is_empty() {
                    return Err(io::Error::other(RmtError::Desync(format!(
                        "a read of {} bytes at byte {} got {}, and the next read {} more, but a \
                         regular file reads short only at its end: a reply was extra or out of \
                         step, so none of these bytes were passed on",
                        self.block_bytes,
                        self.delivered,
                        record.len(),
                        next.len()
                    ))));
                }
                self.end_seen = true;
            }
            self.smallest = self.smallest.min(record.len());
            self.largest = self.largest.max(record.len());
            let old = std::mem::replace(&mut self.record, record);
            self.file.session().recycle(old);
            self.copied = 0;
        }
        let n = buf.len().min(self.record.len() - self.copied);
        buf[..n].copy_from_slice(&self.record[self.copied..self.copied + n]);
        self.copied += n;
        self.delivered += n as u64;
        Ok(Got::Bytes(n))
    }

    /// A device's trailer is the first record behind the data's
    /// filemark: taken from what was read ahead, or read now when nothing
    /// was. The tape is put back by `end_volume`.
    fn read_trailer(&mut self) -> io::Result<Option<Trailer>> {
        if !self.file.is_device() {
            return Ok(None);
        }
        if !self.looked_behind {
            self.looked_behind = true;
            self.read_behind()?;
        }
        self.settle_behind()?;
        let Some(record) = self.after_mark.take() else {
            return Ok(None);
        };
        match Trailer::parse(&record) {
            Ok(Some(trailer)) => {
                self.trailer_taken = true;
                Ok(Some(trailer))
            }
            Ok(None) => Ok(None),
            Err(why) => Err(io::Error::other(why)),
        }
    }

    fn end_volume(&mut self, then: AtEnd) -> io::Result<()> {
        if then == AtEnd::Stay {
            // Back to just after the data's filemark, then past the
            // trailer's tape file if there was one.
            let mut moves = self.overrun.undo();
            if std::mem::take(&mut self.trailer_taken) {
                moves.push((RemoteOp::ForwardFiles, 1));
            }
            for (op, count) in moves {
                self.file.op(op, count).map_err(|e| {
                    io::Error::other(format!(
                        "the read-ahead went past the filemark and could not step back ({e}); \
                         the tape is not left after this file"
                    ))
                })?;
            }
        }
        self.overrun = Overrun::default();
        self.file.close(then).map_err(io::Error::from)
    }

    fn volume_exists(&self, _n: u32) -> bool {
        true
    }

    fn note(&self) -> Option<String> {
        super::records_note("remote records", self.smallest, self.largest)
    }
}

impl Medium for RmtReader {
    fn kind(&self) -> MediumKind {
        MediumKind::Remote {
            device: self.file.is_device(),
        }
    }

    fn open_volume(&mut self, _n: u32) -> io::Result<()> {
        self.record.clear();
        self.copied = 0;
        self.end_seen = false;
        self.looked_behind = false;
        self.after_mark = None;
        self.trailer_taken = false;
        self.zero_last = None;
        self.file.reopen().map_err(io::Error::from)
    }

    fn volume_name(&self, _n: u32) -> String {
        self.file.name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_ahead_is_undone_by_the_shortest_moves() {
        let none = Overrun::default();
        assert!(none.undo().is_empty());
        let records = Overrun {
            filemarks: 0,
            records: 7,
            data_seen: true,
        };
        assert_eq!(records.undo(), vec![(RemoteOp::BackspaceRecords, 7)]);
        let crossed = Overrun {
            filemarks: 2,
            records: 0,
            data_seen: true,
        };
        assert_eq!(
            crossed.undo(),
            vec![(RemoteOp::BackspaceFiles, 3), (RemoteOp::ForwardFiles, 1)]
        );
        let only_marks = Overrun {
            filemarks: 3,
            records: 0,
            data_seen: false,
        };
        assert!(only_marks.undo().is_empty());
    }
}
