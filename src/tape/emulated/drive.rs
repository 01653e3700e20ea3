//! The emulated drive: one open of the device in front of the autoloader.
//! It keeps the position on the tape and the end-of-medium alternation;
//! opening loads the next cartridge once the last was ejected, and fails
//! as st's open does while the cartridge is not ready (EIO), when there is
//! none (ENOMEDIUM), or when it is write-protected and the drive is opened
//! for writing (EROFS). Closing or rewinding after a write adds the
//! filemark. A cartridge the changer brings in reports no GMT_BOT until it
//! is rewound, as st's did in the tape lab. How records go on and off the
//! tape is in `records.rs`; block addresses, MTFSR and MTSEEK in
//! `positioning.rs`.

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::autoloader::{no_medium, Autoloader, Shelf};
use super::cartridge::{Cartridge, Item};
use crate::base::sync::lock;
use crate::tape::drive::limits::TransferLimits;
use crate::tape::drive::{Drive, DriveStatus, TapeOp};
use crate::tape::scsi::sense::Unusable;
use crate::tape::scsi::sg_io::{Data, ScsiError};

/// How often a volume change polls the emulated drive: often, so that
/// tests of a slow load stay fast.
pub const EMULATED_READY_POLL: Duration = Duration::from_millis(20);

/// The emulated drive.
pub struct Emulated {
    pub(super) name: String,
    pub(super) shelf: Shelf,
    pub(super) open: bool,
    pub(super) position: usize,
    pub(super) last_was_write: bool,
    /// Inside the early-warning zone, the next write fails.
    pub(super) refuse_next: bool,
    /// Opened for writing: a write-protected cartridge fails the open.
    pub(super) writing: bool,
    /// The last read found blank tape after the recorded data: st
    /// returned 0 for it and reports GMT_EOD; the next read fails.
    pub(super) at_blank: bool,
    /// A cartridge came in through the changer and nothing has rewound
    /// it: st does not know where it is and reports no GMT_BOT (seen in
    /// the tape lab right after `mtx load`).
    pub(super) position_unknown: bool,
}

impl Emulated {
    /// A drive named `name` in front of `slots`, with the first loaded and
    /// the device open.
    pub fn new(name: &str, slots: Vec<Cartridge>) -> (Emulated, Shelf) {
        let mut library = Autoloader {
            slots,
            loaded: Some(0),
            next_slot: 1,
            log: vec!["open 0".into()],
            ..Autoloader::default()
        };
        library.mounted(0);
        let shelf = Arc::new(Mutex::new(library));
        let drive = Emulated {
            name: name.to_string(),
            shelf: Arc::clone(&shelf),
            open: true,
            position: 0,
            last_was_write: false,
            refuse_next: false,
            writing: false,
            at_blank: false,
            position_unknown: false,
        };
        (drive, shelf)
    }

    /// A drive named `name` in a library whose medium changer
    /// (`emulated::changer`) brings the cartridges: empty, closed.
    pub fn in_library(name: &str) -> (Emulated, Shelf) {
        let shelf = Arc::new(Mutex::new(Autoloader {
            changer: true,
            ..Autoloader::default()
        }));
        (Emulated::attach(name, Arc::clone(&shelf)), shelf)
    }

    /// Another open of the drive whose library is `shelf` (as a second
    /// run would open the same device), closed.
    pub fn attach(name: &str, shelf: Shelf) -> Emulated {
        Emulated {
            name: name.to_string(),
            shelf,
            open: false,
            position: 0,
            last_was_write: false,
            refuse_next: false,
            writing: false,
            at_blank: false,
            position_unknown: true,
        }
    }

    /// From now on the device is opened for writing, so a write-protected
    /// cartridge fails the open with EROFS, as st does.
    pub fn for_writing(&mut self) {
        self.writing = true;
    }

