//! The emulated drive's encryption, as mhvtl's IBM LTO drives do it in
//! the tape lab (`usr/cmd/vtltape.c`, `usr/ssc.c`; tests/tapelab/FINDINGS.md,
//! "Encryption"):
//!
//! - SECURITY PROTOCOL IN of protocol 0x20: the capabilities page (one
//!   AES-256-GCM algorithm, index 1, AVFMV set with a cartridge loaded),
//!   the status page and the next block encryption status of the item at
//!   the tape's position (not a block, plain, or encrypted with the key
//!   the drive holds or not, with the U-KAD it was written with);
//! - SECURITY PROTOCOL OUT of the set data encryption page, taken only
//!   with algorithm index 1, key format 0 and a U-KAD of at most 32 bytes
//!   (none without encryption); the key and modes are kept for the
//!   drive's life, through loads and unloads, until a page without a key
//!   clears them;
//! - with encryption mode 2, each record written is stored sealed with
//!   the key and the U-KAD (the bytes are kept as they are, as mhvtl
//!   keeps them: it is the drive's checks that are emulated, not AES);
//! - a sealed record read with decryption off fails (DATA PROTECT 74/01),
//!   with another key (74/03); a plain one with decryption mode 2 (74/02):
//!   st reports each as EIO, and the tape does not move.
//! - With `ScsiFace::blind_next_block`, the next block status is "unable
//!   to determine" until a read at the position was tried.
//! - A drive whose `ScsiFace::encrypts` is false refuses both commands
//!   (ILLEGAL REQUEST, invalid command operation code), as one before
//!   LTO-4.

use std::io;

use super::autoloader::Autoloader;
use super::cartridge::Item;
use super::crypt_state::{DriveCrypt, Seal};
use crate::tape::scsi::pages::encryption::{
    capabilities_reply, parse_set_page, CAPABILITIES, NEXT_BLOCK, PROTOCOL, STATUS, UKAD_MAX,
};
use crate::tape::scsi::pages::encryption_status::{BlockState, NextBlock, Status};
use crate::tape::scsi::sg_io::{ScsiError, Sense, ILLEGAL_REQUEST};

fn illegal(asc: u8) -> ScsiError {
    ScsiError::Check(Sense {
        key: ILLEGAL_REQUEST,
        asc,
        ascq: 0,
    })
}

impl Autoloader {
    /// SECURITY PROTOCOL IN: the page asked of the item at `position`.
    pub(super) fn security_in(
        &self,
        protocol: u8,
        page: u16,
        position: usize,
    ) -> Result<Vec<u8>, ScsiError> {
        if !self.scsi.encrypts {
            return Err(illegal(0x20));
        }
        if protocol != PROTOCOL {
            return Err(illegal(0x24));
        }
        match page {
            CAPABILITIES => Ok(capabilities_reply(self.loaded.is_some())),
            STATUS => Ok(Status {
                encrypt: self.crypt.encrypt,
                decrypt: self.crypt.decrypt,
                index: 1,
                key_instance: self.crypt.instance,
                ukad: (!self.crypt.ukad.is_empty()).then(|| self.crypt.ukad.clone()),
            }
            .reply()),
            NEXT_BLOCK => {
                let slot = self.loaded.ok_or_else(super::scsi::no_medium)?;
                let cart = &self.slots[slot];
                let seal = cart.seals.get(&position);
                if self.scsi.blind_next_block && self.read_tried_at != Some((slot, position)) {
                    let unknown = NextBlock {
                        block: position as u64,
                        state: BlockState::Unknown,
                        ukad: None,
                    };
                    return Ok(unknown.reply());
                }
                let state = match (cart.items.get(position), seal) {
                    (Some(Item::Record(_)), None) => BlockState::Plain,
                    (Some(Item::Record(_)), Some(s)) if s.key == self.crypt.key => {
                        BlockState::Readable
                    }
                    (Some(Item::Record(_)), Some(_)) => BlockState::KeyNeeded,
                    _ => BlockState::NotABlock,
                };
                Ok(NextBlock {
                    block: position as u64,
                    state,
                    ukad: seal.filter(|s| !s.ukad.is_empty()).map(|s| s.ukad.clone()),
                }
                .reply())
            }
            _ => Err(illegal(0x24)),
        }
    }

    /// SECURITY PROTOCOL OUT of `list`.
    pub(super) fn security_out(&mut self, protocol: u8, list: &[u8]) -> Result<(), ScsiError> {
        if !self.scsi.encrypts {
            return Err(illegal(0x20));
        }
        let page = parse_set_page(list).filter(|_| protocol == PROTOCOL);
        let Some(page) = page.filter(|p| p.index == 1 && p.key_format == 0) else {
            return Err(illegal(0x26));
        };
        if page.ukad.len() > UKAD_MAX || (page.encrypt == 0 && !page.ukad.is_empty()) {
            return Err(illegal(0x24));
        }
        self.crypt = DriveCrypt {
            key: page.key,
            ukad: page.ukad,
            encrypt: page.encrypt,
            decrypt: page.decrypt,
            instance: self.crypt.instance + 1,
        };
        self.log.push(match self.crypt.key.is_empty() {
            true => "key cleared".into(),
            false => format!(
                "key set, encrypt {} decrypt {}",
                self.crypt.encrypt, self.crypt.decrypt
            ),
        });
        Ok(())
    }

    /// The seal a record written now gets: with encryption mode 2.
    pub(super) fn seal(&self) -> Option<Seal> {
        (self.crypt.encrypt == 2).then(|| Seal {
            key: self.crypt.key.clone(),
            ukad: self.crypt.ukad.clone(),
        })
    }

    /// Refuses the read of item `position` of `slot` as the drive does.
    /// With decryption mode 2 (on) mhvtl refuses to read anything that is
    /// not an encrypted block, a filemark and the end of data included
    /// (it asks before it looks at what the position holds; measured in
    /// the tape lab, tests/tapelab/FINDINGS.md).
    pub(super) fn check_decrypt(&self, slot: usize, position: usize) -> io::Result<()> {
        let cart = &self.slots[slot];
        let refused = match cart.seals.get(&position) {
            Some(seal) => self.crypt.decrypt < 2 || seal.key != self.crypt.key,
            None => self.crypt.decrypt == 2,
        };
        match refused {
            true => Err(io::Error::from_raw_os_error(libc::EIO)),
            false => Ok(()),
        }
    }
}
