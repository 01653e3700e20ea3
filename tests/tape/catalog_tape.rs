//! `--catalog` on a tape: the real sink, volume change and `--verify`
//! read-back against the emulated drive. Each volume's `first_block` is
//! the drive's position just before its first record (here from a drive
//! that counts its blocks, since the emulation does not say yet; None
//! from one that cannot say), and the last volume gets the catalog as a
//! tape file of its own after its trailer, also after a read-back, which
//! must still pass.

use std::io::{self, Cursor};
use std::path::Path;
use std::sync::{Arc, Mutex};

use common::memory::{params, Collect, Memory};
use tapebuf::catalog::Catalog;
use tapebuf::hash::HashAlg;
use tapebuf::manifest::{Ledger, Manifest, Recording};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::Running;
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, TapeReader, VolumeSource};
use tapebuf::tape::emulated::{Cartridge, Emulated, Item, Shelf};
use tapebuf::tape::{Drive, DriveStatus, TapeOp};
use tapebuf::volume::ChangePolicy;
use xxhash_rust::xxh3::xxh3_64;

use crate::common;

const BLOCK: usize = 64 * 1024;

/// The emulated drive, answering MTIOCPOS as st does: records and
/// filemarks since the beginning of the tape, from `at` on volume 1 (a
/// tape that holds other files before this backup).
struct Counting {
    drive: Emulated,
    at: u64,
    /// Filemarks written since the volume was opened.
    marks: u64,
    /// Refuse every write after a volume's second filemark (its data's
    /// and its trailer's) with ENOSPC, as a full tape would.
    full_after_trailer: bool,
}

impl Counting {
    fn new(drive: Emulated, at: u64, full_after_trailer: bool) -> Counting {
        Counting {
            drive,
            at,
            marks: 0,
            full_after_trailer,
        }
    }
}

impl Drive for Counting {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        if self.full_after_trailer && self.marks >= 2 {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let n = self.drive.write_record(record)?;
        self.at += 1;
        Ok(n)
    }
    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.drive.read_record(buf)
    }
    fn op(&mut self, op: TapeOp) -> io::Result<()> {
        self.drive.op(op)?;
        match op {
            TapeOp::WriteFilemarks(n) => {
                self.at += u64::from(n);
                self.marks += u64::from(n);
            }
            TapeOp::Rewind | TapeOp::Unload => self.at = 0,
            _ => {}
        }
        Ok(())
    }
    fn status(&mut self) -> io::Result<DriveStatus> {
        self.drive.status()
    }
    fn close(&mut self) -> io::Result<()> {
        self.drive.close()
    }
    fn reopen(&mut self) -> io::Result<()> {
        self.marks = 0;
        self.drive.reopen()
    }
    fn name(&self) -> &str {
        self.drive.name()
    }
    fn position(&mut self) -> io::Result<u64> {
        Ok(self.at)
    }
}

