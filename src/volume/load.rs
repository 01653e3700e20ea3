//! Getting the next volume in and open, after the last one was finished:
//! the change (command or prompt), the wait until a tape drive is ready,
//! and the open. A cartridge the drive refuses for this volume (one that is
//! write-protected when writing, or one the drive cannot use) is not the
//! end of the run: it is ejected, a line says why, and another is asked
//! for, at most `MAX_REFUSALS` times in a row. So is a file medium that
//! still holds the last volume (Enter pressed without swapping the disk:
//! the open fails with `AlreadyExists` rather than overwrite it). A
//! declined prompt, a failing
//! command, a drive that never becomes ready, or any other open error ends
//! the change as before. The caller marks the whole change on its
//! `VolumeLog`, so that the watchdog leaves it to these limits.
//!
//! With a changer's loader in the policy, the loader gets the cartridge
//! in, and one asked for again after a refusal is the pool's next (the
//! refused one is marked and never offered again), so refusals are
//! bounded by the pool rather than by `MAX_REFUSALS`; a cleaning
//! cartridge is not ejected (st cannot), the changer moves it.

use std::io;

use crossbeam_channel::Receiver;

use crate::base::console::{message, say};
use crate::tape::drive::{Access, Drive};
use crate::tape::scsi::sense::Unusable;
use crate::volume::{ready, ChangePolicy, ChangeRequest, VolumeLog};

/// Refused cartridges asked for again, for one volume, before giving up.
pub const MAX_REFUSALS: u32 = 3;

/// The medium being changed, as the loader sees it.
pub trait Load {
    /// The tape drive behind the medium, to wait for; None for files and
    /// remote media.
    fn drive(&mut self) -> Option<&mut dyn Drive>;

    /// Opens the next volume the usual way.
    fn open(&mut self) -> io::Result<()>;
}

/// Why the next volume is not open.
#[derive(Debug)]
pub enum LoadFailed {
    /// The change, the wait or the refusals: why, in words.
    Change(String),
    /// The open itself failed.
    Open(io::Error),
}

/// One volume change: what is wanted, and how.
pub struct Change<'a> {
    pub policy: &'a ChangePolicy,
    /// Someone (a person or the command) must put the volume in; else it
    /// is there already (numbered files) and is only opened.
    pub swap: bool,
    pub req: &'a ChangeRequest<'a>,
    pub stop: &'a Receiver<()>,
    /// Where the wait for the drive is shown.
    pub log: &'a VolumeLog,
}

impl Change<'_> {
    /// Gets volume `req.next_volume` in and opens it.
    pub fn load(&self, medium: &mut dyn Load) -> Result<(), LoadFailed> {
        let req = self.req;
        let mut refused: Option<String> = None;
        for attempt in 1.. {
            if self.swap {
                let again = ChangeRequest {
                    refused: refused.as_deref().or(self.req.refused),
                    ..req.clone()
                };
                match &self.policy.loader {
                    Some(loader) => {
                        let want = again.wanting();
                        loader
                            .change(&want, medium.drive(), self.stop, &|n| self.log.set_note(n))
                            .map_err(|e| e.to_string())
                    }
                    None => self.policy.change(&again, self.stop),
                }
                .map_err(LoadFailed::Change)?;
            }
            let Refused { why, cleaning } = match self.try_open(medium)? {
                None => return Ok(()),
                Some(refused) => refused,
            };
            let what = match medium.drive() {
                Some(_) => "cartridge",
                None => "medium",
            };
            let loader = self.policy.loader.is_some();
            if attempt > MAX_REFUSALS && !loader {
                return Err(LoadFailed::Change(format!(
                    "the {what} loaded as volume {} {why}, and so were the {MAX_REFUSALS} before it; giving up",
                    req.next_volume
                )));
            }
            say(&message!(
                "{}: the {what} loaded as volume {} {why}; asking for another",
                req.device,
                req.next_volume
            ));
            if let Some(drive) = medium.drive().filter(|_| !(loader && cleaning)) {
                eject_refused(drive);
            }
            refused = Some(why);
        }
        unreachable!("the attempts are counted without end")
    }

    /// Waits for a drive, then opens. Ok(Some(why)) if the cartridge was
    /// refused and another should be asked for.
    fn try_open(&self, medium: &mut dyn Load) -> Result<Option<Refused>, LoadFailed> {
        let req = self.req;
        if let (true, Some(drive)) = (self.swap, medium.drive()) {
            let limit = self.policy.timeout.unwrap_or(ready::DEFAULT_TIMEOUT);
            let status =
                ready::wait_until_ready(drive, req.next_volume, limit, self.stop, self.log)
                    .map_err(LoadFailed::Change)?;
            if let Some(unusable) = status.unusable {
                return Ok(Some(Refused {
                    why: unusable.why().to_string(),
                    cleaning: unusable == Unusable::CleaningCartridge,
                }));
            }
            if req.access == Access::Write && status.write_protected {
                return Ok(Some(Refused::because("is write-protected".to_string())));
            }
        }
        match medium.open() {
            Ok(()) => Ok(None),
            Err(e) if self.swap && refusal(&e) => Ok(Some(Refused::because(format!(
                "was refused by the drive ({e})"
            )))),
            // A file that is there already: the medium was not swapped.
            Err(e) if self.swap && e.kind() == io::ErrorKind::AlreadyExists => {
                Ok(Some(Refused::because(e.to_string())))
            }
            Err(e) => Err(LoadFailed::Open(e)),
        }
    }
}

