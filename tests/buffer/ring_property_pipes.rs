//! The ring property on real pipes, for both rings: whatever the block
//! size, ring size, watermarks, number of outputs and the timing of the
//! producer and the consumers, every output equals the input, byte for
//! byte, and the counts are exact. The same cases run on the zero-copy ring
//! (kernel pipes, splice and tee; insisted on, so a silent fallback fails
//! the test) and on the copying ring.

use std::fs::File;
use std::io::{Read, Write};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use nix::fcntl::OFlag;
use proptest::prelude::*;
use tapebuf::pipeline::{Params, Running, ZeroCopy};
use tapebuf::sink::{FdSink, Sink};
use tapebuf::source::FdSource;

fn pipe() -> (File, File) {
    let (r, w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).unwrap();
    (File::from(r), File::from(w))
}

/// Writes `data` into `w` in pieces of the given sizes, pausing as told.
fn produce(mut w: File, data: Vec<u8>, steps: Vec<(usize, u64)>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut at = 0;
        for (max, pause_us) in steps.iter().cycle() {
            if at == data.len() {
                break;
            }
            let n = (*max).min(data.len() - at);
            w.write_all(&data[at..at + n]).unwrap();
            at += n;
            if *pause_us > 0 {
                std::thread::sleep(Duration::from_micros(*pause_us));
            }
        }
    })
}

/// Reads `r` to its end in reads of at most `chunk`, pausing as told.
fn consume(mut r: File, chunk: usize, pauses_us: Vec<u64>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = vec![0u8; chunk];
        for pause in pauses_us.iter().cycle() {
            match r.read(&mut buf).unwrap() {
                0 => break,
                n => got.extend_from_slice(&buf[..n]),
            }
            if *pause > 0 {
                std::thread::sleep(Duration::from_micros(*pause));
            }
        }
        got
    })
}

/// One case on one ring.
struct Case {
    data: Vec<u8>,
    block_bytes: usize,
    blocks: usize,
    high_pct: u8,
    low_pct: u8,
    steps: Vec<(usize, u64)>,
    pauses: Vec<u64>,
    outputs: usize,
}

/// Runs the case on `ring`; returns each output's bytes, what the stats
/// counted (read, written), and whether the zero-copy ring ran.
fn run(case: &Case, ring: ZeroCopy) -> (Vec<Vec<u8>>, (u64, u64), bool) {
    let (in_r, in_w) = pipe();
    let producer = produce(in_w, case.data.clone(), case.steps.clone());
    let mut consumers = Vec::new();
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    for i in 0..case.outputs {
        let (out_r, out_w) = pipe();
        consumers.push(consume(out_r, 1 + 977 * (i + 1), case.pauses.clone()));
        sinks.push(Box::new(FdSink::from_file(out_w, &format!("out{i}"))));
    }
    let params = Params {
        high_pct: Some(case.high_pct),
        low_pct: case.low_pct,
        zero_copy: ring,
        ..Params::ring(case.blocks, case.block_bytes)
    };
    let source = FdSource::from_file(in_r, "in");
    let running = Running::start(Box::new(source), sinks, params).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(
        running.wait(Some(Duration::from_secs(60))),
        "the run finished"
    );
    producer.join().unwrap();
    let outs = consumers.into_iter().map(|c| c.join().unwrap()).collect();
    let snap = stats.snapshot();
    (
        outs,
        (snap.read_bytes, snap.written_bytes),
        stats.ring.zero_copy,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn both_rings_give_every_output_the_input_exactly_under_random_timing(
        len in 0usize..400_000,
        block_pages in prop::sample::select(vec![1usize, 2, 4, 16]),
        blocks in 2usize..9,
        high_pct in 0u8..=100,
        low_pct in 0u8..=100,
        steps in prop::collection::vec((1usize..70_000, prop_oneof![4 => Just(0u64), 1 => 1u64..300]), 1..8),
        pauses in prop::collection::vec(prop_oneof![4 => Just(0u64), 1 => 1u64..300], 1..8),
        outputs in 1usize..4,
        seed in any::<u64>(),
    ) {
        let mut x = seed | 1;
        let data: Vec<u8> = (0..len).map(|_| { x ^= x << 7; x ^= x >> 9; x as u8 }).collect();
        let case = Case {
            data, block_bytes: block_pages * 4096, blocks, high_pct, low_pct, steps, pauses, outputs,
        };
        for (ring, zero_copy) in [(ZeroCopy::On, true), (ZeroCopy::Off, false)] {
            let (outs, (read, written), ran) = run(&case, ring);
            prop_assert_eq!(ran, zero_copy, "the ring asked for ran");
            prop_assert_eq!(read, len as u64);
            prop_assert_eq!(written, len as u64);
            for out in &outs {
                prop_assert!(out == &case.data, "an output differs from the input on {:?}", ring);
            }
        }
    }
}
