//! The emulated autoloader and the drive's lasting state: the cartridges in
//! their slots, which one is loaded and since when, the block size, the
//! cleaning request, the transfer limit, the injected failures, and the
//! log of every operation. The test keeps a [`Shelf`] on it while the
//! drive runs, and reads the log and the cartridges afterwards.
//!
//! The rules that belong to the drive rather than to one open of it live
//! here: a load brings st's default block size back, a transfer over the
//! limit is refused before the tape is touched, and a write that failed
//! behind is reported by the next write or filemark.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::cartridge::Cartridge;
use super::memory::ScsiFace;
use crate::tape::scsi::pages::tape_alert::TapeAlerts;

/// The cartridges an autoloader holds, and what happened to the drive.
#[derive(Debug, Default)]
pub struct Autoloader {
    pub slots: Vec<Cartridge>,
    /// The slot in the drive, if any.
    pub loaded: Option<usize>,
    /// The next slot the changer loads after an eject.
    pub next_slot: usize,
    /// Every operation, as "write 65536", "filemark", "rewind", "unload",
    /// "close", "open 2" (slot), in order.
    pub log: Vec<String>,
    /// The drive asks to be cleaned (GMT_CLN), with or without a tape.
    pub needs_cleaning: bool,
    /// The drive starts asking once it has written this many bytes, as a
    /// real drive does when its head's hours or error counts run up.
    pub clean_after_bytes: Option<u64>,
    /// The drive raises TapeAlert flag `.1` once it has written `.0`
    /// bytes, as a drive does when a cartridge or its head goes bad
    /// during a run.
    pub alert_after_bytes: Option<(u64, u8)>,
    /// The record bytes the drive has written, on every cartridge.
    pub written_bytes: u64,
    /// The drive's block size now: 0 is variable-block mode.
    pub block_bytes: u64,
    /// The block size a newly loaded cartridge starts in (st's defblksize).
    pub default_block_bytes: u64,
    /// MTSETBLK fails with EIO.
    pub refuse_setblk: bool,
    /// MTSEEK fails with this errno and does not move the tape, as on a
    /// drive or driver that cannot seek (`positioning.rs`).
    pub refuse_seek: Option<i32>,
    /// MTIOCPOS fails with this errno, as on a drive that cannot say
    /// where it is.
    pub refuse_position: Option<i32>,
    /// Reads and writes of more bytes than this are refused.
    pub transfer_limit: Option<TransferLimit>,
    /// The write with this index (from 0, over the drive's life) fails
    /// behind the program's back, as st's asynchronous writes do: it
    /// returns success, and the next write or filemark fails with EIO and
    /// its record is not on the tape.
    pub fail_behind_write: Option<usize>,
    /// Writes accepted so far.
    pub writes_accepted: usize,
    /// Where in the writer's memory each record written began: a record
    /// that came straight from the ring starts on a page.
    pub write_addresses: Vec<usize>,
    /// Where in the reader's memory each read was asked to go: a record
    /// read straight into the ring starts on a page.
    pub read_addresses: Vec<usize>,
    /// The control data protection mode page as MODE SELECT last set it
    /// (`protection.rs`); None: off, as the drive started.
    pub lbp_page: Option<crate::tape::scsi::pages::protection::ProtectionPage>,
    /// The key and modes the drive holds (`encryption.rs`).
    pub crypt: super::crypt_state::DriveCrypt,
    /// Where the last read was tried: slot and item.
    pub read_tried_at: Option<(usize, usize)>,
    /// When the cartridge in the drive was loaded by the changer (`None`:
    /// loaded before the run, so ready).
    pub loaded_at: Option<Instant>,
    /// How many times the drive's status was asked with the device closed.
    pub unopened_polls: u32,
    /// Records that read back wrong although they were written right, as
    /// from a worn head or a damaged stretch of tape.
    pub read_faults: Vec<ReadFault>,
    /// A medium changer puts the cartridges in (`emulated::changer`):
    /// opening an empty drive loads nothing by itself, and `slots` holds
    /// every cartridge the changer has brought, by load.
    pub changer: bool,
    /// TapeAlert flags the drive raises; reading them clears them, as in a
    /// real drive.
    pub tape_alerts: TapeAlerts,
    /// How long a cleaning cartridge takes to clean the head; then the
    /// drive clears its request and ejects it. `None`: it never says it is
    /// done and keeps the cartridge, as mhvtl's drive in the tape lab.
    pub cleaning_takes: Option<Duration>,
    /// A cleaning cartridge in the drive is reported as one (30/03) only
    /// this long, then the drive answers "becoming ready" and keeps it, as
    /// mhvtl's does after 30 s.
    pub cleaning_reported_for: Option<Duration>,
    /// How the drive answers SCSI commands, and its counters
    /// (`memory.rs`, `scsi.rs`).
    pub scsi: ScsiFace,
}

