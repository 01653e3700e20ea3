//! The inventory as `tapebuf library --json` writes it: one compact JSON
//! object on one line. The field names are an API (documented in
//! tapebuf(1), LIBRARY): snake_case, every field always present, `null`
//! where a value is unknown or does not apply, never left out. Readers
//! ignore fields they do not know; a field that changes meaning or goes
//! away bumps [`SCHEMA_VERSION`].
//!
//! Numbering follows mtx: `element` of a drive from 0 ("Data Transfer
//! Element N"), `slot` from 1 for storage slots, and from 1 among the
//! import/export slots for those.

use serde::{Deserialize, Serialize};

/// The `schema` field of the inventory.
pub const SCHEMA: &str = "tapebuf-library";
/// The version this build writes.
pub const SCHEMA_VERSION: u32 = 1;

/// A library's whole inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryJson {
    pub schema: String,
    pub version: u32,
    /// The changer as the user named it.
    pub changer: String,
    /// How many robots (medium transport elements) the changer has.
    pub transports: usize,
    pub drives: Vec<DriveJson>,
    pub slots: Vec<SlotJson>,
    pub import_export: Vec<PortalJson>,
    /// Every `/dev/nstN` node of this system, and the drive element of
    /// this changer it was matched to.
    pub tape_nodes: Vec<TapeNodeJson>,
}

/// What a cartridge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Medium {
    Data,
    Cleaning,
    Worm,
    Diagnostic,
    /// A cartridge the library gave no type for and whose barcode (or its
    /// absence) says nothing.
    Unknown,
}

/// One drive (data transfer element).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriveJson {
    /// 0-based, as mtx shows "Data Transfer Element N".
    pub element: usize,
    /// A cartridge is in it.
    pub full: bool,
    /// The cartridge's barcode.
    pub barcode: Option<String>,
    /// What the cartridge is; null when the drive is empty.
    pub medium: Option<Medium>,
    /// The storage slot (1-based) the cartridge was loaded from, when the
    /// library says and it was a storage slot.
    pub from_slot: Option<usize>,
    /// Why the library has the drive in an abnormal state, in words.
    pub exception: Option<String>,
    /// The changer's device identifier for the drive (often vendor,
    /// product and serial, blank-filled), as the library gave it.
    pub identifier: Option<String>,
    /// The drive's serial number: its tape node's when one matched, else
    /// the last word of the identifier (which libraries may cut short).
    pub serial: Option<String>,
    /// The drive's non-rewinding tape node, matched by serial number.
    pub node: Option<String>,
    /// Why `node` is null.
    pub node_problem: Option<String>,
}

/// One storage slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotJson {
    /// 1-based, as mtx numbers storage elements.
    pub slot: usize,
    pub full: bool,
    pub barcode: Option<String>,
    /// What the cartridge is; null when the slot is empty.
    pub medium: Option<Medium>,
    pub exception: Option<String>,
}

/// One import/export slot (mailslot).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortalJson {
    /// 1-based among the import/export slots.
    pub slot: usize,
    pub full: bool,
    pub barcode: Option<String>,
    pub medium: Option<Medium>,
    pub exception: Option<String>,
    /// The cartridge in it was put in by the operator (not by the robot).
    pub imported: bool,
    /// The robot can reach it (false while its door is open, on libraries
    /// that say so).
    pub accessible: bool,
}

/// One `/dev/nstN` node of this system.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapeNodeJson {
    pub node: String,
    /// Its drive's serial number (VPD page 0x80, from sysfs).
    pub serial: Option<String>,
    /// The drive element of this changer with that serial.
    pub element: Option<usize>,
}
