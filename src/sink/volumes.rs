//! Writing across volumes: tapes that reach their end, and files split
//! with `--volume-size` or numbered names.
//!
//! The sink writes each block to the volume in use. When the volume is full
//! (ENOSPC, a 0-byte write, a short write on a tape, or `--volume-size`
//! reached), it closes the volume (a tape gets its filemark and its
//! trailer, `tape::trailer`, saying that the stream continues, and is
//! ejected), gets the next one in through the change policy, waits for a
//! tape drive to be ready, opens it, and writes the rest of the block
//! there. The last volume's trailer says `last`, or `cut` for a run that
//! was stopped or lost its input. The whole change, from the filemark to the open, counts as
//! changing for the watchdog. A block is written whole or in
//! order-preserving pieces, never twice and never skipped: the bytes on the
//! volumes, concatenated, are the stream. On a tape a block is only ever
//! split where the drive itself cut it short, so records stay whole.

use std::io;
use std::sync::Arc;

use crossbeam_channel::{never, Receiver};

use super::medium::{Writable, WriteMedium};
use super::output::{Sink, SinkTraits};
use super::read_back::close_volume;
use super::write_error::{PartialWrite, VolumeChangeFailed};
use crate::base::block::Block;
use crate::manifest::Ledger;
use crate::tape::{Access, AtEnd, Protection};
use crate::volume::trailer::new_backup_id;
use crate::volume::{
    ChangeFailed, ChangePolicy, Ends, NextVolume, Trailer, VolumeLog, VolumeNames,
};

/// Settings shared by every volume output.
#[derive(Debug, Clone, Default)]
pub struct VolumeSettings {
    pub policy: ChangePolicy,
    /// End a volume after this many bytes.
    pub volume_size: Option<u64>,
    /// What to do with a tape at the very end.
    pub at_end: AtEnd,
}

impl VolumeSettings {
    /// True when a file output named `names` spans volumes: it is
    /// numbered, has a volume size, or a change command is ready for a full
    /// disk.
    pub fn spans_files(&self, names: &VolumeNames) -> bool {
        names.is_numbered() || self.volume_size.is_some() || self.policy.command.is_some()
    }
}

/// Where a multi-volume output stands, and the volume change itself:
/// shared by `VolumeSink` and the pipelined rmt sink, which count bytes
/// differently but change volumes the same way.
pub struct Volumes {
    settings: VolumeSettings,
    volume: u32,
    on_volume: u64,
    log: Arc<VolumeLog>,
    stop: Receiver<()>,
    /// `--manifest`: every record committed, and each volume's end.
    ledger: Option<Arc<Ledger>>,
    /// The id every volume's trailer carries.
    backup: String,
    /// XXH3-64 over every byte committed so far, from the stream's first:
    /// each trailer carries it, so a restore can tell a substituted volume.
    digest: Box<xxhash_rust::xxh3::Xxh3>,
}

impl Volumes {
    /// Volume 1 is open.
    pub fn new(name: &str, settings: VolumeSettings) -> Volumes {
        Volumes {
            settings,
            volume: 1,
            on_volume: 0,
            log: VolumeLog::new(name),
            stop: never(),
            ledger: None,
            backup: new_backup_id(),
            digest: Box::default(),
        }
    }

    /// The trailer of the volume in use, ending as `ends` says.
    fn trailer(&self, ends: Ends) -> Trailer {
        Trailer {
            backup: self.backup.clone(),
            volume: self.volume,
            ends,
            volume_bytes: self.on_volume,
            stream_bytes: self.log.volumes().iter().sum(),
            stream_digest: Some(self.digest.digest()),
        }
    }

    /// Records the run for `--manifest` in `ledger`, from volume 1 on
    /// `name`.
    pub fn attach_ledger(&mut self, ledger: Arc<Ledger>, name: &str) {
        ledger.begin(self.volume, name);
        self.ledger = Some(ledger);
    }

    pub fn ledger(&self) -> Option<Arc<Ledger>> {
        self.ledger.clone()
    }

