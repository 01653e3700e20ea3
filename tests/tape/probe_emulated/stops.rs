//! The sweep stops cleanly and goes on past refusals: a stop request ends
//! it between blocks and the cleanup rewinds, and sizes the drive refuses
//! are marked unsupported while the other sizes are measured.

use super::support::*;
use tapebuf::probe::schema::DataKind;
use tapebuf::probe::sweep::{sweep, Plan, SweepError};
use tapebuf::probe::table::lines_of;
use tapebuf::probe::ProbeTarget;

#[test]
fn a_stop_request_ends_the_sweep_between_blocks_and_cleanup_rewinds() {
    let (tape, shelf) = emulated_tape();
    let mut target = tape;
    let plan = Plan {
        sizes: vec![64 * KIB],
        runs: 1,
        stream_bytes: 1 << 20,
        data: DataKind::Random,
    };
    let asked = std::cell::Cell::new(0);
    let stop = || {
        asked.set(asked.get() + 1);
        (asked.get() > 5).then_some(2)
    };
    let clock = Ticking(VirtualClock::default());
    let e = sweep(&mut target, &plan, &clock, &stop, &mut |_| {}).unwrap_err();
    assert!(matches!(e, SweepError::Interrupted(2)), "{e}");
    target.cleanup().unwrap();
    let lib = shelf.lock().unwrap();
    // Four records were written before the stop; the rewind wrote the
    // filemark after them.
    assert_eq!(lib.slots[0].record_sizes(), vec![65536; 4]);
    assert_eq!(lib.slots[0].filemarks(), 1);
    let tail: Vec<&str> = lib.log.iter().rev().take(3).map(String::as_str).collect();
    assert_eq!(tail, vec!["close", "rewind", "filemark"]);
}

#[test]
fn sizes_the_drive_refuses_are_marked_unsupported_and_the_sweep_goes_on() {
    let (tape, shelf) = emulated_tape();
    // st over the host adapter's limit: EBUSY above 256 KiB, and the
    // drive left in fixed-block mode, which the probe undoes.
    {
        let mut lib = shelf.lock().unwrap();
        lib.transfer_limit = Some(tapebuf::tape::emulated::TransferLimit {
            max_bytes: 256 << 10,
            errno: libc::EBUSY,
            known: false,
        });
        lib.block_bytes = 512;
    }
    let clock = VirtualClock::default();
    let mut target = timed(tape, &clock);
    let plan = Plan {
        sizes: (6..=10).map(|p| KIB << p).collect(), // 64 KiB .. 1 MiB
        runs: 2,
        stream_bytes: 4 << 20,
        data: DataKind::Random,
    };
    let done = run(&mut target, &plan, &clock).unwrap();
    let results = done.results(&target, &plan, false);
    let refused: Vec<u64> = results
        .results
        .iter()
        .filter(|r| r.refused.is_some())
        .map(|r| r.block_bytes)
        .collect();
    assert_eq!(refused, vec![512 * KIB, 1024 * KIB]);
    for r in &results.results {
        assert_eq!(r.verified, r.block_bytes <= 256 * KIB, "{r:?}");
    }
    // The curve peaks at 256 KiB, the largest size the drive takes.
    assert_eq!(results.recommend.write_block_bytes, 256 * KIB);
    assert_eq!(results.recommend.read_block_bytes, 256 * KIB);
    let table = lines_of(&results);
    let row = table
        .iter()
        .find(|l| l.trim_start().starts_with("512k"))
        .unwrap();
    assert!(
        row.contains("not supported by this drive/controller (writing a 524288-byte block: Device or resource busy)"),
        "{table:#?}"
    );
    let json = serde_json::to_string(&results).unwrap();
    assert!(
        json.contains(r#""refused":"not supported by this drive/controller"#),
        "{json}"
    );
    assert_eq!(json.matches(r#""refused""#).count(), 2, "{json}");
    target.cleanup().unwrap();
    let lib = shelf.lock().unwrap();
    assert_eq!(
        lib.block_bytes, 0,
        "the probe put the drive in variable mode"
    );
    assert!(
        lib.slots[0].record_sizes().iter().all(|&s| s <= 256 << 10),
        "no refused record reached the tape"
    );
}
