//! Hardware encryption through the real pipeline, volume changes and
//! restore, against the emulated drive encrypting as mhvtl's LTO drives do
//! (issue 49): every block of every cartridge sealed with the one key and
//! its fingerprint, a restore that finds the key by that fingerprint in a
//! key directory, one that has no key or the wrong one refused before a
//! byte is passed on, and no key left in the drive after any of them.

use std::sync::Arc;

use super::common::memory::Memory;
use super::common::{pattern, sha256};
use super::{blanks, read_through, run};
use tapebuf::keys::tape_key::TapeKey;
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::ReadVolumes;
use tapebuf::tape::emulated::{Cartridge, Emulated, Item, Shelf};
use tapebuf::tape::encryption::Keying;
use tapebuf::tape::{Access, AtEnd};
use tapebuf::volume::{ChangePolicy, Safeguards};

fn changing() -> ChangePolicy {
    ChangePolicy {
        command: Some("true".into()),
        timeout: None,
        loader: None,
    }
}

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
    let settings = VolumeSettings {
        policy: changing(),
        ..VolumeSettings::default()
    };
    let sink = VolumeSink::new(Box::new(TapeMedium::new(drive)), "/dev/nst0", settings);
    let summary = run(
        Box::new(Memory(std::io::Cursor::new(data.to_vec()))),
        Box::new(sink),
        false,
    );
    assert!(summary.is_clean(), "{}", summary.line());
    (summary.line(), shelf)
}

fn restore(
    cartridges: Vec<Cartridge>,
    keys: Keying,
) -> (tapebuf::observe::summary::Summary, Vec<u8>, Shelf) {
    let (drive, shelf) = guarded(cartridges, keys, Access::Read);
    let volumes = ReadVolumes {
        policy: changing(),
        count: None,
        numbered: false,
        at_end: AtEnd::Rewind,
    };
    let (summary, back) = read_through(drive, volumes);
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
    let keys = Keying {
        dir: Some(dir.path().to_path_buf()),
        ..Keying::default()
    };
    let (summary, back, shelf) = restore(written.clone(), keys);
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
