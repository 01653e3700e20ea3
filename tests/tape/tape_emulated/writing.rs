//! Writing across cartridges: the end of media changes volumes and loses
//! or repeats nothing, a failed change stops with what is safe, and
//! `--volume-size`, `--eject` and `--pad` shape what lands on the tape.

use super::common::memory::Memory;
use super::common::{pattern, sha256};
use super::{blanks, command_logging_to, run, write_to_tape, BLOCK};
use std::io::Cursor;
use tapebuf::sink::{Sink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::tape::emulated::{Cartridge, Emulated};
use tapebuf::tape::AtEnd;
use tapebuf::volume::{ChangePolicy, Ends};

#[test]
fn end_of_media_changes_cartridges_and_loses_or_repeats_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("changes");
    let data = pattern(2_500_000, 1);
    let settings = VolumeSettings {
        policy: command_logging_to(&log),
        ..VolumeSettings::default()
    };
    let (summary, shelf) = write_to_tape(&data, blanks(4), settings);
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let used: Vec<&Cartridge> = lib.slots.iter().filter(|c| !c.items.is_empty()).collect();
    assert_eq!(used.len(), 3, "2.5 MB needs three 1 MiB cartridges");
    let joined: Vec<u8> = used.iter().flat_map(|c| c.first_file()).collect();
    assert_eq!(
        sha256(&joined),
        sha256(&data),
        "the volumes concatenate to the input"
    );
    for (i, c) in used.iter().enumerate() {
        assert_eq!(
            c.filemarks(),
            2,
            "cartridge {i}: the data and the trailer, each with its filemark"
        );
        let sizes = c.data_record_sizes();
        let last = i == used.len() - 1;
        let trailer = c.trailer().expect("a trailer after the data");
        assert_eq!(trailer.volume as usize, i + 1);
        let ends = if last { Ends::Last } else { Ends::Continues };
        assert_eq!(trailer.ends, ends, "cartridge {i}");
        assert_eq!(trailer.volume_bytes, c.first_file().len() as u64);
        let whole = if last {
            &sizes[..sizes.len() - 1]
        } else {
            &sizes[..]
        };
        assert!(
            whole.iter().all(|&s| s == BLOCK),
            "cartridge {i}: {sizes:?}"
        );
    }
    // Each full cartridge took records into its early-warning zone.
    let full_bytes = used[0].first_file().len() as u64;
    assert!(full_bytes > (1 << 20) - (200 << 10), "{full_bytes}");
    // The drive was ejected before each change, and the command saw
    // the next volume's number and the device.
    let unloads = lib.log.iter().filter(|l| *l == "unload").count();
    assert_eq!(unloads, 2, "{:?}", lib.log);
    let changes = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        changes,
        format!(
            "2 /dev/nst0 write {full_bytes}\n3 /dev/nst0 write {}\n",
            used[1].first_file().len()
        )
    );
    // The summary lists every volume's bytes.
    let line = summary.line();
    assert!(
        line.contains(&format!("-o /dev/nst0 volumes: #1 {full_bytes} bytes, #2 ")),
        "{line}"
    );
}

#[test]
fn failed_change_command_stops_with_what_is_safe_on_earlier_volumes() {
    let data = pattern(2_000_000, 2);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("echo no more tapes >&2; exit 3".into()),
            timeout: None,
            loader: None,
        },
        ..VolumeSettings::default()
    };
    let (summary, shelf) = write_to_tape(&data, blanks(2), settings);
    assert!(!summary.is_clean());
    let lib = shelf.lock().unwrap();
    let on_tape = lib.slots[0].first_file();
    assert_eq!(
        on_tape[..],
        data[..on_tape.len()],
        "volume 1 holds the start of the input"
    );
    assert_eq!(
        lib.slots[0].filemarks(),
        2,
        "volume 1 was closed with its filemark, then its trailer"
    );
    assert_eq!(lib.slots[0].trailer().unwrap().ends, Ends::Continues);
    assert!(
        lib.slots[1].items.is_empty(),
        "no second cartridge was touched"
    );
    let failure = &summary.failed_outputs[0];
    assert!(failure.contains("exited with status 3"), "{failure}");
    assert!(
        failure.contains(&format!("{} bytes are safe on volume 1", on_tape.len())),
        "{failure}"
    );
    assert!(
        summary.line().contains("bytes read but not committed"),
        "{}",
        summary.line()
    );
}

