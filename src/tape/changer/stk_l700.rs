//! A library written in code for the SCSI back end's tests: it answers
//! MODE SENSE, READ ELEMENT STATUS and MOVE MEDIUM as mhvtl's STK L700
//! does (transport 1, portal 10, drives from 500, slots from 1000), with
//! faults to switch on.

use std::io;
use std::time::Duration;

use super::super::Commands;
use crate::tape::scsi::sg_io::{Data, ScsiError, Sense};

pub fn sense(key: u8, asc: u8, ascq: u8) -> Sense {
    Sense { key, asc, ascq }
}

/// A library answering as mhvtl's STK L700 does (transport 1, portal 10,
/// drives from 500, slots from 1000), with faults to switch on.
pub struct StkL700 {
    pub slots: u16,
    /// READ ELEMENT STATUS with DVCID is ILLEGAL REQUEST 24/00.
    pub refuses_dvcid: bool,
    /// READ ELEMENT STATUS with VolTag is ILLEGAL REQUEST 24/00.
    pub refuses_voltag: bool,
    /// Addresses the library leaves out of its replies.
    pub omits: Vec<u16>,
    /// The next commands meet UNIT ATTENTION.
    pub attentions: usize,
    /// A move answers with this sense.
    pub move_sense: Option<Sense>,
    /// The kernel refuses READ ELEMENT STATUS (no CAP_SYS_RAWIO).
    pub unprivileged: bool,
    /// The most bytes a reply carries, whatever the allocation length.
    pub max_reply: usize,
    /// Every CDB received.
    pub cdbs: Vec<Vec<u8>>,
}

impl StkL700 {
    pub fn new(slots: u16) -> StkL700 {
        StkL700 {
            slots,
            refuses_dvcid: false,
            refuses_voltag: false,
            omits: vec![],
            attentions: 0,
            move_sense: None,
            unprivileged: false,
            max_reply: usize::MAX,
            cdbs: vec![],
        }
    }

    fn ranges(&self) -> [(u16, u16); 4] {
        [(1, 1), (1000, self.slots), (10, 1), (500, 2)]
    }

    fn mode_page(&self) -> Vec<u8> {
        let mut r = vec![23, 0, 0, 0, 0x1d, 0x12];
        for (first, count) in self.ranges() {
            r.extend(first.to_be_bytes());
            r.extend(count.to_be_bytes());
        }
        r.extend([0, 0]);
        r
    }

    /// One descriptor as mhvtl fills it: slot n holds "E{n:05}L6", drive
    /// 500 holds slot 1002's cartridge.
    fn descriptor(&self, address: u16, voltag: bool, dvcid: bool) -> Vec<u8> {
        let tag = match address {
            1000.. => Some(format!("E{:05}L6", address - 1000)),
            500 => Some("E00002L6".to_string()),
            _ => None,
        };
        let status = if tag.is_some() { 0x09 } else { 0x08 };
        let mut d = address.to_be_bytes().to_vec();
        d.extend([status, 0, 0, 0, 0, 0, 0, 0x01, 0, 0]);
        if voltag {
            let mut field = [b' '; 36];
            if let Some(tag) = &tag {
                field[..tag.len()].copy_from_slice(tag.as_bytes());
            }
            d.extend(field);
        }
        if dvcid {
            d.extend([2, 1, 0, 34]);
            d.extend(format!("IBM     ULT3580-TD6     LABDRV{:02}  ", address - 499).bytes());
        } else {
            d.extend([0; 4]);
        }
        d
    }

    fn element_status(&self, cdb: &[u8]) -> Result<Vec<u8>, ScsiError> {
        let voltag = cdb[1] & 0x10 != 0;
        let dvcid = cdb[6] & 1 != 0 && cdb[1] & 0x0f == 4;
        if (dvcid && self.refuses_dvcid) || (voltag && self.refuses_voltag) {
            return Err(ScsiError::Check(sense(5, 0x24, 0)));
        }
        let code = cdb[1] & 0x0f;
        let (first, count) = self.ranges()[usize::from(code - 1)];
        let start = u16::from_be_bytes([cdb[2], cdb[3]]).max(first);
        let wanted = u16::from_be_bytes([cdb[4], cdb[5]]);
        let addresses: Vec<u16> = (start..first + count)
            .filter(|a| !self.omits.contains(a))
            .take(usize::from(wanted))
            .collect();
        let descriptors: Vec<Vec<u8>> = addresses
            .iter()
            .map(|&a| self.descriptor(a, voltag, dvcid))
            .collect();
        let length = descriptors.first().map_or(0, Vec::len) as u16;
        let body = descriptors.concat();
        let page_bytes = body.len() as u32;
        let mut r = start.to_be_bytes().to_vec();
        r.extend((addresses.len() as u16).to_be_bytes());
        r.push(0);
        r.extend(&(page_bytes + 8).to_be_bytes()[1..]);
        r.extend([code, if voltag { 0x80 } else { 0 }]);
        r.extend(length.to_be_bytes());
        r.push(0);
        r.extend(&page_bytes.to_be_bytes()[1..]);
        r.extend(body);
        Ok(r)
    }
}

impl Commands for StkL700 {
    fn command(&mut self, cdb: &[u8], data: Data<'_>, _: Duration) -> Result<usize, ScsiError> {
        self.cdbs.push(cdb.to_vec());
        if self.attentions > 0 {
            self.attentions -= 1;
            return Err(ScsiError::Check(sense(6, 0x28, 0)));
        }
        let reply = match cdb[0] {
            0x1a => self.mode_page(),
            0xb8 if self.unprivileged => {
                return Err(ScsiError::Ioctl(io::Error::from_raw_os_error(libc::EPERM)))
            }
            0xb8 => self.element_status(cdb)?,
            0xa5 => return self.move_sense.map_or(Ok(0), |s| Err(ScsiError::Check(s))),
            _ => return Err(ScsiError::Check(sense(5, 0x20, 0))),
        };
        let Data::In(buf) = data else {
            panic!("a read without a buffer");
        };
        // The device sends at most the allocation length and the buffer.
        let allocation = match cdb[0] {
            0x1a => usize::from(cdb[4]),
            _ => (usize::from(cdb[7]) << 16) | (usize::from(cdb[8]) << 8) | usize::from(cdb[9]),
        };
        let n = reply
            .len()
            .min(allocation)
            .min(buf.len())
            .min(self.max_reply);
        buf[..n].copy_from_slice(&reply[..n]);
        Ok(n)
    }
}
