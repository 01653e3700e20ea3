//! One look at a drive's health: the TapeAlert page, the error counter,
//! compression and volume statistics pages the drive lists as supported
//! (LOG SENSE page 0x00), and the cartridge's MAM. Each command has its
//! own bounded buffer and timeout; a page the drive lacks (ILLEGAL
//! REQUEST) leaves its field empty, and a kernel that refuses the ioctl
//! ends the look with the reason.
//!
//! The order: page 0x00; then pages 0x02, 0x03, 0x17, 0x1B (else the
//! vendor's 0x32) and 0x2E, those the drive lists (every one when the
//! drive refuses page 0x00 with sense, none when page 0x00 fails without,
//! as on a timeout); then READ ATTRIBUTE. Reading 0x2E clears the drive's
//! TapeAlert flags. A command answered with UNIT ATTENTION (a cartridge
//! was loaded, the drive was reset) is sent once more. Where the kernel
//! passes LOG SENSE and INQUIRY but not READ ATTRIBUTE (its filter wants
//! CAP_SYS_RAWIO for it), the look has the pages and says why the memory
//! was not read (`memory_unread`), as it does for a drive's refusal
//! (no cartridge: "not ready: medium not present").

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::tape::scsi::pages::counters::{self, Compression, ErrorCounters, VolumeStatistics};
use crate::tape::scsi::pages::identity::{self, Identity};
use crate::tape::scsi::pages::log_page;
use crate::tape::scsi::pages::mam::Mam;
use crate::tape::scsi::pages::tape_alert::{self, TapeAlerts};
use crate::tape::scsi::sg_io::{Commands, Data, ScsiError};
use crate::tape::scsi::spc;

/// The most bytes asked of one log page.
const LOG_BYTES: usize = 8 * 1024;
/// The most bytes asked of the cartridge's memory.
const MAM_BYTES: usize = 16 * 1024;

/// What one look found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// TapeAlert flags raised since the last read (reading clears them).
    #[serde(skip)]
    pub alerts: TapeAlerts,
    pub mam: Option<Mam>,
    pub write_errors: Option<ErrorCounters>,
    pub read_errors: Option<ErrorCounters>,
    pub compression: Option<Compression>,
    pub volume: Option<VolumeStatistics>,
    /// The log pages the drive lists (page 0x00), empty when it lists none.
    pub pages: Vec<u8>,
    /// Why the cartridge's memory was not read, in words: the drive's
    /// sense decoded ("not ready: medium not present (sense 02/3A/00)"),
    /// or the kernel's refusal; None when it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_unread: Option<String>,
    /// Why the drive could not be asked at all ("the kernel refused
    /// SG_IO on /dev/nst0 and its sg node: ..."); None when it was asked.
    pub unreadable: Option<String>,
}

/// Why a look stops: the kernel would not pass a command on, in words.
struct Refused(String);

/// A command's outcome: its reply, or how the device refused it.
type Answer = Result<Vec<u8>, ScsiError>;

/// Asks `device` for its health.
pub fn look(device: &mut dyn Commands) -> Snapshot {
    let mut snapshot = Snapshot::default();
    if let Err(Refused(why)) = look_into(device, &mut snapshot) {
        snapshot.unreadable = Some(why);
    }
    snapshot
}

