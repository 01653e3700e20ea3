//! A drive's history: where it lives, what its file survives, and when a
//! volume is judged worse than the drive's own past.

use super::*;
use std::ffi::OsString;
use std::fs;

const GB: u64 = 1_000_000_000;

fn written(bytes: u64, drive_seconds: f64) -> VolumeFigures {
    VolumeFigures {
        when: 1_700_000_000,
        writing: true,
        bytes,
        drive_seconds,
        full: false,
        medium: None,
    }
}

fn full(bytes: u64, medium: Option<&str>) -> VolumeFigures {
    VolumeFigures {
        full: true,
        medium: medium.map(str::to_string),
        ..written(bytes, bytes as f64 / 160e6)
    }
}

fn history(volumes: Vec<VolumeFigures>) -> History {
    History {
        path: PathBuf::new(),
        volumes,
    }
}

/// A volume of 10 GB at `rate` bytes/s.
fn at(rate: f64) -> VolumeFigures {
    written(10 * GB, 10.0 * GB as f64 / rate)
}

fn os(s: &str) -> Option<OsString> {
    Some(OsString::from(s))
}

#[test]
fn the_state_dir_is_under_xdg_state_home_when_it_is_absolute() {
    assert_eq!(
        file::state_dir_from(os("/var/state"), os("/home/u")),
        Some(PathBuf::from("/var/state/tapebuf/drives"))
    );
}

#[test]
fn the_state_dir_falls_back_to_home_when_xdg_state_home_is_unset_or_relative() {
    let home = Some(PathBuf::from("/home/u/.local/state/tapebuf/drives"));
    assert_eq!(file::state_dir_from(None, os("/home/u")), home);
    assert_eq!(file::state_dir_from(os("state"), os("/home/u")), home);
    assert_eq!(file::state_dir_from(os(""), os("/home/u")), home);
}

#[test]
fn there_is_no_state_dir_without_an_absolute_home() {
    assert_eq!(file::state_dir_from(None, None), None);
    assert_eq!(file::state_dir_from(None, os("")), None);
    assert_eq!(file::state_dir_from(os("rel"), os("rel/home")), None);
}

#[test]
fn a_serial_becomes_a_safe_file_name() {
    assert_eq!(file::name("HU1234567"), "HU1234567.json");
    assert_eq!(file::name("  A1.b_c-D  "), "A1.b_c-D.json");
    assert_eq!(file::name("../x"), ".._x.json");
    assert_eq!(file::name("a/b c\0é"), "a_b_c__.json");
    assert_eq!(file::name(""), "_.json");
    assert_eq!(file::name("   "), "_.json");
    assert_eq!(file::name("."), "__.json");
    assert_eq!(file::name(".."), "___.json");
    assert_eq!(
        file::name(&"x".repeat(500)),
        format!("{}.json", "x".repeat(64))
    );
}

#[test]
fn a_missing_file_is_an_empty_history() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::load(dir.path(), "NEW").unwrap();
    assert!(h.volumes.is_empty());
    assert_eq!(h.path, dir.path().join("NEW.json"));
}

#[test]
fn appended_volumes_load_back_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let drives = dir.path().join("state/tapebuf/drives");
    let mut h = History::load(&drives, "SER1").unwrap();
    let first = vec![at(150e6), full(2400 * GB, Some("L6"))];
    h.append(&first).unwrap();
    let mut again = History::load(&drives, "SER1").unwrap();
    assert_eq!(again.volumes, first);
    again.append(&[at(140e6)]).unwrap();
    let third = History::load(&drives, "SER1").unwrap();
    assert_eq!(third.volumes.len(), 3);
    assert_eq!(third.volumes[2], at(140e6));
    let text = fs::read_to_string(drives.join("SER1.json")).unwrap();
    assert!(text.contains("\"format\": 1"), "{text}");
}

