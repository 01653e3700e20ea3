//! Standard output, files, devices and FIFOs as a sink.
//!
//! The rules for opening: a path that holds a regular file is refused unless
//! `--force` (truncate) or `--append` is given; a new file is created with
//! O_EXCL so a file that appears meanwhile is never clobbered; devices and
//! FIFOs are opened as they are. `--direct` asks for O_DIRECT and falls back
//! to buffered writes where the filesystem refuses it; the final short block
//! is written with O_DIRECT turned off, since it cannot be aligned.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsFd, IntoRawFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use anyhow::Context;
use nix::fcntl::{fcntl, FcntlArg, OFlag};

use super::{OpenError, Sink};
use crate::config::{Config, ExistingFile, DIRECT_ALIGN_BYTES};

/// A sink writing to a file descriptor.
pub struct FdSink {
    /// Taken at `finish`, so that close(2) errors can be reported.
    file: Option<File>,
    name: String,
    /// O_DIRECT is currently set on the descriptor.
    direct: bool,
    /// fsync at finish (only for files and block devices).
    sync: bool,
}

impl FdSink {
    /// Standard output, through a duplicate descriptor so no buffering layer
    /// sits in between.
    pub fn stdout(sync: bool, block_bytes: usize) -> anyhow::Result<FdSink> {
        let fd = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .context("stdout: cannot duplicate the descriptor")?;
        let file = File::from(fd);
        crate::pipe_size::grow_to(&file, block_bytes);
        let sync = sync && syncable(&file);
        Ok(FdSink {
            file: Some(file),
            name: "stdout".into(),
            direct: false,
            sync,
        })
    }

    /// A named output, following the module's rules for existing files.
    pub fn open(path: &Path, config: &Config) -> Result<FdSink, OpenError> {
        let name = path.display().to_string();
        let mut options = OpenOptions::new();
        options.write(true);
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                return Err(anyhow::anyhow!("-o {name}: is a directory").into());
            }
            Ok(meta) if meta.is_file() => match config.existing {
                ExistingFile::Refuse => return Err(OpenError::Exists(name)),
                ExistingFile::Truncate => {
                    options.truncate(true);
                }
                ExistingFile::Append => {
                    options.append(true);
                }
            },
            Ok(_) => {} // a device, FIFO or socket: use as it is
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                options.create_new(true).mode(0o666);
            }
            Err(e) => {
                return Err(anyhow::Error::new(e)
                    .context(format!("-o {name}: cannot inspect"))
                    .into())
            }
        }
        let mut direct = false;
        let file = if config.direct {
            let mut with_direct = options.clone();
            with_direct.custom_flags(libc::O_DIRECT);
            match with_direct.open(path) {
                Ok(f) => {
                    direct = true;
                    Ok(f)
                }
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    if !config.quiet {
                        crate::summary::say(&format!(
                            "tapebuf: -o {name}: the filesystem refuses O_DIRECT; writing through the page cache"
                        ));
                    }
                    options.open(path)
                }
                Err(e) => Err(e),
            }
        } else {
            options.open(path)
        };
        let file = file.with_context(|| format!("-o {name}: cannot open"))?;
        crate::pipe_size::grow_to(&file, config.block_bytes);
        let sync = config.sync && syncable(&file);
        Ok(FdSink {
            file: Some(file),
            name,
            direct,
            sync,
        })
    }

    fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("written after it was closed"))
    }

    fn clear_direct(&mut self) -> io::Result<()> {
        let file = self.file()?;
        let flags = fcntl(&*file, FcntlArg::F_GETFL).map_err(io::Error::from)?;
        let flags = OFlag::from_bits_truncate(flags) & !OFlag::O_DIRECT;
        fcntl(&*file, FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
        self.direct = false;
        Ok(())
    }
}

/// fsync means something for files and block devices, not for pipes.
fn syncable(file: &File) -> bool {
    file.metadata()
        .map(|m| m.is_file() || m.file_type().is_block_device())
        .unwrap_or(false)
}

impl Sink for FdSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        if self.direct && data.len() as u64 % DIRECT_ALIGN_BYTES != 0 {
            self.clear_direct()?;
        }
        self.file()?.write_all(data)
    }

    fn finish(&mut self) -> io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        if self.sync {
            file.sync_all()?;
        }
        // Close explicitly: NFS and some devices report write errors only
        // at close(2), which dropping a File would ignore.
        let fd = file.into_raw_fd();
        // SAFETY: `fd` was just released by its File, so it is closed once.
        if unsafe { libc::close(fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn name(&self) -> &str {
        &self.name
    }
}
