//! Restores and verify against a manifest on the emulated tape drive,
//! through the library: a backup is written to emulated cartridges with a
//! ledger, then read back through the checked volume source with the
//! cartridges as they were, damaged, reordered or replaced.

use crate::common;

use std::io::Cursor;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use common::memory::{Collect, Memory};
use common::{pattern, sha256};
use tapebuf::hash::HashAlg;
use tapebuf::manifest::{Ledger, Manifest, Recording};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::Running;
use tapebuf::sink::{Sink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{checked_source, Check, End, Outcome, ReadVolumes, Source, TapeReader};
use tapebuf::tape::emulated::{Cartridge, Emulated, Item};
use tapebuf::tape::health::{HealthLog, HealthWatch};
use tapebuf::tape::AtEnd;
use tapebuf::volume::ChangePolicy;

const BLOCK: usize = 64 * 1024;
const LEN: usize = 2_500_000;

fn run(source: Box<dyn Source>, sink: Box<dyn Sink>) -> Summary {
    let params = common::memory::params(BLOCK, false);
    let running = Running::start(source, vec![sink], params).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    Summary::collect(&stats, None, None)
}

fn change_by(command: &str) -> ChangePolicy {
    ChangePolicy {
        command: Some(command.into()),
        timeout: None,
        loader: None,
    }
}

/// Writes `data` across 1 MiB cartridges with a manifest: the cartridges
/// as written, and the manifest.
fn backup(data: &[u8]) -> (Vec<Cartridge>, Manifest) {
    let blanks = (0..3)
        .map(|_| Cartridge::blank(1 << 20, 200 << 10))
        .collect();
    let (drive, shelf) = Emulated::new("/dev/nst0", blanks);
    let recording = Recording {
        alg: HashAlg::Xxh3,
        verify: false,
        quiet: true,
    };
    let ledger = Ledger::new(recording, BLOCK, "/dev/nst0");
    // Watched for its health, as a local drive is: the manifest records
    // each cartridge's memory.
    let health = HealthLog::new();
    ledger.attach_health(Arc::clone(&health));
    let drive = HealthWatch::new(Box::new(drive), health, true, None);
    let settings = VolumeSettings {
        policy: change_by("true"),
        ..VolumeSettings::default()
    };
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        settings,
    )
    .with_ledger(Arc::clone(&ledger));
    let summary = run(Box::new(Memory(Cursor::new(data.to_vec()))), Box::new(sink));
    assert!(summary.is_clean(), "{}", summary.line());
    let manifest = ledger.manifest(true, None);
    assert_eq!(manifest.volumes.len(), 3);
    let slots = shelf.lock().unwrap().slots.clone();
    (slots, manifest)
}

/// Reads `slots` back against `manifest` as a restore: the summary and
/// the bytes passed downstream.
fn restore(slots: Vec<Cartridge>, manifest: &Manifest) -> (Summary, Vec<u8>) {
    let source = checked(slots, manifest, None);
    let out = Arc::new(Mutex::new(Vec::new()));
    let summary = run(Box::new(source), Box::new(Collect(Arc::clone(&out))));
    let data = out.lock().unwrap().clone();
    (summary, data)
}

fn checked(
    slots: Vec<Cartridge>,
    manifest: &Manifest,
    report: Option<tapebuf::source::Report>,
) -> tapebuf::source::VolumeSource {
    let (drive, _shelf) = Emulated::new("/dev/nst0", slots);
    let drive = HealthWatch::new(Box::new(drive), HealthLog::new(), false, None);
    let check = Check {
        manifest: Arc::new(manifest.clone()),
        block_bytes: BLOCK,
        report,
    };
    let plan = ReadVolumes {
        policy: change_by("true"),
        count: None,
        numbered: false,
        at_end: AtEnd::Rewind,
    };
    let medium = Box::new(TapeReader::new(Box::new(drive)));
    checked_source(medium, "/dev/nst0", plan, Some(check))
}

/// The bytes of volume `n`.
fn bytes(manifest: &Manifest, n: u32) -> usize {
    manifest.volume(n).unwrap().bytes as usize
}

/// Changes one byte of record `index` of a cartridge.
fn flip(cart: &mut Cartridge, index: usize, at: usize) {
    let Item::Record(r) = &mut cart.items[index] else {
        panic!("item {index} is not a record");
    };
    r[at] ^= 0xff;
}

