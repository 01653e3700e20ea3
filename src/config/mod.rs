//! From what the user typed (`Cli`) to what the program uses (`Config`).
//!
//! Every cross-flag check and every default lives here, so the rest of the
//! program can trust its `Config`: the ring has at least two blocks, a block
//! is never larger than the memory, watermarks are percentages, and
//! `--direct` only comes with aligned blocks. Each error names the flags.

use std::path::PathBuf;

use crate::base::size::{parse_size, Bytes};
use crate::cli::Cli;
use crate::hash::HashAlg;
use crate::net::{AllowRule, ListenAddr, NetSettings, PeerAddr, DEFAULT_CONNECT_TIMEOUT};
use crate::observe::settings::ObserveSettings;
use crate::pace::{PaceRequest, PaceSettings};
use crate::pipeline::watermark::TAPE_HIGH_WATERMARK_PCT;
use crate::rmt::session::RmtSettings;
use crate::sink::{OutputSettings, VolumeSettings};
use crate::source::InputSettings;
use crate::tape::{AtEnd, ChangePolicy, VolumeNames};

mod observe_flags;
mod ring_size;
pub mod rmt_flags;

pub use crate::base::config_error::ConfigError;
pub use crate::sink::spec::{ExistingFile, OutputSpec};
pub use crate::source::spec::InputSpec;

use ring_size::resolve_ring;
pub use ring_size::{
    MachineInfo, DEFAULT_BLOCK_BYTES, DEFAULT_MEMORY_BYTES, DIRECT_ALIGN_BYTES, MAX_BLOCKS,
    MIN_BLOCKS, MIN_BLOCK_BYTES,
};

/// The validated settings of one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub input: InputSpec,
    pub outputs: Vec<OutputSpec>,
    pub block_bytes: usize,
    pub blocks: usize,
    /// Writer restarts after an underrun once the ring is this full. `None`
    /// until the outputs are open: then a tape output makes it 90, anything
    /// else 0 (see `high_pct_for`).
    pub high_pct: Option<u8>,
    /// Reader restarts after an overrun once the ring has drained to this.
    pub low_pct: u8,
    pub lock_memory: bool,
    pub existing: ExistingFile,
    /// `--any-device`: take any character device, not only tape drives
    /// and harmless ones (see `tape::char_devices`).
    pub any_device: bool,
    pub sync: bool,
    pub direct: bool,
    pub input_rate_bytes_per_s: Option<u64>,
    pub output_rate_bytes_per_s: Option<u64>,
    /// `--pace` / `--no-pace`, resolved against the outputs at start.
    pub pace: PaceRequest,
    /// End the run if nothing moves for this long.
    pub watchdog: Option<std::time::Duration>,
    pub quiet: bool,
    /// Zero-fill the final short block to a whole block.
    pub pad: bool,
    /// What to do with a tape at the end.
    pub at_end: AtEnd,
    pub change: ChangePolicy,
    /// End each output volume after this many bytes.
    pub volume_size: Option<u64>,
    /// `-n`: read this many input volumes.
    pub input_volumes: Option<u32>,
    /// Timeouts, buffers, framing and access for `-I` and `-O`.
    pub net: NetSettings,
    /// `--hash`: digests to compute, each once, in the order given.
    pub hashes: Vec<HashAlg>,
    /// `--hash-file`: where to write them too.
    pub hash_file: Option<PathBuf>,
    /// How remote tapes are reached (`HOST:PATH`).
    pub rmt: RmtSettings,
    /// The progress bar, status records, stats file and JSON summary.
    pub observe: ObserveSettings,
}

