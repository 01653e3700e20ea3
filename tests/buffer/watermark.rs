//! The high watermark with a slow, controlled producer: after the ring has
//! run empty, writing resumes only once the ring has refilled to -P, and
//! every such stop is counted as one underrun.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use tapebuf::pipeline::events::{Event, Events};
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::Sink;
use tapebuf::source::{End, Filled, Source};

const BLOCK: usize = 1024;
const RING: usize = 10;
const WAIT: Duration = Duration::from_secs(20);

/// Hands out one block per message the test sends; a closed channel ends
/// the input. Counts the blocks it has handed to the reader.
struct StepSource {
    feed: Receiver<Vec<u8>>,
    fed: Arc<AtomicU64>,
}

impl Source for StepSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        match self.feed.recv() {
            Ok(block) => {
                buf[..block.len()].copy_from_slice(&block);
                arrived.fetch_add(block.len() as u64, SeqCst);
                self.fed.fetch_add(1, SeqCst);
                Filled {
                    bytes: block.len(),
                    end: End::More,
                }
            }
            Err(_) => Filled {
                bytes: 0,
                end: End::Eof,
            },
        }
    }
    fn name(&self) -> &str {
        "steps"
    }
}

/// Records, for every write, how many blocks the source had handed out at
/// that moment, and tells the test a block was written.
struct WatchingSink {
    fed: Arc<AtomicU64>,
    seen: Arc<Mutex<Vec<u64>>>,
    wrote: Sender<()>,
}

impl Sink for WatchingSink {
    fn write_block(&mut self, _data: &[u8]) -> io::Result<()> {
        self.seen.lock().unwrap().push(self.fed.load(SeqCst));
        let _ = self.wrote.send(());
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> &str {
        "watching"
    }
}

/// A 10-block ring of 1 KiB blocks with the given watermarks.
fn ring_params(high_pct: u8, low_pct: u8, events: Sender<Event>) -> Params {
    Params {
        high_pct: Some(high_pct),
        low_pct,
        events: Events::new(events),
        ..Params::ring(RING, BLOCK)
    }
}

/// A pipeline with a step-by-step source and a watching sink.
struct Harness {
    feed: Sender<Vec<u8>>,
    wrote: Receiver<()>,
    events: Receiver<Event>,
    fed: Arc<AtomicU64>,
    seen: Arc<Mutex<Vec<u64>>>,
    running: Running,
}

fn start(high_pct: u8) -> Harness {
    let (feed_tx, feed_rx) = bounded::<Vec<u8>>(0);
    let (wrote_tx, wrote_rx) = unbounded();
    let (event_tx, event_rx) = unbounded();
    let fed = Arc::new(AtomicU64::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let source = StepSource {
        feed: feed_rx,
        fed: Arc::clone(&fed),
    };
    let sink = WatchingSink {
        fed: Arc::clone(&fed),
        seen: Arc::clone(&seen),
        wrote: wrote_tx,
    };
    let params = ring_params(high_pct, 100, event_tx);
    let running = Running::start(Box::new(source), vec![Box::new(sink)], params).unwrap();
    Harness {
        feed: feed_tx,
        wrote: wrote_rx,
        events: event_rx,
        fed,
        seen,
        running,
    }
}

#[test]
fn resumes_writing_only_after_the_ring_refills_to_the_high_watermark() {
    let Harness {
        feed: feed_tx,
        wrote: wrote_rx,
        events: event_rx,
        fed,
        seen,
        running,
    } = start(90);
    let stats = Arc::clone(running.stats());
    let block = vec![7u8; BLOCK];

    // Three bursts of 9 blocks: -P 90 of a 10-block ring is 9 blocks.
    for burst in 1..=3u64 {
        for _ in 0..9 {
            feed_tx.send(block.clone()).unwrap();
        }
        for _ in 0..9 {
            wrote_rx.recv_timeout(WAIT).unwrap_or_else(|_| {
                panic!(
                    "burst {burst} written: fed {} seen {:?} snap {:?}",
                    fed.load(SeqCst),
                    seen.lock().unwrap(),
                    stats.snapshot()
                )
            });
        }
        // The writer drains the burst, finds the ring empty: one stop.
        assert_eq!(event_rx.recv_timeout(WAIT).unwrap(), Event::Underrun);
        assert_eq!(stats.underruns.load(SeqCst), burst);
    }
    // A last, short burst: the end of input releases it without reaching 9.
    for _ in 0..4 {
        feed_tx.send(block.clone()).unwrap();
    }
    drop(feed_tx);
    assert!(running.wait(Some(WAIT)));

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 31);
    // No write of a burst happened before the whole burst was in the ring.
    for (i, &fed_at_write) in seen.iter().enumerate() {
        let burst_end = ((i as u64 / 9) + 1) * 9;
        assert!(
            fed_at_write >= burst_end.min(31),
            "write {i} happened when only {fed_at_write} blocks had been read"
        );
    }
    let snap = stats.snapshot();
    assert_eq!(snap.underruns, 3, "the end of input is not an underrun");
    assert_eq!(snap.read_bytes, 31 * BLOCK as u64);
    assert_eq!(snap.written_bytes, 31 * BLOCK as u64);
}

#[test]
fn without_a_high_watermark_every_block_goes_out_at_once() {
    let Harness {
        feed: feed_tx,
        wrote: wrote_rx,
        seen,
        running,
        ..
    } = start(0);
    // Each block is written before the next one is even offered.
    for _ in 0..5 {
        feed_tx.send(vec![1u8; BLOCK]).unwrap();
        wrote_rx.recv_timeout(WAIT).expect("written at once");
    }
    drop(feed_tx);
    assert!(running.wait(Some(WAIT)));
    assert_eq!(*seen.lock().unwrap(), vec![1, 2, 3, 4, 5]);
}

/// Hands out `total` full blocks as fast as it is asked, recording for each
/// how many writes had completed when it was asked.
struct EagerSource {
    total: usize,
    writes_done: Arc<AtomicU64>,
    asked_at: Arc<Mutex<Vec<u64>>>,
}

impl Source for EagerSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        let mut asked = self.asked_at.lock().unwrap();
        if asked.len() == self.total {
            return Filled {
                bytes: 0,
                end: End::Eof,
            };
        }
        asked.push(self.writes_done.load(SeqCst));
        buf.fill(3);
        arrived.fetch_add(buf.len() as u64, SeqCst);
        Filled {
            bytes: buf.len(),
            end: End::More,
        }
    }
    fn name(&self) -> &str {
        "eager"
    }
}

