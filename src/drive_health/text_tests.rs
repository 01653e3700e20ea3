use super::*;
use crate::drive_health::collect::{report, Answers};
use crate::drive_health::sample::full_report;
use crate::tape::health::Snapshot;

#[test]
fn a_full_report_is_one_screen_of_aligned_sections() {
    let text = render(&full_report());
    let titles: Vec<&str> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .collect();
    assert_eq!(
        titles,
        [
            "Drive",
            "Cartridge",
            "TapeAlert",
            "Errors",
            "Compression",
            "History"
        ]
    );
    assert!(text.lines().count() <= 50, "{text}");
    // Every value begins in one column.
    let columns: Vec<usize> = text
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| {
            l.find(':').unwrap() + 1 + l[l.find(':').unwrap() + 1..].find(|c| c != ' ').unwrap()
        })
        .collect();
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{text}");
}

#[test]
fn a_full_report_shows_each_answer() {
    let text = render(&full_report());
    for expected in [
        "Device:",
        "ULT3580-TD6",
        "LABDRV01",
        "in\n",
        "E01001L6",
        "2.27 TiB, 1.09 TiB left",
        "Flag 20:",
        "(critical)",
        CLEARED,
        "3 corrected, 12 rewrites, 0 uncorrected, 40.00 GiB processed",
        "1.50:1, 60.00 GiB from the host, 40.00 GiB on tape",
        "158.2 MB/s",
        "per full cartridge (L6)",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    let flag21 = text.lines().find(|l| l.contains("Flag 21:")).unwrap();
    assert!(!flag21.contains("critical"), "{flag21}");
}

#[test]
fn a_drive_that_said_nothing_shows_none_and_no_note_about_clearing() {
    let answers = Answers {
        snapshot: Snapshot {
            unreadable: Some("the kernel refused SG_IO".into()),
            ..Snapshot::default()
        },
        ..Answers::default()
    };
    let text = render(&report("/dev/nst0", answers));
    assert!(text.contains("Unreadable:"), "{text}");
    assert!(text.contains("the kernel refused SG_IO"), "{text}");
    assert!(!text.contains(CLEARED), "{text}");
    for section in ["Cartridge", "TapeAlert", "Errors", "Compression"] {
        assert!(
            text.contains(&format!("{section}\n  none\n")),
            "{section}: {text}"
        );
    }
}

#[test]
fn no_flags_raised_says_none_and_that_reading_cleared_them() {
    let text = render(&report("/dev/nst0", Answers::default()));
    assert!(text.contains("Raised:"), "{text}");
    assert_eq!(text.matches(CLEARED).count(), 1, "{text}");
}

#[test]
fn text_from_the_drive_stays_on_one_line() {
    let mut r = full_report();
    r.identity.as_mut().unwrap().vendor = "IB\nM".into();
    let text = render(&r);
    assert!(text.contains("IB\\nM"), "{text}");
}

#[test]
fn example_rendering() {
    // The layout the manual shows, printed for `--nocapture`.
    println!("{}", render(&full_report()));
}
