//! Tape data encryption on the wire (SSC-4, security protocol 0x20, LTO-4
//! and later), sent with SECURITY PROTOCOL OUT and read with SECURITY
//! PROTOCOL IN: the pages tapebuf sends and reads, and the replies the
//! emulated drive gives. Pure functions over bytes, bounded and total.
//!
//! - Data encryption capabilities (IN 0x0010): a 20-byte header, then one
//!   descriptor per algorithm. Descriptor bytes 0 the algorithm index,
//!   2-3 the length of the rest, 4 AVFMV (bit 7: valid for the volume
//!   mounted), DECRYPT_C (bits 3-2) and ENCRYPT_C (bits 1-0), 2 meaning
//!   in hardware; 6-7 the most U-KAD bytes, 8-9 the most A-KAD bytes,
//!   10-11 the key's bytes, 20-23 the algorithm's id (0x00010014 is
//!   AES-256-GCM).
//! - Set data encryption (OUT 0x0010): 4 bytes page and length, 4 the
//!   scope (bits 7-5) and LOCK, 5 CEEM, RDMC, SDK and the CKO bits, 6 the
//!   encryption mode, 7 the decryption mode, 8 the algorithm index, 9
//!   the key format (0: the key itself), 10 the KAD format, 18-19 the
//!   key's length, the key, then key-associated data descriptors: byte 0
//!   the type (0 U-KAD, 1 A-KAD), 1 flags, 2-3 the length, the data.
//! - Data encryption status (IN 0x0020): 4 the scopes, 5 the encryption
//!   mode, 6 the decryption mode, 7 the algorithm index, 8-11 the key
//!   instance counter, KAD descriptors from byte 24.
//! - Next block encryption status (IN 0x0021): 4-11 the block's number
//!   (mhvtl fills only 8-11), 12 the compression status (bits 7-4) and
//!   the encryption status (bits 3-0), 13 the algorithm index, KAD
//!   descriptors from byte 16.
//!
//! mhvtl (the tape lab's drives, `usr/cmd/vtltape.c`) takes the set page
//! only with algorithm index 1 and key format 0 and with a U-KAD of at
//! most 32 bytes, and keeps the key through loads, unloads and resets
//! until a set page with mode 0 and no key clears it.

/// SECURITY PROTOCOL IN and OUT's protocol for tape data encryption.
pub const PROTOCOL: u8 = 0x20;
/// IN: the capabilities page; OUT: the set data encryption page.
pub const CAPABILITIES: u16 = 0x0010;
pub const SET_DATA_ENCRYPTION: u16 = 0x0010;
/// IN: what the drive does now.
pub const STATUS: u16 = 0x0020;
/// IN: how the block at the tape's position is encrypted.
pub const NEXT_BLOCK: u16 = 0x0021;
/// AES-256-GCM, the algorithm every LTO drive from LTO-4 has.
pub const AES_256_GCM: u32 = 0x0001_0014;
/// The bytes of an AES-256 key.
pub const KEY_BYTES: usize = 32;
/// The most U-KAD bytes an LTO drive keeps with each block.
pub const UKAD_MAX: usize = 32;

/// An encryption or decryption mode (SSC-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Encryption: off. Decryption: off, encrypted blocks are refused.
    Disable = 0,
    /// Blocks pass as stored, encrypted or not.
    External = 1,
    /// Encryption: every block written. Decryption: every block read,
    /// and a block that is not encrypted is refused.
    On = 2,
    /// Decryption only: encrypted blocks are decrypted, others read as
    /// they are.
    Mixed = 3,
}

impl Mode {
    /// The mode a byte holds; None for a code this module does not use.
    pub fn from_code(code: u8) -> Option<Mode> {
        [Mode::Disable, Mode::External, Mode::On, Mode::Mixed]
            .into_iter()
            .find(|m| *m as u8 == code)
    }

    /// What `tapebuf drive` says of it.
    pub fn describe(code: u8, writing: bool) -> String {
        match (Mode::from_code(code), writing) {
            (Some(Mode::Disable), _) => "off".into(),
            (Some(Mode::External), _) => "external".into(),
            (Some(Mode::On), true) => "encrypting".into(),
            (Some(Mode::On), false) => "decrypting".into(),
            (Some(Mode::Mixed), _) => "decrypting where encrypted".into(),
            (None, _) => format!("mode {code}"),
        }
    }
}

/// One algorithm of the capabilities page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Algorithm {
    pub index: u8,
    pub id: u32,
    /// ENCRYPT_C is 2: the drive encrypts with it in hardware.
    pub encrypts: bool,
    /// DECRYPT_C is 2.
    pub decrypts: bool,
    /// AVFMV: it may be used on the volume mounted (a cartridge the
    /// generation can encrypt; meaningful only with one loaded).
    pub for_volume: bool,
    pub key_bytes: usize,
    pub ukad_max: usize,
}

impl Algorithm {
    /// True when tapebuf can write with it: AES-256-GCM in hardware, a
    /// 32-byte key, room for a fingerprint as U-KAD.
    pub fn usable(&self) -> bool {
        self.id == AES_256_GCM
            && self.encrypts
            && self.decrypts
            && self.key_bytes == KEY_BYTES
            && self.ukad_max >= UKAD_MAX
    }
}

