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

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use super::drive::{Drive, DriveStatus, TapeOp};

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
        };
        (drive, shelf)
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

impl Drive for Emulated {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        self.check_open()?;
        let position = self.position;
        let mut lib = self.library();
        let slot = lib.loaded.ok_or_else(no_medium)?;
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
        cart.items.push(Item::Record(record.to_vec()));
        lib.log.push(format!("write {}", record.len()));
        lib.written_bytes += record.len() as u64;
        drop(lib);
        self.refuse_next = false;
        self.position += 1;
        self.last_was_write = true;
        Ok(record.len())
    }

    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.check_open()?;
        self.last_was_write = false;
        let position = self.position;
        let lib = self.library();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        let item = lib.slots[slot].items.get(position).cloned();
        drop(lib);
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
        }
        Ok(())
    }

    fn status(&mut self) -> io::Result<DriveStatus> {
        self.check_open()?;
        let lib = self.library();
        let needs_cleaning = lib.needs_cleaning
            || lib
                .clean_after_bytes
                .is_some_and(|n| lib.written_bytes >= n);
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
            fixed_block_bytes: 0,
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
            if lib.next_slot >= lib.slots.len() {
                lib.log.push("open: no medium".into());
                return Err(no_medium());
            }
            lib.loaded = Some(lib.next_slot);
            lib.next_slot += 1;
            self.position = 0;
        }
        let slot = lib.loaded.expect("loaded");
        lib.log.push(format!("open {slot}"));
        drop(lib);
        self.open = true;
        self.refuse_next = false;
        Ok(())
    }

    fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_past_early_warning_alternate_with_enospc() {
        let (mut d, shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 30)]);
        assert_eq!(d.write_record(&[1; 40]).unwrap(), 40);
        // Crosses the warning point at 70: still written.
        assert_eq!(d.write_record(&[2; 40]).unwrap(), 40);
        let e = d.write_record(&[3; 10]).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(d.write_record(&[3; 10]).unwrap(), 10);
        assert_eq!(
            d.write_record(&[4; 10]).unwrap_err().raw_os_error(),
            Some(libc::ENOSPC)
        );
        // The physical end refuses whatever the alternation says.
        d.write_record(&[4; 10]).unwrap();
        assert!(d.write_record(&[5; 10]).is_err());
        assert!(d.write_record(&[5; 10]).is_err());
        d.close().unwrap();
        let lib = shelf.lock().unwrap();
        assert_eq!(lib.slots[0].record_sizes(), vec![40, 40, 10, 10]);
        assert_eq!(lib.slots[0].filemarks(), 1);
    }

    #[test]
    fn reading_stops_at_filemarks_and_refuses_small_buffers() {
        let cart = Cartridge::with_records(vec![vec![7; 100], vec![8; 50]]);
        let (mut d, _) = Emulated::new("emu", vec![cart]);
        let mut buf = [0u8; 60];
        assert_eq!(
            d.read_record(&mut buf).unwrap_err().raw_os_error(),
            Some(libc::ENOMEM)
        );
        d.op(TapeOp::BackspaceRecords(1)).unwrap();
        let mut big = [0u8; 200];
        assert_eq!(d.read_record(&mut big).unwrap(), 100);
        assert_eq!(d.read_record(&mut buf).unwrap(), 50);
        assert_eq!(d.read_record(&mut buf).unwrap(), 0);
        assert_eq!(
            d.read_record(&mut buf).unwrap_err().raw_os_error(),
            Some(libc::EIO)
        );
    }

    #[test]
    fn unload_then_open_loads_the_next_cartridge() {
        let (mut d, shelf) = Emulated::new(
            "emu",
            vec![Cartridge::blank(100, 0), Cartridge::blank(100, 0)],
        );
        d.write_record(b"one").unwrap();
        d.op(TapeOp::Unload).unwrap();
        d.reopen().unwrap();
        d.write_record(b"two").unwrap();
        d.close().unwrap();
        let lib = shelf.lock().unwrap();
        assert_eq!(lib.slots[0].first_file(), b"one");
        assert_eq!(lib.slots[1].first_file(), b"two");
        assert_eq!(
            lib.slots[0].filemarks(),
            1,
            "unload after a write adds a filemark"
        );
        drop(lib);
        assert!(d.reopen().is_ok(), "the second cartridge is still loaded");
    }
}