/// Writes one block per permit from the test, and reports each write.
struct PermitSink {
    permits: Receiver<()>,
    writes_done: Arc<AtomicU64>,
    wrote: Sender<()>,
}

impl Sink for PermitSink {
    fn write_block(&mut self, _data: &[u8]) -> io::Result<()> {
        self.permits.recv().expect("the test permits every write");
        self.writes_done.fetch_add(1, SeqCst);
        let _ = self.wrote.send(());
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> &str {
        "permits"
    }
}

#[test]
fn resumes_reading_only_after_the_ring_drains_to_the_low_watermark() {
    const TOTAL: usize = 30;
    let (permit_tx, permit_rx) = unbounded();
    let (wrote_tx, wrote_rx) = unbounded();
    let (event_tx, event_rx) = unbounded();
    let writes_done = Arc::new(AtomicU64::new(0));
    let asked_at = Arc::new(Mutex::new(Vec::new()));
    let source = EagerSource {
        total: TOTAL,
        writes_done: Arc::clone(&writes_done),
        asked_at: Arc::clone(&asked_at),
    };
    let sink = PermitSink {
        permits: permit_rx,
        writes_done,
        wrote: wrote_tx,
    };
    // -p 20: once full, read again only when at most 2 of 10 are full.
    let params = ring_params(0, 20, event_tx);
    let running = Running::start(Box::new(source), vec![Box::new(sink)], params).unwrap();
    let stats = Arc::clone(running.stats());
    // Nothing is written until the reader has filled the ring and stopped.
    assert_eq!(event_rx.recv_timeout(WAIT).unwrap(), Event::Overrun);
    // Let the writes through one at a time, each after the previous is done.
    for _ in 0..TOTAL {
        permit_tx.send(()).unwrap();
        wrote_rx
            .recv_timeout(WAIT)
            .expect("a permitted write happens");
    }
    assert!(running.wait(Some(WAIT)));
    let asked_at = asked_at.lock().unwrap().clone();
    assert_eq!(asked_at.len(), TOTAL);
    // The first ten blocks fill the ring before anything is written.
    assert!(asked_at[..RING].iter().all(|&w| w == 0), "{asked_at:?}");
    // The eleventh waits until 8 blocks are free again, so 8 writes are done.
    assert!(
        asked_at[RING] >= 8,
        "reading resumed after only {} writes: {asked_at:?}",
        asked_at[RING]
    );
    assert!(stats.overruns.load(SeqCst) >= 1);
    assert_eq!(stats.snapshot().written_bytes, (TOTAL * BLOCK) as u64);
}
