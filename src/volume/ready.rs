//! Waiting for a drive after a volume change.
//!
//! A changer reports a load as done while the drive is still threading and
//! calibrating the cartridge (an LTO-9 takes 20 minutes to 2 hours on a new
//! one), and an operator presses Enter before the door has closed. st's
//! blocking open polls for only 120 s (ST_BLOCK_SECONDS) and then fails
//! with ENOMEDIUM or EIO. So after a change tapebuf asks without waiting:
//! open with O_NONBLOCK, MTIOCGET, close, and again every few seconds while
//! the door is open (GMT_DR_OPEN) or the drive is not online, up to the
//! change's time limit. Only a ready drive is opened as usual. The wait
//! ends early on a stop, or on an error that waiting cannot cure (no such
//! device, no permission).

use std::io;
use std::time::Duration;

use crossbeam_channel::Receiver;

use crate::base::deadline::{Deadline, Pause};
use crate::tape::drive::{Drive, DriveStatus};
use crate::volume::VolumeLog;

/// The wait's limit without `--change-timeout`: long enough for an LTO-9
/// to calibrate a new cartridge.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2 * 3600);

/// Asks `drive` (closed) until it is ready for volume `volume`, for at most
/// `limit`. Returns its status then, or says why it is not ready.
pub fn wait_until_ready(
    drive: &mut dyn Drive,
    volume: u32,
    limit: Duration,
    stop: &Receiver<()>,
    log: &VolumeLog,
) -> Result<DriveStatus, String> {
    log.set_waiting(true);
    let waited = poll(drive, volume, limit, stop);
    log.set_waiting(false);
    waited
}

fn poll(
    drive: &mut dyn Drive,
    volume: u32,
    limit: Duration,
    stop: &Receiver<()>,
) -> Result<DriveStatus, String> {
    let deadline = Deadline::new(limit, drive.ready_poll_interval());
    loop {
        let last = match drive.status_unopened() {
            // No wait helps a cleaning cartridge: the caller refuses it.
            Ok(status) if status.ready() || status.unusable.is_some() => return Ok(status),
            Ok(status) if status.door_open => "there is no cartridge in it (door open)".to_string(),
            Ok(_) => "the cartridge is still loading (not online)".to_string(),
            Err(e) if hopeless(&e) => {
                return Err(format!(
                    "cannot ask {} whether volume {volume} is ready: {e}",
                    drive.name()
                ))
            }
            Err(e) => format!("its last answer was: {e}"),
        };
        match deadline.pause(stop) {
            Pause::Look => {}
            Pause::TimedOut(waited) => {
                return Err(format!(
                    "{} was still not ready for volume {volume} after {:.1} s (--change-timeout): {last}",
                    drive.name(),
                    waited.as_secs_f64()
                ))
            }
            Pause::Stopped => {
                return Err(format!(
                    "stopped while waiting {:.1} s for {} to be ready for volume {volume}",
                    deadline.waited().as_secs_f64(),
                    drive.name()
                ))
            }
        }
    }
}

/// Errors that no amount of waiting cures. Anything else (EBUSY while the
/// changer still has the device open, EIO, ENOMEDIUM) is asked again.
fn hopeless(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOENT | libc::ENODEV | libc::ENXIO | libc::EACCES | libc::EPERM | libc::ENOTTY)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::emulated::{Cartridge, Emulated};
    use crate::tape::TapeOp;
    use crossbeam_channel::never;
    use std::time::Instant;

    fn unloaded_drive(second: Cartridge) -> (Emulated, crate::tape::emulated::Shelf) {
        let (mut d, shelf) = Emulated::new("/dev/nst0", vec![Cartridge::blank(100, 0), second]);
        d.op(TapeOp::Unload).unwrap();
        d.close().unwrap();
        (d, shelf)
    }

    #[test]
    fn waits_until_a_slow_cartridge_is_ready() {
        let slow = Cartridge {
            load_delay: Duration::from_millis(200),
            ..Cartridge::blank(100, 0)
        };
        let (mut d, shelf) = unloaded_drive(slow);
        let log = VolumeLog::new("/dev/nst0");
        let started = Instant::now();
        let status = wait_until_ready(&mut d, 2, Duration::from_secs(10), &never(), &log).unwrap();
        assert!(status.ready());
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert!(shelf.lock().unwrap().unopened_polls > 1);
        assert!(log.waiting_for().is_none(), "the wait is over");
        d.reopen().unwrap();
    }

    #[test]
    fn gives_up_at_the_limit_naming_the_drive_and_the_time() {
        let never_ready = Cartridge {
            load_delay: Duration::MAX,
            ..Cartridge::blank(100, 0)
        };
        let (mut d, _) = unloaded_drive(never_ready);
        let log = VolumeLog::new("/dev/nst0");
        let e =
            wait_until_ready(&mut d, 2, Duration::from_millis(100), &never(), &log).unwrap_err();
        assert!(
            e.contains("/dev/nst0 was still not ready for volume 2 after 0.1 s"),
            "{e}"
        );
        assert!(e.contains("still loading"), "{e}");
        let io = d.reopen().unwrap_err();
        assert_eq!(
            io.raw_os_error(),
            Some(libc::EIO),
            "a blocking open fails as st's"
        );
    }

    #[test]
    fn a_stop_ends_the_wait_at_once() {
        let never_ready = Cartridge {
            load_delay: Duration::MAX,
            ..Cartridge::blank(100, 0)
        };
        let (mut d, _) = unloaded_drive(never_ready);
        let log = VolumeLog::new("/dev/nst0");
        let (tx, stop) = crossbeam_channel::bounded(1);
        tx.send(()).unwrap();
        let started = Instant::now();
        let e = wait_until_ready(&mut d, 2, Duration::from_secs(60), &stop, &log).unwrap_err();
        assert!(e.starts_with("stopped while waiting"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn an_empty_drive_reports_its_door_open() {
        let (mut d, _) = Emulated::new("/dev/nst0", vec![Cartridge::blank(100, 0)]);
        d.op(TapeOp::Unload).unwrap();
        d.close().unwrap();
        let log = VolumeLog::new("/dev/nst0");
        let e = wait_until_ready(&mut d, 2, Duration::from_millis(50), &never(), &log).unwrap_err();
        assert!(e.contains("no cartridge in it (door open)"), "{e}");
    }
}