    pub(super) fn autoloader(&self) -> MutexGuard<'_, Autoloader> {
        lock(&self.shelf)
    }

    pub(super) fn check_open(&self) -> io::Result<()> {
        if self.open {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(libc::EBADF))
        }
    }

    /// MTFSF (`forward`) or MTBSF over `n` filemarks: forward to just
    /// after the last, back to the side of the last nearer the beginning.
    /// Running out of tape first (blank tape, the beginning) fails with EIO
    /// there.
    fn space_files(&mut self, n: u32, forward: bool) -> io::Result<()> {
        self.last_was_write = false;
        let lib = self.autoloader();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        let items = &lib.slots[slot].items;
        let mut position = Some(self.position.min(items.len()));
        for _ in 0..n {
            position = position.and_then(|at| match forward {
                true => items[at..]
                    .iter()
                    .position(|i| *i == Item::Filemark)
                    .map(|next| at + next + 1),
                false => items[..at].iter().rposition(|i| *i == Item::Filemark),
            });
        }
        let end = items.len();
        drop(lib);
        let Some(position) = position else {
            self.position = if forward { end } else { 0 };
            return Err(io::Error::from_raw_os_error(libc::EIO));
        };
        self.position = position;
        let what = if forward { "forward" } else { "backspace" };
        self.autoloader().log.push(format!("{what} files {n}"));
        Ok(())
    }

    pub(super) fn rewind(&mut self) -> io::Result<()> {
        if self.last_was_write {
            self.write_filemark()?;
        }
        self.position = 0;
        self.refuse_next = false;
        self.position_unknown = false;
        Ok(())
    }
}

