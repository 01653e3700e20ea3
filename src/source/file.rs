//! Standard input and files as a source: a plain file descriptor read with
//! `read(2)`. O_DIRECT is for outputs only: reads go through the page cache.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::AtomicU64;

use anyhow::Context;

use super::{fill_from, Filled, Source};
use crate::blocking::Blocking;

/// A source reading from a file descriptor.
pub struct FdSource {
    file: File,
    name: String,
    size: Option<u64>,
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
        crate::pipe_size::grow_to(&file, block_bytes);
        let size = regular_size(&file);
        Ok(FdSource {
            file,
            name: "stdin".into(),
            size,
        })
    }

    /// A named file.
    pub fn open(path: &Path) -> anyhow::Result<FdSource> {
        let name = path.display().to_string();
        let file = File::open(path).with_context(|| format!("-i {name}: cannot open"))?;
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            anyhow::bail!("-i {name}: is a directory");
        }
        let size = regular_size(&file);
        Ok(FdSource { file, name, size })
    }
}

fn regular_size(file: &File) -> Option<u64> {
    file.metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

impl Source for FdSource {
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
        fill_from(&mut Blocking(&self.file), buf, arrived)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn size_hint(&self) -> Option<u64> {
        self.size
    }
}
