//! A drive watched for its health through a run. `HealthWatch` wraps the
//! drive a local tape endpoint uses and looks at it (`snapshot::look`)
//! when each volume begins and when it ends: the cartridge's MAM at the
//! start, the error counters at both ends (the volume's corrected errors
//! and retries are the difference), compression, and the TapeAlert flags
//! raised in between. It times the drive's own write and read calls, so
//! the rate it records is the drive's, not the input's. What it sees goes
//! to the run's `HealthLog`; each volume's figures are judged against the
//! drive's history and added to it.
//!
//! Reading the TapeAlert page clears it in the drive, and the cleaning
//! watch (`cleaning.rs`) reads it too: so flags a look found are kept
//! until the next `tape_alerts` call hands them on, and flags that call
//! reads are added to the volume's record. A drive whose health cannot be
//! read at all (the kernel refuses SG_IO) is not asked again; the log
//! says why.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::commands::DriveCommands;
use super::history::{History, VolumeFigures};
use super::record::HealthLog;
use super::snapshot::{identify, look, Snapshot};
use crate::tape::drive::{pass_on, Drive};
use crate::tape::scsi::pages::tape_alert::TapeAlerts;

/// Wraps a drive; keeps what it says of its health in a `HealthLog`.
pub struct HealthWatch {
    drive: Box<dyn Drive>,
    log: Arc<HealthLog>,
    writing: bool,
    /// The volume in the drive, from 1.
    volume: u32,
    /// What the look at the volume's start found.
    start: Option<Snapshot>,
    /// The volume's end has not been looked at yet.
    open: bool,
    /// Flags a look read (clearing them in the drive) and no caller of
    /// `tape_alerts` has been given yet.
    pending: TapeAlerts,
    /// The drive's health cannot be read: it is not asked again.
    blind: bool,
    /// Records written or read on the volume, and the time in those calls.
    records: u64,
    bytes: u64,
    busy: Duration,
    /// The volume reached the end of the medium.
    full: bool,
    /// The drive's history, when it has a serial number and a state
    /// directory was given.
    history: Option<History>,
}

impl HealthWatch {
    /// `drive` is open with volume 1 loaded; it is asked who it is and
    /// looked at at once. `history_dir` holds the drives' histories (None:
    /// no history is read or kept).
    pub fn new(
        drive: Box<dyn Drive>,
        log: Arc<HealthLog>,
        writing: bool,
        history_dir: Option<PathBuf>,
    ) -> HealthWatch {
        let mut watch = HealthWatch {
            drive,
            log,
            writing,
            volume: 1,
            start: None,
            open: false,
            pending: TapeAlerts::default(),
            blind: false,
            records: 0,
            bytes: 0,
            busy: Duration::ZERO,
            full: false,
            history: None,
        };
        let began = Instant::now();
        let identity = identify(&mut DriveCommands(watch.drive.as_mut()));
        watch.log.add_asking(began.elapsed());
        let serial = identity.as_ref().and_then(|i| i.serial.clone());
        watch.log.set_identity(identity);
        if let (Some(dir), Some(serial)) = (history_dir, serial) {
            match History::load(&dir, &serial) {
                Ok(history) => watch.history = Some(history),
                // The error names the file.
                Err(e) => watch.log.set_history_problem(e.to_string()),
            }
        }
        watch.begin();
        watch
    }

    /// The log this watch writes.
    pub fn log(&self) -> Arc<HealthLog> {
        self.log.clone()
    }

    fn look(&mut self) -> Option<Snapshot> {
        if self.blind {
            return None;
        }
        let began = Instant::now();
        let snapshot = look(&mut DriveCommands(self.drive.as_mut()));
        self.log.add_asking(began.elapsed());
        if let Some(why) = &snapshot.unreadable {
            self.log.set_unreadable(why.clone());
            self.blind = true;
            return None;
        }
        self.pending = self.pending.union(snapshot.alerts);
        Some(snapshot)
    }

    /// The volume's start: its cartridge and the counters to subtract.
    fn begin(&mut self) {
        self.records = 0;
        self.bytes = 0;
        self.busy = Duration::ZERO;
        self.full = false;
        self.open = true;
        let snapshot = self.look();
        let volume = self.volume;
        self.log.update(volume, |v| {
            if let Some(s) = &snapshot {
                v.cartridge = s.mam.clone();
                v.add_alerts(s.alerts);
            }
        });
        self.start = snapshot;
    }

