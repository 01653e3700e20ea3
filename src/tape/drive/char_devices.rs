//! Which character devices tapebuf reads and writes. A tape drive is one,
//! but so is SCSI generic (`/dev/sg3`, the same drive's other face), whose
//! write() takes the data as SCSI commands, and so are `/dev/mem` and
//! `/dev/watchdog`. tapebuf therefore takes only tape drivers' devices and
//! a few harmless ones (null, zero, full, random, urandom, terminals), and
//! refuses every other character device unless `--any-device` says so.
//!
//! A named path is judged by its device numbers and the driver that
//! registered its major (`/proc/devices`), without opening it: opening
//! alone can act (a watchdog starts counting). An inherited descriptor
//! (`-` for stdin or stdout) is already open, so it is asked directly:
//! MTIOCGET for a tape, isatty for a terminal. Block devices and
//! everything that is not a character device are left alone.

use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use crate::base::errors::ConfigError;
use crate::tape::drive::mtio;

/// Linux st's fixed major; its minors with bit 7 clear rewind at close.
const ST_MAJOR: u32 = 9;
const ST_NO_REWIND_BIT: u32 = 0x80;
/// The `mem` driver's major and its harmless minors.
const MEM_MAJOR: u32 = 1;
/// null, zero, full, random, urandom.
const HARMLESS_MEM_MINORS: [u32; 5] = [3, 5, 7, 8, 9];
/// Drivers, as `/proc/devices` names them, whose devices are tape drives.
const TAPE_DRIVERS: [&str; 5] = ["st", "osst", "ht", "lin_tape", "IBMtape"];

/// A character device, by its numbers and its driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharDevice {
    pub major: u32,
    pub minor: u32,
    /// The name that registered the major in `/proc/devices`, if any.
    pub driver: Option<String>,
    /// The sysfs class (`/sys/dev/char/MAJ:MIN/subsystem`), if any.
    pub class: Option<String>,
}

/// What tapebuf makes of a character device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A tape driver's device; `rewinding` when st's minor says it rewinds
    /// at close.
    Tape { rewinding: bool },
    /// null, zero, full, random, urandom, or a terminal.
    Harmless,
    /// Anything else: refused without `--any-device`.
    Unknown,
}

impl CharDevice {
    /// The device at `path` (following links), or None when it is not a
    /// character device or cannot be looked at (the open reports that).
    pub fn at_path(path: &Path) -> Option<CharDevice> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.file_type().is_char_device() {
            return None;
        }
        Some(CharDevice::from_rdev(meta.rdev()))
    }

    fn from_rdev(rdev: u64) -> CharDevice {
        let (major, minor) = (libc::major(rdev), libc::minor(rdev));
        let class = std::fs::read_link(format!("/sys/dev/char/{major}:{minor}/subsystem"))
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        CharDevice {
            major,
            minor,
            driver: registered_driver(major),
            class,
        }
    }

    /// Judges the device by its numbers and driver alone.
    pub fn verdict(&self) -> Verdict {
        let driver = self.driver.as_deref().unwrap_or("");
        if self.major == ST_MAJOR || TAPE_DRIVERS.contains(&driver) {
            let st = self.major == ST_MAJOR || driver == "st";
            return Verdict::Tape {
                rewinding: st && self.minor & ST_NO_REWIND_BIT == 0,
            };
        }
        // mem's major is fixed too.
        let harmless_mem = self.major == MEM_MAJOR && HARMLESS_MEM_MINORS.contains(&self.minor);
        if harmless_mem || is_terminal_driver(driver) || self.class.as_deref() == Some("tty") {
            return Verdict::Harmless;
        }
        Verdict::Unknown
    }

    /// "character device 21:3 (driver sg, class scsi_generic)".
    pub fn describe(&self) -> String {
        let mut about = Vec::new();
        match &self.driver {
            Some(d) => about.push(format!("driver {d}")),
            None => about.push("no driver registered for its major".to_string()),
        }
        if let Some(c) = &self.class {
            about.push(format!("class {c}"));
        }
        format!(
            "character device {}:{} ({})",
            self.major,
            self.minor,
            about.join(", ")
        )
    }
}

/// Terminal drivers as `/proc/devices` names them: tty, ttyS, ttyUSB,
/// pts, /dev/tty, /dev/console, /dev/ptmx, /dev/vc/0.
fn is_terminal_driver(driver: &str) -> bool {
    driver.starts_with("tty")
        || matches!(
            driver,
            "pts" | "ptm" | "/dev/tty" | "/dev/console" | "/dev/ptmx" | "/dev/vc/0"
        )
}

/// The driver `/proc/devices` lists for character major `major`.
fn registered_driver(major: u32) -> Option<String> {
    let text = std::fs::read_to_string("/proc/devices").ok()?;
    let chars = text
        .split("Block devices:")
        .next()?
        .lines()
        .skip_while(|l| !l.starts_with("Character devices:"))
        .skip(1);
    for line in chars {
        let mut words = line.split_whitespace();
        if words.next().and_then(|m| m.parse::<u32>().ok()) == Some(major) {
            return words.next().map(str::to_string);
        }
    }
    None
}

/// Which way the data would flow, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Input,
    Output,
}

impl Direction {
    fn flag(self) -> &'static str {
        match self {
            Direction::Input => "-i/--input",
            Direction::Output => "-o/--output",
        }
    }
}

