//! One look at a drive's health: the TapeAlert page, the error counter,
//! compression and volume statistics pages the drive lists as supported
//! (LOG SENSE page 0x00), and the cartridge's MAM. Each command has its
//! own bounded buffer and timeout; a page the drive lacks (ILLEGAL
//! REQUEST) leaves its field empty, and a kernel that refuses the ioctl
//! ends the look with the reason.

use serde::{Deserialize, Serialize};

use super::counters::{Compression, ErrorCounters, VolumeStatistics};
use super::identity::Identity;
use super::mam::Mam;
use crate::tape::sg_io::Commands;
use crate::tape::tape_alert::TapeAlerts;

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
    /// Why the drive could not be asked at all ("the kernel refused
    /// SG_IO on /dev/nst0 and its sg node: ..."); None when it was asked.
    pub unreadable: Option<String>,
}

/// Asks `device` for its health (contract stub).
pub fn look(device: &mut dyn Commands) -> Snapshot {
    let _ = device;
    Snapshot::default()
}

/// Asks `device` who it is: INQUIRY and VPD 0x80 (contract stub).
pub fn identify(device: &mut dyn Commands) -> Option<Identity> {
    let _ = device;
    None
}
