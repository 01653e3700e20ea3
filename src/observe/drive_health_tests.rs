use super::*;
use crate::tape::health::Mam;
use crate::tape::scsi::pages::tape_alert::TapeAlerts;

fn volume(n: u32) -> VolumeHealth {
    VolumeHealth {
        volume: n,
        cartridge: Some(Mam {
            serial: Some(format!("SER{n}")),
            barcode: Some(format!("E0100{n}L6")),
            load_count: Some(186 + u64::from(n)),
            ..Mam::default()
        }),
        records: 1000,
        ..VolumeHealth::default()
    }
}

#[test]
fn the_clause_names_each_cartridge_its_kind_and_load_and_the_flags_raised_in_each_volume() {
    let mut second = volume(2);
    second.add_alerts({
        let mut a = TapeAlerts::default();
        a.insert(20);
        a
    });
    second.retries = Some(8);
    let drive = DriveHealth {
        endpoint: "-o /dev/nst0".into(),
        volumes: vec![volume(1), second],
        critical: vec![Alert::of(20)],
        ..DriveHealth::default()
    };
    assert_eq!(
        drive.describe().unwrap(),
        "-o /dev/nst0 drive health: E01001L6 (LTO-6, 187th load), E01002L6 (LTO-6, 188th load); \
         TapeAlert 20 \"clean now\" during volume 2; 0.4% of records rewritten"
    );
    assert_eq!(
        drive.alarm().unwrap(),
        "DRIVE ALERT -o /dev/nst0: TapeAlert 20 \"clean now\""
    );
}

#[test]
fn a_drive_that_could_not_be_read_says_why_and_raises_no_alarm() {
    let drive = DriveHealth {
        endpoint: "-i /dev/nst0".into(),
        unreadable: Some("the kernel refused SG_IO".into()),
        ..DriveHealth::default()
    };
    assert_eq!(
        drive.describe().unwrap(),
        "-i /dev/nst0 drive health: not read: the kernel refused SG_IO"
    );
    assert!(drive.alarm().is_none());
    let quiet = DriveHealth {
        endpoint: "-o /dev/nst0".into(),
        ..DriveHealth::default()
    };
    assert_eq!(quiet.describe(), None);
}

#[test]
fn a_reading_drive_says_read_again_and_errors_it_could_not_correct() {
    let mut v = volume(1);
    v.retries = Some(10);
    v.corrected_errors = Some(3);
    v.uncorrected_errors = Some(1);
    v.compression_percent = Some(210);
    let drive = DriveHealth {
        endpoint: "-i /dev/nst0".into(),
        volumes: vec![v],
        ..DriveHealth::default()
    };
    let line = drive.describe().unwrap();
    assert!(
        line.contains("1.0% of records read again, 3 errors corrected, 1 errors NOT corrected"),
        "{line}"
    );
    assert!(line.contains("compressed 2.10:1"), "{line}");
}

#[test]
fn ordinals_follow_english() {
    let said: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 111, 187]
        .map(ordinal)
        .to_vec();
    assert_eq!(
        said,
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th", "187th"]
    );
}
