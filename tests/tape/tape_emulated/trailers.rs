//! Volume trailers: a restore knows from the tapes themselves how many
//! volumes a backup has, fails rather than end short, and still reads
//! tapes that have no trailer as it always did.

use super::common::{pattern, sha256};
use super::{blanks, command_logging_to, read_from_tape, write_to_tape};
use tapebuf::sink::VolumeSettings;
use tapebuf::source::ReadVolumes;
use tapebuf::tape::emulated::{Cartridge, Item};
use tapebuf::tape::AtEnd;
use tapebuf::volume::{ChangePolicy, Ends, Trailer};

/// Volumes changed by a command that always succeeds (`true`).
fn changed_by_true() -> VolumeSettings {
    VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        },
        ..VolumeSettings::default()
    }
}

/// A backup of `data` across 1 MiB cartridges, as written.
fn backed_up(data: &[u8], cartridges: usize) -> Vec<Cartridge> {
    let (summary, shelf) = write_to_tape(data, blanks(cartridges), changed_by_true());
    assert!(summary.is_clean(), "{}", summary.line());
    let slots = shelf.lock().unwrap().slots.clone();
    slots.into_iter().filter(|c| !c.items.is_empty()).collect()
}

/// Reading without -n, asking a change command for each volume.
fn without_n(log: &std::path::Path) -> ReadVolumes {
    ReadVolumes {
        policy: command_logging_to(log),
        count: None,
        numbered: false,
        at_end: AtEnd::Rewind,
    }
}

/// Replaces the trailer record of `cart` with `trailer`.
fn set_trailer(cart: &mut Cartridge, trailer: &Trailer) {
    let mark = cart
        .items
        .iter()
        .position(|i| *i == Item::Filemark)
        .unwrap();
    cart.items[mark + 1] = Item::Record(trailer.encode());
}

#[test]
fn a_three_volume_backup_restores_whole_without_n_and_asks_for_no_fourth() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("changes");
    let data = pattern(2_500_000, 40);
    let written = backed_up(&data, 4);
    assert_eq!(written.len(), 3);
    let trailers: Vec<Trailer> = written.iter().map(|c| c.trailer().unwrap()).collect();
    assert!(trailers.iter().all(|t| t.backup == trailers[0].backup));
    assert_eq!(
        trailers.iter().map(|t| t.ends).collect::<Vec<_>>(),
        vec![Ends::Continues, Ends::Continues, Ends::Last]
    );
    assert_eq!(trailers[2].stream_bytes, data.len() as u64);

    let (summary, back, _) = read_from_tape(written, without_n(&log));
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&data));
    let changes = std::fs::read_to_string(&log).unwrap();
    let asked: Vec<&str> = changes.lines().map(|l| &l[..2]).collect();
    assert_eq!(asked, vec!["2 ", "3 "], "{changes}");
}

#[test]
fn n_smaller_than_the_backup_fails_instead_of_ending_short() {
    let data = pattern(2_500_000, 41);
    let written = backed_up(&data, 4);
    let volumes = ReadVolumes {
        count: Some(2),
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        },
        ..ReadVolumes::default()
    };
    let (summary, back, _) = read_from_tape(written, volumes);
    assert!(!summary.is_clean());
    let e = summary.input_error.unwrap();
    assert!(
        e.contains("volume 2's trailer says the backup continues on volume 3, but -n/--volumes 2 stops here: the stream is incomplete"),
        "{e}"
    );
    assert!(back.len() < data.len());
    assert_eq!(back[..], data[..back.len()]);
}

#[test]
fn a_volume_whose_backup_was_cut_short_fails_the_restore() {
    let data = pattern(2_500_000, 42);
    let mut written = backed_up(&data, 4);
    let mut last = written[2].trailer().unwrap();
    last.ends = Ends::Cut;
    set_trailer(&mut written[2], &last);
    let (summary, back, _) = read_from_tape(
        written,
        without_n(&tempfile::tempdir().unwrap().path().join("l")),
    );
    assert!(!summary.is_clean());
    assert_eq!(
        sha256(&back),
        sha256(&data),
        "every byte there was passed on"
    );
    let e = summary.input_error.unwrap();
    assert!(
        e.contains("volume 3 is where the backup was cut short"),
        "{e}"
    );
}

#[test]
fn a_cartridge_of_another_backup_loaded_as_volume_2_fails_the_restore() {
    let data = pattern(2_500_000, 43);
    let mut written = backed_up(&data, 4);
    let other = backed_up(&pattern(2_500_000, 44), 4);
    written[1] = other[1].clone();
    let (summary, _, _) = read_from_tape(
        written,
        without_n(&tempfile::tempdir().unwrap().path().join("l")),
    );
    let e = summary.input_error.unwrap();
    assert!(e.contains("volume 2 is volume 2 of another backup"), "{e}");
}

#[test]
fn volumes_loaded_out_of_order_fail_the_restore() {
    let data = pattern(2_500_000, 45);
    let mut written = backed_up(&data, 4);
    written.swap(1, 2);
    let (summary, _, _) = read_from_tape(
        written,
        without_n(&tempfile::tempdir().unwrap().path().join("l")),
    );
    let e = summary.input_error.unwrap();
    assert!(
        e.contains("the volume read as volume 2 is volume 3 of this backup"),
        "{e}"
    );
}

