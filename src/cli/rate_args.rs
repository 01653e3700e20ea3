//! The rates a buffer run is held to, as typed: the limits on the input
//! and the output (-r, -R: a cap, `pipeline::rate_limit`) and the pace
//! of the writer (`--pace`, `--no-pace`: adaptive, `pace::Controller`).

/// What `--pace` alone stands for: a value no command line can hold
/// (arguments end at a NUL byte), so that `--pace` alone, which learns the
/// range, is told apart from `--pace=` with nothing after it, a mistake.
pub const PACE_ALONE: &str = "\0";

/// The rate limits and the pacing of the writer.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RateArgs {
    /// Limit the input rate, in bytes per second (e.g. 50M).
    #[arg(
        short = 'r',
        long = "input-rate",
        value_name = "RATE",
        hide_short_help = true
    )]
    pub input_rate: Option<String>,

    /// Limit the output rate, in bytes per second (e.g. 80M)
    #[arg(
        short = 'R',
        long = "output-rate",
        value_name = "RATE",
        hide_short_help = true
    )]
    pub output_rate: Option<String>,

    /// Pace the writer to the input's smoothed rate, between a floor and
    /// a top rate, so that a speed-matching tape drive streams instead of
    /// stopping between bursts. Alone, the top is learned and the floor is
    /// half of it; MIN[:MAX] gives the drive's range in bytes per second
    /// (e.g. 112MB:360MB). On by default for tape outputs.
    #[arg(
        long = "pace",
        value_name = "MIN[:MAX]",
        num_args = 0..=1,
        default_missing_value = PACE_ALONE,
        conflicts_with = "no_pace",
        hide_short_help = true
    )]
    pub pace: Option<String>,

    /// Do not pace a tape output: write in bursts set by the watermarks.
    #[arg(long = "no-pace", hide_short_help = true)]
    pub no_pace: bool,
}
