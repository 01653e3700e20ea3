//! What a tape library's loader did, as plain records: which cartridge
//! each volume went on, each move of the robot, each cleaning. The
//! [`LibraryRecords`] trait lets those who only read them (the volume log,
//! and through it the summary and the stats file) hold a loader without
//! depending on it.

use std::time::SystemTime;

use crate::tape::changer::ElementAddress;

/// Which cartridge volume `volume` went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub volume: u32,
    pub barcode: Option<String>,
    /// Its home slot, 1-based as mtx numbers slots.
    pub slot: Option<usize>,
}

/// One move of the robot, done or failed.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveRecord {
    pub from: ElementAddress,
    pub to: ElementAddress,
    pub barcode: Option<String>,
    pub started: SystemTime,
    pub seconds: f64,
    /// Why it failed; None when it was done.
    pub error: Option<String>,
}

/// One cleaning cycle between volumes.
#[derive(Debug, Clone, PartialEq)]
pub struct CleaningRecord {
    /// The cleaning cartridge's barcode.
    pub barcode: Option<String>,
    /// The volume loaded after it.
    pub before_volume: u32,
    pub seconds: f64,
    /// Why it did not happen or did not finish; None when it did.
    pub error: Option<String>,
}

/// The records of a loader, for those who only read them.
pub trait LibraryRecords: Send + Sync + std::fmt::Debug {
    fn placements(&self) -> Vec<Placement>;
    fn moves(&self) -> Vec<MoveRecord>;
    fn cleanings(&self) -> Vec<CleaningRecord>;
}