/// The big-endian number in `bytes`.
pub(super) fn be(bytes: &[u8]) -> usize {
    bytes.iter().fold(0, |n, &b| n << 8 | usize::from(b))
}

/// The page's bytes as its length field bounds them, the 4-byte header
/// included.
pub(super) fn bounded(page: &[u8]) -> &[u8] {
    match page.get(2..4) {
        Some(len) => &page[..page.len().min(4 + be(len))],
        None => &[],
    }
}

/// The algorithms of a capabilities page (`page` as read).
pub fn algorithms(page: &[u8]) -> Vec<Algorithm> {
    let page = bounded(page);
    let mut out = Vec::new();
    let mut at = 20;
    while let Some(head) = page.get(at..at + 4) {
        let len = be(&head[2..4]);
        let Some(d) = page.get(at..at + 4 + len) else {
            break;
        };
        if d.len() >= 24 {
            out.push(Algorithm {
                index: d[0],
                id: be(&d[20..24]) as u32,
                encrypts: d[4] & 0x03 == 2,
                decrypts: (d[4] >> 2) & 0x03 == 2,
                for_volume: d[4] & 0x80 != 0,
                key_bytes: be(&d[10..12]),
                ukad_max: be(&d[6..8]),
            });
        }
        at += 4 + len;
    }
    out
}

/// The set data encryption page: `encrypt` and `decrypt` modes with
/// `algorithm`'s index, `key` (empty: none) and `ukad` (empty: none),
/// scope all I_T nexuses (the sg node and st's node are one nexus, but
/// another initiator's reads must meet the same key).
pub fn set_page(encrypt: Mode, decrypt: Mode, index: u8, key: &[u8], ukad: &[u8]) -> Vec<u8> {
    const ALL_I_T_NEXUS: u8 = 2 << 5;
    let mut page = vec![0u8; 20];
    page[0..2].copy_from_slice(&SET_DATA_ENCRYPTION.to_be_bytes());
    page[4] = ALL_I_T_NEXUS;
    page[6] = encrypt as u8;
    page[7] = decrypt as u8;
    page[8] = index;
    page[18..20].copy_from_slice(&(key.len() as u16).to_be_bytes());
    page.extend_from_slice(key);
    if !ukad.is_empty() {
        page.extend_from_slice(&[0, 0]);
        page.extend_from_slice(&(ukad.len() as u16).to_be_bytes());
        page.extend_from_slice(ukad);
    }
    let len = (page.len() - 4) as u16;
    page[2..4].copy_from_slice(&len.to_be_bytes());
    page
}

/// A set page as a drive reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct SetPage {
    pub encrypt: u8,
    pub decrypt: u8,
    pub index: u8,
    pub key_format: u8,
    pub key: Vec<u8>,
    pub ukad: Vec<u8>,
}

impl std::fmt::Debug for SetPage {
    /// Everything but the key, of which only its length is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetPage")
            .field("encrypt", &self.encrypt)
            .field("decrypt", &self.decrypt)
            .field("index", &self.index)
            .field("key_format", &self.key_format)
            .field("key_bytes", &self.key.len())
            .field("ukad", &self.ukad)
            .finish()
    }
}

/// The set page in `list`; None when it is not one or is cut short.
pub fn parse_set_page(list: &[u8]) -> Option<SetPage> {
    if list.len() < 20 || be(&list[0..2]) as u16 != SET_DATA_ENCRYPTION {
        return None;
    }
    let list = bounded(list);
    let key_len = be(list.get(18..20)?);
    let key = list.get(20..20 + key_len)?.to_vec();
    let mut ukad = Vec::new();
    let mut at = 20 + key_len;
    while let Some(head) = list.get(at..at + 4) {
        let len = be(&head[2..4]);
        let data = list.get(at + 4..at + 4 + len)?;
        if head[0] == 0 {
            ukad = data.to_vec();
        }
        at += 4 + len;
    }
    Some(SetPage {
        encrypt: list[6],
        decrypt: list[7],
        index: list[8],
        key_format: list[9],
        key,
        ukad,
    })
}

pub(super) fn set_length(page: &mut [u8]) {
    let len = (page.len() - 4) as u16;
    page[2..4].copy_from_slice(&len.to_be_bytes());
}

/// The capabilities page as mhvtl's IBM LTO drives send it, with one
/// AES-256-GCM algorithm (index 1); `for_volume` sets AVFMV.
pub fn capabilities_reply(for_volume: bool) -> Vec<u8> {
    let mut page = vec![0u8; 44];
    page[0..2].copy_from_slice(&CAPABILITIES.to_be_bytes());
    page[4] = 0x01;
    page[20] = 1;
    page[22..24].copy_from_slice(&0x14u16.to_be_bytes());
    page[24] = 0x3a | if for_volume { 0x80 } else { 0 };
    page[25] = 0x10;
    page[26..28].copy_from_slice(&(UKAD_MAX as u16).to_be_bytes());
    page[28..30].copy_from_slice(&12u16.to_be_bytes());
    page[30..32].copy_from_slice(&(KEY_BYTES as u16).to_be_bytes());
    page[32] = 0x09;
    page[40..44].copy_from_slice(&AES_256_GCM.to_be_bytes());
    set_length(&mut page);
    page
}

#[cfg(test)]
#[path = "encryption_tests.rs"]
mod tests;