/// A record that reads back otherwise than it was written. `item` is its
/// index among the cartridge's items (records and filemarks), as in
/// `Cartridge::items`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFault {
    /// Byte `byte` of the record reads with its bits flipped.
    Corrupt {
        slot: usize,
        item: usize,
        byte: usize,
    },
    /// The record cannot be found: a read passes over it to the next item.
    Drop { slot: usize, item: usize },
}

impl Autoloader {
    /// True if reads pass over item `item` in `slot`.
    pub(super) fn dropped(&self, slot: usize, item: usize) -> bool {
        self.read_faults.contains(&ReadFault::Drop { slot, item })
    }

    /// Damages `record`, item `item` of `slot`, as it is read.
    pub(super) fn damage(&self, slot: usize, item: usize, record: &mut [u8]) {
        for fault in &self.read_faults {
            if let ReadFault::Corrupt {
                slot: s,
                item: i,
                byte,
            } = *fault
            {
                if (s, i) == (slot, item) && byte < record.len() {
                    record[byte] ^= 0xff;
                }
            }
        }
    }
}

impl Autoloader {
    /// The changer puts the next cartridge in, if the drive is empty and
    /// one is left; the drive starts to calibrate it. False if none is in.
    pub(super) fn load_next(&mut self) -> bool {
        self.settle();
        if !self.changer && self.loaded.is_none() && self.next_slot < self.slots.len() {
            self.loaded = Some(self.next_slot);
            self.mounted(self.next_slot);
            self.next_slot += 1;
            self.loaded_at = Some(Instant::now());
            // A new cartridge brings st's default block size back.
            self.block_bytes = self.default_block_bytes;
        }
        self.loaded.is_some()
    }

    /// The drive asks to be cleaned (GMT_CLN), with or without a tape.
    pub(super) fn asks_for_cleaning(&self) -> bool {
        self.needs_cleaning
            || self
                .clean_after_bytes
                .is_some_and(|n| self.written_bytes >= n)
    }

    /// The cartridge in the drive has finished loading.
    pub(super) fn loaded_is_ready(&self) -> bool {
        match (self.loaded, self.loaded_at) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(slot), Some(at)) => at.elapsed() >= self.slots[slot].load_delay,
        }
    }
}

impl Autoloader {
    /// A medium changer moves `cartridge` into the drive (which has none);
    /// the drive starts to load it. Returns its index in `slots`.
    pub(crate) fn insert(&mut self, cartridge: Cartridge) -> usize {
        self.slots.push(cartridge);
        let index = self.slots.len() - 1;
        self.loaded = Some(index);
        self.mounted(index);
        self.loaded_at = Some(Instant::now());
        self.block_bytes = self.default_block_bytes;
        self.log.push(format!("changer load {index}"));
        index
    }