#[test]
fn a_tape_without_a_trailer_is_read_to_its_filemark_and_the_summary_says_nothing_told() {
    let data = pattern(300_000, 46);
    let records: Vec<Vec<u8>> = data.chunks(10240).map(|c| c.to_vec()).collect();
    let (summary, back, _) = read_from_tape(
        vec![Cartridge::with_records(records)],
        ReadVolumes::default(),
    );
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(back, data);
    assert!(
        summary.line().contains("the volume had no tapebuf trailer, so nothing said whether the backup goes on; give -n/--volumes N if it spans more"),
        "{}",
        summary.line()
    );
}

#[test]
fn a_restore_reads_one_backup_of_several_on_a_tape_and_not_the_next() {
    let first = pattern(300_000, 47);
    let second = pattern(200_000, 48);
    let mut tape = backed_up(&first, 1).remove(0);
    let next = backed_up(&second, 1).remove(0);
    tape.items.extend(next.items);
    let (summary, back, shelf) = read_from_tape(vec![tape], ReadVolumes::default());
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&first));
    assert!(!summary.line().contains("trailer"), "{}", summary.line());
    // The read of the trailer's filemark found it, and nothing of the next
    // backup was taken: no record was put back.
    let lib = shelf.lock().unwrap();
    assert!(
        !lib.log.iter().any(|l| l.starts_with("backspace")),
        "{:?}",
        lib.log
    );
}

#[test]
fn every_tape_trailer_carries_the_digest_of_the_stream_through_its_volume() {
    let data = pattern(2_500_000, 49);
    let written = backed_up(&data, 4);
    for cart in &written {
        let t = cart.trailer().unwrap();
        let through = &data[..t.stream_bytes as usize];
        assert_eq!(
            t.stream_digest,
            Some(xxhash_rust::xxh3::xxh3_64(through)),
            "volume {}",
            t.volume
        );
    }
}

#[test]
fn a_tape_without_a_trailer_loaded_after_one_that_continues_fails_the_restore() {
    // issue 45 finding 4, on tape: a cartridge another program wrote
    let data = pattern(2_500_000, 50);
    let mut written = backed_up(&data, 4);
    let records: Vec<Vec<u8>> = pattern(1 << 20, 51)
        .chunks(65536)
        .map(|c| c.to_vec())
        .collect();
    written[1] = Cartridge::with_records(records);
    let (summary, _, _) = read_from_tape(
        written,
        without_n(&tempfile::tempdir().unwrap().path().join("l")),
    );
    let e = summary.input_error.unwrap();
    assert!(
        e.contains("volume 2 has no trailer, but volume 1's says the backup continues onto it"),
        "{e}"
    );
}

#[test]
fn another_backups_data_under_this_backups_trailer_fails_at_that_trailer() {
    // issue 45 finding 4, on tape: the bytes are not the ones the trailer
    // vouches for, though their count is
    let data = pattern(2_500_000, 52);
    let mut written = backed_up(&data, 4);
    let other = backed_up(&pattern(2_500_000, 53), 4);
    let ours = written[1].trailer().unwrap();
    let mut swapped = other[1].clone();
    set_trailer(&mut swapped, &ours);
    written[1] = swapped;
    let (summary, _, _) = read_from_tape(
        written,
        without_n(&tempfile::tempdir().unwrap().path().join("l")),
    );
    let e = summary.input_error.unwrap();
    assert!(
        e.contains(&format!(
            "the stream read through volume 2 (bytes 0-{}) is not the stream its trailer vouches for",
            ours.stream_bytes
        )),
        "{e}"
    );
}

#[test]
fn a_producer_that_fails_on_volume_2_leaves_a_cut_trailer_and_a_restore_that_fails() {
    use tapebuf::base::child::ChildSpec;
    use tapebuf::source::CommandSource;
    // issue 50: `tapebuf -o /dev/nst0 -- CMD` with a CMD that fails after
    // 1.5 MB, across 1 MiB cartridges.
    let argv = ["sh", "-c", "head -c 1500000 /dev/zero; exit 2"];
    let producer = CommandSource::new(
        ChildSpec::program(argv.iter().map(Into::into).collect(), vec![]),
        256 << 10,
        std::time::Duration::from_secs(10),
    );
    let settings = changed_by_true();
    let (drive, shelf) = tapebuf::tape::emulated::Emulated::new("/dev/nst0", blanks(3));
    let sink = tapebuf::sink::VolumeSink::new(
        Box::new(tapebuf::sink::TapeMedium::new(Box::new(drive))),
        "/dev/nst0",
        settings,
    );
    let summary = super::run(Box::new(producer), Box::new(sink), false);
    let e = summary.input_error.clone().unwrap_or_default();
    assert!(
        e.starts_with("the producer `sh -c 'head -c 1500000 /dev/zero; exit 2'` exited with status 2 after 1500000 bytes"),
        "{e}"
    );
    let written: Vec<Cartridge> = shelf
        .lock()
        .unwrap()
        .slots
        .iter()
        .filter(|c| !c.items.is_empty())
        .cloned()
        .collect();
    assert_eq!(written.len(), 2);
    let last = written[1].trailer().unwrap();
    assert_eq!(last.ends, Ends::Cut, "the last volume's trailer says cut");
    assert_eq!(last.stream_bytes, 1_500_000);
    let (restored, back, _) = read_from_tape(
        written,
        without_n(&tempfile::tempdir().unwrap().path().join("l")),
    );
    assert!(!restored.is_clean(), "{}", restored.line());
    assert_eq!(back.len(), 1_500_000);
}
