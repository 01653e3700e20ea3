//! An emulated tape drive and autoloader, for tests of the end-of-media
//! and volume-change logic on machines without a drive.
//!
//! It keeps what a tape really holds: records of their written sizes and
//! filemarks, in order, on cartridges of a fixed capacity with an
//! early-warning zone before the physical end. It follows Linux st's
//! variable-block rules: the write that crosses the early-warning point
//! succeeds, the next fails with ENOSPC and writes nothing, and after that
//! writes alternately succeed and fail until the physical end; a read into
//! a buffer smaller than the record fails with ENOMEM and leaves the tape
//! after that record; closing after a write adds a filemark; unloading
//! ejects the cartridge, and the next open loads the next one from the
//! library, as a changer's `next` would. Every operation is logged so that
//! tests can check what tapebuf asked of the drive.
//!
//! Fixed-block mode follows st too (Documentation/scsi/st.rst): with a
//! block size B set (`Library::block_bytes`, MTSETBLK), a write must be a
//! multiple of B and is cut into records of B bytes, or fails with EINVAL;
//! a read must ask for a multiple of B and reads records of exactly B
//! bytes, a record of another size failing with EIO. The mode belongs to
//! the drive and lasts until a cartridge is loaded, which resets it to
//! `Library::default_block_bytes`, as st's `defblksize` does. An optional
//! transfer limit refuses any read or write of more bytes, whatever the
//! record's size, before touching the tape: EBUSY as st over the host
//! adapter's limit, or EINVAL as st over READ BLOCK LIMITS.
//!
//! A newly loaded cartridge can take time to become ready (`load_delay`,
//! real time): until then an O_NONBLOCK status says not online, and a
//! blocking open fails with EIO as st's does once its polling gives up
//! (the 120 s of polling are not modelled; the open fails at once). An
//! empty drive reports its door open, and its blocking open fails with
//! ENOMEDIUM. A write-protected cartridge fails an open for writing with
//! EROFS once the drive is told it is opened for writing (`for_writing`).

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::drive::{Drive, DriveStatus, TapeOp};
use super::limits::TransferLimits;

/// How often a volume change polls the emulated drive: often, so that
/// tests of a slow load stay fast.
pub const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// What a cartridge holds, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Record(Vec<u8>),
    Filemark,
}

/// One tape.
#[derive(Debug, Clone, Default)]
pub struct Cartridge {
    pub capacity_bytes: u64,
    /// The early-warning zone: writes that start inside the last this many
    /// bytes hit the end-of-medium rules.
    pub early_warning_bytes: u64,
    pub write_protected: bool,
    pub items: Vec<Item>,
    /// How long after a load the drive needs before it reports the
    /// cartridge ready (`Duration::MAX`: never).
    pub load_delay: Duration,
}

impl Cartridge {
    /// A blank cartridge.
    pub fn blank(capacity_bytes: u64, early_warning_bytes: u64) -> Cartridge {
        Cartridge {
            capacity_bytes,
            early_warning_bytes,
            ..Cartridge::default()
        }
    }

    /// A cartridge already holding `records`, then a filemark.
    pub fn with_records(records: Vec<Vec<u8>>) -> Cartridge {
        let capacity_bytes = records.iter().map(|r| r.len() as u64).sum::<u64>() + (1 << 20);
        let mut items: Vec<Item> = records.into_iter().map(Item::Record).collect();
        items.push(Item::Filemark);
        Cartridge {
            capacity_bytes,
            early_warning_bytes: 0,
            write_protected: false,
            items,
            ..Cartridge::default()
        }
    }

    /// The data bytes of the records before the first filemark.
    pub fn first_file(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Record(r) => out.extend_from_slice(r),
                Item::Filemark => break,
            }
        }
        out
    }

    /// The sizes of all records, in order.
    pub fn record_sizes(&self) -> Vec<usize> {
        self.items
            .iter()
            .filter_map(|i| match i {
                Item::Record(r) => Some(r.len()),
                Item::Filemark => None,
            })
            .collect()
    }

    pub fn filemarks(&self) -> usize {
        self.items.iter().filter(|i| **i == Item::Filemark).count()
    }

    fn used_bytes(&self, upto: usize) -> u64 {
        self.items[..upto]
            .iter()
            .map(|i| match i {
                Item::Record(r) => r.len() as u64,
                Item::Filemark => 0,
            })
            .sum()
    }
}

