//! `--status-interval`: a plain status record every few seconds, the same
//! line SIGUSR1 prints, with no carriage returns or escapes, so that cron
//! mail and log files read cleanly. The records go to stderr, or to the
//! `--log` file, which also gets the summary line at the end. During a
//! volume change the line ends with what the change is doing, such as
//! waiting for the drive to be ready (`VolumeLog::change_note`).

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{select, tick, Receiver};

use crate::base::console::say;
use crate::observe::summary::status_line;
use crate::pipeline::stats::Stats;

/// The `--log` file, shared by the status thread and the end of the run.
#[derive(Debug, Clone)]
pub struct Log {
    path: PathBuf,
    file: Arc<Mutex<File>>,
}

impl Log {
    pub fn new(path: PathBuf, file: File) -> Log {
        Log {
            path,
            file: Arc::new(Mutex::new(file)),
        }
    }

    /// Appends one line; says why on stderr and returns false if it fails.
    pub fn write_line(&self, line: &str) -> bool {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        match writeln!(file, "{line}") {
            Ok(()) => true,
            Err(e) => {
                say(&format!(
                    "tapebuf: -l/--log {}: cannot write: {e}",
                    self.path.display()
                ));
                false
            }
        }
    }
}

/// Starts the thread that prints a status record every `every`, until
/// `stop` disconnects. It returns false if the log could not be written
/// (and then stops logging).
pub fn spawn(
    log: Option<Log>,
    stats: Arc<Stats>,
    every: Duration,
    stop: Receiver<()>,
) -> JoinHandle<bool> {
    std::thread::Builder::new()
        .name("status-log".into())
        .spawn(move || {
            let ticks = tick(every);
            loop {
                select! {
                    recv(stop) -> _ => return true,
                    recv(ticks) -> _ => {}
                }
                let line = status_line(&stats);
                match &log {
                    Some(log) => {
                        if !log.write_line(&line) {
                            return false;
                        }
                    }
                    None => say(&line),
                }
            }
        })
        .expect("spawning the status-log thread")
}
