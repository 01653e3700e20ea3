//! Tapes and volumes: the mtio ioctls, the drive trait with the real
//! device (`drive/`: `interface.rs` and `device.rs`), volume names, and
//! volume changes. The sinks and sources that
//! write and read volumes live in `sink/volumes.rs` and
//! `source/volumes.rs`; this module holds what they share: the volume
//! medium and its kind (`medium.rs`), whose read and write faces are
//! `source::ReadMedium` and `sink::WriteMedium`, a local drive opened one
//! way for both (`local_tape.rs`), and one volume change (`next_volume.rs`).
//! SCSI commands through SG_IO, to a drive or a changer, are `sg_io.rs`;
//! a drive's sg node, where st refuses them, is `sg_node.rs`.
//! Tape libraries' robots are `changer/`. The emulated
//! drive (`emulated/`) is a test double, compiled only for tests and with
//! the `test-support` feature.

mod at_end;
pub mod block_mode;
pub mod change;
pub mod changer;
pub mod char_devices;
pub mod cleaning;
pub mod drive;
#[cfg(any(test, feature = "test-support"))]
pub mod emulated;
pub mod first_load;
pub mod health;
pub mod limits;
pub mod load;
mod local_tape;
mod medium;
pub mod mtio;
pub mod names;
pub mod next_volume;
pub mod ready;
pub mod sense;
pub mod sg_io;
pub mod sg_node;
pub mod tape_alert;
pub mod trailer;
pub mod trailer_marker;
#[cfg(test)]
mod trailer_tests;
mod volume_log;

pub use at_end::AtEnd;
pub use change::{ChangePolicy, ChangeRequest};
pub use drive::{Access, Device, Drive, DriveStatus, TapeOp};
pub use local_tape::{LocalTape, TapeFace};
pub use medium::{Medium, MediumKind};
pub use names::VolumeNames;
pub use next_volume::{ChangeFailed, NextVolume};
pub use trailer::{Ends, Trailer};
pub use volume_log::{change_notes, VolumeLog};