#[test]
fn volume_size_on_a_tape_ends_volumes_at_whole_records() {
    let data = pattern(1_000_000, 3);
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        },
        volume_size: Some(300 << 10),
        at_end: AtEnd::Stay,
    };
    let (summary, shelf) = write_to_tape(&data, blanks(5), settings);
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let joined: Vec<u8> = lib.slots.iter().flat_map(|c| c.first_file()).collect();
    assert_eq!(sha256(&joined), sha256(&data));
    // 300 KiB holds four 64 KiB records; a fifth would not fit whole.
    assert_eq!(lib.slots[0].data_record_sizes(), vec![BLOCK; 4]);
}

#[test]
fn eject_at_the_end_unloads_after_the_filemark() {
    let data = pattern(100_000, 4);
    let settings = VolumeSettings {
        at_end: AtEnd::Eject,
        ..VolumeSettings::default()
    };
    let (summary, shelf) = write_to_tape(&data, blanks(1), settings);
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    let tail: Vec<&str> = lib.log.iter().rev().take(3).map(|s| s.as_str()).collect();
    assert_eq!(tail, vec!["close", "unload", "filemark"]);
    assert_eq!(lib.loaded, None);
    assert_eq!(
        lib.slots[0].data_record_sizes(),
        vec![BLOCK, 100_000 - BLOCK]
    );
    assert_eq!(lib.slots[0].trailer().unwrap().ends, Ends::Last);
}

#[test]
fn pad_fills_the_final_record_to_a_whole_block_of_zeros() {
    let data = pattern(100_000, 5);
    let (drive, shelf) = Emulated::new("/dev/nst0", blanks(1));
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings::default(),
    );
    let summary = run(
        Box::new(Memory(Cursor::new(data.clone()))),
        Box::new(sink),
        true,
    );
    assert!(summary.is_clean(), "{}", summary.line());
    let lib = shelf.lock().unwrap();
    assert_eq!(lib.slots[0].data_record_sizes(), vec![BLOCK, BLOCK]);
    let on_tape = lib.slots[0].first_file();
    assert_eq!(on_tape[..data.len()], data[..]);
    assert!(on_tape[data.len()..].iter().all(|&b| b == 0));
    assert!(summary.line().contains(&format!(
        "padded with {} zero bytes",
        2 * BLOCK - data.len()
    )));
}

#[test]
fn a_tape_outputs_summary_gives_its_stops_its_volumes_and_its_ring_in_plain_words() {
    let data = pattern(500_000, 19);
    let (summary, _) = write_to_tape(&data, blanks(1), VolumeSettings::default());
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(!summary.verbose);
    let line = summary.line();
    let counts = format!(
        "in 500000 bytes, out 500000 bytes (488.28 KiB), {:.3} s, ",
        summary.snapshot.seconds
    );
    assert!(line.contains(&counts), "{line}");
    let stops = format!(
        " {} underruns, {} overruns; ",
        summary.snapshot.underruns, summary.snapshot.overruns
    );
    assert!(line.contains(&stops), "{line}");
    assert!(
        line.contains("; -o /dev/nst0 volumes: #1 500000 bytes; "),
        "{line}"
    );
    // The reason is the first endpoint's: here the test's own input.
    assert!(line.contains("; copying ring, because "), "{line}");
    let (drive, _) = Emulated::new("/dev/nst0", blanks(1));
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        VolumeSettings::default(),
    );
    assert_eq!(
        sink.traits().splice_refusal.as_deref(),
        Some("-o /dev/nst0 is a tape drive, written a record at a time")
    );
}
