//! Drive and cartridge health: what a tape drive says about itself and
//! the cartridge in it, read over SCSI (`tape/scsi/`) at the points where a
//! run can afford it: when a volume is opened, when it ends, and by
//! `tapebuf drive`. A drive's log pages give its error
//! counters, compression and volume statistics; the
//! cartridge's memory chip (MAM) gives the medium's serial
//! number, load count and lifetime bytes; INQUIRY and VPD 0x80 give the
//! drive's identity; their parsers are `tape/scsi/pages/`. `snapshot.rs` asks for all of it in
//! one look, bounded in bytes and in time; nothing a drive answers can
//! crash tapebuf or make it allocate without bound.
//!
//! During a run, `watch.rs` wraps a drive and keeps, per volume, what it
//! saw (`record.rs`: TapeAlert flags raised, corrected errors and
//! rewrites, compression, the cartridge's MAM), for the summary, the
//! JSON, the stats file and the manifest. `critical.rs` says which
//! TapeAlert flags change the exit status. `history.rs` keeps a small
//! baseline per drive serial number under the user's state directory, and
//! flags a drive whose rate or capacity per cartridge falls well below
//! its own past.

mod commands;
pub mod critical;
pub mod history;
mod record;
mod snapshot;
mod volume_figures;
mod watch;

pub use crate::tape::scsi::pages::counters::{Compression, ErrorCounters, VolumeStatistics};
pub use crate::tape::scsi::pages::identity::Identity;
pub use crate::tape::scsi::pages::log_page::{LogPage, LogParameter};
pub use crate::tape::scsi::pages::mam::Mam;
pub use commands::DriveCommands;
pub use record::{Alert, HealthLog, VolumeHealth};
pub use snapshot::{identify, look, Snapshot};
pub use volume_figures::medium_kind;
pub use watch::HealthWatch;