impl Config {
    /// Total ring memory in bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.block_bytes as u64 * self.blocks as u64
    }

    /// The high watermark once it is known whether an output is a tape.
    /// A paced run restarts as a tape does, whatever its outputs.
    pub fn high_pct_for(&self, output_is_tape: bool) -> u8 {
        let paced = self.pace_for(output_is_tape).is_some();
        match (self.high_pct, output_is_tape || paced) {
            (Some(p), _) => p,
            (None, true) => TAPE_HIGH_WATERMARK_PCT,
            (None, false) => 0,
        }
    }

    /// The pacing range in force once it is known whether an output is a
    /// tape, capped by `-R`.
    pub fn pace_for(&self, output_is_tape: bool) -> Option<PaceSettings> {
        self.pace
            .resolve(output_is_tape, self.output_rate_bytes_per_s)
    }

    /// How long `-O` keeps trying to reach its receiver.
    pub fn sender_connect_limit(&self) -> std::time::Duration {
        self.net.connect.unwrap_or(DEFAULT_CONNECT_TIMEOUT)
    }

    /// The name `--hash-file` gives the stream: the output file when there
    /// is exactly one output and it is a file, else `-`.
    pub fn hashed_stream_name(&self) -> String {
        match self.outputs.as_slice() {
            [OutputSpec::File(p)] => p.display().to_string(),
            _ => "-".to_string(),
        }
    }

    /// The size of `-i` when it is a regular file, for the progress bar's
    /// estimate.
    pub fn input_file_bytes(&self) -> Option<u64> {
        match &self.input {
            InputSpec::File(path) => std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            _ => None,
        }
    }

    /// How the input is opened and read.
    pub fn input_settings(&self) -> InputSettings {
        InputSettings {
            block_bytes: self.block_bytes,
            any_device: self.any_device,
            quiet: self.quiet,
            change: self.change.clone(),
            volumes: self.input_volumes,
            at_end: self.at_end,
            net: self.net.clone(),
            rmt: self.rmt.clone(),
        }
    }

    /// How the outputs are opened and written.
    pub fn output_settings(&self) -> OutputSettings {
        OutputSettings {
            block_bytes: self.block_bytes,
            existing: self.existing,
            any_device: self.any_device,
            sync: self.sync,
            direct: self.direct,
            quiet: self.quiet,
            at_end: self.at_end,
            volumes: VolumeSettings {
                policy: self.change.clone(),
                volume_size: self.volume_size,
                at_end: self.at_end,
            },
            net: self.net.clone(),
            connect_limit: self.sender_connect_limit(),
            rmt: self.rmt.clone(),
        }
    }

    /// Validates a command line against this machine.
    pub fn from_cli(cli: &Cli, machine: MachineInfo) -> Result<Config, ConfigError> {
        let (block_bytes, blocks) = resolve_ring(cli, machine)?;
        if cli.direct && block_bytes % DIRECT_ALIGN_BYTES != 0 {
            return Err(ConfigError::new(
                "--direct",
                format!(
                    "needs -s/--block-size to be a multiple of {DIRECT_ALIGN_BYTES}, not {block_bytes}"
                ),
            ));
        }
        let high_pct = match cli.high_watermark.as_deref() {
            None => None,
            text => Some(parse_pct(text, "-P/--high-watermark", 0)?),
        };
        let low_pct = parse_pct(cli.low_watermark.as_deref(), "-p/--low-watermark", 100)?;

        let input = match (&cli.input, &cli.listen) {
            (_, Some(text)) => InputSpec::Listen(
                ListenAddr::parse(text).map_err(|why| ConfigError::new("-I/--listen", why))?,
            ),
            (None, None) => InputSpec::Stdin,
            (Some(p), None) if p.as_os_str() == "-" => InputSpec::Stdin,
            (Some(p), None) => match rmt_flags::remote_name(cli, "-i/--input", p)? {
                Some(name) => InputSpec::Remote(name),
                None => InputSpec::File(p.clone()),
            },
        };
        let mut outputs = Vec::new();
        for p in &cli.outputs {
            outputs.push(if p.as_os_str() == "-" {
                OutputSpec::Stdout
            } else {
                match rmt_flags::remote_name(cli, "-o/--output", p)? {
                    Some(name) => OutputSpec::Remote(name),
                    None => OutputSpec::File(p.clone()),
                }
            });
        }
        for text in &cli.connect {
            outputs.push(OutputSpec::Connect(
                PeerAddr::parse(text).map_err(|why| ConfigError::new("-O/--connect", why))?,
            ));
        }
        if outputs.is_empty() {
            outputs.push(OutputSpec::Stdout);
        }
        let remote_out = outputs.iter().any(|o| matches!(o, OutputSpec::Remote(_)));
        let remote = remote_out || matches!(input, InputSpec::Remote(_));
        let rmt = rmt_flags::resolve(cli, remote, block_bytes, |var| std::env::var(var).ok())?;
        check_remote_arguments(&rmt, &input, &outputs)?;
        check_remote_outputs(cli, remote_out)?;
        let net = check_net(cli, &input, &outputs, remote)?;
        let (hashes, hash_file) = check_hashes(cli)?;
        let volumes = check_volumes(cli, &input, &outputs, block_bytes)?;
        let observe = observe_flags::resolve(cli)?;
        let existing = if cli.force {
            ExistingFile::Truncate
        } else if cli.append {
            ExistingFile::Append
        } else {
            ExistingFile::Refuse
        };

        Ok(Config {
            input,
            outputs,
            block_bytes: block_bytes as usize,
            blocks: blocks as usize,
            high_pct,
            low_pct,
            lock_memory: cli.lock,
            existing,
            any_device: cli.any_device,
            sync: cli.sync,
            direct: cli.direct,
            input_rate_bytes_per_s: parse_rate(cli.input_rate.as_deref(), "-r/--input-rate")?,
            output_rate_bytes_per_s: parse_rate(cli.output_rate.as_deref(), "-R/--output-rate")?,
            pace: parse_pace(cli.pace.as_deref(), cli.no_pace)?,
            watchdog: match cli.watchdog {
                Some(0) => {
                    return Err(ConfigError::new(
                        "-W/--watchdog",
                        "must be at least 1 second",
                    ))
                }
                secs => secs.map(std::time::Duration::from_secs),
            },
            quiet: cli.quiet,
            pad: cli.pad,
            at_end: if cli.eject {
                AtEnd::Eject
            } else if cli.rewind {
                AtEnd::Rewind
            } else {
                AtEnd::Stay
            },
            change: volumes.change,
            volume_size: volumes.volume_size,
            input_volumes: cli.volumes,
            net,
            hashes,
            hash_file,
            rmt,
            observe,
        })
    }
}

