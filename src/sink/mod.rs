//! Where bytes go. A sink takes whole blocks in order; `finish` flushes and
//! closes it: standard output, files, devices and FIFOs, tape drives,
//! files split into volumes, TCP receivers, and remote tapes and files
//! over rmt. `fanout` drives one or several sinks from the writer
//! thread.

mod file;
mod file_volumes;
mod preflight;
mod rmt;
mod rmt_failure;
mod tape;
mod tcp;
mod volumes;

pub use file::{close_reporting, FdSink};
pub use file_volumes::FileMedium;
pub use preflight::Plan;
pub use rmt::RmtSink;
pub use tape::TapeMedium;
pub use tcp::TcpSink;
pub use volumes::{Medium, VolumeChangeFailed, VolumeSettings, VolumeSink, Volumes, WriteMedium};

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use crossbeam_channel::Receiver;

use crate::base::block::BlockRef;
use crate::base::file_id::Identity;
use crate::config::{Config, ConfigError, ExistingFile, OutputSpec};
use crate::rmt::flavor::OpenMode;
use crate::rmt::name::RemoteName;
use crate::tape::cleaning::CleaningWatch;
use crate::tape::{Access, AtEnd, Device, VolumeLog, VolumeNames};

/// A consumer of blocks.
pub trait Sink: Send {
    /// Writes one block completely, or fails.
    fn write_block(&mut self, data: &[u8]) -> io::Result<()>;

    /// Writes one block of the ring, which the sink may keep (a clone of
    /// the reference) after it returns, up to `keeps_blocks` of them; the
    /// writer frees a block only once nothing else holds it. Used when the
    /// sink is the only output. By default, the same as `write_block`.
    fn write_shared(&mut self, block: &BlockRef) -> io::Result<()> {
        self.write_block(block.data())
    }

    /// The most ring blocks `write_shared` may keep. The ring gets this
    /// many blocks beyond `-m`, so the watermarks are not disturbed and
    /// the reader and the writer can never wait on each other for them.
    fn keeps_blocks(&self) -> usize {
        0
    }

    /// For a sink whose writes are acknowledged late (rmt): the bytes
    /// acknowledged so far, which are what it has committed. The writer
    /// counts these instead of the blocks merely handed over, so status
    /// lines and the watchdog never overclaim. None: a block is committed
    /// when `write_block` returns.
    fn acknowledged_bytes(&self) -> Option<u64> {
        None
    }

    /// Flushes (fsync with `--sync`) and closes. Called once, at the end,
    /// when the input ended and every block read was handed over.
    fn finish(&mut self) -> io::Result<()>;

    /// Closes instead of `finish` when the run stopped before the end of
    /// its input (a signal, the watchdog, an input failure), so the stream
    /// is short. A sink whose receiver would take a clean close for a
    /// complete stream (a TCP receiver) must tell it otherwise. By
    /// default the same as `finish`: what was written is kept, and the
    /// run's summary and exit status say the stream is short.
    fn finish_early(&mut self) -> io::Result<()> {
        self.finish()
    }

    /// The name used in messages: a path, `stdout`, a host.
    fn name(&self) -> &str;

    /// Gives the sink the run's stop signal, so that a long wait inside it
    /// (a volume change) ends when the run is stopped.
    fn attach_stop(&mut self, _stop: &Receiver<()>) {}

    /// The bytes on each volume, for a sink that spans volumes.
    fn volumes(&self) -> Option<Arc<VolumeLog>> {
        None
    }

