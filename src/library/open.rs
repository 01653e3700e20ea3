//! Reading a changer's inventory, and every way that can fail as one line
//! and an exit status: a path that is no medium changer is a usage error
//! (2), a changer that cannot be opened or read an I/O failure (1).
//!
//! The path is looked at before it is opened, because opening alone can
//! act (a watchdog starts counting): only a character device is opened,
//! and of those only the `ch` and `sg` drivers' nodes and the devices the
//! rest of tapebuf already opens without harm (a tape drive, null, a
//! terminal). Opening never waits (`Changer::open`), and reading the
//! inventory moves nothing.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::base::console::message;
use crate::base::errors::plain;
use crate::base::exit::{FAILURE, USAGE};
use crate::tape::changer::{Changer, ChangerError, Inventory};
use crate::tape::drive::char_devices::{not_a_device, CharDevice, Verdict};

/// Drivers, as `/proc/devices` names them, whose nodes may be changers.
const CHANGER_DRIVERS: [&str; 2] = ["ch", "sg"];

/// Why there is no inventory: the one line, and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub line: String,
    pub status: i32,
}

impl Refusal {
    fn io(line: String) -> Refusal {
        Refusal {
            line,
            status: FAILURE,
        }
    }

    fn not_a_changer(path: &Path, why: &str) -> Refusal {
        Refusal {
            line: message!("{}: not a medium changer ({why})", path.display()),
            status: USAGE,
        }
    }
}

/// The inventory of the changer at `path`.
pub fn read_inventory(path: &Path) -> Result<Inventory, Refusal> {
    look_before_opening(path)?;
    let mut changer = Changer::open(path).map_err(|e| open_refusal(path, e))?;
    Inventory::read(&mut changer).map_err(|e| read_refusal(path, e))
}

/// Refuses `path` unless it is a device that may be opened to be asked.
fn look_before_opening(path: &Path) -> Result<(), Refusal> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Refusal::io(message!("{}: {}", path.display(), plain(&e))))?;
    let kind = meta.file_type();
    if !kind.is_char_device() {
        return Err(Refusal::not_a_changer(path, not_a_device(kind)));
    }
    match CharDevice::at_path(path) {
        Some(device) if !may_open(&device) => {
            let why = format!("{}; not opened", device.describe());
            Err(Refusal::not_a_changer(path, &why))
        }
        _ => Ok(()),
    }
}

/// Whether `device` may be opened to ask it whether it is a changer.
fn may_open(device: &CharDevice) -> bool {
    let driver = device.driver.as_deref().unwrap_or("");
    device.verdict() != Verdict::Unknown || CHANGER_DRIVERS.contains(&driver)
}

/// The refusal for `error` from opening the changer at `path`.
fn open_refusal(path: &Path, error: ChangerError) -> Refusal {
    match error {
        ChangerError::NotAChanger { source, .. } => Refusal::not_a_changer(path, &plain(&source)),
        ChangerError::Io { source, .. } => Refusal::io(message!(
            "{}: cannot open it: {}",
            path.display(),
            plain(&source)
        )),
        other => read_refusal(path, other),
    }
}

/// The refusal for `error` from reading the changer at `path`: one line
/// that begins with the path.
fn read_refusal(path: &Path, error: ChangerError) -> Refusal {
    let shown = path.display().to_string();
    let text = match error {
        ChangerError::Io { what, source } => format!("{what}: {}", plain(&source)),
        other => other.to_string(),
    };
    match text.strip_prefix(&shown) {
        Some(rest) if rest.starts_with(": ") => Refusal::io(message!("{text}")),
        _ => Refusal::io(message!("{shown}: {text}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_refused_unopened_as_a_usage_error() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let r = read_inventory(f.path()).unwrap_err();
        assert_eq!(r.status, USAGE);
        let expected = format!(
            "tapebuf: {}: not a medium changer (a regular file)",
            f.path().display()
        );
        assert_eq!(r.line, expected);
    }

    #[test]
    fn a_directory_is_not_a_changer() {
        let r = read_inventory(Path::new("/")).unwrap_err();
        assert_eq!(r, Refusal::not_a_changer(Path::new("/"), "a directory"));
    }

    #[test]
    fn dev_null_is_asked_and_answers_that_it_is_not_a_changer() {
        let r = read_inventory(Path::new("/dev/null")).unwrap_err();
        assert_eq!(r.status, USAGE);
        assert!(
            r.line
                .starts_with("tapebuf: /dev/null: not a medium changer ("),
            "{}",
            r.line
        );
        assert!(!r.line.contains("os error"), "{}", r.line);
    }

    #[test]
    fn a_missing_path_is_an_io_failure_naming_it() {
        let r = read_inventory(Path::new("/nonexistent/sch9")).unwrap_err();
        assert_eq!(r.status, FAILURE);
        assert_eq!(
            r.line,
            "tapebuf: /nonexistent/sch9: No such file or directory"
        );
    }

    fn device(major: u32, driver: &str) -> CharDevice {
        CharDevice {
            major,
            minor: 0,
            driver: Some(driver.to_string()),
            class: None,
        }
    }

    #[test]
    fn only_changer_drivers_and_harmless_devices_are_opened_to_be_asked() {
        assert!(may_open(&device(86, "ch")));
        assert!(may_open(&device(21, "sg")));
        assert!(may_open(&device(9, "st")));
        assert!(may_open(&CharDevice {
            minor: 3,
            ..device(1, "mem")
        }));
        // A watchdog starts counting when opened; memory is not a changer.
        assert!(!may_open(&device(10, "misc")));
        assert!(!may_open(&CharDevice {
            minor: 1,
            ..device(1, "mem")
        }));
    }

    #[test]
    fn the_drivers_errors_keep_their_words_without_the_errno_number() {
        let p = Path::new("/dev/sch0");
        let errno = std::io::Error::from_raw_os_error;
        let open = open_refusal(
            p,
            ChangerError::io("opening /dev/sch0", errno(libc::EACCES)),
        );
        assert_eq!(
            open.line,
            "tapebuf: /dev/sch0: cannot open it: Permission denied"
        );
        assert_eq!(open.status, FAILURE);
        let what = "/dev/sch0: reading the state of slot 3";
        let read = read_refusal(p, ChangerError::io(what, errno(libc::EIO)));
        assert_eq!(read.line, format!("tapebuf: {what}: Input/output error"));
        assert_eq!(read.status, FAILURE);
    }

    #[test]
    fn a_read_error_that_does_not_name_the_changer_is_given_its_name() {
        let p = Path::new("/dev/sch0");
        let address = crate::tape::changer::ElementAddress::slot(2);
        let missing = read_refusal(p, ChangerError::NoSuchElement { address });
        assert_eq!(
            missing.line,
            "tapebuf: /dev/sch0: the changer has no slot 3"
        );
        let eio = std::io::Error::from_raw_os_error(libc::EIO);
        let counts = read_refusal(p, ChangerError::io("reading the counts", eio));
        assert_eq!(
            counts.line,
            "tapebuf: /dev/sch0: reading the counts: Input/output error"
        );
        let sch01 = read_refusal(
            p,
            ChangerError::io(
                "/dev/sch01: x",
                std::io::Error::from_raw_os_error(libc::EIO),
            ),
        );
        assert!(
            sch01.line.starts_with("tapebuf: /dev/sch0: /dev/sch01: x"),
            "{}",
            sch01.line
        );
    }
}
