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
use crate::tape::scsi::pages::identity::{unit_serial, SERIAL_PAGE};
use crate::tape::scsi::sg_io::{Commands, Data};
use crate::tape::scsi::spc;

/// The shortest serial tapebuf matches by prefix: libraries cut the serial
/// in a device identifier short (mhvtl and STK libraries to 10 characters).
const SHORTEST_CUT_SERIAL: usize = 8;

/// The serial number of the tape drive behind the character node `node`,
/// from the VPD page 0x80 that the kernel keeps in sysfs for the SCSI
/// device, or else from the drive itself (`node_inquiry_serial`), each
/// read by `identity::unit_serial`, as drive health reads it. `None` when
/// the node is not a character device or neither gives a serial.
pub fn drive_serial(node: &Path) -> Option<String> {
    let meta = fs::metadata(node).ok()?;
    if !meta.file_type().is_char_device() {
        return None;
    }
    let rdev = meta.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    fs::read(format!("/sys/dev/char/{major}:{minor}/device/vpd_pg80"))
        .ok()
        .and_then(|page| unit_serial(&page))
        .or_else(|| node_inquiry_serial(node))
}

/// The serial the drive behind `node` gives to INQUIRY (`inquiry_serial`)
/// over SG_IO on the node opened read-only and without waiting: a
/// blocking open of an empty drive waits two minutes. (Closing a rewinding
/// node rewinds, as after any open.)
fn node_inquiry_serial(node: &Path) -> Option<String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(node)
        .ok()?;
    inquiry_serial(&mut file.as_fd())
}

/// The serial in `device`'s answer to INQUIRY for VPD page 0x80; None
/// when it refuses or gives none.
pub fn inquiry_serial(device: &mut dyn Commands) -> Option<String> {
    let mut page = [0u8; spc::INQUIRY_BYTES as usize];
    let cdb = spc::inquiry_vpd(SERIAL_PAGE, spc::INQUIRY_BYTES);
    let got = device
        .command(&cdb, Data::In(&mut page), spc::INQUIRY_TIMEOUT)
        .ok()?;
    unit_serial(&page[..got])
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
