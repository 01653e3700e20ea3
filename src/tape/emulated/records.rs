//! How records go on and off the emulated tape, by Linux st's rules.
//!
//! Variable-block mode: the write that crosses the early-warning point
//! succeeds, the next fails with ENOSPC and writes nothing, and after that
//! writes alternately succeed and fail until the physical end; a read into
//! a buffer smaller than the record fails with ENOMEM and leaves the tape
//! after that record. Fixed-block mode: a write is cut into records of the
//! block size, a read takes whole blocks and fails with EIO on a record of
//! another size. A filemark written after a write that failed behind
//! reports that failure instead. A read at blank tape after the recorded
//! data returns 0 once, with GMT_EOD, and then fails with EIO, as st did
//! in the tape lab. With logical block protection on, a record written
//! carries its CRC and a record read gets one (`protection.rs`); with
//! encryption on, a record written is sealed and one read is checked
//! against the drive's key (`encryption.rs`).

use std::io;

use super::autoloader::{no_medium, Autoloader};
use super::cartridge::Item;
use super::drive::Emulated;
use super::protection::checked_write;
use crate::tape::protection::crc::crc;
use crate::tape::protection::CRC_BYTES;

impl Emulated {
    pub(super) fn write_filemark(&mut self) -> io::Result<()> {
        let position = self.position;
        let mut lib = self.autoloader();
        if let Err(e) = lib.failed_behind(position) {
            drop(lib);
            self.position -= 1;
            self.last_was_write = false;
            return Err(e);
        }
        let slot = lib.loaded.ok_or_else(no_medium)?;
        let cart = &mut lib.slots[slot];
        cart.cut(position);
        cart.items.push(Item::Filemark);
        lib.log.push("filemark".into());
        drop(lib);
        self.position += 1;
        self.last_was_write = false;
        Ok(())
    }

    /// Writes one record (in fixed-block mode, cut into blocks), by st's
    /// end-of-medium rules.
    pub(super) fn write(&mut self, record: &[u8]) -> io::Result<usize> {
        self.check_open()?;
        self.at_blank = false;
        let position = self.position;
        let mut lib = self.autoloader();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        if let Err(e) = lib.failed_behind(position) {
            drop(lib);
            self.position -= 1;
            return Err(e);
        }
        lib.check_transfer("write", record.len())?;
        lib.check_fixed("write", record.len())?;
        lib.write_addresses.push(record.as_ptr() as usize);
        let (record, wrong_crc) = match lib.write_method() {
            Some(method) => checked_write(method, record),
            None => (record, None),
        };
        let block = lib.block_bytes as usize;
        let seal = lib.seal();
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
                self.autoloader()
                    .log
                    .push("write refused: early warning".into());
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
        }
        cart.cut(position);
        let pieces: Vec<&[u8]> = if block > 0 {
            record.chunks(block).collect()
        } else {
            vec![record]
        };
        let records = pieces.len();
        if let Some(seal) = seal {
            for at in position..position + records {
                cart.seals.insert(at, seal.clone());
            }
        }
        cart.items
            .extend(pieces.into_iter().map(|r| Item::Record(r.to_vec())));
        lib.log.push(format!("write {}", record.len()));
        lib.writes_accepted += 1;
        lib.written_bytes += record.len() as u64;
        if let Some((at, flag)) = lib.alert_after_bytes {
            if lib.written_bytes >= at {
                lib.tape_alerts.insert(flag);
                lib.alert_after_bytes = None;
            }
        }
        lib.count_transfer(true, record.len() as u64, records as u64);
        drop(lib);
        self.refuse_next = false;
        self.position += records;
        self.last_was_write = true;
        match wrong_crc {
            Some(e) => Err(e),
            None => Ok(record.len() + self.crc_bytes_written()),
        }
    }

    /// Reads the next record into `buf`, or passes a filemark (0).
    pub(super) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.check_open()?;
        self.last_was_write = false;
        let position = self.position;
        let mut lib = self.autoloader();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        lib.check_transfer("read", buf.len())?;
        lib.check_fixed("read", buf.len())?;
        lib.read_addresses.push(buf.as_ptr() as usize);
        let block = lib.block_bytes as usize;
        let mut position = position;
        while lib.dropped(slot, position) {
            position += 1;
        }
        lib.read_tried_at = Some((slot, position));
        lib.check_decrypt(slot, position)?;
        let mut item = lib.slots[slot].items.get(position).cloned();
        if let (Some(Item::Record(r)), Some(method)) = (item.as_mut(), lib.read_method()) {
            let tail = crc(method, r);
            r.extend(tail);
        }
        if let Some(Item::Record(r)) = item.as_mut() {
            lib.damage(slot, position, r);
        }
        drop(lib);
        self.position = position;
        if item.is_some() {
            self.at_blank = false;
        }
        if block > 0 {
            return self.read_fixed(buf, block);
        }
        match item {
            None => self.blank(),
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

    /// The CRC bytes a write carried beyond its record: the drive counts
    /// them as written, as st returns the whole write(2).
    fn crc_bytes_written(&self) -> usize {
        match self.autoloader().write_method() {
            Some(_) => CRC_BYTES,
            None => 0,
        }
    }

    /// Counts a read of `got` bytes on the drive and the cartridge.
    pub(super) fn count_read(&mut self, got: usize) {
        let mut lib = self.autoloader();
        let records = match lib.block_bytes {
            0 => 1,
            block => got as u64 / block,
        };
        if got > 0 {
            lib.count_transfer(false, got as u64, records);
        }
    }

    /// A read at blank tape after the recorded data: 0 the first time
    /// (st's ST_EOD_1, GMT_EOD), EIO after that.
    fn blank(&mut self) -> io::Result<usize> {
        if std::mem::replace(&mut self.at_blank, true) {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        Ok(0)
    }

    /// A read in fixed-block mode: up to `buf.len() / block` records of
    /// exactly `block` bytes, stopping before a filemark.
    fn read_fixed(&mut self, buf: &mut [u8], block: usize) -> io::Result<usize> {
        let mut got = 0;
        while got + block <= buf.len() {
            let lib = self.autoloader();
            let slot = lib.loaded.ok_or_else(no_medium)?;
            let item = lib.slots[slot].items.get(self.position).cloned();
            drop(lib);
            match item {
                None if got == 0 => return self.blank(),
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

impl Autoloader {
    /// The host wrote (`write`) or read `bytes` in `records` records on
    /// the loaded cartridge.
    pub(super) fn count_transfer(&mut self, write: bool, bytes: u64, records: u64) {
        let percent = self.scsi.compression_percent.max(1);
        let every = self.scsi.retries_every.filter(|&n| n > 0);
        let counters = &mut self.scsi.counters;
        let direction = if write {
            &mut counters.write
        } else {
            &mut counters.read
        };
        let before = direction.records;
        direction.records += records;
        direction.host_bytes += bytes;
        direction.medium_bytes += bytes * 100 / percent;
        let retries = every.map_or(0, |n| direction.records / n - before / n);
        direction.retries += retries;
        direction.corrected += retries;
        let Some(slot) = self.loaded else {
            return;
        };
        let memory = &mut self.slots[slot].memory;
        if write {
            memory.written_bytes += bytes;
            memory.datasets_written += records;
            memory.write_retries += retries;
        } else {
            memory.read_bytes += bytes;
            memory.datasets_read += records;
            memory.read_retries += retries;
        }
    }
}
