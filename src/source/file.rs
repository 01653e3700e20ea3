//! Standard input and files as a source: a plain file descriptor read with
//! `read(2)`. O_DIRECT is for outputs only: reads go through the page cache.
//!
//! A regular file's size is known at the start. One that ends short of it
//! shrank while it was read (truncated, or rewritten in place), so the
//! stream is not the file as it was: that is an input failure, as GNU tar
//! treats a file that shrank. A file that grows is read to its new end.

use std::fs::File;
use std::io::{self, Seek};
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::AtomicU64;

use anyhow::Context;

use super::{fill_from, End, Filled, Source};
use crate::base::blocking::Blocking;
use crate::base::kernel_pipe::{fill_pipe, splice_refusal, KernelPipe, PipeFill};

/// A source reading from a file descriptor.
pub struct FdSource {
    file: File,
    name: String,
    /// The bytes left to read when the run started, for a regular file.
    size: Option<u64>,
    /// Bytes read so far.
    read: u64,
}

impl FdSource {
    /// Standard input, through a duplicate descriptor so no buffering layer
    /// sits in between.
    pub fn stdin(block_bytes: usize) -> anyhow::Result<FdSource> {
        let fd = io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .context("stdin: cannot duplicate the descriptor")?;
        let file = File::from(fd);
        crate::base::pipe_size::grow_to(&file, block_bytes);
        let size = regular_size(&file);
        Ok(FdSource {
            file,
            name: "stdin".into(),
            size,
            read: 0,
        })
    }

    /// An open file, pipe or socket, under `name`.
    pub fn from_file(file: File, name: &str) -> FdSource {
        let size = regular_size(&file);
        FdSource {
            file,
            name: name.to_string(),
            size,
            read: 0,
        }
    }

    /// A named file.
    pub fn open(path: &Path) -> anyhow::Result<FdSource> {
        let name = path.display().to_string();
        let file = File::open(path).with_context(|| format!("-i {name}: cannot open"))?;
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            anyhow::bail!("-i {name}: is a directory");
        }
        let size = regular_size(&file);
        Ok(FdSource {
            file,
            name,
            size,
            read: 0,
        })
    }
}

/// The bytes from the file's offset to its end, for a regular file.
/// Standard input may have been read from already, so the offset counts.
fn regular_size(mut file: &File) -> Option<u64> {
    let len = file.metadata().ok().filter(|m| m.is_file())?.len();
    let at = file.stream_position().ok()?;
    Some(len.saturating_sub(at))
}

impl FdSource {
    /// Counts a fill, and turns the end of a regular file that ended short
    /// of its size into a failure.
    fn counted(&mut self, mut filled: Filled) -> Filled {
        self.read += filled.bytes as u64;
        if let (End::Eof, Some(size)) = (&filled.end, self.size) {
            if self.read < size {
                filled.end = End::Failed(io::Error::other(format!(
                    "the file shrank while it was read: it had {size} bytes to read when the run started, and ended after {}",
                    self.read
                )));
            }
        }
        filled
    }
}

impl Source for FdSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        let filled = fill_from(&mut Blocking(&self.file), buf, arrived);
        self.counted(filled)
    }

    fn splice_refusal(&self) -> Option<String> {
        let input = match self.name.as_str() {
            "stdin" => "standard input".to_string(),
            path => format!("-i {path}"),
        };
        splice_refusal(self.file.as_fd()).map(|why| format!("{input} {why}"))
    }

    fn fill_pipe(&mut self, pipe: &KernelPipe, want: usize, arrived: &AtomicU64) -> Filled {
        let filled = match fill_pipe(pipe, self.file.as_fd(), want, arrived) {
            PipeFill::Full(bytes) => Filled {
                bytes,
                end: End::More,
            },
            PipeFill::Ended(bytes) => Filled {
                bytes,
                end: End::Eof,
            },
            PipeFill::Failed(bytes, e) => Filled {
                bytes,
                end: End::Failed(e),
            },
        };
        self.counted(filled)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn size_hint(&self) -> Option<u64> {
        self.size
    }
}
