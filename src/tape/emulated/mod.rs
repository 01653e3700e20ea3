//! An emulated tape drive and autoloader, for tests of the end-of-media
//! and volume-change logic on machines without a drive.
//!
//! It keeps what a tape really holds: records of their written sizes and
//! filemarks, in order, on cartridges of a fixed capacity with an
//! early-warning zone before the physical end. It follows Linux st's
//! variable-block rules: the write that crosses the early-warning point
//! succeeds, the next fails with ENOSPC and writes nothing, and after that
//! writes alternately succeed and fail until the physical end; a read into
//! a buffer smaller than the record fails with ENOMEM and leaves the tape
//! after that record; closing after a write adds a filemark; unloading
//! ejects the cartridge, and the next open loads the next one from the
//! library, as a changer's `next` would. Every operation is logged so that
//! tests can check what tapebuf asked of the drive.
//!
//! Fixed-block mode follows st too (Documentation/scsi/st.rst): with a
//! block size B set (`Autoloader::block_bytes`, MTSETBLK), a write must be a
//! multiple of B and is cut into records of B bytes, or fails with EINVAL;
//! a read must ask for a multiple of B and reads records of exactly B
//! bytes, a record of another size failing with EIO. The mode belongs to
//! the drive and lasts until a cartridge is loaded, which resets it to
//! `Autoloader::default_block_bytes`, as st's `defblksize` does. An optional
//! transfer limit refuses any read or write of more bytes, whatever the
//! record's size, before touching the tape: EBUSY as st over the host
//! adapter's limit, or EINVAL as st over READ BLOCK LIMITS.
//!
//! A newly loaded cartridge can take time to become ready (`load_delay`,
//! real time): until then an O_NONBLOCK status says not online, and a
//! blocking open fails with EIO as st's does once its polling gives up
//! (the 120 s of polling are not modelled; the open fails at once). An
//! empty drive reports its door open, and its blocking open fails with
//! ENOMEDIUM. A write-protected cartridge fails an open for writing with
//! EROFS once the drive is told it is opened for writing (`for_writing`).
//!
//! The module is a test double: it is compiled for the crate's own tests
//! and with the `test-support` feature (which tests/ and benches/ turn on
//! through the crate's dev-dependency on itself), never into a release
//! build. `cartridge.rs` holds what a tape holds, `library.rs` the
//! autoloader and the drive's lasting state, `drive.rs` the drive as a
//! [`Drive`](crate::tape::Drive), `records.rs` st's rules for writing
//! and reading records, and `positioning.rs` block addresses as MTIOCPOS
//! reports them (every record and filemark from the beginning counts),
//! MTFSR and MTSEEK, as st does them against mhvtl's drive; the knobs
//! `Autoloader::refuse_seek` and `refuse_position` make a drive that cannot.
//!
//! The drive also answers SCSI commands (`scsi.rs`) as mhvtl's IBM
//! ULT3580-TD6 does in the tape lab: INQUIRY and its serial number, LOG
//! SENSE pages (`log_pages.rs`: error counters, volume statistics, data
//! compression, TapeAlert) and the cartridge's memory by READ ATTRIBUTE
//! (`mam.rs`), from counters kept as records go on and off the tape and
//! per cartridge (`memory.rs`). `Autoloader::scsi` holds the knobs: the
//! identity, `no_log_pages`, `refused`, `retries_every`,
//! `compression_percent`, `lbp_methods`, `encrypts`; `Cartridge::memory`
//! each cartridge's MAM. Its logical block protection (`protection.rs`):
//! the methods it offers, the mode page that turns them on, the CRC
//! checked on every record written and appended to every record read.
//! Its encryption (`encryption.rs`): the key and modes set by SECURITY
//! PROTOCOL OUT, each record written sealed with them, and a read refused
//! without the key it was sealed with.

mod autoloader;
mod cartridge;
pub mod changer;
mod crypt_state;
mod drive;
mod encryption;
mod log_pages;
mod mam;
mod memory;
mod positioning;
mod protection;
mod records;
mod scsi;

pub use autoloader::{Autoloader, ReadFault, Shelf, TransferLimit};
pub use cartridge::{Cartridge, Item};
pub use crypt_state::{DriveCrypt, Seal};
pub use drive::{Emulated, EMULATED_READY_POLL};
pub use memory::{CartridgeMemory, Direction, DriveCounters, ScsiFace};

#[cfg(test)]
mod positioning_tests;
#[cfg(test)]
mod scsi_tests;
#[cfg(test)]
mod tests;
