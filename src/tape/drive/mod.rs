//! A tape drive as tapebuf uses it: one `write` is one record, one `read`
//! returns one record (0 bytes at a filemark), and a few positioning
//! operations. The trait (`interface.rs`: `Drive`, `TapeOp`,
//! `DriveStatus`, `Access`) lets the end-of-media and volume-change logic
//! run against the real device (`device.rs`: `Device`, through mtio) and
//! against the emulated drive in `tape/emulated/`, which is how it is
//! tested here. Beside them: the mtio ioctls (`mtio.rs`), which character
//! devices are tapes (`char_devices.rs`), the drive's block limits
//! (`limits.rs`), fixed or variable block mode (`block_mode.rs`), cleaning
//! (`cleaning.rs`), how a read ended (`at_end.rs`) and the methods a
//! wrapper of a drive passes on to it (`pass_on.rs`).
//!
//! The semantics are Linux st's in variable-block mode:
//! - a write past the early-warning point succeeds; the next one fails
//!   with ENOSPC, without writing anything;
//! - a read into a buffer smaller than the record fails with ENOMEM, and
//!   the tape is left after that record;
//! - closing after a write writes a filemark;
//! - a block address (`Drive::position`, `TapeOp::SeekBlock`) counts
//!   every record and every filemark from the beginning of the tape.
//!
//! SCSI commands (`Drive::scsi_command`) go through SG_IO on the tape
//! node, or where st refuses them on the drive's sg node (`sg_node.rs`);
//! the TapeAlert flags are read through them (`tape_alerts_by_scsi`).

mod at_end;
pub mod block_mode;
pub mod char_devices;
pub mod cleaning;
mod device;
mod interface;
pub mod limits;
pub mod mtio;
pub(crate) mod pass_on;

pub use at_end::AtEnd;
pub use device::Device;
#[cfg(any(test, feature = "test-support"))]
pub(crate) use interface::tape_alerts_by_scsi;
pub use interface::{Access, Drive, DriveStatus, Protection, TapeOp, READY_POLL};
pub(crate) use pass_on::pass_on;
