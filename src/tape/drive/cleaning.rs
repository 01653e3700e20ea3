//! A drive that asks to be cleaned. Drives count their head's hours and
//! errors and set a cleaning request (GMT_CLN in MTIOCGET's `mt_gstat`);
//! a dirty head gives read and write errors and fills tapes early. The
//! drive still works, so tapebuf does not stop: it warns, once per run,
//! at the first point where it looks and the drive asks: when the device
//! is opened, when each new volume is opened, and before each close (so
//! a request raised during the run is reported at its end).
//!
//! A request is GMT_CLN, or TapeAlert flag 20 or 21 (read with LOG SENSE;
//! reading clears the flags in the drive, so the watch keeps what it saw
//! and hands it on to whoever asks the wrapped drive's `tape_alerts`: the
//! changer's loader, which cleans between volumes with `--clean`, and then
//! tells the watch, through `Drive::cleaned`, to forget them).

use crate::base::console::message;
use std::io;

use crate::tape::drive::{pass_on, Drive};
use crate::tape::scsi::pages::tape_alert::TapeAlerts;

/// Where warnings go: stderr in the program, a list in tests.
pub type Warn = Box<dyn FnMut(&str) + Send>;

/// Wraps a drive and watches its cleaning request.
pub struct CleaningWatch {
    drive: Box<dyn Drive>,
    warn: Warn,
    /// The volume in the drive, from 1.
    volume: u32,
    warned: bool,
    /// The TapeAlert flags seen and not yet answered by a cleaning.
    alerts: TapeAlerts,
    /// Who cleans the drive, which the warning says.
    by: CleanedBy,
}

/// Who cleans a drive that asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CleanedBy {
    /// A person, before the next run.
    Person,
    /// The drive is in a library tapebuf drives (`--changer`), but
    /// `--clean` was not given.
    PersonInLibrary,
    /// The library, between volumes (`--changer --clean`).
    Library,
}

impl CleaningWatch {
    /// `drive` is open with volume 1 loaded; it is looked at at once.
    pub fn new(drive: Box<dyn Drive>, warn: Warn) -> CleaningWatch {
        CleaningWatch::cleaned_by(drive, warn, CleanedBy::Person)
    }

    /// As `new`, the warnings saying who cleans the drive: `by`.
    pub fn cleaned_by(drive: Box<dyn Drive>, warn: Warn, by: CleanedBy) -> CleaningWatch {
        let mut watch = CleaningWatch {
            drive,
            warn,
            volume: 1,
            warned: false,
            alerts: TapeAlerts::default(),
            by,
        };
        watch.look("at the start of volume 1");
        watch
    }

    /// Warns through stderr, as the program does.
    pub fn to_stderr(drive: Box<dyn Drive>, by: CleanedBy) -> CleaningWatch {
        CleaningWatch::cleaned_by(drive, Box::new(crate::base::console::say), by)
    }

    fn look(&mut self, when: &str) {
        if let Ok(alerts) = self.drive.tape_alerts() {
            self.alerts = self.alerts.union(alerts);
        }
        if self.warned {
            return;
        }
        // A drive that cannot say is not asking.
        let flagged = self.alerts.wants_cleaning();
        if flagged || self.drive.status().is_ok_and(|s| s.needs_cleaning) {
            self.warned = true;
            let then = match self.by {
                CleanedBy::Library => {
                    "the changer's cleaning cartridge is loaded before the next volume (--clean)"
                }
                CleanedBy::PersonInLibrary => {
                    "give --clean to let the library clean it between volumes, or load a \
                     cleaning cartridge before the next run, since a dirty head gives read and \
                     write errors"
                }
                CleanedBy::Person => {
                    "load a cleaning cartridge before the next run, since a dirty head gives \
                     read and write errors"
                }
            };
            let line = message!(
                "{}: warning: the drive reports that it needs cleaning ({when}); {then}",
                self.drive.name()
            );
            (self.warn)(&line);
        }
    }
}

impl Drive for CleaningWatch {
    fn close(&mut self) -> io::Result<()> {
        let when = format!("at the end of volume {}", self.volume);
        self.look(&when);
        self.drive.close()
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.drive.reopen()?;
        self.volume += 1;
        let when = format!("at the start of volume {}", self.volume);
        self.look(&when);
        Ok(())
    }

    /// What the drive raises now, with what the watch saw before.
    fn tape_alerts(&mut self) -> io::Result<TapeAlerts> {
        let now = self.drive.tape_alerts()?;
        self.alerts = self.alerts.union(now);
        Ok(self.alerts)
    }

    fn cleaned(&mut self) {
        self.alerts = TapeAlerts::default();
        self.drive.cleaned();
    }

    pass_on!(drive: write_record, write_record_in, read_record, read_record_in, op, status,
        name, position, protection, drop_protection, transfer_limits, status_unopened,
        eject_unopened, ready_poll_interval, scsi_command, cartridge_serial);
}
