//! The stop signal every wait watches: a channel whose sender the run drops
//! to stop, which wakes every `select!` on it at once. Endpoints and the
//! engine both check it, so it lives at the bottom.

use crossbeam_channel::{Receiver, TryRecvError};

/// True once the run has been told to stop (the stop sender is dropped).
pub fn stopped(stop: &Receiver<()>) -> bool {
    matches!(stop.try_recv(), Err(TryRecvError::Disconnected))
}
