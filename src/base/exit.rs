//! Exit statuses are an API: scripts branch on them. This module is the one
//! place that names them, and how a command asks the process to end.

/// Everything went through: every output committed every byte read.
pub const SUCCESS: i32 = 0;
/// An I/O failure: the input or an output failed, memory could not be had,
/// or fewer bytes were committed than read.
pub const FAILURE: i32 = 1;
/// The command line is wrong or refused: an unknown option, a bad value, an
/// impossible combination, or an output file that exists without -f.
pub const USAGE: i32 = 2;
/// Every byte was committed, but a drive raised a critical TapeAlert flag
/// (`tape::health::critical`): the data is there, and someone should look
/// at the drive or the cartridge before trusting either again. A run that
/// failed anyway exits with `FAILURE`.
pub const DRIVE_ALERT: i32 = 3;

/// How the process should end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Exit with this status.
    Code(i32),
    /// Die from this signal, after the summary, as the conventional status
    /// for an interrupted program (the shell shows 128 + signal).
    Signal(i32),
}
