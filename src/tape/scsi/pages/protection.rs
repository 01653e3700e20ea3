//! Logical block protection on the wire (SSC-4, LTO-5 and later): which
//! methods a drive offers, in the logical block protection VPD page
//! (0xB5), and the control data protection mode page (0x0A, subpage
//! 0xF0) that turns them on, as MODE SENSE (10) returns it and MODE SELECT
//! (10) takes it back. Pure functions over bytes, bounded and total.
//!
//! The VPD page is a 4-byte header, then descriptors: byte 0 the
//! descriptor's length less one (7 in SSC-4), byte 1 the method, byte 2
//! the protection information length, byte 3 LBP_W (bit 7) and LBP_R
//! (bit 6). mhvtl puts 4 zero bytes before its first descriptor, so a
//! zero where a descriptor's length would be is taken as a reserved
//! 4-byte word and stepped over. The mode page, after the 8-byte mode parameter header and any
//! block descriptors: byte 0 the page code (PS in bit 7, SPF in bit 6),
//! byte 1 the subpage, bytes 2-3 the length of the rest, byte 4 the
//! method, byte 5 the information length (bits 5-0), byte 6 LBP_W (bit
//! 7), LBP_R (bit 6) and RBDP (bit 5).
//!
//! mhvtl (the tape lab's drives) returns the page code without SPF and
//! takes the page back only so, where SSC-4 sets SPF: the page sent back
//! keeps the code byte the drive gave, less PS, which MODE SELECT must
//! not set, so each drive gets back its own form.

/// The logical block protection VPD page.
pub const VPD_PAGE: u8 = 0xb5;
/// The control mode page; with `SUBPAGE`, control data protection.
pub const MODE_PAGE: u8 = 0x0a;
pub const SUBPAGE: u8 = 0xf0;
/// The protection information every method here appends: a 32-bit CRC.
pub const INFO_BYTES: u8 = 4;
/// The page's length field as SSC-4 and mhvtl give it (28 bytes follow).
const PAGE_LENGTH: u16 = 0x1c;
/// The 10-byte MODE SENSE/SELECT header before the block descriptors.
const HEADER_BYTES: usize = 8;

/// A protection method's code (SSC-4's LOGICAL BLOCK PROTECTION METHOD).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// Reed-Solomon CRC (ECMA-319): LTO-5 and LTO-6.
    ReedSolomon,
    /// CRC32C (Castagnoli): LTO-7 and later, beside Reed-Solomon.
    Crc32c,
}

impl Method {
    /// Every method, the one preferred last.
    pub const ALL: [Method; 2] = [Method::ReedSolomon, Method::Crc32c];

    pub fn code(self) -> u8 {
        match self {
            Method::ReedSolomon => 1,
            Method::Crc32c => 2,
        }
    }

    pub fn from_code(code: u8) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.code() == code)
    }

    /// The name the summary, the manifest and `tapebuf drive` give it.
    pub fn name(self) -> &'static str {
        match self {
            Method::ReedSolomon => "RS-CRC",
            Method::Crc32c => "CRC32C",
        }
    }

    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The methods offered in a VPD page 0xB5 reply with a 4-byte
/// information length and both LBP_W and LBP_R, in ascending order;
/// empty for another page or one too short for its header.
pub fn offered(page: &[u8]) -> Vec<Method> {
    let Some(header) = page.get(..4) else {
        return Vec::new();
    };
    if header[1] != VPD_PAGE {
        return Vec::new();
    }
    let length = usize::from(u16::from_be_bytes([header[2], header[3]]));
    let body = &page[4..page.len().min(4 + length)];
    let mut methods = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let length = usize::from(body[at]);
        if length == 0 {
            at += 4;
            continue;
        }
        let Some(d) = body.get(at..at + 1 + length).filter(|d| d.len() >= 4) else {
            break;
        };
        if d[2] == INFO_BYTES && d[3] & 0xc0 == 0xc0 {
            methods.extend(Method::from_code(d[1]));
        }
        at += 1 + length;
    }
    methods.sort();
    methods.dedup();
    methods
}

/// The control data protection page as the drive holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtectionPage {
    /// Byte 0 as the drive returned it, PS cleared (see the header).
    pub code_byte: u8,
    /// The method's code; 0 is none.
    pub method: u8,
    pub info_bytes: u8,
    /// The drive checks a CRC on every block written.
    pub on_write: bool,
    /// The drive appends the CRC to every block read.
    pub on_read: bool,
}

