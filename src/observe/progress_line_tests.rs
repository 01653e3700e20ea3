use super::*;

const GIB: u64 = 1 << 30;

/// Forty minutes into a 10 GiB stream, 4 GiB written: 60 minutes left.
fn busy(underruns: u64) -> Snapshot {
    Snapshot {
        seconds: 2400.0,
        read_bytes: 4 * GIB + GIB / 5,
        written_bytes: 4 * GIB,
        fill_pct: 45.0,
        underruns,
        ..Snapshot::default()
    }
}

/// One second earlier, 31.2 MB less read and 80 MB less written.
fn a_second_before(now: &Snapshot) -> Snapshot {
    Snapshot {
        seconds: now.seconds - 1.0,
        read_bytes: now.read_bytes - 31_200_000,
        written_bytes: now.written_bytes - 80_000_000,
        ..now.clone()
    }
}

fn at(width: usize, underruns: u64, total: Option<u64>) -> String {
    let now = busy(underruns);
    line(&now, Some(&a_second_before(&now)), total, width)
}

#[test]
fn every_width_from_40_to_200_gets_a_line_that_fits_with_the_eta_and_the_total_written() {
    for width in 40..=200 {
        for underruns in [0, 3] {
            let text = at(width, underruns, Some(10 * GIB));
            assert!(columns(&text) <= width, "{width}: {text:?}");
            assert!(text.contains(" ETA 1:00:00, "), "{width}: {text:?}");
            assert!(text.ends_with(" 4.00 GiB out"), "{width}: {text:?}");
            let text = at(width, underruns, None);
            assert!(columns(&text) <= width, "{width}: {text:?}");
            assert!(
                text.ends_with(" 4.20 GiB in, 4.00 GiB out"),
                "{width}: {text:?}"
            );
        }
    }
}

#[test]
fn narrow_terminals_drop_whole_fields_and_keep_the_eta_and_the_totals() {
    let cases = [
        (40, "ring  45%, ETA 1:00:00, 4.00 GiB out"),
        (
            60,
            "ring  45%, 40% done, ETA 1:00:00, 4.20 GiB in, 4.00 GiB out",
        ),
        (
            80,
            "ring  45%, out 80.0 MB/s, 40% done, ETA 1:00:00, 4.20 GiB in, 4.00 GiB out",
        ),
        (
            120,
            "ring  45% [======>         ] in 31.2 MB/s, out 80.0 MB/s, 3 underruns, 40% done, ETA 1:00:00, 4.20 GiB in, 4.00 GiB out",
        ),
    ];
    for (width, expected) in cases {
        assert_eq!(at(width, 3, Some(10 * GIB)), expected, "{width}");
    }
}

#[test]
fn underruns_outrank_the_input_rate_only_when_there_were_some() {
    assert_eq!(
        at(70, 3, None),
        "ring  45%, out 80.0 MB/s, 3 underruns, 4.20 GiB in, 4.00 GiB out"
    );
    assert_eq!(
        at(70, 0, None),
        "ring  45%, in 31.2 MB/s, out 80.0 MB/s, 4.20 GiB in, 4.00 GiB out"
    );
}

#[test]
fn the_drawn_bar_takes_the_room_left_and_shows_the_fill() {
    assert_eq!(drawn(45.0, 10), "[====>     ]");
    assert_eq!(drawn(0.0, 5), "[     ]");
    assert_eq!(drawn(100.0, 5), "[=====]");
    let wide = at(200, 3, None);
    assert!(
        wide.starts_with(&format!("ring  45% {} in 31.2 MB/s", drawn(45.0, BAR_MOST))),
        "{wide}"
    );
}

#[test]
fn without_output_yet_there_is_no_eta_but_the_share_done() {
    let now = Snapshot {
        seconds: 1.0,
        read_bytes: 1000,
        ..Snapshot::default()
    };
    let text = line(&now, None, Some(10_000), 80);
    assert!(text.ends_with(", 0% done, 1000 B in, 0 B out"), "{text}");
    assert!(!text.contains("ETA"), "{text}");
}

#[test]
fn a_long_note_is_cut_after_a_whole_word() {
    let note = "waiting for /dev/nst0 to be ready: the door is open";
    assert_eq!(fit(note, 80), note);
    assert_eq!(fit(note, 30), "waiting for /dev/nst0 to ...");
    assert!(columns(&fit(note, 30)) <= 30);
}
