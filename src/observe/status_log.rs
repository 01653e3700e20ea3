//! `--status-interval`: a plain status record every few seconds, the same
//! line SIGUSR1 prints, with no carriage returns or escapes, so that cron
//! mail and log files read cleanly. The records go to stderr, or to the
//! `--log` file alone, which also gets every message and the summary line
//! (see `base::console`). During a
//! volume change the line ends with what the change is doing, such as
//! waiting for the drive to be ready (`VolumeLog::change_note`).

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{select, tick, Receiver};

use crate::base::console::{self, say};
use crate::observe::summary::status_line;
use crate::pipeline::stats::Stats;

/// Starts the thread that prints a status record every `every`, until
/// `stop` disconnects: to the `-l` file alone when there is one (`to_log`),
/// else to stderr. It returns false if the log could not be written (and
/// then stops).
pub fn spawn(
    to_log: bool,
    stats: Arc<Stats>,
    every: Duration,
    stop: Receiver<()>,
) -> JoinHandle<bool> {
    crate::base::thread::spawn("status-log", move || {
        let ticks = tick(every);
        loop {
            select! {
                recv(stop) -> _ => return true,
                recv(ticks) -> _ => {}
            }
            let line = status_line(&stats);
            if !to_log {
                say(&line);
                continue;
            }
            console::log(&line);
            if !console::log_ok() {
                return false;
            }
        }
    })
    .expect("spawning the status-log thread")
}
