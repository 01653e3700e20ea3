//! The changer's SCSI back end: SMC commands sent by tapebuf itself over
//! SG_IO (`smc.rs` builds and parses them), used when the kernel lets this
//! process send them (root, or CAP_SYS_RAWIO; the kernel's filter refuses
//! READ ELEMENT STATUS and MOVE MEDIUM to anyone else, and `device.rs`
//! falls back to `ch`'s ioctls). Over SG_IO tapebuf gets what `ch` hides:
//! the drives' device identifiers (DVCID), the whole of a kind in one
//! command, and the library's sense data when a move fails, in words.
//!
//! Replies are bounded: each READ ELEMENT STATUS asks for at most
//! [`ELEMENTS_PER_READ`] elements into a [`REPLY_BYTES`] buffer and goes on
//! from where a truncated reply stopped. A library that refuses the DVCID
//! or VolTag bit (ILLEGAL REQUEST) is asked again without it, and not
//! asked with it again by this changer. UNIT ATTENTION (after a door was
//! opened, a reset) is retried, as `ch` does.

use std::io;
use std::path::Path;
use std::time::Duration;

use super::element::{Element, ElementAddress, ElementKind, Params};
use super::error::ChangerError;
use super::smc::{self, AddressMap, StatusRequest};
pub use crate::tape::scsi::sg_io::Commands;
use crate::tape::scsi::sg_io::{Data, ScsiError, Sense};
use crate::tape::scsi::spc;

/// The most elements one READ ELEMENT STATUS asks for.
pub const ELEMENTS_PER_READ: usize = 128;
/// The reply buffer of one READ ELEMENT STATUS: 128 elements of up to
/// 512 bytes (a descriptor with both volume tags and a long identifier is
/// about 350); a longer answer is truncated and read on.
pub const REPLY_BYTES: usize = 64 * 1024;
/// How long MODE SENSE and READ ELEMENT STATUS may take (a library may
/// scan its barcodes first).
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one move may take (`ch` allows 300 s; real robots retry).
const MOVE_TIMEOUT: Duration = Duration::from_secs(600);
/// How often a command that met UNIT ATTENTION is sent again.
const UNIT_ATTENTION_RETRIES: usize = 3;

/// A changer driven over SG_IO: its address map and what it accepts.
#[derive(Debug, Clone)]
pub struct Scsi {
    map: AddressMap,
    /// Ask for barcodes.
    voltag: bool,
    /// Ask for drives' identifiers.
    dvcid: bool,
}

impl Scsi {
    /// Reads the element address assignment page through `device`, then reads
    /// the status of one element without tags, a command that changes
    /// nothing: both must work for this back end to be used.
    pub fn probe(device: &mut impl Commands) -> Result<Scsi, ScsiError> {
        let mut page = [0u8; 255];
        let cdb = smc::mode_sense_addresses_cdb(255);
        let got = retried(|| device.command(&cdb, Data::In(&mut page), READ_TIMEOUT))?;
        let map = AddressMap::parse(&page[..got]).ok_or_else(|| {
            ScsiError::Ioctl(io::Error::other("no element address assignment page"))
        })?;
        let kind = ElementKind::ALL
            .into_iter()
            .find(|&k| map.count(k) > 0)
            .ok_or_else(|| ScsiError::Ioctl(io::Error::other("no elements")))?;
        let request = StatusRequest {
            kind,
            start: map.first(kind),
            count: 1,
            voltag: false,
            dvcid: false,
            allocation: 256,
        };
        let mut reply = [0u8; 256];
        let cdb = smc::read_element_status_cdb(&request);
        retried(|| device.command(&cdb, Data::In(&mut reply), READ_TIMEOUT))?;
        Ok(Scsi {
            map,
            voltag: true,
            dvcid: true,
        })
    }

    /// The counts, from the address map.
    pub fn params(&self) -> Params {
        self.map.params()
    }

    /// Every element of `kind`, in index order, read in as few commands as
    /// the reply buffer allows. A library that leaves an element out is an
    /// error, since callers index by position.
    pub fn elements(
        &mut self,
        device: &mut impl Commands,
        path: &Path,
        kind: ElementKind,
    ) -> Result<Vec<Element>, ChangerError> {
        let what = || {
            format!(
                "{}: reading the state of the {}",
                path.display(),
                plural(kind)
            )
        };
        let count = self.map.count(kind);
        let mut found: Vec<Option<Element>> = vec![None; count];
        let mut reply = vec![0u8; REPLY_BYTES];
        let mut next = 0;
        while next < count {
            let Some(start) = self.map.address(ElementAddress { kind, index: next }) else {
                break;
            };
            let wanted = (count - next).min(ELEMENTS_PER_READ) as u16;
            let got = self
                .read_status(device, kind, start, wanted, &mut reply)
                .map_err(|e| scsi_error(what(), e))?;
            // A reply cut short holds the whole descriptors before the
            // cut: go on after the last of them.
            let mut last = None;
            for element in smc::parse_element_status(&reply[..got], &self.map) {
                let index = element.address.index;
                if element.address.kind == kind && index >= next {
                    last = last.max(Some(index));
                    found[index] = Some(element);
                }
            }
            match last {
                Some(last) => next = last + 1,
                None => break,
            }
        }
        let reported = found.iter().filter(|e| e.is_some()).count();
        if reported < count {
            let why = format!("the library reported {reported} of {count}");
            return Err(ChangerError::io(what(), io::Error::other(why)));
        }
        Ok(found.into_iter().flatten().collect())
    }

