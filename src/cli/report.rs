//! The command line of `tapebuf report`, as clap parses it: the file to
//! read and where to draw it. The command itself lives in `report/`.

use std::path::PathBuf;

use clap::Parser;

/// tapebuf report: summarise and draw a run recorded with --stats, or a
/// block size sweep written by tapebuf probe --json; summarise a backup's
/// --manifest.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf report", version, long_about = None)]
#[command(
    after_help = "Exit status: 0 success, 1 unreadable or invalid input or \
an output that cannot be written, 2 usage error. See tapebuf(1), REPORT."
)]
pub struct ReportCli {
    /// A file written by tapebuf --stats, by tapebuf probe --json or by
    /// tapebuf --manifest.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Draw the run, or the probe's rates against block size, as an SVG
    /// picture into OUT (not for a manifest) [default: no picture, only the
    /// text summary].
    #[arg(short = 'o', long = "output", value_name = "OUT.svg")]
    pub output: Option<PathBuf>,

    /// Overwrite an existing -o file [default: refuse it].
    #[arg(short = 'f', long = "force", requires = "output")]
    pub force: bool,
}
