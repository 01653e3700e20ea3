//! What a drive says of its encryption (SSC-4 tape data encryption,
//! SECURITY PROTOCOL IN): the data encryption status page (0x0020), what
//! it does now, and the next block encryption status page (0x0021), how
//! the block at the tape's position is encrypted and the key-associated
//! data it was written with; parsed as the drive sends them and sent as
//! mhvtl does, for the emulated drive. The layouts are in
//! `encryption.rs`'s header.

use super::encryption::{be, bounded, set_length, Mode, NEXT_BLOCK, STATUS};

/// The U-KAD among the descriptors in `bytes`, if any.
fn ukad_of(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    while let Some(head) = bytes.get(at..at + 4) {
        let len = be(&head[2..4]);
        let data = bytes.get(at + 4..at + 4 + len)?;
        if head[0] == 0 {
            return Some(data.to_vec());
        }
        at += 4 + len;
    }
    None
}

/// The data encryption status page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    pub encrypt: u8,
    pub decrypt: u8,
    pub index: u8,
    pub key_instance: u32,
    /// The U-KAD written with each block.
    pub ukad: Option<Vec<u8>>,
}

impl Status {
    /// The page in `page`; None when it is too short to be one.
    pub fn parse(page: &[u8]) -> Option<Status> {
        let page = bounded(page);
        if page.len() < 12 {
            return None;
        }
        Some(Status {
            encrypt: page[5],
            decrypt: page[6],
            index: page[7],
            key_instance: be(&page[8..12]) as u32,
            ukad: page.get(24..).and_then(ukad_of),
        })
    }

    /// True when the drive neither encrypts nor decrypts.
    pub fn is_off(&self) -> bool {
        self.encrypt == Mode::Disable as u8 && self.decrypt == Mode::Disable as u8
    }

    /// The page as a drive sends it.
    pub fn reply(&self) -> Vec<u8> {
        let mut page = vec![0u8; 24];
        page[0..2].copy_from_slice(&STATUS.to_be_bytes());
        page[4] = 0x21;
        page[5] = self.encrypt;
        page[6] = self.decrypt;
        page[7] = self.index;
        page[8..12].copy_from_slice(&self.key_instance.to_be_bytes());
        if let Some(ukad) = &self.ukad {
            push_ukad(&mut page, ukad, 0x00);
        }
        set_length(&mut page);
        page
    }
}

/// How the next block is encrypted (its ENCRYPTION STATUS code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    /// 1: the drive cannot tell before it reads the block.
    Unknown,
    /// 2: a filemark or the end of data, not a logical block.
    NotABlock,
    /// 3.
    Plain,
    /// 4: with an algorithm the drive does not have.
    Unsupported,
    /// 5: with the key the drive holds.
    Readable,
    /// 6: the drive holds no key for it, or another.
    KeyNeeded,
    Other(u8),
}

impl BlockState {
    pub fn code(self) -> u8 {
        match self {
            BlockState::Unknown => 1,
            BlockState::NotABlock => 2,
            BlockState::Plain => 3,
            BlockState::Unsupported => 4,
            BlockState::Readable => 5,
            BlockState::KeyNeeded => 6,
            BlockState::Other(c) => c,
        }
    }

    fn from_code(code: u8) -> BlockState {
        [
            BlockState::Unknown,
            BlockState::NotABlock,
            BlockState::Plain,
            BlockState::Unsupported,
            BlockState::Readable,
            BlockState::KeyNeeded,
        ]
        .into_iter()
        .find(|s| s.code() == code)
        .unwrap_or(BlockState::Other(code))
    }

    /// True for a block stored encrypted.
    pub fn encrypted(self) -> bool {
        matches!(
            self,
            BlockState::Unsupported | BlockState::Readable | BlockState::KeyNeeded
        )
    }
}

/// The next block encryption status page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextBlock {
    pub block: u64,
    pub state: BlockState,
    pub ukad: Option<Vec<u8>>,
}

impl NextBlock {
    /// The page in `page`; None when it is too short to be one.
    pub fn parse(page: &[u8]) -> Option<NextBlock> {
        let page = bounded(page);
        if page.len() < 14 {
            return None;
        }
        Some(NextBlock {
            block: be(&page[4..12]) as u64,
            state: BlockState::from_code(page[12] & 0x0f),
            ukad: page.get(16..).and_then(ukad_of),
        })
    }

    /// The page as mhvtl sends it.
    pub fn reply(&self) -> Vec<u8> {
        let mut page = vec![0u8; 16];
        page[0..2].copy_from_slice(&NEXT_BLOCK.to_be_bytes());
        page[8..12].copy_from_slice(&(self.block as u32).to_be_bytes());
        page[12] = self.state.code();
        page[13] = 1;
        if let Some(ukad) = &self.ukad {
            push_ukad(&mut page, ukad, 0x01);
        }
        set_length(&mut page);
        page
    }
}

fn push_ukad(page: &mut Vec<u8>, ukad: &[u8], flags: u8) {
    page.extend_from_slice(&[0x00, flags]);
    page.extend_from_slice(&(ukad.len() as u16).to_be_bytes());
    page.extend_from_slice(ukad);
}
