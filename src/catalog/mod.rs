//! The catalog: every member of an archive that passed through tapebuf
//! (`archive::Member`), in stream order, in a compact file of tapebuf's
//! own that lists a million members in well under a second, written
//! beside the manifest (and later onto the tape after the data), so that
//! one file can be found and restored without reading the whole backup.
//!
//! The file (`layout.rs` draws it byte by byte): a header with the
//! format and member count; the members in blocks of 256, each path
//! front-coded against the one before it and every number a varint
//! (`block.rs`), each block framed with its length, count and XXH3-64
//! checksum; the record checksums of the volumes the archive was written
//! to; an index of the blocks; a tail with tar's global headers, cpio's
//! trailer, where the archive ended and the checksums' volume table
//! (`sections.rs`); a fixed footer pointing at them, so the file is one
//! blob that can go onto a tape and be read back.
//! `writer.rs` writes it atomically; `reader.rs` opens it, refusing a
//! damaged or hostile file with a reason and bounded memory;
//! `members.rs` lists it; `select.rs` chooses members by name as `tar`
//! chooses them (`globs.rs` the names and patterns, `wildcard.rs` tar's
//! wildcards over bytes).

mod block;
pub mod globs;
mod layout;
mod members;
mod reader;
mod sections;
mod select;
mod varint;
pub mod wildcard;
mod writer;

#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod round_trip_tests;
#[cfg(test)]
mod sections_tests;
#[cfg(test)]
mod select_tests;

pub use globs::{Patterns, Tally};
pub use members::Members;
pub use reader::Catalog;
pub use sections::CatalogExtras;
pub use select::Matching;
pub use writer::{CatalogSummary, CatalogWriter};
