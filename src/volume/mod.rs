//! Volumes: what a backup's tapes are, above the devices in `tape/`. A
//! volume's medium and its kind (`medium.rs`), whose read and write faces
//! are `source::ReadMedium` and `sink::WriteMedium`; a local drive opened
//! one way for both (`local_tape.rs`); volume names (`names.rs`); the
//! trailer that says how a volume ends (`trailer.rs`, with its marker
//! beside a file volume in `trailer_marker.rs`); the first load
//! (`first_load.rs`), waiting for a drive to be ready (`ready.rs`) and
//! the load that refuses a cartridge it cannot use (`load.rs`); a change
//! command or prompt (`change.rs`) and one volume change
//! (`next_volume.rs`); the protection and encryption a local drive is
//! wrapped in (`safeguards.rs`); and what the run recorded of its volumes
//! (`volume_log.rs`). The sinks and sources that write and read volumes
//! live in `sink/volumes.rs` and `source/volumes.rs`.

pub mod change;
pub mod first_load;
pub mod load;
mod local_tape;
mod medium;
pub mod names;
pub mod next_volume;
pub mod ready;
pub mod safeguards;
pub mod trailer;
pub mod trailer_marker;
#[cfg(test)]
mod trailer_tests;
mod volume_log;

pub use change::{ChangePolicy, ChangeRequest};
pub use local_tape::{LocalTape, TapeFace};
pub use medium::{Medium, MediumKind};
pub use names::VolumeNames;
pub use next_volume::{ChangeFailed, NextVolume};
pub use safeguards::Safeguards;
pub use trailer::{Ends, Trailer};
pub use volume_log::{change_notes, VolumeLog};
