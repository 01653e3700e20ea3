//! The encrypting drive against the emulated one, which encrypts as
//! mhvtl's LTO drives do in the tape lab: what is sealed on tape, which
//! key a read finds, what a missing or wrong key says, and that no key is
//! left in the drive however the wrapper ends.

use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::keys::tape_key::TapeKey;
use crate::tape::drive::{Access, Drive};
use crate::tape::emulated::{Cartridge, DriveCrypt, Emulated, Item, Shelf};
use crate::tape::TapeOp;

fn drive() -> (Emulated, Shelf) {
    Emulated::new("/dev/nst0", vec![Cartridge::blank(1 << 24, 0)])
}

fn key(seed: u8) -> Arc<TapeKey> {
    Arc::new(TapeKey::from_bytes([seed; 32]))
}

fn writing(key: &Arc<TapeKey>) -> Keying {
    Keying {
        key: Some(key.clone()),
        ..Keying::default()
    }
}

/// A key directory holding `keys`, each in a file of mode 0600.
fn key_dir(keys: &[&TapeKey]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (i, k) in keys.iter().enumerate() {
        k.write_new(&dir.path().join(format!("key{i}"))).unwrap();
    }
    dir
}

fn reading(dir: &Path) -> Keying {
    Keying {
        dir: Some(dir.to_path_buf()),
        ..Keying::default()
    }
}

fn crypt(shelf: &Shelf) -> DriveCrypt {
    shelf.lock().unwrap().crypt.clone()
}

/// Writes `blocks` encrypted with `k` and closes: the cartridge as a
/// backup left it.
fn written(k: &Arc<TapeKey>, blocks: &[Vec<u8>]) -> (Emulated, Shelf) {
    let (d, shelf) = drive();
    let mut e = Encrypted::new(Box::new(d), writing(k), Access::Write).unwrap();
    for b in blocks {
        assert_eq!(e.write_record(b).unwrap(), b.len());
    }
    e.op(TapeOp::Rewind).unwrap();
    e.close().unwrap();
    (again(&shelf), shelf)
}

/// The drive opened again, as the next run opens it.
fn again(shelf: &Shelf) -> Emulated {
    let mut d = Emulated::attach("/dev/nst0", shelf.clone());
    d.reopen().unwrap();
    d
}

fn blocks() -> Vec<Vec<u8>> {
    (0..4u8).map(|i| vec![i; 1000 + usize::from(i)]).collect()
}

#[test]
fn every_block_written_is_sealed_with_the_key_and_its_fingerprint_and_the_key_is_cleared_at_close()
{
    let k = key(1);
    let (d, shelf) = drive();
    let mut e = Encrypted::new(Box::new(d), writing(&k), Access::Write).unwrap();
    assert_eq!(e.protection().key, Some(k.print()));
    assert_eq!(crypt(&shelf).encrypt, 2, "the drive encrypts");
    for b in blocks() {
        e.write_record(&b).unwrap();
    }
    e.close().unwrap();
    let lib = shelf.lock().unwrap();
    let cart = &lib.slots[0];
    let records = (cart.items.iter())
        .filter(|i| matches!(i, Item::Record(_)))
        .count();
    assert_eq!(records, 4);
    for at in 0..records {
        let seal = &cart.seals[&at];
        assert_eq!(
            (&seal.key[..], &seal.ukad),
            (&k.bytes()[..], &k.print().ukad())
        );
    }
    assert_eq!(lib.crypt.key, Vec::<u8>::new(), "no key left in the drive");
    assert_eq!((lib.crypt.encrypt, lib.crypt.decrypt), (0, 0));
}

#[test]
fn a_drive_that_cannot_encrypt_refuses_the_key_before_anything_is_written() {
    let (d, shelf) = drive();
    shelf.lock().unwrap().scsi.encrypts = false;
    let Err(e) = Encrypted::new(Box::new(d), writing(&key(1)), Access::Write) else {
        panic!("a drive without encryption took the key");
    };
    let text = e.to_string();
    assert!(
        text.starts_with("--encrypt-key: the drive does not encrypt"),
        "{text}"
    );
    assert!(text.ends_with("nothing was written"), "{text}");
    assert!(shelf.lock().unwrap().slots[0].items.is_empty());
}

#[test]
fn a_restore_finds_the_key_by_the_fingerprint_on_the_tape_and_clears_it_after() {
    let k = key(2);
    let (d, shelf) = written(&k, &blocks());
    let dir = key_dir(&[&TapeKey::from_bytes([9; 32]), &k]);
    let mut e = Encrypted::new(Box::new(d), reading(dir.path()), Access::Read).unwrap();
    let mut buf = vec![0u8; 4096];
    for b in blocks() {
        let n = e.read_record(&mut buf).unwrap();
        assert_eq!(&buf[..n], &b[..]);
    }
    assert_eq!(e.protection().key, Some(k.print()));
    assert_eq!(crypt(&shelf).decrypt, 3, "decrypting where encrypted");
    drop(e);
    assert_eq!(crypt(&shelf).key, Vec::<u8>::new(), "dropped: no key left");
}