/// Refuses a remote name the server would read cut in two (a BSD server's
/// 63-byte arguments), before any session starts.
fn check_remote_arguments(
    rmt: &RmtSettings,
    input: &InputSpec,
    outputs: &[OutputSpec],
) -> Result<(), ConfigError> {
    let inputs = match input {
        InputSpec::Remote(name) => Some(("-i/--input", name)),
        _ => None,
    };
    let outputs = outputs.iter().filter_map(|o| match o {
        OutputSpec::Remote(name) => Some(("-o/--output", name)),
        _ => None,
    });
    for (flag, name) in inputs.into_iter().chain(outputs) {
        rmt.flavor
            .check_name(name)
            .map_err(|why| ConfigError::new(flag, why))?;
    }
    Ok(())
}

/// Refuses what cannot be done to a remote output: rmt has no fsync, no
/// O_DIRECT, and volumes end only at the end of the medium.
fn check_remote_outputs(cli: &Cli, remote_out: bool) -> Result<(), ConfigError> {
    if !remote_out {
        return Ok(());
    }
    let refused = [
        (
            "-c/--sync",
            cli.sync,
            "rmt has no request to sync a remote file",
        ),
        (
            "--direct",
            cli.direct,
            "rmt cannot open a remote file with O_DIRECT",
        ),
        (
            "-D/--volume-size",
            cli.volume_size.is_some(),
            "a remote tape changes volumes at the end of the medium only",
        ),
    ];
    match refused.iter().find(|(_, given, _)| *given) {
        Some((flag, _, why)) => Err(ConfigError::new(
            *flag,
            format!("does not apply to a remote output (HOST:PATH): {why}"),
        )),
        None => Ok(()),
    }
}

/// The volume settings, checked.
struct Volumes {
    change: ChangePolicy,
    volume_size: Option<u64>,
}

