//! Volume 1 at the start of a run, before the drive is opened for real.
//!
//! st's blocking open of a drive with no cartridge, or one still loading,
//! sits for 120 s (ST_BLOCK_SECONDS) and then fails with "No medium
//! found" or EIO, and a timeout of our own cannot cut it short. So a tape
//! is first asked without waiting (O_NONBLOCK and MTIOCGET), and:
//!
//! - a ready drive is opened at once;
//! - a drive with no cartridge gets one the way a volume change would (the
//!   change command, or the prompt on a terminal), with a line saying so,
//!   and is then waited for up to `--change-timeout`; with no way to get
//!   one (a cron job), the run ends at once with "no cartridge in DEVICE";
//! - a cartridge still loading is waited for up to `--change-timeout`
//!   (two hours without it, enough for an LTO-9's first calibration), with
//!   a line saying so;
//! - when writing, a write-protected cartridge is ejected and another is
//!   asked for, if a change command can bring one;
//! - a cartridge no wait makes ready (a cleaning cartridge, one the drive
//!   cannot use; `sense.rs` asks the drive) is ejected and another asked
//!   for the same way, or, with no way to get one, refused at once.
//!
//! Only then is the device opened as usual, so the open never waits.
//!
//! With a changer's loader the drive always goes through it: a cartridge
//! already in the drive that is the one wanted for volume 1 (the pool's
//! first candidate, or volume 1's barcode) is used as it is; any other is
//! ejected (never a cleaning cartridge) and moved home first, and the one
//! wanted is moved in and waited for.

use std::io;
use std::path::Path;

use crossbeam_channel::never;

use crate::base::console::{message, say};
use crate::tape::drive::{Access, Device, Drive, DriveStatus};
use crate::tape::scsi::sense::Unusable;
use crate::volume::load::{eject_refused, Change, Load, LoadFailed};
use crate::volume::{ready, ChangePolicy, ChangeRequest, VolumeLog};

/// The drive as the loader opens it for volume 1.
struct FirstVolume<'d> {
    drive: &'d mut dyn Drive,
}

impl Load for FirstVolume<'_> {
    fn drive(&mut self) -> Option<&mut dyn Drive> {
        Some(&mut *self.drive)
    }

    fn open(&mut self) -> io::Result<()> {
        self.drive.reopen()
    }
}

/// Opens the tape drive at `path` for volume 1, getting a cartridge in
/// first as `open_first` does; None when `path` is not a tape drive.
pub fn open_tape(
    path: &Path,
    access: Access,
    policy: &ChangePolicy,
    quiet: bool,
) -> io::Result<Option<Device>> {
    match Device::probe(path, access)? {
        None => Ok(None),
        Some((device, None)) => Ok(Some(device)),
        Some((mut device, Some(status))) => {
            open_first(&mut device, status, access, policy, quiet).map_err(io::Error::other)?;
            Ok(Some(device))
        }
    }
}

/// Gets `drive` (closed, last seen as `status`) ready for volume 1 and
/// opens it, or says why it cannot be. `quiet` keeps the waiting lines
/// off stderr.
pub fn open_first(
    drive: &mut dyn Drive,
    status: DriveStatus,
    access: Access,
    policy: &ChangePolicy,
    quiet: bool,
) -> Result<(), String> {
    if policy.loader.is_some() {
        return through_changer(drive, access, policy);
    }
    let protected = access == Access::Write && status.write_protected && status.ready();
    let refused = status
        .unusable
        .map(Unusable::why)
        .or((protected && policy.command.is_some()).then_some("is write-protected"));
    if status.ready() && refused.is_none() {
        return drive.reopen().map_err(|e| e.to_string());
    }
    if status.door_open || refused.is_some() {
        return fetch(drive, refused, access, policy, quiet);
    }
    let limit = policy.timeout.unwrap_or(ready::DEFAULT_TIMEOUT);
    if !quiet {
        say(&message!(
            "{}: the cartridge is still loading; waiting up to {} s for it (--change-timeout)",
            drive.name(),
            limit.as_secs()
        ));
    }
    let log = VolumeLog::new(drive.name());
    let status = ready::wait_until_ready(drive, 1, limit, &never(), &log)?;
    match status.unusable {
        None => drive.reopen().map_err(|e| e.to_string()),
        // It turned out to be one that no wait makes ready.
        Some(_) => open_first(drive, status, access, policy, quiet),
    }
}

