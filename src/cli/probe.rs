//! The command line of `tapebuf probe`, as clap parses it: what the user
//! typed, before any check. `probe/settings.rs` turns it into a
//! `ProbeConfig`; the command itself lives in `probe/`.

use std::path::PathBuf;

use clap::Parser;

/// tapebuf probe: find the best block size for a tape, file or device by
/// writing a test stream at each size, reading it back, and timing both.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf probe", version, long_about = None)]
#[command(
    after_help = "Everything on TARGET is overwritten. Exit status: 0 success, \
1 an I/O failure or a read-back that differs, 2 usage error or a refusal \
(a device without --yes, a file with data without --force); after SIGHUP, \
SIGINT or SIGTERM it cleans up and dies of the signal (129, 130, 143). See tapebuf(1), PROBE."
)]
pub struct ProbeCli {
    /// A tape drive (/dev/nst0), a remote tape or file ([USER@]HOST:PATH),
    /// a file, a directory (a temporary file is made in it and removed), or
    /// a block device.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// The block sizes: A..B for the powers of two from A to B, or a list,
    /// 64k,256k,1M [default: 16k..4M].
    #[arg(long = "sizes", value_name = "A..B|LIST")]
    pub sizes: Option<String>,

    /// Runs per size; the median and spread are reported.
    #[arg(long = "runs", value_name = "N", default_value_t = 3)]
    pub runs: u32,

    /// Bytes written, and read back, per run at each size [default: 256M
    /// for tapes, remote targets and devices; 64M for files].
    #[arg(long = "size", value_name = "BYTES")]
    pub size: Option<String>,

    /// The test data. Drives compress, so zeros flatter them.
    #[arg(long = "data", value_name = "KIND", value_enum, default_value_t = DataArg::Random)]
    pub data: DataArg,

    /// Open a file or block device with O_DIRECT, bypassing the page
    /// cache [default: buffered, with fsync and the cache dropped].
    #[arg(long = "direct")]
    pub direct: bool,

    /// Print the results as one line of JSON on standard output (the table
    /// then goes to standard error).
    #[arg(long = "json")]
    pub json: bool,

    /// Overwrite a tape, remote target or device without asking.
    #[arg(short = 'y', long = "yes")]
    pub yes: bool,

    /// Overwrite a file that holds data (it is left empty at the end).
    #[arg(short = 'f', long = "force")]
    pub force: bool,

    #[command(flatten)]
    pub remote: super::RemoteArgs,

    /// The longest wait for any rmt reply, in seconds [default: 600].
    #[arg(long = "timeout", value_name = "SECS")]
    pub timeout: Option<u64>,
}

/// `--data` as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DataArg {
    Zeros,
    Random,
    Mix,
}
