//! The emulated drive answers SCSI commands (`Drive::scsi_command`) from
//! the library's state, as mhvtl's drive does in the tape lab
//! (`usr/spc.c`, `usr/ssc.c`), so that the health readers are tested
//! against it as against mhvtl:
//!
//! - INQUIRY: the standard 64 bytes (peripheral type 1, removable, vendor,
//!   product and revision at bytes 8, 16 and 32, padded with spaces), VPD
//!   page 0x00 (pages 0x00, 0x80 and, with logical block protection,
//!   0xB5), 0x80 (the unit serial number) and 0xB5 (`protection.rs`);
//! - MODE SENSE (10) and MODE SELECT (10) of the control data protection
//!   page (`protection.rs`);
//! - SECURITY PROTOCOL IN and OUT of tape data encryption
//!   (`encryption.rs`);
//! - TEST UNIT READY: ready, or NOT READY with 3A/00 (no medium), 04/01
//!   (becoming ready), 30/03 (cleaning cartridge) or 30/00;
//! - LOG SENSE: the pages of `log_pages.rs`, whatever the page control
//!   asks (every page holds cumulative values); reading page 0x2E clears
//!   the TapeAlert flags when more than its 4-byte header is asked for, as
//!   mhvtl does;
//! - READ ATTRIBUTE, service action 0 (ATTRIBUTE VALUES), partition 0:
//!   the cartridge's memory (`mam.rs`).
//!
//! The drive answers the command `spc::Command::parse` reads from the CDB,
//! and a CDB it cannot read with the sense of its `Refusal`: an empty CDB
//! or an unknown command with ILLEGAL REQUEST, invalid command operation
//! code (05/20/00); a CDB shorter than its command's, INQUIRY's CmdDt or
//! a page code without EVPD with invalid field in the command (05/24/00).
//! No byte of a CDB is read here. A reply longer than the allocation
//! length or the buffer is cut, its length fields still saying the whole.
//! A page, service action, partition or first attribute the drive does
//! not have is refused with 05/24/00; the volume statistics page and READ
//! ATTRIBUTE need a cartridge (NOT READY, 3A/00 without one, before the
//! service action, partition and first attribute are looked at). The
//! knobs in `ScsiFace` refuse every command in the kernel (`refused`,
//! before the CDB is read) or every LOG SENSE (`no_log_pages`). A query
//! loads no cartridge and moves no tape.

use std::io;

use super::autoloader::Autoloader;
use super::drive::Emulated;
use super::{log_pages, mam};
use crate::tape::scsi::pages::identity::SERIAL_PAGE;
use crate::tape::scsi::pages::protection;
use crate::tape::scsi::sg_io::{Data, ScsiError, Sense};
use crate::tape::scsi::spc::{Command, ATTRIBUTE_VALUES};

/// CHECK CONDITION with this sense.
fn check(key: u8, asc: u8, ascq: u8) -> ScsiError {
    ScsiError::Check(Sense { key, asc, ascq })
}

/// ILLEGAL REQUEST, invalid field in the command.
fn invalid_field() -> ScsiError {
    check(0x05, 0x24, 0x00)
}

/// NOT READY, medium not present.
pub(super) fn no_medium() -> ScsiError {
    check(0x02, 0x3a, 0x00)
}

/// Copies what fits of `reply` into the data buffer: at most `allocation`
/// bytes. Returns the bytes moved.
fn send(data: Data<'_>, reply: &[u8], allocation: usize) -> usize {
    match data {
        Data::In(buf) => {
            let n = reply.len().min(buf.len()).min(allocation);
            buf[..n].copy_from_slice(&reply[..n]);
            n
        }
        Data::None | Data::Out(_) => 0,
    }
}

impl Emulated {
    /// Answers one command, as `scsi_command`.
    pub(super) fn answer(&mut self, cdb: &[u8], data: Data<'_>) -> Result<usize, ScsiError> {
        let position = self.position;
        let mut lib = self.autoloader();
        lib.settle();
        if lib.scsi.refused {
            return Err(ScsiError::Ioctl(io::Error::from_raw_os_error(libc::EPERM)));
        }
        let command = Command::parse(cdb).map_err(|refusal| ScsiError::Check(refusal.sense()))?;
        let reply = match command {
            Command::TestUnitReady => lib.test_unit_ready().map(|()| Vec::new()),
            Command::Inquiry { page, .. } => lib.inquiry(page),
            // Every page holds cumulative values, whatever is asked.
            Command::LogSense {
                page,
                control: _,
                bytes,
            } => lib.log_sense(page, bytes),
            Command::ReadAttribute {
                service_action,
                partition,
                first,
                ..
            } => lib.read_attribute(service_action, partition, first),
            Command::ModeSense { page, subpage, .. } => lib.mode_sense(page, subpage),
            Command::ModeSelect {
                page_format,
                save,
                bytes,
            } => {
                let list = match &data {
                    Data::Out(list) => &list[..bytes.min(list.len())],
                    _ => &[][..],
                };
                lib.mode_select(page_format, save, list)
                    .map(|()| Vec::new())
            }
            Command::SecurityIn {
                protocol, specific, ..
            } => lib.security_in(protocol, specific, position),
            Command::SecurityOut {
                protocol, bytes, ..
            } => {
                let list = match &data {
                    Data::Out(list) => &list[..bytes.min(list.len())],
                    _ => &[][..],
                };
                lib.security_out(protocol, list).map(|()| Vec::new())
            }
        }?;
        Ok(send(data, &reply, command.allocation()))
    }
}

