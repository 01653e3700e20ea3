//! The summary line's tests: what an ordinary run, a tape, `--verbose`
//! and a failure each show.

use super::*;

fn summary(read: u64, written: u64) -> Summary {
    Summary {
        snapshot: Snapshot {
            seconds: 2.0,
            read_bytes: read,
            written_bytes: written,
            underruns: 3,
            overruns: 4,
            ..Snapshot::default()
        },
        failed_outputs: vec![],
        input_error: None,
        interrupted_by: None,
        stalled: None,
        volumes: vec![],
        input_note: None,
        links: Vec::new(),
        pad_bytes: 0,
        tape_output: false,
        pace: None,
        ring: RingPath {
            zero_copy: true,
            why: String::new(),
            pipe_bytes: 128 << 20,
            pipes: 512,
        },
        peak_held_bytes: 1 << 20,
        near_full_s: 0.0,
        near_empty_s: 0.0,
        verbose: false,
        drives: Vec::new(),
        catalog: None,
    }
}

#[test]
fn a_clean_run_off_tape_gives_counts_and_rate_and_nothing_that_reads_as_alarm() {
    let s = summary(1000, 1000);
    assert!(s.is_clean());
    assert_eq!(
        s.line(),
        "tapebuf: summary: in 1000 bytes, out 1000 bytes (1000 B), 2.000 s, 500 B/s"
    );
}

#[test]
fn verbose_adds_the_underruns_explained_and_the_ring() {
    let line = summary(10, 10).verbose(true).line();
    assert!(
        line.contains(
            ", 3 underruns, 4 overruns; underruns: the input was the slower side, which only a tape would feel"
        ),
        "{line}"
    );
    assert!(
        line.ends_with(
            "; zero-copy ring: 512 pipes, 128.00 MiB of kernel pipe memory, peak 1.00 MiB held"
        ),
        "{line}"
    );
}

#[test]
fn a_tape_output_always_gets_its_stops_and_its_ring() {
    let mut s = summary(10, 10);
    s.tape_output = true;
    let line = s.line();
    assert!(
        line.contains(", 3 underruns, 4 overruns; each underrun stopped the drive"),
        "{line}"
    );
    assert!(line.contains("; zero-copy ring: 512 pipes"), "{line}");
    s.snapshot.underruns = 0;
    let line = s.line();
    assert!(
        line.contains(", 0 underruns, 4 overruns; zero-copy"),
        "{line}"
    );
    assert!(!line.contains("stopped the drive"), "{line}");
}

#[test]
fn the_copying_rings_reason_reads_after_because() {
    let mut s = summary(10, 10).verbose(true);
    s.ring = RingPath {
        why: "--manifest hashes every byte".into(),
        ..RingPath::default()
    };
    assert!(
        s.line()
            .ends_with("; copying ring, because --manifest hashes every byte"),
        "{}",
        s.line()
    );
}

#[test]
fn volumes_are_counted_off_tape_and_listed_on_tape() {
    let mut s = summary(3000, 3000);
    s.volumes.push(VolumeList {
        endpoint: "-o v.%02d".into(),
        bytes: vec![1000, 1000, 1000],
        cartridges: Vec::new(),
        cleanings: Vec::new(),
        ..VolumeList::default()
    });
    s.volumes.push(VolumeList {
        endpoint: "-i in".into(),
        bytes: vec![3000],
        cartridges: Vec::new(),
        cleanings: Vec::new(),
        ..VolumeList::default()
    });
    let line = s.line();
    assert!(line.ends_with("; -o v.%02d: 3 volumes"), "{line}");
    s.tape_output = true;
    let line = s.line();
    assert!(
        line.contains("; -o v.%02d volumes: #1 1000 bytes, #2 1000 bytes, #3 1000 bytes; -i in volumes: #1 3000 bytes; "),
        "{line}"
    );
}

#[test]
fn uncommitted_bytes_are_named_with_every_detail_and_not_clean() {
    let s = summary(1000, 400);
    assert!(!s.is_clean());
    let line = s.line();
    assert!(line.contains(", 3 underruns, 4 overruns"), "{line}");
    assert!(line.contains("; zero-copy ring: "), "{line}");
    assert!(
        line.ends_with("; 600 bytes read but not committed"),
        "{line}"
    );
    assert!(!line.contains("slower side"), "{line}");
}

