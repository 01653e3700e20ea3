//! Ending the remote shells on every way out of a command that has no
//! signal loop of its own (`verify`, `probe`): such a command may sit
//! blocked in an rmt reply that never comes, where no flag it polls is
//! seen.
//!
//! While a [`ShellGuard`] lives, a stop signal (SIGINT, SIGTERM, SIGHUP
//! unless `nohup` ignored it) is caught by a thread that ends every
//! remote shell with its process group at once, which also unblocks the
//! waiting command. With [`AfterSignal::Die`] that thread then says so
//! and the process dies of the signal, as it did before it was caught;
//! with [`AfterSignal::Return`] the command sees [`ShellGuard::caught`]
//! and cleans up itself. Dropping the guard (a normal end, an error)
//! ends whatever remote shell is still running too.
//!
//! Invariant: no remote shell started while a guard lives outlives the
//! process, whichever way the command ends, short of SIGKILL.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::Context;
use signal_hook::iterator::{Handle, Signals};

use crate::base::child_groups::end_children;
use crate::base::console::{message, say};
use crate::base::signals::{signal_name, stop_signals};

/// What the process does once a stop signal has ended the remote shells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterSignal {
    /// Says "`{who}`: interrupted by SIG..." and dies of the signal.
    Die,
    /// Carries on; the command asks [`ShellGuard::caught`].
    Return,
}

/// Ends the remote shells on a stop signal and when dropped.
pub struct ShellGuard {
    handle: Handle,
    thread: Option<JoinHandle<()>>,
    caught: Arc<AtomicI32>,
}

impl ShellGuard {
    /// Catches the stop signals until dropped; `who` names the command in
    /// the message ("verify").
    pub fn install(who: &'static str, after: AfterSignal) -> anyhow::Result<ShellGuard> {
        let mut signals = Signals::new(stop_signals()).context("cannot install signal handlers")?;
        let handle = signals.handle();
        let caught = Arc::new(AtomicI32::new(0));
        let seen = Arc::clone(&caught);
        let thread = crate::base::thread::spawn("shell-guard", move || {
            for sig in signals.forever() {
                // Set before the shells end, so that a failure they
                // cause is known for the signal's doing.
                seen.store(sig, Ordering::SeqCst);
                if after == AfterSignal::Die {
                    say(&message!("{who}: interrupted by {}", signal_name(sig)));
                }
                end_children();
                if after == AfterSignal::Die {
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(crate::base::exit::signalled(sig));
                }
            }
        })
        .context("cannot start the signal thread")?;
        Ok(ShellGuard {
            handle,
            thread: Some(thread),
            caught,
        })
    }

    /// The stop signal caught, if any. A failure seen after it may be
    /// the ended shells' doing, and is not to be reported as its own.
    pub fn caught(&self) -> Option<i32> {
        match self.caught.load(Ordering::SeqCst) {
            0 => None,
            sig => Some(sig),
        }
    }
}

impl Drop for ShellGuard {
    fn drop(&mut self) {
        self.handle.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        end_children();
    }
}