/// Checks the volume options against each other and the endpoints.
fn check_volumes(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    block_bytes: u64,
) -> Result<Volumes, ConfigError> {
    let mut numbered = false;
    for spec in outputs {
        if let OutputSpec::File(p) = spec {
            let names = VolumeNames::parse(p).map_err(|why| {
                ConfigError::new("-o/--output", format!("{}: {why}", p.display()))
            })?;
            numbered |= names.is_numbered();
        }
    }
    if let InputSpec::File(p) = input {
        VolumeNames::parse(p)
            .map_err(|why| ConfigError::new("-i/--input", format!("{}: {why}", p.display())))?;
    }
    let volume_size = match &cli.volume_size {
        None => None,
        Some(text) => {
            let size = parse_size(text)
                .map_err(|e| ConfigError::new("-D/--volume-size", e.to_string()))?;
            if size < block_bytes {
                return Err(ConfigError::new(
                    "-D/--volume-size",
                    format!(
                        "{} is smaller than one block ({}); a tape volume holds whole records",
                        Bytes(size),
                        Bytes(block_bytes)
                    ),
                ));
            }
            if !outputs.iter().any(|o| matches!(o, OutputSpec::File(_))) {
                return Err(ConfigError::new(
                    "-D/--volume-size",
                    "needs a file or tape output (-o); standard output and -O are one stream",
                ));
            }
            Some(size)
        }
    };
    if cli.direct && (numbered || volume_size.is_some()) {
        return Err(ConfigError::new(
            "--direct",
            "does not combine with volumes (-D/--volume-size or a numbered -o name)",
        ));
    }
    match cli.volumes {
        Some(0) => return Err(ConfigError::new("-n/--volumes", "must be at least 1")),
        Some(_) if !matches!(input, InputSpec::File(_) | InputSpec::Remote(_)) => {
            return Err(ConfigError::new(
                "-n/--volumes",
                "needs -i with a tape drive or files to read volumes from",
            ))
        }
        _ => {}
    }
    let command = match &cli.change_command {
        Some(c) if c.trim().is_empty() => {
            return Err(ConfigError::new("-A/--change-command", "is empty"))
        }
        c => c.clone(),
    };
    let timeout = match cli.change_timeout {
        Some(0) => {
            return Err(ConfigError::new(
                "--change-timeout",
                "must be at least 1 second",
            ))
        }
        secs => secs.map(std::time::Duration::from_secs),
    };
    Ok(Volumes {
        change: ChangePolicy { command, timeout },
        volume_size,
    })
}