#[test]
fn failed_outputs_and_interruption_are_named() {
    let mut s = summary(10, 10);
    s.failed_outputs
        .push("/mnt/b: write failed at byte 0: boom".into());
    s.interrupted_by = Some("SIGINT");
    let line = s.line();
    assert!(
        line.starts_with("tapebuf: summary: interrupted by SIGINT: in 10 bytes"),
        "{line}"
    );
    assert!(
        line.ends_with("; FAILED /mnt/b: write failed at byte 0: boom"),
        "{line}"
    );
    assert!(!s.is_clean());
}

#[test]
fn the_time_near_full_and_near_empty_shows_on_a_paced_or_detailed_run_only() {
    let mut s = summary(10, 10);
    s.near_full_s = 12.34;
    s.near_empty_s = 0.4;
    assert!(!s.line().contains("near full"), "{}", s.line());
    let clause = "; ring near full 12.3 s, near empty 0.4 s; ";
    let line = s.clone().verbose(true).line();
    assert!(line.contains(clause), "{line}");
    s.pace = Some(crate::pace::PaceReport {
        floor_bps: Some(20e6),
        top_bps: Some(80e6),
        top_learned: false,
        swallowed: false,
        dips_ended_s: None,
        mode: crate::pace::Mode::Pacing,
        stall: None,
        inside_share: None,
        full_speed: Default::default(),
    });
    assert!(
        s.line()
            .ends_with("(top); ring near full 12.3 s, near empty 0.4 s"),
        "{}",
        s.line()
    );
    // Under a tenth of a second each, it is left out.
    s.near_full_s = 0.04;
    s.near_empty_s = 0.0;
    assert!(!s.line().contains("near full"), "{}", s.line());
}

/// A list of `volumes` volumes loaded by a library, with one cleaning.
fn library_volumes(volumes: usize) -> VolumeList {
    VolumeList {
        endpoint: "-o /dev/nst0".into(),
        bytes: vec![100; volumes],
        cartridges: (1..=volumes)
            .map(|n| Cartridge {
                barcode: Some(format!("E0100{n}L6")),
                slot: Some(n),
            })
            .collect(),
        cleanings: vec!["drive cleaned with CLN009L1 before volume 2 (30 s)".into()],
        ..VolumeList::default()
    }
}

#[test]
fn a_librarys_cartridges_are_named_in_every_summary_even_for_one_volume() {
    let mut s = summary(100, 100);
    s.volumes.push(library_volumes(1));
    let line = s.line();
    assert!(
        line.contains("; -o /dev/nst0: 1 volume (E01001L6 from slot 1); -o /dev/nst0: drive cleaned with CLN009L1 before volume 2 (30 s)"),
        "{line}"
    );
    let mut s = summary(300, 300);
    s.volumes.push(library_volumes(3));
    s.tape_output = true;
    let line = s.line();
    assert!(
        line.contains("-o /dev/nst0 volumes: #1 E01001L6 from slot 1 100 bytes, #2 E01002L6 from slot 2 100 bytes, #3 E01003L6 from slot 3 100 bytes"),
        "{line}"
    );
}

#[test]
fn a_run_cut_short_says_which_cartridges_hold_its_committed_bytes() {
    let mut s = summary(300, 200);
    let mut list = library_volumes(2);
    list.bytes = vec![200, 0];
    s.volumes.push(list);
    let line = s.line();
    assert!(
        line.ends_with("; 100 bytes read but not committed; -o /dev/nst0: safe on tape: volume 1 (E01001L6, 200 bytes)"),
        "{line}"
    );
    let clean = summary(300, 300);
    assert!(!clean.line().contains("safe on tape"));
}

#[test]
fn every_output_s_privacy_is_said_once_by_its_endpoint_clear_text_included() {
    use crate::net::facts::{LinkFacts, Privacy, Records};
    let private = LinkFacts {
        records: Some(Records::UserSpace),
        peer_key: Some("SHA256:x".into()),
        ..LinkFacts::new("-O vault:9090".into(), "10.0.0.2:9090".into(), Privacy::Tls)
    };
    let plain = LinkFacts::new(
        "-O tape2:9090".into(),
        "10.0.0.3:9090".into(),
        Privacy::Plain,
    );
    // The input's privacy is in its own note, not said again here.
    let input = LinkFacts {
        records: Some(Records::UserSpace),
        ..LinkFacts::new("-I 9090".into(), "10.0.0.1:5000".into(), Privacy::Tls)
    };
    let mut s = summary(10, 10);
    s.links = vec![input, private, plain];
    let line = s.line();
    assert!(
        line.ends_with(
            "; -O vault:9090: over TLS 1.3 in user space; -O tape2:9090: in clear text (--plain)"
        ),
        "{line}"
    );
    assert_eq!(line.matches("over TLS").count(), 1, "{line}");
}
