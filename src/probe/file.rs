//! The probe's file and raw-device target.
//!
//! A regular file is opened afresh for each pass: truncated for a write,
//! read from the start for a read-back. Without `--direct` each write pass
//! is made durable with fdatasync (at the quarter mark and at the end), and
//! the file's cached pages are dropped with `posix_fadvise(DONTNEED)` before
//! it is read back, so the page cache flatters neither number. With
//! `--direct` the file is opened with O_DIRECT and the blocks come from
//! 4096-aligned buffers; a filesystem that refuses O_DIRECT (tmpfs) is
//! refused up front. A block or character device is written from offset 0
//! and never truncated. The invariant: a file the probe created is removed
//! by `cleanup`, and an existing file it was allowed to overwrite is left
//! empty, so the test stream is never left behind.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::schema::TargetKind;
use super::target::{Pass, ProbeTarget};
use crate::base::block::DIRECT_ALIGN_BYTES;
use crate::base::create;

/// What `cleanup` does to the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The probe created it: remove it.
    Remove,
    /// It existed (and `--force` allowed overwriting it): leave it empty.
    Truncate,
    /// A device: nothing to undo.
    Leave,
}

/// Why a file target could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum FileOpenError {
    /// The filesystem or device does not take O_DIRECT.
    #[error("{path}: the filesystem refuses O_DIRECT ({source}); probe without --direct (the probe then syncs each pass and drops the page cache), or on another filesystem")]
    DirectRefused { path: String, source: io::Error },
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
}

pub struct FileTarget {
    path: PathBuf,
    label: String,
    kind: TargetKind,
    direct: bool,
    ending: Ending,
    file: Option<File>,
    pass: Pass,
}

impl FileTarget {
    /// Creates `path`, which must not exist; it is removed at the end.
    pub fn create(path: &Path, label: &str, direct: bool) -> Result<FileTarget, FileOpenError> {
        let io_err = |source| FileOpenError::Io {
            path: path.display().to_string(),
            source,
        };
        create::create_new(path, create::DATA_MODE).map_err(io_err)?;
        let target = FileTarget::new(path, label, TargetKind::File, direct, Ending::Remove);
        if let Err(e) = target.check_direct() {
            let _ = std::fs::remove_file(path);
            return Err(e);
        }
        Ok(target)
    }

    /// Creates a uniquely named file in `dir`; it is removed at the end.
    /// The target is the directory, and says so.
    pub fn create_in(dir: &Path, label: &str, direct: bool) -> Result<FileTarget, FileOpenError> {
        for n in 0..1000 {
            let path = dir.join(format!(".tapebuf-probe.{}.{n}", std::process::id()));
            match FileTarget::create(&path, label, direct) {
                Err(FileOpenError::Io { source, .. })
                    if source.kind() == io::ErrorKind::AlreadyExists =>
                {
                    continue
                }
                Ok(target) => {
                    return Ok(FileTarget {
                        kind: TargetKind::Directory,
                        ..target
                    })
                }
                other => return other,
            }
        }
        Err(FileOpenError::Io {
            path: dir.display().to_string(),
            source: io::Error::other("cannot find a free name for the probe's file"),
        })
    }

    /// An existing regular file, which the probe leaves empty at the end.
    pub fn existing(path: &Path, label: &str, direct: bool) -> Result<FileTarget, FileOpenError> {
        let target = FileTarget::new(path, label, TargetKind::File, direct, Ending::Truncate);
        target.check_direct()?;
        Ok(target)
    }

    /// A block or character device, written from offset 0.
    pub fn device(path: &Path, label: &str, direct: bool) -> Result<FileTarget, FileOpenError> {
        let target = FileTarget::new(path, label, TargetKind::Device, direct, Ending::Leave);
        target.check_direct()?;
        Ok(target)
    }

