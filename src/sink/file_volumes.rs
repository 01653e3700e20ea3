//! Files as volumes: `--volume-size` ends a file after so many bytes, and
//! a numbered name (`big.tar.%03d`) gives each volume its own file. With a
//! name that is not numbered, every volume is the same path, so the medium
//! behind it (a removable disk) must be swapped in between. Each new volume
//! is opened with the same care as the first: an existing file is refused
//! unless `-f` or `--append` says otherwise. That refusal is an
//! `AlreadyExists` error, which the loader (`tape::load`) answers by asking
//! for another medium: the operator pressed Enter without swapping. A
//! volume that has become one of the input's volumes is refused before its
//! first byte.
//!
//! Each volume's trailer goes in its `user.tapebuf.trailer` attribute and
//! in an empty marker file beside it (`tape::trailer_marker`), which plain
//! copies keep; a volume's older markers (and attribute) are removed as it
//! is opened (`file::open_plan`), so
//! a rerun over an older set leaves none beside a volume it rewrote. A
//! filesystem that keeps no attributes, or a name too long for a marker,
//! is said in the summary.

use std::fs::File;
use std::io::{self, Write};

use super::medium::{Writable, WriteMedium};
use super::preflight::{plan_path, Plan};
use super::spec::ExistingFile;
use super::OpenError;
use crate::base::blocking::Blocking;
use crate::base::file_id::Identity;
use crate::manifest::Checker;
use crate::tape::AtEnd;
use crate::volume::{trailer, trailer_marker, Medium, MediumKind, Trailer, VolumeNames};

pub struct FileMedium {
    names: VolumeNames,
    file: Option<File>,
    existing: ExistingFile,
    sync: bool,
    block_bytes: usize,
    /// The input's numbered volumes, which no volume here may be.
    reads: Option<VolumeNames>,
    /// Volumes whose filesystem kept no trailer attribute.
    no_attribute: Vec<u32>,
    /// Volumes whose name left no room for a marker file.
    no_marker: Vec<u32>,
    /// Why marker files could not be made.
    marker_failed: Vec<String>,
}

impl FileMedium {
    /// Opens volume 1 as `plan` says.
    pub fn open(
        names: VolumeNames,
        plan: &Plan,
        existing: ExistingFile,
        sync: bool,
        block_bytes: usize,
    ) -> io::Result<FileMedium> {
        let file = super::file::open_plan(plan, block_bytes)?;
        Ok(FileMedium {
            names,
            file: Some(file),
            existing,
            sync,
            block_bytes,
            reads: None,
            no_attribute: Vec::new(),
            no_marker: Vec::new(),
            marker_failed: Vec::new(),
        })
    }

    /// Refuses, before its first byte, any later volume that is by then
    /// one of these input volumes (a link made or a medium mounted during
    /// the run); the start checked those there then (`config::written_paths`).
    pub fn apart_from(mut self, reads: Option<VolumeNames>) -> FileMedium {
        self.reads = reads;
        self
    }

    fn check_apart(&self, n: u32, path: &std::path::Path) -> io::Result<()> {
        let Some(reads) = &self.reads else {
            return Ok(());
        };
        let Some(id) = Identity::of_path(path)
            .ok()
            .flatten()
            .filter(|i| i.holds_data())
        else {
            return Ok(());
        };
        let same = reads
            .existing()
            .into_iter()
            .find(|(_, p)| Identity::of_path(p).ok().flatten() == Some(id));
        match same {
            Some((m, p)) => Err(io::Error::other(format!(
                "volume {n} ({}) is the same file as input volume {m} ({}); refused before writing to it",
                path.display(),
                p.display()
            ))),
            None => Ok(()),
        }
    }
}

impl Writable for FileMedium {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| io::Error::other("written after it was closed"))?;
        Blocking(file).write(data)
    }
}

impl WriteMedium for FileMedium {
    /// The trailer goes in the file's extended attribute, where the
    /// filesystem keeps one.
    fn end_volume(&mut self, _then: AtEnd, trailer: &Trailer) -> io::Result<()> {
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        if file.metadata().is_ok_and(|m| m.is_file()) {
            use std::os::fd::AsFd;
            if !trailer::attach_to_file(file.as_fd(), trailer)? {
                self.no_attribute.push(trailer.volume);
            }
            // The data and its attribute are whole: a marker that cannot
            // be made is said in the summary, not a failed volume.
            let path = self.names.volume(trailer.volume);
            match trailer_marker::write_marker(&path, trailer) {
                Ok(true) => {}
                Ok(false) => self.no_marker.push(trailer.volume),
                Err(e) => self.marker_failed.push(e.to_string()),
            }
        }
        if self.sync && super::file::syncable(&file) {
            file.sync_all()?;
        }
        crate::base::close::close_reporting(file)
    }

    fn read_back(&mut self, n: u32, check: &mut Checker) -> io::Result<String> {
        super::read_back::read_back_file(&self.names.volume(n), check)
    }

    fn trailer_note(&self) -> Option<String> {
        let list = |v: &[u32]| {
            let each: Vec<String> = v.iter().map(u32::to_string).collect();
            each.join(",")
        };
        let mut notes = Vec::new();
        if !self.no_attribute.is_empty() {
            notes.push(format!(
                "the filesystem of {} keeps no user attributes, so the trailer of volume {} is only in its marker file",
                self.names.volume_name(self.no_attribute[0]),
                list(&self.no_attribute)
            ));
        }
        if !self.no_marker.is_empty() {
            notes.push(format!(
                "volume {}'s name is too long for a trailer marker file ({} bytes at most), so a copy without attributes loses its trailer",
                list(&self.no_marker),
                trailer_marker::NAME_MAX_BYTES
            ));
        }
        notes.extend(self.marker_failed.iter().cloned());
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

impl Medium for FileMedium {
    fn kind(&self) -> MediumKind {
        self.names.kind()
    }

    fn open_volume(&mut self, n: u32) -> io::Result<()> {
        let path = self.names.volume(n);
        self.check_apart(n, &path)?;
        let plan = plan_path(&path, self.existing).map_err(|e| match e {
            OpenError::Exists(_) => io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "already holds {}, which tapebuf does not overwrite without -f/--force or --append",
                    path.display()
                ),
            ),
            e => io::Error::other(e.to_string()),
        })?;
        self.file = Some(super::file::open_plan(&plan, self.block_bytes)?);
        Ok(())
    }

    fn volume_name(&self, n: u32) -> String {
        self.names.volume_name(n)
    }
}
