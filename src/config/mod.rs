//! From what the user typed (`Cli`) to what the program uses (`Config`).
//!
//! Every cross-flag check and every default lives here, so the rest of the
//! program can trust its `Config`: the ring has at least two blocks, a block
//! is never larger than the memory, watermarks are percentages, and
//! `--direct` only comes with aligned blocks. Each error names the flags.
//!
//! A `Config` is made of the settings each layer is handed: the source's
//! `InputSettings`, the sinks' `OutputSettings`, the engine's `Params`,
//! the observers' `ObserveSettings`; only what the run itself uses (the
//! digests, the manifest, the watchdog) is a field of its own. Each
//! setting is a field in one of them, filled once by `from_cli`.
//! `tapebuf verify` checks its input with the same code (`verify.rs`).

use std::path::PathBuf;
use std::time::Duration;

use crate::hash::HashAlg;
use crate::observe::settings::ObserveSettings;
use crate::pipeline::Params;
use crate::sink::OutputSettings;
use crate::source::InputSettings;

mod catalog_flag;
mod commands;
mod from_cli;
mod key_flags;
mod library_flags;
mod manifest_flags;
pub mod mbuffer_flags;
mod net_flags;
mod observe_flags;
mod ring_size;
pub mod rmt_flags;
mod scalar_flags;
pub mod serve_flags;
#[cfg(test)]
mod tests;
pub mod verify;
mod volume_flags;
mod written_paths;

pub use crate::base::errors::ConfigError;
pub use crate::sink::spec::{ExistingFile, OutputSpec};
pub use crate::source::spec::InputSpec;

pub use library_flags::check_library;
pub use manifest_flags::ManifestPlan;
pub use ring_size::{
    MachineInfo, DEFAULT_BLOCK_BYTES, DEFAULT_MEMORY_BYTES, MAX_BLOCKS, MIN_BLOCKS, MIN_BLOCK_BYTES,
};
pub use serve_flags::{Scope, ServePlan};
pub use volume_flags::change_policy;

/// The validated settings of one run.
#[derive(Debug, Clone)]
pub struct Config {
    /// `-i` or `-I`: where the bytes come from.
    pub input: InputSpec,
    /// `-o` and `-O`: where they go (standard output when none is named).
    pub outputs: Vec<OutputSpec>,
    /// How the input is opened and read.
    pub source: InputSettings,
    /// How the outputs are opened and written.
    pub sink: OutputSettings,
    /// The ring, the watermarks, the rates, pacing and zero copy.
    pub pipeline: Params,
    /// The progress bar, status records, stats file, summary, `-q`, `-v`.
    pub observe: ObserveSettings,
    /// `--manifest` and `--verify`.
    pub manifest: ManifestPlan,
    /// `--hash`: digests to compute, each once, in the order given.
    pub hashes: Vec<HashAlg>,
    /// `--hash-file`: where to write them too.
    pub hash_file: Option<PathBuf>,
    /// mbuffer's `-H`/`--md5`: print the MD5 as mbuffer does, `MD5 hash:
    /// <hex>`, for scripts that read that line.
    pub md5_as_mbuffer: bool,
    /// `-W`: end the run if nothing moves for this long.
    pub watchdog: Option<Duration>,
    /// mbuffer's `--pid`: say the process id at the start.
    pub print_pid: bool,
    /// `--senders`: one -I port serving many senders, each stream to its
    /// own files; None for a lone run.
    pub serve: Option<ServePlan>,
}

impl Config {
    /// `-q`: nothing but errors (and the summary of a run that lost data).
    /// One setting, held where the endpoints get it.
    pub fn quiet(&self) -> bool {
        self.sink.endpoint.quiet
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
}
