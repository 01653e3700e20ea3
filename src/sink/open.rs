//! Opening the outputs: every output is checked first (`preflight`), then
//! each is opened as the right kind of sink. A failed start leaves nothing
//! behind.

use std::path::PathBuf;

use anyhow::Context;

use super::preflight::{self, Plan};
use super::settings::OutputSettings;
use super::spec::{ExistingFile, OutputSpec};
use super::{
    CommandSink, FdSink, FileMedium, OpenError, RmtSink, Sink, TapeMedium, TcpSink, VolumeSink,
};
use crate::base::console::message;
use crate::base::errors::ConfigError;
use crate::base::file_id::Identity;
use crate::endpoint::library::Load;
use crate::manifest::Ledger;
use crate::rmt::flavor::OpenMode;
use crate::rmt::name::RemoteName;
use crate::tape::{Access, AtEnd};
use crate::volume::VolumeNames;

/// The opened outputs, and the files that opening them created.
pub struct Opened {
    pub sinks: Vec<Box<dyn Sink>>,
    /// Files that did not exist before: a run that fails before its first
    /// byte removes them again while they are still empty.
    pub created: Vec<PathBuf>,
}

/// Opens every configured output, in order, after checking them all
/// (see `preflight`). If one cannot be opened, or the command line turns
/// out not to fit what was found (`--eject` with no tape), the files this
/// call created are removed again, so a failed start leaves nothing behind.
pub fn open_all(
    outputs: &[OutputSpec],
    config: &OutputSettings,
    input: Option<Identity>,
    input_is_tape: bool,
) -> Result<Opened, OpenError> {
    let plans = preflight::check(outputs, config, input)?;
    for warning in preflight::rewinding_warnings(outputs, config.endpoint.at_end) {
        crate::base::console::say(&warning);
    }
    let mut sinks: Vec<Box<dyn Sink>> = Vec::with_capacity(plans.len());
    let mut created = Vec::new();
    let mut failure = None;
    for (plan, spec) in plans.iter().zip(outputs) {
        let opened = match plan {
            Plan::Remote(remote) => open_remote(remote, config),
            _ => open_one(plan, spec, config).map_err(OpenError::Io),
        };
        let opened = opened.and_then(|sink| recordable(sink, spec, config));
        match opened {
            Ok(sink) => {
                if let Plan::Create(path) = plan {
                    created.push(path.clone());
                }
                sinks.push(sink);
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if let (None, Some(library)) = (&failure, &config.endpoint.library) {
        if let Some(why) = library.unused_pools() {
            failure = Some(OpenError::Refused(ConfigError::new("--slots", why)));
        }
    }
    let any_tape = input_is_tape || sinks.iter().any(|s| s.traits().is_tape());
    if failure.is_none() && config.endpoint.library.is_some() && !any_tape {
        failure = Some(OpenError::Refused(ConfigError::new(
            "--changer",
            "neither the input nor any output is a tape drive",
        )));
    }
    if failure.is_none() && config.endpoint.at_end != AtEnd::Stay && !any_tape {
        let flag = match config.endpoint.at_end {
            AtEnd::Eject => "--eject",
            _ => "--rewind",
        };
        failure = Some(OpenError::Refused(ConfigError::new(
            flag,
            "neither the input nor any output is a tape drive",
        )));
    }
    if failure.is_none() && config.endpoint.guards.keys.key.is_some() {
        failure = unencrypted_output(&plans, outputs, &sinks, input_is_tape).err();
    }
    match failure {
        None => Ok(Opened { sinks, created }),
        Some(e) => {
            drop(sinks);
            for path in created {
                let _ = std::fs::remove_file(path);
            }
            Err(e)
        }
    }
}

/// With `--encrypt-key`: refused when a tape drive is written and another
/// output would hold the same backup unencrypted (a file, a pipe, a peer,
/// a remote tape, whose rmt cannot set a drive's key), or when no tape
/// is read or written at all.
fn unencrypted_output(
    plans: &[Plan],
    outputs: &[OutputSpec],
    sinks: &[Box<dyn Sink>],
    input_is_tape: bool,
) -> Result<(), OpenError> {
    let refuse = |why: String| Err(OpenError::Refused(ConfigError::new("--encrypt-key", why)));
    let local_tape =
        |plan: &Plan, sink: &dyn Sink| !matches!(plan, Plan::Remote(_)) && sink.traits().is_tape();
    let writes_tape = (plans.iter().zip(sinks)).any(|(p, s)| local_tape(p, s.as_ref()));
    if !writes_tape && !input_is_tape {
        return refuse("neither the input nor any output is a local tape drive".into());
    }
    if !writes_tape {
        return Ok(());
    }
    for ((plan, sink), spec) in plans.iter().zip(sinks).zip(outputs) {
        if local_tape(plan, sink.as_ref()) {
            continue;
        }
        let why = match plan {
            Plan::Remote(_) => "is a remote tape, whose rmt cannot set the drive's key",
            _ => "is not a tape drive",
        };
        return refuse(format!(
            "{} {why}: it would hold the backup unencrypted; only a local drive encrypts",
            spec.display_name()
        ));
    }
    Ok(())
}

/// Opens a remote tape or file over rmt. A device is opened as it is; a
/// file is created, and an existing one is refused unless `-f` or
/// `--append` says what to do with it, as for a local file. With
/// `--manifest` it records its volumes, and with `--verify` it is opened
/// read-write to read each back.
fn open_remote(remote: &RemoteName, config: &OutputSettings) -> Result<Box<dyn Sink>, OpenError> {
    let mode = match (remote.is_device(), config.existing) {
        (true, _) => OpenMode::WriteDevice,
        (false, ExistingFile::Truncate) => OpenMode::Truncate,
        (false, ExistingFile::Append) => OpenMode::Append,
        (false, ExistingFile::Refuse) => OpenMode::Create,
    };
    let recording = config.recording;
    let settings = config.volumes();
    match RmtSink::open(
        remote,
        &config.endpoint.rmt,
        mode,
        config.endpoint.block_bytes,
        settings,
        recording,
    ) {
        Ok(sink) => Ok(Box::new(sink)),
        Err(e) if mode == OpenMode::Create && e.errno() == Some(libc::EEXIST) => {
            Err(OpenError::Exists(remote.to_string()))
        }
        Err(e) => Err(OpenError::Io(
            anyhow::Error::new(e).context(format!("-o {remote}: cannot open it over rmt")),
        )),
    }
}

/// Opens one output as the right kind of sink: a tape drive, files that
/// span volumes, or a plain descriptor.
fn open_one(
    plan: &Plan,
    spec: &OutputSpec,
    config: &OutputSettings,
) -> anyhow::Result<Box<dyn Sink>> {
    let settings = config.volumes();
    if let Plan::Command(cmd) = plan {
        let wait = config.net.stall.unwrap_or(crate::base::child::EXIT_WAIT);
        return Ok(Box::new(CommandSink::start(cmd, wait)?));
    }
    if let Plan::Connect(peer) = plan {
        let (sink, warning) = TcpSink::connect(
            peer,
            &config.net,
            config.net.connect_limit(),
            config.endpoint.block_bytes,
            config.endpoint.quiet,
        )?;
        if let (Some(w), false) = (warning, config.endpoint.quiet) {
            crate::base::console::say(&message!("-O {peer}: {w}"));
        }
        return Ok(Box::new(sink));
    }
    if let Plan::AsIs(path) = plan {
        if let Some(sink) = open_tape(path, config)? {
            return Ok(Box::new(sink));
        }
    }
    if let OutputSpec::File(pattern) = spec {
        let names = VolumeNames::parse(pattern).map_err(anyhow::Error::msg)?;
        let recorded_file = config.recording.is_some() && !matches!(plan, Plan::AsIs(_));
        if config.volumes().spans_files(&names) || recorded_file {
            let name = pattern.display().to_string();
            // A manifest names its files absolutely, so that it can be
            // checked from any directory weeks later.
            let (names, recorded_name) = match config.recording {
                Some(_) => {
                    let absolute = std::path::absolute(pattern)?;
                    let names = VolumeNames::parse(&absolute).map_err(anyhow::Error::msg)?;
                    (names, absolute.display().to_string())
                }
                None => (names, name.clone()),
            };
            let medium = FileMedium::open(
                names,
                plan,
                config.existing,
                config.sync,
                config.endpoint.block_bytes,
            )
            .with_context(|| format!("-o {name}: cannot open volume 1"))?
            .apart_from(config.input_volumes.clone());
            let sink = VolumeSink::new(Box::new(medium), &name, settings);
            return Ok(Box::new(recorded(sink, &recorded_name, config)));
        }
    }
    Ok(Box::new(FdSink::open(plan, config)?))
}

/// Opens the tape drive `path` for writing, its volumes changed by the
/// tape library when `--changer` serves it; None when `path` is not a
/// tape drive.
fn open_tape(
    path: &std::path::Path,
    config: &OutputSettings,
) -> anyhow::Result<Option<VolumeSink>> {
    let name = path.display().to_string();
    let mut settings = config.volumes();
    let library = match &config.endpoint.library {
        Some(library) => library
            .policy_for(
                path,
                &settings.policy,
                Load::Write,
                Access::Write,
                config.endpoint.quiet,
            )
            .map_err(anyhow::Error::msg)?,
        None => None,
    };
    if let Some(policy) = &library {
        settings.policy = policy.clone();
    }
    let Some(tape) = TapeMedium::open(
        path,
        &settings.policy,
        &config.endpoint.guards,
        config.endpoint.quiet,
    )
    .with_context(|| format!("-o {name}: cannot open the tape drive"))?
    else {
        return Ok(None);
    };
    let health = tape.health.clone();
    let sink = recorded(
        VolumeSink::new(Box::new(tape), &name, settings),
        &name,
        config,
    );
    if let Some(health) = health {
        if let Some(log) = sink.traits().volumes {
            log.attach_health(health.clone());
        }
        if let Some(ledger) = sink.traits().ledger {
            ledger.attach_health(health);
        }
    }
    if let Some(loader) = library.and_then(|p| p.loader) {
        if let Some(log) = sink.traits().volumes {
            log.attach_loader(std::sync::Arc::new(loader.clone()));
        }
        if let Some(ledger) = sink.traits().ledger {
            ledger.attach_loader(loader);
        }
    }
    Ok(Some(sink))
}

/// The sink, recording its volumes when `--manifest` or `--verify` asks.
fn recorded(sink: VolumeSink, name: &str, config: &OutputSettings) -> VolumeSink {
    match config.recording {
        Some(recording) => {
            sink.with_ledger(Ledger::new(recording, config.endpoint.block_bytes, name))
        }
        None => sink,
    }
}

/// Refuses an output that `--manifest` or `--verify` cannot record: one
/// that is not a tape, a file or an rmt target (standard output, a pipe,
/// a TCP peer). One that records gets the `--catalog` tap.
fn recordable(
    sink: Box<dyn Sink>,
    spec: &OutputSpec,
    config: &OutputSettings,
) -> Result<Box<dyn Sink>, OpenError> {
    let Some(recording) = config.recording else {
        return Ok(sink);
    };
    if let Some(ledger) = sink.traits().ledger {
        if let Some(catalog) = &config.catalog {
            ledger.attach_catalog(catalog);
        }
        return Ok(sink);
    }
    let flag = if recording.verify {
        "--verify"
    } else {
        "--manifest"
    };
    Err(OpenError::Refused(ConfigError::new(
        flag,
        format!(
            "{}: is not a tape, a regular file or an rmt target, so its volumes cannot be {}",
            spec_name(spec, sink.name()),
            if recording.verify {
                "read back"
            } else {
                "recorded"
            }
        ),
    )))
}

/// How the command line named an output.
fn spec_name(spec: &OutputSpec, name: &str) -> String {
    match spec {
        OutputSpec::Connect(_) => format!("-O {name}"),
        _ => format!("-o {name}"),
    }
}
