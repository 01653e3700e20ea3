//! From what the user typed (`Cli`) to what the program uses (`Config`):
//! the ring, the endpoints, and every flag checked against the others.

use std::path::PathBuf;
use std::time::Duration;

use super::commands;
use super::library_flags::check_library;
use super::mbuffer_flags;
use super::net_flags::check_net;
use super::ring_size::{resolve_ring, RingFlags};
use super::rmt_flags::{self, check_remote_arguments, check_remote_outputs, RmtFlags};
use super::scalar_flags::{check_pace_under_cap, parse_pace, parse_pct, parse_rate};
use super::volume_flags::check_volumes;
use super::written_paths;
use super::{Config, MachineInfo, ManifestPlan};
use crate::base::block::DIRECT_ALIGN_BYTES;
use crate::base::errors::ConfigError;
use crate::cli::{Cli, RemoteArgs};
use crate::endpoint::EndpointSettings;
use crate::hash::HashAlg;
use crate::net::{ListenAddr, NetSettings, PeerAddr};
use crate::pipeline::events::Events;
use crate::pipeline::{Params, ZeroCopy};
use crate::sink::spec::{ExistingFile, OutputSpec};
use crate::sink::OutputSettings;
use crate::source::spec::InputSpec;
use crate::source::InputSettings;
use crate::tape::AtEnd;
use crate::volume::VolumeNames;

impl Config {
    /// Validates a command line against this machine.
    pub fn from_cli(typed: &Cli, machine: MachineInfo) -> Result<Config, ConfigError> {
        let translated = mbuffer_flags::translate(typed)?;
        let with_backup_blocks = super::manifest_flags::restore_block_size(&translated);
        let cli = with_backup_blocks.as_ref().unwrap_or(&translated);
        let ring = ring(cli, machine)?;
        let (input, outputs) = endpoints(cli)?;
        let remote_out = outputs.iter().any(|o| matches!(o, OutputSpec::Remote(_)));
        let remote = remote_out || matches!(input, InputSpec::Remote(_));
        let env = |var: &str| std::env::var(var).ok();
        let rmt = rmt_flags::resolve(RmtFlags::of(cli), remote, ring.block_bytes as u64, env)?;
        check_remote_arguments(&rmt, &input, &outputs)?;
        check_remote_outputs(cli, remote_out)?;
        let net = check_net(cli, &input, &outputs, remote)?;
        let (hashes, hash_file) = check_hashes(cli)?;
        let volumes = check_volumes(cli, &input, &outputs, ring.block_bytes as u64)?;
        let observe = super::observe_flags::resolve(cli)?;
        let mut keys = super::key_flags::key_files(net.tls.as_ref());
        keys.extend(cli.tape.key_files());
        if let Some(path) = &cli.manifest {
            written_paths::manifest_apart(path, &input, &outputs, &keys)?;
        }
        let manifest = super::manifest_flags::resolve(cli, &input, &outputs, &hashes)?;
        let catalog = super::catalog_flag::resolve(cli, &manifest, &input, &outputs)?;
        let pipeline = pipeline(
            cli,
            ring,
            check_zero_copy(cli, &input, &outputs, &manifest)?,
        )?;
        let watchdog = watchdog(cli)?;
        let (serve, stream_memory) = super::serve_flags::plan(cli, &input, &outputs, &pipeline)?;
        let reports =
            written_paths::report_files(&manifest, catalog.as_ref(), hash_file.as_ref(), &observe);
        written_paths::check(&input, &outputs, &manifest, &reports, &keys)?;
        let endpoint = EndpointSettings {
            block_bytes: pipeline.block_bytes,
            any_device: cli.any_device,
            quiet: cli.quiet,
            rmt,
            change: volumes.change,
            at_end: at_end(cli.rewind, cli.eject),
            library: check_library(&cli.library, cli.change_command.is_some())?,
            guards: cli.tape.guards()?,
        };
        let source = InputSettings {
            endpoint: endpoint.clone(),
            volumes: cli.volumes,
            // A framed sender may send blocks up to the ring's size.
            net: NetSettings {
                sender_block_limit_bytes: Some(stream_memory),
                ..net.clone()
            },
            manifest: manifest.checked().cloned(),
        };
        let sink = OutputSettings {
            endpoint,
            existing: existing_file(cli),
            sync: cli.sync,
            direct: cli.direct,
            volume_size: volumes.volume_size,
            net,
            recording: manifest.recording(),
            catalog,
            input_volumes: numbered_input(&input),
        };
        Ok(Config {
            source,
            sink,
            input,
            outputs,
            pipeline,
            observe,
            manifest,
            hashes,
            hash_file,
            md5_as_mbuffer: cli.mbuffer.md5,
            watchdog,
            print_pid: cli.mbuffer.pid,
            serve,
        })
    }
}

