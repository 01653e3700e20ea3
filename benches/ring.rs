//! Ring micro-benchmark: the cost of moving one block through the reader,
//! the ring and the writer, with no I/O at all. A source that claims every
//! block is full and a sink that discards it leave only the per-block
//! overhead of the channels and the watermark logic.
//!
//!     cargo bench --bench ring

mod common;

use common::endless::Endless;
use std::io;
use std::time::Instant;

use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::Sink;

struct Discard;

impl Sink for Discard {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        std::hint::black_box(data.len());
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> &str {
        "discard"
    }
}

fn main() {
    const BLOCKS: u64 = 400_000;
    println!("# {BLOCKS} blocks through the ring, no I/O; median of 5");
    println!(
        "{:<10} {:<8} {:>10} {:>12}",
        "block", "outputs", "ns/block", "blocks/s"
    );
    for (block_bytes, outputs) in [(4096usize, 1usize), (65536, 1), (65536, 2)] {
        let mut ns = Vec::new();
        for _ in 0..5 {
            let sinks: Vec<Box<dyn Sink>> = (0..outputs)
                .map(|_| Box::new(Discard) as Box<dyn Sink>)
                .collect();
            let params = Params {
                high_pct: Some(0),
                ..Params::ring(64, block_bytes)
            };
            let started = Instant::now();
            let running = Running::start(
                Box::new(Endless {
                    blocks_left: BLOCKS,
                }),
                sinks,
                params,
            )
            .unwrap();
            assert!(running.wait(None));
            ns.push(started.elapsed().as_nanos() as f64 / BLOCKS as f64);
        }
        ns.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = ns[2];
        println!(
            "{:<10} {:<8} {:>10.0} {:>12.0}",
            block_bytes,
            outputs,
            med,
            1e9 / med
        );
    }
}
