//! The probe's sweep, in-process, against the emulated tape drive behind a
//! speed curve on a virtual clock: the drive is at its best at a known
//! block size, each record costs a fixed overhead plus its bytes at the
//! curve's rate, and each pass costs a fixed start-up. Since the clock is
//! virtual, the probe's figures can be checked against the curve exactly.
//! Also: a read-back with one flipped byte is caught at its offset, a stop
//! request ends the sweep between blocks, and sizes the drive refuses are
//! marked unsupported while the sweep goes on.
//!
//! `support` holds the clock, the curve and the targets; `recommend` and
//! `stops` hold the tests.

pub mod support;

mod recommend;
mod stops;
