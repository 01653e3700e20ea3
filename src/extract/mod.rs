//! `tapebuf extract --manifest M GLOB...`: an archive of just the members
//! the globs choose, read from the backup's volumes by seeking to where
//! its catalog places them, instead of reading the whole backup.
//!
//! `run.rs` is the command; `plan.rs` says which stream bytes and made
//! bytes form the archive; `walk.rs` turns a stream range into the
//! records of the volumes that hold it; `copy.rs` reads each record,
//! checks it against the catalog's checksum (`sums.rs`) and writes the
//! wanted bytes; `volume_reader.rs` is what it reads through: file
//! volumes (`file_volumes.rs`) or a tape drive (`tape_volumes.rs`, with
//! `tape_load.rs` getting each cartridge in and recognising it), chosen
//! by `open.rs`. `output.rs`, `globs.rs`, `summary.rs` and `failure.rs`
//! are the output, the globs, the last line and the exit status. The
//! invariant: no byte of a record is written before the record matched
//! its checksum, and an archive is only ended when every piece was
//! written. Until `plan.rs` and `Catalog::record_sums` land, `stand_in.rs`
//! stands in for both.

mod copy;
mod failure;
mod file_volumes;
mod globs;
mod open;
mod output;
mod run;
mod stand_in;
mod summary;
mod sums;
mod tape_load;
mod tape_volumes;
mod volume_reader;
mod walk;

pub use run::Extract;
pub use sums::{record_sum, RecordSums};

#[cfg(test)]
mod changer_tests;
#[cfg(test)]
mod copy_tests;
#[cfg(test)]
mod tape_tests;
#[cfg(test)]
mod test_backup;
