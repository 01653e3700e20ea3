//! Opening the input and the outputs for a run, from its `Config`.

use std::path::PathBuf;
use std::sync::Arc;

use crate::base::errors::OpenError;
use crate::base::file_id::Identity;
use crate::config::{Config, ConfigError, InputSpec};
use crate::error::Error;
use crate::manifest::Ledger;
use crate::sink::{self, Sink};
use crate::source::{self, Source};

/// The opened input and outputs.
pub struct Endpoints {
    pub source: Box<dyn Source>,
    pub sinks: Vec<Box<dyn Sink>>,
    /// Output files this run created.
    pub created: Vec<PathBuf>,
}

impl Endpoints {
    /// The ledgers of the outputs that record what they wrote, for the
    /// manifest and `--verify` at the end.
    pub fn ledgers(&self) -> Vec<Arc<Ledger>> {
        (self.sinks.iter())
            .filter_map(|s| s.traits().ledger)
            .collect()
    }
}

/// Opens the input and the outputs. This may block (a FIFO, a remote
/// shell), so it runs in the startup thread; it reads no data.
pub fn open(config: &Config) -> Result<Endpoints, Error> {
    let source = source::open(&config.input, &config.source).map_err(endpoint_error)?;
    let input_is_tape = source.is_tape();
    let input = match &config.input {
        InputSpec::Stdin => Identity::of_fd(std::io::stdin()),
        InputSpec::File(path) => Identity::of_path(path).ok().flatten(),
        InputSpec::Listen(_) | InputSpec::Remote(_) | InputSpec::Command(_) => None,
    };
    let opened = sink::open_all(&config.outputs, &config.sink, input, input_is_tape)
        .map_err(endpoint_error)?;
    Ok(Endpoints {
        source,
        sinks: opened.sinks,
        created: opened.created,
    })
}

/// A failure at run time, or a refusal (usage status) naming its flag.
fn endpoint_error(e: OpenError) -> Error {
    match e {
        OpenError::Io(e) => Error::Runtime(e),
        OpenError::Refused(e) => Error::Usage(e),
        refusal => Error::Usage(ConfigError::new("-o/--output", refusal.to_string())),
    }
}