/// The ring's shape and watermarks, checked: `-s`, `-m`, `-b` (with
/// `--direct`'s alignment), `-P` and `-p`.
fn ring(cli: &Cli, machine: MachineInfo) -> Result<Params, ConfigError> {
    let (block_bytes, blocks) = resolve_ring(RingFlags::of(cli), machine)
        .map_err(|e| mbuffer_flags::explain_memory(cli, e))?;
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
    Ok(Params {
        blocks: blocks as usize,
        block_bytes: block_bytes as usize,
        lock_memory: cli.lock,
        high_pct,
        low_pct: parse_pct(cli.low_watermark.as_deref(), "-p/--low-watermark", 100)?,
        input_rate_bytes_per_s: None,
        output_rate_bytes_per_s: None,
        pace: Default::default(),
        pad: cli.pad,
        zero_copy: cli.zero_copy,
        events: Events::default(),
    })
}

/// The rest of the engine's settings on the `ring`: the zero-copy choice,
/// `--pace` under `-R`, and `-r`.
fn pipeline(cli: &Cli, ring: Params, zero_copy: ZeroCopy) -> Result<Params, ConfigError> {
    let pace = parse_pace(cli.rates.pace.as_deref(), cli.rates.no_pace)?;
    let output_rate = parse_rate(cli.rates.output_rate.as_deref(), "-R/--output-rate")?;
    check_pace_under_cap(
        &pace,
        cli.rates.pace.as_deref(),
        output_rate,
        cli.rates.output_rate.as_deref(),
    )?;
    Ok(Params {
        input_rate_bytes_per_s: parse_rate(cli.rates.input_rate.as_deref(), "-r/--input-rate")?,
        output_rate_bytes_per_s: output_rate,
        pace,
        zero_copy,
        ..ring
    })
}

/// The input's numbered volumes (`-i v.%02d`), which no output may be.
fn numbered_input(input: &InputSpec) -> Option<VolumeNames> {
    match input {
        InputSpec::File(path) => VolumeNames::parse(path).ok().filter(|n| n.is_numbered()),
        _ => None,
    }
}

/// The input `-i` or `-I` names: standard input without either.
pub(super) fn input_spec(
    input: Option<&PathBuf>,
    listen: Option<&String>,
    remote: &RemoteArgs,
) -> Result<InputSpec, ConfigError> {
    Ok(match (input, listen) {
        (_, Some(text)) => InputSpec::Listen(
            ListenAddr::parse(text).map_err(|why| ConfigError::new("-I/--listen", why))?,
        ),
        (None, None) => InputSpec::Stdin,
        (Some(p), None) if p.as_os_str() == "-" => InputSpec::Stdin,
        (Some(p), None) => match rmt_flags::remote_name(remote, "-i/--input", p)? {
            Some(name) => InputSpec::Remote(name),
            None => InputSpec::File(p.clone()),
        },
    })
}

