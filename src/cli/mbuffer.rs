//! mbuffer's own spellings, so that an mbuffer command line runs as it is:
//! the options tapebuf has no letter of its own for. Each is translated
//! once, in `config/mbuffer_flags.rs`, into tapebuf's settings, or refused
//! there in one line that names the tapebuf way. mbuffer's letters that
//! tapebuf shares (-i -o -I -O -s -m -b -P -p -L -f -c -r -R -W -A -D -n
//! -q -l) are tapebuf's own options in `args.rs` (-r and -R in
//! `rate_args.rs`, -l in `observe_args.rs`). None of these is shown by
//! `-h`; `--help` lists them under their own heading.

use std::path::PathBuf;

/// The mbuffer options without a tapebuf letter of their own.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "mbuffer compatibility (see tapebuf(1), COMING FROM MBUFFER)")]
pub struct MbufferArgs {
    /// Print the stream's MD5 at the end as mbuffer does, "MD5 hash: <hex>"
    /// (--hash md5, in mbuffer's words).
    #[arg(short = 'H', long = "md5", hide_short_help = true)]
    pub md5: bool,

    /// Use only IPv4 for -I and -O.
    #[arg(short = '4', overrides_with_all = ["ipv6", "any_family"], hide_short_help = true)]
    pub ipv4: bool,

    /// Use only IPv6 for -I and -O.
    #[arg(short = '6', overrides_with_all = ["ipv4", "any_family"], hide_short_help = true)]
    pub ipv6: bool,

    /// Use IPv4 or IPv6 for -I and -O, as the names resolve (the default).
    #[arg(short = '0', overrides_with_all = ["ipv4", "ipv6"], hide_short_help = true)]
    pub any_family: bool,

    /// Accepted: tapebuf always stops at the first error.
    #[arg(short = 'e', hide_short_help = true)]
    pub stop_on_error: bool,

    /// Accepted: tapebuf writes whole -s blocks and puts a tape drive in
    /// variable-block mode, so no device block size need be learned.
    #[arg(short = 'd', hide_short_help = true)]
    pub device_block_size: bool,

    /// Accepted: the buffer stays in memory (no file behind it), so -m must
    /// fit in memory.
    #[arg(short = 't', hide_short_help = true)]
    pub temp_file: bool,

    /// Accepted as -t; FILE is not used.
    #[arg(short = 'T', value_name = "FILE", hide_short_help = true)]
    pub temp_file_path: Option<PathBuf>,

    /// Refused: tapebuf does not pause after writes; -R/--output-rate
    /// limits the writer instead.
    #[arg(short = 'u', value_name = "NUM", hide_short_help = true)]
    pub pause: Option<String>,

    /// An autoloader that loads the next cartridge itself: with no -A,
    /// eject and wait until the drive is ready (tapebuf waits for that
    /// after every change, so TIME is not needed).
    #[arg(short = 'a', value_name = "TIME", hide_short_help = true)]
    pub autoloader_secs: Option<String>,

    /// Keep the summary line out of the -l/--log file.
    #[arg(short = 'Q', hide_short_help = true)]
    pub quiet_log: bool,

    /// Accepted: tapebuf ends a volume at the tape's early warning, where
    /// its filemark and trailer still fit.
    #[arg(long = "tapeaware", hide_short_help = true)]
    pub tapeaware: bool,

    /// Print "tapebuf: PID is N" at the start.
    #[arg(long = "pid", hide_short_help = true)]
    pub pid: bool,

    /// mbuffer's network time-out, with a unit (us, ms, s, m, h): becomes
    /// --timeout, in whole seconds.
    #[arg(long = "tcptimeo", value_name = "TIME", hide_short_help = true)]
    pub tcp_timeout: Option<String>,

    /// Accepted: tapebuf uses O_DIRECT only with --direct.
    #[arg(long = "no-direct", conflicts_with = "direct", hide_short_help = true)]
    pub no_direct: bool,
}
