//! The reader thread: takes free blocks, fills them from the source, and
//! hands them to the writer in order.
//!
//! It counts an overrun each time it finds no free block (the ring is full),
//! and then obeys the low watermark: it gathers free blocks until the ring
//! has drained far enough before it reads again.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crossbeam_channel::{select, Receiver, TryRecvError};

use crate::base::block::{Block, BlockRef};
use crate::base::signals::stopped;
use crate::pipeline::events::{Event, Events};
use crate::pipeline::rate_limit::RateLimit;
use crate::pipeline::ring::{self, ReaderEnd};
use crate::pipeline::stats::Stats;
use crate::source::{End, Filled, Source};

pub struct Reader {
    pub source: Box<dyn Source>,
    pub ring: ReaderEnd,
    pub stats: Arc<Stats>,
    pub resume_free_blocks: usize,
    pub rate_limit: Option<RateLimit>,
    /// Zero-fill the final short block (`--pad`).
    pub pad: bool,
    pub stop: Receiver<()>,
    pub events: Events,
}

impl Reader {
    /// Runs until end of input, a read error, a stop, or the writer leaving.
    /// Dropping `self` at the end closes the full queue, which tells the
    /// writer that input has ended.
    pub fn run(mut self) {
        let mut held: Vec<BlockRef> = Vec::new();
        // A network input knows its peer once the first fill is in.
        let mut link_known = false;
        while !stopped(&self.stop) {
            let Some(mut block) = self.next_free(&mut held) else {
                break;
            };
            let blk = ring::unique(&mut block);
            let filled = self.fill(blk);
            if !link_known {
                link_known = self.stats.set_input_link(self.source.link());
            }
            blk.set_len(filled.bytes);
            if self.pad && matches!(filled.end, End::Eof) && filled.bytes > 0 {
                let capacity = blk.buffer_mut().len();
                blk.buffer_mut()[filled.bytes..].fill(0);
                blk.set_len(capacity);
                let zeros = (capacity - filled.bytes) as u64;
                self.stats.pad_bytes.fetch_add(zeros, Relaxed);
            }
            if !matches!(filled.end, End::More) {
                if let Some(note) = self.source.note() {
                    self.stats.set_input_note(note);
                }
                // Set before the last block goes out, so the writer does not
                // count the end of input as an underrun.
                self.stats.input_done.store(true, Relaxed);
            }
            if filled.bytes > 0 {
                self.stats.block_filled();
                if self.ring.full.send(block).is_err() {
                    break; // the writer has gone
                }
            }
            match filled.end {
                End::More => {}
                End::Eof => break,
                End::Failed(e) => {
                    let at = self.stats.read_bytes.load(Relaxed);
                    self.stats.set_input_error(self.source.failure_line(at, &e));
                    break;
                }
            }
            if let Some(limit) = self.rate_limit.as_mut() {
                limit.throttle(filled.bytes, &self.stop);
            }
        }
        self.stats.input_done.store(true, Relaxed);
    }

    /// Fills a block from the source: a buffer by read(2), or a pipe of
    /// the zero-copy ring by splice(2), after emptying what the outputs
    /// left in it (several outputs tee from a block and take nothing; a
    /// failed output leaves the rest of its block).
    fn fill(&mut self, blk: &mut Block) -> Filled {
        let arrived = &self.stats.read_bytes;
        let capacity = blk.capacity();
        match blk.kernel_pipe() {
            None => match blk.with_room_mut() {
                Some(buf) => self.source.fill_in(buf, capacity, arrived),
                None => self.source.fill(blk.buffer_mut(), arrived),
            },
            Some(pipe) => match pipe.empty() {
                Ok(()) => self.source.fill_pipe(pipe, capacity, arrived),
                Err(e) => Filled {
                    bytes: 0,
                    end: End::Failed(std::io::Error::other(format!(
                        "cannot empty a block's pipe: {e}"
                    ))),
                },
            },
        }
    }

    /// The next free block. When none is free the ring is full: count an
    /// overrun, then wait until the low watermark lets reading resume.
    fn next_free(&mut self, held: &mut Vec<BlockRef>) -> Option<BlockRef> {
        if let Some(b) = held.pop() {
            return Some(b);
        }
        match self.ring.free.try_recv() {
            Ok(b) => return Some(b),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {}
        }
        self.stats.overruns.fetch_add(1, Relaxed);
        self.events.send(Event::Overrun);
        self.stats.reader_waiting.store(true, Relaxed);
        let resumed = self.gather_free(held);
        self.stats.reader_waiting.store(false, Relaxed);
        resumed
    }

    /// Gathers free blocks up to the low watermark; None on a stop or when
    /// the writer has gone.
    fn gather_free(&mut self, held: &mut Vec<BlockRef>) -> Option<BlockRef> {
        while held.len() < self.resume_free_blocks {
            select! {
                recv(self.ring.free) -> msg => match msg {
                    Ok(b) => held.push(b),
                    Err(_) => return None,
                },
                recv(self.stop) -> _ => return None,
            }
        }
        held.pop()
    }
}
