//! Tape devices, in layers that only look down (`tests/layers.rs` holds
//! each to it):
//!
//! - `scsi/`: the SCSI wire. SG_IO, sense data, a drive's sg node, the
//!   primary commands every device answers (`spc.rs`: INQUIRY and VPD, LOG
//!   SENSE, READ ATTRIBUTE, TEST UNIT READY and the unit-attention retry)
//!   and the parsers of the pages they return (`pages/`).
//! - `drive/`: a tape drive, through the [`Drive`] trait: the real device
//!   (mtio ioctls on st's node), its limits, block mode and cleaning.
//! - `changer/`: a library's robot, through the `MediumChanger` trait,
//!   and the SCSI Media Changer commands it answers.
//! - `media.rs`: which cartridges a drive takes (LTO's rules).
//! - `protection/`: logical block protection, a CRC on every block that
//!   the drive checks, set through its mode page.
//! - `encryption/`: the drive's AES encryption, its key set through
//!   SECURITY PROTOCOL OUT and cleared on every way out.
//! - `health/`: what a drive says about itself and its cartridge, read at
//!   the points a run can afford it.
//! - `loader/`: volume changes through a changer without a change command.
//! - `emulated/`: the test doubles (a drive and a changer), compiled only
//!   for tests and with the `test-support` feature, built on the same page
//!   encoders and command parsers the real path is tested with.
//!
//! Volumes (names, trailers, loading and changing, the volume medium)
//! are the crate's `volume/`, above this module.

pub mod changer;
pub mod drive;
#[cfg(any(test, feature = "test-support"))]
pub mod emulated;
pub mod encryption;
pub mod health;
pub mod loader;
pub mod media;
pub mod protection;
pub mod scsi;

pub use drive::{Access, AtEnd, Device, Drive, DriveStatus, Protection, TapeOp};
