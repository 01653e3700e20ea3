//! The command line as the user typed it: clap derive definitions and help
//! text only. Nothing here is validated beyond its own type; every check that
//! involves more than one flag, and every default that depends on the
//! machine, lives in `config/`.

use std::path::PathBuf;

use clap::Parser;

/// tapebuf: a streaming buffer for backup pipes.
///
/// A reader thread fills a ring of fixed-size blocks from the input while a
/// writer thread drains it, in order, to every output. Watermarks decide
/// when the writer starts and when the reader resumes, so that a tape drive
/// gets long, steady bursts instead of stopping and repositioning.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf", version, about, long_about = None)]
#[command(
    after_help = "Sizes accept k, M, G, T (and KiB, MiB, GiB, TiB) as powers of 1024; \
kB, MB, GB, TB as powers of 1000. Exit status: 0 success, 1 I/O failure or data not \
committed, 2 usage error. See tapebuf(1)."
)]
pub struct Cli {
    /// Read from FILE instead of standard input ('-' is standard input);
    /// [USER@]HOST:PATH reads a remote tape or file over rmt.
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Write to FILE instead of standard output; repeat for several outputs
    /// ('-' is standard output; [USER@]HOST:PATH is a remote tape or file,
    /// over rmt). Every output gets identical bytes.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub outputs: Vec<PathBuf>,