    /// READ ELEMENT STATUS of `count` elements of `kind` from address
    /// `start` into `reply`, with barcodes and (for drives) identifiers
    /// while the library takes them.
    fn read_status(
        &mut self,
        device: &mut impl Commands,
        kind: ElementKind,
        start: u16,
        count: u16,
        reply: &mut [u8],
    ) -> Result<usize, ScsiError> {
        loop {
            let request = StatusRequest {
                kind,
                start,
                count,
                voltag: self.voltag,
                dvcid: self.dvcid && kind == ElementKind::Drive,
                allocation: u32::try_from(reply.len()).unwrap_or(u32::MAX),
            };
            let cdb = smc::read_element_status_cdb(&request);
            match retried(|| device.command(&cdb, Data::In(&mut *reply), READ_TIMEOUT)) {
                Err(e) if e.is_illegal_request() && request.dvcid => self.dvcid = false,
                Err(e) if e.is_illegal_request() && request.voltag => self.voltag = false,
                other => return other,
            }
        }
    }

    /// MOVE MEDIUM from `from` to `to` with the first transport, waiting
    /// for the robot; the library's sense becomes the typed errors.
    pub fn move_medium(
        &self,
        device: &mut impl Commands,
        path: &Path,
        from: ElementAddress,
        to: ElementAddress,
    ) -> Result<(), ChangerError> {
        let source = self
            .map
            .address(from)
            .ok_or(ChangerError::NoSuchElement { address: from })?;
        let destination = self
            .map
            .address(to)
            .ok_or(ChangerError::NoSuchElement { address: to })?;
        // Transport address 0 asks for the library's default robot.
        let transport = self
            .map
            .address(ElementAddress {
                kind: ElementKind::Transport,
                index: 0,
            })
            .unwrap_or(0);
        let cdb = smc::move_medium_cdb(transport, source, destination);
        match retried(|| device.command(&cdb, Data::None, MOVE_TIMEOUT)) {
            Ok(_) => Ok(()),
            Err(ScsiError::Check(sense)) => Err(move_refused(path, from, to, sense)),
            Err(e) => Err(ChangerError::io(moving(path, from, to), e.into_io())),
        }
    }
}

/// What a move is, for a message.
pub fn moving(path: &Path, from: ElementAddress, to: ElementAddress) -> String {
    format!("{}: moving the medium in {from} to {to}", path.display())
}

/// The typed error for a MOVE MEDIUM from `from` to `to` that the library
/// refused with `sense`: source empty (3B/0E), destination full (3B/0D),
/// invalid element address (21/01), or in words.
pub fn move_refused(
    path: &Path,
    from: ElementAddress,
    to: ElementAddress,
    sense: Sense,
) -> ChangerError {
    match (sense.asc, sense.ascq) {
        (0x3b, 0x0e) => ChangerError::SlotEmpty { from },
        (0x3b, 0x0d) => ChangerError::DestinationFull { to },
        (0x21, 0x01) => ChangerError::NoSuchElement { address: from },
        _ => ChangerError::robot(moving(path, from, to), sense),
    }
}

/// A failed command while doing `what`: the library's sense in words, or
/// the system's error.
fn scsi_error(what: String, e: ScsiError) -> ChangerError {
    match e {
        ScsiError::Check(sense) => ChangerError::robot(what, sense),
        other => ChangerError::io(what, other.into_io()),
    }
}

/// `send` again while it meets UNIT ATTENTION, a few times.
fn retried<T>(send: impl FnMut() -> Result<T, ScsiError>) -> Result<T, ScsiError> {
    spc::resent_after_unit_attention(UNIT_ATTENTION_RETRIES, send)
}

/// The elements of `kind`, for a message.
fn plural(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Transport => "transports",
        ElementKind::Slot => "slots",
        ElementKind::Portal => "import/export slots",
        ElementKind::Drive => "drives",
    }
}

#[cfg(test)]
#[path = "scsi_tests.rs"]
mod tests;
