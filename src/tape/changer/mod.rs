//! Tape libraries: the medium changer, the robot that moves cartridges
//! between slots, import/export slots and drives. `chio.rs` is the Linux
//! `ch` driver's ABI as tapebuf's own code (checked against the system
//! header by `tests/tape/chio_abi.rs`), `smc.rs` the SCSI Media Changer
//! commands as pure functions over bytes (CDBs, the element address page,
//! READ ELEMENT STATUS replies), `scsi.rs` those commands sent over SG_IO,
//! `element.rs` what a changer holds in tapebuf's types and the decoding
//! of the driver's raw fields, `error.rs` the typed failures, and
//! `device.rs` the real changer on a `/dev/schN` (or sg) node, over SG_IO
//! when the kernel allows it (root, CAP_SYS_RAWIO) and through `ch`'s
//! ioctls otherwise. Every changer, real or emulated (`emulated.rs`, a test
//! double compiled only for tests and with the `test-support` feature),
//! goes through the [`MediumChanger`] trait (`medium_changer.rs`), so
//! that what is built on it is tested against the emulation.
//!
//! On top of the trait, the [`Loader`] (`loader.rs`) makes volume changes
//! through the changer without a change command: a pool of cartridges
//! (`pool.rs`, LTO's media rules in `lto.rs`) or the manifest's barcodes
//! (`volume_choice.rs`), the recorded moves (`robot_move.rs`), waiting for
//! the operator when none is left (`wait_for_operator.rs`), and cleaning
//! between volumes (`cleaning_cycle.rs`).
//!
//! Elements are named by kind and 0-based index, as `ch` numbers its units;
//! SCSI element addresses never leave `smc.rs` and the driver.

pub mod chio;
mod cleaning_cycle;
mod device;
mod drives;
mod element;
#[cfg(any(test, feature = "test-support"))]
pub mod emulated;
mod error;
mod inventory;
mod loader;
mod lto;
mod medium_changer;
mod pool;
mod records;
mod robot_move;
mod scsi;
pub mod smc;
mod volume_choice;
mod wait_for_operator;

pub use device::Changer;
pub use drives::{drive_serial, find_drive, match_serial, serial_from_vpd80, serial_matches};
pub use element::{
    sense_words, volume_tag, Element, ElementAddress, ElementKind, Exception, MediumType, Params,
    MAX_ELEMENTS,
};
pub use error::ChangerError;
pub use inventory::Inventory;
pub use loader::{
    CleaningRecord, LibraryRecords, Loader, LoaderSettings, MoveRecord, Notices, Placement,
    SharedChanger, Wanted, Wanting, CLEANING_LIMIT, DEFAULT_WAIT, POLL_INTERVAL,
};
pub use lto::{drive_generation, media, Media};
pub use medium_changer::MediumChanger;
pub use pool::{glob, Pool};
pub use wait_for_operator::human;

#[cfg(test)]
mod pool_tests;
#[cfg(test)]
mod tests;