    /// Listen on [ADDR:]PORT and read from the one sender that connects
    /// (instead of -i). Without ADDR, every IPv6 and IPv4 address.
    #[arg(
        short = 'I',
        long = "listen",
        value_name = "[ADDR:]PORT",
        conflicts_with = "input"
    )]
    pub listen: Option<String>,

    /// Send to a receiver at HOST:PORT ([IPV6]:PORT); repeat for several.
    /// Every address the name resolves to is tried.
    #[arg(short = 'O', long = "connect", value_name = "HOST:PORT")]
    pub connect: Vec<String>,

    /// With -I, accept only senders from this address, CIDR network or host
    /// name; repeat for several. Others are logged and refused.
    #[arg(long = "allow", value_name = "HOST_OR_CIDR")]
    pub allow: Vec<String>,

    /// Fail when a connection stands still for SECS seconds in either
    /// direction; also the default --connect-timeout. For a remote tape,
    /// the longest wait for an rmt reply [default: 600 for a remote tape;
    /// for -I and -O no stall limit, keepalive still notices a vanished
    /// peer].
    #[arg(long = "timeout", value_name = "SECS")]
    pub timeout: Option<u64>,

    /// How long -O keeps retrying to connect, and -I waits for a sender
    /// [default: --timeout, else 60 for -O and no limit for -I].
    #[arg(long = "connect-timeout", value_name = "SECS")]
    pub connect_timeout: Option<u64>,

    /// Set the sockets' send and receive buffers (SO_SNDBUF, SO_RCVBUF)
    /// [default: the kernel's autotuning].
    #[arg(long = "tcp-buffer", value_name = "SIZE")]
    pub tcp_buffer: Option<String>,

    /// With -O, send the bytes alone, without tapebuf's framing, for an
    /// mbuffer, nc or socat receiver; with -I, also take such a sender. A
    /// truncated stream then cannot be detected.
    #[arg(long = "raw")]
    pub raw: bool,

    /// Print a digest of the stream at the end (md5, sha256, blake3, xxh3);
    /// repeat for several.
    #[arg(long = "hash", value_name = "ALG", value_enum)]
    pub hash: Vec<crate::hash::HashAlg>,

    /// Also write the digests to PATH, in sha256sum's format.
    #[arg(long = "hash-file", value_name = "PATH")]
    pub hash_file: Option<PathBuf>,

    /// Write a manifest of the backup to FILE at the end: every volume's
    /// bytes, records, digest and fingerprint. Reading a tape or file to
    /// stdout, check each volume against FILE instead.
    #[arg(long = "manifest", value_name = "FILE")]
    pub manifest: Option<PathBuf>,

    /// Read each output volume back after writing it, before it is
    /// ejected or changed, and compare it with what was written.
    #[arg(long = "verify")]
    pub verify: bool,

    #[command(flatten)]
    pub remote: RemoteArgs,

    /// Requests kept in flight to a remote tape; 1 is lock-step, like
    /// tar and rdump [default: adapts to the link].
    #[arg(long = "rmt-window", value_name = "N")]
    pub rmt_window: Option<u64>,

    /// Size of one block, the unit of every read and write [default: 256k].
    #[arg(short = 's', long = "block-size", value_name = "SIZE")]
    pub block_size: Option<String>,

    /// Total buffer memory, as a size or a percentage of physical RAM
    /// (e.g. 1G, 25%) [default: 128M].
    #[arg(short = 'm', long = "memory", value_name = "SIZE|PCT%")]
    pub memory: Option<String>,

    /// Number of blocks in the ring (an alternative to -m).
    #[arg(short = 'b', long = "blocks", value_name = "N")]
    pub blocks: Option<u64>,

    /// High watermark: once the ring has run empty, the writer waits until
    /// the ring is PCT full (or input ends) before it writes again
    /// [default: 90 when an output is a tape drive, else 0, start at once].
    #[arg(short = 'P', long = "high-watermark", value_name = "PCT")]
    pub high_watermark: Option<String>,

    /// Low watermark: once the ring has filled, the reader waits until the
    /// ring has drained to PCT before it reads again [default: 100, resume
    /// as soon as a block is free].
    #[arg(short = 'p', long = "low-watermark", value_name = "PCT")]
    pub low_watermark: Option<String>,

    /// Lock the buffer in RAM with mlock so it is never paged out.
    #[arg(short = 'L', long = "lock")]
    pub lock: bool,

    /// Overwrite existing regular output files (mbuffer's --truncate is
    /// accepted too).
    #[arg(
        short = 'f',
        long = "force",
        alias = "truncate",
        conflicts_with = "append"
    )]
    pub force: bool,

    /// Append to existing regular output files.
    #[arg(long = "append")]
    pub append: bool,

    /// Read or write a character device that is neither a tape drive nor
    /// null, zero, full, random, urandom or a terminal (such as SCSI
    /// generic, /dev/sg*), which tapebuf otherwise refuses.
    #[arg(long = "any-device")]
    pub any_device: bool,

    /// fsync output files before closing them.
    #[arg(short = 'c', long = "sync")]
    pub sync: bool,

    /// Use O_DIRECT for files where the filesystem allows it (needs a block
    /// size that is a multiple of 4096).
    #[arg(long = "direct")]
    pub direct: bool,

    /// Keep the ring in kernel pipes and move the bytes with splice(2), so
    /// that they never cross user space: auto does so where the input and
    /// the outputs are pipes, sockets or plain files and nothing must see
    /// the bytes, on insists (the run fails if it cannot), off keeps the
    /// copying ring. The summary says which ring ran and why.
    #[arg(
        long = "zero-copy",
        value_name = "WHEN",
        value_enum,
        default_value = "auto"
    )]
    pub zero_copy: crate::pipeline::ZeroCopy,

    /// Limit the input rate, in bytes per second (e.g. 50M).
    #[arg(short = 'r', long = "input-rate", value_name = "RATE")]
    pub input_rate: Option<String>,

    /// Limit the output rate, in bytes per second (e.g. 80M).
    #[arg(short = 'R', long = "output-rate", value_name = "RATE")]
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
        default_missing_value = "",
        conflicts_with = "no_pace"
    )]
    pub pace: Option<String>,

    /// Do not pace a tape output: write in bursts set by the watermarks.
    #[arg(long = "no-pace")]
    pub no_pace: bool,

    /// End the run with an error if no byte has moved, in or out, for SECS
    /// seconds [default: wait for ever].
    #[arg(short = 'W', long = "watchdog", value_name = "SECS")]
    pub watchdog: Option<u64>,

    /// Pad the final short block with zeros to the full block size, for
    /// tape drives in fixed-block mode.
    #[arg(long = "pad")]
    pub pad: bool,

    /// Rewind the tape at the end.
    #[arg(long = "rewind", conflicts_with = "eject")]
    pub rewind: bool,

    /// Rewind and eject the tape at the end (MTOFFL).
    #[arg(long = "eject")]
    pub eject: bool,

    /// Run CMD (through sh -c) to load the next volume when one is full or,
    /// when reading, finished. It gets TAPEBUF_VOLUME, TAPEBUF_DEVICE,
    /// TAPEBUF_MODE and TAPEBUF_VOLUME_BYTES. Without it, tapebuf asks on
    /// the terminal, or fails if there is none.
    #[arg(short = 'A', long = "change-command", value_name = "CMD")]
    pub change_command: Option<String>,

    /// Give up on each step of a volume change after SECS seconds
    /// [default: 3600 for --change-command, 7200 for the drive to be
    /// ready; no limit for the terminal prompt].
    #[arg(long = "change-timeout", value_name = "SECS")]
    pub change_timeout: Option<u64>,

    /// End each output volume after SIZE bytes (on a tape, after the last
    /// whole record that fits). Combine with a numbered name (out.%03d).
    #[arg(short = 'D', long = "volume-size", value_name = "SIZE")]
    pub volume_size: Option<String>,

    /// Read N input volumes, changing volumes in between [default: 1, or
    /// every numbered file that exists].
    #[arg(short = 'n', long = "volumes", value_name = "N")]
    pub volumes: Option<u32>,

    /// Print nothing but errors.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,

    /// Give every detail in the summary line, as for a tape: underruns,
    /// the ring, each volume's bytes.
    #[arg(long = "verbose")]
    pub verbose: bool,

    /// Show the live progress bar even when stderr is not a terminal
    /// [default: only when stderr is a terminal].
    #[arg(long = "progress", conflicts_with = "no_progress")]
    pub progress: bool,

    /// Never show the live progress bar, even on a terminal.
    #[arg(long = "no-progress")]
    pub no_progress: bool,

    /// The total size of the stream, for the progress bar's ETA [default:
    /// the size of -i when it is a regular file].
    #[arg(long = "size", value_name = "SIZE")]
    pub size: Option<String>,

    /// Print a one-line status record every SECS seconds (decimals allowed),
    /// to stderr or to --log.
    #[arg(long = "status-interval", value_name = "SECS")]
    pub status_interval: Option<String>,

    /// Write the --status-interval records, and the summary line, to FILE
    /// (appended) instead of stderr.
    #[arg(short = 'l', long = "log", value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Write the final summary as one JSON object to FILE.
    #[arg(long = "summary-json", value_name = "FILE")]
    pub summary_json: Option<PathBuf>,

    /// Write a timeline of the run to FILE as JSON lines, for `tapebuf
    /// report` (schema in tapebuf(1), STATS FILE).
    #[arg(long = "stats", value_name = "FILE")]
    pub stats: Option<PathBuf>,

    /// Seconds between --stats records (decimals allowed) [default: 1].
    #[arg(long = "stats-interval", value_name = "SECS")]
    pub stats_interval: Option<String>,
}

/// How a HOST:PATH name is reached, for `tapebuf` and `tapebuf probe` alike.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RemoteArgs {
    /// Take every name as local, even one with a colon (HOST:PATH is
    /// otherwise a remote tape or file, reached over rmt).
    #[arg(long = "force-local")]
    pub force_local: bool,

    /// The remote shell for HOST:PATH, with its arguments [env: RSH;
    /// default: ssh -T -e none -o BatchMode=yes, which never prompts].
    #[arg(long = "rsh-command", value_name = "CMD")]
    pub rsh_command: Option<String>,

    /// The rmt server to run on the remote host [env: RMT; default:
    /// /etc/rmt].
    #[arg(long = "rmt-command", value_name = "CMD")]
    pub rmt_command: Option<String>,

    /// The remote server's tape operation numbering: gnu (Linux) or bsd
    /// [default: gnu].
    #[arg(long = "rmt-flavor", value_name = "FLAVOR", value_enum)]
    pub rmt_flavor: Option<crate::rmt::flavor::Flavor>,
}
