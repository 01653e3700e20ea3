//! A source that claims `blocks_left` full blocks and then ends, touching
//! one byte of each, for benchmarks that measure what happens after the
//! ring.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use tapebuf::source::{End, Filled, Source};

pub struct Endless {
    pub blocks_left: u64,
}

impl Source for Endless {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        if self.blocks_left == 0 {
            return Filled {
                bytes: 0,
                end: End::Eof,
            };
        }
        self.blocks_left -= 1;
        buf[0] = buf[0].wrapping_add(1);
        arrived.fetch_add(buf.len() as u64, Relaxed);
        Filled {
            bytes: buf.len(),
            end: End::More,
        }
    }
    fn name(&self) -> &str {
        "endless"
    }
}
