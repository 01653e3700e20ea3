//! What the engine is started with besides its endpoints: the ring's
//! shape, the watermarks and rates the user asked for, pacing, padding and
//! the zero-copy choice. `config/` fills it from the command line, once;
//! the engine resolves what depends on the opened outputs (a tape output
//! restarts the writer at 90% and is paced unless told otherwise) when it
//! starts.

use crate::pace::{PaceRequest, PaceSettings};
use crate::pipeline::events::Events;
use crate::pipeline::watermark::{Watermarks, TAPE_HIGH_WATERMARK_PCT};
use crate::pipeline::zero_copy::ZeroCopy;

/// What the pipeline needs beyond its endpoints.
#[derive(Debug, Clone)]
pub struct Params {
    pub blocks: usize,
    pub block_bytes: usize,
    /// `-L`: lock the ring in memory.
    pub lock_memory: bool,
    /// `-P`: the writer restarts after an underrun once the ring is this
    /// full. None: 90 when an output is a tape or the run is paced, else 0
    /// (see `high_pct_for`).
    pub high_pct: Option<u8>,
    /// `-p`: the reader restarts after an overrun once the ring has
    /// drained to this.
    pub low_pct: u8,
    pub input_rate_bytes_per_s: Option<u64>,
    pub output_rate_bytes_per_s: Option<u64>,
    /// `--pace` / `--no-pace`, resolved against the outputs at start.
    pub pace: PaceRequest,
    /// Zero-fill the final short block to a whole block.
    pub pad: bool,
    /// `--zero-copy`: whether the ring may be, or must be, kernel pipes.
    pub zero_copy: ZeroCopy,
    pub events: Events,
}

impl Params {
    /// A ring of `blocks` blocks of `block_bytes` and nothing else asked
    /// for: no high watermark given, the reader resumes at once (`-p
    /// 100`), no rate limit, no pacing, no padding, no memory lock, the
    /// zero-copy ring where it can be used, no events.
    pub fn ring(blocks: usize, block_bytes: usize) -> Params {
        Params {
            blocks,
            block_bytes,
            lock_memory: false,
            high_pct: None,
            low_pct: 100,
            input_rate_bytes_per_s: None,
            output_rate_bytes_per_s: None,
            pace: PaceRequest::Off,
            pad: false,
            zero_copy: ZeroCopy::default(),
            events: Events::default(),
        }
    }

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

    /// Both watermarks, in blocks, once it is known whether an output is a
    /// tape.
    pub fn marks_for(&self, output_is_tape: bool) -> Watermarks {
        Watermarks::new(self.blocks, self.high_pct_for(output_is_tape), self.low_pct)
    }
}
