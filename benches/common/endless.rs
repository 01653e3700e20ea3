//! Sources for benchmarks that measure what happens after the ring:
//! `Endless` claims `blocks_left` full blocks and then ends, touching one
//! byte of each; `Filling` writes every byte of each block from a pattern,
//! as read(2) from a pipe would, so that outputs meet the data where a
//! real run leaves it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use tapebuf::source::{End, Filled, Source};

pub struct Endless {
    pub blocks_left: u64,
}

pub struct Filling {
    /// At least a block's bytes.
    pub pattern: Vec<u8>,
    pub blocks_left: u64,
}

/// One whole block, `write` putting its bytes in, while `left` lasts.
fn one_block(
    left: &mut u64,
    buf: &mut [u8],
    arrived: &AtomicU64,
    write: impl FnOnce(&mut [u8]),
) -> Filled {
    if *left == 0 {
        return Filled {
            bytes: 0,
            end: End::Eof,
        };
    }
    *left -= 1;
    write(buf);
    arrived.fetch_add(buf.len() as u64, Relaxed);
    Filled {
        bytes: buf.len(),
        end: End::More,
    }
}

impl Source for Endless {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        one_block(&mut self.blocks_left, buf, arrived, |b| {
            b[0] = b[0].wrapping_add(1)
        })
    }
    fn name(&self) -> &str {
        "endless"
    }
}

impl Source for Filling {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        let pattern = &self.pattern;
        one_block(&mut self.blocks_left, buf, arrived, |b| {
            b.copy_from_slice(&pattern[..b.len()])
        })
    }
    fn name(&self) -> &str {
        "filling"
    }
}