impl Drive for Emulated {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        self.write(record)
    }

    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.read(buf)?;
        self.count_read(got);
        Ok(got)
    }

    fn op(&mut self, op: TapeOp) -> io::Result<()> {
        self.check_open()?;
        self.at_blank = false;
        match op {
            TapeOp::WriteFilemarks(n) => {
                for _ in 0..n {
                    self.write_filemark()?;
                }
            }
            TapeOp::BackspaceRecords(n) if n > crate::tape::drive::limits::MAX_SPACE_RECORDS => {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            TapeOp::BackspaceRecords(n) => {
                self.last_was_write = false;
                for _ in 0..n {
                    let lib = self.autoloader();
                    let slot = lib.loaded.ok_or_else(no_medium)?;
                    let before = self
                        .position
                        .checked_sub(1)
                        .and_then(|p| lib.slots[slot].items.get(p).cloned());
                    drop(lib);
                    match before {
                        Some(Item::Record(_)) => self.position -= 1,
                        _ => return Err(io::Error::from_raw_os_error(libc::EIO)),
                    }
                }
                self.autoloader().log.push(format!("backspace {n}"));
            }
            TapeOp::BackspaceFiles(n) => self.space_files(n, false)?,
            TapeOp::ForwardFiles(n) => self.space_files(n, true)?,
            TapeOp::Rewind => {
                self.rewind()?;
                self.autoloader().log.push("rewind".into());
            }
            TapeOp::Unload => {
                self.rewind()?;
                self.position_unknown = true;
                let mut lib = self.autoloader();
                lib.loaded = None;
                lib.log.push("unload".into());
            }
            TapeOp::SetBlockBytes(n) => {
                let mut lib = self.autoloader();
                if lib.refuse_setblk {
                    lib.log.push(format!("setblk {n} refused"));
                    return Err(io::Error::from_raw_os_error(libc::EIO));
                }
                lib.block_bytes = u64::from(n);
                lib.log.push(format!("setblk {n}"));
            }
            TapeOp::ForwardRecords(n) => self.forward_records(n)?,
            TapeOp::SeekBlock(address) => self.seek_block(address)?,
        }
        Ok(())
    }

    fn status(&mut self) -> io::Result<DriveStatus> {
        self.check_open()?;
        let lib = self.autoloader();
        let needs_cleaning = lib.asks_for_cleaning();
        let Some(slot) = lib.loaded else {
            return Ok(DriveStatus {
                needs_cleaning,
                ..DriveStatus::default()
            });
        };
        let cart = &lib.slots[slot];
        let used = cart.used_bytes(self.position.min(cart.items.len()));
        Ok(DriveStatus {
            online: true,
            write_protected: cart.write_protected,
            at_bot: self.position == 0 && !self.position_unknown,
            at_eot: used >= cart.capacity_bytes.saturating_sub(cart.early_warning_bytes),
            fixed_block_bytes: lib.block_bytes,
            door_open: false,
            needs_cleaning,
            at_eod: self.at_blank,
            unusable: None,
        })
    }

    fn close(&mut self) -> io::Result<()> {
        if !self.open {
            return Ok(());
        }
        if self.last_was_write {
            self.write_filemark()?;
        }
        self.open = false;
        self.autoloader().log.push("close".into());
        Ok(())
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.close()?;
        let shelf = Arc::clone(&self.shelf);
        let mut lib = lock(&shelf);
        if lib.loaded.is_none() {
            // The changer puts the next cartridge in.
            if !lib.load_next() {
                lib.log.push("open: no medium".into());
                return Err(no_medium());
            }
            self.position = 0;
        }
        let slot = lib.loaded.expect("loaded");
        let cart = &lib.slots[slot];
        if !lib.loaded_is_ready() || cart.cleaning || cart.incompatible {
            lib.log.push(format!("open {slot}: not ready"));
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        if self.writing && lib.slots[slot].write_protected {
            lib.log.push(format!("open {slot}: write-protected"));
            return Err(io::Error::from_raw_os_error(libc::EROFS));
        }
        lib.log.push(format!("open {slot}"));
        drop(lib);
        self.open = true;
        self.refuse_next = false;
        self.at_blank = false;
        Ok(())
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn transfer_limits(&self) -> TransferLimits {
        let mut limits = TransferLimits::default();
        if let Some(limit) = self.autoloader().transfer_limit.filter(|l| l.known) {
            limits.add(
                limit.max_bytes as u64,
                format!(
                    "the emulated controller moves at most {} bytes",
                    limit.max_bytes
                ),
            );
        }
        limits
    }

    fn status_unopened(&mut self) -> io::Result<DriveStatus> {
        if self.open {
            // st lets one process at a time have the drive open.
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        }
        let mut lib = self.autoloader();
        lib.unopened_polls += 1;
        if !lib.load_next() {
            return Ok(DriveStatus {
                door_open: true,
                needs_cleaning: lib.asks_for_cleaning(),
                ..DriveStatus::default()
            });
        }
        let slot = lib.loaded.expect("loaded");
        let cleaning = lib.slots[slot].cleaning && !lib.cleaning_report_over();
        let incompatible = lib.slots[slot].incompatible;
        let unusable = match (cleaning, incompatible) {
            (true, _) => Some(Unusable::CleaningCartridge),
            (_, true) => Some(Unusable::Incompatible),
            _ => None,
        };
        Ok(DriveStatus {
            online: lib.loaded_is_ready() && unusable.is_none(),
            unusable,
            write_protected: lib.slots[slot].write_protected,
            at_bot: !self.position_unknown,
            needs_cleaning: lib.asks_for_cleaning(),
            ..DriveStatus::default()
        })
    }

    fn eject_unopened(&mut self) -> io::Result<()> {
        if self.open {
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        }
        self.position = 0;
        self.position_unknown = true;
        let mut lib = self.autoloader();
        lib.loaded = None;
        lib.log.push("unload".into());
        Ok(())
    }

    /// MTIOCPOS, by `positioning.rs`.
    fn position(&mut self) -> io::Result<u64> {
        self.block_address()
    }

    /// LOG SENSE of page 0x2E through `scsi_command`, as the real device.
    fn tape_alerts(&mut self) -> io::Result<crate::tape::scsi::pages::tape_alert::TapeAlerts> {
        crate::tape::drive::tape_alerts_by_scsi(self)
    }

    fn scsi_command(
        &mut self,
        cdb: &[u8],
        data: Data,
        timeout: Duration,
    ) -> Result<usize, ScsiError> {
        let _ = timeout;
        self.answer(cdb, data)
    }

    fn ready_poll_interval(&self) -> Duration {
        EMULATED_READY_POLL
    }
}