#[test]
fn the_directory_is_created_private_and_no_temporary_file_is_left() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let drives = dir.path().join("drives");
    History::load(&drives, "S")
        .unwrap()
        .append(&[at(1e8)])
        .unwrap();
    let mode = fs::metadata(&drives).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    let names: Vec<_> = fs::read_dir(&drives)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![OsString::from("S.json")]);
}

#[test]
fn seconds_json_cannot_hold_are_kept_as_zero_and_the_file_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::load(dir.path(), "S").unwrap();
    h.append(&[written(GB, f64::NAN), written(GB, f64::INFINITY)])
        .unwrap();
    let back = History::load(dir.path(), "S").unwrap();
    assert!(back.volumes.iter().all(|v| v.drive_seconds == 0.0));
}

#[test]
fn a_long_medium_name_is_kept_to_64_characters_and_still_matches_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::load(dir.path(), "S").unwrap();
    h.append(&[full(GB, Some(&"é".repeat(100)))]).unwrap();
    let back = History::load(dir.path(), "S").unwrap();
    assert_eq!(back.volumes[0].medium, Some("é".repeat(64)));
    let long = || full(2400 * GB, Some(&"é".repeat(100)));
    let h = history(
        [long(), long(), long()]
            .iter()
            .map(VolumeFigures::for_file)
            .collect(),
    );
    let less = VolumeFigures {
        bytes: GB,
        ..long()
    };
    let found = h.judge(&less);
    assert!(
        found
            .iter()
            .any(|d| matches!(d, Degradation::Capacity { .. })),
        "{found:?}"
    );
}

#[test]
fn a_damaged_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for text in [
        "{not json",
        "[]",
        "{\"format\": 1}",
        "{\"format\": 2, \"volumes\": []}",
    ] {
        fs::write(dir.path().join("S.json"), text).unwrap();
        let e = History::load(dir.path(), "S").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{text}");
        assert!(e.to_string().contains("S.json"), "{e}");
    }
}

#[test]
fn a_file_over_one_mib_is_refused_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = b"{\"format\": 1, \"volumes\": []}".to_vec();
    text.resize(file::MAX_FILE_BYTES as usize + 1, b' ');
    fs::write(dir.path().join("S.json"), &text).unwrap();
    let e = History::load(dir.path(), "S").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(e.to_string().contains("1 MiB"), "{e}");
}

#[test]
fn an_unreadable_file_is_an_error_not_an_empty_history() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("S.json")).unwrap();
    assert!(History::load(dir.path(), "S").is_err());
}

#[test]
fn only_the_newest_200_volumes_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::load(dir.path(), "S").unwrap();
    let volumes: Vec<_> = (0..250)
        .map(|i| VolumeFigures { when: i, ..at(1e8) })
        .collect();
    h.append(&volumes[..150]).unwrap();
    h.append(&volumes[150..]).unwrap();
    let back = History::load(dir.path(), "S").unwrap();
    assert_eq!(back.volumes.len(), KEPT_VOLUMES);
    assert_eq!(back.volumes[0].when, 50);
    assert_eq!(back.volumes[199].when, 249);
}

#[test]
fn fewer_than_three_earlier_volumes_judge_nothing() {
    let untimed = VolumeFigures {
        drive_seconds: 0.0,
        ..full(2400 * GB, None)
    };
    let h = history(vec![at(160e6), at(160e6), untimed.clone(), untimed]);
    assert!(h.judge(&at(10e6)).is_empty());
    assert!(h.judge(&full(100 * GB, None)).is_empty());
}

#[test]
fn a_rate_well_below_the_median_is_flagged() {
    let h = history(vec![at(150e6), at(160e6), at(170e6), at(5e6)]);
    // The median of 5, 150, 160 and 170 MB/s is 155 MB/s; 60% is 93.
    assert!(h.judge(&at(100e6)).is_empty());
    let found = h.judge(&at(41e6));
    assert_eq!(found.len(), 1);
    let Degradation::Rate { now, usual } = found[0] else {
        panic!("{found:?}")
    };
    assert!((now - 41e6).abs() < 1.0 && (usual - 155e6).abs() < 1.0);
    assert_eq!(
        found[0].words(true),
        "writing at 41.0 MB/s, well below this drive's usual 155.0 MB/s"
    );
}

