//! The command line as the user typed it: clap derive definitions and help
//! text only. Nothing here is validated beyond its own type; every check that
//! involves more than one flag, and every default that depends on the
//! machine, lives in `config/`.
//!
//! Its groups are apart, each flattened into `Cli` where its flags
//! stand: how a remote name is reached (`remote_args.rs`), the rate
//! limits and pacing (`rate_args.rs`), the observers (`observe_args.rs`),
//! the tape library (`library_args.rs`) and mbuffer's spellings
//! (`mbuffer.rs`).

use std::path::PathBuf;

use clap::Parser;

use crate::base::exit;

use super::remote_args::RemoteArgs;

/// The paragraph that ends `tapebuf --help`: how sizes are read, and
/// every exit status, from the one list of them (`base::exit`).
fn long_help_end() -> String {
    format!(
        "Sizes accept k, M, G, T (and KiB, MiB, GiB, TiB) as powers of 1024; \
kB, MB, GB, TB as powers of 1000. {} See tapebuf(1).",
        exit::help_sentence()
    )
}

/// tapebuf: a streaming buffer for backup pipes.
///
/// A reader thread fills a ring of fixed-size blocks from the input while a
/// writer thread drains it, in order, to every output. Watermarks decide
/// when the writer starts and when the reader resumes, so that a tape drive
/// gets long, steady bursts instead of stopping and repositioning.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf", version, about, long_about = None)]
#[command(
    override_usage = "tapebuf [OPTIONS] [-- CMD [ARGS...]]\n       tapebuf COMMAND [ARGS...]"
)]
#[command(
    after_help = "The everyday options; 'tapebuf --help' lists them all, and 'man tapebuf' \
explains them (an mbuffer command line runs as it is: see COMING FROM MBUFFER there).",
    after_long_help = long_help_end()
)]
pub struct Cli {
    /// Read from FILE instead of standard input
    ///
    /// '-' is standard input; [USER@]HOST:PATH reads a remote tape or file
    /// over rmt.
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Write to FILE instead of standard output; repeat for several
    ///
    /// '-' is standard output; [USER@]HOST:PATH is a remote tape or file,
    /// over rmt. Every output gets identical bytes.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub outputs: Vec<PathBuf>,

    /// After '--': run CMD [ARGS...] and read its standard output
    ///
    /// Instead of -i: tapebuf runs the producer (no shell; its standard
    /// input is /dev/null) and waits for it. An exit status other than 0
    /// (or one --accept-status names), or a death by a signal, fails the
    /// input: the trailer says cut, the manifest says not clean, exit 1.
    /// Its stderr goes to the -l file, and its last lines into the
    /// message when it fails.
    ///
    /// Not a clap argument: `app::tree::parse` takes every word after the
    /// first `--` here before clap sees the rest (a positional argument
    /// would make clap read mbuffer's -0, -4 and -6 as numbers).
    #[arg(skip)]
    pub command: Vec<std::ffi::OsString>,

    /// The ids of the options given on the command line, in clap's
    /// spelling (`app::tree::parse` fills it), for the checks that judge
    /// every option by what it means in one mode (`config::serve_flags`).
    #[arg(skip)]
    pub given: Vec<String>,

    /// Run CMD with sh -c and write the stream to its standard input
    ///
    /// An output, like -o: a restore into tar is --to 'tar xf -'. Its exit
    /// status is judged as the producer's; stderr as the producer's.
    #[arg(long = "to", value_name = "CMD", hide_short_help = true)]
    pub to: Option<String>,

