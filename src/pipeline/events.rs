//! Rare events on the data path (underruns, overruns), sent to an optional
//! observer. Sending never blocks: a full observer queue drops the event,
//! because the counters in `Stats` stay authoritative.
//!
//! Only the watermark tests listen today (`tests/buffer/watermark.rs` sees each
//! underrun and overrun in order); a run passes `Events::default()`, which
//! sends nothing.

use crossbeam_channel::Sender;

/// Something an observer may want to mark on a timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The writer found the ring empty before the end of input.
    Underrun,
    /// The reader found the ring full.
    Overrun,
}

/// An optional, non-blocking event sender.
#[derive(Debug, Clone, Default)]
pub struct Events(Option<Sender<Event>>);

impl Events {
    pub fn new(tx: Sender<Event>) -> Events {
        Events(Some(tx))
    }

    pub fn send(&self, event: Event) {
        if let Some(tx) = &self.0 {
            let _ = tx.try_send(event);
        }
    }
}
