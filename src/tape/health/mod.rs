//! Drive and cartridge health: what a tape drive says about itself and
//! the cartridge in it, read over SCSI (`sg_io.rs`) at the points where a
//! run can afford it: when a volume is opened, when it ends, and by
//! `tapebuf drive`. A drive's log pages (`log_page.rs`) give its error
//! counters (`counters.rs`), compression and volume statistics; the
//! cartridge's memory chip (MAM, `mam.rs`) gives the medium's serial
//! number, load count and lifetime bytes; INQUIRY and VPD 0x80 give the
//! drive's identity (`identity.rs`). `snapshot.rs` asks for all of it in
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
mod counters;
pub mod critical;
#[cfg(test)]
mod fixtures;
pub mod history;
mod identity;
mod log_page;
mod mam;
mod record;
mod snapshot;
mod volume_figures;
mod watch;

pub use commands::DriveCommands;
pub use counters::{Compression, ErrorCounters, VolumeStatistics};
pub use identity::Identity;
pub use log_page::{LogPage, LogParameter};
pub use mam::Mam;
pub use record::{Alert, HealthLog, VolumeHealth};
pub use snapshot::{identify, look, Snapshot};
pub use volume_figures::medium_kind;
pub use watch::HealthWatch;
