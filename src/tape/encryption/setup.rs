//! A drive's encryption through its SCSI commands (`Drive::scsi_command`):
//! what it can do (SECURITY PROTOCOL IN, capabilities), the key and modes
//! set (SECURITY PROTOCOL OUT, set data encryption), what it does now
//! (status) and how the block at the tape's position is encrypted (next
//! block encryption status). The pages are `scsi::pages::encryption`.
//!
//! Every page that carries a key is zeroed once it is sent.

use std::time::Duration;

use crate::keys::tape_key::TapeKey;
use crate::tape::drive::Drive;
use crate::tape::scsi::pages::encryption::{
    algorithms, set_page, Algorithm, Mode, CAPABILITIES, NEXT_BLOCK, PROTOCOL, SET_DATA_ENCRYPTION,
    STATUS,
};
use crate::tape::scsi::pages::encryption_status::{NextBlock, Status};
use crate::tape::scsi::pages::mam::Mam;
use crate::tape::scsi::sg_io::{Data, ScsiError};
use crate::tape::scsi::spc;

const TIMEOUT: Duration = spc::SECURITY_TIMEOUT;
/// Room for any page read here: a header, descriptors and two KADs.
const PAGE_BYTES: u32 = 512;

/// Page `specific` of the encryption protocol, as read.
fn read(drive: &mut dyn Drive, specific: u16) -> Result<Vec<u8>, ScsiError> {
    let mut page = vec![0u8; PAGE_BYTES as usize];
    let cdb = spc::security_in(PROTOCOL, specific, PAGE_BYTES);
    let got = drive.scsi_command(&cdb, Data::In(&mut page), TIMEOUT)?;
    page.truncate(got);
    Ok(page)
}

/// The algorithm tapebuf writes with, or why the drive cannot: it has no
/// security protocols (ILLEGAL REQUEST), its commands do not reach it,
/// it has no AES-256-GCM in hardware, or the cartridge loaded cannot be
/// encrypted.
pub fn writing_algorithm(drive: &mut dyn Drive) -> Result<Algorithm, String> {
    let page = match read(drive, CAPABILITIES) {
        Ok(page) => page,
        Err(e) if e.is_illegal_request() => {
            return Err(format!(
                "the drive does not encrypt (its SECURITY PROTOCOL IN answers {e})"
            ))
        }
        Err(e) => return Err(format!("its SCSI commands did not reach it ({e})")),
    };
    let all = algorithms(&page);
    let Some(aes) = all.iter().find(|a| a.usable()) else {
        return Err(match all.is_empty() {
            true => "the drive lists no encryption algorithm".into(),
            false => {
                "the drive has no AES-256-GCM in hardware with room for a key's fingerprint".into()
            }
        });
    };
    if !aes.for_volume {
        return Err("the drive cannot encrypt the cartridge in it (an LTO generation before LTO-4, or a WORM or cleaning cartridge)".into());
    }
    Ok(aes.clone())
}

/// The algorithm index a drive reads with; 1 (every LTO drive's AES) when
/// it lists none usable.
pub fn reading_index(drive: &mut dyn Drive) -> u8 {
    read(drive, CAPABILITIES)
        .ok()
        .and_then(|page| algorithms(&page).into_iter().find(|a| a.usable()))
        .map_or(1, |a| a.index)
}

/// Sets the drive's modes with algorithm `index` and `key` (None: no
/// key, which clears the one it held).
pub fn set(
    drive: &mut dyn Drive,
    encrypt: Mode,
    decrypt: Mode,
    index: u8,
    key: Option<&TapeKey>,
) -> Result<(), ScsiError> {
    let (bytes, ukad) = match key {
        Some(k) => (&k.bytes()[..], k.print().ukad()),
        None => (&[][..], Vec::new()),
    };
    let ukad = if encrypt == Mode::On {
        ukad
    } else {
        Vec::new()
    };
    let mut page = set_page(encrypt, decrypt, index, bytes, &ukad);
    let cdb = spc::security_out(PROTOCOL, SET_DATA_ENCRYPTION, page.len() as u32);
    let sent = drive.scsi_command(&cdb, Data::Out(&page), TIMEOUT);
    page.iter_mut().for_each(|b| *b = 0);
    sent.map(|_| ())
}

/// Clears the key and turns encryption and decryption off.
pub fn clear(drive: &mut dyn Drive, index: u8) -> Result<(), ScsiError> {
    set(drive, Mode::Disable, Mode::Disable, index, None)
}

/// What the drive does now.
pub fn status(drive: &mut dyn Drive) -> Result<Status, ScsiError> {
    let page = read(drive, STATUS)?;
    Status::parse(&page).ok_or_else(|| short("data encryption status"))
}

/// How the block at the tape's position is encrypted.
pub fn next_block(drive: &mut dyn Drive) -> Result<NextBlock, ScsiError> {
    let page = read(drive, NEXT_BLOCK)?;
    NextBlock::parse(&page).ok_or_else(|| short("next block encryption status"))
}

fn short(what: &str) -> ScsiError {
    ScsiError::Ioctl(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("the drive's {what} page is too short"),
    ))
}

/// The barcode in the memory of the cartridge loaded (READ ATTRIBUTE),
/// for a message that must say which cartridge; None when it has none.
pub fn barcode(drive: &mut dyn Drive) -> Option<String> {
    let mut reply = vec![0u8; 4096];
    let cdb = spc::read_attribute(reply.len() as u32);
    let got = drive
        .scsi_command(&cdb, Data::In(&mut reply), spc::ATTRIBUTE_TIMEOUT)
        .ok()?;
    Mam::parse(&reply[..got])?.barcode
}
