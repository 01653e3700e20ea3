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
//! ioctls otherwise. Every changer, real or emulated (`tape/emulated/changer.rs`, a test
//! double compiled only for tests and with the `test-support` feature),
//! goes through the [`MediumChanger`] trait (`medium_changer.rs`), so
//! that what is built on it is tested against the emulation.
//!
//! The [`Loader`](crate::tape::loader::Loader) that makes volume changes
//! through a changer is the layer above, `tape/loader/`.
//!
//! Elements are named by kind and 0-based index, as `ch` numbers its units;
//! SCSI element addresses never leave `smc.rs` and the driver.

pub mod chio;
mod device;
mod drives;
mod element;
mod error;
mod inventory;
mod medium_changer;
mod scsi;
pub mod smc;

pub use device::Changer;
pub use drives::{drive_serial, find_drive, inquiry_serial, match_serial, serial_matches};
pub use element::{
    sense_words, volume_tag, Element, ElementAddress, ElementKind, Exception, MediumType, Params,
    MAX_ELEMENTS,
};
pub use error::ChangerError;
pub use inventory::Inventory;
pub use medium_changer::MediumChanger;

#[cfg(test)]
mod tests;