    /// The volume's end: what changed since its start.
    fn end(&mut self) {
        if !self.open {
            return;
        }
        self.open = false;
        if self.writing && !self.full {
            self.full = self.drive.status().is_ok_and(|s| s.at_eot);
        }
        let snapshot = self.look();
        let (start, writing) = (self.start.take(), self.writing);
        let (records, bytes) = (self.records, self.bytes);
        let (seconds, full) = (self.busy.as_secs_f64(), writing && self.full);
        self.log.update(self.volume, |v| {
            v.records = records;
            v.bytes = bytes;
            v.drive_seconds = seconds;
            v.full = full;
            if let Some(end) = &snapshot {
                v.add_alerts(end.alerts);
                super::volume_figures::counters(v, start.as_ref(), end, writing);
            }
        });
        self.remember();
    }

    /// Judges the volume against the drive's history and adds it there.
    fn remember(&mut self) {
        let Some(history) = self.history.as_mut() else {
            return;
        };
        let Some(health) = self.log.volume(self.volume) else {
            return;
        };
        let figures = VolumeFigures {
            when: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            writing: self.writing,
            bytes: health.bytes,
            drive_seconds: health.drive_seconds,
            full: health.full,
            medium: super::volume_figures::medium_kind(&health),
        };
        let flagged: Vec<String> = history
            .judge(&figures)
            .iter()
            .map(|d| d.words(self.writing))
            .collect();
        if !flagged.is_empty() {
            self.log.update(self.volume, |v| v.degraded = flagged);
        }
        if let Err(e) = history.append(&[figures]) {
            // The error names the file.
            self.log.set_history_problem(e.to_string());
            self.history = None;
        }
    }

    /// Times one call to the drive, and counts the bytes it moved.
    fn timed(
        &mut self,
        call: impl FnOnce(&mut dyn Drive) -> io::Result<usize>,
    ) -> io::Result<usize> {
        let began = Instant::now();
        let done = call(self.drive.as_mut());
        self.busy += began.elapsed();
        match &done {
            Ok(n) if *n > 0 => {
                self.records += 1;
                self.bytes += *n as u64;
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => self.full = true,
            _ => {}
        }
        done
    }
}

impl Drive for HealthWatch {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        if !self.writing {
            return self.drive.write_record(record);
        }
        self.timed(|d| d.write_record(record))
    }

    fn write_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        if !self.writing {
            return self.drive.write_record_in(buf, len);
        }
        self.timed(|d| d.write_record_in(buf, len))
    }

    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len();
        self.read_record_in(buf, len)
    }

    /// A write run's reads (`--verify` reading the volume back) are not
    /// the volume's figures.
    fn read_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        if self.writing {
            return self.drive.read_record_in(buf, len);
        }
        self.timed(|d| d.read_record_in(buf, len))
    }

    fn close(&mut self) -> io::Result<()> {
        self.end();
        self.drive.close()
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.end();
        self.drive.reopen()?;
        self.volume += 1;
        self.begin();
        Ok(())
    }

    /// The flags raised now, with those a look read and nobody was given;
    /// the new ones go into the volume's record too.
    fn tape_alerts(&mut self) -> io::Result<TapeAlerts> {
        let now = if self.blind {
            TapeAlerts::default()
        } else {
            let began = Instant::now();
            let now = self.drive.tape_alerts();
            self.log.add_asking(began.elapsed());
            now?
        };
        let volume = self.volume;
        self.log.update(volume, |v| v.add_alerts(now));
        let all = std::mem::take(&mut self.pending).union(now);
        Ok(all)
    }

    fn cartridge_serial(&self) -> Option<String> {
        let health = self.log.volume(self.volume)?;
        health.cartridge?.serial
    }

    fn cleaned(&mut self) {
        self.log.set_cleaned();
        self.drive.cleaned();
    }

    pass_on!(drive: op, status, name, position, protection, drop_protection, transfer_limits,
        status_unopened, eject_unopened, scsi_command, ready_poll_interval);
}