#[test]
fn small_or_untimed_volumes_do_not_count_for_the_rate() {
    let small = written(MIN_RATE_BYTES - 1, 0.001);
    let untimed = written(10 * GB, 0.0);
    let h = history(vec![at(160e6), at(160e6), small.clone(), untimed.clone()]);
    assert!(h.judge(&at(10e6)).is_empty(), "only two count");
    let h = history(vec![at(160e6), at(160e6), at(160e6)]);
    assert!(h.judge(&written(MIN_RATE_BYTES - 1, 10.0)).is_empty());
    assert!(h.judge(&untimed).is_empty());
    assert_eq!(h.judge(&written(MIN_RATE_BYTES, 10.0)).len(), 1);
}

#[test]
fn a_volume_is_compared_only_with_volumes_of_its_direction() {
    let read = |v: VolumeFigures| VolumeFigures {
        writing: false,
        ..v
    };
    let h = history(vec![at(160e6), at(160e6), at(160e6)]);
    assert!(h.judge(&read(at(10e6))).is_empty());
    let h = history(vec![read(at(160e6)), read(at(160e6)), read(at(160e6))]);
    assert_eq!(h.judge(&read(at(10e6))).len(), 1);
    assert!(h.judge(&at(10e6)).is_empty());
}

#[test]
fn capacity_is_compared_only_among_full_volumes_of_the_same_medium() {
    let l6 = Some("L6");
    let mut earlier = vec![
        full(2400 * GB, l6),
        full(2500 * GB, l6),
        full(2300 * GB, l6),
        full(6000 * GB, Some("L7")),
        full(1000 * GB, None),
        written(100 * GB, 600.0),
    ];
    let h = history(earlier.clone());
    assert_eq!(
        h.judge(&full(1200 * GB, l6)),
        vec![Degradation::Capacity {
            now: 1200 * GB,
            usual: 2400 * GB
        }]
    );
    assert!(h.judge(&full(2100 * GB, l6)).is_empty(), "above 85%");
    assert!(h.judge(&full(100 * GB, Some("L7"))).is_empty(), "one L7");
    assert!(h.judge(&full(100 * GB, None)).is_empty(), "one unknown");
    let not_full = VolumeFigures {
        full: false,
        ..full(1200 * GB, l6)
    };
    assert!(h.judge(&not_full).is_empty());
    earlier.extend([full(1000 * GB, None), full(1000 * GB, None)]);
    assert_eq!(history(earlier).judge(&full(100 * GB, None)).len(), 1);
}

#[test]
fn a_capacity_drop_reads_as_a_sentence() {
    let d = Degradation::Capacity {
        now: 1 << 40,
        usual: 2 << 40,
    };
    assert_eq!(
        d.to_string(),
        "the cartridge held 1.00 TiB, well below the 2.00 TiB this drive usually fills"
    );
}

#[test]
fn the_baseline_gives_the_medians_judge_uses() {
    let h = history(vec![
        at(150e6),
        at(160e6),
        full(2400 * GB, Some("L6")),
        full(2500 * GB, Some("L6")),
        full(2300 * GB, Some("L6")),
        full(1000 * GB, None),
        VolumeFigures {
            writing: false,
            ..at(100e6)
        },
    ]);
    let b = h.baseline(true);
    assert_eq!(b.volumes_on_record, 6);
    assert!((b.usual_rate.unwrap() - 160e6).abs() < 1.0, "{b:?}");
    assert_eq!(b.usual_capacity, vec![(Some("L6".to_string()), 2400 * GB)]);
    let b = h.baseline(false);
    assert_eq!(
        b,
        Baseline {
            usual_rate: None,
            usual_capacity: vec![],
            volumes_on_record: 1
        }
    );
}
