//! The pages SCSI devices answer with, parsed as pure functions over
//! bytes, bounded and total: LOG SENSE's pages (`log_page.rs`) and the
//! counters read from them (`counters.rs`), TapeAlert (`tape_alert.rs`),
//! the cartridge memory's attributes (MAM, `mam.rs`) and INQUIRY's
//! identity with the one reader of VPD page 0x80's serial (`identity.rs`),
//! logical block protection's VPD and mode pages (`protection.rs`), and
//! tape data encryption's security protocol pages (`encryption.rs`, with
//! the status pages in `encryption_status.rs`). Nothing a device answers can crash tapebuf or make it allocate without
//! bound. `encode.rs` is the one encoder of these pages, for the emulated
//! drive and the parsers' tests.

pub mod counters;
#[cfg(any(test, feature = "test-support"))]
pub mod encode;
pub mod encryption;
pub mod encryption_status;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod identity;
pub mod log_page;
pub mod mam;
pub mod protection;
pub mod tape_alert;