impl Autoloader {
    /// The loaded cartridge's slot, once it is ready.
    fn ready_slot(&self) -> Result<usize, ScsiError> {
        let slot = self.loaded.ok_or_else(no_medium)?;
        if !self.loaded_is_ready() {
            return Err(check(0x02, 0x04, 0x01));
        }
        Ok(slot)
    }

    fn test_unit_ready(&self) -> Result<(), ScsiError> {
        let slot = self.ready_slot()?;
        match &self.slots[slot] {
            c if c.cleaning && !self.cleaning_report_over() => Err(check(0x02, 0x30, 0x03)),
            c if c.cleaning => Err(check(0x02, 0x04, 0x01)),
            c if c.incompatible => Err(check(0x02, 0x30, 0x00)),
            _ => Ok(()),
        }
    }

    /// The standard INQUIRY data (`page` None), or VPD page 0x00 or 0x80.
    fn inquiry(&self, page: Option<u8>) -> Result<Vec<u8>, ScsiError> {
        use log_pages::padded;
        /// Peripheral device type 1: a sequential-access device.
        const TAPE: u8 = 0x01;
        /// The supported VPD pages.
        const VPD_PAGES: u8 = 0x00;
        let face = &self.scsi;
        match page {
            None => {
                // Removable; SPC-3; response data format 2; 59 more bytes.
                // PROTECT (byte 5, bit 0): logical block protection.
                let protect = u8::from(!face.lbp_methods.is_empty());
                let mut data = vec![TAPE, 0x80, 0x05, 0x02, 59, protect, 0x01, 0x20];
                data.extend(padded(&face.vendor, 8));
                data.extend(padded(&face.product, 16));
                data.extend(padded(&face.revision, 4));
                data.resize(64, 0);
                Ok(data)
            }
            Some(VPD_PAGES) => {
                let mut pages = vec![VPD_PAGES, SERIAL_PAGE];
                pages.extend(self.protection_vpd().map(|_| protection::VPD_PAGE));
                let mut data = vec![TAPE, VPD_PAGES, 0, pages.len() as u8];
                data.extend(pages);
                Ok(data)
            }
            Some(protection::VPD_PAGE) => self.protection_vpd().ok_or_else(invalid_field),
            Some(SERIAL_PAGE) => {
                let serial = face.serial.as_bytes();
                let mut data = vec![TAPE, SERIAL_PAGE, 0, serial.len().min(255) as u8];
                data.extend(serial.iter().take(255));
                Ok(data)
            }
            _ => Err(invalid_field()),
        }
    }

    /// Log page `page`, for a read of up to `bytes` bytes.
    fn log_sense(&mut self, page: u8, bytes: usize) -> Result<Vec<u8>, ScsiError> {
        use log_pages::*;
        if self.scsi.no_log_pages {
            return Err(invalid_field());
        }
        let counters = self.scsi.counters;
        Ok(match page {
            SUPPORTED => supported(),
            WRITE_ERRORS => error_counters(page, &counters.write),
            READ_ERRORS => error_counters(page, &counters.read),
            VOLUME_STATISTICS => {
                let slot = self.ready_slot()?;
                volume_statistics(&self.slots[slot], &self.medium_serial(slot))
            }
            COMPRESSION | IBM_COMPRESSION => compression(page, &self.scsi),
            crate::tape::scsi::pages::tape_alert::PAGE => {
                let page = tape_alert(&self.tape_alerts);
                // mhvtl clears the flags only for a read of more than the
                // header.
                if bytes > 4 {
                    self.tape_alerts = Default::default();
                }
                page
            }
            _ => return Err(invalid_field()),
        })
    }

    /// The loaded cartridge's attribute values from attribute `first` on;
    /// only ATTRIBUTE VALUES of partition 0 are served.
    fn read_attribute(
        &self,
        service_action: u8,
        partition: u8,
        first: u16,
    ) -> Result<Vec<u8>, ScsiError> {
        let slot = self.ready_slot()?;
        if service_action != ATTRIBUTE_VALUES || partition != 0 {
            return Err(invalid_field());
        }
        let serial = self.medium_serial(slot);
        mam::attribute_values(&self.slots[slot], &serial, first).ok_or_else(invalid_field)
    }

    /// The MAM serial number of the cartridge in `slot`.
    fn medium_serial(&self, slot: usize) -> String {
        let memory = &self.slots[slot].memory;
        memory
            .serial
            .clone()
            .unwrap_or_else(|| format!("EMU{slot:04}"))
    }
}
