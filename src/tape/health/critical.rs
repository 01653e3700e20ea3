//! Which TapeAlert flags are critical: those after which a run's data may
//! not be safe to trust, or the drive must not be used again before a
//! person looks. A run that saw one ends with exit status
//! [`crate::base::exit::DRIVE_ALERT`] (3) even when every byte was
//! committed; a run that failed anyway keeps status 1.
//!
//! The set is SSC's "critical" severity, plus flag 3 (hard error), which
//! SSC grades a warning but which means a read or write failed outright,
//! and less flag 9 (write protect): tapebuf refuses a write-protected
//! cartridge itself and says so. Flag 20 (clean now) counts unless the
//! library cleaned the drive during the run (`--changer --clean`).

use crate::tape::scsi::pages::tape_alert::TapeAlerts;

/// The critical flags, by number.
pub const CRITICAL: [u8; 20] = [
    3, 4, 5, 6, 13, 14, 16, 20, 22, 23, 30, 31, 33, 38, 52, 53, 54, 55, 56, 57,
];

/// Whether flag `flag` is critical.
pub fn is_critical(flag: u8) -> bool {
    CRITICAL.contains(&flag)
}

/// The critical flags among `alerts`.
pub fn critical(alerts: TapeAlerts) -> TapeAlerts {
    let mut out = TapeAlerts::default();
    for flag in alerts.flags().filter(|&f| is_critical(f)) {
        out.insert(flag);
    }
    out
}
