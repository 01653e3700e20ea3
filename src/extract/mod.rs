//! `tapebuf extract --manifest M NAME...`: an archive of just the members
//! the names choose (as tar chooses them, `catalog::globs`), read from
//! the backup's volumes by seeking to where its catalog places them,
//! instead of reading the whole backup.
//!
//! `run.rs` is the command; `plan.rs` says which stream bytes and made
//! bytes form the archive, as a pure function of the catalog, with
//! `linked.rs` for what a chosen member needs (a hard link's target, a
//! cpio link group's data) and `pieces.rs` making the pieces as they are
//! copied (memory bounded whatever the number of members); `walk.rs`
//! turns a stream range into the records of the volumes that hold it; `copy.rs` reads each record,
//! checks it against the catalog's checksum (`sums.rs`) and writes the
//! wanted bytes; `volume_reader.rs` is what it reads through: file
//! volumes (`file_volumes.rs`) or a tape drive (`tape_volumes.rs`, with
//! `tape_load.rs` getting each cartridge in and recognising it), chosen
//! by `open.rs`. `paths.rs` registers every path the extract touches;
//! `output.rs`, `summary.rs` and `failure.rs` are the output, the
//! last line and the exit status (the globs are `catalog::globs`). The
//! invariant: no byte of a record is written before the record matched
//! its checksum, and an archive is only ended when every piece was
//! written.

mod copy;
mod failure;
mod file_volumes;
mod linked;
mod open;
mod output;
mod paths;
mod pieces;
pub mod plan;
mod run;
mod summary;
mod sums;
mod tape_load;
mod tape_volumes;
mod volume_reader;
mod walk;

pub use run::Extract;
pub use sums::RecordSums;

#[cfg(test)]
mod appended_tests;
#[cfg(test)]
mod changer_tests;
#[cfg(test)]
mod copy_tests;
#[cfg(test)]
mod plan_catalog_tests;
#[cfg(test)]
mod plan_tests;
#[cfg(test)]
mod tape_tests;
#[cfg(test)]
mod test_backup;
#[cfg(test)]
mod test_plan;
#[cfg(test)]
mod test_tree;
