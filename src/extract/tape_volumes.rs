//! A local tape drive read at random: the volume wanted is got in and
//! recognised (`tape_load.rs`), then each record is reached by seeking
//! and read whole, one read(2) a record.
//!
//! Positioning: `TapeOp::SeekBlock(first_block + record)` (MTSEEK, SCSI
//! LOCATE) when the manifest has the volume's first block. When it has
//! none, a volume starts where the tape is when it is got, as a restore
//! reads it (a cartridge just loaded is at its start; one a user put at
//! the backup with `mt fsf` is there), and records are spaced over from
//! there, forward (MTFSR) or back (MTBSR). A drive that refuses the seek
//! is rewound and spaced over, which reaches a volume at block 0 only:
//! spacing over records stops at the filemarks of tape files before it.
//! A record a few records ahead is read through instead
//! (`READ_THROUGH_RECORDS`): a seek costs more than reading them. Every
//! seek is counted.

use std::io;

use super::volume_reader::{Cost, VolumeReader};
use super::walk::RecordAt;
use crate::base::console::{message, say};
use crate::manifest::Manifest;
use crate::tape::{Drive, TapeOp};
use crate::volume::ChangePolicy;

/// A record at most this far ahead of the tape is read through, not
/// seeked to.
pub const READ_THROUGH_RECORDS: u64 = 4;

/// The most one MTFSR may count (st takes an int).
const MAX_SPACE: u64 = i32::MAX as u64;

/// A tape drive holding the backup's cartridges one at a time.
pub struct TapeVolumes<'m> {
    pub(super) drive: Box<dyn Drive>,
    /// The device is open (else closed, as a probe left it).
    pub(super) opened: bool,
    /// A cartridge was got in for this run already.
    pub(super) loaded_once: bool,
    pub(super) policy: ChangePolicy,
    pub(super) manifest: &'m Manifest,
    pub(super) quiet: bool,
    /// The volume in the drive, recognised.
    pub(super) volume: Option<u32>,
    /// The record the next read gives, on that volume; None when unknown.
    pub(super) at: Option<u64>,
    /// The last record read (volume, record) and its bytes.
    pub(super) held: Option<(u32, u64, Vec<u8>)>,
    /// The drive refused a seek: records are spaced over from now on.
    pub(super) seek_refused: bool,
    pub(super) cost: Cost,
}