    /// Why a recorded output needs the copying ring, in plain words; None
    /// when nothing is recorded.
    pub fn recording_refusal(&self) -> Option<String> {
        let verify = self.ledger.as_ref()?.recording().verify;
        Some(match verify {
            true => "--verify keeps a checksum of every record, to compare the read-back".into(),
            false => "--manifest hashes every byte".into(),
        })
    }

    /// Counts `data`, one record or write, as committed to the volume in
    /// use.
    pub fn add(&mut self, data: &[u8]) {
        let n = data.len() as u64;
        self.on_volume += n;
        self.log.add(n);
        self.digest.update(data);
        if let Some(ledger) = &self.ledger {
            ledger.record(data);
        }
    }

    /// Finishes the volume in use with `then`, reading it back first for
    /// `--verify` (see `read_back`) unless the run is `stopping`. Its
    /// trailer says the stream ends here: `last`, or `cut` when the run
    /// is stopping (a signal, the watchdog, a failed input).
    pub fn close<M: WriteMedium + ?Sized>(
        &mut self,
        medium: &mut M,
        then: AtEnd,
        stopping: bool,
    ) -> io::Result<()> {
        // A read-back moves no byte of the stream: like a volume change,
        // it must not look like a stall to the watchdog.
        self.log.set_changing(true);
        let ends = if stopping { Ends::Cut } else { Ends::Last };
        if let Some(ledger) = self.ledger.as_ref().filter(|_| !stopping) {
            // The stream ended: the catalog is ended too, before the last
            // trailer, so that a copy can follow it onto the tape.
            ledger.finish_catalog();
        }
        let trailer = self.trailer(ends);
        let closed = close_volume(medium, self.ledger.as_deref(), &trailer, then, stopping);
        self.log.set_trailer_note(medium.trailer_note());
        self.log.set_changing(false);
        closed
    }

    /// The drive's block address of the volume in use's first record and
    /// a local tape's logical block protection, for the manifest and the
    /// summary.
    pub fn tape_start(&self, block: Option<u64>, protection: Option<Protection>) {
        if let Some(p) = &protection {
            self.log.set_protection(p.clone());
        }
        if let Some(ledger) = &self.ledger {
            ledger.set_tape_start(block, protection.as_ref());
        }
    }

    /// Bytes committed to the volume in use.
    pub fn on_volume(&self) -> u64 {
        self.on_volume
    }

    pub fn settings(&self) -> &VolumeSettings {
        &self.settings
    }

    pub fn log(&self) -> Arc<VolumeLog> {
        Arc::clone(&self.log)
    }

    /// Gives the volume change the run's stop signal.
    pub fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.stop = stop.clone();
    }

    /// Closes the full volume and opens the next one.
    pub fn next<M: WriteMedium + ?Sized>(&mut self, medium: &mut M) -> io::Result<()> {
        self.log.set_changing(true);
        let changed = self.change(medium);
        self.log.set_changing(false);
        changed
    }

    fn change<M: WriteMedium + ?Sized>(&mut self, medium: &mut M) -> io::Result<()> {
        let finished = self.volume;
        let on_volume = self.on_volume;
        let all: u64 = self.log.volumes().iter().sum();
        // What is safe: every closed volume, and this one once it closed.
        let fail = |why: String, closed: bool| {
            let (safe, last) = if closed {
                (all, finished)
            } else {
                (all - on_volume, finished - 1)
            };
            let place = match last {
                0 => "no volume".to_string(),
                1 => "volume 1".to_string(),
                n => format!("volumes 1-{n}"),
            };
            io::Error::other(VolumeChangeFailed(format!(
                "end of volume {finished} after {on_volume} bytes: {why}; {safe} bytes are safe on {place}"
            )))
        };
        let change = NextVolume {
            access: Access::Write,
            policy: &self.settings.policy,
            next: finished + 1,
            finished_bytes: on_volume,
            refused: None,
            stop: &self.stop,
            log: &self.log,
        };
        let trailer = self.trailer(Ends::Continues);
        let ledger = self.ledger.as_deref();
        let device = change
            .change(medium, |medium, then| {
                close_volume(medium, ledger, &trailer, then, false)
            })
            .map_err(|failed| match failed {
                ChangeFailed::Ending(e) => fail(format!("closing it failed: {e}"), false),
                ChangeFailed::Change(why) => fail(why, true),
                ChangeFailed::Open(e) => fail(e.to_string(), true),
            });
        self.log.set_trailer_note(medium.trailer_note());
        let device = device?;
        self.volume += 1;
        self.on_volume = 0;
        self.log.next();
        if let Some(ledger) = &self.ledger {
            ledger.begin(self.volume, &device);
        }
        Ok(())
    }

    /// Room left on this volume under `--volume-size`.
    pub(super) fn room(&self) -> u64 {
        match self.settings.volume_size {
            Some(size) => size.saturating_sub(self.on_volume),
            None => u64::MAX,
        }
    }

    /// The error for a volume that takes nothing at all.
    pub fn full_and_empty<M: WriteMedium + ?Sized>(&self, medium: &M) -> io::Error {
        io::Error::other(VolumeChangeFailed(format!(
            "volume {} ({}) is full before its first byte",
            self.volume,
            medium.volume_name(self.volume)
        )))
    }
}