/// Gets volume 1's cartridge into `drive` through the policy's loader and
/// opens it.
fn through_changer(
    drive: &mut dyn Drive,
    access: Access,
    policy: &ChangePolicy,
) -> Result<(), String> {
    let name = drive.name().to_string();
    load_first(drive, access, policy, None).map_err(|failed| match failed {
        LoadFailed::Change(e) => format!("cannot load volume 1 into {name}: {e}"),
        LoadFailed::Open(e) => format!("cannot open {name}: {e}"),
    })
}

/// Volume 1 got in the way a volume change gets one (`refused`: why the
/// cartridge there is not taken), and opened.
fn load_first(
    drive: &mut dyn Drive,
    access: Access,
    policy: &ChangePolicy,
    refused: Option<&str>,
) -> Result<(), LoadFailed> {
    let name = drive.name().to_string();
    let request = ChangeRequest {
        access,
        device: &name,
        next_volume: 1,
        finished_bytes: 0,
        refused,
    };
    let log = VolumeLog::new(&name);
    let change = Change {
        policy,
        swap: true,
        req: &request,
        stop: &never(),
        log: &log,
    };
    change.load(&mut FirstVolume { drive })
}

/// Gets a cartridge into `drive`, which has none or one that is
/// `refused`, the way a volume change does, and opens it.
fn fetch(
    drive: &mut dyn Drive,
    refused: Option<&'static str>,
    access: Access,
    policy: &ChangePolicy,
    quiet: bool,
) -> Result<(), String> {
    let name = drive.name().to_string();
    if let (Some(r), None) = (refused, &policy.command) {
        if std::fs::File::open("/dev/tty").is_err() {
            // Nobody to bring another: the cartridge stays where it is.
            return Err(format!(
                "the cartridge in {name} {r}, and there is no -A/--change-command and no terminal to ask for another"
            ));
        }
    }
    if refused.is_some() {
        eject_refused(drive);
    }
    let limit = policy.timeout.unwrap_or(ready::DEFAULT_TIMEOUT);
    let why = refused.map_or("there is no cartridge in it".to_string(), |r| {
        format!("the cartridge in it {r}")
    });
    let way = match &policy.command {
        Some(_) => "running the change command for volume 1",
        None => "asking for volume 1",
    };
    if !quiet || policy.command.is_none() {
        say(&message!(
            "{name}: {why}; {way}, then waiting up to {} s for it (--change-timeout)",
            limit.as_secs()
        ));
    }
    load_first(drive, access, policy, refused).map_err(|failed| match (failed, refused) {
        (LoadFailed::Change(e), None) => format!("no cartridge in {name}: {e}"),
        (LoadFailed::Change(e), Some(r)) => format!("the cartridge in {name} {r}: {e}"),
        (LoadFailed::Open(e), _) => format!("cannot open {name}: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::emulated::{Cartridge, Emulated};
    use crate::tape::TapeOp;
    use std::time::{Duration, Instant};

    /// A drive whose cartridge was unloaded, with `rest` on the shelf.
    fn empty_drive(rest: Vec<Cartridge>) -> Emulated {
        let mut slots = vec![Cartridge::blank(100, 0)];
        slots.extend(rest);
        let (mut d, _shelf) = Emulated::new("/dev/nst0", slots);
        d.op(TapeOp::Unload).unwrap();
        d.close().unwrap();
        d
    }

    #[test]
    fn an_empty_drive_with_no_way_to_get_a_cartridge_fails_at_once_naming_it() {
        let mut d = empty_drive(vec![]);
        let status = d.status_unopened().unwrap();
        assert!(status.door_open);
        let policy = ChangePolicy::default();
        let started = Instant::now();
        let e = open_first(&mut d, status, Access::Write, &policy, true).unwrap_err();
        assert!(e.starts_with("no cartridge in /dev/nst0"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn an_empty_drive_gets_its_cartridge_from_the_change_command() {
        let mut d = empty_drive(vec![Cartridge::blank(100, 0)]);
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("volume");
        let policy = ChangePolicy {
            command: Some(format!("echo $TAPEBUF_VOLUME > {}", seen.display())),
            timeout: Some(Duration::from_secs(10)),
            loader: None,
        };
        // The emulated changer loads the next cartridge when asked.
        let status = DriveStatus {
            door_open: true,
            ..DriveStatus::default()
        };
        open_first(&mut d, status, Access::Write, &policy, true).unwrap();
        assert_eq!(std::fs::read_to_string(seen).unwrap().trim(), "1");
        assert!(d.status().unwrap().ready());
    }

    #[test]
    fn a_cartridge_still_loading_is_waited_for_within_the_limit() {
        let slow = Cartridge {
            load_delay: Duration::MAX,
            ..Cartridge::blank(100, 0)
        };
        let mut d = empty_drive(vec![slow]);
        let status = d.status_unopened().unwrap();
        assert!(!status.ready() && !status.door_open, "{status:?}");
        let policy = ChangePolicy {
            command: None,
            timeout: Some(Duration::from_millis(200)),
            loader: None,
        };
        let e = open_first(&mut d, status, Access::Read, &policy, true).unwrap_err();
        assert!(e.contains("still not ready for volume 1 after"), "{e}");
    }

    #[test]
    fn a_cleaning_cartridge_is_refused_at_once_or_swapped_by_the_command() {
        let cleaning = Cartridge {
            cleaning: true,
            ..Cartridge::blank(100, 0)
        };
        let mut d = empty_drive(vec![cleaning.clone()]);
        let status = d.status_unopened().unwrap();
        assert_eq!(status.unusable, Some(Unusable::CleaningCartridge));
        let started = Instant::now();
        let e = open_first(
            &mut d,
            status,
            Access::Write,
            &ChangePolicy::default(),
            true,
        )
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        if std::fs::File::open("/dev/tty").is_err() {
            assert!(
                e.starts_with(
                    "the cartridge in /dev/nst0 is a cleaning cartridge, and there is no -A"
                ),
                "{e}"
            );
        }

        let mut d = empty_drive(vec![cleaning, Cartridge::blank(100, 0)]);
        let status = d.status_unopened().unwrap();
        let policy = ChangePolicy {
            command: Some("true".into()),
            timeout: Some(Duration::from_secs(10)),
            loader: None,
        };
        open_first(&mut d, status, Access::Write, &policy, true).unwrap();
        assert!(d.status().unwrap().ready());
    }

    #[test]
    fn a_write_protected_cartridge_is_swapped_when_a_command_can_do_it() {
        let protected = Cartridge {
            write_protected: true,
            ..Cartridge::blank(100, 0)
        };
        let (mut d, shelf) = Emulated::new("/dev/nst0", vec![protected, Cartridge::blank(100, 0)]);
        d.for_writing();
        d.close().unwrap();
        let status = DriveStatus {
            online: true,
            write_protected: true,
            ..DriveStatus::default()
        };
        let policy = ChangePolicy {
            command: Some("true".into()),
            timeout: Some(Duration::from_secs(10)),
            loader: None,
        };
        open_first(&mut d, status, Access::Write, &policy, true).unwrap();
        assert_eq!(shelf.lock().unwrap().loaded, Some(1));
    }
}