    fn new(path: &Path, label: &str, kind: TargetKind, direct: bool, ending: Ending) -> FileTarget {
        FileTarget {
            path: path.to_path_buf(),
            label: label.to_string(),
            kind,
            direct,
            ending,
            file: None,
            pass: Pass::Write,
        }
    }

    /// The bytes a block device holds (None for anything else).
    pub fn device_bytes(&self) -> Option<u64> {
        let mut f = File::open(&self.path).ok()?;
        f.seek(SeekFrom::End(0)).ok().filter(|&n| n > 0)
    }

    fn check_direct(&self) -> Result<(), FileOpenError> {
        if !self.direct {
            return Ok(());
        }
        match self.open(Pass::Read) {
            Ok(_) => Ok(()),
            Err(source) if source.raw_os_error() == Some(libc::EINVAL) => {
                Err(FileOpenError::DirectRefused {
                    path: self.path.display().to_string(),
                    source,
                })
            }
            Err(source) => Err(FileOpenError::Io {
                path: self.path.display().to_string(),
                source,
            }),
        }
    }

    fn open(&self, pass: Pass) -> io::Result<File> {
        let direct = if self.direct { libc::O_DIRECT } else { 0 };
        match pass {
            // Reopened each pass: a symlink put in its place meanwhile is
            // followed only if the caller or root owns it.
            Pass::Write => {
                let truncate = if self.ending != Ending::Leave {
                    libc::O_TRUNC
                } else {
                    0
                };
                create::open_existing(&self.path, libc::O_WRONLY | truncate | direct)
            }
            Pass::Read => OpenOptions::new()
                .read(true)
                .custom_flags(direct)
                .open(&self.path),
        }
    }

    fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("no pass is under way"))
    }
}

impl ProbeTarget for FileTarget {
    fn name(&self) -> &str {
        &self.label
    }

    fn kind(&self) -> TargetKind {
        self.kind
    }

    fn method(&self) -> String {
        if self.direct {
            "O_DIRECT: the page cache is bypassed".into()
        } else {
            "buffered: fdatasync at a quarter and at the end of each write pass, and the \
             page cache dropped (posix_fadvise DONTNEED) before each read-back, so that the \
             cache flatters neither figure"
                .into()
        }
    }

    fn alignment(&self) -> usize {
        if self.direct {
            DIRECT_ALIGN_BYTES as usize
        } else {
            1
        }
    }

    fn begin(&mut self, pass: Pass, _block_bytes: usize, _stream_bytes: u64) -> io::Result<()> {
        self.file = None;
        let file = self.open(pass)?;
        if pass == Pass::Read && !self.direct {
            // SAFETY: the descriptor is open for the whole call.
            let rc =
                unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
        }
        self.pass = pass;
        self.file = Some(file);
        Ok(())
    }

    fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        self.file()?.write_all(block)
    }

    fn sync(&mut self) -> io::Result<()> {
        if self.direct {
            return Ok(());
        }
        self.file()?.sync_data()
    }

    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        crate::base::read_full::read_full(self.file()?, buf)
    }

    fn end(&mut self) -> io::Result<()> {
        if self.pass == Pass::Write && !self.direct {
            self.file()?.sync_data()?;
        }
        self.file = None;
        Ok(())
    }

    fn cleanup(&mut self) -> io::Result<String> {
        self.file = None;
        let shown = self.path.display();
        match self.ending {
            Ending::Remove => match std::fs::remove_file(&self.path) {
                Ok(()) => Ok(format!("removed {shown}")),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
                Err(e) => Err(io::Error::new(
                    e.kind(),
                    format!("cannot remove {shown}: {e}"),
                )),
            },
            Ending::Truncate => create::open_existing(&self.path, libc::O_WRONLY | libc::O_TRUNC)
                .map(|_| format!("left {shown} empty"))
                .map_err(|e| io::Error::new(e.kind(), format!("cannot empty {shown}: {e}"))),
            Ending::Leave => Ok(String::new()),
        }
    }
}