/// A sink that spans volumes.
pub struct VolumeSink {
    pub(super) medium: Box<dyn Writable>,
    name: String,
    pub(super) volumes: Volumes,
}

impl VolumeSink {
    /// `medium` has volume 1 open.
    pub fn new(medium: Box<dyn Writable>, name: &str, settings: VolumeSettings) -> VolumeSink {
        VolumeSink {
            medium,
            name: name.to_string(),
            volumes: Volumes::new(name, settings),
        }
    }

    /// Records the run in `ledger` for `--manifest` (and `--verify`).
    pub fn with_ledger(mut self, ledger: Arc<Ledger>) -> VolumeSink {
        let first = self.medium.volume_name(1);
        self.volumes.attach_ledger(ledger, &first);
        self
    }
}

impl Sink for VolumeSink {
    /// A failure part-way through the block says how much of it went out,
    /// so the committed count matches the volume list.
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        self.write_pieces(data)
            .map_err(|(written, e)| PartialWrite::wrap(written, e))
    }

    /// A block that fits on the volume goes to the medium with its room
    /// (`Writable::write_in`), so a tape appends its CRC without a copy;
    /// whatever the volume did not take goes on as `write_block` would.
    fn write_in_place(&mut self, block: &mut Block) -> io::Result<()> {
        let len = block.len();
        let fits = len > 0 && self.volumes.room() >= len as u64;
        let Some(buf) = block.with_room_mut().filter(|_| fits) else {
            return self.write_block(block.data());
        };
        let (first, full) = match self.medium.write_in(buf, len) {
            Ok(n) => (n, n < len),
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => (0, true),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => (0, false),
            Err(e) => return Err(PartialWrite::wrap(0, e)),
        };
        let data = &buf[..len];
        self.took(&data[..first]);
        self.write_pieces_after(data, first, full)
            .map_err(|(written, e)| PartialWrite::wrap(written, e))
    }

    fn finish(&mut self) -> io::Result<()> {
        let at_end = self.volumes.settings.at_end;
        self.volumes.close(self.medium.as_mut(), at_end, false)
    }

    /// A stopped run closes the volume without reading it back.
    fn finish_early(&mut self) -> io::Result<()> {
        let at_end = self.volumes.settings.at_end;
        self.volumes.close(self.medium.as_mut(), at_end, true)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn attach_stop(&mut self, stop: &Receiver<()>) {
        self.volumes.attach_stop(stop);
    }

    fn traits(&self) -> SinkTraits {
        let kind = self.medium.kind();
        let how = match kind.whole_records() {
            true => "is a tape drive, written a record at a time",
            false => "spans volumes, which tapebuf cuts itself",
        };
        SinkTraits {
            medium: Some(kind),
            volumes: Some(self.volumes.log()),
            ledger: self.volumes.ledger(),
            room_after_block: self.medium.room_after_record(),
            splice_refusal: Some(
                self.volumes
                    .recording_refusal()
                    .unwrap_or_else(|| format!("-o {} {how}", self.name)),
            ),
            ..SinkTraits::default()
        }
    }
}
