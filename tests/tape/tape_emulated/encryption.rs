//! Hardware encryption through the real pipeline, volume changes and
//! restore, against the emulated drive encrypting as mhvtl's LTO drives do
//! (issue 49): every block of every cartridge sealed with the one key and
//! its fingerprint, a restore that finds the key by that fingerprint in a
//! key directory, one that has no key or the wrong one refused before a
//! byte is passed on, and no key left in the drive after any of them.

use std::sync::Arc;

use super::common::{pattern, sha256};
use super::{blanks, read_changing, write_changing};
use tapebuf::keys::tape_key::TapeKey;
use tapebuf::tape::emulated::{Cartridge, Emulated, Item, Shelf};
use tapebuf::tape::encryption::Keying;
use tapebuf::tape::Access;
use tapebuf::volume::Safeguards;

fn guarded(
    cartridges: Vec<Cartridge>,
    keys: Keying,
    access: Access,
) -> (Box<dyn tapebuf::tape::Drive>, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    let guards = Safeguards {
        keys,
        ..Safeguards::default()
    };
    let drive = guards
        .wrap(Box::new(drive), access, std::path::Path::new("/dev/nst0"))
        .unwrap();
    (drive, shelf)
}

fn backup(data: &[u8], key: &Arc<TapeKey>) -> (String, Shelf) {
    let keys = Keying {
        key: Some(key.clone()),
        ..Keying::default()
    };
    let (drive, shelf) = guarded(blanks(3), keys, Access::Write);
    let summary = write_changing(drive, data);
    assert!(summary.is_clean(), "{}", summary.line());
    (summary.line(), shelf)
}

fn restore(
    cartridges: Vec<Cartridge>,
    keys: Keying,
) -> (tapebuf::observe::summary::Summary, Vec<u8>, Shelf) {
    let (drive, shelf) = guarded(cartridges, keys, Access::Read);
    let (summary, back) = read_changing(drive);
    (summary, back, shelf)
}

fn no_key_left(shelf: &Shelf) -> bool {
    let lib = shelf.lock().unwrap();
    lib.crypt.key.is_empty() && lib.crypt.encrypt == 0 && lib.crypt.decrypt == 0
}

fn key_dir(keys: &[&TapeKey]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (i, k) in keys.iter().enumerate() {
        k.write_new(&dir.path().join(format!("k{i}.key"))).unwrap();
    }
    dir
}

/// Restores `cartridges` with `dir` as --key-dir.
fn restore_with_dir(
    cartridges: Vec<Cartridge>,
    dir: &tempfile::TempDir,
) -> (tapebuf::observe::summary::Summary, Vec<u8>, Shelf) {
    let keys = Keying {
        dir: Some(dir.path().to_path_buf()),
        ..Keying::default()
    };
    restore(cartridges, keys)
}

#[test]
fn an_encrypted_backup_across_three_cartridges_restores_with_the_key_dir_and_fails_cleanly_without()
{
    let data = pattern(2_500_000, 61);
    let key = Arc::new(TapeKey::generate().unwrap());
    let (line, shelf) = backup(&data, &key);
    let print = key.print().to_string();
    assert!(
        line.contains(&format!(
            "-o /dev/nst0: every block encrypted by the drive (AES-256-GCM) with key {print}"
        )),
        "{line}"
    );
    assert!(no_key_left(&shelf), "the backup left its key in the drive");
    let written = shelf.lock().unwrap().slots.clone();
    for (n, cart) in written.iter().enumerate() {
        let data_records = cart
            .items
            .iter()
            .take_while(|i| matches!(i, Item::Record(_)))
            .count();
        assert!(data_records > 0, "cartridge {n} used");
        for at in 0..data_records {
            let seal = cart
                .seals
                .get(&at)
                .unwrap_or_else(|| panic!("cartridge {n} block {at} not encrypted"));
            assert_eq!(seal.ukad, print.as_bytes(), "cartridge {n} block {at}");
        }
    }

    let other = TapeKey::from_bytes([0x42; 32]);
    let dir = key_dir(&[&other, &key]);
    let (summary, back, shelf) = restore_with_dir(written.clone(), &dir);
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(
        summary.line().contains(&format!(
            "-i /dev/nst0: every block decrypted by the drive (AES-256-GCM) with key {print}"
        )),
        "{}",
        summary.line()
    );
    assert!(no_key_left(&shelf), "the restore left its key in the drive");

    let wrong = key_dir(&[&other]);
    for keys in [
        Keying::default(),
        Keying {
            dir: Some(wrong.path().to_path_buf()),
            ..Keying::default()
        },
    ] {
        let (summary, back, shelf) = restore(written.clone(), keys);
        assert!(!summary.is_clean(), "{}", summary.line());
        assert!(
            back.is_empty(),
            "{} bytes passed on without the key",
            back.len()
        );
        let failure = summary.input_error.clone().expect("the restore failed");
        assert!(
            failure.contains(&format!("is encrypted with key {print}")),
            "{failure}"
        );
        assert!(no_key_left(&shelf));
    }
}