fn records(cart: &Cartridge) -> usize {
    cart.data_record_sizes().len()
}

#[test]
fn a_restore_with_the_manifest_passes_every_cartridge() {
    let data = pattern(LEN, 1);
    let (slots, manifest) = backup(&data);
    let (summary, back) = restore(slots, &manifest);
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
}

/// Restores with a byte of cartridge 2 changed in record `index`.
fn restore_with_volume_2_changed_at(index: fn(usize) -> usize) -> (Summary, Vec<u8>, Manifest) {
    let data = pattern(LEN, 2);
    let (mut slots, manifest) = backup(&data);
    let last = records(&slots[1]) - 1;
    flip(&mut slots[1], index(last), 100);
    let (summary, back) = restore(slots, &manifest);
    assert!(!summary.is_clean());
    (summary, back, manifest)
}

#[test]
fn a_byte_changed_in_the_first_record_stops_the_cartridge_before_any_byte() {
    let (summary, back, manifest) = restore_with_volume_2_changed_at(|_| 0);
    let one = bytes(&manifest, 1);
    assert_eq!(back.len(), one);
    assert_eq!(
        summary.input_error.unwrap(),
        format!("/dev/nst0: read failed at byte {one}: volume 2 (/dev/nst0): this cartridge is not part of this backup (or its first 65536 bytes are damaged); nothing of it was passed on")
    );
}

#[test]
fn a_byte_changed_in_a_middle_record_fails_the_restore() {
    let (summary, back, manifest) = restore_with_volume_2_changed_at(|last| last / 2);
    let (one, two) = (bytes(&manifest, 1), bytes(&manifest, 2));
    assert_eq!(back.len(), one + two);
    assert_eq!(
        summary.input_error.unwrap(),
        format!("/dev/nst0: read failed at byte {}: volume 2 (/dev/nst0): differs between bytes 0 and {two} of the volume", one + two)
    );
}

#[test]
fn a_byte_changed_in_the_last_record_fails_the_restore() {
    let (summary, back, manifest) = restore_with_volume_2_changed_at(|last| last);
    let (one, two) = (bytes(&manifest, 1), bytes(&manifest, 2));
    assert_eq!(back.len(), one + two);
    assert!(summary.input_error.unwrap().ends_with(&format!(
        ": volume 2 (/dev/nst0): differs between bytes 0 and {two} of the volume"
    )),);
}

#[test]
fn a_dropped_record_is_a_short_volume() {
    let data = pattern(LEN, 3);
    let (mut slots, manifest) = backup(&data);
    slots[1].items.remove(3);
    let (summary, back) = restore(slots, &manifest);
    let (one, two) = (bytes(&manifest, 1), bytes(&manifest, 2));
    assert_eq!(back.len(), one + two - BLOCK);
    let e = summary.input_error.unwrap();
    assert!(
        e.ends_with(&format!(
            ": volume 2 (/dev/nst0): ends after {} bytes; {two} were written",
            two - BLOCK
        )),
        "{e}"
    );
}

#[test]
fn a_record_of_another_size_is_held_back_and_named() {
    let data = pattern(LEN, 4);
    let (mut slots, manifest) = backup(&data);
    let Item::Record(r) = &mut slots[1].items[5] else {
        panic!("not a record")
    };
    r.truncate(BLOCK - 100);
    let (summary, back) = restore(slots, &manifest);
    let one = bytes(&manifest, 1);
    // Records 0 to 4 of volume 2 went out; the short one did not.
    assert_eq!(back.len(), one + 5 * BLOCK);
    assert_eq!(sha256(&back), sha256(&data[..one + 5 * BLOCK]));
    let e = summary.input_error.unwrap();
    assert!(
        e.ends_with(&format!(
            ": volume 2 (/dev/nst0): record 5 at byte {} is {} bytes long; {BLOCK} were written",
            5 * BLOCK,
            BLOCK - 100
        )),
        "{e}"
    );
}

