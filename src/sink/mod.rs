//! Where bytes go. A sink takes whole blocks in order; `finish` flushes and
//! closes it. Today: standard output, files, devices and FIFOs; tcp, tape
//! and rmt sinks plug in behind the same trait. `fanout` drives one or
//! several sinks from the writer thread.

mod fanout;
mod file;
mod preflight;

pub use fanout::Outputs;
pub use file::FdSink;
pub use preflight::Plan;

use std::io;

use crate::config::Config;
use crate::file_id::Identity;

/// A consumer of blocks.
pub trait Sink: Send {
    /// Writes one block completely, or fails.
    fn write_block(&mut self, data: &[u8]) -> io::Result<()>;

    /// Flushes (fsync with `--sync`) and closes. Called once, at the end.
    fn finish(&mut self) -> io::Result<()>;

    /// The name used in messages: a path, `stdout`, a host.
    fn name(&self) -> &str;
}

/// Opens every configured output, in order, after checking them all
/// (see `preflight`). If one cannot be opened, the files this call created
/// are removed again, so a failed start leaves nothing behind.
pub fn open_all(config: &Config, input: Option<Identity>) -> Result<Vec<Box<dyn Sink>>, OpenError> {
    let plans = preflight::check(config, input)?;
    let mut sinks: Vec<Box<dyn Sink>> = Vec::with_capacity(plans.len());
    let mut created = Vec::new();
    for plan in &plans {
        match FdSink::open(plan, config) {
            Ok(sink) => {
                if let Plan::Create(path) = plan {
                    created.push(path.clone());
                }
                sinks.push(Box::new(sink));
            }
            Err(e) => {
                drop(sinks);
                for path in created {
                    let _ = std::fs::remove_file(path);
                }
                return Err(OpenError::Io(e));
            }
        }
    }
    Ok(sinks)
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
    #[error("{0:#}")]
    Io(anyhow::Error),
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
