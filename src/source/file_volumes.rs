//! Files as input volumes: numbered names (`big.tar.%03d`, read while the
//! next file exists, or `-n` of them), or one name whose medium is swapped
//! between volumes (`-n` with a name that is not numbered), or one file
//! that carries a trailer. A volume's trailer is its `user.tapebuf.trailer`
//! attribute, where the filesystem kept it (`tape::trailer`), else the
//! empty marker file beside it (`tape::trailer_marker`), which plain
//! copies keep; where both are there they must agree.

use std::fs::File;
use std::io::{self, Read};

use super::volumes::{Got, ReadMedium};
use crate::base::blocking::Blocking;
use crate::tape::AtEnd;
use crate::volume::trailer_marker::{self, Kept};
use crate::volume::{trailer, Medium, MediumKind, Trailer, VolumeNames};

/// Files as input volumes: numbered names, or one name whose medium is
/// swapped between volumes (with `-n`).
pub struct FileVolumesIn {
    names: VolumeNames,
    file: Option<File>,
    /// The volume open now.
    volume: u32,
    /// Volumes whose trailer came from the marker file alone.
    from_marker: Vec<u32>,
}

impl FileVolumesIn {
    pub fn open(names: VolumeNames) -> io::Result<FileVolumesIn> {
        let file = File::open(names.volume(1))?;
        Ok(FileVolumesIn {
            names,
            file: Some(file),
            volume: 1,
            from_marker: Vec::new(),
        })
    }

    /// True when the file at `path` carries a tapebuf trailer (its
    /// attribute or a marker file), so that reading it alone must heed
    /// it: a single file's trailer may say the backup was cut.
    pub fn has_trailer(path: &std::path::Path) -> bool {
        // One that cannot be read is there all the same: reading says why.
        path.is_file() && !matches!(trailer_marker::read_volume_trailer(path), Ok(None))
    }

    /// The total size of the numbered files that exist now.
    pub fn total_size(&self) -> Option<u64> {
        if !self.names.is_numbered() {
            return None;
        }
        let mut total = 0;
        for n in 1.. {
            match std::fs::metadata(self.names.volume(n)) {
                Ok(m) if m.is_file() => total += m.len(),
                _ => break,
            }
        }
        Some(total)
    }
}

impl ReadMedium for FileVolumesIn {
    fn read(&mut self, buf: &mut [u8], _fresh: bool) -> io::Result<Got> {
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| io::Error::other("read after it was closed"))?;
        match Blocking(&*file).read(buf)? {
            0 => Ok(Got::EndOfVolume),
            n => Ok(Got::Bytes(n)),
        }
    }

    fn end_volume(&mut self, _then: AtEnd) -> io::Result<()> {
        self.file.take();
        Ok(())
    }

    fn read_trailer(&mut self) -> io::Result<Option<Trailer>> {
        let path = self.names.volume(self.volume);
        Ok(match trailer_marker::read_volume_trailer(&path)? {
            Some((t, Kept::Attribute)) => Some(t),
            Some((t, Kept::Marker)) => {
                self.from_marker.push(self.volume);
                Some(t)
            }
            None => None,
        })
    }

    fn note(&self) -> Option<String> {
        let each: Vec<String> = self.from_marker.iter().map(u32::to_string).collect();
        (!each.is_empty()).then(|| {
            format!(
                "volume {}'s trailer was read from its marker file, as the file kept no {} attribute (a copy or a filesystem without them)",
                each.join(","),
                trailer::XATTR_NAME
            )
        })
    }

    fn volume_exists(&self, n: u32) -> bool {
        self.names.volume(n).is_file()
    }
}

impl Medium for FileVolumesIn {
    fn kind(&self) -> MediumKind {
        self.names.kind()
    }

    fn open_volume(&mut self, n: u32) -> io::Result<()> {
        self.file = Some(File::open(self.names.volume(n))?);
        self.volume = n;
        Ok(())
    }

    fn volume_name(&self, n: u32) -> String {
        self.names.volume_name(n)
    }
}
