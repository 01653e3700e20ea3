//! From what the user typed (`Cli`) to what the program uses (`Config`).
//!
//! Every cross-flag check and every default lives here, so the rest of the
//! program can trust its `Config`: the ring has at least two blocks, a block
//! is never larger than the memory, watermarks are percentages, and
//! `--direct` only comes with aligned blocks. Each error names the flags.

use std::path::PathBuf;

use crate::hash::HashAlg;
use crate::net::NetSettings;
use crate::observe::settings::ObserveSettings;
use crate::pace::{PaceRequest, PaceSettings};
use crate::pipeline::watermark::TAPE_HIGH_WATERMARK_PCT;
use crate::rmt::session::RmtSettings;
use crate::sink::{OutputSettings, VolumeSettings};
use crate::source::InputSettings;
use crate::tape::{AtEnd, ChangePolicy};

mod from_cli;
mod manifest_flags;
pub mod mbuffer_flags;
mod net_flags;
mod observe_flags;
mod ring_size;
pub mod rmt_flags;
#[cfg(test)]
mod tests;
mod values;
mod volume_flags;
mod written_paths;

pub use crate::base::config_error::ConfigError;
pub use crate::sink::spec::{ExistingFile, OutputSpec};
pub use crate::source::spec::InputSpec;

pub use manifest_flags::ManifestPlan;
pub use ring_size::{
    MachineInfo, DEFAULT_BLOCK_BYTES, DEFAULT_MEMORY_BYTES, MAX_BLOCKS, MIN_BLOCKS, MIN_BLOCK_BYTES,
};

/// The validated settings of one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub input: InputSpec,
    pub outputs: Vec<OutputSpec>,
    pub block_bytes: usize,
    pub blocks: usize,
    /// Writer restarts after an underrun once the ring is this full. `None`
    /// until the outputs are open: then a tape output makes it 90, anything
    /// else 0 (see `high_pct_for`).
    pub high_pct: Option<u8>,
    /// Reader restarts after an overrun once the ring has drained to this.
    pub low_pct: u8,
    pub lock_memory: bool,
    pub existing: ExistingFile,
    /// `--any-device`: take any character device, not only tape drives
    /// and harmless ones (see `tape::char_devices`).
    pub any_device: bool,
    pub sync: bool,
    pub direct: bool,
    pub input_rate_bytes_per_s: Option<u64>,
    pub output_rate_bytes_per_s: Option<u64>,
    /// `--pace` / `--no-pace`, resolved against the outputs at start.
    pub pace: PaceRequest,
    /// End the run if nothing moves for this long.
    pub watchdog: Option<std::time::Duration>,
    pub quiet: bool,
    /// `-v`/`--verbose` (mbuffer's levels 4 to 6): a line at the start
    /// describing the ring and the endpoints, and every detail in the
    /// summary line.
    pub verbose: bool,
    /// mbuffer's `--pid`: say the process id at the start.
    pub print_pid: bool,
    /// mbuffer's `-H`/`--md5`: print the MD5 as mbuffer does, `MD5 hash:
    /// <hex>`, for scripts that read that line.
    pub md5_as_mbuffer: bool,
    /// Zero-fill the final short block to a whole block.
    pub pad: bool,
    /// What to do with a tape at the end.
    pub at_end: AtEnd,
    pub change: ChangePolicy,
    /// End each output volume after this many bytes.
    pub volume_size: Option<u64>,
    /// `-n`: read this many input volumes.
    pub input_volumes: Option<u32>,
    /// Timeouts, buffers, framing and access for `-I` and `-O`.
    pub net: NetSettings,
    /// `--hash`: digests to compute, each once, in the order given.
    pub hashes: Vec<HashAlg>,
    /// `--hash-file`: where to write them too.
    pub hash_file: Option<PathBuf>,
    /// How remote tapes are reached (`HOST:PATH`).
    pub rmt: RmtSettings,
    /// The progress bar, status records, stats file and JSON summary.
    pub observe: ObserveSettings,
    /// `--manifest` and `--verify`.
    pub manifest: ManifestPlan,
    /// `--zero-copy`: whether the ring may, or must, be kernel pipes.
    pub zero_copy: crate::pipeline::ZeroCopy,
}

impl Config {
    /// Total ring memory in bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.block_bytes as u64 * self.blocks as u64
    }

    /// The high watermark once it is known whether an output is a tape.
    /// A paced run restarts as a tape does, whatever its outputs.
    pub fn high_pct_for(&self, output_is_tape: bool) -> u8 {
        let paced = self.pace_for(output_is_tape).is_some();
        match (self.high_pct, output_is_tape || paced) {
            (Some(p), _) => p,
            (None, true) => TAPE_HIGH_WATERMARK_PCT,
            (None, false) => 0,
        }
    }

    /// The pacing range in force once it is known whether an output is a
    /// tape, capped by `-R`.
    pub fn pace_for(&self, output_is_tape: bool) -> Option<PaceSettings> {
        self.pace
            .resolve(output_is_tape, self.output_rate_bytes_per_s)
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

    /// How the input is opened and read.
    pub fn input_settings(&self) -> InputSettings {
        InputSettings {
            block_bytes: self.block_bytes,
            any_device: self.any_device,
            quiet: self.quiet,
            change: self.change.clone(),
            volumes: self.input_volumes,
            at_end: self.at_end,
            net: NetSettings {
                sender_block_limit_bytes: Some(self.memory_bytes()),
                ..self.net.clone()
            },
            rmt: self.rmt.clone(),
            manifest: self.manifest.checked().cloned(),
        }
    }

    /// How the outputs are opened and written.
    pub fn output_settings(&self) -> OutputSettings {
        OutputSettings {
            block_bytes: self.block_bytes,
            existing: self.existing,
            any_device: self.any_device,
            sync: self.sync,
            direct: self.direct,
            quiet: self.quiet,
            volumes: VolumeSettings {
                policy: self.change.clone(),
                volume_size: self.volume_size,
                at_end: self.at_end,
            },
            net: self.net.clone(),
            rmt: self.rmt.clone(),
            recording: self.manifest.recording(),
            input_volumes: match &self.input {
                InputSpec::File(path) => crate::tape::VolumeNames::parse(path)
                    .ok()
                    .filter(|n| n.is_numbered()),
                _ => None,
            },
        }
    }
}