impl ProtectionPage {
    /// The page from a MODE SENSE (10) reply; None when the reply does
    /// not hold the page whole after its header and block descriptors.
    pub fn parse(reply: &[u8]) -> Option<ProtectionPage> {
        let descriptors = usize::from(u16::from_be_bytes([*reply.get(6)?, *reply.get(7)?]));
        let page = reply.get(HEADER_BYTES + descriptors..)?;
        let body = page.get(..7)?;
        if body[0] & 0x3f != MODE_PAGE || body[1] != SUBPAGE {
            return None;
        }
        Some(ProtectionPage {
            code_byte: body[0] & 0x7f,
            method: body[4],
            info_bytes: body[5] & 0x3f,
            on_write: body[6] & 0x80 != 0,
            on_read: body[6] & 0x40 != 0,
        })
    }

    /// This page with `method` on for writing and reading, or (None) with
    /// protection off.
    pub fn with(self, method: Option<Method>) -> ProtectionPage {
        ProtectionPage {
            method: method.map_or(0, Method::code),
            info_bytes: INFO_BYTES,
            on_write: method.is_some(),
            on_read: method.is_some(),
            ..self
        }
    }

    /// The method in force: Some only when it is one of ours, 4 bytes
    /// long, and on for both writing and reading.
    pub fn in_force(&self) -> Option<Method> {
        let whole = self.on_write && self.on_read && self.info_bytes == INFO_BYTES;
        Method::from_code(self.method).filter(|_| whole)
    }

    /// True when the page holds `method` on for both directions, or
    /// (None) protection off in both.
    pub fn holds(&self, method: Option<Method>) -> bool {
        self.in_force() == method && (method.is_some() || self.is_off())
    }

    /// The page as a message says it: "method 2, on writing only".
    pub fn describe(&self) -> String {
        let on = match (self.on_write, self.on_read) {
            (true, true) => "on writing and reading",
            (true, false) => "on writing only",
            (false, true) => "on reading only",
            (false, false) => "off",
        };
        format!("method {}, {on}", self.method)
    }

    /// True when the drive neither checks nor appends a CRC.
    pub fn is_off(&self) -> bool {
        !self.on_write && !self.on_read
    }

    /// The MODE SELECT (10) parameter list that sets this page: a header
    /// with no block descriptors (its mode data length is reserved in
    /// MODE SELECT, so 0), then the page's 32 bytes.
    pub fn select_list(&self) -> Vec<u8> {
        let mut list = vec![0u8; HEADER_BYTES];
        list.extend([self.code_byte, SUBPAGE]);
        list.extend(PAGE_LENGTH.to_be_bytes());
        let flags = u8::from(self.on_write) << 7 | u8::from(self.on_read) << 6;
        list.extend([self.method, self.info_bytes & 0x3f, flags]);
        list.resize(HEADER_BYTES + 4 + usize::from(PAGE_LENGTH), 0);
        list
    }
}

/// The MODE SENSE (10) reply holding `page`, as a drive answers it (no
/// block descriptors), for the emulated drive and the tests.
#[cfg(any(test, feature = "test-support"))]
pub fn sense_reply(page: &ProtectionPage) -> Vec<u8> {
    let mut reply = page.select_list();
    let data_length = (reply.len() - 2) as u16;
    reply[..2].copy_from_slice(&data_length.to_be_bytes());
    reply
}

