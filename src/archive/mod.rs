//! Archives as they pass: a streaming parser that follows the member
//! boundaries of a tar (ustar, GNU, pax) or cpio (newc, crc, odc) stream
//! through tapebuf's blocks, reading only the headers and counting every
//! other byte, so that a catalog (`catalog/`) can say where each member
//! starts. Anything it does not recognise turns it off with one reason;
//! it never fails the backup. Nothing here imports from tapebuf outside
//! `base/`.

mod cpio;
mod gnu;
mod member;
mod name;
mod numbers;
mod parser;
mod pax;
mod step;
mod tar;
mod tar_rules;
mod tar_stream;

pub use cpio::{is_cpio, magic_of as cpio_magic, trailer as cpio_trailer};
pub use member::{Format, Member, MemberKind};
pub use name::Name;
pub use parser::Parser;
pub use step::MAX_HEADER_BYTES;

#[cfg(test)]
mod build_tests;
#[cfg(test)]
mod cpio_tests;
#[cfg(test)]
mod data_size_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod parser_tests;
#[cfg(test)]
mod tar_refusal_tests;
#[cfg(test)]
mod tar_tests;