impl<'m> TapeVolumes<'m> {
    /// `drive` is the tape drive, `opened` or closed as a probe left it.
    pub fn new(
        drive: Box<dyn Drive>,
        opened: bool,
        policy: ChangePolicy,
        manifest: &'m Manifest,
        quiet: bool,
    ) -> TapeVolumes<'m> {
        TapeVolumes {
            drive,
            opened,
            loaded_once: false,
            policy,
            manifest,
            quiet,
            volume: None,
            at: None,
            held: None,
            seek_refused: false,
            cost: Cost::default(),
        }
    }

    /// The manifest's first block of volume `n`: where its record 0 is.
    pub(super) fn first_block(&self, n: u32) -> Option<u64> {
        self.manifest.volume(n).and_then(|v| v.first_block)
    }

    /// Makes `record` of the volume in the drive the next one read.
    pub(super) fn position(&mut self, n: u32, record: u64) -> Result<(), String> {
        match self.at {
            Some(at) if at == record => return Ok(()),
            Some(at) if at < record && record - at <= READ_THROUGH_RECORDS => {
                for r in at..record {
                    let bytes = self.record_bytes(n, r)?;
                    let mut skip = vec![0u8; bytes as usize];
                    self.read_record(n, r, &mut skip)?;
                }
                return Ok(());
            }
            _ => {}
        }
        self.cost.seeks += 1;
        let was = self.at.take();
        if let (false, Some(first)) = (self.seek_refused, self.first_block(n)) {
            let block = u32::try_from(first + record).map_err(|_| "block address too large")?;
            match self.drive.op(TapeOp::SeekBlock(block)) {
                Ok(()) => {
                    self.at = Some(record);
                    return Ok(());
                }
                Err(e) => return self.unsought(n, record, first, &e),
            }
        }
        // No seek: within a volume there is no filemark, so records are
        // spaced over from where the tape is, forward or back.
        let Some(at) = was else {
            return Err(format!(
                "cannot reach record {record} of volume {n}: where the tape is is not known, and the drive does not seek"
            ));
        };
        self.space(n, at, record)
    }

    /// The drive refused to seek to `record` of volume `n`, which starts
    /// at block `first`: said once, and from now on records are spaced
    /// over. A refused seek leaves the tape anywhere, so it is rewound;
    /// only a volume at the tape's start (block 0) is reached that way, as
    /// spacing over records stops at the filemarks of tape files before it.
    fn unsought(&mut self, n: u32, record: u64, first: u64, e: &io::Error) -> Result<(), String> {
        self.seek_refused = true;
        if first != 0 {
            return Err(format!(
                "cannot reach record {record} of volume {n}: the drive refused to seek (MTSEEK: {e}), and the volume starts at block {first}, after other tape files"
            ));
        }
        if !self.quiet {
            say(&message!(
                "extract: {}: the drive refused to seek (MTSEEK: {e}); spacing over records (MTFSR) instead",
                self.drive.name()
            ));
        }
        let failed = |e: io::Error| format!("cannot rewind to reach volume {n}: {e}");
        self.drive.op(TapeOp::Rewind).map_err(failed)?;
        self.space(n, 0, record)
    }

    /// Spaces from record `at` of volume `n`, where the tape is, to
    /// `record`: forward (MTFSR) or back (MTBSR).
    fn space(&mut self, n: u32, at: u64, record: u64) -> Result<(), String> {
        let failed = |e: io::Error| format!("cannot space to record {record} of volume {n}: {e}");
        let mut count = record.abs_diff(at);
        while count > 0 {
            let step = count.min(MAX_SPACE) as u32;
            let op = match record > at {
                true => TapeOp::ForwardRecords(step),
                false => TapeOp::BackspaceRecords(step),
            };
            self.drive.op(op).map_err(failed)?;
            count -= u64::from(step);
        }
        self.at = Some(record);
        Ok(())
    }

    /// The length of `record` of volume `n`, by the manifest.
    pub(super) fn record_bytes(&self, n: u32, record: u64) -> Result<u64, String> {
        (self.manifest.volume(n))
            .and_then(|v| v.record_bytes(record))
            .ok_or_else(|| format!("volume {n} has no record {record} by its manifest"))
    }

    /// Reads the record the tape is at, `record` of volume `n`, whole
    /// into `buf` (as long as the manifest says it is).
    pub(super) fn read_record(
        &mut self,
        n: u32,
        record: u64,
        buf: &mut [u8],
    ) -> Result<(), String> {
        self.at = None;
        let got = self.drive.read_record(buf);
        if let Ok(got) = got {
            self.cost.bytes += got as u64;
        }
        match got {
            Ok(got) if got == buf.len() => {
                self.at = Some(record + 1);
                Ok(())
            }
            Ok(0) => Err(format!(
                "a filemark where volume {n} has a record by its manifest"
            )),
            Ok(got) => Err(format!(
                "the record read is {got} bytes; the manifest says {}",
                buf.len()
            )),
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => Err(format!(
                "the record read is larger than the manifest's {} bytes",
                buf.len()
            )),
            Err(e) => Err(format!("reading the tape: {e}")),
        }
    }
}

impl TapeVolumes<'_> {
    /// Copies record `at` into `buf` when it is the last one read.
    fn take_held(&self, at: &RecordAt, buf: &mut Vec<u8>) -> bool {
        match &self.held {
            Some((v, r, bytes)) if (*v, *r) == (at.volume, at.record) => {
                buf.clear();
                buf.extend_from_slice(bytes);
                true
            }
            _ => false,
        }
    }
}

impl VolumeReader for TapeVolumes<'_> {
    fn read(&mut self, at: &RecordAt, buf: &mut Vec<u8>) -> Result<(), String> {
        if self.take_held(at, buf) {
            return Ok(());
        }
        self.get_volume(at.volume)?;
        // Recognising the volume read its first record.
        if self.take_held(at, buf) {
            return Ok(());
        }
        self.position(at.volume, at.record)?;
        buf.resize(at.bytes as usize, 0);
        self.read_record(at.volume, at.record, buf)?;
        let mut held = self.held.take().map(|h| h.2).unwrap_or_default();
        held.clear();
        held.extend_from_slice(buf);
        self.held = Some((at.volume, at.record, held));
        Ok(())
    }

    fn volume_name(&self, _n: u32) -> String {
        self.drive.name().to_string()
    }

    fn cost(&self) -> Cost {
        self.cost
    }
}