/// A drive holding `cartridges` that another program left with `key` and
/// `ukad`, encrypting and decrypting, wrapped for `access` as a run
/// without --encrypt-key or --key-dir wraps it.
fn left_with(
    cartridges: Vec<Cartridge>,
    key: [u8; 32],
    ukad: &[u8],
    access: Access,
) -> (Box<dyn tapebuf::tape::Drive>, Shelf) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    {
        let mut lib = shelf.lock().unwrap();
        lib.crypt.key = key.to_vec();
        lib.crypt.ukad = ukad.to_vec();
        lib.crypt.encrypt = 2;
        lib.crypt.decrypt = 3;
    }
    let path = std::path::Path::new("/dev/nst0");
    let drive = Safeguards::default()
        .wrap(Box::new(drive), access, path)
        .unwrap();
    (drive, shelf)
}

/// A plain backup of `data` to three cartridges in a drive left so: the
/// summary line, and the shelf.
fn plain_backup_to_a_drive_left_encrypting(
    data: &[u8],
    key: [u8; 32],
    ukad: &[u8],
) -> (String, Shelf) {
    let (drive, shelf) = left_with(blanks(3), key, ukad, Access::Write);
    let summary = write_changing(drive, data);
    assert!(summary.is_clean(), "{}", summary.line());
    (summary.line(), shelf)
}

#[test]
fn a_plain_backup_to_a_drive_a_killed_run_left_encrypting_says_with_which_key_and_restores_with_it()
{
    let data = pattern(1_500_000, 63);
    let key = TapeKey::from_bytes([0x17; 32]);
    let print = key.print().to_string();
    let (line, shelf) =
        plain_backup_to_a_drive_left_encrypting(&data, [0x17; 32], print.as_bytes());
    assert!(
        line.contains(&format!(
            "-o /dev/nst0: every block encrypted by the drive with key {print}, which was in the drive before this run (not from --encrypt-key or --key-dir)"
        )),
        "{line}"
    );
    // Not tapebuf's key to clear: the drive is left as it was found.
    assert_eq!(shelf.lock().unwrap().crypt.key, vec![0x17; 32]);
    let written = shelf.lock().unwrap().slots.clone();
    assert!(
        written[0].seals.contains_key(&0),
        "the blocks are encrypted"
    );
    // The fingerprint on the cartridge finds the key, as for any backup.
    let dir = key_dir(&[&key]);
    let (summary, back, shelf) = restore_with_dir(written.clone(), &dir);
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(no_key_left(&shelf));
    let (summary, back, _) = restore(written, Keying::default());
    assert!(back.is_empty() && !summary.is_clean(), "{}", summary.line());
}

#[test]
fn a_restore_from_a_drive_holding_another_program_s_key_reads_with_it_and_says_so() {
    let data = pattern(700_000, 64);
    let (line, shelf) = plain_backup_to_a_drive_left_encrypting(&data, [0x5a; 32], b"stenc key 7");
    assert!(
        line.contains(
            "-o /dev/nst0: every block encrypted by the drive with a key it names \"stenc key 7\", which was in the drive before this run"
        ),
        "{line}"
    );
    // stenc set the key for reading too: the drive holds it, tapebuf has
    // none of its own, and reads with the drive's.
    let written = shelf.lock().unwrap().slots.clone();
    let (drive, shelf) = left_with(written, [0x5a; 32], b"stenc key 7", Access::Read);
    let (summary, back) = read_changing(drive);
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    assert!(
        summary.line().contains(
            "-i /dev/nst0: every block decrypted by the drive with a key it names \"stenc key 7\", which was in the drive before this run"
        ),
        "{}",
        summary.line()
    );
    assert_eq!(
        shelf.lock().unwrap().crypt.key,
        vec![0x5a; 32],
        "left as found"
    );
}
