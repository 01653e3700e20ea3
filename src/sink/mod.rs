//! Where bytes go. A sink takes whole blocks in order; `finish` flushes and
//! closes it. Today: standard output, files, devices and FIFOs; tcp, tape
//! and rmt sinks plug in behind the same trait. `fanout` drives one or
//! several sinks from the writer thread.

mod fanout;
mod file;

pub use fanout::Outputs;
pub use file::FdSink;

use std::io;

use crate::config::{Config, OutputSpec};

/// A consumer of blocks.
pub trait Sink: Send {
    /// Writes one block completely, or fails.
    fn write_block(&mut self, data: &[u8]) -> io::Result<()>;

    /// Flushes (fsync with `--sync`) and closes. Called once, at the end.
    fn finish(&mut self) -> io::Result<()>;

    /// The name used in messages: a path, `stdout`, a host.
    fn name(&self) -> &str;
}

/// Opens every configured output, in order. The first failure stops the
/// run before any data moves.
pub fn open_all(config: &Config) -> Result<Vec<Box<dyn Sink>>, OpenError> {
    config
        .outputs
        .iter()
        .map(|spec| -> Result<Box<dyn Sink>, OpenError> {
            match spec {
                OutputSpec::Stdout => {
                    Ok(Box::new(FdSink::stdout(config.sync, config.block_bytes)?))
                }
                OutputSpec::File(path) => Ok(Box::new(FdSink::open(path, config)?)),
            }
        })
        .collect()
}

/// Why an output could not be opened. `Exists` is a refusal the user can
/// fix on the command line; the caller maps it to the usage exit status.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: already exists; use -f/--force to overwrite it or --append to add to it")]
    Exists(String),
    #[error("{0:#}")]
    Io(#[from] anyhow::Error),
}

/// The message for a failed write, naming the output and the byte offset.
/// A closed pipe downstream is data loss, and says so in plain words.
pub fn describe_write_error(name: &str, offset: u64, err: &io::Error) -> String {
    if err.kind() == io::ErrorKind::BrokenPipe {
        format!("{name}: output closed after {offset} bytes")
    } else {
        format!("{name}: write failed at byte {offset}: {err}")
    }
}