/// Fills `snapshot`, command by command, until the kernel refuses one.
fn look_into(device: &mut dyn Commands, snapshot: &mut Snapshot) -> Result<(), Refused> {
    let listed = match log_sense(device, log_page::SUPPORTED_PAGES)? {
        Ok(reply) => log_page::supported(&reply),
        Err(e) if e.sense().is_some() => None,
        Err(_) => Some(Vec::new()),
    };
    snapshot.pages = listed.clone().unwrap_or_default();
    let wanted = |page: u8| listed.as_ref().is_none_or(|l| l.contains(&page));
    let page = |device: &mut dyn Commands, code: u8| -> Result<Option<Vec<u8>>, Refused> {
        if !wanted(code) {
            return Ok(None);
        }
        Ok(log_sense(device, code)?.ok())
    };
    let write = page(device, counters::WRITE_ERRORS)?;
    snapshot.write_errors = write.and_then(|r| ErrorCounters::parse(&r, counters::WRITE_ERRORS));
    let read = page(device, counters::READ_ERRORS)?;
    snapshot.read_errors = read.and_then(|r| ErrorCounters::parse(&r, counters::READ_ERRORS));
    let volume = page(device, counters::VOLUME_STATISTICS)?;
    snapshot.volume = volume.and_then(|r| VolumeStatistics::parse(&r));
    let compression = match page(device, counters::COMPRESSION)? {
        Some(reply) => Some(reply),
        None => page(device, counters::VENDOR_COMPRESSION)?,
    };
    snapshot.compression = compression.and_then(|r| Compression::parse(&r));
    if let Some(reply) = page(device, tape_alert::PAGE)? {
        snapshot.alerts = TapeAlerts::parse(&reply);
    }
    let answered_pages = !snapshot.pages.is_empty() || snapshot.write_errors.is_some();
    match read_attribute(device) {
        Ok(Ok(reply)) => {
            snapshot.mam = Mam::parse(&reply);
            if snapshot.mam.is_none() {
                snapshot.memory_unread = Some("the reply held no attributes".into());
            }
        }
        Ok(Err(e)) => snapshot.memory_unread = Some(e.to_string()),
        // The log pages came through: only the memory is out of reach.
        Err(Refused(why)) if answered_pages => snapshot.memory_unread = Some(why),
        Err(refused) => return Err(refused),
    }
    Ok(())
}

/// Asks `device` who it is: INQUIRY and VPD 0x80. None when INQUIRY
/// fails or its reply is too short; the serial is left out when only
/// VPD 0x80 fails.
pub fn identify(device: &mut dyn Commands) -> Option<Identity> {
    let bytes = usize::from(spc::INQUIRY_BYTES);
    let standard = spc::inquiry(spc::INQUIRY_BYTES);
    let inquiry = ask(device, &standard, bytes, spc::INQUIRY_TIMEOUT, "INQUIRY")
        .ok()?
        .ok()?;
    let vpd = spc::inquiry_vpd(identity::SERIAL_PAGE, spc::INQUIRY_BYTES);
    let serial = ask(device, &vpd, bytes, spc::INQUIRY_TIMEOUT, "INQUIRY")
        .ok()
        .and_then(Result::ok);
    Identity::parse(&inquiry, serial.as_deref())
}

/// LOG SENSE (10) for page `code`, cumulative values (PC 01b).
fn log_sense(device: &mut dyn Commands, code: u8) -> Result<Answer, Refused> {
    let cdb = spc::log_sense(code, LOG_BYTES as u16);
    ask(device, &cdb, LOG_BYTES, spc::LOG_TIMEOUT, "LOG SENSE")
}

/// READ ATTRIBUTE (16), ATTRIBUTE VALUES (service action 00h) of
/// partition 0 from the first attribute on.
fn read_attribute(device: &mut dyn Commands) -> Result<Answer, Refused> {
    let cdb = spc::read_attribute(MAM_BYTES as u32);
    ask(
        device,
        &cdb,
        MAM_BYTES,
        spc::ATTRIBUTE_TIMEOUT,
        "READ ATTRIBUTE",
    )
}

/// Sends `cdb` (named `what` in a refusal) for at most `bytes` bytes,
/// again once after a UNIT ATTENTION; the reply, cut to what moved.
fn ask(
    device: &mut dyn Commands,
    cdb: &[u8],
    bytes: usize,
    timeout: Duration,
    what: &str,
) -> Result<Answer, Refused> {
    let mut buffer = vec![0u8; bytes];
    let outcome =
        spc::resent_after_unit_attention(1, || device.command(cdb, Data::In(&mut buffer), timeout));
    match outcome {
        Ok(moved) => {
            buffer.truncate(moved.min(bytes));
            Ok(Ok(buffer))
        }
        Err(e) => match refusal(&e, what) {
            Some(why) => Err(Refused(why)),
            None => Ok(Err(e)),
        },
    }
}

/// Why no command can be sent, when `e` says so: the kernel refused the
/// ioctl, or the node takes no SCSI commands (ENOTTY).
fn refusal(e: &ScsiError, what: &str) -> Option<String> {
    if e.is_refused_by_kernel() {
        return Some(format!(
            "the kernel refused SG_IO for {what} ({e}): st passes it only with CAP_SYS_RAWIO; \
             run as root, or let this user open the drive's sg node"
        ));
    }
    match e {
        ScsiError::Ioctl(io) if io.raw_os_error() == Some(libc::ENOTTY) => Some(format!(
            "the device takes no SCSI commands ({what} through SG_IO): {e}"
        )),
        _ => None,
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
