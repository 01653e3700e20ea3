//! The server's signals. A session must survive the SIGUSR1 that
//! `pkill -USR1 -x tapebuf` sends to every tapebuf on a host, and a
//! session ended by a signal must say so in the audit log.
//!
//! Nothing here writes to stderr: under a remote shell it is the client's
//! terminal. SIGUSR1 is logged (or, with no log, simply absorbed) and the
//! session goes on. SIGINT, SIGTERM and SIGHUP are logged and the process
//! then dies of the signal, as it would have without a handler; the kernel
//! closes the device. A signal that was ignored when the server started
//! (SIGHUP under `nohup`, SIGINT in a background job) stays ignored.

use std::io;
use std::thread::Scope;

use signal_hook::consts::SIGUSR1;
use signal_hook::iterator::{Handle, Signals};

use super::log::Log;

/// Starts a thread in `scope` that answers signals, logging to `log`,
/// until the returned handle is closed.
pub fn watch<'scope>(scope: &'scope Scope<'scope, '_>, log: &'scope Log) -> io::Result<Handle> {
    let mut watched = vec![SIGUSR1];
    watched.extend(
        crate::base::signals::STOP_SIGNALS
            .into_iter()
            .filter(|&sig| !crate::base::signals::ignored(sig)),
    );
    let mut signals = Signals::new(watched)?;
    let handle = signals.handle();
    crate::base::thread::spawn_scoped(scope, "signals", move || {
        for sig in signals.forever() {
            if sig == SIGUSR1 {
                log.info("SIGUSR1: no status line from a server (stderr is the client's); the session goes on");
                continue;
            }
            log.warn(&format!(
                "session ended by {}",
                crate::base::signals::signal_name(sig)
            ));
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(crate::base::exit::signalled(sig));
        }
    })?;
    Ok(handle)
}
