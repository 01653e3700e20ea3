//! Which drive element of a changer a tape node is. The only safe key is
//! the drive's serial number: the library's device identifier for each
//! drive element (DVCID, from READ ELEMENT STATUS) against the serial the
//! drive itself gives in its VPD page 0x80, which the kernel keeps in
//! sysfs, or else answers to INQUIRY (over SG_IO on the node opened
//! without waiting, which the kernel allows any user who can open it).
//! Numbering is never trusted: in the tape lab, drive element 0
//! attaches as /dev/st0 on some boots and as /dev/st1 on others. When the
//! match cannot be made, or is not unique, the refusal names
//! `--drive-element N`, the way to say it by hand.

use std::fs::{self, OpenOptions};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::element::ElementAddress;
use super::error::ChangerError;
use super::inventory::Inventory;
use crate::tape::scsi::pages::identity::SERIAL_PAGE;
use crate::tape::scsi::sg_io::{self, Data};
use crate::tape::scsi::spc;

/// The shortest serial tapebuf matches by prefix: libraries cut the serial
/// in a device identifier short (mhvtl and STK libraries to 10 characters).
const SHORTEST_CUT_SERIAL: usize = 8;

/// The serial number of the tape drive behind the character node `node`,
/// from the VPD page 0x80 that the kernel keeps in sysfs for the SCSI
/// device, or else from the drive itself (`inquiry_serial`). `None` when
/// the node is not a character device or neither gives the page.
pub fn drive_serial(node: &Path) -> Option<String> {
    let meta = fs::metadata(node).ok()?;
    if !meta.file_type().is_char_device() {
        return None;
    }
    let rdev = meta.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    fs::read(format!("/sys/dev/char/{major}:{minor}/device/vpd_pg80"))
        .ok()
        .and_then(|page| serial_from_vpd80(&page))
        .or_else(|| inquiry_serial(node))
}

/// The serial in the drive's answer to INQUIRY for VPD page 0x80, sent
/// over SG_IO on `node` opened read-only and without waiting: a blocking
/// open of an empty drive waits two minutes. (Closing a rewinding node
/// rewinds, as after any open.)
fn inquiry_serial(node: &Path) -> Option<String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(node)
        .ok()?;
    let mut page = [0u8; spc::INQUIRY_BYTES as usize];
    let cdb = spc::inquiry_vpd(SERIAL_PAGE, spc::INQUIRY_BYTES);
    let got = sg_io::command(
        file.as_fd(),
        &cdb,
        Data::In(&mut page),
        spc::INQUIRY_TIMEOUT,
    )
    .ok()?;
    serial_from_vpd80(&page[..got])
}

/// The serial in a VPD page 0x80: a 4-byte header whose bytes 2-3 give the
/// length, then the serial in ASCII, often blank-padded. A page too short,
/// of another code, or holding no printable character gives `None`.
pub fn serial_from_vpd80(page: &[u8]) -> Option<String> {
    if page.len() < 4 || page[1] != 0x80 {
        return None;
    }
    let length = usize::from(u16::from_be_bytes([page[2], page[3]]));
    let body = &page[4..page.len().min(4 + length)];
    let text: String = body
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as char)
        .collect();
    let text = text.trim();
    (!text.is_empty() && text.chars().all(|c| c.is_ascii_graphic())).then(|| text.to_string())
}

/// Whether the device identifier `identifier` of a drive element names the
/// drive whose serial is `serial`. The identifier's last word is its serial
/// (SMC's T10 form is vendor, product, serial; some libraries give the
/// serial alone); it must equal the drive's, or be the drive's cut short
/// to at least 8 characters.
pub fn serial_matches(identifier: &str, serial: &str) -> bool {
    let Some(last) = identifier.split_whitespace().last() else {
        return false;
    };
    let serial = serial.trim();
    last == serial || (last.len() >= SHORTEST_CUT_SERIAL && serial.starts_with(last))
}

/// The drive element of `inventory` that the tape node `node` is: the one
/// `forced` names (from `--drive-element`, 0-based as mtx shows drives),
/// or the one whose identifier matches the node's serial.
pub fn find_drive(
    node: &Path,
    inventory: &Inventory,
    forced: Option<usize>,
) -> Result<ElementAddress, ChangerError> {
    if let Some(index) = forced {
        let address = ElementAddress::drive(index);
        return match inventory.element(address) {
            Some(_) => Ok(address),
            None => Err(ChangerError::NoSuchElement { address }),
        };
    }
    let refuse = |why: String| ChangerError::NoDriveMatch {
        node: node.to_path_buf(),
        why,
    };
    let serial = drive_serial(node).ok_or_else(|| {
        refuse("the drive gives no serial number, in sysfs or to INQUIRY".to_string())
    })?;
    match_serial(&serial, inventory).map_err(refuse)
}

/// The one drive element whose identifier names the drive `serial`.
pub fn match_serial(serial: &str, inventory: &Inventory) -> Result<ElementAddress, String> {
    if inventory.drives.iter().all(|d| d.identifier.is_none()) {
        return Err(format!(
            "the changer gave no drive identifiers to match the drive's serial {serial} against"
        ));
    }
    let matching: Vec<ElementAddress> = inventory
        .drives
        .iter()
        .filter(|d| {
            d.identifier
                .as_deref()
                .is_some_and(|id| serial_matches(id, serial))
        })
        .map(|d| d.address)
        .collect();
    match matching.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no drive of the changer has the serial {serial}")),
        many => Err(format!(
            "{} drives of the changer match the serial {serial}",
            many.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_that_is_no_character_device_has_no_serial() {
        let f = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(drive_serial(f.path()), None);
        assert_eq!(drive_serial(Path::new("/nonexistent/nst0")), None);
    }

    #[test]
    fn a_character_device_that_is_no_scsi_device_has_no_serial() {
        // /dev/null has no VPD page in sysfs and answers SG_IO with ENOTTY.
        assert_eq!(drive_serial(Path::new("/dev/null")), None);
    }
}
