//! File volumes read at random: volume n is the file its numbered name
//! gives (`backup.%03d`), or the one file of a single-volume backup; a
//! record is read at its offset with one positioned read. Each file is
//! recognised by its fingerprint (the manifest's hash of its first
//! bytes) when first opened, as a restore recognises it, so a file of
//! another backup or volume is named, not read. The cost counts each
//! byte of a volume once: a record read over the first bytes already
//! read to recognise the volume counts only the rest.

use std::fs::File;

use super::volume_reader::{Cost, VolumeReader};
use super::walk::RecordAt;
use crate::base::path_registry::open_regular;
use crate::base::read_full::read_full_at;
use crate::manifest::{Identity, Manifest};
use crate::volume::VolumeNames;

/// A backup's volumes as files.
pub struct FileVolumes<'m> {
    manifest: &'m Manifest,
    names: VolumeNames,
    /// The volume open, and where the last read ended in it.
    open: Option<(u32, File, u64)>,
    /// The bytes at the open volume's start read to recognise it.
    recognised: u64,
    cost: Cost,
}

impl<'m> FileVolumes<'m> {
    /// `names` names the volumes; un-numbered only for a backup of one.
    pub fn new(manifest: &'m Manifest, names: VolumeNames) -> Result<FileVolumes<'m>, String> {
        if !names.is_numbered() && manifest.volumes.len() > 1 {
            return Err(format!(
                "-i {}: the backup has {} volumes; name them with a number (-i {}.%03d)",
                names.volume_name(1),
                manifest.volumes.len(),
                names.volume_name(1)
            ));
        }
        Ok(FileVolumes {
            manifest,
            names,
            open: None,
            recognised: 0,
            cost: Cost::default(),
        })
    }

    /// Opens volume `n` and checks its first bytes against the manifest.
    fn open(&mut self, n: u32) -> Result<(), String> {
        let path = self.names.volume(n);
        // Read by seeking: a FIFO or device in its place is refused, not
        // waited on.
        let file = open_regular(&path).map_err(|e| format!("cannot open it: {e}"))?;
        self.cost.volumes += 1;
        let want = self
            .manifest
            .volume(n)
            .map_or(0, |v| v.fingerprint.bytes as usize);
        let mut first = vec![0u8; want];
        let got = read_full_at(&file, &mut first, 0).map_err(|e| format!("reading it: {e}"))?;
        self.cost.bytes += got as u64;
        self.recognised = got as u64;
        let identity = self.manifest.identify(&first[..got], n);
        if identity != Identity::Volume(n) {
            return Err(self.manifest.wrong_volume_line(&identity, n, "file"));
        }
        self.open = Some((n, file, 0));
        Ok(())
    }
}

impl VolumeReader for FileVolumes<'_> {
    fn read(&mut self, at: &RecordAt, buf: &mut Vec<u8>) -> Result<(), String> {
        if self.open.as_ref().map(|o| o.0) != Some(at.volume) {
            self.open = None;
            self.open(at.volume)?;
        }
        let Some((_, file, last_end)) = self.open.as_mut() else {
            unreachable!("opened above");
        };
        if *last_end != at.offset {
            self.cost.seeks += 1;
        }
        buf.resize(at.bytes as usize, 0);
        let got = read_full_at(file, buf, at.offset).map_err(|e| e.to_string())?;
        let end = at.offset + got as u64;
        self.cost.bytes += end - at.offset.max(self.recognised.min(end));
        *last_end = end;
        if got < buf.len() {
            let len = (file.metadata()).map_or(at.offset + got as u64, |m| m.len());
            let place = if len <= at.offset { "before" } else { "inside" };
            return Err(format!(
                "the file is cut short: it ends at byte {len}, {place} the record"
            ));
        }
        Ok(())
    }

    fn volume_name(&self, n: u32) -> String {
        self.names.volume_name(n)
    }

    fn cost(&self) -> Cost {
        self.cost
    }
}
