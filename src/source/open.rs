//! Opening the input as the right kind of source: a tape drive, input
//! volumes, a TCP sender, a remote tape, or a plain descriptor.

use anyhow::Context;

use super::spec::InputSpec;
use super::{
    checked_source, Check, CommandSource, FdSource, FileVolumesIn, ReadVolumes, Report, RmtReader,
    Source, TapeReader, TcpSource, EXIT_WAIT,
};
use crate::base::console::{message, say};
use crate::base::errors::OpenError;
use std::sync::Arc;

use crate::endpoint::library::Load;
use crate::endpoint::EndpointSettings;
use crate::manifest::Manifest;
use crate::net::NetSettings;
use crate::rmt::flavor::OpenMode;
use crate::rmt::remote::RemoteFile;
use crate::tape::drive::char_devices::{self, Direction};
use crate::tape::Access;
use crate::volume::{ChangePolicy, VolumeNames};

/// How the input is opened and read, from the validated command line.
#[derive(Debug, Clone)]
pub struct InputSettings {
    /// What the input shares with the outputs.
    pub endpoint: EndpointSettings,
    /// `-n`: read this many input volumes.
    pub volumes: Option<u32>,
    pub net: NetSettings,
    /// `--manifest` on a restore: the backup each volume is checked against.
    pub manifest: Option<Arc<Manifest>>,
}

impl InputSettings {
    /// How the input's volumes are read. `numbered`: the input has a
    /// numbered name.
    pub fn read_volumes(&self, numbered: bool) -> ReadVolumes {
        ReadVolumes {
            policy: self.endpoint.change.clone(),
            count: self.volumes,
            numbered,
            at_end: self.endpoint.at_end,
        }
    }
}

/// Opens the configured input: a tape drive, input volumes, or a plain
/// descriptor. A character device that is neither a tape drive nor
/// harmless is refused before it is opened, as a usage error
/// (`tape::char_devices`; `--any-device` lets it through). With
/// `--manifest` (a restore), every volume is checked against it.
pub fn open(input: &InputSpec, config: &InputSettings) -> Result<Box<dyn Source>, OpenError> {
    let check = config.manifest.as_ref().map(|manifest| {
        say_about(manifest, config.volumes);
        Check {
            manifest: Arc::clone(manifest),
            block_bytes: config.endpoint.block_bytes,
            report: None,
        }
    });
    open_with(input, config, check)
}

/// Opens the input of `tapebuf verify`: every volume is checked against
/// `manifest` and its result told to `report`; a volume refused for what
/// it is, when volumes are put in by a person or a command, is asked for
/// again.
pub fn open_verified(
    input: &InputSpec,
    config: &InputSettings,
    manifest: Arc<Manifest>,
    report: Report,
) -> Result<Box<dyn Source>, OpenError> {
    let check = Check {
        manifest,
        block_bytes: config.endpoint.block_bytes,
        report: Some(report),
    };
    open_with(input, config, Some(check))
}

/// What a restore says once about the manifest: a backup that did not
/// end cleanly, and a `-n` the manifest overrides.
fn say_about(manifest: &Manifest, volumes: Option<u32>) {
    let listed = manifest.volumes.len();
    if !manifest.clean {
        let why = manifest
            .unclean_because
            .as_deref()
            .unwrap_or("no reason recorded");
        say(&message!(
            "--manifest: the backup it describes did not end cleanly ({why}); the {} bytes it committed are checked",
            manifest.stream.bytes
        ));
    }
    if let Some(n) = volumes.filter(|&n| n as usize != listed) {
        say(&message!(
            "-n {n}: the manifest lists {listed} volumes; reading {listed}"
        ));
    }
}

fn open_with(
    input: &InputSpec,
    config: &InputSettings,
    check: Option<Check>,
) -> Result<Box<dyn Source>, OpenError> {
    if let InputSpec::Stdin = input {
        char_devices::check_fd(
            std::io::stdin(),
            Direction::Input,
            config.endpoint.any_device,
        )
        .map_err(OpenError::Refused)?;
    }
    if let InputSpec::File(path) = input {
        char_devices::check_path(path, Direction::Input, config.endpoint.any_device)
            .map_err(OpenError::Refused)?;
    }
    open_checked(input, config, check).map_err(OpenError::Io)
}

