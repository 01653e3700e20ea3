//! Opening the input as the right kind of source: a tape drive, input
//! volumes, a TCP sender, a remote tape, or a plain descriptor.

use anyhow::Context;

use super::spec::InputSpec;
use super::{
    FdSource, FileVolumesIn, ReadVolumes, RmtReader, Source, TapeReader, TcpSource, VolumeSource,
};
use crate::base::open_error::OpenError;
use std::sync::Arc;

use crate::manifest::Manifest;
use crate::net::NetSettings;
use crate::rmt::flavor::OpenMode;
use crate::rmt::remote::RemoteFile;
use crate::rmt::session::RmtSettings;
use crate::tape::char_devices::{self, Direction};
use crate::tape::cleaning::CleaningWatch;
use crate::tape::{Access, AtEnd, ChangePolicy, Device, VolumeNames};

/// How the input is opened and read, from the validated command line.
#[derive(Debug, Clone)]
pub struct InputSettings {
    pub block_bytes: usize,
    /// `--any-device`: take any character device (see `tape::char_devices`).
    pub any_device: bool,
    pub quiet: bool,
    /// How a volume change is made.
    pub change: ChangePolicy,
    /// `-n`: read this many input volumes.
    pub volumes: Option<u32>,
    /// What to do with a tape at the end.
    pub at_end: AtEnd,
    pub net: NetSettings,
    pub rmt: RmtSettings,
    /// `--manifest` on a restore: the backup each volume is checked against.
    pub manifest: Option<Arc<Manifest>>,
}

impl InputSettings {
    /// How the input's volumes are read. `numbered`: the input has a
    /// numbered name.
    pub fn read_volumes(&self, numbered: bool) -> ReadVolumes {
        ReadVolumes {
            policy: self.change.clone(),
            count: self.volumes,
            numbered,
            at_end: self.at_end,
        }
    }
}

/// Opens the configured input: a tape drive, input volumes, or a plain
/// descriptor. A character device that is neither a tape drive nor
/// harmless is refused before it is opened, as a usage error
/// (`tape::char_devices`; `--any-device` lets it through).
pub fn open(input: &InputSpec, config: &InputSettings) -> Result<Box<dyn Source>, OpenError> {
    if let InputSpec::Stdin = input {
        char_devices::check_fd(std::io::stdin(), Direction::Input, config.any_device)
            .map_err(OpenError::Refused)?;
    }
    if let InputSpec::File(path) = input {
        char_devices::check_path(path, Direction::Input, config.any_device)
            .map_err(OpenError::Refused)?;
    }
    open_checked(input, config).map_err(OpenError::Io)
}

fn open_checked(input: &InputSpec, config: &InputSettings) -> anyhow::Result<Box<dyn Source>> {
    let path = match input {
        InputSpec::Stdin => return Ok(Box::new(FdSource::stdin(config.block_bytes)?)),
        InputSpec::Listen(addr) => {
            return Ok(Box::new(TcpSource::listen(
                addr,
                &config.net,
                config.quiet,
            )?))
        }
        InputSpec::Remote(remote) => {
            let name = remote.to_string();
            let file = RemoteFile::open(remote, &config.rmt, OpenMode::Read)
                .with_context(|| format!("-i {name}: cannot open it over rmt"))?;
            let reader = RmtReader::new(file, config.block_bytes);
            let plan = config.read_volumes(false);
            return Ok(Box::new(VolumeSource::new(Box::new(reader), &name, plan)));
        }
        InputSpec::File(path) => path,
    };
    let name = path.display().to_string();
    let names = VolumeNames::parse(path).map_err(|why| anyhow::anyhow!("-i {name}: {why}"))?;
    let plan = config.read_volumes(names.is_numbered());
    let device = Device::open_if_tape(path, Access::Read)
        .with_context(|| format!("-i {name}: cannot open the tape drive"))?;
    if let Some(device) = device {
        let watched = CleaningWatch::to_stderr(Box::new(device));
        let medium = TapeReader::new(Box::new(watched))
            .with_notify(crate::tape::block_mode::notices(config.quiet));
        return Ok(Box::new(VolumeSource::new(Box::new(medium), &name, plan)));
    }
    if names.is_numbered() || config.volumes.is_some() {
        let medium = FileVolumesIn::open(names)
            .with_context(|| format!("-i {name}: cannot open volume 1"))?;
        let size = medium.total_size();
        return Ok(Box::new(
            VolumeSource::new(Box::new(medium), &name, plan).with_size(size),
        ));
    }
    Ok(Box::new(FdSource::open(path)?))
}
