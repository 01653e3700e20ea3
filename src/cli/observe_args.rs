//! What a buffer run shows and writes of itself, as typed: the progress
//! bar, the status records, the log, the JSON summary and the `--stats`
//! timeline (`-q` and `-v` stay in `args.rs`: every line obeys them).

use std::path::PathBuf;

/// The observers' flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ObserveArgs {
    /// Show the live progress bar even when stderr is not a terminal
    /// [default: only when stderr is a terminal].
    #[arg(
        long = "progress",
        conflicts_with = "no_progress",
        hide_short_help = true
    )]
    pub progress: bool,

    /// Never show the live progress bar, even on a terminal.
    #[arg(long = "no-progress", hide_short_help = true)]
    pub no_progress: bool,

    /// The total size of the stream, for the progress bar's ETA [default:
    /// the size of -i when it is a regular file].
    #[arg(long = "size", value_name = "SIZE", hide_short_help = true)]
    pub size: Option<String>,

    /// Print a one-line status record every SECS seconds (decimals allowed),
    /// to stderr or, with -l, to its file only.
    #[arg(long = "status-interval", value_name = "SECS", hide_short_help = true)]
    pub status_interval: Option<String>,

    /// Append every message and the summary line to FILE as well
    ///
    /// Errors, warnings, digests and the summary still reach stderr too
    /// (the summary not with -q); --status-interval's records go to FILE
    /// only. As mbuffer's -l, from the start of the run.
    #[arg(short = 'l', long = "log", value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Write the final summary as one JSON object to FILE.
    #[arg(long = "summary-json", value_name = "FILE", hide_short_help = true)]
    pub summary_json: Option<PathBuf>,

    /// Write a timeline of the run to FILE as JSON lines, for `tapebuf
    /// report` (schema in tapebuf(1), STATS FILE).
    #[arg(long = "stats", value_name = "FILE", hide_short_help = true)]
    pub stats: Option<PathBuf>,

    /// Seconds between --stats records (decimals allowed) [default: 1].
    #[arg(long = "stats-interval", value_name = "SECS", hide_short_help = true)]
    pub stats_interval: Option<String>,
}