    /// A medium changer takes cartridge `index` out of the drive. A
    /// cartridge the drive has not ejected is refused, as a strict library
    /// refuses it (medium removal prevented), except a cleaning cartridge,
    /// which the library unloads itself.
    pub(crate) fn take(&mut self, index: usize) -> Result<Cartridge, String> {
        self.settle();
        let cartridge = self.slots.get(index).ok_or("no such cartridge")?;
        if self.loaded == Some(index) && !cartridge.cleaning {
            return Err(
                "the drive has not ejected it: medium removal prevented (sense 53/02)".into(),
            );
        }
        if self.loaded == Some(index) {
            self.loaded = None;
        }
        self.log.push(format!("changer unload {index}"));
        Ok(std::mem::take(&mut self.slots[index]))
    }

    /// A cleaning cartridge in the drive for `cleaning_takes` has cleaned
    /// the head: the request is cleared and the cartridge ejected.
    pub(crate) fn settle(&mut self) {
        let (Some(slot), Some(at), Some(takes)) =
            (self.loaded, self.loaded_at, self.cleaning_takes)
        else {
            return;
        };
        if self.slots[slot].cleaning && at.elapsed() >= takes {
            self.needs_cleaning = false;
            self.written_bytes = 0;
            self.tape_alerts = TapeAlerts::default();
            self.loaded = None;
            self.log.push("cleaned".into());
        }
    }

    /// The cleaning cartridge in the drive is no longer reported as one.
    pub(crate) fn cleaning_report_over(&self) -> bool {
        match (self.cleaning_reported_for, self.loaded_at) {
            (Some(reported), Some(at)) => at.elapsed() >= reported,
            _ => false,
        }
    }

    /// The drive holds a cartridge it has not ejected.
    pub(crate) fn holds(&self) -> bool {
        self.loaded.is_some()
    }
}

/// The largest read or write the emulated drive and controller take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferLimit {
    pub max_bytes: usize,
    /// EBUSY (the host adapter's limit) or EINVAL (READ BLOCK LIMITS).
    pub errno: i32,
    /// The limit shows in `transfer_limits`, as sysfs would show it.
    pub known: bool,
}

/// A shared handle on the library, kept by the test while the drive runs.
pub type Shelf = Arc<Mutex<Autoloader>>;

pub(super) fn no_medium() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOMEDIUM)
}

impl Autoloader {
    /// Reports a write that failed behind, taking its record off the
    /// tape at `position`; returns the new position.
    pub(super) fn failed_behind(&mut self, position: usize) -> io::Result<usize> {
        if self.fail_behind_write.map(|k| k + 1) != Some(self.writes_accepted) {
            return Ok(position);
        }
        self.fail_behind_write = None;
        let slot = self.loaded.ok_or_else(no_medium)?;
        self.slots[slot].cut(position - 1);
        self.log.push("the previous write failed behind".into());
        Err(io::Error::from_raw_os_error(libc::EIO))
    }

    /// Refuses a read or write of `bytes` over the transfer limit.
    pub(super) fn check_transfer(&mut self, what: &str, bytes: usize) -> io::Result<()> {
        match self.transfer_limit {
            Some(limit) if bytes > limit.max_bytes => {
                self.log
                    .push(format!("{what} {bytes} refused: transfer limit"));
                Err(io::Error::from_raw_os_error(limit.errno))
            }
            _ => Ok(()),
        }
    }

    /// In fixed-block mode, refuses a count that is not a multiple of the
    /// block size, as st does.
    pub(super) fn check_fixed(&mut self, what: &str, bytes: usize) -> io::Result<()> {
        let block = self.block_bytes as usize;
        if block > 0 && !bytes.is_multiple_of(block) {
            self.log
                .push(format!("{what} {bytes} refused: not a multiple of {block}"));
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        Ok(())
    }
}

impl Autoloader {
    /// Cartridge `index` has been loaded into the drive.
    pub(super) fn mounted(&mut self, index: usize) {
        let Some(cartridge) = self.slots.get_mut(index) else {
            return;
        };
        let memory = &mut cartridge.memory;
        memory.load_count += 1;
        memory
            .serial
            .get_or_insert_with(|| format!("EMU{index:04}"));
    }
}