/// A VPD page 0xB5 offering `methods` (and "none", as drives list it),
/// laid out as mhvtl lays it out: 4 zero bytes before the descriptors.
#[cfg(any(test, feature = "test-support"))]
pub fn vpd_reply(methods: &[Method]) -> Vec<u8> {
    let mut body = vec![0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0];
    for m in methods {
        body.extend([7, m.code(), INFO_BYTES, 0xc0, 0, 0, 0, 0]);
    }
    let mut page = vec![0x01, VPD_PAGE];
    page.extend((body.len() as u16).to_be_bytes());
    page.extend(body);
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn off(code_byte: u8) -> ProtectionPage {
        ProtectionPage {
            code_byte,
            method: 0,
            info_bytes: 4,
            on_write: false,
            on_read: false,
        }
    }

    #[test]
    fn every_method_reads_back_from_its_code_and_its_name() {
        for m in Method::ALL {
            assert_eq!(Method::from_code(m.code()), Some(m));
            assert_eq!(Method::from_name(m.name()), Some(m));
        }
        assert_eq!(Method::from_code(0), None);
        assert_eq!(Method::from_code(3), None);
    }

    #[test]
    fn the_vpd_page_lists_the_methods_a_drive_offers_for_writing_and_reading() {
        assert_eq!(
            offered(&vpd_reply(&[Method::ReedSolomon])),
            vec![Method::ReedSolomon]
        );
        assert_eq!(offered(&vpd_reply(&Method::ALL)), Method::ALL.to_vec());
        let mut read_only = vpd_reply(&[Method::Crc32c]);
        read_only[19] = 0x40;
        assert!(offered(&read_only).is_empty());
        assert!(offered(&[0x01, 0x80, 0, 0]).is_empty());
        assert!(offered(&[0x01]).is_empty());
    }

    #[test]
    fn a_vpd_page_cut_anywhere_offers_only_its_whole_descriptors() {
        let page = vpd_reply(&Method::ALL);
        for cut in 0..page.len() {
            let got = offered(&page[..cut]);
            assert!(
                got.len() <= (cut.saturating_sub(16)) / 8,
                "cut {cut}: {got:?}"
            );
        }
    }

    #[test]
    fn a_vpd_page_laid_out_as_ssc_4_says_reads_the_same() {
        // Descriptors from byte 4, with no reserved word before them.
        let mut page = vec![0x01, VPD_PAGE, 0, 16];
        page.extend([7, 0, 0, 0, 0, 0, 0, 0, 7, 2, 4, 0xc0, 0, 0, 0, 0]);
        assert_eq!(offered(&page), vec![Method::Crc32c]);
        // The layout mhvtl's IBM LTO-7 answers with (tests/tapelab/FINDINGS.md).
        let mut mhvtl = vec![0x01, VPD_PAGE, 0, 28, 0, 0, 0, 0];
        mhvtl.extend([
            7, 0, 0, 0, 0, 0, 0, 0, 7, 1, 4, 0xc0, 0, 0, 0, 0, 7, 2, 4, 0xc0, 0, 0, 0, 0,
        ]);
        assert_eq!(offered(&mhvtl), Method::ALL.to_vec());
    }

    #[test]
    fn a_page_sent_back_reads_back_the_same_in_either_code_form() {
        for code_byte in [MODE_PAGE, MODE_PAGE | 0x40] {
            for method in [None, Some(Method::ReedSolomon), Some(Method::Crc32c)] {
                let page = off(code_byte).with(method);
                let back = ProtectionPage::parse(&sense_reply(&page)).unwrap();
                assert_eq!(back, page);
                assert_eq!(back.in_force(), method);
                assert_eq!(back.is_off(), method.is_none());
            }
        }
    }

    #[test]
    fn the_parameter_list_clears_ps_and_reserves_the_mode_data_length() {
        let mut reply = sense_reply(&off(MODE_PAGE).with(Some(Method::Crc32c)));
        reply[8] |= 0x80;
        let page = ProtectionPage::parse(&reply).unwrap();
        let list = page.select_list();
        assert_eq!(list.len(), 8 + 32);
        assert_eq!(&list[..2], &[0, 0]);
        assert_eq!(list[8], MODE_PAGE);
        assert_eq!(&list[9..15], &[0xf0, 0, 0x1c, 2, 4, 0xc0]);
    }

    #[test]
    fn a_reply_without_the_page_whole_is_no_page() {
        let reply = sense_reply(&off(MODE_PAGE));
        for cut in 0..15 {
            assert_eq!(ProtectionPage::parse(&reply[..cut]), None, "cut {cut}");
        }
        let mut other = reply.clone();
        other[9] = 0x01;
        assert_eq!(ProtectionPage::parse(&other), None);
        let mut descriptors = reply;
        descriptors[7] = 200;
        assert_eq!(ProtectionPage::parse(&descriptors), None);
    }

    #[test]
    fn a_method_on_for_one_direction_only_is_not_in_force() {
        let mut page = off(MODE_PAGE).with(Some(Method::Crc32c));
        page.on_read = false;
        assert_eq!(page.in_force(), None);
        assert!(!page.is_off());
    }
}
