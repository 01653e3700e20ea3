//! A property of the ring: whatever the block size, ring size, watermarks,
//! and the timing of producer and consumer, the output equals the input,
//! and every write downstream is exactly one block except the last.

use std::io::{self, Read};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::Sink;
use tapebuf::source::{fill_from, Filled, Source};

/// A producer that hands out its data in short reads of varying size,
/// pausing now and then.
struct JitteryReader {
    data: Vec<u8>,
    at: usize,
    steps: Vec<(usize, u64)>,
    step: usize,
}

impl Read for JitteryReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (max, pause_us) = self.steps[self.step % self.steps.len()];
        self.step += 1;
        if pause_us > 0 {
            std::thread::sleep(Duration::from_micros(pause_us));
        }
        let n = max.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

struct JitterySource(JitteryReader);

impl Source for JitterySource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        fill_from(&mut self.0, buf, arrived)
    }
    fn name(&self) -> &str {
        "jittery"
    }
}

/// A consumer that records every write and pauses now and then.
struct RecordingSink {
    out: Arc<Mutex<(Vec<u8>, Vec<usize>)>>,
    pauses_us: Vec<u64>,
    step: usize,
}

impl Sink for RecordingSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        let pause = self.pauses_us[self.step % self.pauses_us.len()];
        self.step += 1;
        if pause > 0 {
            std::thread::sleep(Duration::from_micros(pause));
        }
        let mut out = self.out.lock().unwrap();
        out.0.extend_from_slice(data);
        out.1.push(data.len());
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> &str {
        "recording"
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn output_equals_input_under_random_timing(
        len in 0usize..60_000,
        block_bytes in 1usize..6_000,
        blocks in 2usize..9,
        high_pct in 0u8..=100,
        low_pct in 0u8..=100,
        read_steps in prop::collection::vec((1usize..9_000, prop_oneof![4 => Just(0u64), 1 => 1u64..300]), 1..8),
        write_pauses in prop::collection::vec(prop_oneof![4 => Just(0u64), 1 => 1u64..300], 1..8),
        outputs in 1usize..4,
        seed in any::<u64>(),
    ) {
        let mut x = seed | 1;
        let data: Vec<u8> = (0..len).map(|_| { x ^= x << 7; x ^= x >> 9; x as u8 }).collect();
        let source = JitterySource(JitteryReader { data: data.clone(), at: 0, steps: read_steps, step: 0 });
        let records: Vec<_> = (0..outputs).map(|_| Arc::new(Mutex::new((Vec::new(), Vec::new())))).collect();
        let sinks: Vec<Box<dyn Sink>> = records.iter().map(|r| {
            Box::new(RecordingSink { out: Arc::clone(r), pauses_us: write_pauses.clone(), step: 0 }) as Box<dyn Sink>
        }).collect();
        let params = Params {
            high_pct: Some(high_pct),
            low_pct,
            ..Params::ring(blocks, block_bytes)
        };
        let running = Running::start(Box::new(source), sinks, params).unwrap();
        let stats = Arc::clone(running.stats());
        prop_assert!(running.wait(Some(Duration::from_secs(60))), "the run finished");
        let snap = stats.snapshot();
        prop_assert_eq!(snap.read_bytes, len as u64);
        prop_assert_eq!(snap.written_bytes, len as u64);
        for r in &records {
            let (out, sizes) = &*r.lock().unwrap();
            prop_assert!(out == &data, "output differs from input");
            if let Some((last, whole)) = sizes.split_last() {
                prop_assert!(whole.iter().all(|&s| s == block_bytes), "a short block mid-stream: {:?}", sizes);
                prop_assert!(*last > 0 && *last <= block_bytes);
            }
        }
    }
}