    /// Exit statuses of -- CMD and --to CMD that count as success besides 0
    ///
    /// Comma-separated, 1 to 255; never a signal. GNU tar exits 1 when a
    /// file changed while it was read: '--accept-status 1' takes that as
    /// success; without it, it fails the run.
    #[arg(
        long = "accept-status",
        value_name = "N[,N...]",
        value_delimiter = ',',
        value_parser = clap::value_parser!(u8).range(1..),
        hide_short_help = true
    )]
    pub accept_status: Vec<u8>,

    /// Listen on [ADDR:]PORT and read from the one sender that connects
    ///
    /// Instead of -i. Without ADDR, every IPv6 and IPv4 address. An ADDR
    /// that is not this machine's is taken as mbuffer takes it: listen on
    /// every address and take only senders from ADDR.
    #[arg(
        short = 'I',
        long = "listen",
        value_name = "[ADDR:]PORT",
        conflicts_with = "input"
    )]
    pub listen: Option<String>,

    /// Send to a receiver at HOST:PORT; repeat for several
    ///
    /// [IPV6]:PORT for an IPv6 literal. Every address the name resolves to
    /// is tried.
    #[arg(short = 'O', long = "connect", value_name = "HOST:PORT")]
    pub connect: Vec<String>,

    /// With -I, accept only senders from this address, CIDR network or host
    /// name; repeat for several. Others are logged and refused.
    #[arg(long = "allow", value_name = "HOST_OR_CIDR", hide_short_help = true)]
    pub allow: Vec<String>,

    /// Fail when a connection stands still for SECS seconds in either
    /// direction; also the default --connect-timeout. For a remote tape,
    /// the longest wait for an rmt reply [default: 600 for a remote tape;
    /// for -I and -O no stall limit, keepalive still notices a vanished
    /// peer].
    #[arg(long = "timeout", value_name = "SECS", hide_short_help = true)]
    pub timeout: Option<u64>,

    /// How long -O keeps retrying to connect, and -I waits for a sender
    /// [default: --timeout, else 60 for -O and no limit for -I].
    #[arg(long = "connect-timeout", value_name = "SECS", hide_short_help = true)]
    pub connect_timeout: Option<u64>,

    /// Resume a dropped connection within SECS seconds, from the last byte
    /// the receiver holds (both ends need it) [default: no resuming].
    #[arg(long = "resume-timeout", value_name = "SECS", hide_short_help = true)]
    pub resume_timeout: Option<u64>,

    /// Set the sockets' send and receive buffers (SO_SNDBUF, SO_RCVBUF)
    /// [default: the kernel's autotuning].
    #[arg(
        long = "tcp-buffer",
        alias = "tcpbuffer",
        value_name = "SIZE",
        hide_short_help = true
    )]
    pub tcp_buffer: Option<String>,

    /// With -O, send the bytes alone, without tapebuf's framing, for an
    /// mbuffer, nc or socat receiver; with -I, also take such a sender. A
    /// truncated stream then cannot be detected.
    #[arg(long = "raw", hide_short_help = true)]
    pub raw: bool,

    /// With -I and -O: tapebuf's checked frames in clear text, without
    /// keys, for a trusted network. Streams are private by default (TLS
    /// 1.3 between keys, see --key).
    #[arg(long = "plain", hide_short_help = true)]
    pub plain: bool,

    #[command(flatten)]
    pub keys: super::key_args::KeyArgs,

    #[command(flatten)]
    pub serve: super::serve_args::ServeArgs,

    /// Print a digest of the stream at the end
    ///
    /// md5, sha256, blake3 or xxh3, in any case; repeat for several.
    #[arg(long = "hash", value_name = "ALG", value_enum, ignore_case = true)]
    pub hash: Vec<crate::hash::HashAlg>,

    /// Also write the digests to PATH, in sha256sum's format.
    #[arg(long = "hash-file", value_name = "PATH", hide_short_help = true)]
    pub hash_file: Option<PathBuf>,

    /// Write a manifest of the backup to FILE, or check a restore against it
    ///
    /// Writing, the manifest holds every volume's bytes, records, digest
    /// and fingerprint. Reading a tape or file to stdout, check each volume
    /// against FILE instead.
    #[arg(long = "manifest", value_name = "FILE")]
    pub manifest: Option<PathBuf>,

    /// Read each output volume back after writing it and compare
    ///
    /// Before it is ejected or changed.
    #[arg(long = "verify")]
    pub verify: bool,

    /// Catalog the tar or cpio archive's members beside the manifest
    ///
    /// As the manifest's name with the extension `.catalog`; needs --manifest.
    #[arg(long = "catalog", hide_short_help = true)]
    pub catalog: bool,

    #[command(flatten)]
    pub remote: RemoteArgs,

    /// Requests kept in flight to a remote tape; 1 is lock-step, like
    /// tar and rdump [default: adapts to the link].
    #[arg(long = "rmt-window", value_name = "N", hide_short_help = true)]
    pub rmt_window: Option<u64>,

    /// Size of one block, the unit of every read and write [default: 256k]
    #[arg(short = 's', long = "block-size", value_name = "SIZE")]
    pub block_size: Option<String>,

    /// Buffer memory, as a size or a percentage of RAM [default: 128M]
    ///
    /// For example 1G or 25%.
    #[arg(short = 'm', long = "memory", value_name = "SIZE|PCT%")]
    pub memory: Option<String>,

    /// Number of blocks in the ring (an alternative to -m).
    #[arg(short = 'b', long = "blocks", value_name = "N", hide_short_help = true)]
    pub blocks: Option<u64>,

    /// Start writing once the buffer is PCT full [default: 90 for tapes]
    ///
    /// High watermark: once the ring has run empty, the writer waits until
    /// the ring is PCT full (or input ends) before it writes again
    /// [default: 90 when an output is a tape drive, else 0, start at once].
    #[arg(short = 'P', long = "high-watermark", value_name = "PCT")]
    pub high_watermark: Option<String>,

    /// Low watermark: once the ring has filled, the reader waits until the
    /// ring has drained to PCT before it reads again [default: 100, resume
    /// as soon as a block is free].
    #[arg(
        short = 'p',
        long = "low-watermark",
        value_name = "PCT",
        hide_short_help = true
    )]
    pub low_watermark: Option<String>,

    /// Lock the buffer in RAM with mlock so it is never paged out.
    #[arg(short = 'L', long = "lock", hide_short_help = true)]
    pub lock: bool,

    /// Overwrite existing output files
    ///
    /// Regular files only; mbuffer's --truncate is accepted too.
    #[arg(
        short = 'f',
        long = "force",
        alias = "truncate",
        conflicts_with = "append"
    )]
    pub force: bool,

    /// Append to existing regular output files.
    #[arg(long = "append", hide_short_help = true)]
    pub append: bool,

    /// Read or write a character device that is neither a tape drive nor
    /// null, zero, full, random, urandom or a terminal (such as SCSI
    /// generic, /dev/sg*), which tapebuf otherwise refuses.
    #[arg(long = "any-device", hide_short_help = true)]
    pub any_device: bool,

    /// fsync output files before closing them.
    #[arg(short = 'c', long = "sync", hide_short_help = true)]
    pub sync: bool,

    /// Use O_DIRECT for files where the filesystem allows it (needs a block
    /// size that is a multiple of 4096).
    #[arg(long = "direct", hide_short_help = true)]
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
        default_value = "auto",
        hide_short_help = true
    )]
    pub zero_copy: crate::pipeline::ZeroCopy,

    #[command(flatten)]
    pub rates: super::rate_args::RateArgs,

    /// End the run with an error if no byte has moved, in or out, for SECS
    /// seconds [default: wait for ever].
    #[arg(
        short = 'W',
        long = "watchdog",
        value_name = "SECS",
        hide_short_help = true
    )]
    pub watchdog: Option<u64>,

    /// Pad the final short block with zeros to the full block size, for
    /// tape drives in fixed-block mode.
    #[arg(long = "pad", hide_short_help = true)]
    pub pad: bool,

    /// Rewind the tape at the end.
    #[arg(long = "rewind", conflicts_with = "eject", hide_short_help = true)]
    pub rewind: bool,

    /// Rewind and eject the tape at the end (MTOFFL)
    #[arg(long = "eject", hide_short_help = true)]
    pub eject: bool,

    /// Run CMD to load the next volume when one is full (or, reading, done)
    ///
    /// Through sh -c. It gets TAPEBUF_VOLUME, TAPEBUF_DEVICE, TAPEBUF_MODE
    /// and TAPEBUF_VOLUME_BYTES. Without it, tapebuf asks on the terminal,
    /// or fails if there is none.
    #[arg(short = 'A', long = "change-command", value_name = "CMD")]
    pub change_command: Option<String>,

    /// Give up on each step of a volume change after SECS seconds
    /// [default: 3600 for --change-command, 7200 for the drive to be
    /// ready; no limit for the terminal prompt].
    #[arg(long = "change-timeout", value_name = "SECS", hide_short_help = true)]
    pub change_timeout: Option<u64>,

    /// End each output volume after SIZE bytes (out.%03d numbers them)
    ///
    /// On a tape, after the last whole record that fits. Combine with a
    /// numbered name (out.%03d).
    #[arg(short = 'D', long = "volume-size", value_name = "SIZE")]
    pub volume_size: Option<String>,

    /// Read N input volumes, changing volumes in between
    ///
    /// [default: 1, or every numbered file that exists, or as many as
    /// tapebuf's volume trailers say].
    #[arg(short = 'n', long = "volumes", value_name = "N")]
    pub volumes: Option<u32>,

    /// Print nothing but errors
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,

    /// Say more; mbuffer's -v LEVEL: 0-1 is -q, 2-3 normal, 4-6 verbose
    ///
    /// Verbose adds a line at the start that describes the ring, the
    /// watermarks and the endpoints, and gives every detail in the summary
    /// line, as for a tape: underruns, the ring, each volume's bytes.
    #[arg(
        short = 'v',
        long = "verbose",
        value_name = "LEVEL",
        num_args = 0..=1,
        default_missing_value = "4",
        value_parser = clap::value_parser!(u8).range(0..=6),
        overrides_with = "verbose"
    )]
    pub verbose: Option<u8>,

    #[command(flatten)]
    pub observe: super::observe_args::ObserveArgs,

    #[command(flatten)]
    pub library: super::library_args::LibraryArgs,

    #[command(flatten)]
    pub tape: super::tape_args::TapeArgs,

    #[command(flatten)]
    pub mbuffer: super::mbuffer::MbufferArgs,
}
