//! What the observers of one run do: the bar, the status records, the stats
//! file, the summary line and the JSON summary. `config/observe_flags.rs`
//! builds these settings from the flags; an interval here is always a
//! positive, finite duration.

use std::path::PathBuf;
use std::time::Duration;

/// The default time between `--stats` records.
pub const DEFAULT_STATS_INTERVAL: Duration = Duration::from_secs(1);
/// The shortest interval accepted: a tighter timer would cost CPU for
/// nothing a person or a plot could use.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// Whether to draw the live progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Only when stderr is a terminal (and not -q).
    Auto,
    /// `--progress`: always, even to a file or a pipe.
    On,
    /// `--no-progress` or `-q`.
    Off,
}

/// What the observers of one run do.
#[derive(Debug, Clone)]
pub struct ObserveSettings {
    /// `-v`/`--verbose` (mbuffer's levels 4 to 6): a line at the start
    /// describing the ring and the endpoints, and every detail in the
    /// summary line.
    pub verbose: bool,
    pub progress: ProgressMode,
    /// `--size`: the stream's total, for the ETA.
    pub total_bytes: Option<u64>,
    pub status_interval: Option<Duration>,
    /// `-l/--log`: the file that gets a copy of every message, the summary
    /// line, and the status records instead of stderr.
    pub log: Option<PathBuf>,
    /// Whether the summary line goes to the `-l` file; mbuffer's `-Q`
    /// keeps it out.
    pub log_summary: bool,
    pub summary_json: Option<PathBuf>,
    /// `--stats` and its interval.
    pub stats: Option<(PathBuf, Duration)>,
}

impl ObserveSettings {
    /// True when some observer besides the summary runs during the run.
    pub fn any_live(&self) -> bool {
        self.progress != ProgressMode::Off || self.status_interval.is_some() || self.stats.is_some()
    }
}