/// The cartridges an autoloader holds, and what happened to the drive.
#[derive(Debug, Default)]
pub struct Library {
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
    /// The record bytes the drive has written, on every cartridge.
    pub written_bytes: u64,
    /// The drive's block size now: 0 is variable-block mode.
    pub block_bytes: u64,
    /// The block size a newly loaded cartridge starts in (st's defblksize).
    pub default_block_bytes: u64,
    /// MTSETBLK fails with EIO.
    pub refuse_setblk: bool,
    /// Reads and writes of more bytes than this are refused.
    pub transfer_limit: Option<TransferLimit>,
    /// The write with this index (from 0, over the drive's life) fails
    /// behind the program's back, as st's asynchronous writes do: it
    /// returns success, and the next write or filemark fails with EIO and
    /// its record is not on the tape.
    pub fail_behind_write: Option<usize>,
    /// Writes accepted so far.
    pub writes_accepted: usize,
    /// When the cartridge in the drive was loaded by the changer (`None`:
    /// loaded before the run, so ready).
    pub loaded_at: Option<Instant>,
    /// How many times the drive's status was asked with the device closed.
    pub unopened_polls: u32,
}

impl Library {
    /// The changer puts the next cartridge in, if the drive is empty and
    /// one is left; the drive starts to calibrate it. False if none is in.
    fn load_next(&mut self) -> bool {
        if self.loaded.is_none() && self.next_slot < self.slots.len() {
            self.loaded = Some(self.next_slot);
            self.next_slot += 1;
            self.loaded_at = Some(Instant::now());
            // A new cartridge brings st's default block size back.
            self.block_bytes = self.default_block_bytes;
        }
        self.loaded.is_some()
    }

    /// The drive asks to be cleaned (GMT_CLN), with or without a tape.
    fn asks_for_cleaning(&self) -> bool {
        self.needs_cleaning
            || self
                .clean_after_bytes
                .is_some_and(|n| self.written_bytes >= n)
    }

    /// The cartridge in the drive has finished loading.
    fn loaded_is_ready(&self) -> bool {
        match (self.loaded, self.loaded_at) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(slot), Some(at)) => at.elapsed() >= self.slots[slot].load_delay,
        }
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
pub type Shelf = Arc<Mutex<Library>>;

/// The emulated drive.
pub struct Emulated {
    name: String,
    shelf: Shelf,
    open: bool,
    position: usize,
    last_was_write: bool,
    /// Inside the early-warning zone, the next write fails.
    refuse_next: bool,
    /// Opened for writing: a write-protected cartridge fails the open.
    writing: bool,
}

impl Emulated {
    /// A drive named `name` in front of `slots`, with the first loaded and
    /// the device open.
    pub fn new(name: &str, slots: Vec<Cartridge>) -> (Emulated, Shelf) {
        let shelf = Arc::new(Mutex::new(Library {
            slots,
            loaded: Some(0),
            next_slot: 1,
            log: vec!["open 0".into()],
            ..Library::default()
        }));
        let drive = Emulated {
            name: name.to_string(),
            shelf: Arc::clone(&shelf),
            open: true,
            position: 0,
            last_was_write: false,
            refuse_next: false,
            writing: false,
        };
        (drive, shelf)
    }

    /// From now on the device is opened for writing, so a write-protected
    /// cartridge fails the open with EROFS, as st does.
    pub fn for_writing(&mut self) {
        self.writing = true;
    }

    fn library(&self) -> MutexGuard<'_, Library> {
        self.shelf.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn check_open(&self) -> io::Result<()> {
        if self.open {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(libc::EBADF))
        }
    }

    fn write_filemark(&mut self) -> io::Result<()> {
        let position = self.position;
        let mut lib = self.library();
        if let Err(e) = lib.failed_behind(position) {
            drop(lib);
            self.position -= 1;
            self.last_was_write = false;
            return Err(e);
        }
        let slot = lib.loaded.ok_or_else(no_medium)?;
        let cart = &mut lib.slots[slot];
        cart.items.truncate(position);
        cart.items.push(Item::Filemark);
        lib.log.push("filemark".into());
        drop(lib);
        self.position += 1;
        self.last_was_write = false;
        Ok(())
    }

    fn rewind(&mut self) -> io::Result<()> {
        if self.last_was_write {
            self.write_filemark()?;
        }
        self.position = 0;
        self.refuse_next = false;
        Ok(())
    }
}

