//! The command line of `tapebuf verify`, as clap parses it. Its input
//! flags mean what they mean to a restore, so `config::verify` checks them
//! with the same code as the buffer's; the command itself lives in
//! `verify/`.

use std::path::PathBuf;

use clap::Parser;

use super::RemoteArgs;
use crate::manifest::Manifest;

/// tapebuf verify: check the tapes or files of a past backup against its
/// manifest, volume by volume.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf verify", version, long_about = None)]
#[command(
    after_help = "Each volume is recognised from its first bytes before it is read: a \
cartridge that is another volume, or not of this backup, is named at once, and with \
a change command or prompt another is asked for. Exit status: 0 every volume matches, \
1 a volume differs, is missing or is the wrong one, or the backup itself did not end \
cleanly; 2 usage error or an unreadable manifest; after SIGHUP, SIGINT or SIGTERM it \
ends its remote shells and dies of the signal (129, 130, 143). See tapebuf(1), MANIFESTS."
)]
pub struct VerifyCli {
    /// The manifest the backup wrote (--manifest of the backup run).
    #[arg(long = "manifest", value_name = "FILE")]
    pub manifest: PathBuf,

    /// The tape drive, file, numbered file name (v.%02d) or HOST:PATH to
    /// read [default: the manifest's output].
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Run CMD to change volumes (TAPEBUF_VOLUME, TAPEBUF_DEVICE,
    /// TAPEBUF_REFUSED in its environment), instead of prompting.
    #[arg(short = 'A', long = "change-command", value_name = "CMD")]
    pub change_command: Option<String>,

    /// Give up on each step of a volume change after SECS seconds.
    #[arg(long = "change-timeout", value_name = "SECS")]
    pub change_timeout: Option<u64>,

    /// The most read per read(2), as large as the largest tape record
    /// [default: the manifest's block size].
    #[arg(short = 's', long = "block-size", value_name = "SIZE")]
    pub block_size: Option<String>,

    /// Rewind the tape at the end.
    #[arg(long = "rewind")]
    pub rewind: bool,

    /// Eject the tape at the end.
    #[arg(long = "eject")]
    pub eject: bool,

    /// Say only what failed.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,

    #[command(flatten)]
    pub remote: RemoteArgs,

    #[command(flatten)]
    pub library: super::library_args::LibraryArgs,

    #[command(flatten)]
    pub tape: super::tape_args::TapeArgs,

    /// The longest wait for any rmt reply, and for a program to open a
    /// FIFO given as -i for writing (60 s without it), in seconds.
    #[arg(long = "timeout", value_name = "SECS")]
    pub timeout: Option<u64>,
}

impl VerifyCli {
    /// The input named, or else the manifest's output.
    pub fn input(&self, manifest: &Manifest) -> PathBuf {
        self.input
            .clone()
            .unwrap_or_else(|| PathBuf::from(&manifest.output))
    }
}
