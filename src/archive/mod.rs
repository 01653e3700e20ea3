//! Archives as they pass: a streaming parser that follows the member
//! boundaries of a tar (ustar, GNU, pax) or cpio (newc, crc, odc) stream
//! through tapebuf's blocks, reading only the headers and counting every
//! other byte, so that a catalog (`catalog/`) can say where each member
//! starts. Anything it does not recognise turns it off with one reason;
//! it never fails the backup. Nothing here imports from tapebuf outside
//! `base/`.

mod member;

pub use member::{Format, Member, MemberKind};
