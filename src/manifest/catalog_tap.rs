//! `--catalog`: the ledger's tap on the committed stream. Every record,
//! in order, goes to an `archive::Parser`, and each member it completes to
//! a `catalog::CatalogWriter` (made once the first header says the
//! format); every record of every volume also gets its checksum (the low
//! 32 bits of its XXH3-64, as `--verify` keeps them), streamed to a
//! temporary file beside the catalog and never held in memory, and copied
//! into the catalog when it is finished.
//!
//! The tap never fails a backup: when the parser turns off (a stream that
//! is not tar or cpio, or one it does not understand), or the catalog
//! cannot be written, it says so in one line on stderr, stops, leaves no
//! file behind (an earlier run's catalog of the same name is removed too),
//! and the manifest's `catalog.off` says why.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::tally::record_checksum;

use super::schema::CatalogRef;
use crate::archive::{Format, Parser};
use crate::base::console::{message, say};
use crate::catalog::{CatalogExtras, CatalogWriter};

/// The catalog of the run under way.
pub struct CatalogTap {
    path: PathBuf,
    parser: Parser,
    writer: Option<CatalogWriter>,
    sums: Option<SumsFile>,
    /// Per volume begun: its number and the records checksummed.
    volumes: Vec<(u32, u64)>,
    /// The volumes the drive encrypted, with their keys' fingerprints.
    keys: Vec<(u32, String)>,
    members: u64,
    off: Option<String>,
    /// Once finished: what the manifest says.
    finished: Option<CatalogRef>,
}

/// The record checksums, written as they come to a file in the
/// catalog's directory that has no name (`base::create::scratch`): it
/// vanishes when closed, and no other user can plant or open it.
struct SumsFile {
    file: BufWriter<File>,
}

impl CatalogTap {
    /// A tap writing the catalog at `path`; the record checksums wait in
    /// a temporary file beside it. A file that cannot be made turns the
    /// catalog off at once (said, as any other reason).
    pub fn new(path: &Path) -> CatalogTap {
        let mut tap = CatalogTap {
            path: path.to_path_buf(),
            parser: Parser::new(),
            writer: None,
            sums: None,
            volumes: Vec::new(),
            keys: Vec::new(),
            members: 0,
            off: None,
            finished: None,
        };
        match SumsFile::create(path) {
            Ok(sums) => tap.sums = Some(sums),
            Err(e) => tap.turn_off(format!("cannot write {}: {e}", tap.sums_name())),
        }
        tap
    }

    fn sums_name(&self) -> String {
        format!("the record checksums beside {}", self.path.display())
    }

    /// Volume `number` begins.
    pub fn begin(&mut self, number: u32) {
        self.volumes.push((number, 0));
    }

    /// The volume in use is encrypted with the key of fingerprint `print`.
    pub fn set_key(&mut self, print: String) {
        let Some(&(number, _)) = self.volumes.last() else {
            return;
        };
        self.keys.retain(|(n, _)| *n != number);
        self.keys.push((number, print));
    }

    /// One record (a tape) or write (a file), as committed, with its
    /// checksum when the caller has it already; empty ones are not
    /// records, as the tally counts them.
    pub fn record(&mut self, data: &[u8], checksum: Option<u32>) {
        if data.is_empty() || self.off.is_some() || self.finished.is_some() {
            return;
        }
        if let Some(last) = self.volumes.last_mut() {
            last.1 += 1;
        }
        let sum = checksum
            .unwrap_or_else(|| record_checksum(data))
            .to_le_bytes();
        if let Err(e) = self
            .sums
            .as_mut()
            .map_or(Ok(()), |s| s.file.write_all(&sum))
        {
            return self.turn_off(format!("cannot write {}: {e}", self.sums_name()));
        }
        self.parser.feed(data);
        if let Some(reason) = self.parser.off() {
            return self.turn_off(reason.to_string());
        }
        if let Err(e) = self.add_members() {
            self.turn_off(format!("cannot write {}: {e}", self.path.display()));
        }
    }

    /// Hands the members the parser completed to the writer, made once
    /// the format is known.
    fn add_members(&mut self) -> io::Result<()> {
        let members = self.parser.take_members();
        if members.is_empty() {
            return Ok(());
        }
        if self.writer.is_none() {
            let format = self.parser.format().unwrap_or(Format::Ustar);
            self.writer = Some(CatalogWriter::create(&self.path, format)?);
        }
        let writer = self.writer.as_mut().expect("made above");
        for member in &members {
            writer.add(member)?;
            self.members += 1;
        }
        Ok(())
    }

    /// Stops for good while the backup runs: the writer and the checksums
    /// go, with their files, and one line says why.
    fn turn_off(&mut self, reason: String) {
        self.stop(reason, "the backup goes on without a catalog");
    }

    /// Stops for good, saying why and what it means (`then`).
    fn stop(&mut self, reason: String, then: &str) {
        if self.off.is_some() {
            return;
        }
        self.writer = None;
        self.sums = None;
        // An earlier run's catalog of this name would seem to be this one's.
        let _ = CatalogWriter::remove_stale(&self.path);
        say(&message!("--catalog: off: {reason}; {then}"));
        self.off = Some(reason);
    }

