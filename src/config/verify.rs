//! `tapebuf verify`'s command line, checked: its input flags mean what
//! they mean to a restore of the same input to standard output, so they go
//! through the same checks as the buffer's, in the same order and with the
//! same words, and come out as the same `InputSettings`.

use std::sync::Arc;

use super::from_cli::{at_end, input_spec};
use super::library_flags::check_library;
use super::net_flags::restore_net;
use super::ring_size::{resolve_ring, RingFlags};
use super::rmt_flags::{self, check_remote_arguments, RmtFlags};
use super::volume_flags::{change_policy, check_input_name};
use super::{manifest_flags, written_paths, MachineInfo, ManifestPlan};
use crate::base::errors::ConfigError;
use crate::base::path_registry::{need_regular, Role};
use crate::cli::verify::VerifyCli;
use crate::endpoint::EndpointSettings;
use crate::manifest::Manifest;
use crate::net::NetSettings;
use crate::sink::spec::OutputSpec;
use crate::source::spec::InputSpec;
use crate::source::InputSettings;
use crate::volume::VolumeNames;

/// The input `tapebuf verify` reads, and how, checked against this
/// machine; `manifest` is the one it was given, read already. The block
/// size is `-s`, else the backup's.
pub fn verify_input(
    cli: &VerifyCli,
    manifest: &Arc<Manifest>,
    machine: MachineInfo,
) -> Result<(InputSpec, InputSettings), ConfigError> {
    let block_size = cli
        .block_size
        .clone()
        .unwrap_or_else(|| manifest.block_bytes.to_string());
    let ring = RingFlags {
        block_size: Some(&block_size),
        memory: None,
        blocks: None,
    };
    let (block_bytes, blocks) = resolve_ring(ring, machine)?;
    let input = input_spec(Some(&cli.input(manifest)), None, &cli.remote)?;
    let outputs = [OutputSpec::Stdout];
    let remote = matches!(input, InputSpec::Remote(_));
    let flags = RmtFlags {
        remote: &cli.remote,
        window: None,
        timeout: cli.timeout,
    };
    let env = |var: &str| std::env::var(var).ok();
    let rmt = rmt_flags::resolve(flags, remote, block_bytes, env)?;
    check_remote_arguments(&rmt, &input, &outputs)?;
    // A FIFO as -i waits for its writer at most --timeout (verify::fifo_wait).
    let fifo = matches!(&input, InputSpec::File(p)
        if std::fs::metadata(p).is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_fifo(&m.file_type())));
    let net = restore_net(cli.timeout, remote || fifo)?;
    check_input_name(&input)?;
    volumes_regular(&input)?;
    let change = change_policy(cli.change_command.as_deref(), cli.change_timeout)?;
    // The manifest is only read: it may be any file, even the input
    // (which is then the wrong volume, said as such).
    manifest_flags::check_verified(&cli.manifest, &input)?;
    let plan = ManifestPlan::Check {
        path: cli.manifest.clone(),
        manifest: Arc::clone(manifest),
    };
    // The key file is read first: one that is no key, or that others may
    // read, is refused before any path is compared with it.
    let guards = cli.tape.guards()?;
    written_paths::check(&input, &outputs, &plan, &[], &cli.tape.key_files())?;
    let settings = InputSettings {
        endpoint: EndpointSettings {
            block_bytes: block_bytes as usize,
            any_device: false,
            quiet: cli.quiet,
            rmt,
            change,
            at_end: at_end(cli.rewind, cli.eject),
            library: check_library(&cli.library, cli.change_command.is_some())?,
            guards,
        },
        volumes: None,
        net: NetSettings {
            sender_block_limit_bytes: Some(block_bytes * blocks),
            ..net
        },
        manifest: plan.checked().cloned(),
    };
    Ok((input, settings))
}

/// Each numbered volume there must be a regular file: a FIFO in its
/// place is refused by `stat`, not opened and waited on for ever.
fn volumes_regular(input: &InputSpec) -> Result<(), ConfigError> {
    let InputSpec::File(path) = input else {
        return Ok(());
    };
    let Some(names) = VolumeNames::parse(path)
        .ok()
        .filter(VolumeNames::is_numbered)
    else {
        return Ok(());
    };
    for (n, volume) in names.existing() {
        let what = format!("volume {n} of -i {} ({})", path.display(), volume.display());
        need_regular(&what, &volume, Role::Read)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
