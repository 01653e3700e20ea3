//! End of media and read-ahead over rmt, against the emulated tape drive.
//!
//! The real binary is the client. Its remote shell is a bash script that
//! joins its standard input and output to a TCP connection to this test,
//! where tapebuf's own rmt server (`serve`) runs each session on an
//! emulated drive with Linux st's end-of-medium rules: past the early
//! warning, writes alternately fail with ENOSPC and succeed. With many
//! writes in flight, some land after the first refusal; the client must
//! take them back, change the volume and resend, so that the cartridges,
//! read in order, hold the stream exactly, in whole records. Restores read
//! every volume's trailer through the read-ahead, so they go on exactly
//! while the trailers say the backup does, and leave a no-rewind tape at
//! the next backup.

use crate::common;
use crate::rmt_verify::drive;

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use common::{pattern, summary_number, tapebuf};
use drive::{backup, drive_with_blanks, start_server};
use tapebuf::tape::emulated::{Cartridge, Emulated, Item};
use tapebuf::tape::Drive;

#[test]
fn records_landing_after_the_end_of_media_are_taken_back_and_resent() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(4);
    let rsh = start_server(dir.path(), drive).rsh;
    let data = pattern(7 << 20, 11);
    let (code, stderr) = backup(&rsh, &data, &["--rmt-window", "8", "-A", "true"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        summary_number(&stderr, "out "),
        data.len() as u64,
        "{stderr}"
    );

    let lib = shelf.lock().unwrap();
    let mut joined = Vec::new();
    let mut used = 0;
    for cart in lib.slots.iter().filter(|c| !c.items.is_empty()) {
        used += 1;
        assert!(
            cart.data_record_sizes().iter().all(|&s| s == 64 << 10),
            "every record whole: {:?}",
            cart.record_sizes()
        );
        assert!(cart.trailer().is_some(), "a trailer after the data");
        assert!(matches!(cart.items.last(), Some(Item::Filemark)));
        joined.extend_from_slice(&cart.first_file());
    }
    assert!(used >= 3, "7 MiB takes three 3 MiB cartridges, got {used}");
    assert!(joined == data, "the cartridges in order are the stream");
    let backspaced = lib
        .log
        .iter()
        .filter(|l| l.starts_with("backspace"))
        .count();
    assert!(
        backspaced >= 1,
        "some writes landed after the first refusal and were taken back: {:?}",
        lib.log
    );
}

#[test]
fn lock_step_writes_need_no_take_back() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(3);
    let rsh = start_server(dir.path(), drive).rsh;
    let data = pattern(4 << 20, 12);
    let (code, stderr) = backup(&rsh, &data, &["--rmt-window", "1", "-A", "true"]);
    assert_eq!(code, 0, "{stderr}");
    let lib = shelf.lock().unwrap();
    let joined: Vec<u8> = lib.slots.iter().flat_map(|c| c.first_file()).collect();
    assert!(joined == data);
    assert!(!lib.log.iter().any(|l| l.starts_with("backspace")));
}

#[test]
fn a_declined_volume_change_says_what_is_safe() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(2);
    let rsh = start_server(dir.path(), drive).rsh;
    let data = pattern(5 << 20, 13);
    let (code, stderr) = backup(&rsh, &data, &["-A", "exit 3"]);
    assert_eq!(code, 1, "{stderr}");
    let on_first = shelf.lock().unwrap().slots[0].first_file();
    assert!(on_first.len() >= 2 << 20);
    assert!(data.starts_with(&on_first));
    assert!(
        stderr.contains(&format!("end of volume 1 after {} bytes", on_first.len())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{} bytes are safe on volume 1", on_first.len())),
        "{stderr}"
    );
    assert_eq!(
        summary_number(&stderr, "out "),
        on_first.len() as u64,
        "{stderr}"
    );
}