    /// True for a tape drive, which gets the tape defaults.
    fn is_tape(&self) -> bool {
        false
    }
}

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
    config: &Config,
    input: Option<Identity>,
    input_is_tape: bool,
) -> Result<Opened, OpenError> {
    let plans = preflight::check(config, input)?;
    for warning in preflight::rewinding_warnings(config) {
        crate::base::console::say(&warning);
    }
    let mut sinks: Vec<Box<dyn Sink>> = Vec::with_capacity(plans.len());
    let mut created = Vec::new();
    let mut failure = None;
    for (plan, spec) in plans.iter().zip(&config.outputs) {
        let opened = match plan {
            Plan::Remote(remote) => open_remote(remote, config),
            _ => open_one(plan, spec, config).map_err(OpenError::Io),
        };
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
    let any_tape = input_is_tape || sinks.iter().any(|s| s.is_tape());
    if failure.is_none() && config.at_end != AtEnd::Stay && !any_tape {
        let flag = match config.at_end {
            AtEnd::Eject => "--eject",
            _ => "--rewind",
        };
        failure = Some(OpenError::Refused(ConfigError::new(
            flag,
            "neither the input nor any output is a tape drive",
        )));
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

/// Opens a remote tape or file over rmt. A device is opened as it is; a
/// file is created, and an existing one is refused unless `-f` or
/// `--append` says what to do with it, as for a local file.
fn open_remote(remote: &RemoteName, config: &Config) -> Result<Box<dyn Sink>, OpenError> {
    let mode = match (remote.is_device(), config.existing) {
        (true, _) => OpenMode::WriteDevice,
        (false, ExistingFile::Truncate) => OpenMode::Truncate,
        (false, ExistingFile::Append) => OpenMode::Append,
        (false, ExistingFile::Refuse) => OpenMode::Create,
    };
    let settings = config.volume_settings();
    match RmtSink::open(remote, &config.rmt, mode, config.block_bytes, settings) {
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
fn open_one(plan: &Plan, spec: &OutputSpec, config: &Config) -> anyhow::Result<Box<dyn Sink>> {
    let settings = config.volume_settings();
    if let Plan::Connect(peer) = plan {
        let (sink, warning) = TcpSink::connect(
            peer,
            &config.net,
            config.sender_connect_limit(),
            config.block_bytes,
            config.quiet,
        )?;
        if let (Some(w), false) = (warning, config.quiet) {
            crate::base::console::say(&format!("tapebuf: -O {peer}: {w}"));
        }
        return Ok(Box::new(sink));
    }
    if let Plan::AsIs(path) = plan {
        let name = path.display().to_string();
        let device = Device::open_if_tape(path, Access::Write)
            .with_context(|| format!("-o {name}: cannot open the tape drive"))?;
        if let Some(device) = device {
            let watched = CleaningWatch::to_stderr(Box::new(device));
            let medium = TapeMedium::new(Box::new(watched))
                .with_notify(crate::tape::block_mode::notices(config.quiet));
            return Ok(Box::new(VolumeSink::new(Box::new(medium), &name, settings)));
        }
    }
    if let OutputSpec::File(pattern) = spec {
        let names = VolumeNames::parse(pattern).map_err(anyhow::Error::msg)?;
        if config.file_volumes(&names) {
            let name = pattern.display().to_string();
            let medium = FileMedium::open(
                names,
                plan,
                config.existing,
                config.sync,
                config.block_bytes,
            )
            .with_context(|| format!("-o {name}: cannot open volume 1"))?;
            return Ok(Box::new(VolumeSink::new(Box::new(medium), &name, settings)));
        }
    }
    Ok(Box::new(FdSink::open(plan, config)?))
}

/// Why the outputs could not be opened. `Exists` and `Conflict` are
/// refusals the user can fix on the command line; the caller maps them to
/// the usage exit status.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: already exists; use -f/--force to overwrite it or --append to add to it")]
    Exists(String),
    #[error("{0}")]
    Conflict(String),
    /// A flag that does not fit what was found on opening.
    #[error("{0}")]
    Refused(ConfigError),
    #[error("{0:#}")]
    Io(anyhow::Error),
}

/// A failure from a sink whose writes are acknowledged late (rmt), whose
/// message already says what the medium holds; the count itself comes from
/// `Sink::acknowledged_bytes`.
#[derive(Debug, thiserror::Error)]
#[error("{why}")]
pub struct LateFailure {
    pub why: String,
}

impl LateFailure {
    /// The late failure inside `err`, if it is one.
    pub fn within(err: &io::Error) -> Option<&LateFailure> {
        err.get_ref().and_then(|e| e.downcast_ref::<LateFailure>())
    }
}

/// A write that failed after part of the block had gone out, as when a
/// disk fills in the middle of a block. Those bytes are on the medium, so
/// they count as committed: the count stays exact, not merely safe.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PartialWrite {
    pub written_bytes: u64,
    pub source: io::Error,
}

impl PartialWrite {
    /// `err`, marked with the bytes of the block written before it.
    pub fn wrap(written_bytes: usize, err: io::Error) -> io::Error {
        if written_bytes == 0 {
            return err;
        }
        let kind = err.kind();
        let partial = PartialWrite {
            written_bytes: written_bytes as u64,
            source: err,
        };
        io::Error::new(kind, partial)
    }

    /// The bytes of the block written before `err`, and its cause.
    pub fn split(err: &io::Error) -> (u64, &io::Error) {
        match err.get_ref().and_then(|e| e.downcast_ref::<PartialWrite>()) {
            Some(p) => (p.written_bytes, &p.source),
            None => (0, err),
        }
    }
}

/// The message for a failed write, naming the output and the byte offset.
/// A closed pipe downstream is data loss, and says so in plain words.
pub fn describe_write_error(name: &str, offset: u64, err: &io::Error) -> String {
    if let Some(change) = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<VolumeChangeFailed>())
    {
        return format!("{name}: {change}");
    }
    if let Some(late) = LateFailure::within(err) {
        return format!("{name}: {late}");
    }
    if err.kind() == io::ErrorKind::BrokenPipe {
        format!("{name}: output closed after {offset} bytes")
    } else {
        format!("{name}: write failed at byte {offset}: {err}")
    }
}