#[test]
fn a_missing_key_is_refused_naming_its_fingerprint_and_the_cartridge_before_a_byte() {
    let k = key(3);
    for keying in [
        Keying::default(),
        reading(key_dir(&[&TapeKey::from_bytes([4; 32])]).path()),
    ] {
        let (d, shelf) = written(&k, &blocks());
        shelf.lock().unwrap().slots[0].memory.barcode = Some("E01003L6".into());
        let mut e = Encrypted::new(Box::new(d), keying, Access::Read).unwrap();
        let mut buf = vec![0xeeu8; 4096];
        let err = e.read_record(&mut buf).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "block 0 of cartridge E01003L6 is encrypted with key {}: ",
                k.print()
            )),
            "{text}"
        );
        assert!(text.ends_with("nothing of it was passed on"), "{text}");
        assert!(buf.iter().all(|&b| b == 0xee), "nothing passed on");
        assert_eq!(crypt(&shelf).key, Vec::<u8>::new());
    }
}

#[test]
fn a_key_the_drive_cannot_decrypt_with_is_refused_as_the_wrong_key_and_cleared() {
    // Written with key 5 but naming key 6: a fingerprint that lies, or a
    // key file that is not what its name says.
    let (k5, k6) = (key(5), key(6));
    let (d, shelf) = drive();
    {
        let mut lib = shelf.lock().unwrap();
        lib.crypt = DriveCrypt {
            key: k5.bytes().to_vec(),
            ukad: k6.print().ukad(),
            encrypt: 2,
            decrypt: 2,
            instance: 1,
        };
    }
    let mut plain = Encrypted::new(Box::new(d), Keying::default(), Access::Write).unwrap();
    plain.write_record(&[7; 512]).unwrap();
    plain.op(TapeOp::Rewind).unwrap();
    drop(plain);
    shelf.lock().unwrap().crypt = DriveCrypt::default();
    let d = again(&shelf);
    let dir = key_dir(&[&k6]);
    let mut e = Encrypted::new(Box::new(d), reading(dir.path()), Access::Read).unwrap();
    let mut buf = vec![0u8; 4096];
    let text = e.read_record(&mut buf).unwrap_err().to_string();
    assert!(
        text.contains(&format!("encrypted with another key than {}", k6.print())),
        "{text}"
    );
    assert_eq!(
        crypt(&shelf).key,
        Vec::<u8>::new(),
        "the wrong key is not left in"
    );
}

#[test]
fn a_plain_tape_reads_as_it_is_with_keys_given_and_no_key_is_set() {
    let (d, shelf) = drive();
    let mut w = Encrypted::new(Box::new(d), Keying::default(), Access::Write).unwrap();
    w.write_record(&[1; 100]).unwrap();
    w.op(TapeOp::Rewind).unwrap();
    let dir = key_dir(&[&key(8)]);
    let mut e = Encrypted::new(Box::new(again(&shelf)), reading(dir.path()), Access::Read).unwrap();
    let mut buf = vec![0u8; 200];
    assert_eq!(e.read_record(&mut buf).unwrap(), 100);
    assert_eq!(e.protection().key, None);
    assert!(!shelf
        .lock()
        .unwrap()
        .log
        .iter()
        .any(|l| l.starts_with("key set")));
}

#[test]
fn a_drive_that_cannot_tell_before_reading_gets_the_key_its_first_refusal_names() {
    let k = key(10);
    let (d, shelf) = written(&k, &blocks());
    shelf.lock().unwrap().scsi.blind_next_block = true;
    let dir = key_dir(&[&k]);
    let mut e = Encrypted::new(Box::new(d), reading(dir.path()), Access::Read).unwrap();
    let mut buf = vec![0u8; 4096];
    for b in blocks() {
        let n = e.read_record(&mut buf).unwrap();
        assert_eq!(&buf[..n], &b[..]);
    }
    assert_eq!(e.protection().key, Some(k.print()));
    drop(e);
    assert_eq!(crypt(&shelf).key, Vec::<u8>::new());
    // Without the key, the first refusal names it.
    let d = again(&shelf);
    let mut e = Encrypted::new(Box::new(d), Keying::default(), Access::Read).unwrap();
    let text = e.read_record(&mut buf).unwrap_err().to_string();
    assert!(
        text.contains(&format!(
            "is encrypted with key {}: no key was given",
            k.print()
        )),
        "{text}"
    );
}

#[test]
fn a_drive_that_cannot_tell_before_reading_is_given_the_encrypt_key_at_once() {
    let k = key(11);
    let (d, shelf) = written(&k, &blocks());
    shelf.lock().unwrap().scsi.blind_next_block = true;
    let mut e = Encrypted::new(Box::new(d), writing(&k), Access::Read).unwrap();
    let mut buf = vec![0u8; 4096];
    assert_eq!(e.read_record(&mut buf).unwrap(), 1000);
    let log = shelf.lock().unwrap().log.clone();
    let sets = log.iter().filter(|l| l.starts_with("key set")).count();
    assert_eq!(
        sets, 2,
        "once to write, once before the first read: {log:?}"
    );
}
