//! The process's signals as every command sees them: which signals stop a
//! run or a probe, and their names for messages. SIGHUP ignored at start
//! (`nohup`) stays ignored. And the stop every wait watches: a channel
//! whose sender the run drops to stop, which wakes every `select!` on it
//! at once; endpoints and the engine both check it.

use crossbeam_channel::{Receiver, TryRecvError};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Every signal that may stop a run, a probe, verify or the rmt server, in
/// the order of their exit statuses (`exit::every_status`, 128 + N).
pub const STOP_SIGNALS: [i32; 3] = [SIGHUP, SIGINT, SIGTERM];

/// The signals that stop a run or a probe: SIGINT, SIGTERM, and SIGHUP
/// unless it was ignored at start, as under `nohup`, where it must stay so.
pub fn stop_signals() -> Vec<i32> {
    STOP_SIGNALS
        .into_iter()
        .filter(|&sig| sig != SIGHUP || !ignored(SIGHUP))
        .collect()
}

/// True when the signal's disposition is to be ignored, as `nohup` leaves
/// SIGHUP.
pub fn ignored(sig: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one
    // into `old`, which is a valid, zeroed struct owned here.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// "SIGINT", "SIGTERM" or "SIGHUP", for the interrupted message.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// True once the run has been told to stop. This is the one meaning of
/// "stopped" in tapebuf: a stop channel's sender is dropped (a signal, the
/// watchdog, or the end of the run) or sends; either ends every wait on it
/// (`select!` on `recv(stop)` wakes for both).
pub fn stopped(stop: &Receiver<()>) -> bool {
    !matches!(stop.try_recv(), Err(TryRecvError::Empty))
}
