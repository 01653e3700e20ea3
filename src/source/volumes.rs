//! Reading across volumes: a restore from several tapes, or from files
//! written with `--volume-size` or a numbered name.
//!
//! At the end of a volume (a filemark on a tape, end of file on a file)
//! the source reads the volume's trailer and decides whether another
//! follows (`sequence.rs`): while the trailers say the backup continues;
//! only for a set without any trailer, with `-n/--volumes N` until N have
//! been read, and with a numbered name while the next file exists. Every
//! byte handed on goes through XXH3-64, which each trailer's digest is
//! checked against. Then it closes the volume (ejecting a tape), gets the next one
//! in through the change policy, waits for a tape drive to be ready, and
//! goes on filling the same block, so the stream comes out as one. The
//! whole change counts as changing for the watchdog.

use crate::tape::encryption::key_refusal;
use crate::tape::protection::block_check;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crossbeam_channel::{never, Receiver};

use super::sequence::{Found, Next, Read, Sequence};
use super::{End, Filled, Source};
use crate::base::console::{message, say};
use crate::manifest::Manifest;
use crate::tape::{Access, AtEnd};
use crate::volume::load::MAX_REFUSALS;
use crate::volume::{
    ChangeFailed, ChangePolicy, Medium, MediumKind, NextVolume, Trailer, VolumeLog,
};

/// What one read from a volume gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Got {
    Bytes(usize),
    /// The rest of the block is too small for the next record: send the
    /// block as it is.
    BlockDone,
    EndOfVolume,
}

/// The read face of a medium (`tape::Medium` is what both faces share).
pub trait ReadMedium: Medium {
    /// Reads into `buf`; `fresh` says `buf` is a whole, empty block.
    fn read(&mut self, buf: &mut [u8], fresh: bool) -> io::Result<Got>;

    /// As `read` into `buf[..len]`, where `buf` holds room after `len`
    /// that the medium may scribble on (`room_after_record`): a tape with
    /// logical block protection reads each record's CRC there instead of
    /// copying the record.
    fn read_in(&mut self, buf: &mut [u8], len: usize, fresh: bool) -> io::Result<Got> {
        self.read(&mut buf[..len], fresh)
    }

    /// Bytes after its data that `read_in` may use, on the volume open now.
    fn room_after_record(&self) -> usize {
        0
    }

    /// Closes the volume in use, doing `then` to a tape first.
    fn end_volume(&mut self, then: AtEnd) -> io::Result<()>;

    /// Right after the volume's data ended: its trailer (`tape::trailer`),
    /// or None when it has none. A tape is left after the trailer's own
    /// filemark, or where the data ended when there is no trailer. Err
    /// for a trailer that cannot be read.
    fn read_trailer(&mut self) -> io::Result<Option<Trailer>> {
        Ok(None)
    }

    /// True if volume `n` can be opened without a change (numbered files).
    fn volume_exists(&self, n: u32) -> bool;

    /// Why tapebuf reads this medium itself rather than by splice(2): plain
    /// words that follow its name in the summary.
    fn read_by_tapebuf(&self) -> &'static str {
        match self.kind() {
            MediumKind::Tape => "is a tape drive, read a record at a time",
            MediumKind::Remote { .. } => "is read over rmt, a request per block",
            MediumKind::Files { .. } => "spans volumes, which tapebuf opens one after another",
        }
    }

    /// For a medium checked against a manifest: reads the first bytes of
    /// the volume just opened and says why it is not the volume expected;
    /// None when it is, or when nothing is checked.
    fn refuse(&mut self) -> io::Result<Option<String>> {
        Ok(None)
    }

    /// What was learnt while reading, for the summary.
    fn note(&self) -> Option<String> {
        None
    }

    /// True when the volume just ended was left part-read (verify
    /// reported it bad), so its trailer was not looked for.
    fn trailer_unread(&self) -> bool {
        false
    }
}

/// How many volumes to read, and how to change them.
#[derive(Debug, Clone, Default)]
pub struct ReadVolumes {
    pub policy: ChangePolicy,
    /// `-n/--volumes`: read exactly this many.
    pub count: Option<u32>,
    /// With a numbered name, go on while the next file exists.
    pub numbered: bool,
    pub at_end: AtEnd,
}