/// Checks the network options against each other and the endpoints.
fn check_net(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    remote: bool,
) -> Result<NetSettings, ConfigError> {
    let listening = matches!(input, InputSpec::Listen(_));
    let connecting = outputs.iter().any(|o| matches!(o, OutputSpec::Connect(_)));
    let needs = |flag: &str, ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(ConfigError::new(flag, format!("only applies {what}")))
        }
    };
    needs(
        "--allow",
        cli.allow.is_empty() || listening,
        "to -I/--listen",
    )?;
    needs("--raw", !cli.raw || connecting || listening, "to -I and -O")?;
    let network = listening || connecting;
    needs(
        "--timeout",
        cli.timeout.is_none() || network || remote,
        "to -I, -O and remote tapes (HOST:PATH)",
    )?;
    needs(
        "--connect-timeout",
        cli.connect_timeout.is_none() || network,
        "to -I and -O",
    )?;
    needs(
        "--tcp-buffer",
        cli.tcp_buffer.is_none() || network,
        "to -I and -O",
    )?;
    let secs = |flag: &str, value: Option<u64>| match value {
        Some(0) => Err(ConfigError::new(flag, "must be at least 1 second")),
        v => Ok(v.map(std::time::Duration::from_secs)),
    };
    let stall = secs("--timeout", cli.timeout)?;
    let connect = secs("--connect-timeout", cli.connect_timeout)?.or(stall);
    let buffer_bytes = match &cli.tcp_buffer {
        None => None,
        Some(text) => {
            let b =
                parse_size(text).map_err(|e| ConfigError::new("--tcp-buffer", e.to_string()))?;
            if !(4096..=1 << 30).contains(&b) {
                return Err(ConfigError::new(
                    "--tcp-buffer",
                    format!("{} is outside 4 KiB to 1 GiB", Bytes(b)),
                ));
            }
            Some(b as usize)
        }
    };
    let allow = cli
        .allow
        .iter()
        .map(|text| AllowRule::parse(text).map_err(|why| ConfigError::new("--allow", why)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(NetSettings {
        stall,
        connect,
        buffer_bytes,
        raw: cli.raw,
        allow,
    })
}

/// The digests asked for, each once, and where to write them.
fn check_hashes(cli: &Cli) -> Result<(Vec<HashAlg>, Option<PathBuf>), ConfigError> {
    let mut hashes: Vec<HashAlg> = Vec::new();
    for alg in &cli.hash {
        if !hashes.contains(alg) {
            hashes.push(*alg);
        }
    }
    if cli.hash_file.is_some() && hashes.is_empty() {
        return Err(ConfigError::new(
            "--hash-file",
            "needs --hash to say which digest to write",
        ));
    }
    Ok((hashes, cli.hash_file.clone()))
}

fn parse_pct(text: Option<&str>, flag: &str, default: u8) -> Result<u8, ConfigError> {
    let Some(text) = text else {
        return Ok(default);
    };
    let t = text.trim().trim_end_matches('%');
    match t.parse::<u8>() {
        Ok(p) if p <= 100 => Ok(p),
        _ => Err(ConfigError::new(
            flag,
            format!("'{text}' is not a percentage from 0 to 100"),
        )),
    }
}

/// `--pace`, `--pace MIN`, `--pace MIN:MAX`, or `--no-pace`.
fn parse_pace(text: Option<&str>, off: bool) -> Result<PaceRequest, ConfigError> {
    const FLAG: &str = "--pace";
    let text = match (text, off) {
        (_, true) => return Ok(PaceRequest::Off),
        (None, false) => return Ok(PaceRequest::Default),
        (Some(t), false) => t.trim(),
    };
    if text.is_empty() {
        return Ok(PaceRequest::On(PaceSettings::default()));
    }
    let (min, max) = match text.split_once(':') {
        Some((min, max)) => (min, Some(max)),
        None => (text, None),
    };
    let floor = parse_rate(Some(min), FLAG)?;
    let ceiling = match max {
        Some(m) => parse_rate(Some(m), FLAG)?,
        None => None,
    };
    if let (Some(f), Some(c)) = (floor, ceiling) {
        if f > c {
            return Err(ConfigError::new(
                FLAG,
                format!(
                    "the floor {min} is above the top rate {}",
                    max.unwrap_or("")
                ),
            ));
        }
    }
    Ok(PaceRequest::On(PaceSettings { floor, ceiling }))
}

fn parse_rate(text: Option<&str>, flag: &str) -> Result<Option<u64>, ConfigError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let t = text.trim().trim_end_matches("/s");
    match parse_size(t) {
        Ok(0) => Err(ConfigError::new(
            flag,
            "must be more than 0 bytes per second",
        )),
        Ok(r) => Ok(Some(r)),
        Err(e) => Err(ConfigError::new(flag, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    const MACHINE: MachineInfo = MachineInfo {
        physical_memory_bytes: 8 << 30,
    };

    fn config(args: &[&str]) -> Result<Config, ConfigError> {
        let mut argv = vec!["tapebuf"];
        argv.extend_from_slice(args);
        Config::from_cli(&Cli::try_parse_from(argv).unwrap(), MACHINE)
    }

    #[test]
    fn defaults_suit_a_tape_drive() {
        let c = config(&[]).unwrap();
        assert_eq!(c.block_bytes, 256 * 1024);
        assert_eq!(c.memory_bytes(), DEFAULT_MEMORY_BYTES);
        assert_eq!((c.high_pct_for(false), c.low_pct), (0, 100));
        assert_eq!(c.high_pct_for(true), 90, "a tape waits for a long burst");
        assert_eq!(c.outputs, vec![OutputSpec::Stdout]);
        assert_eq!(c.input, InputSpec::Stdin);
    }

    #[test]
    fn any_two_of_size_memory_blocks_fix_the_third() {
        let c = config(&["-s", "1M", "-m", "64M"]).unwrap();
        assert_eq!((c.block_bytes, c.blocks), (1 << 20, 64));
        let c = config(&["-s", "64k", "-b", "10"]).unwrap();
        assert_eq!((c.block_bytes, c.blocks), (64 << 10, 10));
        let c = config(&["-m", "40M", "-b", "10"]).unwrap();
        assert_eq!((c.block_bytes, c.blocks), (4 << 20, 10));
    }

    #[test]
    fn memory_as_percent_of_ram() {
        let c = config(&["-m", "25%"]).unwrap();
        assert_eq!(c.memory_bytes(), 2 << 30);
    }

    #[test]
    fn block_larger_than_memory_names_both_flags() {
        let e = config(&["-s", "2M", "-m", "1M"]).unwrap_err();
        assert_eq!(e.flag, "-s/--block-size");
        assert!(e.why.contains("-m/--memory"), "{e}");
    }

    #[test]
    fn inconsistent_triple_is_refused() {
        let e = config(&["-s", "1M", "-m", "64M", "-b", "10"]).unwrap_err();
        assert!(e.flag.contains("-b/--blocks"), "{e}");
    }

    #[test]
    fn tiny_blocks_and_huge_block_counts_are_refused() {
        let e = config(&["-s", "16"]).unwrap_err();
        assert_eq!(e.flag, "-s/--block-size");
        let e = config(&["-s", "512", "-m", "1G"]).unwrap_err();
        assert!(e.why.contains("at most 131072"), "{e}");
        // Without -m, a small block gets as many blocks as allowed.
        assert_eq!(config(&["-s", "512"]).unwrap().blocks, 131072);
    }

    #[test]
    fn single_block_ring_is_refused() {
        assert!(config(&["-s", "1M", "-m", "1M"]).is_err());
        assert!(config(&["-b", "1"]).is_err());
    }

    #[test]
    fn memory_beyond_physical_ram_is_refused() {
        let e = config(&["-m", "9G"]).unwrap_err();
        assert_eq!(e.flag, "-m/--memory");
    }

    #[test]
    fn watermarks_must_be_percentages_and_may_be_combined() {
        let e = config(&["-P", "120"]).unwrap_err();
        assert_eq!(e.flag, "-P/--high-watermark");
        assert!(config(&["-p", "abc"]).is_err());
        let c = config(&["-P", "90", "-p", "20"]).unwrap();
        assert_eq!((c.high_pct, c.low_pct), (Some(90), 20));
        let c = config(&["-P", "0"]).unwrap();
        assert_eq!(
            c.high_pct_for(true),
            0,
            "-P always overrides the tape default"
        );
    }

    #[test]
    fn direct_needs_aligned_blocks() {
        let e = config(&["--direct", "-s", "10000"]).unwrap_err();
        assert_eq!(e.flag, "--direct");
        assert!(config(&["--direct", "-s", "64k"]).is_ok());
    }

    #[test]
    fn rates_accept_sizes_per_second() {
        let c = config(&["--pace"]).unwrap();
        assert_eq!(c.pace, PaceRequest::On(PaceSettings::default()));
        let c = config(&["--pace", "112MB:360MB"]).unwrap();
        let range = PaceSettings {
            floor: Some(112_000_000),
            ceiling: Some(360_000_000),
        };
        assert_eq!(c.pace, PaceRequest::On(range));
        assert_eq!(c.high_pct_for(false), 90, "a paced run restarts as a tape");
        let c = config(&["--pace=40M"]).unwrap();
        let floor = Some(40 << 20);
        assert_eq!(c.pace_for(false).unwrap().floor, floor);
        assert_eq!(config(&["--no-pace"]).unwrap().pace_for(true), None);
        assert_eq!(config(&[]).unwrap().pace_for(false), None);
        assert!(
            config(&[]).unwrap().pace_for(true).is_some(),
            "on for tapes"
        );
        let capped = config(&["--pace", "50M:200M", "-R", "100M"]).unwrap();
        assert_eq!(capped.pace_for(false).unwrap().ceiling, Some(100 << 20));
        let err = config(&["--pace", "300M:100M"]).unwrap_err();
        assert_eq!(err.flag, "--pace");
        assert!(config(&["--pace", "fast"]).is_err());
        assert!(config(&["--pace", "0"]).is_err());
        assert!(Cli::try_parse_from(["tapebuf", "--pace", "--no-pace"]).is_err());
        let c = config(&["-r", "10M", "-R", "5M/s"]).unwrap();
        assert_eq!(c.input_rate_bytes_per_s, Some(10 << 20));
        assert_eq!(c.output_rate_bytes_per_s, Some(5 << 20));
        assert!(config(&["-R", "0"]).is_err());
    }

    #[test]
    fn volume_options_are_checked() {
        let e = config(&["-D", "100k", "-o", "x"]).unwrap_err();
        assert_eq!(e.flag, "-D/--volume-size");
        assert!(e.why.contains("smaller than one block"), "{e}");
        let e = config(&["-D", "1G"]).unwrap_err();
        assert!(e.why.contains("standard output"), "{e}");
        let e = config(&["-o", "a%d.%d"]).unwrap_err();
        assert_eq!(e.flag, "-o/--output");
        let e = config(&["-n", "2"]).unwrap_err();
        assert_eq!(e.flag, "-n/--volumes");
        let e = config(&["--direct", "-o", "v.%03d"]).unwrap_err();
        assert_eq!(e.flag, "--direct");
        let c = config(&["-D", "1G", "-o", "v.%03d", "-A", "true", "--eject"]).unwrap();
        assert_eq!(c.volume_size, Some(1 << 30));
        assert_eq!(c.at_end, AtEnd::Eject);
        assert_eq!(c.change.command.as_deref(), Some("true"));
    }
}
