//! What a service's acceptor, its streams' threads and its main thread
//! share: the configuration, the stream count, each running stream's
//! signal channel, the way back to each resumable one, the room for
//! streams, and the signal that stopped it; and what the main
//! thread does with them (stop every stream, say their status).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::SeqCst};
use std::sync::Mutex;

use crossbeam_channel::{Receiver, Sender};
use signal_hook::consts::SIGUSR1;

use super::tally::Tally;
use crate::base::console::{message, say};
use crate::base::sync::lock;
use crate::config::{Config, ServePlan};
use crate::net::frame::SessionId;
use crate::net::NetSettings;
use crate::source::Returning;

/// What the acceptor and every stream's thread share.
pub(crate) struct Service {
    pub(super) config: Config,
    pub(super) plan: ServePlan,
    pub(super) settings: NetSettings,
    /// "-I ADDR", for messages.
    pub(super) listening: String,
    /// The number of the last stream begun.
    pub(super) seq: AtomicU64,
    /// Each running stream's signal channel, by its number.
    pub(super) live: Mutex<HashMap<u64, Sender<i32>>>,
    /// The signal that stopped the service, or 0.
    pub(super) stopping: AtomicI32,
    /// The way back to each running resumable stream, by its session
    /// (`route.rs`).
    pub(super) sessions: Mutex<HashMap<SessionId, Sender<Returning>>>,
    /// Room for `--senders` streams: a stream holds a place from its
    /// start to its end (send to take one, receive to give it back).
    pub(super) room: (Sender<()>, Receiver<()>),
}

impl Service {
    /// Tells every running stream to stop, by `sig`; a stream that is
    /// about to begin sees `stopping` and does not.
    pub(super) fn stop_streams(&self, sig: i32) {
        self.stopping.store(sig, SeqCst);
        for tx in lock(&self.live).values() {
            let _ = tx.send(sig);
        }
    }

    /// SIGUSR1: one line for the service, then each stream's own.
    pub(super) fn status(&self, tally: &Tally) {
        let live = lock(&self.live);
        say(&message!(
            "status: {}: {} running, {}",
            self.listening,
            super::tally::streams(live.len() as u64),
            tally.so_far()
        ));
        for tx in live.values() {
            let _ = tx.send(SIGUSR1);
        }
    }
}