pub struct VolumeSource {
    medium: Box<dyn ReadMedium>,
    name: String,
    plan: ReadVolumes,
    volume: u32,
    log: Arc<VolumeLog>,
    stop: Receiver<()>,
    size: Option<u64>,
    /// A volume the medium refuses is changed for another (verify).
    ask_again: bool,
    /// Volume 1 was looked at.
    started: bool,
    /// The volume in use's logical block protection is in the log.
    protection_noted: bool,
    /// What the trailers said so far.
    sequence: Sequence,
    /// XXH3-64 of every byte handed on.
    digest: Box<xxhash_rust::xxh3::Xxh3>,
}

impl VolumeSource {
    /// `medium` has volume 1 open.
    pub fn new(medium: Box<dyn ReadMedium>, name: &str, plan: ReadVolumes) -> VolumeSource {
        let count = plan.count;
        VolumeSource {
            medium,
            name: name.to_string(),
            plan,
            volume: 1,
            log: VolumeLog::new(name),
            stop: never(),
            size: None,
            ask_again: false,
            started: false,
            protection_noted: false,
            sequence: Sequence::new(count),
            digest: Box::default(),
        }
    }

    /// The volumes are checked against `manifest`; a `restore` of a
    /// backup the manifest calls unclean never ends well (verify says so
    /// in its own words).
    pub fn with_manifest(mut self, manifest: &Manifest, restore: bool) -> VolumeSource {
        let unclean = (!manifest.clean && restore).then(|| {
            let why = manifest.unclean_because.clone();
            why.unwrap_or_else(|| "its run failed or was stopped".into())
        });
        self.sequence = self.sequence.with_manifest(unclean);
        self
    }

    /// Moves to the next volume if one follows. Ok(false) at the end.
    fn next_volume(&mut self) -> io::Result<bool> {
        let next = self.volume + 1;
        let name = self.medium.volume_name(self.volume);
        let trailer = self.medium.read_trailer().map_err(|e| {
            io::Error::new(e.kind(), format!("{name}: volume {}: {e}", self.volume))
        })?;
        let exists = self.plan.numbered && self.medium.volume_exists(next);
        let read = Read {
            volume_bytes: self.log.volumes().last().copied().unwrap_or(0),
            digest: self.digest.digest(),
        };
        let found = match &trailer {
            Some(t) => Found::Trailer(t),
            None if self.medium.trailer_unread() => Found::Unread,
            None => Found::Nothing,
        };
        match self.sequence.after(self.volume, found, read, exists) {
            Next::Volume => {}
            Next::End => {
                self.log.set_bounded(self.sequence.bounded());
                return Ok(false);
            }
            Next::Fail(why) => return Err(io::Error::other(format!("{name}: {why}"))),
        }
        self.log.set_changing(true);
        let changed = self.change(next);
        self.log.set_changing(false);
        changed.map(|()| true)
    }

    /// True when a person or the change command puts each volume in.
    fn swaps(&self) -> bool {
        self.medium.needs_swap() || self.plan.policy.command.is_some()
    }

    /// Closes the volume in use and opens volume `next`, asking again
    /// while the medium refuses what was put in.
    fn change(&mut self, next: u32) -> io::Result<()> {
        self.change_to(next, None)?;
        self.admit(next)
    }

    /// With `ask_again` and a medium that is swapped, asks for another
    /// volume `n` while the one loaded is refused, at most
    /// `MAX_REFUSALS` times in a row.
    fn admit(&mut self, n: u32) -> io::Result<()> {
        if !self.ask_again || !self.swaps() {
            return Ok(());
        }
        for attempt in 1.. {
            let Some(why) = self.medium.refuse()? else {
                return Ok(());
            };
            if attempt > MAX_REFUSALS {
                return Err(io::Error::other(format!(
                    "volume {n}: {why}; so were the {MAX_REFUSALS} loaded before it; giving up"
                )));
            }
            say(&message!(
                "{}: volume {n}: {why}; asking for another",
                self.medium.volume_name(n)
            ));
            self.change_to(n, Some(&why))?;
        }
        unreachable!("the attempts are counted without end")
    }

    /// Keeps a local tape's logical block protection on the volume just
    /// opened, for the summary.
    fn note_protection(&mut self) {
        if let Some(drive) = self.medium.drive() {
            self.log.set_protection(drive.protection());
        }
    }

