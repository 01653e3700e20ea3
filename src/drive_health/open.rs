//! Finding the drive to ask, and every way that can fail as one line and
//! an exit status. A remote name (`host:/dev/nst0`) is refused (health
//! needs SCSI commands on the drive itself), as is a path that is not a
//! tape drive (2); a drive that cannot be opened is an I/O failure (1).
//!
//! The path is looked at before it is opened, because opening alone can
//! act: only a tape driver's node is opened, and only without waiting
//! for a cartridge (`Device::probe`, O_NONBLOCK), then closed again with
//! st's status read.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::base::console::message;
use crate::base::errors::plain;
use crate::base::exit::{FAILURE, USAGE};
use crate::rmt::name::RemoteName;
use crate::tape::drive::char_devices::{not_a_device, CharDevice, Verdict};
use crate::tape::{Access, Device, DriveStatus};

/// Why the drive is not asked: the one line, and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub line: String,
    pub status: i32,
}

impl Refusal {
    /// `tapebuf: drive: <path>: <why>`, exit status `status`.
    pub fn new(path: &Path, why: &str, status: i32) -> Refusal {
        Refusal {
            line: message!("drive: {}: {why}", path.display()),
            status,
        }
    }

    fn not_a_drive(path: &Path, why: &str) -> Refusal {
        Refusal::new(path, &format!("not a tape drive ({why})"), USAGE)
    }
}

/// The tape drive at `path`, closed, and its status.
pub fn probe(path: &Path) -> Result<(Device, Option<DriveStatus>), Refusal> {
    refuse_remote(path)?;
    look_before_opening(path)?;
    match Device::probe(path, Access::Read) {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(Refusal::not_a_drive(path, "st does not answer MTIOCGET")),
        Err(e) => Err(Refusal::new(
            path,
            &format!("cannot open it: {}", plain(&e)),
            FAILURE,
        )),
    }
}

/// Refuses a remote name: health is read with SCSI commands, which rmt
/// does not carry.
fn refuse_remote(path: &Path) -> Result<(), Refusal> {
    match RemoteName::parse(path) {
        Ok(None) => Ok(()),
        Ok(Some(remote)) => {
            let why = format!(
                "health is read only on a local drive; run `tapebuf drive {}` on {}",
                remote.path, remote.host
            );
            Err(Refusal::new(path, &why, USAGE))
        }
        Err(why) => Err(Refusal {
            line: message!("drive: {why}"),
            status: USAGE,
        }),
    }
}

/// Refuses `path` unless it is a tape driver's character device.
fn look_before_opening(path: &Path) -> Result<(), Refusal> {
    let meta = std::fs::metadata(path).map_err(|e| Refusal::new(path, &plain(&e), FAILURE))?;
    let kind = meta.file_type();
    if !kind.is_char_device() {
        return Err(Refusal::not_a_drive(path, not_a_device(kind)));
    }
    match CharDevice::at_path(path) {
        Some(device) if matches!(device.verdict(), Verdict::Tape { .. }) => Ok(()),
        Some(device) => Err(Refusal::not_a_drive(
            path,
            &format!("{}; not opened", device.describe()),
        )),
        None => Err(Refusal::not_a_drive(path, "not a character device")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(path: &str) -> Refusal {
        probe(Path::new(path)).map(|_| ()).unwrap_err()
    }

    #[test]
    fn a_remote_drive_is_refused_naming_its_host_and_the_command_to_run_there() {
        for name in ["vault:/dev/nst0", "backup@vault:/dev/nst0"] {
            let r = refusal(name);
            assert_eq!(r.status, USAGE);
            assert_eq!(
                r.line,
                format!(
                    "tapebuf: drive: {name}: health is read only on a local drive; \
                     run `tapebuf drive /dev/nst0` on vault"
                )
            );
        }
    }

    #[test]
    fn a_regular_file_is_refused_unopened_as_a_usage_error() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let r = probe(f.path()).map(|_| ()).unwrap_err();
        assert_eq!(r.status, USAGE);
        let expected = format!(
            "tapebuf: drive: {}: not a tape drive (a regular file)",
            f.path().display()
        );
        assert_eq!(r.line, expected);
    }

    #[test]
    fn a_character_device_of_another_driver_is_refused_unopened() {
        let r = refusal("/dev/null");
        assert_eq!(r.status, USAGE);
        assert!(
            r.line
                .starts_with("tapebuf: drive: /dev/null: not a tape drive (character device 1:3"),
            "{}",
            r.line
        );
        assert!(r.line.ends_with("; not opened)"), "{}", r.line);
    }

    #[test]
    fn a_missing_path_is_an_io_failure_naming_it() {
        let r = refusal("/nonexistent/nst9");
        assert_eq!(r.status, FAILURE);
        assert_eq!(
            r.line,
            "tapebuf: drive: /nonexistent/nst9: No such file or directory"
        );
    }

    #[test]
    fn a_directory_is_not_a_drive() {
        let r = refusal("/");
        assert_eq!(r, Refusal::not_a_drive(Path::new("/"), "a directory"));
    }
}
