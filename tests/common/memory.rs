//! An in-memory input and output for pipeline tests that run the real
//! reader, ring and writer in-process against an emulated tape drive.

use std::io::{self, Cursor};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use tapebuf::pipeline::Params;
use tapebuf::sink::Sink;
use tapebuf::source::{fill_from, Filled, Source};

/// Input from memory.
pub struct Memory(pub Cursor<Vec<u8>>);

impl Source for Memory {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        fill_from(&mut self.0, buf, arrived)
    }
    fn name(&self) -> &str {
        "memory"
    }
}

/// Output to memory.
pub struct Collect(pub Arc<Mutex<Vec<u8>>>);

impl Sink for Collect {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> &str {
        "memory"
    }
}

/// An 8-block ring of `block_bytes` blocks, the tape watermarks, no rate
/// limits, and `--pad` if asked.
pub fn params(block_bytes: usize, pad: bool) -> Params {
    Params {
        high_pct: Some(90),
        pad,
        ..Params::ring(8, block_bytes)
    }
}