    /// A read that failed on a tape, said with where: the volume and the
    /// block's address on the tape (the drive stands after the block it
    /// could not pass on); the reader's message adds the stream's byte
    /// offset of the block's first byte, nothing at or after which was
    /// passed on.
    fn where_read_failed(&mut self, e: io::Error) -> io::Error {
        let volume = self.volume;
        // Only what the drive said: a check of the volume (a manifest's)
        // names the volume itself.
        let before_read = key_refusal(&e).is_some();
        let from_drive = e.raw_os_error().is_some() || block_check(&e).is_some() || before_read;
        let Some(drive) = self.medium.drive().filter(|_| from_drive) else {
            return e;
        };
        // A read refused before it began (a key the drive lacks) names its
        // block itself.
        let block = match drive.position() {
            Ok(after) if after > 0 && !before_read => format!(", block {}", after - 1),
            _ => String::new(),
        };
        io::Error::new(e.kind(), format!("volume {volume}{block}: {e}"))
    }

    /// Closes the volume in use and opens volume `next`; `refused` says
    /// why the one in use is given back.
    fn change_to(&mut self, next: u32, refused: Option<&str>) -> io::Result<()> {
        let change = NextVolume {
            access: Access::Read,
            policy: &self.plan.policy,
            next,
            finished_bytes: self.log.volumes().last().copied().unwrap_or(0),
            refused,
            stop: &self.stop,
            log: &self.log,
        };
        change
            .change(self.medium.as_mut(), |medium, then| medium.end_volume(then))
            .map_err(|failed| match failed {
                ChangeFailed::Ending(e) | ChangeFailed::Open(e) => e,
                ChangeFailed::Change(why) => io::Error::other(why),
            })?;
        if next != self.volume {
            self.volume = next;
            self.log.next();
        }
        Ok(())
    }

    /// Asks for another volume when the medium refuses the one loaded
    /// (`tapebuf verify` with a change command or prompt).
    pub fn asking_again(mut self, ask: bool) -> VolumeSource {
        self.ask_again = ask;
        self
    }

    /// Sets the total size, when it is known (numbered files).
    pub fn with_size(mut self, size: Option<u64>) -> VolumeSource {
        self.size = size;
        self
    }
}

impl Source for VolumeSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        let len = buf.len();
        self.fill_in(buf, len, arrived)
    }

    fn fill_in(&mut self, buf: &mut [u8], len: usize, arrived: &AtomicU64) -> Filled {
        let mut bytes = 0;
        if !std::mem::replace(&mut self.started, true) {
            if let Err(e) = self.admit(1) {
                return Filled {
                    bytes,
                    end: End::Failed(e),
                };
            }
        }
        let end = loop {
            if bytes == len {
                break End::More;
            }
            match self
                .medium
                .read_in(&mut buf[bytes..], len - bytes, bytes == 0)
            {
                Ok(Got::Bytes(n)) => {
                    self.digest.update(&buf[bytes..bytes + n]);
                    bytes += n;
                    self.log.add(n as u64);
                    arrived.fetch_add(n as u64, Relaxed);
                }
                Ok(Got::BlockDone) => break End::More,
                Ok(Got::EndOfVolume) => match self.next_volume() {
                    Ok(true) => self.protection_noted = false,
                    Ok(false) => {
                        break match self.medium.end_volume(self.plan.at_end) {
                            Ok(()) => End::Eof,
                            Err(e) => End::Failed(e),
                        }
                    }
                    Err(e) => break End::Failed(e),
                },
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break End::Failed(self.where_read_failed(e)),
            }
        };
        // Once a volume, after its first read, which may have turned the
        // protection off (a record too large with its CRC).
        if !std::mem::replace(&mut self.protection_noted, true) {
            self.note_protection();
        }
        Filled { bytes, end }
    }

    fn room_after_block(&self) -> usize {
        self.medium.room_after_record()
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn size_hint(&self) -> Option<u64> {
        self.size
    }

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = stop.clone();
    }

    fn volumes(&self) -> Option<Arc<VolumeLog>> {
        Some(Arc::clone(&self.log))
    }

    fn is_tape(&self) -> bool {
        self.medium.kind().is_tape()
    }

    fn splice_refusal(&self) -> Option<String> {
        Some(format!(
            "-i {} {}",
            self.name,
            self.medium.read_by_tapebuf()
        ))
    }

    fn note(&self) -> Option<String> {
        let unlabeled = self.sequence.note(self.volume);
        let notes: Vec<String> = [self.medium.note(), unlabeled]
            .into_iter()
            .flatten()
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}
