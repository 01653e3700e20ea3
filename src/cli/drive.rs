//! The command line of `tapebuf drive`, as clap parses it: the drive to
//! ask and the form of the answer. The command itself lives in
//! `drive_health/`.

use std::path::PathBuf;

use clap::Parser;

/// tapebuf drive: show a tape drive's and its cartridge's health: who
/// the drive is, whether a cartridge is in, the cartridge's memory, the
/// TapeAlert flags raised now, error counters, compression, and the
/// drive's usual rate and capacity from its past runs.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf drive", version, long_about = None)]
#[command(
    after_help = "The drive is opened without waiting for a cartridge and asked \
over SCSI (SG_IO); nothing is written or moved, but reading the TapeAlert \
flags clears them in the drive. Exit status: 0 the health was shown, 1 the \
drive could not be opened or asked, 2 usage error or DEVICE is not a local \
tape drive, 3 a critical TapeAlert flag is raised. See tapebuf(1), DRIVE."
)]
pub struct DriveCli {
    /// The tape drive: a /dev/nstN node of the Linux st driver, on this
    /// host.
    #[arg(value_name = "DEVICE")]
    pub device: PathBuf,

    /// Print the health as one line of JSON on standard output, with the
    /// fields tapebuf(1) documents under DRIVE, instead of the text.
    #[arg(long = "json")]
    pub json: bool,

    /// Turn the drive's logical block protection off first, as a run
    /// killed by SIGKILL may have left it (the only thing this command
    /// changes in the drive, with --clear-key); the report then shows it off.
    #[arg(long = "no-lbp")]
    pub no_lbp: bool,

    /// Clear the drive's encryption key and turn its encryption off
    /// first, as a run killed by SIGKILL may have left it; the report
    /// then shows it off.
    #[arg(long = "clear-key")]
    pub clear_key: bool,
}
