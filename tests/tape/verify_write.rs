//! `--verify` and `--manifest` on the write side. Tapes: the real sink,
//! volume change and read-back, driven through a real pipeline against the
//! emulated drive, whose read faults damage a record as it is read back
//! (a worn head), so every way a read-back can differ is seen. Files: the
//! binary, end to end, including a run stopped half-way.

use crate::common;

mod files;

use std::io::Cursor;
use std::sync::Arc;

use common::memory::{params, Memory};
use tapebuf::hash::HashAlg;
use tapebuf::manifest::{Ledger, Manifest, Recording};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::Running;
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::tape::emulated::{Cartridge, Emulated, ReadFault, Shelf};
use tapebuf::tape::Drive;
use tapebuf::volume::ChangePolicy;
use xxhash_rust::xxh3::xxh3_64;

const BLOCK: usize = 64 * 1024;

fn xxh3_hex(data: &[u8]) -> String {
    format!("{:016x}", xxh3_64(data))
}

/// Three 1 MiB cartridges, the last 200 KiB of each the early-warning zone.
fn blanks() -> Vec<Cartridge> {
    (0..3)
        .map(|_| Cartridge::blank(1 << 20, 200 << 10))
        .collect()
}

/// What a verified write to the emulated drive left behind.
struct Written {
    summary: Summary,
    manifest: Manifest,
    ledger: Arc<Ledger>,
    shelf: Shelf,
}

/// Writes `data` with `--verify` to the emulated drive, whose reads show
/// `faults`, changing cartridges with a command that always succeeds.
fn write_verified(data: &[u8], faults: Vec<ReadFault>) -> Written {
    let (mut drive, shelf) = Emulated::new("/dev/nst0", blanks());
    drive.for_writing();
    shelf.lock().unwrap().read_faults = faults;
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
        verify: true,
        quiet: true,
    };
    let ledger = Ledger::new(recording, BLOCK, "/dev/nst0");
    let medium = TapeMedium::new(Box::new(drive));
    let sink =
        VolumeSink::new(Box::new(medium), "/dev/nst0", settings).with_ledger(Arc::clone(&ledger));
    let source = Memory(Cursor::new(data.to_vec()));
    let running =
        Running::start(Box::new(source), vec![Box::new(sink)], params(BLOCK, false)).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    let summary = Summary::collect(&stats, None, None);
    let manifest = ledger.manifest(summary.is_clean(), None);
    Written {
        summary,
        manifest,
        ledger,
        shelf,
    }
}

/// 2.5 MB: three volumes of 13, 13 and 13 records (the last one short).
fn stream() -> Vec<u8> {
    common::pattern(2_500_000, 20)
}

#[test]
fn a_verified_tape_backup_reads_every_volume_back_before_the_change() {
    let data = stream();
    let w = write_verified(&data, Vec::new());
    assert!(w.summary.is_clean(), "{}", w.summary.line());
    assert!(w.ledger.verify_failures().is_empty());
    let m = &w.manifest;
    assert!(m.clean);
    assert_eq!(m.stream.bytes, data.len() as u64);
    assert_eq!(m.stream.digest, xxh3_hex(&data));
    assert_eq!(m.volumes.len(), 3);
    let lib = w.shelf.lock().unwrap();
    let mut at = 0usize;
    for (v, cart) in m.volumes.iter().zip(&lib.slots) {
        let on_tape = cart.first_file();
        assert_eq!(v.bytes, on_tape.len() as u64);
        assert_eq!(&data[at..at + on_tape.len()], &on_tape[..]);
        at += on_tape.len();
        assert_eq!(v.digest, xxh3_hex(&on_tape));
        assert_eq!(v.filemarks, 1);
        assert_eq!(v.record_count(), cart.data_record_sizes().len() as u64);
        assert_eq!(v.fingerprint.bytes, BLOCK as u64);
        assert_eq!(v.fingerprint.xxh3, xxh3_hex(&on_tape[..BLOCK]));
        let found = v.verified.as_ref().expect("read back");
        assert!(found.ok, "{found:?}");
        assert_eq!(found.method, "tape, spaced back and read");
    }
    assert_eq!(at, data.len());
    // Each volume got its filemark and its trailer, was read back (spaced
    // back over both filemarks and its 13 records, then forward past the
    // trailer again) before the changer took it (unload).
    let log = lib.log.join(" | ");
    let back =
        "filemark | write 512 | filemark | backspace files 2 | backspace 13 | forward files 1";
    assert_eq!(log.matches(back).count(), 3, "{log}");
    assert_eq!(log.matches("forward files 1 | unload").count(), 2, "{log}");
    assert!(!log.contains("rewind"), "{log}");
}