/// Why a loaded cartridge or medium was refused for its volume.
struct Refused {
    /// In words, after "the cartridge loaded as volume N".
    why: String,
    /// It is a cleaning cartridge, which a loader takes back itself.
    cleaning: bool,
}

impl Refused {
    /// Refused for `why`; not a cleaning cartridge.
    fn because(why: String) -> Refused {
        Refused {
            why,
            cleaning: false,
        }
    }
}

/// Ejects a cartridge refused for a volume. st cannot unload some
/// (mhvtl's cleaning cartridge: EIO), but a changer's command can still
/// move it, so that is said and the change goes on.
pub fn eject_refused(drive: &mut dyn Drive) {
    if let Err(e) = drive.eject_unopened() {
        say(&message!(
            "{}: cannot eject the refused cartridge ({e}); the change command must move it",
            drive.name()
        ));
    }
}

/// Open errors that mean "not this cartridge": st fails an open for
/// writing with EROFS on a write-protected one; EMEDIUMTYPE is a medium the
/// drive cannot use.
fn refusal(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EROFS | libc::EMEDIUMTYPE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::never;

    /// A medium whose opens fail with the errors given, then succeed.
    struct Opens(Vec<i32>);

    impl Load for Opens {
        fn drive(&mut self) -> Option<&mut dyn Drive> {
            None
        }
        fn open(&mut self) -> io::Result<()> {
            match self.0.pop() {
                Some(errno) => Err(io::Error::from_raw_os_error(errno)),
                None => Ok(()),
            }
        }
    }

    const REQUEST: ChangeRequest<'static> = ChangeRequest {
        access: Access::Write,
        device: "/mnt/disk/backup.tar",
        next_volume: 2,
        finished_bytes: 10,
        refused: None,
    };

    /// Loads into `medium` with `policy`, as a write of volume 2.
    fn load(policy: &ChangePolicy, medium: &mut dyn Load) -> Result<(), LoadFailed> {
        let log = VolumeLog::new("disk");
        let change = Change {
            policy,
            swap: true,
            req: &REQUEST,
            stop: &never(),
            log: &log,
        };
        change.load(medium)
    }

    fn counting(path: &std::path::Path) -> ChangePolicy {
        ChangePolicy {
            command: Some(format!(
                "echo \"$TAPEBUF_VOLUME ${{TAPEBUF_REFUSED:-none}}\" >> {}",
                path.display()
            )),
            timeout: None,
            loader: None,
        }
    }

    #[test]
    fn a_read_only_medium_is_answered_by_asking_again() {
        let dir = tempfile::tempdir().unwrap();
        let calls = dir.path().join("calls");
        let mut medium = Opens(vec![libc::EROFS]);
        load(&counting(&calls), &mut medium).unwrap();
        let seen = std::fs::read_to_string(&calls).unwrap();
        let lines: Vec<&str> = seen.lines().collect();
        assert_eq!(lines.len(), 2, "{seen}");
        assert_eq!(lines[0], "2 none");
        assert!(lines[1].starts_with("2 was refused by the drive"), "{seen}");
    }

    #[test]
    fn refusals_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let calls = dir.path().join("calls");
        let mut medium = Opens(vec![libc::EROFS; 10]);
        let e = load(&counting(&calls), &mut medium).unwrap_err();
        let LoadFailed::Change(why) = e else {
            panic!("{e:?}")
        };
        assert!(why.contains("so were the 3 before it; giving up"), "{why}");
        let seen = std::fs::read_to_string(&calls).unwrap();
        assert_eq!(seen.lines().count(), MAX_REFUSALS as usize + 1);
    }

    /// A medium whose opens find the last volume still there `times`
    /// times, as file volumes do when nobody swapped the disk.
    struct NotSwapped(u32);

    impl Load for NotSwapped {
        fn drive(&mut self) -> Option<&mut dyn Drive> {
            None
        }
        fn open(&mut self) -> io::Result<()> {
            if self.0 == 0 {
                return Ok(());
            }
            self.0 -= 1;
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "already holds /mnt/disk/backup.tar",
            ))
        }
    }

    #[test]
    fn a_medium_that_was_not_swapped_is_asked_for_again_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let calls = dir.path().join("calls");
        load(&counting(&calls), &mut NotSwapped(1)).unwrap();
        let seen = std::fs::read_to_string(&calls).unwrap();
        assert_eq!(
            seen.lines().nth(1),
            Some("2 already holds /mnt/disk/backup.tar")
        );

        let calls = dir.path().join("calls-bounded");
        let e = load(&counting(&calls), &mut NotSwapped(10)).unwrap_err();
        let LoadFailed::Change(why) = e else {
            panic!("{e:?}")
        };
        assert!(why.contains("giving up"), "{why}");
        let seen = std::fs::read_to_string(&calls).unwrap();
        assert_eq!(seen.lines().count(), MAX_REFUSALS as usize + 1);
    }

    #[test]
    fn other_open_errors_still_fail_at_once() {
        let mut medium = Opens(vec![libc::EIO]);
        let policy = ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        };
        let e = load(&policy, &mut medium).unwrap_err();
        assert!(matches!(e, LoadFailed::Open(ref io) if io.raw_os_error() == Some(libc::EIO)));
    }
}