/// The input and the outputs the command line names (standard output when
/// it names none).
fn endpoints(cli: &Cli) -> Result<(InputSpec, Vec<OutputSpec>), ConfigError> {
    let input = match cli.command.as_slice() {
        [] => input_spec(cli.input.as_ref(), cli.listen.as_ref(), &cli.remote)?,
        _ if cli.input.is_some() || cli.listen.is_some() => {
            return Err(ConfigError::new(
                "--",
                "runs the producer as the input: give it, -i or -I, not two of them",
            ))
        }
        argv => InputSpec::Command(commands::producer(argv, &cli.accept_status)?),
    };
    let mut outputs = Vec::new();
    for p in &cli.outputs {
        outputs.push(if p.as_os_str() == "-" {
            OutputSpec::Stdout
        } else {
            match rmt_flags::remote_name(&cli.remote, "-o/--output", p)? {
                Some(name) => OutputSpec::Remote(name),
                None => OutputSpec::File(p.clone()),
            }
        });
    }
    commands::check_accept(
        &cli.accept_status,
        !cli.command.is_empty() || cli.to.is_some(),
    )?;
    if let Some(line) = &cli.to {
        outputs.push(OutputSpec::Command(commands::consumer(
            line,
            &cli.accept_status,
        )?));
    }
    for text in &cli.connect {
        outputs.push(OutputSpec::Connect(
            PeerAddr::parse(text).map_err(|why| ConfigError::new("-O/--connect", why))?,
        ));
    }
    if outputs.is_empty() {
        outputs.push(OutputSpec::Stdout);
    }
    Ok((input, outputs))
}

/// `-f` truncates, `--append` extends, and otherwise an existing file is
/// refused.
fn existing_file(cli: &Cli) -> ExistingFile {
    if cli.force {
        ExistingFile::Truncate
    } else if cli.append {
        ExistingFile::Append
    } else {
        ExistingFile::Refuse
    }
}

/// `--eject`, `--rewind`, or leave the tape where it ends.
pub(super) fn at_end(rewind: bool, eject: bool) -> AtEnd {
    if eject {
        AtEnd::Eject
    } else if rewind {
        AtEnd::Rewind
    } else {
        AtEnd::Stay
    }
}

/// `-W`: at least a second.
fn watchdog(cli: &Cli) -> Result<Option<Duration>, ConfigError> {
    match cli.watchdog {
        Some(0) => Err(ConfigError::new(
            "-W/--watchdog",
            "must be at least 1 second",
        )),
        secs => Ok(secs.map(Duration::from_secs)),
    }
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

/// `--zero-copy=on` is refused at once where the command line already
/// names a stage that must see the bytes; what only the opened endpoints
/// can tell (a tape, a terminal) is refused when the ring is made.
fn check_zero_copy(
    cli: &Cli,
    input: &InputSpec,
    outputs: &[OutputSpec],
    manifest: &ManifestPlan,
) -> Result<ZeroCopy, ConfigError> {
    if cli.zero_copy != ZeroCopy::On {
        return Ok(cli.zero_copy);
    }
    let networked = matches!(input, InputSpec::Listen(_) | InputSpec::Remote(_))
        || outputs
            .iter()
            .any(|o| matches!(o, OutputSpec::Connect(_) | OutputSpec::Remote(_)));
    let why = if !cli.hash.is_empty() {
        "--hash reads every byte"
    } else if cli.pad {
        "--pad writes zeros after the last byte"
    } else if cli.direct {
        "--direct writes with O_DIRECT, which splice(2) cannot"
    } else if manifest.recording().is_some() || manifest.checked().is_some() {
        "a manifest counts and checks every record"
    } else if cli.volume_size.is_some() {
        "-D/--volume-size cuts the stream into volumes"
    } else if networked {
        "-I, -O and HOST:PATH carry the bytes in frames or rmt requests"
    } else {
        return Ok(ZeroCopy::On);
    };
    Err(ConfigError::new(
        "--zero-copy=on",
        format!("{why}, so the bytes must pass through tapebuf"),
    ))
}