/// The item index of record `n` on a cartridge holding only records and
/// the filemark after them.
fn record(n: usize) -> usize {
    n
}

#[test]
fn a_bad_byte_in_the_first_a_middle_or_the_last_record_names_volume_and_offset() {
    let data = stream();
    let clean = write_verified(&data, Vec::new());
    let records = clean.manifest.volumes[1].record_count() as usize;
    for (n, byte) in [(0, 0), (records / 2, 4096), (records - 1, BLOCK - 1)] {
        let fault = ReadFault::Corrupt {
            slot: 1,
            item: record(n),
            byte,
        };
        let w = write_verified(&data, vec![fault]);
        // The write itself is whole and the stream clean: only the
        // read-back of volume 2 differs.
        assert!(w.summary.is_clean(), "{}", w.summary.line());
        let failures = w.ledger.verify_failures();
        assert_eq!(
            failures,
            vec![format!(
                "volume 2 (/dev/nst0): differs in record {n}, which starts at byte {} of the volume",
                n * BLOCK
            )],
            "record {n}"
        );
        let v2 = w.manifest.volume(2).unwrap().verified.clone().unwrap();
        assert!(!v2.ok);
        assert_eq!(v2.first_bad_byte, Some((n * BLOCK) as u64));
        for n in [1, 3] {
            assert!(w.manifest.volume(n).unwrap().verified.as_ref().unwrap().ok);
        }
    }
}

#[test]
fn a_record_lost_at_the_end_of_a_volume_reads_as_a_short_volume() {
    let data = stream();
    let clean = write_verified(&data, Vec::new());
    let v1 = &clean.manifest.volumes[0];
    let last = v1.record_count() as usize - 1;
    let w = write_verified(
        &data,
        vec![ReadFault::Drop {
            slot: 0,
            item: record(last),
        }],
    );
    let found = w.manifest.volume(1).unwrap().verified.clone().unwrap();
    assert!(!found.ok);
    assert_eq!(
        found.problem.as_deref(),
        Some(
            format!(
                "ends after {} bytes; {} were written",
                last * BLOCK,
                v1.bytes
            )
            .as_str()
        )
    );
    assert_eq!(found.first_bad_byte, Some((last * BLOCK) as u64));
}

#[test]
fn a_record_lost_mid_volume_names_the_first_record_that_differs() {
    let data = stream();
    let w = write_verified(
        &data,
        vec![ReadFault::Drop {
            slot: 2,
            item: record(3),
        }],
    );
    let failures = w.ledger.verify_failures();
    assert_eq!(
        failures,
        vec![format!(
            "volume 3 (/dev/nst0): differs in record 3, which starts at byte {} of the volume",
            3 * BLOCK
        )]
    );
}

#[test]
fn a_backup_appended_after_another_on_the_tape_reads_back_only_itself() {
    // The tape already holds last week's backup as its first file; this
    // one is written after it, on the no-rewind device.
    let earlier = common::pattern(300_000, 24);
    let mut tape = Cartridge::with_records(earlier.chunks(BLOCK).map(<[u8]>::to_vec).collect());
    tape.capacity_bytes = 8 << 20;
    let (mut drive, shelf) = Emulated::new("/dev/nst0", vec![tape]);
    let mut buf = vec![0u8; BLOCK];
    while drive.read_record(&mut buf).unwrap() > 0 {}
    drive.for_writing();
    let recording = Recording {
        alg: HashAlg::Xxh3,
        verify: true,
        quiet: true,
    };
    let ledger = Ledger::new(recording, BLOCK, "/dev/nst0");
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings::default(),
    )
    .with_ledger(Arc::clone(&ledger));
    let data = common::pattern(500_000, 25);
    let source = Memory(Cursor::new(data.clone()));
    let running =
        Running::start(Box::new(source), vec![Box::new(sink)], params(BLOCK, false)).unwrap();
    assert!(running.wait(None));
    assert!(
        ledger.verify_failures().is_empty(),
        "{:?}",
        ledger.verify_failures()
    );
    let m = ledger.manifest(true, None);
    assert!(m.volumes[0].verified.as_ref().unwrap().ok);
    let lib = shelf.lock().unwrap();
    let items = &lib.slots[0].items;
    let files: Vec<Vec<u8>> = items
        .split(|i| *i == tapebuf::tape::emulated::Item::Filemark)
        .map(|file| {
            file.iter()
                .flat_map(|i| match i {
                    tapebuf::tape::emulated::Item::Record(r) => r.clone(),
                    tapebuf::tape::emulated::Item::Filemark => Vec::new(),
                })
                .collect()
        })
        .collect();
    assert_eq!(files[0], earlier, "the earlier backup is untouched");
    assert_eq!(files[1], data);
}
