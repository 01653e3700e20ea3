//! Standard output, files, devices and FIFOs as a sink.
//!
//! Each output is opened as `preflight` planned: a new file is created with
//! O_EXCL so a file that appears meanwhile is never clobbered, an existing
//! one is truncated or appended to as the user asked, and devices and FIFOs
//! are opened as they are. `--direct` turns O_DIRECT on after opening and
//! falls back to buffered writes where the filesystem refuses it (or an
//! append would start unaligned); the final short block is written with
//! O_DIRECT turned off, since it cannot be aligned.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::FileTypeExt;

use anyhow::Context;
use nix::fcntl::{fcntl, FcntlArg, OFlag};

use super::settings::OutputSettings;
use super::{PartialWrite, Plan, Sink, SinkTraits};
use crate::base::block::DIRECT_ALIGN_BYTES;
use crate::base::blocking::Blocking;
use crate::base::console::message;
use crate::base::create;
use crate::base::kernel_pipe::{drain_pipe, splice_refusal, KernelPipe};

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
        crate::base::pipe_size::grow_to(&file, block_bytes);
        let sync = sync && syncable(&file);
        Ok(FdSink {
            file: Some(file),
            name: "stdout".into(),
            direct: false,
            sync,
        })
    }

    /// An open file, pipe or socket, under `name`.
    pub fn from_file(file: File, name: &str) -> FdSink {
        FdSink {
            file: Some(file),
            name: name.to_string(),
            direct: false,
            sync: false,
        }
    }

    /// A named output, opened as `preflight` planned it.
    pub fn open(plan: &Plan, config: &OutputSettings) -> anyhow::Result<FdSink> {
        let path = match plan {
            Plan::Stdout => return FdSink::stdout(config.sync, config.endpoint.block_bytes),
            Plan::Connect(peer) => anyhow::bail!("-O {peer}: is not a file"),
            Plan::Command(cmd) => anyhow::bail!("--to {}: is not a file", cmd.display),
            Plan::Remote(remote) => anyhow::bail!("-o {remote}: is not a local file"),
            Plan::Create(p) | Plan::Truncate(p) | Plan::Append(p) | Plan::AsIs(p) => p,
        };
        let name = path.display().to_string();
        let file = open_plan(plan, config.endpoint.block_bytes)
            .with_context(|| format!("-o {name}: cannot open"))?;
        let sync = config.sync && syncable(&file);
        let mut sink = FdSink {
            file: Some(file),
            name,
            direct: false,
            sync,
        };
        if config.direct {
            if let Err(why) = sink.try_direct() {
                if !config.endpoint.quiet {
                    crate::base::console::say(&message!(
                        "-o {}: {why}; writing through the page cache",
                        sink.name
                    ));
                }
            }
        }
        Ok(sink)
    }

    /// Turns O_DIRECT on, after opening, so that a filesystem that refuses
    /// it costs nothing: opening with it would have created the file first.
    fn try_direct(&mut self) -> Result<(), String> {
        let file = self.file.as_ref().expect("open");
        let meta = file.metadata().map_err(|e| e.to_string())?;
        if !meta.is_file() && !meta.file_type().is_block_device() {
            return Err("O_DIRECT only applies to files and block devices".into());
        }
        if meta.is_file() && meta.len() % DIRECT_ALIGN_BYTES != 0 {
            // Appending at an unaligned offset cannot use O_DIRECT.
            return Err(format!(
                "its size, {}, is not a multiple of {DIRECT_ALIGN_BYTES}, so O_DIRECT cannot append to it",
                meta.len()
            ));
        }
        let flags = fcntl(file, FcntlArg::F_GETFL).map_err(|e| e.to_string())?;
        let flags = OFlag::from_bits_truncate(flags) | OFlag::O_DIRECT;
        match fcntl(file, FcntlArg::F_SETFL(flags)) {
            Ok(_) => {
                self.direct = true;
                Ok(())
            }
            Err(nix::errno::Errno::EINVAL) => Err("the filesystem refuses O_DIRECT".into()),
            Err(e) => Err(format!("cannot set O_DIRECT: {e}")),
        }
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

/// Opens a named output as planned: a new file exclusively, an existing
/// one truncated or appended to, anything else as it is. Pipes are widened.
pub fn open_plan(plan: &Plan, block_bytes: usize) -> io::Result<File> {
    // Through `base::create`: a new file exclusively and never through a
    // link; an existing one, or a device, through a symlink only when the
    // caller or root owns it.
    let file = match plan {
        Plan::Stdout => return io::stdout().as_fd().try_clone_to_owned().map(File::from),
        Plan::Connect(peer) => return Err(io::Error::other(format!("-O {peer}: is not a file"))),
        Plan::Command(cmd) => {
            return Err(io::Error::other(format!(
                "--to {}: is not a file",
                cmd.display
            )))
        }
        Plan::Remote(remote) => {
            return Err(io::Error::other(format!(
                "-o {remote}: is not a local file"
            )))
        }
        Plan::Create(p) => create::create_new(p, create::DATA_MODE)?,
        Plan::Truncate(p) => create::open_existing(p, libc::O_WRONLY | libc::O_TRUNC)?,
        Plan::Append(p) => create::open_existing(p, libc::O_WRONLY | libc::O_APPEND)?,
        Plan::AsIs(p) => create::open_existing(p, libc::O_WRONLY)?,
    };
    if let Plan::Create(path) | Plan::Truncate(path) = plan {
        if syncable(&file) {
            forget_trailer(&file, path)?;
        }
    }
    crate::base::pipe_size::grow_to(&file, block_bytes);
    Ok(file)
}

/// A file written anew holds no backup's trailer yet: an attribute an
/// earlier backup left on it (truncating keeps it) and marker files of an
/// earlier file of that name go, so that no restore reads them as this
/// file's. A file volume gets its own trailer when it ends.
fn forget_trailer(file: &File, path: &std::path::Path) -> io::Result<()> {
    if file.metadata().is_ok_and(|m| m.is_file()) {
        crate::volume::trailer::detach_from_file(file.as_fd())?;
        crate::volume::trailer_marker::remove_markers(path)?;
    }
    Ok(())
}

/// fsync means something for files and block devices, not for pipes.
pub fn syncable(file: &File) -> bool {
    file.metadata()
        .map(|m| m.is_file() || m.file_type().is_block_device())
        .unwrap_or(false)
}

impl Sink for FdSink {
    fn write_block(&mut self, data: &[u8]) -> io::Result<()> {
        if self.direct && !(data.len() as u64).is_multiple_of(DIRECT_ALIGN_BYTES) {
            self.clear_direct()?;
        }
        let mut done = 0;
        while done < data.len() {
            match Blocking(self.file()?).write(&data[done..]) {
                Ok(0) => return Err(PartialWrite::wrap(done, io::ErrorKind::WriteZero.into())),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Some filesystems accept O_DIRECT and then refuse the
                // writes. A failed write(2) wrote nothing, so the rest of
                // the block can go through the page cache.
                Err(e) if self.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                    self.clear_direct()
                        .map_err(|e| PartialWrite::wrap(done, e))?;
                }
                // The bytes written before a full disk are kept, and count.
                Err(e) => return Err(PartialWrite::wrap(done, e)),
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        if self.sync {
            file.sync_all()?;
        }
        crate::base::close::close_reporting(file)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn traits(&self) -> SinkTraits {
        let output = match self.name.as_str() {
            "stdout" => "standard output".to_string(),
            path => format!("-o {path}"),
        };
        let refusal = self
            .file
            .as_ref()
            .and_then(|file| splice_refusal(file.as_fd()));
        SinkTraits::stream(refusal.map(|why| format!("{output} {why}")))
    }

    fn write_pipe(&mut self, pipe: &KernelPipe, len: usize) -> io::Result<()> {
        let file = self.file()?;
        drain_pipe(pipe, file.as_fd(), len).map_err(|(done, e)| PartialWrite::wrap(done, e))
    }
}