fn open_checked(
    input: &InputSpec,
    config: &InputSettings,
    check: Option<Check>,
) -> anyhow::Result<Box<dyn Source>> {
    let path = match input {
        InputSpec::File(path) => path,
        InputSpec::Remote(remote) => {
            let name = remote.to_string();
            let file = RemoteFile::open(remote, &config.endpoint.rmt, OpenMode::Read)
                .with_context(|| format!("-i {name}: cannot open it over rmt"))?;
            let reader = RmtReader::new(file, config.endpoint.block_bytes);
            let plan = config.read_volumes(false);
            return Ok(Box::new(checked_source(
                Box::new(reader),
                &name,
                plan,
                check,
            )));
        }
        _ if check.is_some() => {
            anyhow::bail!("only a tape, a file or an rmt name can be checked against a manifest")
        }
        InputSpec::Stdin => return Ok(Box::new(FdSource::stdin(config.endpoint.block_bytes)?)),
        InputSpec::Command(spec) => {
            return Ok(Box::new(CommandSource::new(
                spec.clone(),
                config.endpoint.block_bytes,
                config.net.stall.unwrap_or(EXIT_WAIT),
            )))
        }
        InputSpec::Listen(addr) => {
            return Ok(Box::new(TcpSource::listen(
                addr,
                &config.net,
                config.endpoint.quiet,
            )?))
        }
    };
    let name = path.display().to_string();
    let names = VolumeNames::parse(path).map_err(|why| anyhow::anyhow!("-i {name}: {why}"))?;
    let mut plan = config.read_volumes(names.is_numbered());
    let loader = library_policy(path, config, check.as_ref())?;
    if let Some(policy) = &loader {
        plan.policy = policy.clone();
    }
    let tape = TapeReader::open(
        path,
        &plan.policy,
        &config.endpoint.guards,
        config.endpoint.quiet,
    )
    .with_context(|| format!("-i {name}: cannot open the tape drive"))?;
    if let Some(tape) = tape {
        let health = tape.health.clone();
        let source = checked_source(Box::new(tape), &name, plan, check);
        if let (Some(log), Some(health)) = (source.volumes(), health) {
            log.attach_health(health);
        }
        if let (Some(log), Some(loader)) = (source.volumes(), loader.and_then(|p| p.loader)) {
            log.attach_loader(std::sync::Arc::new(loader));
        }
        return Ok(Box::new(source));
    }
    let trailed = !names.is_numbered() && FileVolumesIn::has_trailer(path);
    if names.is_numbered() || config.volumes.is_some() || check.is_some() || trailed {
        let medium = FileVolumesIn::open(names)
            .with_context(|| format!("-i {name}: cannot open volume 1"))?;
        let size = medium.total_size();
        let source = checked_source(Box::new(medium), &name, plan, check);
        return Ok(Box::new(match size {
            Some(_) if source.size_hint().is_none() => source.with_size(size),
            _ => source,
        }));
    }
    Ok(Box::new(FdSource::open(path)?))
}

/// With `--changer`, the change policy of the tape input `path`: its
/// loader fetches each volume by the barcode the manifest recorded, or
/// else takes the pool in order. None when there is no library or `path`
/// is not a tape drive.
fn library_policy(
    path: &std::path::Path,
    config: &InputSettings,
    check: Option<&Check>,
) -> anyhow::Result<Option<ChangePolicy>> {
    let Some(library) = &config.endpoint.library else {
        return Ok(None);
    };
    let barcodes: Option<Vec<String>> = check.and_then(|c| {
        let mut volumes: Vec<_> = c.manifest.volumes.iter().collect();
        volumes.sort_by_key(|v| v.number);
        volumes.iter().map(|v| v.barcode.clone()).collect()
    });
    let load = match barcodes {
        Some(barcodes) if !barcodes.is_empty() => Load::Barcodes(barcodes),
        _ if !library.pools.is_empty() => Load::Read,
        _ if check.is_some() => anyhow::bail!(
            "-i {}: --changer: the manifest names no barcode for some volume (it was not written through --changer); give the cartridges with --slots or --barcodes",
            path.display()
        ),
        _ => Load::Read,
    };
    library
        .policy_for(
            path,
            &config.endpoint.change,
            load,
            Access::Read,
            config.endpoint.quiet,
        )
        .map_err(anyhow::Error::msg)
}
