//! The report as `tapebuf drive --json` writes it: one compact JSON object
//! on one line. The field names are an API (documented in tapebuf(1),
//! DRIVE): snake_case; every top-level field and every field of
//! `identity`, `state` and `history` is always there, with `null` where a
//! value is unknown or was not read. Inside `cartridge`, the error
//! counters, `compression` and `volume_statistics` (the drive's pages as
//! `tape::health` reads them), a value the drive does not give is left
//! out. Readers ignore fields they do not know; a field that changes
//! meaning or goes away bumps [`SCHEMA_VERSION`].

use serde::{Deserialize, Serialize};

use crate::tape::health::{Compression, ErrorCounters, Mam, VolumeStatistics};

/// The `schema` field of the report.
pub const SCHEMA: &str = "tapebuf-drive";
/// The version this build writes.
pub const SCHEMA_VERSION: u32 = 1;

/// One drive's and its cartridge's health.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriveReport {
    pub schema: String,
    pub version: u32,
    /// The drive as the user named it.
    pub device: String,
    /// INQUIRY and VPD 0x80; null when the drive did not answer.
    pub identity: Option<IdentityJson>,
    /// What st says of the drive (MTIOCGET, opened without waiting).
    pub state: StateJson,
    /// The cartridge's memory (MAM); null when there is none to read.
    pub cartridge: Option<Mam>,
    /// Why the cartridge's memory was not read, the drive's sense in
    /// words ("not ready: medium not present (sense 02/3A/00)"); null when
    /// it was read.
    pub cartridge_unread: Option<String>,
    /// TapeAlert flags raised now, in flag order.
    pub tape_alerts: Vec<AlertJson>,
    /// The write (0x02) and read (0x03) error counter pages.
    pub write_errors: Option<ErrorCounters>,
    pub read_errors: Option<ErrorCounters>,
    /// The data compression page (0x1B).
    pub compression: Option<Compression>,
    /// The volume statistics page (0x17).
    pub volume_statistics: Option<VolumeStatistics>,
    /// The drive's own past runs; null when the drive gave no serial
    /// number or no state directory is known.
    pub history: Option<HistoryJson>,
    /// Why the drive could not be asked at all; null when it was.
    pub unreadable: Option<String>,
    /// A critical TapeAlert flag is raised: the exit status is 3.
    pub critical: bool,
    /// Logical block protection: what the drive offers and has on now;
    /// null when the drive was not asked.
    #[serde(default)]
    pub lbp: Option<LbpJson>,
    /// Encryption: whether the drive can, and what it does now; null
    /// when the drive was not asked.
    #[serde(default)]
    pub encryption: Option<EncryptionJson>,
}

/// A drive's hardware encryption.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncryptionJson {
    /// It encrypts with AES-256-GCM in hardware, for the cartridge in it
    /// when one is.
    pub capable: bool,
    /// Why not, when it cannot.
    pub not_because: Option<String>,
    /// "off", "encrypting", "decrypting", "decrypting where encrypted";
    /// null when its status could not be read.
    pub now: Option<String>,
    /// A key is in the drive now (its key instance counter says nothing
    /// of whose): the key of the U-KAD below, or one set by another
    /// program.
    pub key_held: Option<bool>,
    /// The fingerprint the drive writes with each block now, when it
    /// encrypts with a tapebuf key.
    pub key: Option<String>,
}

/// A drive's logical block protection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LbpJson {
    /// The methods it offers ("RS-CRC", "CRC32C"); empty for none.
    pub offered: Vec<String>,
    /// Why it offers none, when it offers none.
    pub none_because: Option<String>,
    /// What the drive's control data protection page has on now: a
    /// method, "off", or another program's setting ("method 2, on
    /// writing only"); null when the page was not read.
    pub now: Option<String>,
}

/// Who the drive is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentityJson {
    pub vendor: String,
    pub product: String,
    pub revision: String,
    /// The unit serial number (VPD 0x80), the key of its history.
    pub serial: Option<String>,
}

/// The drive's state, as st reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateJson {
    /// A cartridge is in the drive; null when st did not say.
    pub cartridge: Option<bool>,
    pub write_protected: Option<bool>,
    /// The drive is ready (GMT_ONLINE).
    pub online: Option<bool>,
}

/// One TapeAlert flag: its number, its name as SSC gives it, and whether
/// it is critical (`tape::health::critical`, exit status 3).
pub type AlertJson = crate::tape::health::Alert;

/// The drive's baseline, from its history file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryJson {
    /// Volumes written or read by past runs, as recorded.
    pub volumes_on_record: usize,
    /// The median rate of the volumes written, in bytes/s.
    pub usual_write_rate: Option<f64>,
    /// The median rate of the volumes read, in bytes/s.
    pub usual_read_rate: Option<f64>,
    /// The median bytes a full cartridge took, per kind of cartridge.
    pub usual_capacity: Vec<CapacityJson>,
}

/// What a full cartridge of one kind usually holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapacityJson {
    /// The kind (LTO generation or density), null when unknown.
    pub medium: Option<String>,
    pub bytes: u64,
}