/// A GNU tar archive of 20 files of 120 KiB: about 2.4 MB, three
/// cartridges.
fn archive(dir: &Path) -> Vec<u8> {
    common::needs::tool("tar", "tar");
    std::fs::create_dir(dir.join("d")).unwrap();
    for i in 0..20 {
        let name = dir.join("d").join(format!("f{i:02}"));
        std::fs::write(name, common::pattern(120 << 10, i)).unwrap();
    }
    let out = common::command("tar")
        .args(["--format=gnu", "-cf", "-", "d"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

/// Three 1 MiB cartridges, the last 200 KiB of each the early-warning zone.
fn blanks() -> Vec<Cartridge> {
    (0..3)
        .map(|_| Cartridge::blank(1 << 20, 200 << 10))
        .collect()
}

/// Writes `data` to `drive` with `--catalog` (and `--verify` if asked):
/// the summary and the manifest.
fn write(drive: Box<dyn Drive>, data: &[u8], verify: bool, catalog: &Path) -> (Summary, Manifest) {
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        },
        ..VolumeSettings::default()
    };
    let recording = Recording {
        alg: HashAlg::Xxh3,
        verify,
        quiet: true,
    };
    let ledger = Ledger::new(recording, BLOCK, "/dev/nst0");
    let medium = TapeMedium::new(drive);
    let sink =
        VolumeSink::new(Box::new(medium), "/dev/nst0", settings).with_ledger(Arc::clone(&ledger));
    ledger.attach_catalog(catalog);
    let source = Memory(Cursor::new(data.to_vec()));
    let running =
        Running::start(Box::new(source), vec![Box::new(sink)], params(BLOCK, false)).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    let summary = Summary::collect(&stats, None, None).with_catalog(ledger.finish_catalog());
    let manifest = ledger.manifest(summary.is_clean(), None);
    (summary, manifest)
}

/// The records of tape file `n` (from 0) of `cartridge`.
fn tape_file(cartridge: &Cartridge, n: usize) -> Vec<Vec<u8>> {
    let mut file = 0;
    let mut records = Vec::new();
    for item in &cartridge.items {
        match item {
            Item::Filemark => file += 1,
            Item::Record(r) if file == n => records.push(r.clone()),
            Item::Record(_) => {}
        }
    }
    records
}

/// The catalog went onto the last cartridge as its third tape file, byte
/// for byte; the others hold none; its record checksums match the tapes.
fn check_tapes(shelf: &Shelf, manifest: &Manifest, path: &Path) {
    let lib = shelf.lock().unwrap();
    let last = &lib.slots[2];
    assert_eq!(last.filemarks(), 3);
    assert_eq!(tape_file(last, 2).concat(), std::fs::read(path).unwrap());
    assert!(lib.slots[..2].iter().all(|c| c.filemarks() == 2));
    let catalog = Catalog::open(path).unwrap();
    for (v, cartridge) in manifest.volumes.iter().zip(&lib.slots) {
        let sums: Vec<u32> = tape_file(cartridge, 0)
            .iter()
            .map(|r| xxh3_64(r) as u32)
            .collect();
        assert_eq!(
            catalog.record_sums(v.number, 0, sums.len() as u64).unwrap(),
            sums
        );
    }
    assert_eq!(catalog.len(), 21, "a directory and its 20 files");
    assert!(manifest.catalog.as_ref().unwrap().on_tape);
}

#[test]
fn a_verified_tape_backup_gets_first_blocks_and_a_catalog_copy_after_its_last_trailer() {
    let dir = tempfile::tempdir().unwrap();
    let data = archive(dir.path());
    let (mut emulated, shelf) = Emulated::new("/dev/nst0", blanks());
    emulated.for_writing();
    let drive = Counting::new(emulated, 7, false);
    let path = dir.path().join("m.catalog");
    let (summary, manifest) = write(Box::new(drive), &data, true, &path);
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(summary
        .line()
        .contains("catalog: 21 members (gnu) in m.catalog, a copy on tape"));
    assert_eq!(manifest.volumes.len(), 3);
    for v in &manifest.volumes {
        assert!(v.verified.as_ref().unwrap().ok, "{:?}", v.verified);
    }
    let first: Vec<_> = manifest.volumes.iter().map(|v| v.first_block).collect();
    assert_eq!(first, [Some(7), Some(0), Some(0)]);
    check_tapes(&shelf, &manifest, &path);
    // The last read-back spaced over its own data and trailer, before the
    // copy went on.
    let log = shelf.lock().unwrap().log.join(" | ");
    let back = "filemark | write 512 | filemark | backspace files 2";
    assert_eq!(log.matches(back).count(), 3, "{log}");
}

#[test]
fn each_volume_from_the_beginning_of_its_cartridge_starts_at_block_0() {
    let dir = tempfile::tempdir().unwrap();
    let data = archive(dir.path());
    let (mut emulated, _shelf) = Emulated::new("/dev/nst0", blanks());
    emulated.for_writing();
    let path = dir.path().join("m.catalog");
    let (summary, manifest) = write(Box::new(emulated), &data, false, &path);
    assert!(summary.is_clean(), "{}", summary.line());
    let first: Vec<_> = manifest.volumes.iter().map(|v| v.first_block).collect();
    assert_eq!(first, vec![Some(0); manifest.volumes.len()]);
}

#[test]
fn a_drive_that_cannot_say_its_position_leaves_first_block_out() {
    let dir = tempfile::tempdir().unwrap();
    let data = archive(dir.path());
    let (mut emulated, shelf) = Emulated::new("/dev/nst0", blanks());
    shelf.lock().unwrap().refuse_position = Some(libc::ENOTTY);
    emulated.for_writing();
    let path = dir.path().join("m.catalog");
    let (summary, manifest) = write(Box::new(emulated), &data, false, &path);
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(manifest.volumes.iter().all(|v| v.first_block.is_none()));
    check_tapes(&shelf, &manifest, &path);
    // A restore reads the stream and stops at the last trailer, before
    // the catalog's tape file.
    let cartridges = shelf.lock().unwrap().slots.clone();
    let (drive, _) = Emulated::new("/dev/nst0", cartridges);
    let volumes = ReadVolumes {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        },
        ..ReadVolumes::default()
    };
    let source = VolumeSource::new(
        Box::new(TapeReader::new(Box::new(drive))),
        "/dev/nst0",
        volumes,
    );
    let out = Arc::new(Mutex::new(Vec::new()));
    let sink = Collect(Arc::clone(&out));
    let running =
        Running::start(Box::new(source), vec![Box::new(sink)], params(BLOCK, false)).unwrap();
    assert!(running.wait(None));
    assert!(*out.lock().unwrap() == data, "the restore differs");
}