#[test]
fn reading_ahead_leaves_a_no_rewind_tape_just_after_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let first: Vec<Vec<u8>> = (0..5).map(|i| pattern(64 << 10, 20 + i)).collect();
    let second: Vec<Vec<u8>> = (0..30).map(|i| pattern(64 << 10, 40 + i)).collect();
    let mut cart = Cartridge::blank(64 << 20, 0);
    for r in &first {
        cart.items.push(Item::Record(r.clone()));
    }
    cart.items.push(Item::Filemark);
    for r in &second {
        cart.items.push(Item::Record(r.clone()));
    }
    cart.items.push(Item::Filemark);
    let (mut drive, shelf) = Emulated::new("/dev/nst0", vec![cart]);
    drive.close().unwrap();
    let drive = Arc::new(Mutex::new(drive));
    let rsh = start_server(dir.path(), Arc::clone(&drive)).rsh;

    let read = |expected: &[Vec<u8>]| {
        let out = tapebuf()
            .args(["-i", "vault:/dev/nst0", "-s", "64k", "--rmt-window", "16"])
            .args(["--rsh-command", &rsh, "--rmt-command", "rmt"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(out.stdout == expected.concat(), "{stderr}");
    };
    // The emulated drive opens where the last session left it, as a
    // no-rewind device does: the second run must read the second file.
    read(&first);
    read(&second);
    assert!(shelf
        .lock()
        .unwrap()
        .log
        .iter()
        .any(|l| l.starts_with("backspace")));
}

/// Restores `vault:/dev/nst0` to standard output through `rsh` with
/// `extra` flags; returns the exit status, the bytes and standard error.
fn restore(rsh: &str, extra: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let out = tapebuf()
        .args(["-i", "vault:/dev/nst0", "-s", "64k", "--rmt-window", "16"])
        .args(["--rsh-command", rsh, "--rmt-command", "rmt"])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), out.stdout, stderr)
}

#[test]
fn a_remote_multi_volume_restore_without_n_reads_every_volume_by_its_trailers() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, shelf) = drive_with_blanks(4);
    let rsh = start_server(dir.path(), drive).rsh;
    let data = pattern(5 << 20, 50);
    let (code, stderr) = backup(&rsh, &data, &["-A", "true"]);
    assert_eq!(code, 0, "{stderr}");
    let written: Vec<Cartridge> = shelf.lock().unwrap().slots.clone();
    assert!(written.iter().filter(|c| !c.items.is_empty()).count() >= 3);

    let (mut reader, _) = Emulated::new("/dev/nst0", written);
    reader.close().unwrap();
    let again = tempfile::tempdir().unwrap();
    let rsh = start_server(again.path(), Arc::new(Mutex::new(reader))).rsh;
    let (code, back, stderr) = restore(&rsh, &["-A", "true"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        back == data,
        "{} of {} bytes\n{stderr}",
        back.len(),
        data.len()
    );

    // -n 1 on the same backup: the trailer says it goes on, so it fails.
    let (mut drive, _) = Emulated::new("/dev/nst0", shelf.lock().unwrap().slots.clone());
    drive.close().unwrap();
    let short = tempfile::tempdir().unwrap();
    let rsh = start_server(short.path(), Arc::new(Mutex::new(drive))).rsh;
    let (code, _, stderr) = restore(&rsh, &["-n", "1"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("-n/--volumes 1 stops here"), "{stderr}");
}

#[test]
fn two_remote_backups_on_one_tape_restore_in_turn_past_their_trailers() {
    let dir = tempfile::tempdir().unwrap();
    let (drive, _shelf) = drive_with_blanks(1);
    let rsh = start_server(dir.path(), Arc::clone(&drive)).rsh;
    let first = pattern(700 << 10, 51);
    let second = pattern(300 << 10, 52);
    for data in [&first, &second] {
        let (code, stderr) = backup(&rsh, data, &[]);
        assert_eq!(code, 0, "{stderr}");
    }
    {
        let mut d = drive.lock().unwrap();
        d.reopen().unwrap();
        d.op(tapebuf::tape::TapeOp::Rewind).unwrap();
        d.close().unwrap();
    }
    for expected in [&first, &second] {
        let (code, back, stderr) = restore(&rsh, &[]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(back == *expected, "{} bytes\n{stderr}", back.len());
        assert!(!stderr.contains("trailer"), "{stderr}");
    }
}
