//! The command line of `tapebuf extract`, as clap parses it: the backup's
//! manifest, where its volumes are, where the archive goes, and the globs
//! that choose the members. The command itself lives in `extract/`.

use std::path::PathBuf;

use clap::Parser;

use super::LibraryArgs;

/// tapebuf extract: write an archive of the members the globs choose,
/// read from the backup's volumes by seeking, as its catalog places them.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf extract", version, long_about = None)]
#[command(
    after_help = "A name chooses the member it names, and everything under it, as \
tar xf chooses members; a name with *, ? or [ also chooses what it matches as \
tar --wildcards would (braces are not special). A hard link's target comes with \
it, found as tar finds it (./d/a is d/a). Every record read is checked against the catalog's \
checksum before any of it is written; a damaged record ends the run and the archive \
is left without its end, so tar says it is cut short. Exit status: 0 the archive \
was written; 1 a volume could not be read or was damaged, a name matched no \
member, or a chosen hard link's target is in no member; 2 usage error, an unreadable manifest or catalog, or a terminal as the \
output. See tapebuf(1), EXTRACT."
)]
pub struct ExtractCli {
    /// The manifest the backup wrote with --catalog.
    #[arg(long = "manifest", value_name = "FILE")]
    pub manifest: PathBuf,

    /// The tape drive, file, or numbered file name (v.%03d) the volumes
    /// are read from [default: the manifest's output].
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Write the archive to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Overwrite the -o file if it exists.
    #[arg(short = 'f', long = "force")]
    pub force: bool,

    /// Run CMD to change volumes (TAPEBUF_VOLUME, TAPEBUF_DEVICE,
    /// TAPEBUF_REFUSED in its environment), instead of prompting.
    #[arg(short = 'A', long = "change-command", value_name = "CMD")]
    pub change_command: Option<String>,

    /// Give up on each step of a volume change after SECS seconds.
    #[arg(long = "change-timeout", value_name = "SECS")]
    pub change_timeout: Option<u64>,

    /// Say only what failed: no summary.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,

    #[command(flatten)]
    pub library: LibraryArgs,

    #[command(flatten)]
    pub tape: super::tape_args::TapeArgs,

    /// The members to extract: names or wildcard patterns, as tar takes
    /// them.
    #[arg(value_name = "GLOB", required = true)]
    pub globs: Vec<String>,
}