#[test]
fn a_catalog_copy_with_no_room_on_the_tape_fails_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = archive(dir.path());
    let (mut emulated, shelf) = Emulated::new("/dev/nst0", blanks());
    emulated.for_writing();
    let path = dir.path().join("m.catalog");
    let drive = Counting::new(emulated, 0, true);
    let (summary, manifest) = write(Box::new(drive), &data, true, &path);
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(manifest
        .volumes
        .iter()
        .all(|v| v.verified.as_ref().unwrap().ok));
    let reference = manifest.catalog.unwrap();
    assert!(!reference.on_tape);
    assert_eq!((reference.members, reference.off), (21, None));
    assert_eq!(Catalog::open(&path).unwrap().len(), 21);
    let lib = shelf.lock().unwrap();
    // Nothing of it went on; the filemark that ends what did is all.
    assert!(tape_file(&lib.slots[2], 2).is_empty());
    assert_eq!(
        lib.slots[2].trailer().unwrap().ends,
        tapebuf::volume::Ends::Last
    );
}

#[test]
fn an_encrypted_backup_names_its_key_in_the_manifest_and_the_catalog_and_verifies_with_it() {
    use tapebuf::keys::tape_key::TapeKey;
    use tapebuf::tape::encryption::Keying;
    use tapebuf::volume::Safeguards;
    let dir = tempfile::tempdir().unwrap();
    let data = archive(dir.path());
    let (mut emulated, shelf) = Emulated::new("/dev/nst0", blanks());
    emulated.for_writing();
    let key = Arc::new(TapeKey::from_bytes([0x33; 32]));
    let guards = Safeguards {
        keys: Keying {
            key: Some(Arc::clone(&key)),
            ..Keying::default()
        },
        ..Safeguards::default()
    };
    let drive = guards
        .wrap(
            Box::new(emulated),
            tapebuf::tape::Access::Write,
            Path::new("/dev/nst0"),
        )
        .unwrap();
    let path = dir.path().join("m.catalog");
    let (summary, manifest) = write(drive, &data, true, &path);
    assert!(summary.is_clean(), "{}", summary.line());
    let print = key.print().to_string();
    assert_eq!(manifest.volumes.len(), 3);
    for v in &manifest.volumes {
        assert_eq!(
            v.key.as_deref(),
            Some(print.as_str()),
            "volume {}",
            v.number
        );
        assert_eq!(
            v.verified.as_ref().map(|r| r.ok),
            Some(true),
            "volume {} read back",
            v.number
        );
    }
    let catalog = Catalog::open(&path).unwrap();
    let keys: Vec<(u32, String)> = (1..=3).map(|n| (n, print.clone())).collect();
    assert_eq!(catalog.volume_keys(), keys);
    // `tapebuf ls --json` names the key each member's volume needs.
    let listed: Vec<_> = (catalog.members())
        .map(|m| tapebuf::ls::schema::MemberJson::new(m.unwrap(), Some(&manifest)))
        .collect();
    assert!(!listed.is_empty());
    for m in &listed {
        assert_eq!(m.key.as_deref(), Some(print.as_str()), "{}", m.path);
    }
    let lib = shelf.lock().unwrap();
    let last = &lib.slots[2];
    let mut catalog_copy = last
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, Item::Record(_)));
    assert!(
        catalog_copy.clone().count() > 0 && catalog_copy.all(|(at, _)| last.is_encrypted(at)),
        "every record of the last cartridge, the catalog's copy included, is encrypted"
    );
    assert!(lib.crypt.key.is_empty(), "no key left in the drive");
}
