//! A running buffer: the ring, the reader thread and the writer thread,
//! started together and stopped together.
//!
//! The pipeline knows nothing of signals or summaries; `run.rs` adds those.
//! Stopping is a dropped channel sender, which wakes every wait at once.
//! The run is over when the writer is done: `done()` disconnects then.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::base::block::Tap;
use crate::base::kernel_pipe::KernelPipe;
use crate::pace::Controller;
use crate::pipeline::fanout::Outputs;
use crate::pipeline::params::Params;
use crate::pipeline::rate_limit::RateLimit;
use crate::pipeline::reader::Reader;
use crate::pipeline::ring::{self, ReaderEnd, RingError, WriterEnd};
use crate::pipeline::stats::Stats;
use crate::pipeline::writer::Writer;
use crate::pipeline::zero_copy::{choose, endpoints_refusal, Chosen, RingPath};
use crate::sink::Sink;
use crate::source::Source;

/// The ring of `blocks` blocks: kernel pipes where `choose` allows (with
/// the fan-out's pipes), else mapped memory; and which ring it is and why.
fn make_ring(
    params: &Params,
    blocks: usize,
    room: usize,
    refusal: Option<String>,
    outputs: usize,
) -> Result<(ReaderEnd, WriterEnd, Vec<KernelPipe>, RingPath), RingError> {
    let chosen = choose(
        params.zero_copy,
        refusal,
        blocks,
        params.block_bytes,
        outputs,
    )
    .map_err(RingError::ZeroCopy)?;
    Ok(match chosen {
        Chosen::Pipes { ring, fanout, path } => {
            let (r, w) = ring::in_pipes(ring, params.block_bytes);
            (r, w, fanout, path)
        }
        Chosen::Copying(path) => {
            let (r, w) = ring::allocate(blocks, params.block_bytes, room, params.lock_memory)?;
            (r, w, Vec::new(), path)
        }
    })
}

/// The room the ring leaves after each block for `wanted` bytes: none,
/// or a page where blocks are whole pages, so that every block stays
/// page-aligned for O_DIRECT, else a cache line.
fn ring_room(wanted: usize, block_bytes: usize) -> usize {
    const PAGE: usize = 4096;
    const LINE: usize = 64;
    match wanted {
        0 => 0,
        w if block_bytes.is_multiple_of(PAGE) => w.div_ceil(PAGE) * PAGE,
        w => w.div_ceil(LINE) * LINE,
    }
}

/// A pipeline whose threads are running.
pub struct Running {
    stats: Arc<Stats>,
    stop: Option<Sender<()>>,
    done: Receiver<()>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl Running {
    /// Allocates the ring and starts both threads.
    pub fn start(
        source: Box<dyn Source>,
        sinks: Vec<Box<dyn Sink>>,
        params: Params,
    ) -> Result<Running, RingError> {
        Running::start_with_taps(source, sinks, Vec::new(), params)
    }

    /// As `start`, with taps that read the stream beside the outputs.
    pub fn start_with_taps(
        mut source: Box<dyn Source>,
        mut sinks: Vec<Box<dyn Sink>>,
        taps: Vec<Box<dyn Tap>>,
        params: Params,
    ) -> Result<Running, RingError> {
        // A lone output is lent the ring's blocks and may keep some (a
        // remote tape, until their replies): the ring gets that many more,
        // so that -m and the watermarks still mean what they say.
        // It may also append to a block in place (a tape's CRC), in room
        // the ring leaves after each block. The source may use that room
        // whatever the outputs (a tape's CRC read with each record), since
        // no output reads past a block's data.
        let (kept, sink_room) = match (sinks.as_slice(), taps.is_empty()) {
            ([only], true) => {
                let traits = only.traits();
                (traits.keeps_blocks, traits.room_after_block)
            }
            _ => (0, 0),
        };
        let room = ring_room(sink_room.max(source.room_after_block()), params.block_bytes);
        let blocks = params.blocks + kept;
        let refusal = endpoints_refusal(source.as_ref(), &sinks, &taps, params.pad);
        let (reader_end, writer_end, fanout_pipes, path) =
            make_ring(&params, blocks, room, refusal, sinks.len())?;
        let (stop_tx, stop_rx) = bounded::<()>(0);
        let mut stats = Stats::new(blocks, sinks.len());
        stats.ring = path;
        stats.block_bytes = params.block_bytes as u64;
        source.attach_stop(&stop_rx);
        stats.input_volumes = source.volumes();
        stats.tape_output = sinks.iter().any(|s| s.traits().is_tape());
        let marks = params.marks_for(stats.tape_output);
        let pace = params.pace_for(stats.tape_output);
        stats.pacing = pace.is_some();
        for (sink, out) in sinks.iter_mut().zip(stats.outputs.iter_mut()) {
            sink.attach_stop(&stop_rx);
            let traits = sink.traits();
            out.volumes = traits.volumes;
            out.link = traits.link;
        }
        let stats = Arc::new(stats);
        let (done_tx, done_rx) = bounded::<()>(0);

        let reader = Reader {
            source,
            ring: reader_end,
            stats: Arc::clone(&stats),
            resume_free_blocks: marks.resume_free_blocks,
            rate_limit: params.input_rate_bytes_per_s.map(RateLimit::new),
            pad: params.pad,
            stop: stop_rx.clone(),
            events: params.events.clone(),
        };
        let writer = Writer {
            outputs: Outputs::new(sinks, taps, fanout_pipes, &stats, blocks, &stop_rx),
            ring: writer_end,
            stats: Arc::clone(&stats),
            start_blocks: marks.start_blocks,
            own_blocks: params.blocks,
            rate_limit: params.output_rate_bytes_per_s.map(RateLimit::new),
            pace: pace.map(|p| Controller::new(p, (blocks * params.block_bytes) as f64)),
            stop: stop_rx,
            events: params.events,
        };
        let reader = crate::base::thread::spawn("reader", move || reader.run())
            .expect("spawning the reader thread");
        let writer = crate::base::thread::spawn("writer", move || {
            writer.run();
            drop(done_tx);
        })
        .expect("spawning the writer thread");
        Ok(Running {
            stats,
            stop: Some(stop_tx),
            done: done_rx,
            reader,
            writer,
        })
    }

    pub fn stats(&self) -> &Arc<Stats> {
        &self.stats
    }

    /// Disconnects when the writer has finished; use it in `select!`.
    pub fn done(&self) -> &Receiver<()> {
        &self.done
    }

    /// Asks both threads to stop at the next block boundary.
    pub fn stop(&mut self) {
        self.stop.take();
    }

    /// Waits for the writer to finish, at most `limit` if given, and joins
    /// the threads that have ended. A thread stuck in a system call (a
    /// read from an idle pipe, a write to a stalled device) is left behind;
    /// the process exit ends it. Returns true if the writer finished.
    pub fn wait(self, limit: Option<Duration>) -> bool {
        let finished = match limit {
            None => {
                let _ = self.done.recv();
                true
            }
            Some(d) => self
                .done
                .recv_timeout(d)
                .is_err_and(|e| e.is_disconnected()),
        };
        if finished {
            let _ = self.writer.join();
            // The writer only ends early when every output failed or on a
            // stop; then the reader may be blocked in read() and is left.
            if self.stats.input_done.load(Relaxed) || self.reader.is_finished() {
                let _ = self.reader.join();
            }
        }
        finished
    }
}