#[test]
fn cartridges_in_the_wrong_order_stop_before_the_wrong_one_is_passed_on() {
    let data = pattern(LEN, 5);
    let (mut slots, manifest) = backup(&data);
    slots.swap(1, 2);
    let (summary, back) = restore(slots, &manifest);
    let one = bytes(&manifest, 1);
    assert_eq!(sha256(&back), sha256(&data[..one]));
    assert_eq!(
        summary.input_error.unwrap(),
        format!("/dev/nst0: read failed at byte {one}: volume 2 (/dev/nst0): this is volume 3 of the backup, volume 2 was expected; nothing of it was passed on")
    );
}

#[test]
fn a_cartridge_with_the_right_data_under_another_serial_number_is_refused() {
    let data = pattern(LEN, 9);
    let (mut slots, manifest) = backup(&data);
    let recorded = manifest.volumes[1].health.as_ref().unwrap();
    let serial = recorded.cartridge.as_ref().unwrap().serial.clone().unwrap();
    // A copy of volume 2: the same records on a cartridge of its own.
    slots[1].memory.serial = Some("COPY0002".into());
    let (summary, back) = restore(slots, &manifest);
    assert_eq!(back.len(), bytes(&manifest, 1), "volume 1 only");
    assert_eq!(
        summary.input_error.unwrap(),
        format!(
            "/dev/nst0: read failed at byte {}: volume 2 (/dev/nst0): this cartridge holds volume \
             2's data, but its serial number is COPY0002, and volume 2 was written on the \
             cartridge with serial number {serial} (a copy, or another backup of the same data); \
             nothing of it was passed on",
            bytes(&manifest, 1)
        )
    );
}

#[test]
fn a_cartridge_of_another_backup_is_not_part_of_this_one() {
    let data = pattern(LEN, 6);
    let (mut slots, manifest) = backup(&data);
    let (other, _) = backup(&pattern(LEN, 7));
    slots[1] = other[1].clone();
    let (summary, back) = restore(slots, &manifest);
    assert_eq!(back.len(), bytes(&manifest, 1));
    assert!(summary
        .input_error
        .unwrap()
        .ends_with(": volume 2 (/dev/nst0): this cartridge is not part of this backup (or its first 65536 bytes are damaged); nothing of it was passed on"));
}

#[test]
fn verify_asks_again_for_the_right_cartridge_instead_of_reading_the_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("changes");
    let data = pattern(LEN, 8);
    let (slots, manifest) = backup(&data);
    // The changer holds volume 3 where volume 2 should be, then the rest.
    let shelf = vec![
        slots[0].clone(),
        slots[2].clone(),
        slots[1].clone(),
        slots[2].clone(),
    ];
    let outcomes = Arc::new(Mutex::new(Vec::<Outcome>::new()));
    let seen = Arc::clone(&outcomes);
    let report = Box::new(move |o: &Outcome| seen.lock().unwrap().push(o.clone()));
    let (drive, _shelf) = Emulated::new("/dev/nst0", shelf);
    let check = Check {
        manifest: Arc::new(manifest.clone()),
        block_bytes: BLOCK,
        report: Some(report),
    };
    let plan = ReadVolumes {
        policy: change_by(&format!(
            "echo \"$TAPEBUF_VOLUME ${{TAPEBUF_REFUSED:-none}}\" >> {}",
            log.display()
        )),
        count: None,
        numbered: false,
        at_end: AtEnd::Rewind,
    };
    let medium = Box::new(TapeReader::new(Box::new(drive)));
    let mut source = checked_source(medium, "/dev/nst0", plan, Some(check));
    let mut buf = vec![0u8; BLOCK];
    let arrived = AtomicU64::new(0);
    loop {
        match source.fill(&mut buf, &arrived).end {
            End::More => {}
            End::Eof => break,
            End::Failed(e) => panic!("{e}"),
        }
    }
    let got: Vec<(u32, u64, Option<String>)> = outcomes
        .lock()
        .unwrap()
        .iter()
        .map(|o| (o.volume, o.bytes, o.problem.clone()))
        .collect();
    let want: Vec<(u32, u64, Option<String>)> = (1..=3)
        .map(|n| (n, bytes(&manifest, n) as u64, None))
        .collect();
    assert_eq!(got, want);
    // Volume 2 was asked for twice: the wrong cartridge was given back
    // unread, and the change command was told why.
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "2 none\n2 this is volume 3 of the backup, volume 2 was expected\n3 none\n"
    );
}
