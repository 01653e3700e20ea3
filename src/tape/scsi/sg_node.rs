//! A tape drive's SCSI generic (sg) node, the second way to send it SCSI
//! commands. Linux st passes SG_IO only to a caller with CAP_SYS_RAWIO
//! (EPERM otherwise), while the sg driver lets anyone who may open the
//! node send the commands that only read (INQUIRY, LOG SENSE, READ
//! ATTRIBUTE): so a backup run as a user in the `tape` group can still
//! read its drive's health through `/dev/sgM` where udev gives that group
//! access.
//!
//! The node is found through sysfs: `/sys/class/scsi_tape/nst0/device` is
//! the drive's SCSI device, and its `scsi_generic/sgM` entry (or, on old
//! kernels, the `generic` link to it) names the sg node. [`SgFallback`]
//! keeps the node open for the device's later commands once st has
//! refused one, and remembers a node that could not be found or opened,
//! so that it is looked for once, not at every command.

use std::fs::{File, OpenOptions};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::tape::scsi::sg_io::{self, Data, ScsiError};

/// The sg node of the tape drive at `tape` (`/dev/nst0`, `/dev/st0`, or a
/// link to one), as sysfs names it; None when it has none or sysfs does
/// not say.
pub fn sg_node_of(tape: &Path) -> Option<PathBuf> {
    let tape = std::fs::canonicalize(tape).unwrap_or_else(|_| tape.to_path_buf());
    sg_node_in(Path::new("/sys"), &tape)
}

/// `sg_node_of` with sysfs mounted at `sysfs`.
fn sg_node_in(sysfs: &Path, tape: &Path) -> Option<PathBuf> {
    let name = tape.file_name()?;
    let device = sysfs.join("class/scsi_tape").join(name).join("device");
    let generic = match std::fs::read_dir(device.join("scsi_generic")) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .find(|n| n.to_string_lossy().starts_with("sg"))?,
        Err(_) => std::fs::read_link(device.join("generic"))
            .ok()?
            .file_name()?
            .to_os_string(),
    };
    Some(Path::new("/dev").join(generic))
}

/// The drive's sg node, for the commands st refuses: not looked for yet,
/// open, or not to be had.
#[derive(Debug, Default)]
pub struct SgFallback {
    node: Option<File>,
    /// The node was looked for and could not be found or opened.
    unavailable: bool,
}

impl SgFallback {
    /// The node, if st refused a command before and the node opened.
    pub fn node(&self) -> Option<BorrowedFd<'_>> {
        self.node.as_ref().map(|f| f.as_fd())
    }

    /// Sends `cdb` to the tape drive at `tape`: through `open` (the tape
    /// node), or a node opened without waiting for a medium when it is
    /// closed; where the kernel refuses it there, through the drive's sg
    /// node, found and opened once and used from then on. When both
    /// refuse, st's refusal is the answer.
    pub fn command(
        &mut self,
        tape: &Path,
        open: Option<&File>,
        cdb: &[u8],
        mut data: Data<'_>,
        timeout: Duration,
    ) -> Result<usize, ScsiError> {
        if let Some(node) = self.node() {
            return sg_io::command(node, cdb, data, timeout);
        }
        let probe;
        let st = match open {
            Some(file) => file.as_fd(),
            None => {
                probe = open_unblocked(tape).map_err(ScsiError::Ioctl)?;
                probe.as_fd()
            }
        };
        let refused = match sg_io::command(st, cdb, reborrow(&mut data), timeout) {
            Err(e) if e.is_refused_by_kernel() => e,
            other => return other,
        };
        let Some(node) = self.open(tape) else {
            return Err(refused);
        };
        match sg_io::command(node, cdb, data, timeout) {
            Err(e) if e.is_refused_by_kernel() => Err(refused),
            other => other,
        }
    }

    /// Opens the node of `tape` the first time it is asked.
    fn open(&mut self, tape: &Path) -> Option<BorrowedFd<'_>> {
        if self.node.is_none() && !self.unavailable {
            self.node = sg_node_of(tape).and_then(|path| open_node(&path));
            self.unavailable = self.node.is_none();
        }
        self.node()
    }
}

/// Opens the tape node read-only without waiting for a medium. st opens
/// a drive with no medium, or one still loading, at once when asked with
/// O_NONBLOCK; MTIOCGET then says GMT_DR_OPEN or clears GMT_ONLINE. A
/// blocking open would wait ST_BLOCK_SECONDS (120 s) and fail.
pub(crate) fn open_unblocked(tape: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(tape)
}

/// Opens an sg node without waiting, read-write (some kernels let only a
/// writer send a command the filter does not know) or else read-only.
fn open_node(path: &Path) -> Option<File> {
    let mut options = OpenOptions::new();
    options.custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK);
    options
        .read(true)
        .write(true)
        .open(path)
        .or_else(|_| options.write(false).open(path))
        .ok()
}

/// The same data phase, borrowed again, so that a refused command can be
/// sent a second time.
fn reborrow<'b>(data: &'b mut Data<'_>) -> Data<'b> {
    match data {
        Data::None => Data::None,
        Data::In(buf) => Data::In(buf),
        Data::Out(buf) => Data::Out(buf),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_sysfs() -> tempfile::TempDir {
        tempfile::tempdir().expect("temp dir")
    }

    #[test]
    fn finds_the_sg_node_under_the_tape_class_device() {
        let sys = fake_sysfs();
        let host = sys.path().join("devices/host0/target0:0:1/0:0:1:0");
        std::fs::create_dir_all(host.join("scsi_generic/sg3")).unwrap();
        for name in ["nst0", "st0"] {
            let class = sys.path().join("class/scsi_tape").join(name);
            std::fs::create_dir_all(&class).unwrap();
            std::os::unix::fs::symlink(&host, class.join("device")).unwrap();
        }
        for tape in ["/dev/nst0", "/dev/st0"] {
            assert_eq!(
                sg_node_in(sys.path(), Path::new(tape)),
                Some(PathBuf::from("/dev/sg3")),
                "{tape}"
            );
        }
    }

    #[test]
    fn follows_the_generic_link_of_older_kernels() {
        let sys = fake_sysfs();
        let device = sys.path().join("class/scsi_tape/nst1/device");
        std::fs::create_dir_all(&device).unwrap();
        std::os::unix::fs::symlink("../../scsi_generic/sg7", device.join("generic")).unwrap();
        assert_eq!(
            sg_node_in(sys.path(), Path::new("/dev/nst1")),
            Some(PathBuf::from("/dev/sg7"))
        );
    }

    #[test]
    fn a_drive_sysfs_does_not_know_has_no_sg_node() {
        let sys = fake_sysfs();
        std::fs::create_dir_all(sys.path().join("class/scsi_tape/nst0/device")).unwrap();
        assert_eq!(sg_node_in(sys.path(), Path::new("/dev/nst0")), None);
        assert_eq!(sg_node_in(sys.path(), Path::new("/dev/nst5")), None);
    }

    #[test]
    fn a_node_that_cannot_be_found_is_looked_for_once() {
        let mut sg = SgFallback::default();
        assert!(sg.open(Path::new("/nonexistent/nst9")).is_none());
        assert!(sg.unavailable);
        assert!(sg.node().is_none());
    }
}