fn no_medium() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOMEDIUM)
}

impl Library {
    /// Reports a write that failed behind, taking its record off the
    /// tape at `position`; returns the new position.
    fn failed_behind(&mut self, position: usize) -> io::Result<usize> {
        if self.fail_behind_write.map(|k| k + 1) != Some(self.writes_accepted) {
            return Ok(position);
        }
        self.fail_behind_write = None;
        let slot = self.loaded.ok_or_else(no_medium)?;
        self.slots[slot].items.truncate(position - 1);
        self.log.push("the previous write failed behind".into());
        Err(io::Error::from_raw_os_error(libc::EIO))
    }

    /// Refuses a read or write of `bytes` over the transfer limit.
    fn check_transfer(&mut self, what: &str, bytes: usize) -> io::Result<()> {
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
    fn check_fixed(&mut self, what: &str, bytes: usize) -> io::Result<()> {
        let block = self.block_bytes as usize;
        if block > 0 && bytes % block != 0 {
            self.log
                .push(format!("{what} {bytes} refused: not a multiple of {block}"));
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        Ok(())
    }
}

impl Emulated {
    /// A read in fixed-block mode: up to `buf.len() / block` records of
    /// exactly `block` bytes, stopping before a filemark.
    fn read_fixed(&mut self, buf: &mut [u8], block: usize) -> io::Result<usize> {
        let mut got = 0;
        while got + block <= buf.len() {
            let lib = self.library();
            let slot = lib.loaded.ok_or_else(no_medium)?;
            let item = lib.slots[slot].items.get(self.position).cloned();
            drop(lib);
            match item {
                None if got == 0 => return Err(io::Error::from_raw_os_error(libc::EIO)),
                Some(Item::Filemark) if got == 0 => {
                    self.position += 1;
                    return Ok(0);
                }
                None | Some(Item::Filemark) => break,
                // A record of another size ends the read before it; read
                // first, it fails (st: "Incorrect block size").
                Some(Item::Record(r)) if r.len() != block && got > 0 => break,
                Some(Item::Record(r)) => {
                    self.position += 1;
                    if r.len() != block {
                        return Err(io::Error::from_raw_os_error(libc::EIO));
                    }
                    buf[got..got + block].copy_from_slice(&r);
                    got += block;
                }
            }
        }
        Ok(got)
    }
}

impl Drive for Emulated {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        self.check_open()?;
        let position = self.position;
        let mut lib = self.library();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        if let Err(e) = lib.failed_behind(position) {
            drop(lib);
            self.position -= 1;
            return Err(e);
        }
        lib.check_transfer("write", record.len())?;
        lib.check_fixed("write", record.len())?;
        let block = lib.block_bytes as usize;
        let cart = &mut lib.slots[slot];
        if cart.write_protected {
            return Err(io::Error::from_raw_os_error(libc::EACCES));
        }
        let used = cart.used_bytes(position);
        let warning_at = cart.capacity_bytes.saturating_sub(cart.early_warning_bytes);
        if used + record.len() as u64 > cart.capacity_bytes {
            lib.log.push("write refused: physical end".into());
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        if used >= warning_at {
            let refuse = !self.refuse_next;
            // In the zone, failures and successes alternate; the first
            // write after the crossing fails.
            if refuse {
                drop(lib);
                self.refuse_next = true;
                self.library()
                    .log
                    .push("write refused: early warning".into());
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
        }
        cart.items.truncate(position);
        let pieces: Vec<&[u8]> = if block > 0 {
            record.chunks(block).collect()
        } else {
            vec![record]
        };
        let records = pieces.len();
        cart.items
            .extend(pieces.into_iter().map(|r| Item::Record(r.to_vec())));
        lib.log.push(format!("write {}", record.len()));
        lib.writes_accepted += 1;
        lib.written_bytes += record.len() as u64;
        drop(lib);
        self.refuse_next = false;
        self.position += records;
        self.last_was_write = true;
        Ok(record.len())
    }

    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.check_open()?;
        self.last_was_write = false;
        let position = self.position;
        let mut lib = self.library();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        lib.check_transfer("read", buf.len())?;
        lib.check_fixed("read", buf.len())?;
        let block = lib.block_bytes as usize;
        let item = lib.slots[slot].items.get(position).cloned();
        drop(lib);
        if block > 0 {
            return self.read_fixed(buf, block);
        }
        match item {
            // Blank tape after the last item: st reports a blank check as EIO.
            None => Err(io::Error::from_raw_os_error(libc::EIO)),
            Some(Item::Filemark) => {
                self.position += 1;
                Ok(0)
            }
            Some(Item::Record(r)) => {
                self.position += 1;
                if r.len() > buf.len() {
                    return Err(io::Error::from_raw_os_error(libc::ENOMEM));
                }
                buf[..r.len()].copy_from_slice(&r);
                Ok(r.len())
            }
        }
    }

    fn op(&mut self, op: TapeOp) -> io::Result<()> {
        self.check_open()?;
        match op {
            TapeOp::WriteFilemarks(n) => {
                for _ in 0..n {
                    self.write_filemark()?;
                }
            }
            TapeOp::BackspaceRecords(n) => {
                self.last_was_write = false;
                for _ in 0..n {
                    let lib = self.library();
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
                self.library().log.push(format!("backspace {n}"));
            }
            TapeOp::Rewind => {
                self.rewind()?;
                self.library().log.push("rewind".into());
            }
            TapeOp::Unload => {
                self.rewind()?;
                let mut lib = self.library();
                lib.loaded = None;
                lib.log.push("unload".into());
            }
            TapeOp::SetBlockBytes(n) => {
                let mut lib = self.library();
                if lib.refuse_setblk {
                    lib.log.push(format!("setblk {n} refused"));
                    return Err(io::Error::from_raw_os_error(libc::EIO));
                }
                lib.block_bytes = u64::from(n);
                lib.log.push(format!("setblk {n}"));
            }
        }
        Ok(())
    }

    fn status(&mut self) -> io::Result<DriveStatus> {
        self.check_open()?;
        let lib = self.library();
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
            at_bot: self.position == 0,
            at_eot: used >= cart.capacity_bytes.saturating_sub(cart.early_warning_bytes),
            fixed_block_bytes: lib.block_bytes,
            door_open: false,
            needs_cleaning,
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
        self.library().log.push("close".into());
        Ok(())
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.close()?;
        let shelf = Arc::clone(&self.shelf);
        let mut lib = shelf.lock().unwrap_or_else(|e| e.into_inner());
        if lib.loaded.is_none() {
            // The changer puts the next cartridge in.
            if !lib.load_next() {
                lib.log.push("open: no medium".into());
                return Err(no_medium());
            }
            self.position = 0;
        }
        let slot = lib.loaded.expect("loaded");
        if !lib.loaded_is_ready() {
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
        Ok(())
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn transfer_limits(&self) -> TransferLimits {
        let mut limits = TransferLimits::default();
        if let Some(limit) = self.library().transfer_limit.filter(|l| l.known) {
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
        let mut lib = self.library();
        lib.unopened_polls += 1;
        if !lib.load_next() {
            return Ok(DriveStatus {
                door_open: true,
                needs_cleaning: lib.asks_for_cleaning(),
                ..DriveStatus::default()
            });
        }
        let slot = lib.loaded.expect("loaded");
        Ok(DriveStatus {
            online: lib.loaded_is_ready(),
            write_protected: lib.slots[slot].write_protected,
            at_bot: true,
            needs_cleaning: lib.asks_for_cleaning(),
            ..DriveStatus::default()
        })
    }

    fn eject_unopened(&mut self) -> io::Result<()> {
        if self.open {
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        }
        self.position = 0;
        let mut lib = self.library();
        lib.loaded = None;
        lib.log.push("unload".into());
        Ok(())
    }

    fn ready_poll_interval(&self) -> Duration {
        POLL_INTERVAL
    }
}

#[cfg(test)]
#[path = "emulated_tests.rs"]
mod tests;
