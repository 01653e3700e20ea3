//! Logical block protection (LTO-5 and later): every block tapebuf writes
//! carries a CRC the drive checks before the block goes to tape, and
//! every block read comes back with the CRC the drive checked, which
//! tapebuf checks again before passing a byte on. A block damaged
//! anywhere between the ring and the medium is caught when it is written,
//! not at a restore years later.
//!
//! - `crc.rs`: the two methods' CRCs (CRC32C and ECMA-319's
//!   Reed-Solomon CRC) and the byte order each is appended in;
//! - `setup.rs`: what a drive offers and the mode page that turns it on;
//! - `protected.rs`: the drive wrapper that appends, checks and strips
//!   the CRC, and leaves the drive as it found it.
//!
//! The wire formats are `scsi::pages::protection`. A remote tape (rmt)
//! has no way to send SCSI commands, so it is written without.

pub mod crc;
pub mod protected;
pub mod setup;

pub use protected::{
    block_check, refused_with_crc, BlockCheckFailed, Protected, Wanted, CRC_BYTES,
};

#[cfg(test)]
mod tests;