    /// Ends the catalog (once; later calls give the same answer): the
    /// stream must have ended cleanly for the parser, then the catalog
    /// file is written whole with the record checksums and put in place.
    pub fn finish(&mut self) -> CatalogRef {
        if let Some(done) = &self.finished {
            return done.clone();
        }
        if self.off.is_none() {
            if let Err(reason) = self.parser.finish() {
                self.stop(reason, "the backup has no catalog");
            } else if let Err(e) = self.add_members().and_then(|()| self.write()) {
                let reason = format!("cannot write {}: {e}", self.path.display());
                self.stop(reason, "the backup has no catalog");
            }
        }
        let done = self.reference();
        self.finished = Some(done.clone());
        done
    }

    /// Writes the catalog, with the globals, trailer, end and checksums.
    fn write(&mut self) -> io::Result<()> {
        if self.writer.is_none() {
            let format = self.parser.format().unwrap_or(Format::Ustar);
            self.writer = Some(CatalogWriter::create(&self.path, format)?);
        }
        let writer = self.writer.take().expect("made above");
        let extras = CatalogExtras {
            globals: self.parser.globals().to_vec(),
            trailer: self.parser.trailer(),
            end: self.parser.end(),
            volumes: self.volumes.clone(),
            keys: self.keys.clone(),
        };
        if let Some(sums) = self.sums.as_mut() {
            sums.file.flush()?;
        }
        let sums = self.sums.take();
        let mut reader: Box<dyn Read> = match &sums {
            Some(sums) => Box::new(sums.reader()?),
            None => Box::new(io::empty()),
        };
        writer.finish_with(&extras, &mut reader)?;
        // The checksums' file goes once copied.
        drop(sums);
        Ok(())
    }

    /// What the manifest says of the catalog as it stands.
    pub fn reference(&self) -> CatalogRef {
        CatalogRef {
            file: self
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            format: self.parser.format().map(format_name),
            members: self.members,
            off: self.off.clone(),
            on_tape: self.finished.as_ref().is_some_and(|f| f.on_tape),
        }
    }

    /// The catalog file, once finished whole.
    pub fn file(&self) -> Option<&Path> {
        let whole = self.finished.as_ref().is_some_and(|f| f.off.is_none());
        whole.then_some(self.path.as_path())
    }

    /// A copy went onto the tape after the last volume's trailer.
    pub fn set_on_tape(&mut self) {
        if let Some(done) = self.finished.as_mut() {
            done.on_tape = true;
        }
    }
}

impl SumsFile {
    fn create(catalog: &Path) -> io::Result<SumsFile> {
        let dir = match catalog.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut stem = catalog.file_name().unwrap_or_default().to_os_string();
        stem.push(".sums");
        let file = crate::base::create::scratch(dir, &stem)?;
        Ok(SumsFile {
            file: BufWriter::with_capacity(1 << 16, file),
        })
    }

    /// The checksums written, read from the start.
    fn reader(&self) -> io::Result<File> {
        let mut file = self.file.get_ref().try_clone()?;
        file.rewind()?;
        Ok(file)
    }
}

/// A format as the manifest names it: as it serialises, in snake case.
pub fn format_name(format: Format) -> String {
    serde_json::to_value(format)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    /// A ustar header for a regular file `name` of `size` bytes.
    fn header(name: &str, size: usize) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }

    /// Two members and the end blocks: 2560 bytes.
    fn tar() -> Vec<u8> {
        [
            header("a", 5),
            vec![b'a'; 512],
            header("b", 0),
            vec![0; 1024],
        ]
        .concat()
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn members_and_every_records_checksum_reach_the_catalog_across_volumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.catalog");
        let mut tap = CatalogTap::new(&path);
        let stream = tar();
        let records: Vec<&[u8]> = stream.chunks(1024).collect();
        tap.begin(1);
        tap.record(records[0], None);
        tap.record(&[], None);
        tap.record(records[1], None);
        tap.begin(2);
        tap.record(records[2], None);
        let done = tap.finish();
        assert_eq!(done, tap.finish(), "finished once");
        assert_eq!((done.members, done.off.as_deref()), (2, None));
        assert_eq!(done.format.as_deref(), Some("ustar"));
        assert_eq!(done.file, "m.catalog");
        assert_eq!(files(dir.path()), ["m.catalog"]);
        let catalog = Catalog::open(&path).unwrap();
        assert_eq!(catalog.volumes_with_sums(), [(1, 2), (2, 1)]);
        let sum = record_checksum;
        let want = [sum(records[0]), sum(records[1])];
        assert_eq!(catalog.record_sums(1, 0, 2).unwrap(), want);
        assert_eq!(catalog.record_sums(2, 0, 1).unwrap(), [sum(records[2])]);
        assert_eq!(catalog.end(), Some(2560));
        assert_eq!(tap.file(), Some(path.as_path()));
    }

    #[test]
    fn a_stream_that_is_no_archive_or_is_cut_leaves_no_file_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.catalog");
        let earlier = CatalogWriter::create(&path, Format::Pax).unwrap();
        earlier.finish().unwrap();
        let mut tap = CatalogTap::new(&path);
        tap.begin(1);
        tap.record(&[0x55; 4096], None);
        let off = tap.finish().off.expect("off");
        assert!(off.starts_with("byte 0: "), "{off}");
        assert_eq!(files(dir.path()), Vec::<String>::new());
        assert_eq!(tap.file(), None);

        std::fs::write(&path, b"not a catalog: kept").unwrap();
        let mut tap = CatalogTap::new(&path);
        tap.begin(1);
        tap.record(&tar()[..700], None);
        let done = tap.finish();
        assert_eq!(done.members, 0, "cut inside a's data");
        let off = done.off.expect("off");
        assert!(off.contains("ended"), "{off}");
        assert_eq!(files(dir.path()), ["m.catalog"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"not a catalog: kept");
    }
}