/// Refuses the named path if it is a character device tapebuf does not
/// know to be a tape or harmless, before anything opens it. Returns what
/// was found, for the caller's warnings.
pub fn check_path(
    path: &Path,
    direction: Direction,
    any_device: bool,
) -> Result<Option<(CharDevice, Verdict)>, ConfigError> {
    let Some(device) = CharDevice::at_path(path) else {
        return Ok(None);
    };
    let verdict = device.verdict();
    if verdict == Verdict::Unknown && !any_device {
        return Err(refusal(&path.display().to_string(), &device, direction));
    }
    Ok(Some((device, verdict)))
}

/// The same for an inherited descriptor (stdin or stdout as the shell
/// left them). Being open already, it is asked directly whether it is a
/// tape drive (MTIOCGET) or a terminal.
pub fn check_fd(fd: impl AsFd, direction: Direction, any_device: bool) -> Result<(), ConfigError> {
    let fd = fd.as_fd();
    let meta = match fd.try_clone_to_owned() {
        Ok(owned) => match std::fs::File::from(owned).metadata() {
            Ok(meta) => meta,
            Err(_) => return Ok(()),
        },
        Err(_) => return Ok(()),
    };
    if !meta.file_type().is_char_device() || any_device {
        return Ok(());
    }
    // SAFETY: isatty only inspects the open descriptor `fd`.
    let tty = unsafe { libc::isatty(fd.as_raw_fd()) } == 1;
    if tty || mtio::status(fd).is_ok() {
        return Ok(());
    }
    let device = CharDevice::from_rdev(meta.rdev());
    if device.verdict() == Verdict::Unknown {
        let name = match direction {
            Direction::Input => "stdin",
            Direction::Output => "stdout",
        };
        return Err(refusal(name, &device, direction));
    }
    Ok(())
}

fn refusal(name: &str, device: &CharDevice, direction: Direction) -> ConfigError {
    let (verb, danger) = match direction {
        Direction::Input => (
            "read from",
            "opening or reading such a device can act on hardware (a watchdog arms when opened)",
        ),
        Direction::Output => (
            "write to",
            "data written to such a device can act on hardware (SCSI generic, /dev/sg*, \
             takes it as commands)",
        ),
    };
    ConfigError::new(
        direction.flag(),
        format!(
            "{name} is a {}, neither a tape drive nor a harmless device \
             (null, zero, full, random, urandom, a terminal); refused, since {danger}; \
             use --any-device to {verb} it anyway",
            device.describe()
        ),
    )
}

/// What a path that is not a character device is, in words ("a
/// directory", "a regular file"), for a refusal.
pub fn not_a_device(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(major: u32, minor: u32, driver: Option<&str>) -> CharDevice {
        CharDevice {
            major,
            minor,
            driver: driver.map(str::to_string),
            class: None,
        }
    }

    #[test]
    fn st_minors_without_bit_7_are_rewinding_tapes() {
        assert_eq!(
            dev(9, 0, Some("st")).verdict(),
            Verdict::Tape { rewinding: true }
        );
        assert_eq!(
            dev(9, 128, Some("st")).verdict(),
            Verdict::Tape { rewinding: false }
        );
        // st's major is fixed, even before the driver is loaded.
        assert_eq!(
            dev(9, 131, None).verdict(),
            Verdict::Tape { rewinding: false }
        );
        assert_eq!(
            dev(250, 0, Some("lin_tape")).verdict(),
            Verdict::Tape { rewinding: false }
        );
    }

    #[test]
    fn only_the_harmless_minors_of_mem_pass() {
        for minor in [3, 5, 7, 8, 9] {
            assert_eq!(dev(1, minor, Some("mem")).verdict(), Verdict::Harmless);
        }
        for minor in [1, 2, 4, 11] {
            assert_eq!(dev(1, minor, Some("mem")).verdict(), Verdict::Unknown);
        }
    }

    #[test]
    fn terminals_pass_and_sg_and_unregistered_majors_do_not() {
        assert_eq!(dev(136, 2, Some("pts")).verdict(), Verdict::Harmless);
        assert_eq!(dev(5, 0, Some("/dev/tty")).verdict(), Verdict::Harmless);
        assert_eq!(dev(4, 64, Some("ttyS")).verdict(), Verdict::Harmless);
        assert_eq!(dev(21, 3, Some("sg")).verdict(), Verdict::Unknown);
        assert_eq!(dev(249, 0, Some("watchdog")).verdict(), Verdict::Unknown);
        assert_eq!(dev(240, 0, None).verdict(), Verdict::Unknown);
    }

    #[test]
    fn the_description_names_numbers_driver_and_class() {
        let mut sg = dev(21, 3, Some("sg"));
        sg.class = Some("scsi_generic".into());
        assert_eq!(
            sg.describe(),
            "character device 21:3 (driver sg, class scsi_generic)"
        );
        assert_eq!(
            dev(240, 1, None).describe(),
            "character device 240:1 (no driver registered for its major)"
        );
    }

    #[test]
    fn dev_null_is_found_harmless_on_this_machine() {
        let null = CharDevice::at_path(Path::new("/dev/null")).unwrap();
        assert_eq!((null.major, null.minor), (1, 3));
        assert_eq!(null.verdict(), Verdict::Harmless);
        assert!(CharDevice::at_path(Path::new("/")).is_none());
    }
}
